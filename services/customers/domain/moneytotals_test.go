package domain

import (
	"testing"

	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/money"
)

// TestMoneyTotalsOfOrdersPaidInAnotherCurrency: a delivered order paid in
// another currency adds its AED total to otherCurrencyDelivered less the
// AED counterpart of what its refunds and lost disputes took back, in
// proportion to what was paid (docs/adr/0153): (total × r + paid/2) /
// paid. Orders of 75.00 AED paid 24.50 USD: one with a lost dispute of
// 12.25 USD (its counterpart (7500 × 1225 + 1225) / 2450 = 3750 fils), one
// refunded in full (7500), one untouched, one not delivered.
func TestMoneyTotalsOfOrdersPaidInAnotherCurrency(t *testing.T) {
	accepted := func(id string) Order {
		o := NewPaidOrder(id, customer, shop, twoLines, payment(24_50, "usd"), terms, 1000)
		for _, s := range []string{StatusConfirmed, StatusPreparing, StatusOutForDelivery, StatusDelivered} {
			if _, err := o.Move(s, "admin1", true, 2000); err != nil {
				t.Fatal(err)
			}
		}
		if o.Total != 75_00 {
			t.Fatalf("total %d", o.Total)
		}
		return o
	}
	var tot contract.MoneyTotals
	disputed := accepted("o1")
	disputed.NoteDispute("dp_1", 12_25, "", "open")
	disputed.NoteDispute("dp_1", 12_25, "", "lost")
	disputed.AddToTotals(&tot)
	if tot.OtherCurrencyDelivered != 75_00-37_50 {
		t.Fatalf("after a lost dispute of half: %+v", tot)
	}
	refunded := accepted("o2")
	if _, _, err := refunded.RequestRefund(RefundRequest{ID: "r1", Reason: "x", Origin: RefundByAdmin, Admin: true}, 3000); err != nil {
		t.Fatal(err)
	}
	refunded.SettleRefund(Settlement{RefundID: "r1", Succeeded: true, Amount: 24_50}, 3001)
	if refunded.RefundedAmount != 24_50 {
		t.Fatalf("refunded %d", refunded.RefundedAmount)
	}
	refunded.AddToTotals(&tot)
	untouched := accepted("o3")
	untouched.AddToTotals(&tot)
	held := NewPaidOrder("o4", customer, shop, twoLines, payment(24_50, "usd"), terms, 1000)
	held.AddToTotals(&tot)
	want := contract.MoneyTotals{OtherCurrencyOrders: 4, OtherCurrencyDelivered: 37_50 + 0 + 75_00}
	if tot != want {
		t.Fatalf("totals\n%+v, want\n%+v", tot, want)
	}
	// Rounded once on the cumulative amount: parts of any sizes sum to the
	// whole total.
	var cum, sum money.Fils
	for _, r := range []money.Fils{1, 1000, 1449} {
		sum += aedCounterpart(75_00, 24_50, cum+r) - aedCounterpart(75_00, 24_50, cum)
		cum += r
	}
	if sum != 75_00 || aedCounterpart(75_00, 0, 1) != 0 || aedCounterpart(75_00, 24_50, 1) != 3 {
		t.Fatalf("aedCounterpart: %d", sum)
	}
}

// TestLostDisputesInThePaymentsCurrencyOnly: a lost dispute counts in the
// order's money (what is left to refund, the platform's totals) only in the
// payment's currency, as payouts reverses no other (docs/adr/0153); one
// recorded before disputes had a currency ("") is the payment's.
func TestLostDisputesInThePaymentsCurrencyOnly(t *testing.T) {
	for _, c := range []struct {
		currency string
		lost     money.Fils
	}{{"aed", 10_00}, {"AED", 10_00}, {"", 10_00}, {"usd", 0}} {
		o := NewPaidOrder("o1", customer, shop, twoLines, payment(75_00, "aed"), terms, 1000)
		o.NoteDispute("dp_1", 10_00, c.currency, "open")
		o.NoteDispute("dp_1", 10_00, c.currency, "lost")
		if got := o.LostDisputes(); got != c.lost {
			t.Errorf("a lost dispute in %q: LostDisputes %d, want %d", c.currency, got, c.lost)
		}
		var tot contract.MoneyTotals
		o.AddToTotals(&tot)
		if tot.DisputesLost != c.lost || tot.NotDelivered != 75_00-c.lost {
			t.Errorf("a lost dispute in %q: totals %+v", c.currency, tot)
		}
	}
}
