package domain

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

func ptr[T any](v T) *T { return &v }

// argsFor are a move's arguments as the operations give them, the catalog
// answering that owner "u1" (the requester) owns the store.
func argsFor(m Move) MoveArgs {
	a := MoveArgs{Move: m, AdminID: "admin", AdminName: "Mariam", Notes: ptr("n"), OwnerNow: "u1", OwnerAsked: true}
	switch m {
	case MoveReject, MoveFail, MoveHandover:
		a.Reason = ptr("why")
	case MoveProcessing:
		a.Method = ptr("manual")
	}
	return a
}

func payoutIn(status string) *Payout {
	return &Payout{ID: "pay_1", StoreID: "sto_1", OwnerUserID: "u1", RequestedBy: "u1", Status: status, RequestedAmount: 150_00,
		History: []HistoryEntry{{Action: "requestPayout", To: StatusRequested}}}
}

// Every move the table of section 3.1 does not list is refused, and leaves
// the payout as it was; every move it lists is made.
func TestPayoutApplyChecksTheMove(t *testing.T) {
	for _, m := range []Move{MoveApprove, MoveReject, MoveProcessing, MoveComplete, MoveFail, MoveHandover} {
		for _, status := range allStatuses {
			p := payoutIn(status)
			before := *p
			from, err := p.Apply(argsFor(m), 1000)
			if !CanMove(m, status) {
				if apperr.CodeOf(err) != apperr.FailedPrecondition || apperr.From(err).Details["reason"] != "payout_status" ||
					apperr.From(err).Details["status"] != status {
					t.Errorf("%s from %s: %v, want FAILED_PRECONDITION payout_status", m, status, err)
				}
				if !reflect.DeepEqual(*p, before) {
					t.Errorf("%s from %s: refused, yet the payout changed: %+v", m, status, p)
				}
				continue
			}
			if err != nil || from != status || p.Status != m.To() || p.UpdatedAt != 1000 {
				t.Errorf("%s from %s: %v; from %q, now %s", m, status, err, from, p.Status)
				continue
			}
			h := p.History[len(p.History)-1]
			if len(p.History) != 2 || h.Action != string(m) || h.From != status || h.To != m.To() || h.By != "admin" || h.ByName != "Mariam" || h.At != 1000 || *h.Notes != "n" {
				t.Errorf("%s: history %+v", m, p.History)
			}
			if p.AdminNotes != "n" {
				t.Errorf("%s: admin notes %q", m, p.AdminNotes)
			}
		}
	}
	err := Refusal(MoveFail, "pay_1", StatusRequested)
	if want := "payout pay_1 is requested: markPayoutAsFailed needs it approved or processing"; apperr.From(err).Message != want {
		t.Fatalf("message %q, want %q", apperr.From(err).Message, want)
	}
}

