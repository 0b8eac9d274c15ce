package notifications

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"marketplace/libs/serviceauth"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/page"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/notifications/domain"
)

const waitFor = 10 * time.Second

var secret = []byte("notifications-test-dev-secret-0123456789")

type harness struct {
	t      *testing.T
	url    string
	pub    *events.KafkaPublisher
	broker *events.Broker
	http   *http.Client
}

// startService runs the module with service.Run on an in-memory store, an
// embedded broker and a loopback listener, until the test ends.
// testServiceKey proves the service's calls (to the catalog: listForOrder's
// store owner); these tests make none.
var testServiceKey, _ = serviceauth.GenerateKey()

func startService(t *testing.T) *harness {
	t.Helper()
	broker, err := events.StartBroker("", Topics...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(broker.Close)
	verifier, err := auth.NewHS256(secret, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	cfg.ShutdownTimeout = 3 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan struct{}), make(chan error, 1)
	go func() {
		done <- service.Run(ctx, service.Options{
			Module: Module, Listener: ln, DB: store.Options{Memory: true}, Brokers: broker.Brokers(), Verifier: verifier,
			Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelError})),
			HTTP:   cfg, Ready: ready, Credentials: serviceauth.Credentials{Key: testServiceKey},
		})
	}()
	pub := events.NewKafkaPublisher(broker.Brokers(), nil)
	// Cleanups run last-in first-out: the service stops before the broker.
	t.Cleanup(func() {
		pub.Close()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run = %v", err)
			}
		case <-time.After(waitFor):
			t.Error("Run did not return after cancel")
		}
	})
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run returned before ready: %v", err)
	case <-time.After(waitFor):
		t.Fatal("service not ready in time")
	}
	return &harness{t: t, url: "http://" + ln.Addr().String(), pub: pub, broker: broker, http: &http.Client{Timeout: 5 * time.Second}}
}

func (h *harness) token(sub string, roles ...string) string {
	tok, err := auth.Mint(secret, sub, roles, time.Hour, auth.Options{})
	if err != nil {
		h.t.Fatal(err)
	}
	return tok
}

// publish puts an envelope on a topic, keyed by its subject as the relay does.
func (h *harness) publish(topic string, env events.Envelope) {
	h.t.Helper()
	b, err := json.Marshal(env)
	if err != nil {
		h.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), waitFor)
	defer cancel()
	if err := h.pub.Publish(ctx, events.Message{Topic: topic, Key: []byte(env.Subject), Value: b}); err != nil {
		h.t.Fatal(err)
	}
}

