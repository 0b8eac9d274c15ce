package customers

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
	lines := []cartItem{
		{ID: "a", ProductID: "p1", Name: "Bread", UnitPrice: 12_35, Quantity: 3}, // 37.05
		{ID: "b", ProductID: "p2", Name: "Cake", UnitPrice: 40_00, Quantity: 1},  // 40.00
		{ID: "c", ProductID: "p3", Name: "Gum", UnitPrice: 1, Quantity: 99},      // 0.99
	}
	p := priceLines(lines, 10_00)
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
	p = priceLines([]cartItem{{UnitPrice: 10, Quantity: 1}, {UnitPrice: 20, Quantity: 1}}, 0)
	if p.Total != 30 {
		t.Fatalf("0.10 + 0.20 = %d fils", p.Total)
	}
	if p := priceLines(nil, 20_00); p.Subtotal != 0 || p.Total != 20_00 || len(p.Items) != 0 {
		t.Fatalf("no lines: %+v", p)
	}
}
