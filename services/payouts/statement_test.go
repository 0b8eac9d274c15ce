package payouts

import (
	"bytes"
	"context"
	"encoding/csv"
	"strconv"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/httpserver"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

func (w *moneyWorld) statementOf(t *testing.T, ctx context.Context, from, to int64) *Statement {
	t.Helper()
	st, err := w.getStatement(ownerCtx(ctx, w.store), &statementArgs{StoreID: w.store, From: from, To: to})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The statement's running balance equals the wallet after concurrent
// adjustments, releases, payouts and refunds: every change has its entry
// (a move from pending to available too, which listTransactions does not
// show), and the entries chain from the opening to the closing balance.
func TestStatementRunningBalanceEqualsTheWallet(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	start := w.clock.Now().UnixMilli()
	o := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, o)
	w.adjust(t, ctx, w.store, contract.AdjustAddBalance, 500_00)
	var wg sync.WaitGroup
	kinds := []string{contract.AdjustAddBalance, contract.AdjustDeductBalance, contract.AdjustAddPending, contract.AdjustMovePendingToAvailable}
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = w.adjustWalletBalance(ctx, &adjustArgs{StoreID: w.store, WalletID: domain.WalletIDOf(w.store), AdjustmentType: kinds[i%len(kinds)],
				Amount: money.Fils(1_00 + i), Reason: "concurrent", AdminUserID: "admin-1"})
		}()
	}
	wg.Wait()
	id, err := w.requestPayout(ownerCtx(ctx, w.store), payoutArgsOf(w.store, 200_00))
	if err != nil {
		t.Fatal(err)
	}
	w.refund(t, o, 3000, customers.RefundStatusSucceeded)
	w.statementAgrees(t)
	w.reconciled(t, w.store)
	st := w.statementOf(t, ctx, start, w.clock.Now().UnixMilli())
	wl := w.wallet(t, w.store)
	if st.OpeningBalance != 0 || st.ClosingBalance != wl.Balances().Sum().AED() || len(st.Entries) != int(wl.MoveSeq) {
		t.Fatalf("statement %v..%v with %d entries; wallet %+v seq %d", st.OpeningBalance, st.ClosingBalance, len(st.Entries), wl.Balances(), wl.MoveSeq)
	}
	kindsSeen := map[string]int{}
	for _, e := range st.Entries {
		kindsSeen[e.Kind]++
		if e.PayoutID == id && e.Status != domain.StatusRequested {
			t.Fatalf("payout entry status %q", e.Status)
		}
	}
	if kindsSeen[domain.KindEarning] != 1 || kindsSeen[domain.KindRefund] != 1 || kindsSeen[domain.KindPayoutRequest] != 1 ||
		kindsSeen[contract.AdjustMovePendingToAvailable] == 0 {
		t.Fatalf("kinds %v", kindsSeen)
	}
	// The payout's entries follow its status: rejected, both show it.
	if _, err := w.rejectPayout(adminCtx(), &rejectArgs{PayoutID: id, AdminUserID: "admin-1", RejectionReason: "test"}); err != nil {
		t.Fatal(err)
	}
	w.statementAgrees(t)
	st = w.statementOf(t, ctx, start, w.clock.Now().UnixMilli())
	n := 0
	for _, e := range st.Entries {
		if e.PayoutID == id {
			n++
			if e.Status != domain.StatusCancelled {
				t.Fatalf("entry %+v", e)
			}
		}
	}
	if n != 2 {
		t.Fatalf("%d payout entries", n)
	}
}

