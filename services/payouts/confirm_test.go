package payouts

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

func envelope(t *testing.T, typ string, data any) events.Envelope {
	t.Helper()
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := events.NewID()
	return events.Envelope{ID: id, Type: typ, Data: raw}
}

// TestForgedDeliveriesCreditNothing: an order.status_changed to delivered for
// an order the customers service does not know, or knows as not delivered, or
// whose id is not an order id, credits nothing and is not an error (the event
// is settled, not retried or dead-lettered).
func TestForgedDeliveriesCreditNothing(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1"})
	made := event(ids.New("orders"), storeID, 100_000_000) // 1,000,000 AED, no such order
	ts.deliver(t, customers.EventOrderStatusChanged, made)
	notYet := event(ids.New("orders"), storeID, 50_000_00)
	ts.setOrder(notYet, customers.StatusOutForDelivery)
	ts.deliver(t, customers.EventOrderStatusChanged, notYet)
	cancelled := event(ids.New("orders"), storeID, 50_000_00)
	ts.setOrder(cancelled, customers.StatusCancelled)
	ts.deliver(t, customers.EventOrderStatusChanged, cancelled)
	ts.deliver(t, customers.EventOrderStatusChanged, event("ord_made-up", storeID, 50_000_00))
	if w := ts.wallet(t, storeID); w.PendingBalance != 0 || w.AvailableBalance != 0 || w.TotalOrders != 0 || w.TotalEarnings != 0 {
		t.Fatalf("forged deliveries credited: %+v", w)
	}
	if n := ts.count(t, storage.TxColl, bson.M{}); n != 0 {
		t.Fatalf("%d wallet transactions from forged deliveries", n)
	}
	if n := ts.count(t, "outbox", bson.M{}); n != 0 {
		t.Fatalf("%d events from forged deliveries", n)
	}
	ts.reconciled(t, storeID)
}

// TestDeliveryCreditsWhatTheOrderSays: the store and the earnings credited are
// the order's, as the customers service has them, whatever the event says;
// an inflated copy of the event for the same order credits nothing more.
func TestDeliveryCreditsWhatTheOrderSays(t *testing.T) {
	ts := newTestSvc(t)
	storeID, other := ids.New("stores"), ids.New("stores")
	real := ts.delivered(ids.New("orders"), storeID, 8070)
	forged := real
	forged.StoreID, forged.StoreEarnings, forged.Total = other, 100_000_000, 100_000_635
	ts.deliver(t, customers.EventOrderStatusChanged, forged)
	w := ts.wallet(t, storeID)
	if w.PendingBalance != 8070 || w.TotalEarnings != 8070 || w.TotalOrders != 1 {
		t.Fatalf("the order's store holds %+v, want its 80.70 credited", w)
	}
	if n := ts.count(t, storage.WalletsColl, bson.M{"storeId": other}); n != 0 {
		t.Fatalf("the event's store got a wallet")
	}
	inflated := real
	inflated.StoreEarnings = 100_000_000
	ts.deliver(t, customers.EventOrderStatusChanged, inflated)
	ts.deliver(t, customers.EventOrderStatusChanged, real)
	if w := ts.wallet(t, storeID); w.PendingBalance != 8070 || w.TotalOrders != 1 {
		t.Fatalf("credited again: %+v", w)
	}
	var e domain.Transaction
	if err := ts.db.Collection(storage.TxColl).FindOne(context.Background(), bson.M{"type": domain.TxEarning}).Decode(&e); err != nil {
		t.Fatal(err)
	}
	if e.Metadata["orderTotal"] != "87.05" || e.Metadata["platformCommission"] != "6.35" {
		t.Fatalf("the earning's figures are not the order's: %v", e.Metadata)
	}
	ts.reconciled(t, storeID)
}

// TestCustomersDownRetriesTheEvent: while the customers service does not
// answer, a delivered-order event fails with an error marked events.Retry
// (the consumer waits, never dead-letters it) and writes nothing; once it
// answers, the event credits.
func TestCustomersDownRetriesTheEvent(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	ev := envelope(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 8070))
	ts.ordersDown = true
	err := ts.db.Tx(context.Background(), func(ctx context.Context) error { return ts.onEvent(ctx, ev) })
	if err == nil || !events.IsRetry(err) {
		t.Fatalf("customers down: %v, want an error marked Retry", err)
	}
	if _, err := ts.prepare(context.Background(), []events.Envelope{ev}); err == nil {
		t.Fatal("prepare succeeded with the customers service down")
	}
	if n := ts.count(t, storage.WalletsColl, bson.M{}); n != 0 {
		t.Fatal("a wallet was written while the order could not be confirmed")
	}
	ts.ordersDown = false
	if err := ts.db.Tx(context.Background(), func(ctx context.Context) error { return ts.onEvent(ctx, ev) }); err != nil {
		t.Fatal(err)
	}
	if w := ts.wallet(t, storeID); w.PendingBalance != 8070 {
		t.Fatalf("wallet %+v", w)
	}
}

