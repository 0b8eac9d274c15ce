package domain

import (
	"testing"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/money"
)

func TestDeliveryFeeRule(t *testing.T) {
	cases := []struct {
		deliveryType string
		subtotal     money.Fils
		want         money.Fils
	}{
		{contract.DeliveryStandard, 1, 10_00},
		{contract.DeliveryStandard, 99_99, 10_00}, // one fils short of free delivery
		{contract.DeliveryStandard, 100_00, 0},    // free from 100 AED
		{contract.DeliveryStandard, 1_000_000_00, 0},
		{contract.DeliveryExpress, 1, 20_00}, // express always costs
		{contract.DeliveryExpress, 100_00, 20_00},
		{contract.DeliveryExpress, 1_000_000_00, 20_00},
	}
	for _, c := range cases {
		got, err := DeliveryFee(c.deliveryType, c.subtotal)
		if err != nil || got != c.want {
			t.Errorf("DeliveryFee(%s, %d) = %d, %v; want %d", c.deliveryType, c.subtotal, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "Standard", "pickup", "express "} {
		if _, err := DeliveryFee(bad, 10_00); !apperr.Is(err, apperr.InvalidArgument) || apperr.From(err).Details["field"] != "deliveryType" {
			t.Errorf("DeliveryFee(%q): %v, want INVALID_ARGUMENT naming deliveryType", bad, err)
		}
	}
	// Every delivery type the contract lists has a fee.
	for _, dt := range contract.DeliveryTypes {
		if _, err := DeliveryFee(dt, 0); err != nil {
			t.Errorf("the contract's delivery type %s has no fee: %v", dt, err)
		}
	}
}

func TestPriceLinesIsExactToTheFils(t *testing.T) {
	lines := []CartItem{
		{ID: "a", ProductID: "p1", Name: "Bread", UnitPrice: 12_35, Quantity: 3}, // 37.05
		{ID: "b", ProductID: "p2", Name: "Cake", UnitPrice: 40_00, Quantity: 1},  // 40.00
		{ID: "c", ProductID: "p3", Name: "Gum", UnitPrice: 1, Quantity: 99},      // 0.99
	}
	p := PriceLines(lines, 10_00)
	if p.Subtotal != 78_04 || p.DeliveryFee != 10_00 || p.Total != 88_04 {
		t.Fatalf("priced %+v, want subtotal 7804, fee 1000, total 8804", p)
	}
	want := []money.Fils{37_05, 40_00, 99}
	if len(p.Items) != len(lines) {
		t.Fatalf("%d items, want %d", len(p.Items), len(lines))
	}
	for i, it := range p.Items {
		if it.LineTotal != want[i] || it.ProductID != lines[i].ProductID || it.Quantity != lines[i].Quantity || it.UnitPrice != lines[i].UnitPrice {
			t.Errorf("item %d: %+v, want line total %d of %+v", i, it, want[i], lines[i])
		}
	}
	// Float arithmetic would get this wrong (0.1 + 0.2): fils do not.
	p = PriceLines([]CartItem{{UnitPrice: 10, Quantity: 1}, {UnitPrice: 20, Quantity: 1}}, 0)
	if p.Total != 30 {
		t.Fatalf("0.10 + 0.20 = %d fils", p.Total)
	}
	if p := PriceLines(nil, 20_00); p.Subtotal != 0 || p.Total != 20_00 || len(p.Items) != 0 {
		t.Fatalf("no lines: %+v", p)
	}
}

func TestCheckoutQuote(t *testing.T) {
	phone := " 050 123 "
	p := &Profile{ID: "cust1", Phone: &phone}
	lines := []CartItem{
		{ID: "l1", ProductID: "p1", Name: "Bread", UnitPrice: 12_50, Quantity: 2},
		{ID: "l2", ProductID: "p2", Name: "Cake", UnitPrice: 40_00, Quantity: 1},
	}
	all := map[string]bool{"p1": true, "p2": true}
	if err := CheckQuotable("s1", nil); !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != "empty_cart" ||
		apperr.From(err).Message != "the cart has no items of store s1: add some with customers.cart.addItem" {
		t.Errorf("empty cart: %v", err)
	}
	if err := CheckQuotable("s1", lines); err != nil {
		t.Errorf("a cart with lines: %v", err)
	}
	q, err := Quote(p, "s1", contract.DeliveryStandard, lines, all)
	if err != nil || q.Subtotal != 65 || q.DeliveryFee != 10 || q.Total != 75 || q.Phone != "050 123" || q.CustomerID != "cust1" ||
		len(q.Lines) != 2 || q.Lines[0].CartItemID != "l1" || q.Lines[0].LineTotal != 25 || q.DeliveryType != contract.DeliveryStandard {
		t.Errorf("quote %+v, %v", q, err)
	}
	_, err = Quote(p, "s1", contract.DeliveryStandard, lines, map[string]bool{"p1": true, "p2": false})
	if e := apperr.From(err); !apperr.Is(err, apperr.FailedPrecondition) || e.Details["reason"] != "unavailable_products" ||
		e.Message != "no longer available: Cake; remove them from the cart with customers.cart.removeItem" {
		t.Errorf("unavailable: %v", err)
	}
	if _, err := Quote(p, "s1", contract.DeliveryStandard, lines, map[string]bool{}); err == nil ||
		len(apperr.From(err).Details["productIds"].([]string)) != 2 {
		t.Errorf("gone products: %v", err)
	}
	for _, ph := range []*string{nil, new(string)} {
		if _, err := Quote(&Profile{ID: "cust1", Phone: ph}, "s1", contract.DeliveryStandard, lines, all); !apperr.Is(err, apperr.FailedPrecondition) ||
			apperr.From(err).Details["reason"] != "no_phone" {
			t.Errorf("no phone %v: %v", ph, err)
		}
	}
	if _, err := Quote(p, "s1", "pickup", lines, all); !apperr.Is(err, apperr.InvalidArgument) {
		t.Errorf("unknown delivery type: %v", err)
	}
}
