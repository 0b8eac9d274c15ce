package domain

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// The worked examples of D1 (issue 31's contracts), in fils: an order of
// 9000 (lines 8000, delivery 1000) whose commission is 650 (5 % of 9000 =
// 450, plus the fixed 200), store earnings 8350.
func TestSplitWorkedExamples(t *testing.T) {
	const total, commission = 9000, 650
	cases := []struct {
		name                   string
		before, amount         money.Fils
		wantStore, wantCommiss money.Fils
	}{
		{"full refund reverses exactly the commission and the earnings", 0, 9000, 8350, 650},
		{"line of 30.00 first: (650×3000+4500)/9000 = 217", 0, 3000, 2783, 217},
		{"the rest after it: 650−217", 3000, 6000, 5567, 433},
		{"the 60.00 first: (650×6000+4500)/9000 = 433", 0, 6000, 5567, 433},
		{"the 30.00 after it: 650−433", 6000, 3000, 2783, 217},
		{"one fils", 0, 1, 1, 0},
		{"a dispute of 3000 on a fresh order (D4)", 0, 3000, 2783, 217},
		{"the last fils of the order", 8999, 1, 1, 0},
		{"half of the order: 325 exactly", 0, 4500, 4175, 325},
	}
	for _, c := range cases {
		store, comm := Split(total, commission, c.before, c.amount)
		if store != c.wantStore || comm != c.wantCommiss {
			t.Errorf("%s: Split(%d after %d) = store %d, commission %d; want %d, %d", c.name, c.amount, c.before, store, comm, c.wantStore, c.wantCommiss)
		}
	}
}

// Partial reversals in any order, of any sizes, sum exactly to the
// commission and the earnings once the whole order is reversed.
func TestSplitPartsSumExactly(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 47))
	for run := range 500 {
		total := money.Fils(1 + rng.IntN(200_000))
		commission := money.Fils(rng.IntN(int(total) + 1))
		var before, stores, comms money.Fils
		for before < total {
			a := min(total-before, money.Fils(1+rng.IntN(int(total))))
			s, c := Split(total, commission, before, a)
			if s < 0 || c < 0 {
				t.Fatalf("run %d: negative part %d %d", run, s, c)
			}
			stores, comms, before = stores+s, comms+c, before+a
		}
		if comms != commission || stores != total-commission {
			t.Fatalf("run %d: total %d commission %d: reversed commission %d, store %d", run, total, commission, comms, stores)
		}
	}
}

func TestOrderMoneyRefunds(t *testing.T) {
	terms := Terms{StoreID: "sto_1", Total: 9000, PlatformCommission: 650, StoreEarnings: 8350}
	t.Run("before credit lowers the credit", func(t *testing.T) {
		o := NewOrderMoney("ord_1", terms)
		r, err := o.ApplyRefund("ref_1", 3000, 1)
		if err != nil || !r.BeforeCredit || r.Store != 2783 || r.Commission != 217 {
			t.Fatalf("%+v %v", r, err)
		}
		if o.Credit() != 8350-2783 {
			t.Fatalf("credit %d", o.Credit())
		}
	})
	t.Run("after credit, twice is a no-op", func(t *testing.T) {
		o := NewOrderMoney("ord_1", terms)
		o.MarkCredited("wtx_1")
		r, err := o.ApplyRefund("ref_1", 9000, 1)
		if err != nil || r.BeforeCredit || r.Store != 8350 || r.Commission != 650 {
			t.Fatalf("%+v %v", r, err)
		}
		if _, err := o.ApplyRefund("ref_1", 9000, 2); !errors.Is(err, ErrApplied) {
			t.Fatalf("again: %v", err)
		}
		if o.Reversed != 9000 || o.CommissionReversed != 650 || len(o.Refunds) != 1 {
			t.Fatalf("%+v", o)
		}
	})
	t.Run("more than is left reverses what is left", func(t *testing.T) {
		o := NewOrderMoney("ord_1", terms)
		if _, err := o.ApplyRefund("ref_1", 6000, 1); err != nil {
			t.Fatal(err)
		}
		// A held order paid 90.01 for a total of 90.00: the fils over is the
		// payment difference's, not the store's or the commission's.
		r, err := o.ApplyRefund("ref_2", 3001, 1)
		if err != nil || r.Excess != 1 || r.Store != 2783 || r.Commission != 217 || o.Reversed != 9000 || o.CommissionReversed != 650 {
			t.Fatalf("%+v %v %+v", r, err, o)
		}
		if r, err := o.ApplyRefund("ref_4", 500, 1); err != nil || r.Excess != 500 || r.Store != 0 {
			t.Fatalf("after everything: %+v %v", r, err)
		}
		if _, err := o.ApplyRefund("ref_3", 0, 1); err == nil {
			t.Fatal("a zero refund accepted")
		}
	})
}

