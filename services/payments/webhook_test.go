package payments

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"marketplace/libs/events/eventstest"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/stripe/stripe-go/v86/webhook"
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	contractevents "marketplace/libs/contracts/events"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/serviceauth"
	"marketplace/libs/store"
	"marketplace/services/payments/domain"
	"marketplace/services/payments/storage"
)

const (
	testSecret      = "whsec_test_secret"
	testPublishable = "pk_test_123"
)

// testServiceKey is the payments service's key in these tests: the fake
// customers and catalog services answer only calls signed with it.
var testServiceKey, _ = serviceauth.GenerateKey()

// fromPayments reports whether assertion is the payments service's, addressed
// to one of the services the fake stands in for.
func fromPayments(assertion string) bool {
	keys := map[string]ed25519.PublicKey{Module.Name: testServiceKey.Public().(ed25519.PublicKey)}
	for _, callee := range []string{customers.Service, catalog.Service} {
		if caller, err := serviceauth.NewVerifier(callee, keys, nil).Verify(assertion); err == nil && caller == Module.Name {
			return true
		}
	}
	return false
}

// opCall is one call the fake customers service received.
type opCall struct {
	kind, path string
	args       json.RawMessage
}

// fakeCustomers serves the two internal operations of the customers service
// over the real /api/mutation and /api/query protocol. By default it keeps one
// order per payment intent, as the real service's unique index does.
type fakeCustomers struct {
	url string

	mu          sync.Mutex
	calls       []opCall
	orders      map[string]string // payment intent -> order id
	createOrder func(args json.RawMessage) (any, error)
	getProfiles func(args json.RawMessage) (any, error)
}

func startFakeCustomers(t *testing.T) *fakeCustomers {
	t.Helper()
	f := &fakeCustomers{orders: map[string]string{}}
	f.createOrder = f.oneOrderPerIntent
	f.getProfiles = func(args json.RawMessage) (any, error) {
		var a struct {
			CustomerIDs []string `json:"customerIds"`
		}
		if err := json.Unmarshal(args, &a); err != nil {
			return nil, apperr.Invalid("customerIds", "bad")
		}
		out := map[string]any{}
		for _, id := range a.CustomerIDs {
			if id == testCustomer {
				out[id] = map[string]string{"_id": id, "userId": "user-of-" + id}
			}
		}
		return out, nil
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	handle := func(kind string) fiber.Handler {
		return func(c *fiber.Ctx) error {
			var req ops.Request
			if err := json.Unmarshal(c.Body(), &req); err != nil {
				return send(c, nil, apperr.New(apperr.InvalidArgument, "bad body"))
			}
			if !fromPayments(c.Get(serviceauth.Header)) {
				return send(c, nil, apperr.New(apperr.NotFound, "unknown operation").WithDetails(map[string]any{"reason": ops.ReasonUnknownOperation}))
			}
			f.mu.Lock()
			f.calls = append(f.calls, opCall{kind: kind, path: req.Path, args: append(json.RawMessage(nil), req.Args...)})
			create, profiles := f.createOrder, f.getProfiles
			f.mu.Unlock()
			switch {
			case kind == "mutation" && req.Path == customers.OpCreateOrder:
				res, err := create(req.Args)
				return send(c, res, err)
			case kind == "query" && req.Path == customers.OpGetProfiles:
				res, err := profiles(req.Args)
				return send(c, res, err)
			case kind == "query" && req.Path == catalog.OpGetStore:
				// The catalog's public query: the one test store exists.
				var a struct {
					StoreID string `json:"storeId"`
				}
				_ = json.Unmarshal(req.Args, &a)
				if a.StoreID == testStore {
					return send(c, map[string]string{"_id": testStore, "name": "Test Store", "ownerUserId": testOwner}, nil)
				}
				return send(c, nil, nil)
			}
			return send(c, nil, apperr.New(apperr.NotFound, "unknown operation").WithDetails(map[string]any{"reason": ops.ReasonUnknownOperation}))
		}
	}
	app.Post("/api/mutation", handle("mutation"))
	app.Post("/api/query", handle("query"))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.ShutdownWithTimeout(2 * time.Second) })
	f.url = "http://" + ln.Addr().String()
	return f
}

func send(c *fiber.Ctx, res any, err error) error {
	if err != nil {
		status, body := apperr.Body(err)
		c.Status(status).Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(body)
	}
	return c.JSON(res)
}

