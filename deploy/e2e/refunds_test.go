package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sync"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
)

// refundView is an order's refund as its view shows it.
type refundView struct {
	RefundID      string  `json:"refundId"`
	Amount        float64 `json:"amount"`
	Reason        string  `json:"reason"`
	Origin        string  `json:"origin"`
	Status        string  `json:"status"`
	FailureReason string  `json:"failureReason"`
}

// orderMoney is the refund part of an order's view.
type orderMoney struct {
	ID               string       `json:"_id"`
	Status           string       `json:"status"`
	RefundedAmount   float64      `json:"refundedAmount"`
	RefundStatus     string       `json:"refundStatus"`
	RefundableAmount *float64     `json:"refundableAmount"`
	Refunds          []refundView `json:"refunds"`
}

func moneyOf(t *testing.T, s *st.Sys, token, intent string) orderMoney {
	t.Helper()
	return okAs[orderMoney](t, s.Query(token, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent}))
}

// paidOrder makes store A's order of 87.05 AED paid through the webhook.
func paidOrder(t *testing.T, s *st.Sys, sh *shop, intent string) orderMoney {
	t.Helper()
	if r := deliver(s, processor.Event("evt_"+intent, "payment_intent.succeeded", sh.payment(intent))); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	return moneyOf(t, s, sh.admin, intent)
}