// A period's opening balance is the balance before it; a reversed or too
// long period is refused.
func TestStatementPeriods(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	w.adjust(t, ctx, w.store, contract.AdjustAddBalance, 10_00)
	w.clock.Advance(2 * day)
	mid := w.clock.Now().UnixMilli()
	w.adjust(t, ctx, w.store, contract.AdjustDeductBalance, 3_00)
	st := w.statementOf(t, ctx, mid, mid+1)
	if st.OpeningBalance != 10 || st.ClosingBalance != 7 || len(st.Entries) != 1 || st.Entries[0].Amount != -3 || st.Entries[0].Balance != 7 {
		t.Fatalf("%+v", st)
	}
	if st := w.statementOf(t, ctx, mid+1, mid+2); st.OpeningBalance != 7 || st.ClosingBalance != 7 || len(st.Entries) != 0 {
		t.Fatalf("an empty period %+v", st)
	}
	for _, c := range []struct {
		from, to int64
		reason   string
	}{{mid, mid - 1, ""}, {0, 367 * dayMs, "range_too_large"}} {
		_, err := w.getStatement(ownerCtx(ctx, w.store), &statementArgs{StoreID: w.store, From: c.from, To: c.to})
		e := apperr.From(err)
		if e.Code != apperr.InvalidArgument || (c.reason != "" && e.Details["reason"] != c.reason) {
			t.Fatalf("%d..%d: %v", c.from, c.to, err)
		}
	}
	if _, err := w.getStatement(ownerCtx(ctx, w.store), &statementArgs{StoreID: w.store, From: 0, To: 366 * dayMs}); err != nil {
		t.Fatalf("366 days: %v", err)
	}
}

// The CSV has the statement's rows (the route's access, StoreOwnerOrAdmin,
// is checked before: libs/ops and deploy/e2e TestWalletStatement), and a bad
// period is INVALID_ARGUMENT before any byte.
func TestStatementCSV(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	fromMs := w.clock.Now().UnixMilli()
	from := strconv.FormatInt(fromMs, 10)
	o := w.order(customers.StatusOutForDelivery)
	w.deliverOrder(t, o)
	w.adjust(t, ctx, w.store, contract.AdjustMovePendingToAvailable, 10_00)
	w.refund(t, o, 9000, customers.RefundStatusSucceeded)
	w.clock.Advance(day)
	to := strconv.FormatInt(w.clock.Now().UnixMilli(), 10)
	st := w.statementOf(t, ctx, fromMs, w.clock.Now().UnixMilli())
	sctx := ops.WithStore(auth.WithIdentity(ctx, &auth.Identity{Sub: "owner-1"}), &ops.StoreRef{ID: w.store, Name: "Bakery", OwnerUserID: "owner-1"})
	rows, err := w.statementCSV(sctx, from, to)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := httpserver.WriteCSV(&buf, statementCSVHeader, httpserver.CSVRowsOf(rows)); err != nil {
		t.Fatal(err)
	}
	rows, err = csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(st.Entries)+3 || rows[1][2] != "opening_balance" || rows[len(rows)-1][5] != strconv.FormatFloat(st.ClosingBalance, 'f', 2, 64) {
		t.Fatalf("%d rows: %v", len(rows), rows)
	}
	for i, e := range st.Entries {
		r := rows[i+2]
		if len(r) != len(statementCSVHeader) || r[2] != e.Kind || r[4] != strconv.FormatFloat(e.Amount, 'f', 2, 64) ||
			r[5] != strconv.FormatFloat(e.Balance, 'f', 2, 64) || r[12] != e.Status {
			t.Fatalf("row %d %v, entry %+v", i, r, e)
		}
	}
	for _, c := range []struct{ from, to string }{{"yesterday", to}, {to, from}, {"0", strconv.FormatInt(367*dayMs, 10)}} {
		if _, err := w.statementCSV(sctx, c.from, c.to); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Fatalf("%+v: %v", c, err)
		}
	}
}

// TestStatementEarningHeldUntilReleased: a delivered order's earning reads
// "held" on the statement (and listStatementEntries) while its hold runs,
// "completed" once released; the release's own entry is completed.
func TestStatementEarningHeldUntilReleased(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	start := w.clock.Now().UnixMilli()
	w.deliverOrder(t, w.order(customers.StatusOutForDelivery))
	statuses := func() map[string]string {
		out := map[string]string{}
		for _, e := range w.statementOf(t, ctx, start, w.clock.Now().UnixMilli()).Entries {
			out[e.Kind] = e.Status
		}
		r, err := w.listStatementEntries(ownerCtx(ctx, w.store), &statementEntriesArgs{StoreID: w.store, PaginationOpts: page.Opts{NumItems: 10}})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range r.Page {
			if out[e.Kind] != e.Status {
				t.Errorf("%s: statement %q, listStatementEntries %q", e.Kind, out[e.Kind], e.Status)
			}
		}
		return out
	}
	if s := statuses(); s[domain.KindEarning] != EntryHeld {
		t.Fatalf("a held earning reads %v", s)
	}
	w.clock.Advance(7 * day)
	if n, _ := w.releaseNow(t); n != 1 {
		t.Fatalf("released %d", n)
	}
	if s := statuses(); s[domain.KindEarning] != domain.TxCompleted || s[domain.KindRelease] != domain.TxCompleted {
		t.Fatalf("after the release %v", s)
	}
}