func TestOrderMoneyDisputes(t *testing.T) {
	terms := Terms{StoreID: "sto_1", Total: 9000, PlatformCommission: 650, StoreEarnings: 8350}
	credited := func() *OrderMoney {
		o := NewOrderMoney("ord_1", terms)
		o.MarkCredited("wtx_1")
		return o
	}
	t.Run("won releases the held share", func(t *testing.T) {
		o := credited()
		d, err := o.OpenDispute("dp_1", 9000, 1)
		if err != nil || d.Held != 8350 {
			t.Fatalf("%+v %v", d, err)
		}
		if _, err := o.OpenDispute("dp_1", 9000, 1); !errors.Is(err, ErrApplied) {
			t.Fatalf("opened twice: %v", err)
		}
		d.FromHeld = 5000 // the hold took 5000 from the held earning
		c, err := o.CloseDispute("dp_1", DisputeWon, 1500, FeeChargedToStore, 2)
		if err != nil || c != (Closing{Release: 8350, FromHeld: 5000}) || o.Reversed != 0 {
			t.Fatalf("%+v %v %+v", c, err, o)
		}
		if _, err := o.CloseDispute("dp_1", DisputeLost, 1500, FeeChargedToStore, 3); !errors.Is(err, ErrApplied) {
			t.Fatalf("closed twice: %v", err)
		}
	})
	t.Run("lost counts as reversed and freezes the fee", func(t *testing.T) {
		o := credited()
		if _, err := o.ApplyRefund("ref_1", 3000, 1); err != nil {
			t.Fatal(err)
		}
		d, _ := o.OpenDispute("dp_1", 6000, 1)
		if d.Held != 5567 {
			t.Fatalf("held %d", d.Held)
		}
		c, err := o.CloseDispute("dp_1", DisputeLost, 1500, FeeChargedToPlatform, 2)
		want := Closing{Loss: 5567, Store: 5567, Commission: 433, Fee: 1500, ChargedTo: FeeChargedToPlatform}
		if err != nil || c != want {
			t.Fatalf("%+v %v, want %+v", c, err, want)
		}
		if o.Reversed != 9000 || o.CommissionReversed != 650 || o.Dispute("dp_1").Fee != 1500 {
			t.Fatalf("%+v", o)
		}
	})
	t.Run("lost after other reversals moved the split settles the difference", func(t *testing.T) {
		o := credited()
		o.OpenDispute("dp_1", 4500, 1) // share 4175 held
		o.OpenDispute("dp_2", 4500, 1) // share 4175 held (R still 0)
		c1, _ := o.CloseDispute("dp_1", DisputeLost, 0, FeeChargedToStore, 2)
		c2, _ := o.CloseDispute("dp_2", DisputeLost, 0, FeeChargedToStore, 2)
		if c1.Loss+c1.Extra-c1.Return+c2.Loss+c2.Extra-c2.Return != 8350 || c1.Loss+c1.Return+c2.Loss+c2.Return != 8350 {
			t.Fatalf("%+v %+v", c1, c2)
		}
		if o.CommissionReversed != 650 {
			t.Fatalf("commission %d", o.CommissionReversed)
		}
	})
	t.Run("before credit: held at credit, lost lowers the credit", func(t *testing.T) {
		o := NewOrderMoney("ord_1", terms)
		d, _ := o.OpenDispute("dp_1", 3000, 1)
		if d.Held != 0 || d.HeldApplied {
			t.Fatalf("%+v", d)
		}
		o.MarkCredited("wtx_1")
		held := o.HoldOnCredit(2)
		if len(held) != 1 || held[0].Held != 2783 || len(o.HoldOnCredit(3)) != 0 {
			t.Fatalf("%+v", held)
		}
		o2 := NewOrderMoney("ord_2", terms)
		o2.OpenDispute("dp_2", 3000, 1)
		c, err := o2.CloseDispute("dp_2", DisputeLost, 1500, FeeChargedToStore, 2)
		if err != nil || c.Loss != 0 || o2.Credit() != 8350-2783 {
			t.Fatalf("%+v %v %d", c, err, o2.Credit())
		}
	})
}

