package domain

import (
	"testing"

	"marketplace/libs/money"
)

// platformBook is a small platform kept by hand in the test: the customers
// service's totals, one store's wallet (only its sum matters to the
// equation), the orders' money states (through OrderMoney's own rules), the
// payouts, the adjustments and fees. Each step moves money as the services
// do (docs/adr/0146, 0147, 0150).
type platformBook struct {
	t        *testing.T
	cust     CustomerTotals
	paid     map[string]money.Fils // per order: paid − refunded − lost while not delivered
	orders   map[string]*OrderMoney
	wallet   money.Fils
	payouts  []Payout
	txs      []Transaction
	platform []PlatformFee
}

func newBook(t *testing.T) *platformBook {
	return &platformBook{t: t, paid: map[string]money.Fils{}, orders: map[string]*OrderMoney{}}
}

func (b *platformBook) terms() PlatformTerms {
	t := PlatformTerms{CustomerTotals: b.cust}
	for _, o := range b.orders {
		t.AddOrder(o)
	}
	t.AddWallet(&Wallet{AvailableBalance: b.wallet})
	for i := range b.payouts {
		t.AddPayout(&b.payouts[i])
	}
	for i := range b.txs {
		t.AddTransaction(&b.txs[i])
	}
	for i := range b.platform {
		t.AddPlatformFee(&b.platform[i])
	}
	return t
}

// pay: an order of total (commission) paid paid.
func (b *platformBook) pay(id string, total, commission, paid money.Fils) {
	b.cust.Captured += paid
	b.cust.NotDelivered += paid
	b.paid[id] = paid
	b.orders[id] = NewOrderMoney(id, Terms{StoreID: "s", Total: total, PlatformCommission: commission, StoreEarnings: total - commission})
}

// deliver: the order is delivered and its earning credited.
func (b *platformBook) deliver(id string) {
	o := b.orders[id]
	b.cust.NotDelivered -= b.paid[id]
	b.cust.PaymentDifferences += b.paid[id] + o.Reversed - o.Total // paid − total (Reversed: lost and refunded before, added back)
	for _, r := range o.Refunds {
		b.cust.PaymentDifferences += r.Excess
	}
	b.wallet += o.Credit()
	o.MarkCredited("earning-" + id)
	b.paid[id] = -1
}

func (b *platformBook) refund(id, refundID string, amount money.Fils) AppliedRefund {
	o := b.orders[id]
	r, err := o.ApplyRefund(refundID, amount, 1)
	if err != nil {
		b.t.Fatal(err)
	}
	b.cust.Refunded += amount
	if b.paid[id] >= 0 {
		b.cust.NotDelivered -= amount
		b.paid[id] -= amount
	} else {
		b.wallet -= r.Store
	}
	return r
}

func (b *platformBook) dispute(id, disputeID string, amount money.Fils, outcome, chargedTo string, fee money.Fils) {
	o := b.orders[id]
	if _, err := o.OpenDispute(disputeID, amount, 1); err != nil {
		b.t.Fatal(err)
	}
	c, err := o.CloseDispute(disputeID, outcome, fee, chargedTo, 2)
	if err != nil {
		b.t.Fatal(err)
	}
	if outcome == DisputeWon {
		return
	}
	b.cust.DisputesLost += amount
	if b.paid[id] >= 0 {
		b.cust.NotDelivered -= amount
		b.paid[id] -= amount
	} else {
		b.wallet -= c.Loss + c.Extra - c.Return
	}
	switch chargedTo {
	case FeeChargedToStore:
		b.wallet -= fee
		b.txs = append(b.txs, Transaction{Type: TxDisputeFee, Status: TxCompleted, Amount: fee})
	case FeeChargedToPlatform:
		b.platform = append(b.platform, PlatformFee{ID: disputeID, Amount: fee})
	}
}

// payout: requested (leaves available), then moved to status; failed
// restores the amount when restore.
func (b *platformBook) payout(amount, fee money.Fils, status string, restore bool) {
	b.wallet -= amount
	p := Payout{RequestedAmount: amount, ProcessingFee: fee, NetAmount: amount - fee, Status: status}
	if status == StatusFailed && restore || status == StatusCancelled {
		b.wallet += amount
		p.BalanceRestored = status == StatusFailed
	}
	b.payouts = append(b.payouts, p)
}

func (b *platformBook) adjust(typ string, amount money.Fils) {
	b.wallet += Effect(typ, TxCompleted, amount).Sum()
	b.txs = append(b.txs, Transaction{Type: typ, Status: TxCompleted, Amount: amount})
}