// call posts an operation; it returns the status and the body.
func (h *harness) call(kind, token, path string, args any) (int, []byte) {
	h.t.Helper()
	body, err := json.Marshal(map[string]any{"path": path, "args": args})
	if err != nil {
		h.t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, h.url+"/api/"+kind, bytes.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return resp.StatusCode, raw
}

func (h *harness) list(token string, numItems int, cursor *string, unreadOnly bool) page.Result[Notification] {
	h.t.Helper()
	args := map[string]any{"paginationOpts": map[string]any{"numItems": numItems, "cursor": cursor}}
	if unreadOnly {
		args["unreadOnly"] = true
	}
	status, raw := h.call("query", token, "notifications.inbox.list", args)
	if status != 200 {
		h.t.Fatalf("list = %d %s", status, raw)
	}
	var res page.Result[Notification]
	if err := json.Unmarshal(raw, &res); err != nil {
		h.t.Fatalf("list: %v: %s", err, raw)
	}
	return res
}

// all reads every page of the caller's inbox.
func (h *harness) all(token string) []Notification {
	h.t.Helper()
	var out []Notification
	var cursor *string
	for range 100 {
		res := h.list(token, 100, cursor, false)
		out = append(out, res.Page...)
		if res.IsDone {
			return out
		}
		cursor = &res.ContinueCursor
	}
	h.t.Fatal("inbox never done")
	return nil
}

// waitInbox polls the caller's inbox until it holds a notification of typ.
func (h *harness) waitInbox(token, typ string) []Notification {
	h.t.Helper()
	deadline := time.Now().Add(waitFor)
	for {
		items := h.all(token)
		if slices.ContainsFunc(items, func(n Notification) bool { return n.Type == typ }) {
			return items
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("no %s notification after %v; inbox %+v", typ, waitFor, items)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func types(items []Notification) []string {
	out := make([]string, len(items))
	for i, n := range items {
		out[i] = n.Type
	}
	slices.Sort(out)
	return out
}

func mustEnvelope(t *testing.T, typ, subject string, data any) events.Envelope {
	t.Helper()
	id, err := events.NewID()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	return events.Envelope{ID: id, Type: typ, Source: "test", Time: time.Now().UTC().Truncate(time.Millisecond), Subject: subject, Data: raw}
}

func code(raw []byte) apperr.Code {
	e, ok := apperr.Parse(0, raw)
	if !ok {
		return ""
	}
	return e.Code
}

func TestServiceEndToEnd(t *testing.T) {
	h := startService(t)
	cust, owner, admin, other := h.token("u_cust"), h.token("u_owner"), h.token("u_admin", auth.RoleAdmin), h.token("u_other")

	orderID, storeID := ids.New("orders"), ids.New("stores")
	created := mustEnvelope(t, domain.EventOrderCreated, orderID, map[string]any{
		"orderId": orderID, "customerId": ids.New("customers"), "customerUserId": "u_cust", "storeId": storeID,
		"storeName": "Falafel House", "storeOwnerUserId": "u_owner", "totalFils": 5750, "subtotalFils": 5000, "deliveryFeeFils": 750,
		"paymentIntentId": "pi_1", "status": "confirmed",
	})
	// On the orders topic, in one partition (one key): the order, its redelivery,
	// an event type nobody handles, malformed data (retried, then dead-lettered),
	// and last the status change. Once the status notification is there, every
	// earlier message of the partition has been settled.
	h.publish("orders", created)
	h.publish("orders", created)
	h.publish("orders", mustEnvelope(t, "order.archived", orderID, map[string]any{"orderId": orderID}))
	malformed := mustEnvelope(t, domain.EventOrderCreated, orderID, map[string]any{"orderId": 42, "customerUserId": "u_cust"})
	h.publish("orders", malformed)
	h.publish("orders", mustEnvelope(t, domain.EventOrderStatusChanged, orderID, map[string]any{
		"orderId": orderID, "customerUserId": "u_cust", "storeId": storeID, "storeName": "Falafel House",
		"storeOwnerUserId": "u_owner", "from": "confirmed", "to": "preparing", "changedBy": "u_owner",
	}))
	// The admin is also a customer with an order of their own.
	adminOrder := ids.New("orders")
	h.publish("orders", mustEnvelope(t, domain.EventOrderStatusChanged, adminOrder, map[string]any{
		"orderId": adminOrder, "customerUserId": "u_admin", "storeName": "Shawarma Spot", "from": "out_for_delivery", "to": "delivered",
	}))
	// Payments: a failure without a customer user (nobody to tell), then one for the customer.
	h.publish("payments", mustEnvelope(t, domain.EventPaymentFailed, "pi_2", map[string]any{"paymentIntentId": "pi_2", "customerUserId": "", "amountFils": 1000}))
	failed := mustEnvelope(t, domain.EventPaymentFailed, "pi_2", map[string]any{
		"paymentIntentId": "pi_2", "customerId": ids.New("customers"), "customerUserId": "u_cust", "storeId": storeID,
		"amountFils": 4200, "currency": "aed", "failureMessage": "Your card was declined.",
	})
	h.publish("payments", failed)
	h.publish("payments", failed)
	flag := mustEnvelope(t, domain.EventReviewFlagRaised, "flg", map[string]any{
		"flagId": ids.New("reviewFlags"), "reviewId": ids.New("storeReviews"), "storeId": storeID, "reason": "fake",
		"description": "Never ordered here", "flaggedByUserId": "u_other",
	})
	h.publish("reviews", flag)
	h.publish("reviews", flag)

	h.waitInbox(cust, domain.TypeOrderStatus)
	custItems := h.waitInbox(cust, domain.TypePaymentFailed)
	adminItems := h.waitInbox(admin, domain.TypeReviewFlagged)
	h.waitInbox(admin, domain.TypeOrderStatus)
	ownerItems := h.waitInbox(owner, domain.TypeNewOrder)
	// Let any stray duplicate land before counting.
	time.Sleep(300 * time.Millisecond)
	custItems, adminItems, ownerItems = h.all(cust), h.all(admin), h.all(owner)

	t.Run("each recipient gets their notifications exactly once", func(t *testing.T) {
		if got := types(custItems); !slices.Equal(got, []string{domain.TypeOrderCreated, domain.TypeOrderStatus, domain.TypePaymentFailed}) {
			t.Errorf("customer inbox %v", got)
		}
		if got := types(ownerItems); !slices.Equal(got, []string{domain.TypeNewOrder}) {
			t.Errorf("owner inbox %v", got)
		}
		// The admin's own delivered order also invites them to review the store.
		if got := types(adminItems); !slices.Equal(got, []string{domain.TypeOrderStatus, domain.TypeReviewFlagged, domain.TypeReviewInvitation}) {
			t.Errorf("admin inbox %v", got)
		}
		if got := h.all(other); len(got) != 0 {
			t.Errorf("other user's inbox %+v", got)
		}
	})

	t.Run("items carry the documented fields", func(t *testing.T) {
		for _, n := range custItems {
			if !ids.Valid("notifications", n.ID) || n.CreationTime == 0 || n.RecipientType != domain.RecipientUser || n.Read || n.ReadAt != nil || n.Title == "" || n.Body == "" {
				t.Errorf("item %+v", n)
			}
			switch n.Type {
			case domain.TypeOrderCreated:
				if n.Data["orderId"] != orderID || n.Data["storeId"] != storeID || n.Priority != domain.PriorityNormal ||
					n.EventTime != created.Time.UnixMilli() || n.Title != "Order confirmed" {
					t.Errorf("order_created %+v", n)
				}
			case domain.TypePaymentFailed:
				if n.Priority != domain.PriorityHigh || n.Data["paymentIntentId"] != "pi_2" || n.EventTime != failed.Time.UnixMilli() {
					t.Errorf("payment_failed %+v", n)
				}
			case domain.TypeOrderStatus:
				if n.Data["status"] != "preparing" || n.Title != "Order being prepared" {
					t.Errorf("order_status %+v", n)
				}
			}
		}
		for _, n := range adminItems {
			if n.Type == domain.TypeReviewFlagged && (n.RecipientType != domain.RecipientAdmin || n.Priority != domain.PriorityHigh || n.EventTime != flag.Time.UnixMilli()) {
				t.Errorf("review_flagged %+v", n)
			}
		}
	})

	t.Run("newest first", func(t *testing.T) {
		for _, items := range [][]Notification{custItems, adminItems} {
			for i := 1; i < len(items); i++ {
				// Creation time, newest first; the id (random) breaks ties.
				a, b := items[i-1], items[i]
				if a.CreationTime < b.CreationTime || a.CreationTime == b.CreationTime && a.ID <= b.ID {
					t.Errorf("out of order: %s then %s", items[i-1].ID, items[i].ID)
				}
			}
		}
	})

	t.Run("the malformed event was dead-lettered", func(t *testing.T) {
		r := kafka.NewReader(kafka.ReaderConfig{
			Brokers: h.broker.Addrs(), GroupID: "test-dlq", GroupTopics: []string{events.DeadLetterTopic(GroupID)},
			StartOffset: kafka.FirstOffset, MaxWait: 50 * time.Millisecond, HeartbeatInterval: 100 * time.Millisecond,
			SessionTimeout: time.Second, RebalanceTimeout: time.Second, JoinGroupBackoff: 100 * time.Millisecond, ReadLagInterval: -1,
		})
		defer r.Close()
		ctx, cancel := context.WithTimeout(context.Background(), waitFor)
		defer cancel()
		msg, err := r.FetchMessage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		env, err := events.Decode(msg.Value)
		if err != nil {
			t.Fatal(err)
		}
		if env.ID != malformed.ID {
			t.Fatalf("dead letter %s, want %s", env.ID, malformed.ID)
		}
	})

	t.Run("a normal user does not see the admin inbox", func(t *testing.T) {
		for _, tok := range []string{cust, owner, other} {
			for _, n := range h.all(tok) {
				if n.RecipientType == domain.RecipientAdmin {
					t.Errorf("non-admin sees %+v", n)
				}
			}
		}
	})

	t.Run("pagination", func(t *testing.T) {
		first := h.list(cust, 2, nil, false)
		if len(first.Page) != 2 || first.IsDone || first.ContinueCursor == "" {
			t.Fatalf("first page %+v", first)
		}
		second := h.list(cust, 2, &first.ContinueCursor, false)
		if len(second.Page) != 1 || !second.IsDone {
			t.Fatalf("second page %+v", second)
		}
		var got []string
		for _, n := range append(first.Page, second.Page...) {
			got = append(got, n.ID)
		}
		var want []string
		for _, n := range custItems {
			want = append(want, n.ID)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("pages %v, want %v", got, want)
		}
		bad := "garbage"
		status, raw := h.call("query", cust, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": bad}})
		if status != 400 || code(raw) != apperr.InvalidArgument {
			t.Fatalf("bad cursor = %d %s", status, raw)
		}
		status, raw = h.call("query", cust, "notifications.inbox.list", map[string]any{})
		if status != 400 || code(raw) != apperr.InvalidArgument {
			t.Fatalf("no paginationOpts = %d %s", status, raw)
		}
	})

	t.Run("authentication is required", func(t *testing.T) {
		status, raw := h.call("query", "", "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 1}})
		if status != 401 || code(raw) != apperr.Unauthenticated {
			t.Fatalf("list without token = %d %s", status, raw)
		}
		status, raw = h.call("mutation", "", "notifications.inbox.markRead", map[string]any{"notificationId": custItems[0].ID})
		if status != 401 || code(raw) != apperr.Unauthenticated {
			t.Fatalf("markRead without token = %d %s", status, raw)
		}
	})

	t.Run("markRead", func(t *testing.T) {
		markRead := func(token, id string) (int, []byte) {
			return h.call("mutation", token, "notifications.inbox.markRead", map[string]any{"notificationId": id})
		}
		byType := func(items []Notification, typ string) Notification {
			i := slices.IndexFunc(items, func(n Notification) bool { return n.Type == typ })
			if i < 0 {
				t.Fatalf("no %s in %+v", typ, items)
			}
			return items[i]
		}
		ownerNote := byType(ownerItems, domain.TypeNewOrder)
		flagNote := byType(adminItems, domain.TypeReviewFlagged)
		custNote := byType(custItems, domain.TypeOrderCreated)
		cases := []struct {
			name, token, id string
			status          int
			code            apperr.Code
		}{
			{"missing", cust, ids.New("notifications"), 404, apperr.NotFound},
			{"malformed id", cust, "ntf_nope", 400, apperr.InvalidArgument},
			{"wrong kind of id", cust, ids.New("orders"), 400, apperr.InvalidArgument},
			{"someone else's", cust, ownerNote.ID, 403, apperr.PermissionDenied},
			{"admin inbox, not an admin", cust, flagNote.ID, 403, apperr.PermissionDenied},
			{"a user's, by an admin", admin, custNote.ID, 403, apperr.PermissionDenied},
		}
		for _, c := range cases {
			status, raw := markRead(c.token, c.id)
			if status != c.status || code(raw) != c.code {
				t.Errorf("%s: %d %s, want %d %s", c.name, status, raw, c.status, c.code)
			}
		}
		if got := h.all(owner); got[0].Read {
			t.Fatal("refused markRead changed something")
		}

		for _, c := range []struct {
			token string
			n     Notification
		}{{owner, ownerNote}, {admin, flagNote}, {cust, custNote}} {
			status, raw := markRead(c.token, c.n.ID)
			if status != 200 || string(raw) != "null" {
				t.Fatalf("markRead %s = %d %s", c.n.Type, status, raw)
			}
			read := byType(h.all(c.token), c.n.Type)
			if !read.Read || read.ReadAt == nil || *read.ReadAt < read.CreationTime {
				t.Fatalf("after markRead %+v", read)
			}
			// Again: still fine, and the first readAt stays.
			time.Sleep(5 * time.Millisecond)
			status, raw = markRead(c.token, c.n.ID)
			if status != 200 || string(raw) != "null" {
				t.Fatalf("markRead again = %d %s", status, raw)
			}
			again := byType(h.all(c.token), c.n.Type)
			if !again.Read || again.ReadAt == nil || *again.ReadAt != *read.ReadAt {
				t.Fatalf("second markRead changed readAt: %+v then %+v", read, again)
			}
		}

		unread := h.list(cust, 10, nil, true)
		if got := types(unread.Page); !slices.Equal(got, []string{domain.TypeOrderStatus, domain.TypePaymentFailed}) || !unread.IsDone {
			t.Fatalf("customer unread %v", got)
		}
		if got := h.list(admin, 10, nil, true); !slices.Equal(types(got.Page), []string{domain.TypeOrderStatus, domain.TypeReviewInvitation}) {
			t.Fatalf("admin unread %v", types(got.Page))
		}
		if got := h.list(owner, 10, nil, true); len(got.Page) != 0 || !got.IsDone {
			t.Fatalf("owner unread %+v", got)
		}
	})
}
