package domain

import (
	"slices"
	"testing"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/money"
)

var (
	customer = &Profile{ID: "cust1", UserID: "user1"}
	shop     = StoreRef{ID: "store1", Name: "Bakery", OwnerUserID: "owner1"}
	twoLines = []CartItem{
		{ID: "l1", ProductID: "p1", Name: "Bread", UnitPrice: 12_50, Quantity: 2}, // 25.00
		{ID: "l2", ProductID: "p2", Name: "Cake", UnitPrice: 40_00, Quantity: 1},  // 40.00
	}
	terms = Commission{Platform: 6_50, StoreEarnings: 68_50, FixedFee: 0, Rate: 0.1}
)

func payment(paid money.Fils, currency string) Payment {
	return Payment{IntentID: "pi_1", DeliveryFee: 10_00, AmountPaid: paid, Currency: currency, DeliveryType: "standard",
		DeliveryAddress: DeliveryAddress{FullAddress: "1 Road", City: "Dubai", Area: "Marina", PhoneNumber: "050"}}
}

// TestPaidOrderHeldUnlessPaidExactly: the webhook's order is confirmed and
// paid only when the payment is its total in AED to the fils; paid above the
// total (the cart shrank after its payment intent was made) or below it, or
// in another currency, it is held for review: pending, payment under review,
// with what was expected and what was paid.
func TestPaidOrderHeldUnlessPaidExactly(t *testing.T) {
	const total = 75_00 // 65.00 of lines + 10.00 fee
	cases := []struct {
		name     string
		paid     money.Fils
		currency string
		reason   string // "": paid
	}{
		{"exact", total, "aed", ""},
		{"exact, currency as the processor spells it", total, " AED ", ""},
		{"overpaid: the cart shrank after the intent", total + 40_00, "aed", ReviewAmountMismatch},
		{"one fils over", total + 1, "aed", ReviewAmountMismatch},
		{"underpaid: the cart grew after the intent", total - 25_00, "aed", ReviewAmountMismatch},
		{"one fils short", total - 1, "aed", ReviewAmountMismatch},
		{"another currency", total, "usd", ReviewCurrencyMismatch},
	}
	for _, c := range cases {
		o := NewPaidOrder("o1", customer, shop, twoLines, payment(c.paid, c.currency), terms, 1000)
		if o.Subtotal != 65_00 || o.DeliveryFee != 10_00 || o.Total != total || len(o.Items) != 2 || o.Items[0].LineTotal != 25_00 {
			t.Errorf("%s: priced %d + %d = %d, items %+v", c.name, o.Subtotal, o.DeliveryFee, o.Total, o.Items)
		}
		if *o.AmountPaid != c.paid || o.PlatformCommission != terms.Platform || o.StoreEarnings != terms.StoreEarnings || o.CommissionRate != terms.Rate {
			t.Errorf("%s: paid %d, terms %d/%d/%v", c.name, *o.AmountPaid, o.PlatformCommission, o.StoreEarnings, o.CommissionRate)
		}
		if c.reason == "" {
			if o.Status != StatusConfirmed || o.PaymentStatus != PaymentPaid || o.PaymentReview != nil || o.Held() {
				t.Errorf("%s: %s/%s, review %+v; want confirmed and paid", c.name, o.Status, o.PaymentStatus, o.PaymentReview)
			}
		} else {
			r := o.PaymentReview
			if o.Status != StatusPending || o.PaymentStatus != PaymentUnderReview || r == nil || r.Reason != c.reason ||
				r.ExpectedAmount != total || r.AmountPaid != c.paid || !o.ToSettle() || o.VisibleToStore() {
				t.Errorf("%s: %s/%s, review %+v; want held for %s", c.name, o.Status, o.PaymentStatus, r, c.reason)
			}
		}
		if len(o.StatusHistory) != 1 || o.StatusHistory[0] != (StatusChange{Status: o.Status, At: 1000, By: "payments", Role: RoleSystem}) {
			t.Errorf("%s: history %+v", c.name, o.StatusHistory)
		}
		if o.ID != "o1" || o.CustomerID != "cust1" || o.CustomerUserID != "user1" || o.StoreName != "Bakery" || o.StoreOwnerUserID != "owner1" ||
			o.PaymentIntentID != "pi_1" || o.PaymentMethod != "card" || o.CreationTime != 1000 || o.UpdatedAt != 1000 || o.DeliveryAddress.City != "Dubai" {
			t.Errorf("%s: %+v", c.name, o)
		}
	}
}

