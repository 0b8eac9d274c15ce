package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/ids"
)

// TestForgedEventWithARealDeliverysID (issue 18 review, item 1): a forged
// event that reuses the id of a real delivery and reaches the payouts
// consumer first does not make the real delivery a duplicate: the real one is
// still credited, once. The payouts consumer is made to meet the forged copy
// first deterministically: the system runs without the payouts service while
// the order is delivered; the attacker reads the real event off the topic and
// publishes, on its partition, a forged delivery of a made-up order under
// the real event's id, then the real event again (a redelivery, byte for
// byte); the payouts group's offset on that partition is put past the
// original, as if it had been lost, so the payouts service, started next on
// the same data, meets the forged copy and then the real event.
func TestForgedEventWithARealDeliverysID(t *testing.T) {
	dir := t.TempDir()
	var orderID, storeID string
	t.Run("without payouts", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir), st.WithModules(withoutModule("payouts")...))
		sh := newShop(t, s)
		storeID = sh.storeA
		if r := deliver(s, processor.Event("evt_forge_id_pay_1", "payment_intent.succeeded", sh.payment("pi_forge_id_1"))); r.Status != 200 {
			t.Fatalf("order: %d %s", r.Status, r.Body)
		}
		var order orderView
		st.MustOK(t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_forge_id_1"})).Decode(t, &order)
		orderID = order.ID
		moveOrder(t, s, sh.owner, orderID)

		// The attacker: the real delivery, read off the topic, and its offset
		// committed for the payouts group (as the payouts service's Kafka
		// user: the only one that may join its group); then the forged copy
		// and the real event again, as the customers service's (the only
		// one that may write orders).
		real := takeDelivery(t, s.KafkaAs("payouts"), orderID)
		env, err := events.Decode(real.Value)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(map[string]any{
			"orderId": ids.New("orders"), "storeId": storeID, "storeName": "Bakery", "storeOwnerUserId": "owner-1",
			"totalFils": 100_000_635, "platformCommissionFils": 635, "storeEarningsFils": 100_000_000,
			"status": "delivered", "from": "out_for_delivery", "to": "delivered",
		})
		forged, err := json.Marshal(events.Envelope{ID: env.ID, Type: customers.EventOrderStatusChanged, Source: "customers", Time: time.Now().UTC(), Subject: orderID, Data: data})
		if err != nil {
			t.Fatal(err)
		}
		publish(t, s, customers.TopicOrders, orderID, forged)
		publish(t, s, customers.TopicOrders, orderID, real.Value)
	})
	t.Run("with payouts", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		w := &payoutsWorld{s: s, admin: s.Token("admin-1", "admin"), owner: s.Token("owner-1"), store: storeID}
		// The forged copy first: an unknown order, credited nothing.
		eventually(t, "the forged copy handled", func() bool { return unconfirmedEarnings(s, "unknown_order") >= 1 })
		eventually(t, "the real delivery credited", func() bool { return w.getWallet(t, w.owner, storeID).TotalOrders >= 1 })
		time.Sleep(200 * time.Millisecond)
		wallet := w.getWallet(t, w.owner, storeID)
		expectBalances(t, wallet, 0, 80.7)
		if wallet.TotalOrders != 1 {
			t.Fatalf("wallet %+v, want the real delivery credited once", wallet)
		}
		if e := txOf(w.transactions(t, w.admin, storeID), "earning"); len(e) != 1 || e[0].Metadata["orderId"] != orderID {
			t.Fatalf("earnings %+v", e)
		}
		w.confirmedReconciliation(t, storeID)
	})
}

// takeDelivery reads the orders topic in the payouts consumer group until
// the order's delivered event, commits it for the group (its partition then
// resumes after it) and returns it.
func takeDelivery(t *testing.T, brokers events.Brokers, orderID string) kafka.Message {
	t.Helper()
	r := kafka.NewReader(kafka.ReaderConfig{
		Brokers: brokers.Addrs, Dialer: brokers.Dialer("e2e"), GroupID: "payouts", GroupTopics: []string{customers.TopicOrders},
		MinBytes: 1, MaxBytes: 10 << 20, MaxWait: 50 * time.Millisecond, StartOffset: kafka.FirstOffset,
		HeartbeatInterval: 100 * time.Millisecond, SessionTimeout: time.Second, RebalanceTimeout: time.Second, ReadLagInterval: -1,
	})
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for {
		m, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatalf("the delivery of %s is not on the topic: %v", orderID, err)
		}
		if string(m.Key) != orderID {
			continue
		}
		env, err := events.Decode(m.Value)
		var d customers.OrderEvent
		if err != nil || env.Type != customers.EventOrderStatusChanged || json.Unmarshal(env.Data, &d) != nil || d.To != customers.StatusDelivered {
			continue
		}
		if err := r.CommitMessages(ctx, m); err != nil {
			t.Fatal(err)
		}
		return m
	}
}
