package payouts

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/clocktest"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	contractevents "marketplace/libs/contracts/events"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// testSvc is the service on an in-memory database, with a clock and wallet
// settings of the test's choosing, its handlers called directly.
type testSvc struct {
	*svc
	db       *store.DB
	clock    *clocktest.Clock
	settings *domain.WalletSettings // nil: the configuration service is down
	// orders is the customers service's orders (getOrderFacts), ordersDown
	// makes it fail, asked counts its calls.
	mu         sync.Mutex
	orders     map[string]customers.OrderFacts
	ordersDown bool
	asked      int
	// ordersErr, if set, is the customers service's answer to every call.
	ordersErr error
	// stores is the catalog's stores (getStoreContacts), catalogDown makes
	// it fail, catalogErr is its answer to every call if set.
	stores      map[string]catalog.StoreContact
	catalogDown bool
	catalogErr  error
}

func newTestSvc(t *testing.T) *testSvc {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "payouts", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	if err := db.EnsureIndexes(ctx, append(storage.Indexes(), events.ConsumerIndexes()...)...); err != nil {
		t.Fatal(err)
	}
	c := clocktest.New(time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC))
	ts := &testSvc{db: db, clock: c, settings: &domain.DefaultWalletSettings}
	logger := slog.New(slog.DiscardHandler)
	ts.svc = newSvc(service.Env{DB: db, Outbox: events.NewOutbox(db, "payouts", contractevents.Versions()), Relay: events.NewRelay(db, &eventstest.Recorder{}, logger),
		Logger: logger, Now: c.Now}, time.Minute)
	ts.svc.storeOf = func(context.Context, string) (*catalog.Store, error) { return nil, nil }
	ts.orders = map[string]customers.OrderFacts{}
	ts.stores = map[string]catalog.StoreContact{}
	ts.svc.contacts = func(_ context.Context, storeIDs []string) (map[string]catalog.StoreContact, error) {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		if ts.catalogDown {
			return nil, apperr.New(apperr.Unavailable, "catalog is unavailable")
		}
		if ts.catalogErr != nil {
			return nil, ts.catalogErr
		}
		out := map[string]catalog.StoreContact{}
		for _, id := range storeIDs {
			if c, ok := ts.stores[id]; ok {
				out[id] = c
			}
		}
		return out, nil
	}
	ts.svc.orderFacts = func(_ context.Context, orderIDs []string) (map[string]customers.OrderFacts, error) {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		ts.asked++
		if ts.ordersDown {
			return nil, apperr.New(apperr.Unavailable, "customers is unavailable")
		}
		if ts.ordersErr != nil {
			return nil, ts.ordersErr
		}
		out := map[string]customers.OrderFacts{}
		for _, id := range orderIDs {
			if f, ok := ts.orders[id]; ok {
				out[id] = f
			}
		}
		return out, nil
	}
	ts.svc.settings = func(context.Context) (*domain.WalletSettings, error) {
		if ts.settings == nil {
			return nil, apperr.New(apperr.Unavailable, "platformconfig is unavailable")
		}
		w := *ts.settings
		return &w, nil
	}
	return ts
}

// deliver handles an event in a transaction of its own. A store event's
// store is the catalog's too (what getStoreContacts answers) unless the
// catalog has a newer version of it: the event is a real one.
func (ts *testSvc) deliver(t *testing.T, typ string, data any) {
	t.Helper()
	if d, ok := data.(catalog.StoreEvent); ok {
		ts.setStore(d)
	}
	raw, _ := json.Marshal(data)
	id, _ := events.NewID()
	env := events.Envelope{ID: id, Type: typ, Data: raw}
	if err := ts.db.Tx(context.Background(), func(ctx context.Context) error { return ts.onEvent(ctx, env) }); err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
}

func (ts *testSvc) wallet(t *testing.T, storeID string) domain.Wallet {
	t.Helper()
	w, err := ts.svc.wallet(context.Background(), storeID)
	if err != nil || w == nil {
		t.Fatalf("wallet of %s: %v %v", storeID, w, err)
	}
	return *w
}

func (ts *testSvc) reconciled(t *testing.T, storeID string) {
	t.Helper()
	r, err := ts.reconcileWallet(context.Background(), &reconcileArgs{StoreID: storeID})
	if err != nil || !r.Consistent {
		t.Fatalf("reconciliation: %+v %v", r, err)
	}
}

func (ts *testSvc) count(t *testing.T, coll string, filter bson.M) int64 {
	t.Helper()
	n, err := ts.db.Collection(coll).CountDocuments(context.Background(), filter)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// delivered is the order.status_changed event of an order delivered, with
// the order recorded as delivered in the customers service as the event says.
func (ts *testSvc) delivered(orderID, storeID string, earnings money.Fils) customers.OrderEvent {
	ev := event(orderID, storeID, earnings)
	ts.setOrder(ev, customers.StatusDelivered)
	return ev
}

// setStore records d as the catalog's store, unless the catalog has a newer
// version of it.
func (ts *testSvc) setStore(d catalog.StoreEvent) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if c, ok := ts.stores[d.StoreID]; ok && c.Version > d.EventVersion() {
		return
	}
	ts.stores[d.StoreID] = catalog.StoreContact{StoreID: d.StoreID, Name: d.Name, OwnerUserID: d.OwnerUserID, OwnerName: d.OwnerName,
		OwnerPhone: d.OwnerPhone, Version: d.EventVersion()}
}