// Reverse lets available go negative (a debt), never pending or disputed;
// a payout request while in debt is refused, naming the debt.
func TestReverseAndDebt(t *testing.T) {
	w := &Wallet{AvailableBalance: 350, PendingBalance: 100}
	if err := w.Reverse(Balances{Available: -8350}, 5); err != nil || w.AvailableBalance != -8000 {
		t.Fatalf("%v %+v", err, w.Balances())
	}
	if err := w.Reverse(Balances{Pending: -101}, 6); err == nil || w.PendingBalance != 100 {
		t.Fatalf("pending went negative: %v %+v", err, w.Balances())
	}
	if err := w.Reverse(Balances{Disputed: -1}, 6); err == nil {
		t.Fatal("disputed went negative")
	}
	if err := w.Change(Balances{Available: -1}, 7); err == nil {
		t.Fatal("Change overdrew a wallet in debt")
	}
	err := PayoutShortOf("wal_1", w, 100_00, &DefaultWalletSettings, nil)
	e := apperr.From(err)
	if e.Code != apperr.FailedPrecondition || e.Details["reason"] != "wallet_in_debt" || e.Details["debt"] != 80.0 || !strings.Contains(e.Message, "in debt") {
		t.Fatalf("%v %+v", err, e.Details)
	}
	if InDebt(&Wallet{}) != nil || InDebt(nil) != nil {
		t.Fatal("a wallet at zero is not in debt")
	}
}

// Reconcile accepts a debt and the disputed balance, and still finds a
// negative disputed balance.
func TestReconcileDebtAndDisputed(t *testing.T) {
	txs := []Transaction{
		{ID: "e1", Type: TxEarning, Status: TxCompleted, Amount: 8350, Metadata: map[string]string{"orderId": "o1"}},
		{ID: "r1", Type: TxRelease, Status: TxCompleted, Amount: 8350, Metadata: map[string]string{"earningId": "e1"}},
		{ID: "h1", Type: TxDisputeHold, Status: TxCompleted, Amount: 8350},
		{ID: "l1", Type: TxDisputeLoss, Status: TxCompleted, Amount: 8350},
		{ID: "f1", Type: TxDisputeFee, Status: TxCompleted, Amount: 1500},
		{ID: "e2", Type: TxEarning, Status: TxPending, Amount: 3000, HeldRemaining: 1000,
			HeldTaken: []HeldTake{{AdjustmentID: "refund:ref_1", Amount: 2000}}, Metadata: map[string]string{"orderId": "o2"}},
		{ID: "rh", Type: TxRefundHeld, Status: TxCompleted, Amount: 2000, Metadata: map[string]string{"takeId": "refund:ref_1"}},
		{ID: "h2", Type: TxDisputeHoldHeld, Status: TxCompleted, Amount: 0, Metadata: map[string]string{"takeId": "dispute:dp_2"}},
	}
	w := &Wallet{AvailableBalance: -1500, PendingBalance: 1000, TotalEarnings: 11350, TotalOrders: 2}
	r, bad := Reconcile(w, txs, nil, nil)
	if len(bad) > 0 || r.Available != -1500 || r.Disputed != 0 {
		t.Fatalf("%+v %v", r, bad)
	}
	txs[3].Amount = 8351 // disputed would go negative
	w.DisputedBalance = -1
	if _, bad := Reconcile(w, txs, nil, nil); len(bad) == 0 {
		t.Fatal("a negative disputed balance passed")
	}
	txs[3].Amount = 8350
	w.DisputedBalance = 0
	txs[6].Metadata["takeId"] = "refund:other" // the take names no refund's transaction
	if _, bad := Reconcile(w, txs, nil, nil); len(bad) == 0 {
		t.Fatal("a take with no refund transaction passed")
	}
}

