package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

// A payment that finds no cart lines of its store (a second payment intent of
// the same cart, or a cart emptied before paying) is never lost: the webhook
// answers 200 (the processor stops retrying) and makes, once per payment
// intent, an order held for review with reason cart_empty: no items, total 0,
// what was paid recorded. The administrators are asked to cancel it (refund)
// and the customer is told; the store hears nothing and is never credited.

// succeededAgain is the body of the simulator's payment_intent.succeeded of
// intent, to send again: the same event id and payment (eventID ""), or
// another event of the same payment intent.
func succeededAgain(t *testing.T, s *st.Sys, intent, eventID string) []byte {
	t.Helper()
	rec := simulatorRecord(t, s, intent)
	if eventID == "" {
		if len(rec.Deliveries) == 0 {
			t.Fatalf("the simulator delivered nothing for %s", intent)
		}
		eventID = rec.Deliveries[0].EventID
	}
	m := rec.Intent.Metadata
	var addr processor.Address
	if err := json.Unmarshal([]byte(m["deliveryAddress"]), &addr); err != nil {
		t.Fatalf("deliveryAddress of %s: %v", intent, err)
	}
	return processor.Event(eventID, processor.EventSucceeded, processor.Payment{
		IntentID: intent, AmountFils: rec.Intent.Amount, Currency: rec.Intent.Currency, CustomerID: m["customerId"], StoreID: m["storeId"],
		Address: addr, DeliveryType: m["deliveryType"], DeliveryFee: m["deliveryFee"],
	})
}

func storeOrders(t *testing.T, s *st.Sys, token, store string) []orderView {
	t.Helper()
	return okAs[storeOrdersPage](t, s.Query(token, opListStoreOrders, map[string]any{"storeId": store,
		"paginationOpts": map[string]any{"numItems": 50, "cursor": nil}})).Page
}

