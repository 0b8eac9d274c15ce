package domain

import (
	"testing"

	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/money"
)

func TestEffectTable(t *testing.T) {
	const a = money.Fils(1234)
	cases := []struct {
		typ, status string
		want        Balances
	}{
		{TxEarning, TxPending, Balances{Pending: a}},
		{TxEarning, TxCompleted, Balances{Pending: a}}, // released: its release transaction moves it
		{TxRelease, TxCompleted, Balances{Available: a, Pending: -a}},
		{TxPayout, TxPending, Balances{Available: -a}},
		{TxPayout, TxCompleted, Balances{Available: -a}},
		{TxPayout, TxCancelled, Balances{}},
		{TxPayout, TxFailed, Balances{}},
		{TxBonus, TxCompleted, Balances{Available: a}},
		{TxPenalty, TxCompleted, Balances{Available: -a}},
		{TxPendingCredit, TxCompleted, Balances{Pending: a}},
		{TxPendingDebit, TxCompleted, Balances{Pending: -a}},
		{TxRefundHeld, TxCompleted, Balances{Pending: -a}},
		{TxRefund, TxCompleted, Balances{Available: -a}},
		{TxDisputeHoldHeld, TxCompleted, Balances{Pending: -a, Disputed: a}},
		{TxDisputeHold, TxCompleted, Balances{Available: -a, Disputed: a}},
		{TxDisputeRelease, TxCompleted, Balances{Available: a, Disputed: -a}},
		{TxDisputeReturn, TxCompleted, Balances{Pending: a, Disputed: -a}},
		{TxDisputeLoss, TxCompleted, Balances{Disputed: -a}},
		{TxDisputeFee, TxCompleted, Balances{Available: -a}},
		{"unknown", TxCompleted, Balances{}},
	}
	for _, c := range cases {
		if got := Effect(c.typ, c.status, a); got != c.want {
			t.Errorf("Effect(%s, %s) = %+v, want %+v", c.typ, c.status, got, c.want)
		}
	}
}

func TestAdjustments(t *testing.T) {
	const a = money.Fils(500)
	cases := []struct {
		kind   string
		tx     string
		delta  Balances
		failed bool
	}{
		{contract.AdjustAddBalance, TxBonus, Balances{Available: a}, false},
		{contract.AdjustDeductBalance, TxPenalty, Balances{Available: -a}, false},
		{contract.AdjustAddPending, TxPendingCredit, Balances{Pending: a}, false},
		{contract.AdjustDeductPending, TxPendingDebit, Balances{Pending: -a}, false},
		{contract.AdjustMovePendingToAvailable, "", Balances{Available: a, Pending: -a}, false},
		{"add_everything", "", Balances{}, true},
	}
	for _, c := range cases {
		tx, d, err := AdjustmentOf(c.kind, a)
		if (err != nil) != c.failed || tx != c.tx || d != c.delta {
			t.Errorf("Adjustment(%s) = %q, %+v, %v", c.kind, tx, d, err)
		}
		// An adjustment's transaction accounts for exactly its change.
		if tx != "" && Effect(tx, TxCompleted, a) != d {
			t.Errorf("%s: transaction effect differs from the change", c.kind)
		}
	}
}

// A wallet's life, step by step: after every step the balances kept as the
// service keeps them equal the recomputation from the ledger.
func TestLedgerSumsAfterEveryStep(t *testing.T) {
	var kept Balances
	var entries []Entry
	var moves []money.Fils
	check := func(step string) {
		t.Helper()
		if got := Recompute(entries, moves); got != kept {
			t.Fatalf("after %s: ledger %+v, balances %+v", step, got, kept)
		}
		if !kept.Valid() {
			t.Fatalf("after %s: negative balance %+v", step, kept)
		}
	}
	add := func(typ, status string, amount money.Fils) int {
		entries = append(entries, Entry{typ, status, amount})
		kept = kept.Plus(Effect(typ, status, amount))
		return len(entries) - 1
	}
	setStatus := func(i int, status string) {
		e := &entries[i]
		kept = kept.Plus(Balances{}.Plus(Effect(e.Type, status, e.Amount))).Plus(negate(Effect(e.Type, e.Status, e.Amount)))
		e.Status = status
	}
	earn := add(TxEarning, TxPending, 8070)
	check("an earning")
	setStatus(earn, TxCompleted)
	add(TxRelease, TxCompleted, 8070)
	check("its release")
	add(TxBonus, TxCompleted, 100000)
	check("a bonus")
	p1 := add(TxPayout, TxPending, 50000)
	check("a payout request")
	setStatus(p1, TxCompleted)
	check("its approval")
	setStatus(p1, TxFailed)
	check("its failure with the balance restored")
	p2 := add(TxPayout, TxPending, 30000)
	setStatus(p2, TxCancelled)
	check("a rejected payout")
	add(TxPendingCredit, TxCompleted, 700)
	moves = append(moves, 500)
	kept = kept.Plus(MoveEffect(500))
	check("a pending credit partly moved to available")
	add(TxPendingDebit, TxCompleted, 200)
	add(TxPenalty, TxCompleted, 8070)
	check("deductions")
	if kept != (Balances{Available: 100000 + 8070 + 500 - 8070, Pending: 0}) {
		t.Fatalf("final balances %+v", kept)
	}
}

func negate(b Balances) Balances { return Balances{Available: -b.Available, Pending: -b.Pending} }