// The journal numbers each change, chains its balances, opens a wallet
// older than it with carried_forward, and CheckStatement finds a last entry
// that is not the wallet.
func TestStatementEntries(t *testing.T) {
	w := &Wallet{ID: "wal_1", StoreID: "sto_1", AvailableBalance: 10_00} // an older wallet: balances, no journal
	before, seq := w.Balances(), w.MoveSeq
	if err := w.Reverse(Balances{Available: -30_00}, 5); err != nil {
		t.Fatal(err)
	}
	es := StatementEntries(w, before, seq, StatementMove{Kind: KindRefund}, 5)
	if len(es) != 2 || es[0].Kind != KindCarried || es[0].Balance != 10_00 || es[1].Amount != -30_00 || es[1].Balance != -20_00 ||
		es[1].Seq != 2 || w.MoveSeq != 2 || es[1].ID != "wal_1:2" {
		t.Fatalf("%+v", es)
	}
	if bad := CheckStatement(w, &es[1]); len(bad) != 0 {
		t.Fatal(bad)
	}
	before, seq = w.Balances(), w.MoveSeq
	_ = w.Reverse(Balances{Available: 5_00, Disputed: -0}, 6)
	move := StatementEntries(w, before, seq, StatementMove{Kind: KindDisputeRelease}, 6)
	if len(move) != 1 || move[0].Seq != 3 {
		t.Fatalf("%+v", move)
	}
	if none := StatementEntries(w, w.Balances(), w.MoveSeq, StatementMove{Kind: KindRelease}, 7); len(none) != 0 || w.MoveSeq != 3 {
		t.Fatalf("no change wrote %+v", none)
	}
	if bad := CheckStatement(w, &es[1]); len(bad) != 2 {
		t.Fatalf("a stale last entry passed: %v", bad)
	}
	if bad := CheckStatement(&Wallet{MoveSeq: 1}, nil); len(bad) != 1 {
		t.Fatal("a numbered change without an entry passed")
	}
	if CarriedForward(&Wallet{}, 1) != nil || CarriedForward(w, 1) != nil {
		t.Fatal("carried forward a wallet that needs none")
	}
	// A change by an older version (no entry, MoveSeq untouched) is
	// recorded as unrecorded_change before the next change's entry.
	w.AvailableBalance += 7_00
	before, seq = w.Balances(), w.MoveSeq
	_ = w.Reverse(Balances{Available: -1_00}, 8)
	es = StatementEntries(w, before, seq, StatementMove{Kind: KindRefund}, 8)
	if len(es) != 2 || es[0].Kind != KindUnrecorded || es[0].Amount != 7_00 || es[0].Balance != before.Sum() ||
		es[1].Balance != w.Balances().Sum() || es[1].Seq != 5 {
		t.Fatalf("%+v", es)
	}
}