// TestStatementEarningTakenEarlyIsNotHeld: an earning wholly released early
// by an administrator (move_pending_to_available) holds nothing, so the
// statement and listStatementEntries read it completed although its release
// time has not come and its transaction is still pending until the release
// job (domain.Transaction.StillHeld).
func TestStatementEarningTakenEarlyIsNotHeld(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	start := w.clock.Now().UnixMilli()
	w.deliverOrder(t, w.order(customers.StatusOutForDelivery))
	pending := w.balances(t).Pending
	if pending <= 0 {
		t.Fatalf("nothing pending after the delivery: %+v", w.balances(t))
	}
	w.adjust(t, ctx, w.store, contract.AdjustMovePendingToAvailable, pending)
	w.clock.Advance(day / 24)
	for _, e := range w.statementOf(t, ctx, start, w.clock.Now().UnixMilli()).Entries {
		if e.Kind == domain.KindEarning && e.Status != domain.TxCompleted {
			t.Fatalf("an earning released early reads %q on the statement", e.Status)
		}
	}
	r, err := w.listStatementEntries(ownerCtx(ctx, w.store), &statementEntriesArgs{StoreID: w.store, PaginationOpts: page.Opts{NumItems: 10}})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range r.Page {
		if e.Kind == domain.KindEarning && e.Status != domain.TxCompleted {
			t.Fatalf("an earning released early reads %q on listStatementEntries", e.Status)
		}
	}
}

// releaseDue takes now once per batch: a credit committed after that now
// and before the batch's release gets the lower number; the release is
// entered at the credit's time, not before it, so entry times never go back
// along the numbering and a period of listStatementEntries (a range of
// numbers) holds every entry made in it. The wallet was last journaled by
// the previous version (no journaledAt): its last entry's time is read.
func TestStatementEntryTimesFollowTheNumbering(t *testing.T) {
	w := newMoneyWorld(t)
	ctx := context.Background()
	start := w.clock.Now().UnixMilli()
	w.deliverOrder(t, w.order(customers.StatusOutForDelivery)) // held for 7 days
	w.clock.Advance(7*day + time.Hour)
	batchNow := w.clock.Now().UnixMilli() - 30*60*1000 // the batch's now, before the credit below
	w.deliverOrder(t, w.order(customers.StatusOutForDelivery))
	if _, err := w.db.Collection(storage.WalletsColl).UpdateOne(ctx, bson.M{"storeId": w.store}, bson.M{"$unset": bson.M{"journaledAt": ""}}); err != nil {
		t.Fatal(err)
	}
	due, err := w.ledger.Due(ctx, batchNow, 10)
	if err != nil || len(due) != 1 {
		t.Fatalf("due %v %v", due, err)
	}
	if err := w.tx(ctx, "the earning", func(ctx context.Context) error {
		_, _, err := w.release(ctx, due[0], batchNow)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	r, err := w.listStatementEntries(ownerCtx(ctx, w.store), &statementEntriesArgs{StoreID: w.store, PaginationOpts: page.Opts{NumItems: 10}})
	if err != nil || len(r.Page) != 3 {
		t.Fatalf("entries %+v %v", r, err)
	}
	for i := 1; i < len(r.Page); i++ { // newest first
		if r.Page[i-1].At < r.Page[i].At {
			t.Fatalf("entry %d at %d is before entry %d at %d", r.Page[i-1].Seq, r.Page[i-1].At, r.Page[i].Seq, r.Page[i].At)
		}
	}
	if rel := r.Page[0]; rel.Kind != domain.KindRelease || rel.At != r.Page[1].At {
		t.Fatalf("the release %+v, the credit %+v", rel, r.Page[1])
	}
	// A period from the credit's time holds both.
	from := r.Page[1].At
	p, err := w.listStatementEntries(ownerCtx(ctx, w.store), &statementEntriesArgs{StoreID: w.store, From: &from, PaginationOpts: page.Opts{NumItems: 10}})
	if err != nil || len(p.Page) != 2 {
		t.Fatalf("period from %d: %+v %v (start %d)", from, p, err, start)
	}
}