// What each move records on the payout.
func TestPayoutApplyRecordsTheMove(t *testing.T) {
	p := payoutIn(StatusRequested)
	if _, err := p.Apply(argsFor(MoveApprove), 10); err != nil || *p.ApprovedDate != 10 || p.ApprovedBy != "admin" || p.ApprovedByName != "Mariam" {
		t.Fatalf("approve: %+v %v", p, err)
	}
	a := argsFor(MoveProcessing)
	a.Ref, a.AdminName = ptr("ref-1"), "" // a token without a name: the id alone
	if _, err := p.Apply(a, 20); err != nil || p.History[len(p.History)-1].ByName != "" || p.ApprovedByName != "Mariam" {
		t.Fatalf("processing without a name: %+v %v", p, err)
	}
	p = payoutIn(StatusRequested)
	if _, err := p.Apply(argsFor(MoveApprove), 10); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(a, 20); err != nil || *p.ProcessingDate != 20 || p.ProcessingMethod != "manual" || p.TransactionReference != "ref-1" {
		t.Fatalf("processing: %+v %v", p, err)
	}
	a = argsFor(MoveComplete)
	a.Ref = ptr("ref-2")
	if _, err := p.Apply(a, 30); err != nil || *p.CompletedDate != 30 || p.TransactionReference != "ref-2" || *p.History[3].Reference != "ref-2" {
		t.Fatalf("complete: %+v %v", p, err)
	}

	p = payoutIn(StatusRequested)
	if _, err := p.Apply(argsFor(MoveReject), 10); err != nil || *p.RejectedDate != 10 || p.RejectionReason != "why" || !p.BalanceRestored {
		t.Fatalf("reject: %+v %v", p, err)
	}
	for _, restore := range []bool{false, true} {
		p = payoutIn(StatusProcessing)
		a = argsFor(MoveFail)
		a.Restore = restore
		if _, err := p.Apply(a, 10); err != nil || *p.FailedDate != 10 || p.FailureReason != "why" || p.BalanceRestored != restore ||
			*p.History[1].RestoreBalance != restore {
			t.Fatalf("fail (restore %t): %+v %v", restore, p, err)
		}
	}
	p = payoutIn(StatusRequested)
	if _, err := p.Apply(MoveArgs{Move: MoveHandover, AdminID: HandoverActor, Reason: ptr(ReasonHandedOver)}, 10); err != nil ||
		p.Status != StatusCancelled || *p.HandedOverAt != 10 || !p.BalanceRestored || p.RejectionReason != ReasonHandedOver {
		t.Fatalf("handover: %+v %v", p, err)
	}
}

// The handover rules: a move that pays out (approve, processing, complete)
// needs the owner asked of the catalog, and for a store handed over since
// the request (flagged, or another owner now) the administrator's
// confirmation; rejecting and failing never do.
func TestPayoutApplyHandoverRules(t *testing.T) {
	statusFor := map[Move]string{MoveApprove: StatusRequested, MoveProcessing: StatusApproved, MoveComplete: StatusProcessing,
		MoveReject: StatusRequested, MoveFail: StatusApproved}
	for m, status := range statusFor {
		for _, c := range []struct {
			name             string
			ownerNow         string
			asked, flagged   bool
			confirm          bool
			wantReason       string // "" allowed
			wantHandoverFlag bool
		}{
			{"same owner", "u1", true, false, false, "", false},
			{"owner not asked", "", false, false, false, "payout_status", false},
			{"another owner", "u2", true, false, false, "store_handed_over", false},
			{"no owner in the catalog", "", true, false, false, "store_handed_over", false},
			{"flagged", "u1", true, true, false, "store_handed_over", false},
			{"another owner, confirmed", "u2", true, false, true, "", true},
			{"flagged, confirmed", "u2", true, true, true, "", true},
		} {
			p := payoutIn(status)
			if c.flagged {
				p.HandedOverAt = ptr(int64(5))
			}
			a := argsFor(m)
			a.OwnerNow, a.OwnerAsked, a.ConfirmHandover = c.ownerNow, c.asked, c.confirm
			_, err := p.Apply(a, 1000)
			want, flag := c.wantReason, c.wantHandoverFlag
			if !PaysOut(m) { // rejecting and failing never ask
				want, flag = "", false
			}
			if got, _ := apperr.From(err).Details["reason"].(string); (err == nil) != (want == "") || got != want {
				t.Errorf("%s, %s: %v, want reason %q", m, c.name, err, want)
				continue
			}
			if err != nil {
				if want == "store_handed_over" && apperr.From(err).Details["argument"] != "confirmHandover" {
					t.Errorf("%s, %s: details %v", m, c.name, apperr.From(err).Details)
				}
				continue
			}
			h := p.History[len(p.History)-1]
			if (h.HandoverConfirmed != nil) != flag {
				t.Errorf("%s, %s: handoverConfirmed %v", m, c.name, h.HandoverConfirmed)
			}
			if flag && p.HandedOverAt == nil {
				t.Errorf("%s, %s: a confirmed handed-over payout is not flagged", m, c.name)
			}
			if flag && c.flagged && *p.HandedOverAt != 5 {
				t.Errorf("%s, %s: the flag's date moved to %d", m, c.name, *p.HandedOverAt)
			}
		}
	}
}