// refundRequested is the order.refund_requested event of a refund.
func refundRequested(t *testing.T, s *st.Sys, orderID, refundID string) map[string]any {
	t.Helper()
	raw := findEvent(t, s.Brokers, "orders", orderID, func(e events.Envelope) bool {
		var d struct {
			RefundID string `json:"refundId"`
		}
		return e.Type == "order.refund_requested" && json.Unmarshal(e.Data, &d) == nil && (refundID == "" || d.RefundID == refundID)
	})
	env, err := events.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	var d map[string]any
	if err := json.Unmarshal(env.Data, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestRefundRequestsNeverExceedThePayment: twenty administrators' refunds of
// 10 AED at once (each with its own Idempotency-Key: twenty requests, not
// retries) on an order of 87.05 AED paid through the processor: at
// most eight are reserved, the others are refused as exceeding what is left
// (or, under contention, asked to try again), and the order says what is
// left. The processor's confirmations are held meanwhile, so the refunds stay
// requested.
func TestRefundRequestsNeverExceedThePayment(t *testing.T) {
	s := st.Start(t)
	c, intent := paidThroughProcessor(t, s)
	sh := c.shop
	st.MustOK(t, atSimulator(t, s, "/simulator/controls", url.Values{"type": {"charge.refunded"}, "objectId": {intent}, "action": {"hold"}, "times": {"100"}}))
	o := moneyOf(t, s, sh.admin, intent)
	if o.RefundableAmount == nil || *o.RefundableAmount != 87.05 || o.RefundedAmount != 0 || o.RefundStatus != "" || len(o.Refunds) != 0 {
		t.Fatalf("a fresh order %+v", o)
	}
	var wg sync.WaitGroup
	results := make([]st.Result, 20)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = keyed(t, s, sh.admin, fmt.Sprint("refund-", i), "admins.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "damaged", "amount": 10})
		}()
	}
	wg.Wait()
	reserved, contention := 0, 0
	for _, r := range results {
		switch {
		case r.Status == 200:
			reserved++
		case r.Code() == "UNAVAILABLE":
			contention++
		default:
			expectError(t, r, "FAILED_PRECONDITION", "left to refund")
			if d := r.Map(t)["error"].(map[string]any)["details"].(map[string]any); d["reason"] != "refund_exceeds_payment" {
				t.Errorf("details %v", d)
			}
		}
	}
	if reserved > 8 || reserved+contention < 8 || reserved == 0 {
		t.Fatalf("%d refunds of 10 AED reserved on 87.05 AED (%d asked to try again)", reserved, contention)
	}
	after := moneyOf(t, s, sh.admin, intent)
	if len(after.Refunds) != reserved || *after.RefundableAmount != 87.05-float64(10*reserved) && inFils(*after.RefundableAmount) != inFils(87.05-float64(10*reserved)) {
		t.Fatalf("after %d reservations: %+v", reserved, after)
	}
	for _, r := range after.Refunds {
		if r.Status != "requested" || r.Amount != 10 || r.Origin != "admin" || r.Reason != "damaged" {
			t.Fatalf("refund %+v", r)
		}
	}
	// The rest: all that is left, asked without an amount.
	var rest struct {
		RefundID         string  `json:"refundId"`
		Status           string  `json:"status"`
		Amount           float64 `json:"amount"`
		RefundableAmount float64 `json:"refundableAmount"`
	}
	st.MustOK(t, s.Mutation(sh.admin, "admins.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "the rest"})).Decode(t, &rest)
	if inFils(rest.Amount) != 87_05-int64(1000*reserved) || rest.RefundableAmount != 0 || rest.Status != "requested" {
		t.Fatalf("the rest %+v", rest)
	}
	ev := refundRequested(t, s, o.ID, rest.RefundID)
	if ev["paymentIntentId"] != intent || int64(ev["amountFils"].(float64)) != inFils(rest.Amount) || ev["currency"] != "aed" ||
		ev["origin"] != "admin" || ev["requestedBy"] != "admin-1" || ev["storeId"] != sh.storeA {
		t.Fatalf("event %v", ev)
	}
	expectError(t, s.Mutation(sh.admin, "admins.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "again"}), "FAILED_PRECONDITION", "nothing left")
}

// TestRefundAccess: administrators refund through either operation, a store's
// owner their own store's orders only, customers not at all; bad arguments
// are INVALID_ARGUMENT.
func TestRefundAccess(t *testing.T) {
	s := st.Start(t)
	c, intent := paidThroughProcessor(t, s)
	sh := c.shop
	o := moneyOf(t, s, sh.admin, intent)
	other := s.Token("owner-2")
	args := func(extra map[string]any) map[string]any {
		a := map[string]any{"orderId": o.ID, "reason": "late", "amount": 1}
		for k, v := range extra {
			a[k] = v
		}
		return a
	}
	expectError(t, s.Mutation(sh.user, "admins.orders.refundOrder", args(nil)), "PERMISSION_DENIED")
	expectError(t, s.Mutation(sh.owner, "admins.orders.refundOrder", args(nil)), "PERMISSION_DENIED")
	expectError(t, s.Mutation(other, "stores.orders.refundOrder", args(nil)), "PERMISSION_DENIED")
	expectError(t, s.Mutation(sh.user, "stores.orders.refundOrder", args(nil)), "PERMISSION_DENIED")
	expectError(t, s.Mutation(sh.owner, "stores.orders.refundOrder", args(map[string]any{"amount": 0})), "INVALID_ARGUMENT", "amount")
	expectError(t, s.Mutation(sh.owner, "stores.orders.refundOrder", args(map[string]any{"reason": " "})), "INVALID_ARGUMENT", "reason")
	expectError(t, s.Mutation(sh.owner, "stores.orders.refundOrder", args(map[string]any{"lines": []any{map[string]any{"productId": sh.productA2, "quantity": 1}}})),
		"INVALID_ARGUMENT", "not both")
	expectError(t, s.Mutation(sh.owner, "stores.orders.refundOrder", args(map[string]any{"amount": 87.06})), "FAILED_PRECONDITION", "left to refund")
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.refundOrder", args(nil)))
	st.MustOK(t, s.Mutation(sh.admin, "stores.orders.refundOrder", args(nil)))
	var byLine struct {
		Amount float64 `json:"amount"`
	}
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "cake was crushed",
		"lines": []any{map[string]any{"productId": sh.productA2, "quantity": 1}}})).Decode(t, &byLine)
	if byLine.Amount != 40 {
		t.Fatalf("a line of 40.00 refunded %v", byLine.Amount)
	}
	got := moneyOf(t, s, sh.admin, intent)
	if len(got.Refunds) != 3 || got.Refunds[0].Origin != "store" || got.Refunds[1].Origin != "admin" || *got.RefundableAmount != 45.05 {
		t.Fatalf("refunds %+v", got)
	}
	// The customer sees the refunds of their order, not what is left.
	if mine := moneyOf(t, s, sh.user, intent); len(mine.Refunds) != 3 || mine.RefundableAmount != nil {
		t.Fatalf("the customer's view %+v", mine)
	}
}

// TestCancellingAPaidOrderAsksForItsRefund: a customer's cancellation before
// preparation, a store's and an administrator's (of a held order) each
// reserve the refund of all that was paid, with order.refund_requested.
func TestCancellingAPaidOrderAsksForItsRefund(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	byCustomer := paidOrder(t, s, sh, "pi_cancel_customer")
	st.MustOK(t, s.Mutation(sh.user, "customers.orders.cancelMyOrder", map[string]any{"orderId": byCustomer.ID}))

	sh.fillCart(t)
	byStore := paidOrder(t, s, sh, "pi_cancel_store")
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": byStore.ID, "status": "preparing"}))
	expectError(t, s.Mutation(sh.user, "customers.orders.cancelMyOrder", map[string]any{"orderId": byStore.ID}), "FAILED_PRECONDITION", "before the store prepares it")
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": byStore.ID, "status": "cancelled"}))

	sh.fillCart(t)
	p := sh.payment("pi_cancel_held")
	p.AmountFils += 500 // paid 5 AED more than the order's total: held
	if r := deliver(s, processor.Event("evt_cancel_held", "payment_intent.succeeded", p)); r.Status != 200 {
		t.Fatalf("held order: %d %s", r.Status, r.Body)
	}
	held := moneyOf(t, s, sh.admin, "pi_cancel_held")
	st.MustOK(t, s.Mutation(sh.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": held.ID, "status": "cancelled"}))

	for _, c := range []struct {
		intent, by string
		amount     float64
	}{{"pi_cancel_customer", "user-1", 87.05}, {"pi_cancel_store", "owner-1", 87.05}, {"pi_cancel_held", "admin-1", 92.05}} {
		// These intents never were the processor's (their webhooks are the
		// test's): it refuses their refunds, which then fail and free what
		// they reserved. The reservation and its event are what is checked.
		o := moneyOf(t, s, sh.admin, c.intent)
		if o.Status != "cancelled" || len(o.Refunds) != 1 || o.Refunds[0].Origin != "cancellation" || o.Refunds[0].Amount != c.amount ||
			o.Refunds[0].Status == "succeeded" || o.Refunds[0].Status == "requested" && *o.RefundableAmount != 0 {
			t.Fatalf("%s: %+v", c.intent, o)
		}
		ev := refundRequested(t, s, o.ID, o.Refunds[0].RefundID)
		if ev["requestedBy"] != c.by || ev["full"] != true || ev["origin"] != "cancellation" {
			t.Fatalf("%s: event %v", c.intent, ev)
		}
	}
	// Another customer's order reads as no order at all.
	other := s.Token("user-2")
	okID(t, s.Mutation(other, "customers.profile.upsertMyProfile", map[string]any{"name": "Sara"}))
	expectError(t, s.Mutation(other, "customers.orders.cancelMyOrder", map[string]any{"orderId": byStore.ID}), "NOT_FOUND")
}

// TestUnkeyedRefundRetriesAreRefused: a refund asked again without an
// Idempotency-Key while the same refund (amount, reason, kind of caller) is
// still requested is refused refund_duplicate with the earlier refund's id
// and reserves nothing; two different keys make two refunds and a key's retry
// replays its own; the store's owner asking the same is another request; once
// the refunds settled, an unkeyed repeat is still refused (already refunded)
// and a keyed one is a new refund.
func TestUnkeyedRefundRetriesAreRefused(t *testing.T) {
	s := st.Start(t)
	c, intent := paidThroughProcessor(t, s)
	o := moneyOf(t, s, c.admin, intent)
	// The refunds' confirmations wait until released.
	st.MustOK(t, atSimulator(t, s, "/simulator/controls", url.Values{"type": {"charge.refunded"}, "objectId": {intent}, "action": {"hold"}, "times": {"100"}}))
	args := map[string]any{"orderId": o.ID, "reason": "late", "amount": 10}
	type answer struct {
		RefundID         string  `json:"refundId"`
		RefundableAmount float64 `json:"refundableAmount"`
	}
	first := okAs[answer](t, s.Mutation(c.admin, "admins.orders.refundOrder", args))

	again := s.Mutation(c.admin, "admins.orders.refundOrder", args)
	if again.Status != 409 {
		t.Fatalf("the same refund again without a key: %d %s", again.Status, again.Body)
	}
	expectReason(t, again, "FAILED_PRECONDITION", "refund_duplicate")
	expectError(t, again, "FAILED_PRECONDITION", first.RefundID, "Idempotency-Key")
	if d := again.Map(t)["error"].(map[string]any)["details"].(map[string]any); d["refundId"] != first.RefundID {
		t.Fatalf("details %v, want refundId %s", d, first.RefundID)
	}
	if m := moneyOf(t, s, c.admin, intent); len(m.Refunds) != 1 || inFils(*m.RefundableAmount) != 77_05 {
		t.Fatalf("the refused retry reserved: %+v", m)
	}

	// Two keys: two refunds; the first key again: its own answer, replayed.
	k1 := okAs[answer](t, keyed(t, s, c.admin, "refund-late-1", "admins.orders.refundOrder", args))
	k2 := okAs[answer](t, keyed(t, s, c.admin, "refund-late-2", "admins.orders.refundOrder", args))
	k1again := keyed(t, s, c.admin, "refund-late-1", "admins.orders.refundOrder", args)
	if k1.RefundID == first.RefundID || k2.RefundID == k1.RefundID || !replayed(k1again) || okAs[answer](t, k1again) != k1 {
		t.Fatalf("keyed refunds %+v %+v, replay %d %s", k1, k2, k1again.Status, k1again.Body)
	}
	// The store's owner is another kind of caller: another request.
	owner := okAs[answer](t, s.Mutation(c.owner, "stores.orders.refundOrder", args))
	if m := moneyOf(t, s, c.admin, intent); len(m.Refunds) != 4 || owner.RefundableAmount != 47.05 {
		t.Fatalf("after four refunds: %+v, answer %+v", m, owner)
	}

	// The refunds confirmed (none pending): the same call asks for a new one.
	var held []processor.QueuedDelivery
	eventually(t, "the four confirmations held", func() bool {
		held = okAs[struct {
			Data []processor.QueuedDelivery `json:"data"`
		}](t, s.DoAt(s.ProcessorURL, "GET", "/simulator/deliveries?status=held&objectId="+intent, nil,
			map[string]string{"Authorization": "Bearer " + s.ProcessorKey})).Data
		return len(held) == 4
	})
	for _, d := range held {
		st.MustOK(t, atSimulator(t, s, "/simulator/deliveries/"+d.ID+"/release", nil))
	}
	eventually(t, "the refunds confirmed", func() bool { return inFils(moneyOf(t, s, c.admin, intent).RefundedAmount) == 40_00 })
	// Refunded already (a card refund often succeeds before a timed-out
	// client asks again): an unkeyed repeat is still a retry, refused; a
	// key asks for a new one.
	settled := s.Mutation(c.admin, "admins.orders.refundOrder", args)
	expectReason(t, settled, "FAILED_PRECONDITION", "refund_duplicate")
	expectError(t, settled, "FAILED_PRECONDITION", "already refunded", "Idempotency-Key")
	if later := okAs[answer](t, keyed(t, s, c.admin, "refund-late-3", "admins.orders.refundOrder", args)); later.RefundID == first.RefundID || later.RefundableAmount != 37.05 {
		t.Fatalf("a keyed refund after the first settled: %+v", later)
	}
}