// TestPrepareAsksOnceForABatch: prepare asks about all of a batch's delivered
// orders in one call, outside the transaction, and the handler then asks
// nothing more (an unknown order included); other events are not asked about.
func TestPrepareAsksOnceForABatch(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	envs := []events.Envelope{
		envelope(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1"}),
		envelope(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 1000)),
		envelope(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 2000)),
		envelope(t, customers.EventOrderStatusChanged, event(ids.New("orders"), storeID, 3000)),
	}
	ctx, err := ts.prepare(context.Background(), envs)
	if err != nil {
		t.Fatal(err)
	}
	err = ts.db.Tx(ctx, func(ctx context.Context) error {
		for _, env := range envs {
			if err := ts.onEvent(ctx, env); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if ts.asked != 1 {
		t.Fatalf("the customers service was asked %d times, want once", ts.asked)
	}
	if w := ts.wallet(t, storeID); w.PendingBalance != 3000 || w.TotalOrders != 2 {
		t.Fatalf("wallet %+v", w)
	}
	if _, err := ts.prepare(context.Background(), envs[:1]); err != nil || ts.asked != 1 {
		t.Fatalf("a batch without deliveries asked the customers service: %v, %d calls", err, ts.asked)
	}
}

// TestReconcileReportsUnconfirmedEarnings: an earning whose order the
// customers service does not know, knows as not delivered, of another store
// or of other earnings is listed and makes the wallet inconsistent, though
// the ledger's sums agree with the balances. (Such earnings cannot be made
// through the consumer any more: the ledger entries are written directly, as
// an earning credited before the check, or a forged one, would be.)
func TestReconcileReportsUnconfirmedEarnings(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	good := ts.delivered(ids.New("orders"), storeID, 1000)
	ts.deliver(t, customers.EventOrderStatusChanged, good)
	ts.reconciled(t, storeID)
	ctx := context.Background()
	unknown, cancelled, otherStore, inflated := ids.New("orders"), event(ids.New("orders"), storeID, 2000), event(ids.New("orders"), ids.New("stores"), 3000), event(ids.New("orders"), storeID, 400)
	ts.setOrder(cancelled, customers.StatusCancelled)
	ts.setOrder(otherStore, customers.StatusDelivered)
	ts.setOrder(inflated, customers.StatusDelivered)
	// The earnings as a forged event credited them before the check: with
	// the wallet's balances moved in step, so the sums agree.
	for _, c := range []struct {
		orderID string
		amount  money.Fils
	}{{unknown, 100_000_000}, {cancelled.OrderID, 2000}, {otherStore.OrderID, 3000}, {inflated.OrderID, 400_000}} {
		err := ts.db.Tx(ctx, func(ctx context.Context) error {
			ev := event(c.orderID, storeID, 0)
			ev.StoreEarnings = c.amount
			return ts.creditEarnings(ctx, ev) // in the transaction, as the consumer does (onEvent)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	r, err := ts.reconcileWallet(ctx, &reconcileArgs{StoreID: storeID})
	if err != nil {
		t.Fatal(err)
	}
	if r.Consistent {
		t.Fatalf("consistent with unconfirmed earnings: %+v", r)
	}
	reasons := map[string]string{}
	for _, u := range r.UnconfirmedEarnings {
		reasons[u.OrderID] = u.Reason
	}
	want := map[string]string{unknown: reasonUnknownOrder, cancelled.OrderID: reasonNotDelivered, otherStore.OrderID: reasonOtherStore, inflated.OrderID: reasonAmountDiffers}
	if len(reasons) != len(want) {
		t.Fatalf("unconfirmed earnings %+v, want %v", r.UnconfirmedEarnings, want)
	}
	for id, reason := range want {
		if reasons[id] != reason {
			t.Fatalf("order %s: %q, want %q (%+v)", id, reasons[id], reason, r.UnconfirmedEarnings)
		}
	}
	if len(r.Inconsistencies) != len(want) {
		t.Fatalf("inconsistencies %q: want one per unconfirmed earning (the sums agree)", r.Inconsistencies)
	}
	ts.ordersDown = true
	if _, err := ts.reconcileWallet(ctx, &reconcileArgs{StoreID: storeID}); apperr.From(err).Code != apperr.Unavailable {
		t.Fatalf("reconciling while the customers service is down: %v, want UNAVAILABLE", err)
	}
}

// reasonCounter is an unconfirmed-earnings counter that keeps its counts.
type reasonCounter struct {
	noop.Int64Counter
	mu sync.Mutex
	n  map[string]int64
}

func (c *reasonCounter) Add(_ context.Context, v int64, opts ...metric.AddOption) {
	attrs := metric.NewAddConfig(opts).Attributes()
	r, _ := attrs.Value("reason")
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n[r.AsString()] += v
}

func (c *reasonCounter) of(reason string) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[reason]
}

// TestUnconfirmedCountedOnceAfterABatchRollback: through the real consumer,
// a forged delivery of a made-up order batched with a malformed event is
// handled twice (in the batch the malformed one rolls back, then alone) and
// committed once: it is counted once.
func TestUnconfirmedCountedOnceAfterABatchRollback(t *testing.T) {
	ts := newTestSvc(t)
	counter := &reasonCounter{n: map[string]int64{}}
	ts.unconfirmed = counter
	ctx, cancel, b, pub := withBroker(t, ts)
	defer cancel()
	forged := envelope(t, customers.EventOrderStatusChanged, event(ids.New("orders"), ids.New("stores"), 100_000_000))
	malformed := events.Envelope{ID: "evt_malformed", Type: customers.EventOrderStatusChanged, Data: json.RawMessage(`[]`)}
	var msgs []events.Message
	for _, env := range []events.Envelope{forged, malformed} {
		raw, err := json.Marshal(env)
		if err != nil {
			t.Fatal(err)
		}
		msgs = append(msgs, events.Message{Topic: customers.TopicOrders, Key: []byte("k"), Value: raw})
	}
	if err := pub.Publish(ctx, msgs...); err != nil {
		t.Fatal(err)
	}
	var runs, commits atomic.Int32
	done := make(chan error, 1)
	go func() {
		done <- events.RunConsumer(ctx, events.ConsumerConfig{
			Brokers: b.Brokers(), GroupID: "payouts-test", Topics: []string{customers.TopicOrders}, DB: ts.db,
			Handler: func(ctx context.Context, env events.Envelope) error {
				if env.ID == forged.ID {
					runs.Add(1)
				}
				return ts.onEvent(ctx, env)
			},
			Prepare: ts.prepare, Publisher: pub, Logger: ts.env.Logger, MaxAttempts: 1, BatchWait: 300 * time.Millisecond,
			AfterCommit:    func() { commits.Add(1) },
			Handles:        consumed,
			SessionTimeout: time.Second, RebalanceTimeout: time.Second, HeartbeatInterval: 100 * time.Millisecond,
		})
	}()
	defer func() { cancel(); <-done }()
	for commits.Load() == 0 {
		if ctx.Err() != nil {
			t.Fatal("the forged event was never committed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := runs.Load(); n != 2 {
		t.Fatalf("the forged event ran %d times, want 2 (the rolled-back batch, then alone)", n)
	}
	if n := counter.of(reasonUnknownOrder); n != 1 {
		t.Fatalf("unknown_order counted %d times for one forged event", n)
	}
}

// TestAskOrdersGivesEachCallItsTime: a wallet's reconciliation asks about
// every earning's order, in as many calls as it takes (the client splits
// them in calls of MaxOrderFacts); each has confirmTimeout, not a share of
// one call's.
func TestAskOrdersGivesEachCallItsTime(t *testing.T) {
	ts := newTestSvc(t)
	var orderIDs []string
	for range 2*customers.MaxOrderFacts + 50 {
		orderIDs = append(orderIDs, ids.New("orders"))
	}
	ts.svc.orderFacts = func(ctx context.Context, ids []string) (map[string]customers.OrderFacts, error) {
		if d, ok := ctx.Deadline(); !ok || time.Until(d) < 3*confirmTimeout-time.Second {
			t.Errorf("%d orders asked within %v, want 3 calls of %v", len(ids), time.Until(d), confirmTimeout)
		}
		out := map[string]customers.OrderFacts{}
		for _, id := range ids {
			out[id] = customers.OrderFacts{OrderID: id}
		}
		return out, nil
	}
	facts, err := ts.askOrders(context.Background(), orderIDs)
	if err != nil || len(facts) != len(orderIDs) {
		t.Fatalf("%d facts, %v", len(facts), err)
	}
}

// withBroker starts an embedded broker with the orders topic and the consumer
// indexes in ts's database, for a test of the real consumer: its context (20 s),
// the broker and a publisher to it, all closed when the test ends.
func withBroker(t *testing.T, ts *testSvc) (context.Context, context.CancelFunc, *events.Broker, *events.KafkaPublisher) {
	t.Helper()
	b, err := events.StartBroker("", customers.TopicOrders)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	if err := ts.db.EnsureIndexes(ctx, events.ConsumerIndexes()...); err != nil {
		t.Fatal(err)
	}
	pub := events.NewKafkaPublisher(b.Brokers(), ts.env.Logger)
	t.Cleanup(func() { pub.Close() })
	return ctx, cancel, b, pub
}