// An order paid in another currency (docs/adr/0153): 24.50 USD (2450
// cents) accepted for an AED total of 90.00. Each reversal, in cents, is
// reversed as its AED counterpart AEDCum(R+a) − AEDCum(R), AEDCum(r) =
// (9000 × r + 1225) / 2450: refunds of 1, 1000 and 1449 cents reverse 4,
// 3673 and 5323 fils, the whole total; their splits sum to the commission
// and the earnings exactly.
func TestOrderMoneyInAnotherCurrency(t *testing.T) {
	terms := Terms{StoreID: "sto_1", Total: 9000, PlatformCommission: 650, StoreEarnings: 8350, Currency: "USD", AmountPaid: 2450}
	if AEDCum(9000, 2450, 2450) != 9000 || AEDCum(9000, 2450, 1225) != 4500 || AEDCum(9000, 0, 5) != 0 {
		t.Fatal("AEDCum")
	}
	t.Run("refunds sum to the whole order", func(t *testing.T) {
		o := NewOrderMoney("ord_1", terms)
		o.MarkCredited("wtx_1")
		if !o.OtherCurrency() || o.Currency != "usd" {
			t.Fatalf("%+v", o)
		}
		var store, commission money.Fils
		for i, c := range []struct{ cents, aed money.Fils }{{1, 4}, {1000, 3673}, {1449, 5323}} {
			r, err := o.ApplyRefund(fmt.Sprint("ref_", i), c.cents, 1)
			if err != nil || r.AED != c.aed || r.Amount != c.cents || r.Store+r.Commission != c.aed || r.Excess != 0 {
				t.Fatalf("refund of %d cents: %+v %v", c.cents, r, err)
			}
			store, commission = store+r.Store, commission+r.Commission
		}
		if store != 8350 || commission != 650 || o.Reversed != 9000 || o.ReversedPaid != 2450 || o.CommissionReversed != 650 {
			t.Fatalf("store %d, commission %d; %+v", store, commission, o)
		}
	})
	t.Run("a dispute held and lost in proportion", func(t *testing.T) {
		o := NewOrderMoney("ord_1", terms)
		o.MarkCredited("wtx_1")
		d, err := o.OpenDispute("dp_1", 1225, 1)
		// 4500 fils: commission (650 × 4500 + 4500) / 9000 = 325, the store 4175.
		if err != nil || d.Held != 4175 || o.ReversedPaid != 0 {
			t.Fatalf("%+v %v", d, err)
		}
		c, err := o.CloseDispute("dp_1", DisputeLost, 1500, FeeChargedToStore, 2)
		if err != nil || c.Store != 4175 || c.Commission != 325 || c.Loss != 4175 || o.Dispute("dp_1").AED != 4500 || o.ReversedPaid != 1225 {
			t.Fatalf("%+v %v %+v", c, err, o)
		}
		r, err := o.ApplyRefund("ref_1", 1225, 3)
		if err != nil || r.AED != 4500 || r.Store != 4175 || r.Commission != 325 || o.Reversed != 9000 {
			t.Fatalf("%+v %v", r, err)
		}
		var pt PlatformTerms
		pt.AddOrder(o)
		if pt.CommissionKept != 0 || pt.Excess != 0 {
			t.Fatalf("%+v", pt)
		}
	})
	t.Run("a record made before the currency was known adopts it", func(t *testing.T) {
		o := NewOrderMoney("ord_1", Terms{StoreID: "sto_1", Total: 9000, PlatformCommission: 650, StoreEarnings: 8350})
		if o.OtherCurrency() || !o.Adopt(terms) || !o.OtherCurrency() || o.Adopt(terms) {
			t.Fatalf("%+v", o)
		}
		if NewOrderMoney("ord_2", Terms{Total: 9000, Currency: "aed", AmountPaid: 9000}).OtherCurrency() {
			t.Fatal("an AED order in another currency")
		}
	})
}