func TestPaymentsOfAnEmptyCartAreHeldForReview(t *testing.T) {
	s := st.Start(t)
	c := newCheckout(t, s)
	// Two payment intents for store A's lines (87.05 AED with the fee), both
	// paid at once: one order takes the lines, the other payment finds none.
	var in [2]intentView
	for i := range in {
		in[i] = okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
	}
	if in[0].PaymentIntentID == in[1].PaymentIntentID || inFils(in[0].Amount) != 87_05 || inFils(in[1].Amount) != 87_05 {
		t.Fatalf("intents %+v", in)
	}
	for i, r := range st.Concurrently(2, func(i int) st.Result { return confirm(t, s, in[i], processor.CardSucceeds) }) {
		if r.Status != 200 || r.Header.Get("Simulator-Webhook-Status") != "200" {
			t.Fatalf("confirm %d: %d %s (webhook %s)", i, r.Status, r.Body, r.Header.Get("Simulator-Webhook-Status"))
		}
	}
	var paid, held *orderView
	for _, x := range in {
		o := orderOf(t, s, c.user, x.PaymentIntentID)
		if o == nil {
			t.Fatalf("no order for the paid intent %s", x.PaymentIntentID)
		}
		if o.PaymentStatus == "paid" {
			paid = o
		} else {
			held = o
		}
	}
	if paid == nil || held == nil {
		t.Fatalf("want one paid and one held order, got %+v and %+v", orderOf(t, s, c.user, in[0].PaymentIntentID), orderOf(t, s, c.user, in[1].PaymentIntentID))
	}
	if paid.Status != "confirmed" || len(paid.Items) != 2 || inFils(paid.Total) != 87_05 || paid.PaymentReview != nil {
		t.Fatalf("paid order %+v", paid)
	}
	if held.Status != "pending" || held.PaymentStatus != "under_review" || len(held.Items) != 0 || held.Subtotal != 0 || held.DeliveryFee != 0 ||
		held.Total != 0 || held.AmountPaid == nil || inFils(*held.AmountPaid) != 87_05 || held.StoreID != c.storeA || held.PaymentMethod != "card" ||
		held.DeliveryType != "standard" || held.DeliveryAddress.Area != c.area || held.PaymentReview == nil || held.PaymentReview.Reason != "cart_empty" ||
		held.PaymentReview.ExpectedAmount != 0 || inFils(held.PaymentReview.AmountPaid) != 87_05 || held.PaymentReview.Currency != "aed" {
		t.Fatalf("held order %+v (review %+v)", held, held.PaymentReview)
	}
	// The simulator saw 200 "Order created" for each: nothing left to retry.
	for _, x := range in {
		rec := simulatorRecord(t, s, x.PaymentIntentID)
		if len(rec.Deliveries) != 1 || !rec.Deliveries[0].OK() || !strings.HasPrefix(rec.Deliveries[0].Body, "Order created: ") {
			t.Fatalf("deliveries of %s: %+v", x.PaymentIntentID, rec.Deliveries)
		}
	}
	if cart := myCart(t, s, c.user, ""); len(cart.Items) != 1 || cart.Items[0].StoreID != c.storeB {
		t.Fatalf("cart after the payments: %+v", cart)
	}

	t.Run("redeliveries and other events of the same intents change nothing", func(t *testing.T) {
		for _, x := range in {
			if r := deliver(s, succeededAgain(t, s, x.PaymentIntentID, "")); r.Status != 200 || !strings.Contains(string(r.Body), "already processed") {
				t.Fatalf("redelivery of %s: %d %s", x.PaymentIntentID, r.Status, r.Body)
			}
		}
		// Copies of a new event of the held payment, at once, after store A's
		// lines are back in the cart: only the payment intent id stops them.
		c.fillCart(t)
		again := succeededAgain(t, s, held.PaymentIntentID, "evt_again")
		for _, r := range st.Concurrently(8, func(int) st.Result { return deliver(s, again) }) {
			if r.Status != 200 || !strings.Contains(string(r.Body), "already processed") {
				t.Fatalf("another event of the held payment: %d %s", r.Status, r.Body)
			}
		}
		if os := myOrders(t, s, c.user); len(os) != 2 {
			t.Fatalf("%d orders after the redeliveries", len(os))
		}
		if cart := myCart(t, s, c.user, c.storeA); len(cart.Items) != 2 {
			t.Fatalf("a redelivery took store A's lines: %+v", cart)
		}
	})

	t.Run("notified once: the administrators (high priority) and the customer, not the store", func(t *testing.T) {
		eventually(t, "the administrators are asked", func() bool { return count(inbox(t, s, c.admin), "payment_review") == 1 })
		eventually(t, "the customer is told", func() bool { return count(inbox(t, s, c.user), "order_payment_review") == 1 })
		eventually(t, "the paid order is notified", func() bool {
			return count(inbox(t, s, c.user), "order_created") == 1 && count(inbox(t, s, c.owner), "new_order") == 1
		})
		time.Sleep(300 * time.Millisecond) // a duplicate would arrive by now
		admin, user, owner := inbox(t, s, c.admin), inbox(t, s, c.user), inbox(t, s, c.owner)
		if count(admin, "payment_review") != 1 || count(user, "order_payment_review") != 1 || count(user, "order_created") != 1 ||
			count(owner, "new_order") != 1 || len(owner) != 1 {
			t.Fatalf("admin %+v\ncustomer %+v\nowner %+v", admin, user, owner)
		}
		for _, n := range admin {
			if n.Type == "payment_review" && (n.Priority != "high" || n.Data["orderId"] != held.ID || n.Data["paymentIntentId"] != held.PaymentIntentID) {
				t.Fatalf("admin notification %+v", n)
			}
		}
		for _, n := range owner {
			if n.Data["orderId"] != paid.ID {
				t.Fatalf("the store heard of the held order: %+v", n)
			}
		}
	})

	t.Run("the store does not see it; administrators do", func(t *testing.T) {
		if got := idsOfOrders(storeOrders(t, s, c.owner, c.storeA)); !slices.Equal(got, []string{paid.ID}) {
			t.Fatalf("the owner lists %v", got)
		}
		if got := idsOfOrders(storeOrders(t, s, c.admin, c.storeA)); len(got) != 2 || !slices.Contains(got, held.ID) {
			t.Fatalf("the administrator lists %v", got)
		}
	})

	t.Run("only an administrator may act, and only by cancelling", func(t *testing.T) {
		move := func(tok, status string) st.Result {
			return s.Mutation(tok, "stores.orders.updateOrderStatus", map[string]any{"orderId": held.ID, "status": status})
		}
		expectError(t, move(c.owner, "confirmed"), "FAILED_PRECONDITION", "administrator cancels")
		expectError(t, move(c.owner, "cancelled"), "FAILED_PRECONDITION", "administrator cancels")
		expectError(t, move(c.user, "cancelled"), "PERMISSION_DENIED")
		expectError(t, move(c.admin, "confirmed"), "FAILED_PRECONDITION", "nothing to deliver")
		expectError(t, move(c.admin, "preparing"), "FAILED_PRECONDITION")
		if o := orderOf(t, s, c.admin, held.PaymentIntentID); o.Status != "pending" || o.PaymentStatus != "under_review" || o.PaymentReview.ResolvedBy != "" {
			t.Fatalf("a refused move changed the order: %+v (review %+v)", o, o.PaymentReview)
		}
		st.MustOK(t, move(c.admin, "cancelled"))
		o := orderOf(t, s, c.admin, held.PaymentIntentID)
		if o.Status != "cancelled" || o.PaymentStatus != "under_review" || o.PaymentReview == nil || o.PaymentReview.ResolvedBy != "admin-1" ||
			o.PlatformComm == nil || *o.PlatformComm != 0 || o.StoreEarnings == nil || *o.StoreEarnings != 0 {
			t.Fatalf("cancelled order %+v (review %+v)", o, o.PaymentReview)
		}
		expectError(t, move(c.admin, "cancelled"), "FAILED_PRECONDITION")
		expectError(t, move(c.admin, "confirmed"), "FAILED_PRECONDITION")
		eventually(t, "the customer hears of the cancellation", func() bool {
			for _, n := range inbox(t, s, c.user) {
				if n.Type == "order_status" && n.Data["orderId"] == held.ID && n.Data["status"] == "cancelled" {
					return true
				}
			}
			return false
		})
		if got := idsOfOrders(storeOrders(t, s, c.owner, c.storeA)); !slices.Equal(got, []string{paid.ID}) {
			t.Fatalf("the owner lists %v after the cancellation", got)
		}
	})

	t.Run("the store is credited for the paid order only", func(t *testing.T) {
		for _, to := range []string{"preparing", "out_for_delivery", "delivered"} {
			st.MustOK(t, s.Mutation(c.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": paid.ID, "status": to}))
		}
		// Basic store: 5% of 87.05 = 4.35 + 2 = 6.35 commission; the store earns 80.70.
		eventually(t, "the earnings of the delivered order", func() bool {
			return okAs[walletView](t, s.Query(c.owner, opGetWallet, map[string]any{"storeId": c.storeA})).TotalOrders == 1
		})
		time.Sleep(300 * time.Millisecond)
		if w := okAs[walletView](t, s.Query(c.owner, opGetWallet, map[string]any{"storeId": c.storeA})); w.TotalOrders != 1 ||
			inFils(w.TotalEarnings) != 80_70 || inFils(w.PendingBalance) != 80_70 || w.AvailableBalance != 0 {
			t.Fatalf("wallet %+v", w)
		}
		if owner := inbox(t, s, c.owner); count(owner, "new_order") != 1 {
			t.Fatalf("owner inbox %+v", owner)
		}
	})

	t.Run("a cart emptied before paying", func(t *testing.T) {
		x := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeB, "standard")))
		for _, l := range myCart(t, s, c.user, c.storeB).Items {
			st.MustOK(t, s.Mutation(c.user, opRemoveItem, map[string]any{"itemId": l.ID}))
		}
		if r := confirm(t, s, x, processor.CardSucceeds); r.Status != 200 || r.Header.Get("Simulator-Webhook-Status") != "200" {
			t.Fatalf("confirm: %d %s (webhook %s)", r.Status, r.Body, r.Header.Get("Simulator-Webhook-Status"))
		}
		o := orderOf(t, s, c.user, x.PaymentIntentID)
		if o == nil || o.Status != "pending" || o.PaymentReview == nil || o.PaymentReview.Reason != "cart_empty" || o.StoreID != c.storeB ||
			len(o.Items) != 0 || inFils(o.PaymentReview.AmountPaid) != inFils(x.Amount) {
			t.Fatalf("order %+v", o)
		}
		eventually(t, "the administrators are asked again", func() bool { return count(inbox(t, s, c.admin), "payment_review") == 2 })
	})
}