// setOrder records in the customers service the order of ev, in status.
func (ts *testSvc) setOrder(ev customers.OrderEvent, status string) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.orders[ev.OrderID] = customers.OrderFacts{OrderID: ev.OrderID, StoreID: ev.StoreID, StoreName: ev.StoreName, StoreOwnerUserID: ev.StoreOwnerUserID,
		Status: status, Total: ev.Total, PlatformCommission: ev.PlatformCommission, StoreEarnings: ev.StoreEarnings}
}

// event is an order.status_changed to delivered, as anyone could publish it.
func event(orderID, storeID string, earnings money.Fils) customers.OrderEvent {
	return customers.OrderEvent{OrderID: orderID, StoreID: storeID, StoreName: "Bakery", StoreOwnerUserID: "owner-1",
		Total: earnings + 635, PlatformCommission: 635, StoreEarnings: earnings, From: customers.StatusOutForDelivery, To: customers.StatusDelivered,
		Status: customers.StatusDelivered}
}

func TestWalletOpensOnceFromStoreCreated(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	created := catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1", OwnerName: "Sara", OwnerPhone: "+971501234567"}
	for range 3 { // redeliveries under fresh event ids (their dedupe records gone)
		ts.deliver(t, catalog.EventStoreCreated, created)
	}
	if n := ts.count(t, storage.WalletsColl, bson.M{"storeId": storeID}); n != 1 {
		t.Fatalf("%d wallets", n)
	}
	w := ts.wallet(t, storeID)
	if w.ID != domain.WalletIDOf(storeID) || w.OwnerName != "Sara" || w.OwnerPhone != "+971501234567" || w.StoreName != "Bakery" ||
		w.AvailableBalance != 0 || w.PendingBalance != 0 || w.TotalOrders != 0 || w.LastPayoutDate != nil {
		t.Fatalf("wallet %+v", w)
	}
}

// An earning that arrives before its store's store.created opens the wallet;
// the event then fills in the owner and changes no balance.
func TestEarningBeforeStoreCreated(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 8070))
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1", OwnerName: "Sara", OwnerPhone: "+971500000000"})
	w := ts.wallet(t, storeID)
	if w.PendingBalance != 8070 || w.TotalOrders != 1 || w.OwnerName != "Sara" {
		t.Fatalf("wallet %+v", w)
	}
	ts.reconciled(t, storeID)
}

// A delivered order credits its store once, however often its event comes,
// even under fresh event ids (the consumer's dedupe records gone): the
// earning's source key is unique. Other status changes credit nothing.
func TestDeliveredOrderCreditsOnce(t *testing.T) {
	ts := newTestSvc(t)
	storeID, orderID := ids.New("stores"), ids.New("orders")
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1"})
	preparing := ts.delivered(orderID, storeID, 8070)
	preparing.To = customers.StatusPreparing
	ts.deliver(t, customers.EventOrderStatusChanged, preparing)
	if w := ts.wallet(t, storeID); w.PendingBalance != 0 || w.TotalOrders != 0 {
		t.Fatalf("credited before delivery: %+v", w)
	}
	for range 3 {
		ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(orderID, storeID, 8070))
	}
	w := ts.wallet(t, storeID)
	if w.PendingBalance != 8070 || w.TotalEarnings != 8070 || w.TotalOrders != 1 || w.AvailableBalance != 0 {
		t.Fatalf("wallet %+v", w)
	}
	if n := ts.count(t, storage.TxColl, bson.M{"type": domain.TxEarning}); n != 1 {
		t.Fatalf("%d earnings", n)
	}
	if n := ts.count(t, "outbox", bson.M{}); n != 1 {
		t.Fatalf("%d events, want one wallet.credited", n)
	}
	ts.reconciled(t, storeID)
}

// Earnings are held pendingBalanceHoldDays from the credit, then released
// once; the release loop's work moves nothing before that.
func TestEarningsReleaseAfterTheHold(t *testing.T) {
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{MinPayout: 10000, MaxPayout: 5000000, ProcessingFee: 200, HoldDays: 3}
	storeID := ids.New("stores")
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 8070))
	ts.clock.Advance(24 * time.Hour)
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 1000))
	ctx := context.Background()
	release := func() (int, money.Fils) {
		t.Helper()
		n, amount, err := ts.releaseDue(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return n, amount
	}
	ts.clock.Advance(2*24*time.Hour - time.Minute) // the first is due in a minute
	if n, _ := release(); n != 0 {
		t.Fatalf("released %d before the hold ended", n)
	}
	ts.clock.Advance(time.Minute)
	if n, amount := release(); n != 1 || amount != 8070 {
		t.Fatalf("released %d (%v), want the first earning", n, amount)
	}
	if n, _ := release(); n != 0 {
		t.Fatalf("released again: %d", n)
	}
	w := ts.wallet(t, storeID)
	if w.AvailableBalance != 8070 || w.PendingBalance != 1000 || w.TotalEarnings != 9070 {
		t.Fatalf("wallet %+v", w)
	}
	ts.reconciled(t, storeID)
	ts.clock.Advance(24 * time.Hour)
	if n, amount := release(); n != 1 || amount != 1000 {
		t.Fatalf("second release %d %v", n, amount)
	}
	if n := ts.count(t, storage.TxColl, bson.M{"type": domain.TxRelease}); n != 2 {
		t.Fatalf("%d release transactions", n)
	}
	ts.reconciled(t, storeID)
}