// TestPaidOrderOfAnEmptyCart: a payment that finds no lines makes an order
// holding nothing (no items, no fee, total 0, no commission), held with
// reason cart_empty, whatever was paid.
func TestPaidOrderOfAnEmptyCart(t *testing.T) {
	o := NewPaidOrder("o1", customer, shop, nil, payment(75_00, "AED"), terms, 1000)
	if o.Items == nil || len(o.Items) != 0 || o.DeliveryFee != 0 || o.Total != 0 || o.PlatformCommission != 0 || o.StoreEarnings != 0 {
		t.Fatalf("an empty cart's order holds %+v", o)
	}
	r := o.PaymentReview
	if o.Status != StatusPending || o.PaymentStatus != PaymentUnderReview || r == nil || r.Reason != ReviewCartEmpty ||
		r.ExpectedAmount != 0 || r.AmountPaid != 75_00 || r.Currency != "aed" || !o.NothingToDeliver() {
		t.Fatalf("an empty cart's order: %s/%s %+v", o.Status, o.PaymentStatus, r)
	}
	ev := o.CreatedEvent()
	if ev.ReviewReason != ReviewCartEmpty || ev.AmountPaid != 75_00 || ev.Currency != "aed" || ev.Status != StatusPending {
		t.Fatalf("created event %+v", ev)
	}
}

func held(reason string) Order {
	o := NewPaidOrder("o1", customer, shop, twoLines, payment(1, "aed"), terms, 1000)
	if reason == ReviewCartEmpty {
		o = NewPaidOrder("o1", customer, shop, nil, payment(1, "aed"), terms, 1000)
	}
	return o
}

func paid(status string) Order {
	o := NewPaidOrder("o1", customer, shop, twoLines, payment(75_00, "aed"), terms, 1000)
	o.Status = status
	return o
}

