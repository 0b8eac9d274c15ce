package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

// TestVerifiedPurchaseContractSection9: the platform contract's refinements
// of the verified purchase, one by one (TestVerification holds every case).
func TestVerifiedPurchaseContractSection9(t *testing.T) {
	own := func(status string) Purchase {
		return Purchase{OrderID: "ord_1", OrderExists: true, OrderOfCustomer: true, OrderOfStore: true, OrderStatus: status}
	}
	t.Run("a cancelled order never verifies", func(t *testing.T) {
		for name, p := range map[string]Purchase{
			"cited, cancelled when asked":    own("cancelled"),
			"cited, cancelled since":         func() Purchase { p := own("confirmed"); p.OrderCancelled = true; return p }(),
			"cited cancelled, others unused": func() Purchase { p := own("cancelled"); p.Delivered = []string{"ord_2"}; return p }(),
		} {
			v, err := Verification(p)
			if err != nil || v.Verified() {
				t.Errorf("%s: %+v, %v", name, v, err)
			}
		}
	})
	t.Run("each order verifies at most one review", func(t *testing.T) {
		// Cited by a verified review already: ALREADY_EXISTS.
		p := own("delivered")
		p.Uses = map[string]Use{"ord_1": {ReviewID: "rev_1", Cited: true}}
		if _, err := Verification(p); apperr.From(err).Code != apperr.AlreadyExists {
			t.Errorf("an order cited twice: %v", err)
		}
		// Used by a review without orderId, no other delivered order free:
		// the new review is not verified by it.
		p = own("delivered")
		p.Delivered, p.Uses = []string{"ord_1"}, map[string]Use{"ord_1": {ReviewID: "rev_1"}}
		if v, err := Verification(p); err != nil || v.Verified() {
			t.Errorf("an order verified two reviews: %+v, %v", v, err)
		}
		// With another delivered order free, the other review moves to it.
		p.Delivered = []string{"ord_1", "ord_2"}
		v, err := Verification(p)
		if err != nil || v.By != "ord_1" || v.Move == nil || *v.Move != (Move{ReviewID: "rev_1", From: "ord_1", To: "ord_2"}) {
			t.Errorf("move: %+v, %v", v, err)
		}
	})
	t.Run("without orderId one delivered order unused by another verified review verifies one", func(t *testing.T) {
		cases := []struct {
			name      string
			delivered []string
			uses      map[string]Use
			unnamed   int
			by        string
		}{
			{"no delivered order", nil, nil, 0, ""},
			{"one delivered, unused", []string{"ord_1"}, nil, 0, "ord_1"},
			{"one delivered, used", []string{"ord_1"}, map[string]Use{"ord_1": {ReviewID: "rev_1"}}, 0, ""},
			{"one delivered, kept by a review from before orders were named", []string{"ord_1"}, nil, 1, ""},
			{"two delivered, the oldest used", []string{"ord_1", "ord_2"}, map[string]Use{"ord_1": {ReviewID: "rev_1", Cited: true}}, 0, "ord_2"},
			{"two delivered, both used", []string{"ord_1", "ord_2"},
				map[string]Use{"ord_1": {ReviewID: "rev_1"}, "ord_2": {ReviewID: "rev_2", Cited: true}}, 0, ""},
		}
		for _, c := range cases {
			v, err := Verification(Purchase{Delivered: c.delivered, Uses: c.uses, Unnamed: c.unnamed})
			if err != nil || v.By != c.by || v.Move != nil {
				t.Errorf("%s: %+v, %v; want by %q", c.name, v, err, c.by)
			}
		}
	})
	t.Run("an owner may not review their own store", func(t *testing.T) {
		for name, p := range map[string]Purchase{
			"without orderId":  {OwnStore: true, Delivered: []string{"ord_1"}},
			"citing an order":  func() Purchase { p := own("delivered"); p.OwnStore = true; return p }(),
			"citing a missing": {OwnStore: true, OrderID: "ord_x"},
		} {
			_, err := Verification(p)
			if e := apperr.From(err); e.Code != apperr.PermissionDenied || e.Message != "you own this store: a store's owner may not review it" {
				t.Errorf("%s: %v", name, err)
			}
			if CheckOrder(p) == nil {
				t.Errorf("%s: CheckOrder let the owner through", name)
			}
		}
		if CheckOwner(true) == nil || CheckOwner(false) != nil {
			t.Error("CheckOwner")
		}
	})
}

// TestCheckOrder: the refusals addReview asks before claiming photos rest on
// the customers service's facts alone; those on this service's records wait
// for the transaction.
func TestCheckOrder(t *testing.T) {
	p := Purchase{OrderID: "ord_1", OrderExists: true, OrderOfCustomer: true, OrderOfStore: true, OrderStatus: "delivered"}
	cases := []struct {
		name string
		f    func(p *Purchase)
		code apperr.Code
	}{
		{"own order of the store", func(p *Purchase) {}, ""},
		{"missing order", func(p *Purchase) { p.OrderExists = false }, apperr.NotFound},
		{"another customer's", func(p *Purchase) { p.OrderOfCustomer = false }, apperr.NotFound},
		{"of another store", func(p *Purchase) { p.OrderOfStore = false }, apperr.InvalidArgument},
		{"reviewed already: decided in the transaction", func(p *Purchase) { p.OrderReviewed = true }, ""},
		{"cited by a verified review: decided in the transaction", func(p *Purchase) { p.Uses = map[string]Use{"ord_1": {ReviewID: "r", Cited: true}} }, ""},
	}
	for _, c := range cases {
		q := p
		c.f(&q)
		err := CheckOrder(q)
		if (c.code == "" && err != nil) || (c.code != "" && apperr.From(err).Code != c.code) {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if err := CheckOrder(Purchase{OrderID: "ord_x"}); apperr.From(err).Message != "order ord_x does not exist" {
		t.Errorf("message: %v", err)
	}
}