func (b *platformBook) balanced(step string) {
	b.t.Helper()
	if d := b.terms().Difference(); d != 0 {
		b.t.Fatalf("after %s: difference %d fils; terms %+v", step, d, b.terms())
	}
}

// The worked example of docs/adr/0151, in fils: an order of 90.00 AED
// (commission 10.00, store earnings 80.00) delivered, refunded 30.00 (D1:
// commission (1000×3000+4500)/9000 = 333, store 2667), paid out (50.00, fee
// 2.00), its last 60.00 disputed and lost with the fee (15.00) charged to
// the store; a second order's dispute lost with the fee borne by the
// platform; a bonus; payouts failed with and without their amount
// restored; a held order paid 95.00 for 90.00 refunded in full (50 fils of
// excess) and one disputed in full.
func TestPlatformEquationWorkedExamples(t *testing.T) {
	b := newBook(t)
	b.pay("A", 9000, 1000, 9000)
	b.balanced("order A paid")
	if tm := b.terms(); tm.Left() != 9000 || tm.NotDelivered != 9000 || tm.CommissionKept != 0 {
		t.Fatalf("paid, not delivered: %+v", tm)
	}
	b.deliver("A")
	b.balanced("order A delivered")
	if tm := b.terms(); tm.CommissionKept != 1000 || tm.StoreBalances != 8000 {
		t.Fatalf("delivered: %+v", tm)
	}
	if r := b.refund("A", "r1", 3000); r.Store != 2667 || r.Commission != 333 {
		t.Fatalf("refund of 30.00: %+v", r)
	}
	b.balanced("30.00 of order A refunded")
	if tm := b.terms(); tm.Left() != 6000 || tm.CommissionKept != 667 || tm.StoreBalances != 5333 {
		t.Fatalf("refunded: %+v", tm)
	}
	b.payout(5000, 200, StatusCompleted, false)
	b.balanced("a payout of 50.00 completed")
	if tm := b.terms(); tm.StoreBalances != 333 || tm.PaidOut != 4800 || tm.PayoutFees != 200 {
		t.Fatalf("paid out: %+v", tm)
	}
	b.dispute("A", "d1", 6000, DisputeLost, FeeChargedToStore, 1500)
	b.balanced("order A's 60.00 disputed and lost, fee to the store")
	if tm := b.terms(); tm.Left() != 0 || tm.CommissionKept != 0 || tm.StoreBalances != -6500 || tm.DisputeFeesCharged != 1500 {
		t.Fatalf("lost: %+v", tm)
	}

	b.pay("B", 9000, 1000, 9000)
	b.deliver("B")
	b.dispute("B", "d2", 4000, DisputeWon, FeeChargedToStore, 1500)
	b.balanced("order B's dispute won")
	b.dispute("B", "d3", 9000, DisputeLost, FeeChargedToPlatform, 1500)
	b.balanced("order B disputed and lost, fee to the platform")
	if tm := b.terms(); tm.DisputeFeesBorneByPlatform != 1500 || tm.StoreBalances != -6500 {
		t.Fatalf("lost, platform's fee: %+v", tm)
	}

	b.adjust(TxBonus, 20000)
	b.balanced("a bonus of 200.00")
	b.adjust(TxPenalty, 500)
	b.adjust(TxPendingCredit, 300)
	b.adjust(TxPendingDebit, 100)
	b.balanced("the other adjustments")
	if tm := b.terms(); tm.AdjustmentsNet != 19700 {
		t.Fatalf("adjustments: %+v", tm)
	}
	b.payout(2000, 200, StatusFailed, true)
	b.balanced("a failed payout restored")
	b.payout(1000, 200, StatusFailed, false)
	b.balanced("a failed payout not restored")
	b.payout(1500, 200, StatusProcessing, false)
	b.payout(1500, 200, StatusCancelled, false)
	b.balanced("an open payout and a rejected one")
	if tm := b.terms(); tm.FailedKept != 1000 || tm.OpenPayouts != 1500 {
		t.Fatalf("payouts: %+v", tm)
	}

	b.pay("C", 9000, 1000, 9500)
	b.refund("C", "r2", 2000) // before delivery: lowers the credit
	b.deliver("C")
	b.balanced("order C paid 95.00 for 90.00, 20.00 refunded before delivery")
	b.refund("C", "r3", 7500)
	b.balanced("the rest of order C refunded")
	if tm := b.terms(); tm.Excess != 500 || tm.PaymentDifferences != 500 {
		t.Fatalf("excess: %+v", tm)
	}
	b.pay("D", 9000, 1000, 9500)
	b.deliver("D")
	b.dispute("D", "d4", 9500, DisputeLost, FeeChargedToStore, 1500)
	b.balanced("order D paid 95.00 for 90.00 disputed in full and lost")
	if tm := b.terms(); tm.Excess != 1000 {
		t.Fatalf("a lost dispute's excess: %+v", tm)
	}
	b.pay("E", 9000, 1000, 9000)
	b.refund("E", "r4", 9000)
	b.balanced("order E cancelled and refunded before delivery (never credited)")
	// An order of 90.00 AED paid 25.00 in dollars, accepted and delivered:
	// not captured in AED, its store credited 80.00 and the commission kept.
	b.orders["F"] = NewOrderMoney("F", Terms{StoreID: "s", Total: 9000, PlatformCommission: 1000, StoreEarnings: 8000})
	b.wallet += b.orders["F"].Credit()
	b.orders["F"].MarkCredited("earning-F")
	b.cust.OtherCurrencyDelivered += 9000
	b.balanced("order F paid in another currency, accepted and delivered")
	// Its payment of 25.00 USD (2500 cents) then disputed for 10.00 USD and
	// lost (AED counterpart (9000 × 1000 + 1250) / 2500 = 3600; commission
	// 400, store 3200, fee borne by the platform), and the other 15.00
	// refunded (5400: commission 600, store 4800): the customers service's
	// otherCurrencyDelivered nets them (docs/adr/0153), 9000 − 3600 − 5400.
	f := b.orders["F"]
	f.Adopt(Terms{Currency: "usd", AmountPaid: 2500})
	if _, err := f.OpenDispute("dF", 1000, 1); err != nil {
		t.Fatal(err)
	}
	c, err := f.CloseDispute("dF", DisputeLost, 1500, FeeChargedToPlatform, 2)
	if err != nil || c.Store != 3200 || c.Commission != 400 {
		t.Fatalf("%+v %v", c, err)
	}
	b.wallet -= c.Loss + c.Extra - c.Return
	b.platform = append(b.platform, PlatformFee{ID: "dF", Amount: 1500})
	b.cust.OtherCurrencyDelivered -= 3600
	b.balanced("order F's dispute in dollars lost")
	r, err := f.ApplyRefund("rF", 1500, 3)
	if err != nil || r.AED != 5400 || r.Store != 4800 {
		t.Fatalf("%+v %v", r, err)
	}
	b.wallet -= r.Store
	b.cust.OtherCurrencyDelivered -= 5400
	b.balanced("order F refunded the rest in dollars")
	if tm := b.terms(); tm.OtherCurrencyDelivered != 0 {
		t.Fatalf("%+v", tm)
	}
}