// TestMove: who may move an order, and what a move changes.
func TestMove(t *testing.T) {
	cases := []struct {
		name     string
		order    Order
		to       string
		admin    bool
		code     apperr.Code // "": moved
		message  string
		wantPaid string // payment status after the move
	}{
		{"owner moves a paid order on", paid(StatusConfirmed), StatusPreparing, false, "", "", PaymentPaid},
		{"owner cancels a paid order", paid(StatusOutForDelivery), StatusCancelled, false, "", "", PaymentPaid},
		{"a skipped step", paid(StatusConfirmed), StatusDelivered, true, apperr.FailedPrecondition, "", ""},
		{"back a step", paid(StatusPreparing), StatusConfirmed, true, apperr.FailedPrecondition, "", ""},
		{"from delivered", paid(StatusDelivered), StatusCancelled, true, apperr.FailedPrecondition, "", ""},
		{"owner confirms a held order", held(ReviewAmountMismatch), StatusConfirmed, false, apperr.FailedPrecondition,
			"the order's payment is under review by the platform; an administrator confirms or cancels it", ""},
		{"owner cancels a held order", held(ReviewAmountMismatch), StatusCancelled, false, apperr.FailedPrecondition,
			"the order's payment is under review by the platform; an administrator confirms or cancels it", ""},
		{"owner cancels an empty cart's order", held(ReviewCartEmpty), StatusCancelled, false, apperr.FailedPrecondition,
			"the order's payment is under review by the platform; an administrator cancels it", ""},
		{"admin confirms a held order: the payment is accepted", held(ReviewAmountMismatch), StatusConfirmed, true, "", "", PaymentPaid},
		{"admin cancels a held order: the payment stays under review", held(ReviewAmountMismatch), StatusCancelled, true, "", "", PaymentUnderReview},
		{"admin confirms an empty cart's order", held(ReviewCartEmpty), StatusConfirmed, true, apperr.FailedPrecondition,
			"order o1 holds no items (its payment found the cart without items of the store): there is nothing to deliver; cancel it and refund the payment", ""},
		{"admin cancels an empty cart's order", held(ReviewCartEmpty), StatusCancelled, true, "", "", PaymentUnderReview},
		{"admin moves a held order past confirmed", held(ReviewAmountMismatch), StatusPreparing, true, apperr.FailedPrecondition, "", ""},
	}
	for _, c := range cases {
		o := c.order
		from, wasHeld, first := o.Status, o.Held(), o.StatusHistory[0]
		var loadedReview PaymentReview
		if o.PaymentReview != nil {
			loadedReview = *o.PaymentReview
		}
		before := o.PaymentReview
		ev, err := o.Move(c.to, "mover", c.admin, 2000)
		if c.code != "" {
			if !apperr.Is(err, c.code) || (c.message != "" && apperr.From(err).Message != c.message) {
				t.Errorf("%s: %v, want %s %q", c.name, err, c.code, c.message)
			}
			if o.Status != from || len(o.StatusHistory) != 1 {
				t.Errorf("%s: a refused move changed the order: %s, %+v", c.name, o.Status, o.StatusHistory)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		role := RoleStore
		if c.admin {
			role = RoleAdministrator
		}
		if o.Status != c.to || o.UpdatedAt != 2000 || o.PaymentStatus != c.wantPaid ||
			!slices.Equal(o.StatusHistory, []StatusChange{first, {Status: c.to, At: 2000, By: "mover", Role: role}}) {
			t.Errorf("%s: %s/%s at %d, history %+v", c.name, o.Status, o.PaymentStatus, o.UpdatedAt, o.StatusHistory)
		}
		if ev.From != from || ev.To != c.to || ev.Status != c.to || ev.ChangedBy != "mover" || ev.PaymentStatus != c.wantPaid || ev.OrderID != "o1" || ev.Total != o.Total {
			t.Errorf("%s: event %+v", c.name, ev)
		}
		if wasHeld {
			if r := o.PaymentReview; r == nil || r.ResolvedBy != "mover" || r.ResolvedAt != 2000 || r.Reason != loadedReview.Reason {
				t.Errorf("%s: review %+v, want resolved by mover at 2000", c.name, r)
			}
			if *before != loadedReview {
				t.Errorf("%s: the review as loaded changed: %+v", c.name, *before)
			}
		} else if o.PaymentReview != nil {
			t.Errorf("%s: a paid order got a review", c.name)
		}
	}
}

func TestOrderVisibility(t *testing.T) {
	o := paid(StatusConfirmed)
	if !o.VisibleTo("user1", false) || o.VisibleTo("user2", false) || !o.VisibleTo("user2", true) {
		t.Error("an order is its customer's and the administrators'")
	}
	if !o.VisibleToStore() || o.ToSettle() {
		t.Error("a paid order is the store's, nothing to settle")
	}
	h := held(ReviewAmountMismatch)
	if h.VisibleToStore() || !h.ToSettle() {
		t.Error("a held order is the platform's to settle")
	}
	if _, err := h.Move(StatusCancelled, "admin", true, 2000); err != nil || h.ToSettle() || h.VisibleToStore() {
		t.Errorf("a cancelled held order is settled and stays hidden from the store: %v", err)
	}
	h = held(ReviewAmountMismatch)
	if _, err := h.Move(StatusConfirmed, "admin", true, 2000); err != nil || h.ToSettle() || !h.VisibleToStore() {
		t.Errorf("a confirmed held order is settled and the store's: %v", err)
	}
}

func TestOrderViewShowsTermsOnlyWithTerms(t *testing.T) {
	o := held(ReviewCurrencyMismatch)
	o.PaymentReview.Currency, o.PaymentCurrency = "usd", "usd"
	v := o.View(false)
	if v.PlatformCommission != nil || v.StoreEarnings != nil || v.AmountPaid != nil || v.Total != 75 || v.PaymentReview == nil {
		t.Errorf("customer's view: %+v", v)
	}
	v = o.View(true)
	if v.PlatformCommission == nil || *v.PlatformCommission != 6.5 || *v.StoreEarnings != 68.5 {
		t.Errorf("view with terms: %+v", v)
	}
	p := paid(StatusConfirmed)
	if v := p.View(false); v.AmountPaid == nil || *v.AmountPaid != 75 || len(v.Items) != 2 || v.Items[1].LineTotal != 40 || len(v.StatusHistory) != 1 {
		t.Errorf("paid order's view: %+v", v)
	}
}

func TestOrderFacts(t *testing.T) {
	o := paid(StatusConfirmed)
	if f := o.Facts(); f.DeliveredAt != nil || f.Total != 75_00 || f.StoreEarnings != 68_50 || f.Status != StatusConfirmed {
		t.Errorf("facts %+v", f)
	}
	for _, to := range []string{StatusPreparing, StatusOutForDelivery, StatusDelivered} {
		if _, err := o.Move(to, "owner1", false, 3000); err != nil {
			t.Fatal(err)
		}
	}
	if f := o.Facts(); f.DeliveredAt == nil || *f.DeliveredAt != 3000 || f.Status != StatusDelivered {
		t.Errorf("delivered facts %+v", f)
	}
}

func TestPurchaseFacts(t *testing.T) {
	o := &Order{CustomerID: "c1", StoreID: "s1", Status: StatusDelivered}
	cases := []struct {
		name  string
		order *Order
		want  contract.PurchaseFacts
	}{
		{"no order named", nil, contract.PurchaseFacts{DeliveredOrderIDs: []string{}}},
		{"the customer's order of the store", o, contract.PurchaseFacts{OrderExists: true, OrderStatus: StatusDelivered, OrderOfCustomer: true, OrderOfStore: true, DeliveredOrderIDs: []string{}}},
		{"another's order", &Order{CustomerID: "c2", StoreID: "s1", Status: StatusPending}, contract.PurchaseFacts{OrderExists: true, OrderStatus: StatusPending, OrderOfStore: true, DeliveredOrderIDs: []string{}}},
		{"of another store", &Order{CustomerID: "c1", StoreID: "s2", Status: StatusPending}, contract.PurchaseFacts{OrderExists: true, OrderStatus: StatusPending, OrderOfCustomer: true, DeliveredOrderIDs: []string{}}},
	}
	for _, c := range cases {
		got := PurchaseFacts(c.order, "c1", "s1", 0, nil)
		if got.OrderExists != c.want.OrderExists || got.OrderStatus != c.want.OrderStatus || got.OrderOfCustomer != c.want.OrderOfCustomer ||
			got.OrderOfStore != c.want.OrderOfStore || got.HasDeliveredOrder || got.DeliveredOrders != 0 || got.DeliveredOrderIDs == nil {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
	got := PurchaseFacts(nil, "c1", "s1", 1200, []string{"o1", "o2"})
	if !got.HasDeliveredOrder || got.DeliveredOrders != 1200 || !slices.Equal(got.DeliveredOrderIDs, []string{"o1", "o2"}) {
		t.Errorf("delivered: %+v", got)
	}
}

// An administrator's resolution of a held payment records their name beside
// their id; the name reaches administrators only (docs/adr/0168).
func TestHeldPaymentResolutionNamed(t *testing.T) {
	o := held(ReviewAmountMismatch)
	if _, err := o.MoveNamed(StatusConfirmed, "adm", "Mariam Al Mansoori", true, 2000); err != nil {
		t.Fatal(err)
	}
	if r := o.PaymentReview; r == nil || r.ResolvedBy != "adm" || r.ResolvedByName != "Mariam Al Mansoori" {
		t.Fatalf("review %+v, want resolved by adm, named", r)
	}
	v := o.View(true)
	if r := v.PaymentReview; r == nil || r.ResolvedBy != "adm" || r.ResolvedByName != "Mariam Al Mansoori" || r.ResolvedAt != 2000 {
		t.Errorf("administrators' view: %+v", r)
	}
	// The store's owner's view: the id, no name.
	v.UnnameStaff()
	if r := v.PaymentReview; r.ResolvedBy != "adm" || r.ResolvedByName != "" {
		t.Errorf("owner's view: %+v", r)
	}
	// The customer's view never carries it.
	if r := o.View(false).PaymentReview; r == nil || r.ResolvedByName != "" || r.ResolvedBy != "" || r.ResolvedAt != 2000 {
		t.Errorf("customer's view: %+v", r)
	}
	// Unnamed tokens and older records: no name.
	u := held(ReviewAmountMismatch)
	if _, err := u.Move(StatusCancelled, "adm", true, 2000); err != nil {
		t.Fatal(err)
	}
	if r := u.PaymentReview; r.ResolvedByName != "" || u.View(true).PaymentReview.ResolvedByName != "" {
		t.Errorf("an unnamed resolution: %+v", r)
	}
}