// With no hold the earning is available at once.
func TestEarningsWithoutHold(t *testing.T) {
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{HoldDays: 0}
	storeID := ids.New("stores")
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 5000))
	if w := ts.wallet(t, storeID); w.AvailableBalance != 5000 || w.PendingBalance != 0 {
		t.Fatalf("wallet %+v", w)
	}
	ts.reconciled(t, storeID)
}

// A configuration service that cannot answer never costs an earning: the
// settings last read hold it, else the platform's defaults.
func TestEarningsWhileTheConfigurationIsDown(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	ts.settings = nil
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 100))
	ts.settings = &domain.WalletSettings{HoldDays: 2}
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 200))
	ts.settings = nil
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 300))
	cur, err := ts.db.Collection(storage.TxColl).Find(context.Background(), bson.M{"type": domain.TxEarning})
	if err != nil {
		t.Fatal(err)
	}
	var es []domain.Transaction
	if err := cur.All(context.Background(), &es); err != nil {
		t.Fatal(err)
	}
	holds := map[money.Fils]int64{}
	for _, e := range es {
		holds[e.Amount] = (e.ReleaseAt - e.CreatedAt) / (24 * 3600 * 1000)
	}
	if holds[100] != 7 || holds[200] != 2 || holds[300] != 2 {
		t.Fatalf("hold days by earning: %v", holds)
	}
}

// A release moves at most what is still pending: an administrator may have
// moved or deducted part of the held earnings already.
func TestReleaseNeverOverdrawsPending(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1"})
	ts.deliver(t, customers.EventOrderStatusChanged, ts.delivered(ids.New("orders"), storeID, 8000))
	ctx := context.Background()
	adjust := func(kind string, amount money.Fils) error {
		_, err := ts.adjustWalletBalance(ctx, &adjustArgs{StoreID: storeID, WalletID: domain.WalletIDOf(storeID), AdjustmentType: kind,
			Amount: amount, Reason: "test", AdminUserID: "admin-1"})
		return err
	}
	if err := adjust(contract.AdjustMovePendingToAvailable, 5000); err != nil {
		t.Fatal(err)
	}
	if err := adjust(contract.AdjustDeductPending, 2000); err != nil {
		t.Fatal(err)
	}
	if err := adjust(contract.AdjustDeductPending, 1001); apperr.From(err).Code != apperr.FailedPrecondition {
		t.Fatalf("deducting more than pending: %v", err)
	}
	ts.reconciled(t, storeID)
	ts.clock.Advance(8 * 24 * time.Hour)
	n, moved, err := ts.releaseDue(ctx)
	if err != nil || n != 1 || moved != 1000 {
		t.Fatalf("release: %d %v %v", n, moved, err)
	}
	w := ts.wallet(t, storeID)
	if w.AvailableBalance != 6000 || w.PendingBalance != 0 {
		t.Fatalf("wallet %+v", w)
	}
	ts.reconciled(t, storeID)
}

// A wallet id must be the store's own.
func TestAdjustmentNeedsTheStoresWallet(t *testing.T) {
	ts := newTestSvc(t)
	a, b := ids.New("stores"), ids.New("stores")
	for _, id := range []string{a, b} {
		ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: id, Name: "S", OwnerUserID: "o"})
	}
	ctx := context.Background()
	_, err := ts.adjustWalletBalance(ctx, &adjustArgs{StoreID: a, WalletID: domain.WalletIDOf(b), AdjustmentType: contract.AdjustAddBalance, Amount: 100, Reason: "x", AdminUserID: "admin-1"})
	var e *apperr.Error
	if !errors.As(err, &e) || e.Code != apperr.InvalidArgument || e.Details["field"] != "walletId" {
		t.Fatalf("another store's wallet: %v", err)
	}
	_, err = ts.adjustWalletBalance(ctx, &adjustArgs{StoreID: a, WalletID: ids.New("storeWallets"), AdjustmentType: contract.AdjustAddBalance, Amount: 100, Reason: "x", AdminUserID: "admin-1"})
	if apperr.From(err).Code != apperr.NotFound {
		t.Fatalf("a missing wallet: %v", err)
	}
	if n := ts.count(t, storage.TxColl, bson.M{}); n != 0 {
		t.Fatalf("%d transactions written by refused adjustments", n)
	}
}
