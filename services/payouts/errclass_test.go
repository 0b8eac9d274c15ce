package payouts

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
	"marketplace/libs/ids"
	"marketplace/services/payouts/storage"
)

// TestAnswersOtherThanUnavailableAreTheEvents: a dependency that does not
// answer (UNAVAILABLE) makes prepare fail and the handler's error a Retry
// (waited out, never dead-lettered); any other error answer (INTERNAL,
// INVALID_ARGUMENT) is a plain error of the events that needed it, which the
// consumer retries MaxAttempts times and then parks on the DLQ: prepare
// succeeds (the batch's other events are not held up) and the handler fails
// without Retry, with prepare's answer or asking itself. For the customers
// service (deliveries) and the catalog (store events).
func TestAnswersOtherThanUnavailableAreTheEvents(t *testing.T) {
	storeID := ids.New("stores")
	for _, dep := range []string{"customers", "catalog"} {
		for _, tc := range []struct {
			err   error
			retry bool
		}{
			{apperr.New(apperr.Unavailable, "%s did not answer in time", dep), true},
			{apperr.New(apperr.Internal, "internal error"), false},
			{apperr.New(apperr.InvalidArgument, "orderIds: too many"), false},
		} {
			ts := newTestSvc(t)
			ev := envelope(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 8070))
			if dep == "catalog" {
				d := catalog.StoreUpdated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1", Version: 2}
				ts.setStore(d)
				ev = envelope(t, catalog.EventStoreUpdated, d)
				ts.catalogErr = tc.err
			} else {
				ts.ordersErr = tc.err
			}
			ctx, perr := ts.prepare(context.Background(), []events.Envelope{ev})
			if (perr != nil) != tc.retry {
				t.Fatalf("%s answers %v: prepare's error %v", dep, tc.err, perr)
			}
			if perr != nil {
				ctx = context.Background()
			}
			for _, c := range []context.Context{ctx, context.Background()} { // prepare's answer; asking itself
				err := ts.db.Tx(c, func(tx context.Context) error { return ts.onEvent(tx, ev) })
				if err == nil || events.IsRetry(err) != tc.retry || apperr.CodeOf(err) != apperr.CodeOf(tc.err) {
					t.Fatalf("%s answers %v: handler's error %v (retry %v), want retry %v", dep, tc.err, err, events.IsRetry(err), tc.retry)
				}
			}
			if n := ts.count(t, storage.WalletsColl, nil); n != 0 {
				t.Fatalf("%s answers %v: a wallet was written", dep, tc.err)
			}
		}
	}
}

// TestPermanentErrorIsDeadLettered: through the real consumer, a delivery
// the customers service answers INTERNAL about is parked on the DLQ after
// MaxAttempts (an operator replays it), and the partition goes on: the next
// delivery is credited. Before, every error was a retry, and the partition
// stalled for as long as the error lasted.
func TestPermanentErrorIsDeadLettered(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	bad := ts.delivered(ids.New("orders"), storeID, 1000)
	good := ts.delivered(ids.New("orders"), storeID, 2000)
	inner := ts.svc.orderFacts
	ts.svc.orderFacts = func(ctx context.Context, orderIDs []string) (map[string]customers.OrderFacts, error) {
		for _, id := range orderIDs {
			if id == bad.OrderID {
				return nil, apperr.New(apperr.Internal, "internal error")
			}
		}
		return inner(ctx, orderIDs)
	}
	ctx, cancel, b, pub := withBroker(t, ts)
	defer cancel()
	var msgs []events.Message
	for _, d := range []customers.OrderEvent{bad, good} {
		raw, err := json.Marshal(envelope(t, customers.EventOrderStatusChanged, d))
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, events.Message{Topic: customers.TopicOrders, Key: []byte(storeID), Value: raw})
	}
	if err := pub.Publish(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	dlq := &eventstest.Recorder{}
	done := make(chan error, 1)
	go func() {
		done <- events.RunConsumer(ctx, events.ConsumerConfig{
			Brokers: b.Brokers(), GroupID: "payouts-test", Topics: []string{customers.TopicOrders}, DB: ts.db,
			Handler: ts.onEvent, Prepare: ts.prepare, Publisher: dlq, Logger: ts.env.Logger, MaxAttempts: 2,
			RetryBackoff: 10 * time.Millisecond, BatchWait: 300 * time.Millisecond,
			Handles:        consumed,
			SessionTimeout: time.Second, RebalanceTimeout: time.Second, HeartbeatInterval: 100 * time.Millisecond,
		})
	}()
	defer func() { cancel(); <-done }()
	for {
		w, err := ts.svc.wallet(ctx, storeID)
		if err != nil {
			t.Fatal(err)
		}
		if w != nil && w.PendingBalance == 2000 {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("the delivery after the failing one was never credited (wallet %+v)", w)
		}
		time.Sleep(20 * time.Millisecond)
	}
	parked := dlq.Messages()
	if len(parked) != 1 || parked[0].Topic != events.DeadLetterTopic("payouts-test") {
		t.Fatalf("dead-lettered %d messages, want the failing delivery once", len(parked))
	}
	env, err := events.Decode(parked[0].Value)
	if err != nil || !json.Valid(env.Data) || !containsOrder(env.Data, bad.OrderID) {
		t.Fatalf("dead-lettered %s, want the failing delivery", parked[0].Value)
	}
}

func containsOrder(data json.RawMessage, orderID string) bool {
	var d customers.OrderEvent
	return json.Unmarshal(data, &d) == nil && d.OrderID == orderID
}