// What the equation catches: each break of the money shows as its
// difference, in fils.
func TestPlatformEquationShowsWhatWentMissing(t *testing.T) {
	cases := []struct {
		name   string
		breaks func(b *platformBook)
		want   money.Fils
	}{
		{"a delivered order whose earning was never credited", func(b *platformBook) {
			b.wallet -= 8000
			b.orders["A"].Credited = false
		}, 9000},
		{"a refund the processor made that payouts did not reverse", func(b *platformBook) { b.cust.Refunded += 3000 }, -3000},
		{"a wallet credited without a transaction", func(b *platformBook) { b.wallet += 500 }, -500},
		{"a completed payout that never left the wallet", func(b *platformBook) {
			b.payouts = append(b.payouts, Payout{RequestedAmount: 1000, ProcessingFee: 200, NetAmount: 800, Status: StatusCompleted})
		}, -1000},
		{"a failed payout restored twice", func(b *platformBook) { b.wallet += 2000 }, -2000},
		{"a dispute fee charged without leaving the wallet", func(b *platformBook) {
			b.txs = append(b.txs, Transaction{Type: TxDisputeFee, Status: TxCompleted, Amount: 1500})
		}, -1500},
		{"a lost dispute payouts did not apply", func(b *platformBook) { b.cust.DisputesLost += 4000 }, -4000},
		{"a commission reversed twice", func(b *platformBook) { b.orders["A"].CommissionReversed += 333 }, 333},
		{"a delivery of an order paid in another currency the sums leave out", func(b *platformBook) {
			b.orders["F"] = NewOrderMoney("F", Terms{StoreID: "s", Total: 9000, PlatformCommission: 1000, StoreEarnings: 8000})
			b.orders["F"].MarkCredited("earning-F")
			b.wallet += 8000
		}, -9000},
	}
	for _, c := range cases {
		b := newBook(t)
		b.pay("A", 9000, 1000, 9000)
		b.deliver("A")
		b.payout(2000, 200, StatusFailed, true)
		b.balanced(c.name + " (before)")
		c.breaks(b)
		if d := b.terms().Difference(); d != c.want {
			t.Errorf("%s: difference %d fils, want %d", c.name, d, c.want)
		}
	}
}