func (f *fakeCustomers) oneOrderPerIntent(args json.RawMessage) (any, error) {
	var a struct {
		PaymentIntentID string `json:"paymentIntentId"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return nil, apperr.Invalid("args", "bad")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := f.orders[a.PaymentIntentID]; ok {
		return map[string]any{"orderId": id, "created": false}, nil
	}
	id := ids.New("orders")
	f.orders[a.PaymentIntentID] = id
	return map[string]any{"orderId": id, "created": true}, nil
}

func (f *fakeCustomers) set(create, profiles func(json.RawMessage) (any, error)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if create != nil {
		f.createOrder = create
	}
	if profiles != nil {
		f.getProfiles = profiles
	}
}

func (f *fakeCustomers) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

func (f *fakeCustomers) callsTo(path string) []opCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []opCall
	for _, c := range f.calls {
		if c.path == path {
			out = append(out, c)
		}
	}
	return out
}

// resolver points "customers" and "catalog" at the fake; an empty URL means not registered.
type resolver struct {
	mu  sync.Mutex
	url string
}

func (r *resolver) Resolve(_ context.Context, service string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if (service != customers.Service && service != catalog.Service) || r.url == "" {
		return "", fmt.Errorf("no instance of %s", service)
	}
	return r.url, nil
}

func (r *resolver) set(url string) { r.mu.Lock(); r.url = url; r.mu.Unlock() }

// harness is the payments module built as service.Run builds it, on an
// in-memory database, with its relay running and its routes on a Fiber app
// exercised through app.Test.
type harness struct {
	app       *fiber.App
	db        *store.DB
	pub       *eventstest.Recorder
	customers *fakeCustomers
	// facts are what the customers service confirms of orders' refunds
	// (svc.orderFacts' stub); consume adds each refund request it runs
	// unless unconfirmed.
	orderFacts  map[string]customers.OrderFacts
	unconfirmed bool
	resolver    *resolver
	secret      string
	svc         *svc
}

func newHarness(t *testing.T, secret string) *harness {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	db, err := store.Open(ctx, store.Options{Name: "payments", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	logger := slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError}))
	h := &harness{db: db, pub: &eventstest.Recorder{}, customers: startFakeCustomers(t), secret: secret}
	h.resolver = &resolver{url: h.customers.url}
	outbox := events.NewOutbox(db, "payments", contractevents.Versions())
	relay := events.NewRelay(db, h.pub, logger)
	relay.PollInterval = 20 * time.Millisecond
	env := service.Env{
		Name: "payments", Logger: logger, DB: db, Outbox: outbox, Relay: relay, Publisher: h.pub,
		Calls:    ops.NewClient(h.resolver, serviceauth.NewSigner(Module.Name, testServiceKey, nil), 2*time.Second),
		Settings: &Settings{WebhookSecret: secret, PublishableKey: testPublishable},
		Now:      time.Now,
	}
	// Module.Build's steps, keeping the service for tests that set its hooks.
	h.svc = newSvc(env)
	h.orderFacts = map[string]customers.OrderFacts{}
	h.svc.orderFacts = func(_ context.Context, orderIDs []string) (map[string]customers.OrderFacts, error) {
		out := map[string]customers.OrderFacts{}
		for _, id := range orderIDs {
			if f, ok := h.orderFacts[id]; ok {
				out[id] = f
			}
		}
		return out, nil
	}
	built := h.svc.built()
	if err := db.EnsureIndexes(ctx, append(built.Indexes, outbox.Indexes()...)...); err != nil {
		t.Fatal(err)
	}
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	h.app = httpserver.New("payments", cfg, logger, nil)
	(&ops.Server{Registry: built.Registry, Routes: built.Routes}).Mount(h.app)
	done := make(chan struct{})
	go func() { defer close(done); _ = relay.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return h
}

// reply is a webhook response.
type reply struct {
	status      int
	contentType string
	retryAfter  string
	body        string
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.body), &m); err != nil {
		t.Fatalf("body %q is not JSON: %v", r.body, err)
	}
	return m
}

func (h *harness) do(t *testing.T, req *http.Request) reply {
	t.Helper()
	resp, err := h.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Retry-After"), string(b)}
}

// deliver posts body with the given signature header ("" = none).
func (h *harness) deliver(t *testing.T, body []byte, header string) reply {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/processor/webhook", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if header != "" {
		req.Header.Set(SignatureHeader, header)
	}
	return h.do(t, req)
}

// signed posts body signed now with the harness's secret.
func (h *harness) signed(t *testing.T, body []byte) reply {
	t.Helper()
	return h.deliver(t, body, sign(body, h.secret, time.Now()))
}

func sign(body []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: body, Secret: secret, Timestamp: at}).Header
}

func (h *harness) processed(t *testing.T) []domain.ProcessedEvent {
	t.Helper()
	var out []domain.ProcessedEvent
	cur, err := h.db.Collection(storage.ProcessedCollection).Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// waitPublished polls the fake publisher until it holds n messages.
func (h *harness) waitPublished(t *testing.T, n int) []events.Message {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		msgs := h.pub.Messages()
		if len(msgs) >= n {
			return msgs
		}
		if time.Now().After(deadline) {
			t.Fatalf("publisher holds %d messages after 5s, want %d", len(msgs), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// settleOutbox gives the relay time to publish whatever is pending and checks
// the outbox is empty, so that a count of published messages is final.
func (h *harness) settleOutbox(t *testing.T) {
	t.Helper()
	time.Sleep(150 * time.Millisecond) // several relay polls
	n, err := h.db.Collection("outbox").CountDocuments(context.Background(), bson.M{})
	if err != nil || n != 0 {
		t.Fatalf("outbox holds %d entries (%v)", n, err)
	}
}

func eventJSON(t *testing.T, id, typ string, object any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{
		"id": id, "object": "event", "type": typ, "api_version": "2024-06-20",
		"created": time.Now().Unix(), "data": map[string]any{"object": object},
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func intent(id string, amount int64, meta map[string]any) map[string]any {
	return map[string]any{"id": id, "object": "payment_intent", "amount": amount, "currency": "aed", "metadata": meta}
}

func succeededEvent(t *testing.T, eventID, intentID string) []byte {
	return eventJSON(t, eventID, typeSucceeded, intent(intentID, 15750, validMetadata()))
}

func wantText(t *testing.T, r reply, status int, body string) {
	t.Helper()
	if r.status != status || r.body != body || !strings.HasPrefix(r.contentType, "text/plain") {
		t.Fatalf("reply = %d %q (%s), want %d %q as text/plain", r.status, r.body, r.contentType, status, body)
	}
}

// wantJSON checks status, content type and the exact set of keys; it returns the body.
func wantJSON(t *testing.T, r reply, status int, keys ...string) map[string]any {
	t.Helper()
	if r.status != status || !strings.HasPrefix(r.contentType, "application/json") {
		t.Fatalf("reply = %d %q (%s), want %d JSON", r.status, r.body, r.contentType, status)
	}
	m := r.json(t)
	if len(m) != len(keys) {
		t.Fatalf("body %s, want exactly the keys %v", r.body, keys)
	}
	for _, k := range keys {
		if _, ok := m[k]; !ok {
			t.Fatalf("body %s lacks %q", r.body, k)
		}
	}
	return m
}

func TestConfig(t *testing.T) {
	h := newHarness(t, testSecret)
	r := h.do(t, httptest.NewRequest(http.MethodGet, "/processor/config", nil))
	m := wantJSON(t, r, 200, "publishableKey")
	if m["publishableKey"] != testPublishable {
		t.Fatalf("config = %s", r.body)
	}
}

func TestSignatureIsRequired(t *testing.T) {
	h := newHarness(t, testSecret)
	body := succeededEvent(t, "evt_sig", "pi_sig")
	now := time.Now()
	good := sign(body, testSecret, now)
	ts, goodV1, _ := strings.Cut(good, ",")
	_, otherV1, _ := strings.Cut(sign(body, "whsec_other", now), ",")
	cases := []struct {
		name, header string
		body         []byte
		want         string
	}{
		{"missing", "", body, "missing processor-signature header"},
		{"blank", "  ", body, "missing processor-signature header"},
		{"other secret", sign(body, "whsec_other", now), body, "no valid signature"},
		{"stale", sign(body, testSecret, now.Add(-301*time.Second)), body, "older than the 300 s tolerance"},
		{"future", sign(body, testSecret, now.Add(301*time.Second)), body, "more than 300 s in the future"},
		{"far future", sign(body, testSecret, now.Add(30*24*time.Hour)), body, "more than 300 s in the future"},
		{"future behind a current t=", fmt.Sprintf("t=%d,", now.Unix()) + sign(body, testSecret, now.Add(30*24*time.Hour)), body, "more than 300 s in the future"},
		{"malformed", "v1", body, "malformed"},
		{"no v1", ts, body, "no valid signature"},
		{"body changed after signing", good, append(bytes.Clone(body), ' '), "no valid signature"},
		{"signed other body", sign([]byte(`{}`), testSecret, now), body, "no valid signature"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := h.deliver(t, c.body, c.header)
			m := wantJSON(t, r, 400, "error")
			if !strings.Contains(m["error"].(string), c.want) {
				t.Fatalf("error %q, want it to contain %q", m["error"], c.want)
			}
		})
	}
	if n := h.customers.count(); n != 0 || len(h.processed(t)) != 0 {
		t.Fatalf("refused deliveries did work: %d customers calls, %d events recorded", n, len(h.processed(t)))
	}
	// Nothing was recorded, so the properly signed delivery does the work;
	// several v1 signatures are allowed, one matching is enough; a clock a
	// minute ahead of ours is within the tolerance.
	other := []byte(`{"id":"evt_ahead","type":"charge.updated","data":{"object":{}}}`)
	if r := h.deliver(t, other, sign(other, testSecret, now.Add(time.Minute))); r.status != 200 {
		t.Fatalf("signed a minute ahead = %d %s", r.status, r.body)
	}
	r := h.deliver(t, body, ts+","+otherV1+","+goodV1)
	if r.status != 200 || !strings.HasPrefix(r.body, "Order created: ord_") {
		t.Fatalf("signed delivery = %d %s", r.status, r.body)
	}
}

func TestWithoutSecretEverythingIsRefused(t *testing.T) {
	h := newHarness(t, "")
	body := succeededEvent(t, "evt_nosecret", "pi_nosecret")
	for _, header := range []string{"", sign(body, "", time.Now()), sign(body, "anything", time.Now())} {
		m := wantJSON(t, h.deliver(t, body, header), 400, "error")
		if m["error"] != "webhook secret not configured" {
			t.Fatalf("error = %v", m["error"])
		}
	}
	if h.customers.count() != 0 || len(h.processed(t)) != 0 {
		t.Fatal("a delivery was processed without a secret")
	}
}

func TestMalformedDeliveriesAre400(t *testing.T) {
	h := newHarness(t, testSecret)
	meta := func(key string, v any) map[string]any {
		m := validMetadata()
		if v == nil {
			delete(m, key)
		} else {
			m[key] = v
		}
		return m
	}
	badAmount := intent("pi_x", 100, validMetadata())
	badAmount["amount"] = 1.5
	stringAmount := intent("pi_x", 100, validMetadata())
	stringAmount["amount"] = "1"
	cases := []struct {
		name string
		body []byte
		want string
	}{
		{"not JSON", []byte(`{"id":`), "not a processor event"},
		{"no id", []byte(`{"type":"payment_intent.succeeded","data":{"object":{}}}`), "id"},
		{"no type", []byte(`{"id":"evt_1","data":{"object":{}}}`), "type"},
		{"object not an object", eventJSON(t, "evt_1", typeSucceeded, "pi_1"), "data.object"},
		{"intent without id", eventJSON(t, "evt_1", typeSucceeded, map[string]any{"amount": 100}), "data.object.id"},
		{"fractional amount", eventJSON(t, "evt_1", typeSucceeded, badAmount), "amount"},
		{"amount a JSON string", eventJSON(t, "evt_1", typeSucceeded, stringAmount), "amount"},
		{"customerId missing", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("customerId", nil))), "metadata.customerId"},
		{"customerId malformed", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("customerId", "cus_1"))), "metadata.customerId"},
		{"storeId malformed", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("storeId", "x"))), "metadata.storeId"},
		{"address not JSON", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("deliveryAddress", "{"))), "metadata.deliveryAddress"},
		{"address without phone", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("deliveryAddress", `{"fullAddress":"a","city":"b","area":"c"}`))), "phoneNumber"},
		{"deliveryType missing", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("deliveryType", nil))), "metadata.deliveryType"},
		{"deliveryFee three decimals", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("deliveryFee", "1.234"))), "metadata.deliveryFee"},
		{"deliveryFee negative", eventJSON(t, "evt_1", typeSucceeded, intent("pi_x", 100, meta("deliveryFee", "-5"))), "metadata.deliveryFee"},
		{"failed without customer", eventJSON(t, "evt_2", typeFailed, intent("pi_x", 100, meta("customerId", nil))), "metadata.customerId"},
		{"failed with bad store", eventJSON(t, "evt_2", typeFailed, intent("pi_x", 100, meta("storeId", "sto_1"))), "metadata.storeId"},
		{"canceled without intent id", eventJSON(t, "evt_3", typeCanceled, map[string]any{}), "data.object.id"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := wantJSON(t, h.signed(t, c.body), 400, "error")
			if !strings.Contains(m["error"].(string), c.want) {
				t.Fatalf("error %q, want it to name %q", m["error"], c.want)
			}
		})
	}
	if h.customers.count() != 0 || len(h.processed(t)) != 0 {
		t.Fatalf("malformed deliveries did work: %d customers calls, %d recorded", h.customers.count(), len(h.processed(t)))
	}
	h.settleOutbox(t)
	if n := len(h.pub.Messages()); n != 0 {
		t.Fatalf("%d events published", n)
	}
}

func TestSucceededCreatesOneOrder(t *testing.T) {
	h := newHarness(t, testSecret)
	body := succeededEvent(t, "evt_ok", "pi_ok")
	r := h.signed(t, body)
	if r.status != 200 || !strings.HasPrefix(r.contentType, "text/plain") || !strings.HasPrefix(r.body, "Order created: ") {
		t.Fatalf("reply = %d %q (%s)", r.status, r.body, r.contentType)
	}
	orderID := strings.TrimPrefix(r.body, "Order created: ")
	if !ids.Valid("orders", orderID) {
		t.Fatalf("order id %q", orderID)
	}

	calls := h.customers.callsTo(customers.OpCreateOrder)
	if len(calls) != 1 || calls[0].kind != "mutation" {
		t.Fatalf("calls = %+v", calls)
	}
	var args map[string]any
	if err := json.Unmarshal(calls[0].args, &args); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"customerId":      testCustomer,
		"storeId":         testStore,
		"paymentIntentId": "pi_ok",
		"deliveryAddress": map[string]any{"fullAddress": "Villa 12, Street 5", "city": "Dubai", "area": "Jumeirah", "phoneNumber": "+971501234567"},
		"deliveryType":    "standard",
		"deliveryFee":     10.0,  // a number, from "10.00"
		"amountPaid":      157.5, // 15750 fils
		"currency":        "aed",
	}
	if fmt.Sprint(args) != fmt.Sprint(want) {
		t.Fatalf("createOrderFromCart args = %s\nwant %v", calls[0].args, want)
	}

	rec := h.processed(t)
	if len(rec) != 1 || rec[0].ID != "evt_ok" || rec[0].OrderID != orderID || rec[0].PaymentIntentID != "pi_ok" || rec[0].Type != typeSucceeded {
		t.Fatalf("recorded = %+v", rec)
	}

	// A redelivery is answered from the record: customers is not called again.
	wantText(t, h.signed(t, body), 200, "Order already processed")
	if n := len(h.customers.callsTo(customers.OpCreateOrder)); n != 1 {
		t.Fatalf("customers called %d times", n)
	}

	// Another event of the same payment intent: the customers service answers
	// created=false, which is not an error.
	wantText(t, h.signed(t, succeededEvent(t, "evt_ok_again", "pi_ok")), 200, "Order already processed")
	if n := len(h.customers.callsTo(customers.OpCreateOrder)); n != 2 {
		t.Fatalf("customers called %d times", n)
	}
	if rec := h.processed(t); len(rec) != 2 || rec[1].OrderID != orderID {
		t.Fatalf("recorded = %+v", rec)
	}
}

func TestConcurrentIdenticalDeliveries(t *testing.T) {
	h := newHarness(t, testSecret)
	body := succeededEvent(t, "evt_race", "pi_race")
	header := sign(body, testSecret, time.Now())
	const n = 20
	replies := make([]reply, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { replies[i] = h.deliver(t, body, header) })
	}
	wg.Wait()
	created := 0
	for _, r := range replies {
		switch {
		case r.status == 200 && strings.HasPrefix(r.body, "Order created: "):
			created++
		case r.status == 200 && r.body == "Order already processed":
		default:
			t.Errorf("reply = %d %q", r.status, r.body)
		}
	}
	h.customers.mu.Lock()
	orders := len(h.customers.orders)
	h.customers.mu.Unlock()
	if created != 1 || orders != 1 {
		t.Fatalf("%d replies said created, %d orders exist; want 1 and 1", created, orders)
	}
	if rec := h.processed(t); len(rec) != 1 {
		t.Fatalf("recorded %d events", len(rec))
	}
}

func TestCustomersFailures(t *testing.T) {
	fail := func(err error) func(json.RawMessage) (any, error) {
		return func(json.RawMessage) (any, error) { return nil, err }
	}
	cases := []struct {
		name    string
		prepare func(h *harness)
		status  int
		keys    []string
	}{
		{"unavailable", func(h *harness) { h.customers.set(fail(apperr.New(apperr.Unavailable, "database down")), nil) }, 503, []string{"error", "retryAfter"}},
		{"not registered", func(h *harness) { h.resolver.set("") }, 503, []string{"error", "retryAfter"}},
		{"unreachable", func(h *harness) { h.resolver.set("http://127.0.0.1:1") }, 503, []string{"error", "retryAfter"}},
		{"platform not configured yet", func(h *harness) {
			h.customers.set(fail(apperr.New(apperr.FailedPrecondition, "there is no active platform configuration")), nil)
		}, 500, []string{"error", "eventId"}},
		{"internal", func(h *harness) { h.customers.set(fail(apperr.New(apperr.Internal, "internal error")), nil) }, 500, []string{"error", "eventId"}},
		{"customer missing", func(h *harness) { h.customers.set(fail(apperr.New(apperr.NotFound, "customer does not exist")), nil) }, 400, []string{"error"}},
		{"invalid argument", func(h *harness) { h.customers.set(fail(apperr.Invalid("deliveryType", "unknown")), nil) }, 400, []string{"error"}},
		{"garbage answer", func(h *harness) {
			h.customers.set(func(json.RawMessage) (any, error) { return "not an object", nil }, nil)
		}, 500, []string{"error", "eventId"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, testSecret)
			c.prepare(h)
			body := succeededEvent(t, "evt_f", "pi_f")
			r := h.signed(t, body)
			m := wantJSON(t, r, c.status, c.keys...)
			if c.status == 503 && (m["retryAfter"] != float64(RetryAfterSeconds) || r.retryAfter != "5") {
				t.Fatalf("503 = %s, Retry-After %q", r.body, r.retryAfter)
			}
			if c.status == 500 && m["eventId"] != "evt_f" {
				t.Fatalf("500 = %s", r.body)
			}
			if len(h.processed(t)) != 0 {
				t.Fatal("a failed delivery was recorded")
			}
			// The processor's retry, once the dependency is back, does the work.
			h.resolver.set(h.customers.url)
			h.customers.set(h.customers.oneOrderPerIntent, nil)
			if r := h.signed(t, body); r.status != 200 || !strings.HasPrefix(r.body, "Order created: ") {
				t.Fatalf("retry = %d %s", r.status, r.body)
			}
		})
	}
}

func TestPaymentFailedPublishesOnce(t *testing.T) {
	h := newHarness(t, testSecret)
	obj := intent("pi_declined", 4250, validMetadata())
	obj["last_payment_error"] = map[string]any{"message": "Your card was declined.", "code": "card_declined"}
	body := eventJSON(t, "evt_failed", typeFailed, obj)

	wantText(t, h.signed(t, body), 200, "Payment failure recorded")
	calls := h.customers.callsTo(customers.OpGetProfiles)
	if len(calls) != 1 || calls[0].kind != "query" || string(calls[0].args) != `{"customerIds":["`+testCustomer+`"]}` {
		t.Fatalf("getProfiles calls = %+v", calls)
	}
	if n := len(h.customers.callsTo(customers.OpCreateOrder)); n != 0 {
		t.Fatalf("createOrderFromCart called %d times", n)
	}
	msgs := h.waitPublished(t, 1)
	env, err := events.Decode(msgs[0].Value)
	if err != nil {
		t.Fatal(err)
	}
	var data PaymentFailed
	if err := json.Unmarshal(env.Data, &data); err != nil {
		t.Fatal(err)
	}
	want := PaymentFailed{
		PaymentIntentID: "pi_declined", CustomerID: testCustomer, CustomerUserID: "user-of-" + testCustomer,
		StoreID: testStore, Amount: 4250, Currency: "aed", FailureMessage: "Your card was declined.",
	}
	if msgs[0].Topic != Topic || string(msgs[0].Key) != "pi_declined" || env.Type != EventPaymentFailed ||
		env.Source != "payments" || env.Subject != "pi_declined" || data != want {
		t.Fatalf("published topic %q key %q envelope %+v data %+v", msgs[0].Topic, msgs[0].Key, env, data)
	}

	// A redelivery: answered from the record, no second lookup, no second event.
	wantText(t, h.signed(t, body), 200, "Event already processed")
	if n := len(h.customers.callsTo(customers.OpGetProfiles)); n != 1 {
		t.Fatalf("getProfiles called %d times", n)
	}

	// Concurrent copies of another failed payment: exactly one more event.
	body2 := eventJSON(t, "evt_failed_2", typeFailed, intent("pi_declined_2", 100, validMetadata()))
	header2 := sign(body2, testSecret, time.Now())
	var wg sync.WaitGroup
	replies := make([]reply, 10)
	for i := range replies {
		wg.Go(func() { replies[i] = h.deliver(t, body2, header2) })
	}
	wg.Wait()
	recorded := 0
	for _, r := range replies {
		switch {
		case r.status == 200 && r.body == "Payment failure recorded":
			recorded++
		case r.status == 200 && r.body == "Event already processed":
		default:
			t.Errorf("reply = %d %q", r.status, r.body)
		}
	}
	if recorded != 1 {
		t.Fatalf("%d copies recorded the failure", recorded)
	}
	h.settleOutbox(t)
	msgs = h.pub.Messages()
	if len(msgs) != 2 {
		t.Fatalf("published %d events, want 2", len(msgs))
	}
	env, _ = events.Decode(msgs[1].Value)
	data = PaymentFailed{}
	_ = json.Unmarshal(env.Data, &data)
	if data.CustomerID != testCustomer || data.CustomerUserID != "user-of-"+testCustomer || data.StoreID != testStore || data.Amount != 100 || data.FailureMessage != "" {
		t.Fatalf("second event data = %+v", data)
	}
}

// A failed payment is checked as a successful one is: a customer or store that
// does not exist, or metadata that could not have become an order, is refused
// (400, nothing recorded, nothing published) instead of a notification for nobody.
func TestPaymentFailedChecksItsMetadata(t *testing.T) {
	h := newHarness(t, testSecret)
	with := func(key string, v any) map[string]any {
		m := validMetadata()
		if v == nil {
			delete(m, key)
		} else {
			m[key] = v
		}
		return m
	}
	cases := map[string]struct {
		meta map[string]any
		want string
	}{
		"unknown customer": {with("customerId", ids.New("customers")), "does not exist"},
		"unknown store":    {with("storeId", ids.New("stores")), "does not exist"},
		"no customer":      {with("customerId", nil), "metadata.customerId"},
		"no store":         {with("storeId", nil), "metadata.storeId"},
		"bad address":      {with("deliveryAddress", "{}"), "metadata.deliveryAddress"},
		"bad fee":          {with("deliveryFee", "1.001"), "metadata.deliveryFee"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := h.signed(t, eventJSON(t, "evt_pf_"+strings.ReplaceAll(name, " ", "_"), typeFailed, intent("pi_pf_"+name, 100, c.meta)))
			m := wantJSON(t, r, 400, "error")
			if !strings.Contains(m["error"].(string), c.want) {
				t.Fatalf("error %q, want %q", m["error"], c.want)
			}
		})
	}
	h.settleOutbox(t)
	if len(h.processed(t)) != 0 || len(h.pub.Messages()) != 0 {
		t.Fatalf("refused failures left %d records and %d events", len(h.processed(t)), len(h.pub.Messages()))
	}
}

func TestPaymentFailedWhileCustomersIsDown(t *testing.T) {
	h := newHarness(t, testSecret)
	h.customers.set(nil, func(json.RawMessage) (any, error) { return nil, apperr.New(apperr.Unavailable, "down") })
	body := eventJSON(t, "evt_pf", typeFailed, intent("pi_pf", 100, validMetadata()))
	r := h.signed(t, body)
	wantJSON(t, r, 503, "error", "retryAfter")
	if r.retryAfter != "5" || len(h.processed(t)) != 0 {
		t.Fatalf("Retry-After %q, %d recorded", r.retryAfter, len(h.processed(t)))
	}
	h.settleOutbox(t)
	if len(h.pub.Messages()) != 0 {
		t.Fatal("an event was published for a refused delivery")
	}
}

func TestCanceledKeepsTheCart(t *testing.T) {
	h := newHarness(t, testSecret)
	body := eventJSON(t, "evt_cancel", typeCanceled, intent("pi_cancel", 100, validMetadata()))
	wantText(t, h.signed(t, body), 200, "Payment cancellation recorded")
	if rec := h.processed(t); len(rec) != 1 || rec[0].ID != "evt_cancel" || rec[0].PaymentIntentID != "pi_cancel" {
		t.Fatalf("recorded = %+v", rec)
	}
	wantText(t, h.signed(t, body), 200, "Event already processed")
	h.settleOutbox(t)
	if h.customers.count() != 0 || len(h.pub.Messages()) != 0 {
		t.Fatalf("cancellation did work: %d customers calls, %d events", h.customers.count(), len(h.pub.Messages()))
	}
}

func TestUnhandledEventTypes(t *testing.T) {
	h := newHarness(t, testSecret)
	for _, body := range [][]byte{
		eventJSON(t, "evt_u1", "charge.captured", map[string]any{"id": "ch_1", "amount": 100}),
		eventJSON(t, "evt_u2", "customer.created", "not even an object"),
		[]byte(`{"id":"evt_u3","type":"payment_intent.created"}`),
	} {
		m := wantJSON(t, h.signed(t, body), 200, "message", "eventType")
		var ev event
		_ = json.Unmarshal(body, &ev)
		if m["message"] != "Unhandled event type" || m["eventType"] != ev.Type {
			t.Fatalf("body = %v", m)
		}
	}
	if len(h.processed(t)) != 0 || h.customers.count() != 0 {
		t.Fatal("an unhandled event did work")
	}
}

// The service's operations: checkout's payment intent for customers, the
// dispute lists for administrators and store owners, and the internal ones
// for the payouts service; the processor reaches it only through its routes.
func TestOperations(t *testing.T) {
	h := newHarness(t, testSecret)
	r := h.do(t, httptest.NewRequest(http.MethodGet, "/ops", nil))
	var got struct {
		Service    string           `json:"service"`
		Operations []ops.Descriptor `json:"operations"`
	}
	if err := json.Unmarshal([]byte(r.body), &got); err != nil || got.Service != "payments" {
		t.Fatalf("GET /ops = %d %s", r.status, r.body)
	}
	want := map[string]struct {
		access ops.Access
		kind   ops.Kind
	}{
		"customers.checkout.createPaymentIntent": {ops.Customer, ops.Mutation},
		"admins.disputes.listDisputes":           {ops.Admin, ops.Query},
		"stores.disputes.listDisputes":           {ops.StoreOwnerOrAdmin, ops.Query},
		"payments.money.getFacts":                {ops.Internal, ops.Query},
		"payments.transfers.createTransfer":      {ops.Internal, ops.Mutation},
		"payments.transfers.voidTransfer":        {ops.Internal, ops.Mutation},
	}
	if len(got.Operations) != len(want) {
		t.Fatalf("operations %+v, want %v", got.Operations, want)
	}
	for _, op := range got.Operations {
		if w, ok := want[op.Path]; !ok || op.Access != w.access || op.Kind != w.kind {
			t.Errorf("operation %s %s %s, want %+v", op.Path, op.Access, op.Kind, w)
		}
	}
}

// The module as service.Run serves it, over a real socket: the routes are
// mounted, the raw body reaches the signature check intact, and the event's
// work is done.
func TestModuleUnderServiceRun(t *testing.T) {
	fake := startFakeCustomers(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	cfg.ShutdownTimeout = 2 * time.Second
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- service.Run(ctx, service.Options{
			Module: Module, Listener: ln, DB: store.Options{Memory: true}, Publisher: &eventstest.Recorder{},
			Resolver: &resolver{url: fake.url}, Credentials: serviceauth.Credentials{Key: testServiceKey},
			Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})),
			HTTP:   cfg, Ready: ready,
			Getenv: func(k string) string {
				return map[string]string{EnvWebhookSecret: testSecret, EnvPublishableKey: testPublishable}[k]
			},
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v", err)
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run returned before ready: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("not ready")
	}
	base := "http://" + ln.Addr().String()
	client := &http.Client{Timeout: 5 * time.Second}

	resp, err := client.Get(base + "/processor/config")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != `{"publishableKey":"pk_test_123"}` {
		t.Fatalf("config = %d %s", resp.StatusCode, b)
	}

	// Indented JSON: any re-encoding of the body would break the signature.
	body, _ := json.MarshalIndent(json.RawMessage(succeededEvent(t, "evt_run", "pi_run")), "", "  ")
	for i, want := range []string{"Order created: ord_", "Order already processed"} {
		req, _ := http.NewRequest(http.MethodPost, base+"/processor/webhook", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(SignatureHeader, sign(body, testSecret, time.Now()))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), want) {
			t.Fatalf("delivery %d = %d %s, want %q", i, resp.StatusCode, b, want)
		}
	}
	if n := len(fake.callsTo(customers.OpCreateOrder)); n != 1 {
		t.Fatalf("customers called %d times", n)
	}

	// A body one byte over the server's limit: 413 in the webhook's own
	// shape, as the gateway answers it (the contract's 400 is for operations).
	// The server answers from the declared length and closes: the client,
	// still writing the body, may see its write cut (a broken pipe or a
	// reset) before it reads the answer; it asks again, as a sender would.
	big := bytes.Repeat([]byte(" "), cfg.BodyLimit+1)
	for attempt := 1; ; attempt++ {
		req, _ := http.NewRequest(http.MethodPost, base+"/processor/webhook", bytes.NewReader(big))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(SignatureHeader, sign(big, testSecret, time.Now()))
		resp, err = client.Do(req)
		if err == nil {
			break
		}
		if attempt == 5 || !(errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)) {
			t.Fatal(err)
		}
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 413 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") || string(b) != `{"error":"request body too large"}` {
		t.Fatalf("a body over the limit = %d %s (%s)", resp.StatusCode, b, resp.Header.Get("Content-Type"))
	}
}
