package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/ids"
)

// Issue 18, item 1: a forged event credits no wallet. Whoever holds the
// credentials of a broker user that may write the orders topic (since issue
// 19 only the customers service's: the tests forge with them, publish) can
// write an order.status_changed event; the payouts consumer credits only
// what the customers service, the owner of the orders, confirms.

const unconfirmedEarningsMetric = "marketplace_payouts_unconfirmed_earnings_total"

// unconfirmedEarnings is the payouts consumer's count of delivered-order
// events the customers service did not confirm, for reason (0 while the
// series does not exist).
func unconfirmedEarnings(s *st.Sys, reason string) float64 {
	v, _ := sample(s.Metrics(), unconfirmedEarningsMetric, map[string]string{"reason": reason})
	return v
}

// awaitUnconfirmed waits until the payouts consumer has counted one more
// unconfirmed event of reason than before (the forged event was processed),
// or until moved tells that it moved money anyway.
func awaitUnconfirmed(t *testing.T, s *st.Sys, reason string, before float64, moved ...func() bool) {
	t.Helper()
	eventually(t, "the payouts consumer's "+reason+" count", func() bool {
		for _, m := range moved {
			if m() {
				return true
			}
		}
		return unconfirmedEarnings(s, reason) >= before+1
	})
}

// forgeDelivery publishes, as an attacker with the customers service's
// Kafka credentials would, an
// order.status_changed event (to delivered) for orderID and storeID with the
// earnings given, keyed by the order as the customers service keys its own.
func forgeDelivery(t *testing.T, s *st.Sys, eventID, orderID, storeID string, earningsFils int64) {
	t.Helper()
	data, _ := json.Marshal(map[string]any{
		"orderId": orderID, "storeId": storeID, "storeName": "Bakery", "storeOwnerUserId": "owner-1", "customerId": ids.New("customers"),
		"totalFils": earningsFils + 635, "platformCommissionFils": 635, "storeEarningsFils": earningsFils,
		"paymentStatus": "paid", "status": "delivered", "from": "out_for_delivery", "to": "delivered", "changedBy": "owner-1",
	})
	raw, err := json.Marshal(events.Envelope{ID: eventID, Type: "order.status_changed", Source: "customers", Time: time.Now().UTC(), Subject: orderID, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	publish(t, s, "orders", orderID, raw)
}

type confirmedReconciliation struct {
	Consistent          bool     `json:"consistent"`
	Inconsistencies     []string `json:"inconsistencies"`
	UnconfirmedEarnings []struct {
		OrderID string `json:"orderId"`
		Reason  string `json:"reason"`
	} `json:"unconfirmedEarnings"`
}

func (w *payoutsWorld) confirmedReconciliation(t *testing.T, store string) {
	t.Helper()
	r := okAs[confirmedReconciliation](t, w.s.Query(w.admin, opReconcile, map[string]any{"storeId": store}))
	if !r.Consistent || len(r.Inconsistencies) != 0 || r.UnconfirmedEarnings == nil || len(r.UnconfirmedEarnings) != 0 {
		t.Fatalf("reconciliation of %s: %+v", store, r)
	}
}

// TestForgedDeliveryOfAMadeUpOrder: an order.status_changed to delivered for
// an order that does not exist, claiming 1,000,000 AED of earnings for a real
// store, credits nothing; the consumer counts it (reason unknown_order) and
// the wallet stays consistent.
func TestForgedDeliveryOfAMadeUpOrder(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	w := &payoutsWorld{s: s, admin: sh.admin, owner: sh.owner, store: sh.storeA}
	before := w.getWallet(t, w.owner, w.store)
	unknown := unconfirmedEarnings(s, "unknown_order")

	forgeDelivery(t, s, "evt_forged_made_up", ids.New("orders"), sh.storeA, 100_000_000)
	awaitUnconfirmed(t, s, "unknown_order", unknown, func() bool { return w.getWallet(t, w.owner, w.store) != before })

	after := w.getWallet(t, w.owner, w.store)
	if after != before || after.PendingBalance != 0 || after.TotalOrders != 0 {
		t.Fatalf("a forged delivery moved the wallet: %+v, was %+v", after, before)
	}
	if txs := w.transactions(t, w.admin, w.store); len(txs) != 0 {
		t.Fatalf("a forged delivery wrote transactions: %+v", txs)
	}
	w.confirmedReconciliation(t, w.store)
}

// TestForgedDeliveryOfARealOrder: for a real order, a forged delivered event
// with inflated earnings, sent before the order is delivered, credits
// nothing (not_delivered); the real delivery then credits the order's own
// earnings, and a second forged event afterwards (another event id, inflated
// earnings, another store) credits nothing more, neither to the order's
// store nor to the store it names.
func TestForgedDeliveryOfARealOrder(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	w := &payoutsWorld{s: s, admin: sh.admin, owner: sh.owner, store: sh.storeA}
	if r := deliver(s, processor.Event("evt_forge_pay_1", "payment_intent.succeeded", sh.payment("pi_forge_1"))); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	var order orderView
	st.MustOK(t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_forge_1"})).Decode(t, &order)
	if order.StoreEarnings == nil || *order.StoreEarnings != 80.7 || order.Status == "delivered" {
		t.Fatalf("order %+v", order)
	}

	notDelivered := unconfirmedEarnings(s, "not_delivered")
	forgeDelivery(t, s, "evt_forged_early", order.ID, sh.storeA, 100_000_000)
	awaitUnconfirmed(t, s, "not_delivered", notDelivered, func() bool { return w.getWallet(t, w.owner, w.store).TotalOrders != 0 })
	if wl := w.getWallet(t, w.owner, w.store); wl.PendingBalance != 0 || wl.TotalOrders != 0 {
		t.Fatalf("a forged delivery of an undelivered order credited: %+v", wl)
	}

	moveOrder(t, s, sh.owner, order.ID)
	var wallet walletView
	eventually(t, "the real delivery's earnings", func() bool {
		wallet = w.getWallet(t, w.owner, w.store)
		return wallet.TotalOrders == 1
	})
	expectBalances(t, wallet, 0, 80.7)
	if e := txOf(w.transactions(t, w.admin, w.store), "earning"); len(e) != 1 || e[0].Amount != 80.7 || e[0].Metadata["orderId"] != order.ID {
		t.Fatalf("earnings %+v", e)
	}

	otherStore, amountDiffers := unconfirmedEarnings(s, "other_store"), unconfirmedEarnings(s, "amount_differs")
	forgeDelivery(t, s, "evt_forged_late", order.ID, sh.storeB, 100_000_000)
	awaitUnconfirmed(t, s, "other_store", otherStore)
	awaitUnconfirmed(t, s, "amount_differs", amountDiffers)
	wallet = w.getWallet(t, w.owner, w.store)
	expectBalances(t, wallet, 0, 80.7)
	if wallet.TotalOrders != 1 || wallet.TotalEarnings != 80.7 {
		t.Fatalf("after a second forged delivery: %+v", wallet)
	}
	if b := w.getWallet(t, w.owner, sh.storeB); b.PendingBalance != 0 || b.TotalOrders != 0 {
		t.Fatalf("the store a forged event named was credited: %+v", b)
	}
	w.confirmedReconciliation(t, w.store)
	w.confirmedReconciliation(t, sh.storeB)

	// What the payouts service asked: the customers service's internal
	// getOrderFacts, through its typed client as the payouts service; unknown
	// ids absent. It is not reachable through the gateway.
	client := customers.NewClient(s.CallsAs("payouts"))
	facts, err := client.OrderFacts(context.Background(), []string{order.ID, ids.New("orders")})
	if err != nil {
		t.Fatal(err)
	}
	f, ok := facts[order.ID]
	if len(facts) != 1 || !ok || f.StoreID != sh.storeA || f.Status != "delivered" || f.StoreEarnings != 8070 || f.Total != 8705 ||
		f.PlatformCommission != 8705-8070 || f.DeliveredAt == nil {
		t.Fatalf("order facts %+v", facts)
	}
	expectError(t, s.Query(sh.admin, customers.OpGetOrderFacts, map[string]any{"orderIds": []string{order.ID}}), "NOT_FOUND")
}