// A handover cancels the former owner's requested payouts, flags the open
// ones once, and leaves the new owner's and the final ones alone.
func TestPayoutHandoverActionAndFlag(t *testing.T) {
	for _, c := range []struct {
		status, ownerNow string
		want             HandoverAction
	}{
		{StatusRequested, "u2", HandoverCancel}, {StatusApproved, "u2", HandoverFlag}, {StatusProcessing, "u2", HandoverFlag},
		{StatusCompleted, "u2", HandoverNone}, {StatusCancelled, "u2", HandoverNone}, {StatusFailed, "u2", HandoverNone},
		{StatusRequested, "u1", HandoverNone}, {StatusApproved, "u1", HandoverNone}, {StatusRequested, "", HandoverNone},
	} {
		if got := payoutIn(c.status).HandoverAction(c.ownerNow); got != c.want {
			t.Errorf("%s, owner now %q: %v, want %v", c.status, c.ownerNow, got, c.want)
		}
	}
	p := payoutIn(StatusApproved)
	if !p.FlagHandover(10) || *p.HandedOverAt != 10 || len(p.History) != 2 || p.History[1].By != HandoverActor || p.History[1].To != StatusApproved {
		t.Fatalf("flag: %+v", p)
	}
	if p.FlagHandover(20) || *p.HandedOverAt != 10 || len(p.History) != 2 {
		t.Fatalf("flagged twice: %+v", p)
	}
	if q := payoutIn(StatusRequested); q.FlagHandover(10) || q.HandedOverAt != nil {
		t.Fatal("a requested payout is cancelled, not flagged")
	}
}

// Ledger = balance: after any sequence of the domain's operations (credit,
// release, adjustments, payout requests and every move of the table), the
// wallet's balances and totals are what its ledger makes (Reconcile finds
// nothing).
func TestLedgerEqualsBalancesAfterAnySequence(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cfg := &DefaultWalletSettings
	for run := range 200 {
		w := &Wallet{ID: "wal_1", StoreID: "sto_1"}
		var txs []Transaction
		var moves []Adjustment
		var ps []*Payout
		now := int64(0)
		for step := range 60 {
			now++
			id := fmt.Sprint(run, "-", step)
			switch rng.IntN(6) {
			case 0, 1: // an earning, sometimes released
				amount := money.Fils(1 + rng.IntN(500_00))
				if err := w.Credit(amount, now); err != nil {
					t.Fatal(err)
				}
				e := Transaction{ID: "e" + id, Type: TxEarning, Status: TxPending, Amount: amount, HeldRemaining: amount, Metadata: map[string]string{}}
				if rng.IntN(2) == 0 {
					moved := e.Releasable(w.PendingBalance)
					if err := w.Change(Balances{Available: moved, Pending: -moved}, now); err != nil {
						t.Fatal(err)
					}
					e.Status, e.HeldRemaining = TxCompleted, e.HeldRemaining-moved
					txs = append(txs, *NewRelease("r"+id, &e, moved, now))
				}
				txs = append(txs, e)
			case 2: // an adjustment of any kind, refused when it would overdraw
				kinds := []string{"add_balance", "deduct_balance", "add_pending", "deduct_pending", "move_pending_to_available"}
				kind := kinds[rng.IntN(len(kinds))]
				amount := money.Fils(1 + rng.IntN(300_00))
				txType, d, err := AdjustmentOf(kind, amount)
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Change(d, now); err != nil {
					continue
				}
				adj := NewAdjustment(AdjustmentRequest{ID: "a" + id, WalletID: w.ID, Kind: kind, Amount: amount}, now)
				if txType == "" {
					moves = append(moves, *adj)
				} else {
					txs = append(txs, *adj.Transaction("t"+id, txType, now))
				}
				if d.Pending < 0 { // from the held earnings first, oldest first
					var held []Transaction
					at := map[string]int{}
					for i := range txs {
						if txs[i].Type == TxEarning && txs[i].Status == TxPending && txs[i].HeldRemaining > 0 {
							held = append(held, txs[i])
							at[txs[i].ID] = i
						}
					}
					takes, _ := TakeHeld(held, -d.Pending)
					for _, tk := range takes {
						e := &txs[at[tk.EarningID]]
						e.HeldRemaining -= tk.Amount
						e.HeldTaken = append(e.HeldTaken, HeldTake{AdjustmentID: adj.ID, Amount: tk.Amount})
					}
				}
			case 3: // a payout request
				amount := money.Fils(cfg.MinPayout + money.Fils(rng.IntN(500_00)))
				if err := w.Change(Balances{Available: -amount}, now); err != nil {
					continue
				}
				p, tx := NewPayout(PayoutRequest{ID: "p" + id, TransactionID: "pt" + id, StoreID: "sto_1", RequestedBy: "u1", OwnerUserID: "u1", Amount: amount}, cfg, now)
				ps = append(ps, p)
				txs = append(txs, *tx)
			default: // a move of an open payout
				if len(ps) == 0 {
					continue
				}
				p := ps[rng.IntN(len(ps))]
				var allowed []Move
				for _, m := range []Move{MoveApprove, MoveReject, MoveProcessing, MoveComplete, MoveFail, MoveHandover} {
					if CanMove(m, p.Status) {
						allowed = append(allowed, m)
					}
				}
				if len(allowed) == 0 {
					continue
				}
				a := argsFor(allowed[rng.IntN(len(allowed))])
				a.Restore = rng.IntN(2) == 0
				if _, err := p.Apply(a, now); err != nil {
					t.Fatal(err)
				}
				if err := w.SettleMove(a.Move, a.Restore, p.RequestedAmount, now); err != nil {
					t.Fatal(err)
				}
				if status := TxStatusAfter(a.Move, a.Restore); status != "" {
					for i := range txs {
						if txs[i].ID == p.TransactionID {
							txs[i].Status = status
						}
					}
				}
			}
		}
		all := make([]Payout, len(ps))
		for i, p := range ps {
			all[i] = *p
		}
		if _, bad := Reconcile(w, txs, moves, all); len(bad) > 0 {
			t.Fatalf("run %d: the ledger and the wallet disagree: %v", run, bad)
		}
	}
}

// Reconcile finds a balance that the ledger does not make.
func TestReconcileFindsABalanceOff(t *testing.T) {
	w := &Wallet{AvailableBalance: 10_00}
	txs := []Transaction{{ID: "t1", Type: TxBonus, Status: TxCompleted, Amount: 9_99}}
	r, bad := Reconcile(w, txs, nil, nil)
	if r.Available != 9_99 || len(bad) != 1 {
		t.Fatalf("%+v %v", r, bad)
	}
}

// A request records its requester by name beside the id when the token
// stated one (docs/adr/0168), and the id alone when it did not.
func TestNewPayoutNamesTheRequester(t *testing.T) {
	cfg := &WalletSettings{ProcessingFee: 5_00}
	for _, name := range []string{"Noor Hassan", ""} {
		p, _ := NewPayout(PayoutRequest{ID: "pay_1", TransactionID: "tx_1", StoreID: "sto_1", RequestedBy: "u1", RequestedByName: name, OwnerUserID: "u1", Amount: 100_00}, cfg, 10)
		if h := p.History[0]; h.By != "u1" || h.ByName != name {
			t.Errorf("named %q: history %+v", name, h)
		}
	}
}

// The requester's name: the token's, else the wallet's owner name when the
// requester is that owner, else none.
func TestRequesterName(t *testing.T) {
	w := &Wallet{OwnerUserID: "u1", OwnerName: "Noor Hassan"}
	for _, c := range []struct {
		token, sub string
		w          *Wallet
		want       string
	}{
		{"Noor H.", "u1", w, "Noor H."},
		{"", "u1", w, "Noor Hassan"},
		{"", "u2", w, ""},
		{"", "u1", nil, ""},
	} {
		if got := RequesterName(c.token, c.sub, c.w); got != c.want {
			t.Errorf("RequesterName(%q, %q) = %q, want %q", c.token, c.sub, got, c.want)
		}
	}
}
