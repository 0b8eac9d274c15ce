package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/program"
)

// shop is a small world for the order flow: two stores of one owner, a customer
// with items of both in the cart.
type shop struct {
	s                    *st.Sys
	admin, owner, user   string
	storeA, storeB       string
	productA1, productA2 string
	productB             string
	customer             string
}

func newShop(t *testing.T, s *st.Sys) *shop {
	t.Helper()
	sh := &shop{s: s, admin: s.Token("admin-1", "admin"), owner: s.Token("owner-1"), user: s.Token("user-1")}
	initConfig(t, s)
	sh.storeA = newStore(t, s, sh.admin, "Bakery", "owner-1", "", "")
	sh.storeB = newStore(t, s, sh.admin, "Florist", "owner-1", "", "")
	product := func(store, name string, price float64) string {
		return okID(t, s.Mutation(sh.owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": name, "price": price}))
	}
	sh.productA1, sh.productA2 = product(sh.storeA, "Bread", 12.35), product(sh.storeA, "Cake", 40)
	sh.productB = product(sh.storeB, "Roses", 99.99)
	sh.customer = okID(t, s.Mutation(sh.user, "customers.profile.upsertMyProfile", map[string]any{"name": "Noor", "phone": "+971501111111"}))
	sh.fillCart(t)
	return sh
}

func (sh *shop) fillCart(t *testing.T) {
	t.Helper()
	for _, it := range []struct {
		p string
		q int
	}{{sh.productA1, 3}, {sh.productA2, 1}, {sh.productB, 2}} {
		okID(t, sh.s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": it.p, "quantity": it.q}))
	}
}

func (sh *shop) payment(intent string) processor.Payment {
	return processor.Payment{
		IntentID: intent, AmountFils: 8705, CustomerID: sh.customer, StoreID: sh.storeA, // the store's lines and the fee
		Address:      processor.Address{FullAddress: "Villa 7, Street 3", City: "Dubai", Area: "Jumeirah", PhoneNumber: "+971501111111"},
		DeliveryType: "standard", DeliveryFee: "10.00",
	}
}

// deliver posts a signed processor event through the gateway.
func deliver(s *st.Sys, body []byte) st.Result {
	return s.Do("POST", "/processor/webhook", bytes.NewReader(body), map[string]string{
		"processor-signature": processor.Sign(st.WebhookSecret, body, time.Now()), "Content-Type": "application/json",
	})
}

type orderView struct {
	ID              string   `json:"_id"`
	StoreID         string   `json:"storeId"`
	Subtotal        float64  `json:"subtotal"`
	DeliveryFee     float64  `json:"deliveryFee"`
	Total           float64  `json:"total"`
	PlatformComm    *float64 `json:"platformCommission"`
	StoreEarnings   *float64 `json:"storeEarnings"`
	PaymentMethod   string   `json:"paymentMethod"`
	PaymentStatus   string   `json:"paymentStatus"`
	PaymentIntentID string   `json:"paymentIntentId"`
	AmountPaid      *float64 `json:"amountPaid"`
	PaymentReview   *struct {
		Reason         string  `json:"reason"`
		ExpectedAmount float64 `json:"expectedAmount"`
		AmountPaid     float64 `json:"amountPaid"`
		Currency       string  `json:"currency"`
		ResolvedBy     string  `json:"resolvedBy"`
	} `json:"paymentReview"`
	Status          string `json:"status"`
	DeliveryType    string `json:"deliveryType"`
	DeliveryAddress struct {
		FullAddress, City, Area, PhoneNumber string
	} `json:"deliveryAddress"`
	Items []struct {
		ProductID string  `json:"productId"`
		UnitPrice float64 `json:"unitPrice"`
		Quantity  int     `json:"quantity"`
	} `json:"items"`
}

func myOrders(t *testing.T, s *st.Sys, token string) []orderView {
	t.Helper()
	var r struct {
		Page []orderView `json:"page"`
	}
	st.MustOK(t, s.Query(token, "customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 50, "cursor": nil}})).Decode(t, &r)
	return r.Page
}

type notification struct {
	ID       string         `json:"_id"`
	Type     string         `json:"type"`
	Priority string         `json:"priority"`
	Data     map[string]any `json:"data"`
	Read     bool           `json:"read"`
}

func inbox(t *testing.T, s *st.Sys, token string) []notification {
	t.Helper()
	var r struct {
		Page []notification `json:"page"`
	}
	st.MustOK(t, s.Query(token, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}})).Decode(t, &r)
	return r.Page
}

// eventually polls cond for up to 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func count(ns []notification, typ string) int {
	n := 0
	for _, x := range ns {
		if x.Type == typ {
			n++
		}
	}
	return n
}

func TestWebhookCreatesTheOrderOnce(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	body := processor.Event("evt_1", "payment_intent.succeeded", sh.payment("pi_1"))

	// Twenty copies at once: exactly one order.
	results := st.Concurrently(20, func(int) st.Result { return deliver(s, body) })
	created := 0
	for _, r := range results {
		if r.Status != 200 {
			t.Fatalf("delivery answered %d %s", r.Status, r.Body)
		}
		if strings.HasPrefix(string(r.Body), "Order created") {
			created++
		} else if !strings.Contains(string(r.Body), "already processed") {
			t.Fatalf("delivery body %q", r.Body)
		}
	}
	orders := myOrders(t, s, sh.user)
	if created != 1 || len(orders) != 1 {
		t.Fatalf("%d deliveries said created, %d orders exist", created, len(orders))
	}
	o := orders[0]
	// 3 × 12.35 + 40 = 77.05; + 10 delivery = 87.05. The commission terms are not the customer's to see.
	if o.StoreID != sh.storeA || o.Subtotal != 77.05 || o.DeliveryFee != 10 || o.Total != 87.05 || o.PlatformComm != nil ||
		o.StoreEarnings != nil || o.PaymentMethod != "card" || o.PaymentStatus != "paid" || o.PaymentIntentID != "pi_1" ||
		o.Status != "confirmed" || o.DeliveryType != "standard" || o.DeliveryAddress.Area != "Jumeirah" || len(o.Items) != 2 {
		t.Fatalf("order %+v", o)
	}

	t.Run("the commission is frozen on the order", func(t *testing.T) {
		// Basic store: 5% of 87.05 = 4.35 + 2 = 6.35; the store earns 80.70. A later
		// change of the rules does not touch an existing order.
		cfg := okAs[platformConfig](t, s.Query(sh.admin, "admins.platformAdmin.getActivePlatformConfig", nil))
		st.MustOK(t, s.Mutation(sh.admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": cfg.ID, "defaultCommissionRate": 0.2}))
		var got orderView
		st.MustOK(t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_1"})).Decode(t, &got)
		if got.PlatformComm == nil || *got.PlatformComm != 6.35 || got.StoreEarnings == nil || *got.StoreEarnings != 80.7 {
			t.Fatalf("admin view of the order: %+v", got)
		}
		st.MustOK(t, s.Mutation(sh.admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": cfg.ID, "defaultCommissionRate": 0.05}))
	})

	t.Run("only that store's cart lines are removed", func(t *testing.T) {
		var cart struct {
			Items []struct {
				ProductID string `json:"productId"`
				StoreID   string `json:"storeId"`
			} `json:"items"`
			Subtotal float64 `json:"subtotal"`
		}
		st.MustOK(t, s.Query(sh.user, "customers.cart.getMyCart", nil)).Decode(t, &cart)
		if len(cart.Items) != 1 || cart.Items[0].ProductID != sh.productB || cart.Subtotal != 199.98 {
			t.Fatalf("cart after the order: %+v", cart)
		}
	})

	t.Run("a different event for the same payment creates nothing", func(t *testing.T) {
		sh.fillCart(t) // a non-empty cart again: only the payment id may stop a second order
		r := deliver(s, processor.Event("evt_2", "payment_intent.succeeded", sh.payment("pi_1")))
		if r.Status != 200 || !strings.Contains(string(r.Body), "already processed") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if n := len(myOrders(t, s, sh.user)); n != 1 {
			t.Fatalf("%d orders", n)
		}
	})

	t.Run("the customer and the store owner are notified once", func(t *testing.T) {
		eventually(t, "customer notification", func() bool { return count(inbox(t, s, sh.user), "order_created") == 1 })
		eventually(t, "store notification", func() bool { return count(inbox(t, s, sh.owner), "new_order") == 1 })
		time.Sleep(200 * time.Millisecond) // a duplicate would arrive by now
		if c, o := count(inbox(t, s, sh.user), "order_created"), count(inbox(t, s, sh.owner), "new_order"); c != 1 || o != 1 {
			t.Fatalf("customer %d, owner %d notifications", c, o)
		}
	})

	t.Run("getOrderByPaymentIntent is the customer's and administrators'", func(t *testing.T) {
		for _, tok := range []string{sh.user, sh.admin} {
			var got *orderView
			st.MustOK(t, s.Query(tok, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_1"})).Decode(t, &got)
			if got == nil || got.ID != o.ID {
				t.Fatalf("got %+v", got)
			}
		}
		// Another customer's payment is null, as a payment of no order.
		if r := st.MustOK(t, s.Query(s.Token("user-2"), "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_1"})); string(r.Body) != "null" {
			t.Fatalf("another customer's intent: %s", r.Body)
		}
		if r := st.MustOK(t, s.Query(sh.user, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_none"})); string(r.Body) != "null" {
			t.Fatalf("unknown intent: %s", r.Body)
		}
		expectError(t, s.Query("", "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_1"}), "UNAUTHENTICATED")
	})

	t.Run("createOrderFromCart is not reachable through the gateway", func(t *testing.T) {
		args := map[string]any{"customerId": sh.customer, "storeId": sh.storeB, "paymentIntentId": "pi_x",
			"deliveryAddress": map[string]any{"fullAddress": "x", "city": "x", "area": "x", "phoneNumber": "x"}, "deliveryType": "x", "deliveryFee": 0}
		for _, tok := range []string{"", sh.user, sh.admin} {
			expectError(t, s.Mutation(tok, "customers.cartToOrder.createOrderFromCart", args), "NOT_FOUND")
		}
	})

	t.Run("order status moves", func(t *testing.T) {
		move := func(tok, status string) st.Result {
			return s.Mutation(tok, "stores.orders.updateOrderStatus", map[string]any{"orderId": o.ID, "status": status})
		}
		expectError(t, move(sh.user, "preparing"), "PERMISSION_DENIED")
		expectError(t, move(s.Token("owner-2"), "preparing"), "PERMISSION_DENIED")
		expectError(t, move("", "preparing"), "UNAUTHENTICATED")
		expectError(t, move(sh.owner, "delivered"), "FAILED_PRECONDITION") // skipping steps
		expectError(t, move(sh.owner, "pending"), "FAILED_PRECONDITION")   // backwards
		expectError(t, move(sh.owner, "shipped"), "INVALID_ARGUMENT")
		st.MustOK(t, move(sh.owner, "preparing"))
		st.MustOK(t, move(sh.admin, "out_for_delivery"))
		st.MustOK(t, move(sh.owner, "delivered"))
		expectError(t, move(sh.owner, "cancelled"), "FAILED_PRECONDITION") // not after delivery
		expectError(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": missingLike(o.ID), "status": "preparing"}), "NOT_FOUND")
		if got := myOrders(t, s, sh.user)[0].Status; got != "delivered" {
			t.Fatalf("status %s", got)
		}
		eventually(t, "status notifications", func() bool { return count(inbox(t, s, sh.user), "order_status") == 3 })
	})

	t.Run("concurrent moves, cancelling, and paging the orders", func(t *testing.T) {
		// The cart was refilled above: a second payment makes a second order.
		r := deliver(s, processor.Event("evt_3", "payment_intent.succeeded", sh.payment("pi_3")))
		if r.Status != 200 || !strings.HasPrefix(string(r.Body), "Order created") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		second := myOrders(t, s, sh.user)[0]
		if second.PaymentIntentID != "pi_3" {
			t.Fatalf("newest order first: %+v", second)
		}
		ok := st.CountOK(t, st.Concurrently(6, func(int) st.Result {
			return s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": second.ID, "status": "preparing"})
		}), "FAILED_PRECONDITION")
		if ok != 1 {
			t.Fatalf("%d of 6 concurrent identical moves succeeded", ok)
		}
		st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": second.ID, "status": "cancelled"}))
		expectError(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": second.ID, "status": "preparing"}), "FAILED_PRECONDITION")

		var seen []string
		var cursor any
		for pages := 0; pages < 5; pages++ {
			var pg struct {
				Page           []orderView `json:"page"`
				IsDone         bool        `json:"isDone"`
				ContinueCursor string      `json:"continueCursor"`
			}
			st.MustOK(t, s.Query(sh.user, "customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 1, "cursor": cursor}})).Decode(t, &pg)
			for _, o := range pg.Page {
				seen = append(seen, o.PaymentIntentID+":"+o.Status)
			}
			if pg.IsDone {
				break
			}
			cursor = pg.ContinueCursor
		}
		if strings.Join(seen, ",") != "pi_3:cancelled,pi_1:delivered" {
			t.Fatalf("paged orders: %v", seen)
		}
	})
}

func TestWebhookStatuses(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)

	t.Run("signature", func(t *testing.T) {
		body := processor.Event("evt_sig", "payment_intent.succeeded", sh.payment("pi_sig"))
		for name, header := range map[string]string{
			"missing":    "",
			"wrong key":  processor.Sign("whsec_other", body, time.Now()),
			"stale":      processor.Sign(st.WebhookSecret, body, time.Now().Add(-10*time.Minute)),
			"future":     processor.Sign(st.WebhookSecret, body, time.Now().Add(10*time.Minute)),
			"garbage":    "t=1,v1=zz",
			"other body": processor.Sign(st.WebhookSecret, []byte(`{}`), time.Now()),
		} {
			r := s.Do("POST", "/processor/webhook", bytes.NewReader(body), map[string]string{"processor-signature": header})
			if r.Status != 400 || r.Map(t)["error"] == nil {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
			if r.Header.Get("Access-Control-Allow-Origin") != "*" {
				t.Errorf("%s: no CORS headers", name)
			}
		}
		if n := len(myOrders(t, s, sh.user)); n != 0 {
			t.Fatalf("a refused delivery created %d orders", n)
		}
	})

	t.Run("a body over the limit is 413 in the webhook's shape", func(t *testing.T) {
		// One byte over HTTP_BODY_LIMIT's default, signed: refused for its
		// size alone, before the signature is read.
		field, _ := reflect.TypeFor[program.Config]().FieldByName("BodyLimit")
		limit, err := strconv.Atoi(field.Tag.Get("default"))
		if err != nil {
			t.Fatal(err)
		}
		body := processor.Event("evt_big", "payment_intent.succeeded", sh.payment("pi_big"))
		body = append(body, bytes.Repeat([]byte(" "), limit+1-len(body))...)
		r := s.Do("POST", "/processor/webhook", bytes.NewReader(body), map[string]string{
			"processor-signature": processor.Sign(st.WebhookSecret, body, time.Now()), "Content-Type": "application/json"})
		if r.Status != 413 || !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || string(r.Body) != `{"error":"request body too large"}` {
			t.Fatalf("%d bytes: %d %s (%s)", len(body), r.Status, r.Body, r.Header.Get("Content-Type"))
		}
		// The limit itself is not too large (the signature, the other
		// body's, is what refuses these bytes), and the operations keep the
		// contract's 400.
		header := processor.Sign(st.WebhookSecret, body, time.Now())
		body = body[:limit]
		if r := s.Do("POST", "/processor/webhook", bytes.NewReader(body), map[string]string{
			"processor-signature": header, "Content-Type": "application/json"}); r.Status != 400 || !strings.Contains(string(r.Body), "signature") {
			t.Fatalf("%d bytes: %d %s", len(body), r.Status, r.Body)
		}
		st.Expect(t, s.Do("POST", "/api/query", bytes.NewReader(make([]byte, limit+1)), map[string]string{"Content-Type": "application/json"}), "INVALID_ARGUMENT")
		// As the document says.
		var doc struct {
			Paths map[string]map[string]struct {
				Responses map[string]json.RawMessage `json:"responses"`
			} `json:"paths"`
		}
		st.MustOK(t, s.Do("GET", "/api/openapi.json", nil, nil)).Decode(t, &doc)
		if _, ok := doc.Paths["/processor/webhook"]["post"].Responses["413"]; !ok {
			t.Fatal("the OpenAPI document does not list the webhook's 413")
		}
		if n := len(myOrders(t, s, sh.user)); n != 0 {
			t.Fatalf("a refused delivery created %d orders", n)
		}
	})

	t.Run("bad metadata is a 400", func(t *testing.T) {
		for name, mut := range map[string]func(p *processor.Payment){
			"malformed customer":  func(p *processor.Payment) { p.CustomerID = "nope" },
			"no address":          func(p *processor.Payment) { p.Address = processor.Address{} },
			"fee not a number":    func(p *processor.Payment) { p.DeliveryFee = "ten" },
			"fee too precise":     func(p *processor.Payment) { p.DeliveryFee = "1.005" },
			"currency not a code": func(p *processor.Payment) { p.Currency = "dollars" },
		} {
			p := sh.payment("pi_meta_" + strings.ReplaceAll(name, " ", "_"))
			mut(&p)
			r := deliver(s, processor.Event("evt_meta_"+name, "payment_intent.succeeded", p))
			if r.Status != 400 || r.Map(t)["error"] == nil {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
		if n := len(myOrders(t, s, sh.user)); n != 0 {
			t.Fatalf("bad metadata created %d orders", n)
		}
	})

	t.Run("unsupported event types are acknowledged", func(t *testing.T) {
		r := deliver(s, processor.Event("evt_other", "charge.captured", sh.payment("pi_o")))
		m := r.Map(t)
		if r.Status != 200 || m["eventType"] != "charge.captured" || m["message"] == nil {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})

	t.Run("a paid cart with nothing of that store is held for review, not retried", func(t *testing.T) {
		p := sh.payment("pi_empty")
		p.StoreID = newStore(t, s, sh.admin, "Empty", "owner-1", "", "")
		body := processor.Event("evt_empty", "payment_intent.succeeded", p)
		created := 0
		for _, r := range st.Concurrently(10, func(int) st.Result { return deliver(s, body) }) { // one held order for all copies
			switch {
			case r.Status == 200 && strings.HasPrefix(string(r.Body), "Order created: "):
				created++
			case r.Status != 200 || !strings.Contains(string(r.Body), "already processed"):
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		}
		if n := len(myOrders(t, s, sh.user)); created != 1 || n != 1 {
			t.Fatalf("%d copies said created, %d orders exist", created, n)
		}
		o := okAs[orderView](t, s.Query(sh.user, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_empty"}))
		if o.Status != "pending" || o.PaymentStatus != "under_review" || o.PaymentReview == nil || o.PaymentReview.Reason != "cart_empty" || len(o.Items) != 0 {
			t.Fatalf("order %+v", o)
		}
		if cart := myCart(t, s, sh.user, ""); len(cart.Items) != 3 {
			t.Fatalf("the cart lost lines: %+v", cart)
		}
	})

	t.Run("a paid cart before the platform is configured is a 500, and the retry makes the order", func(t *testing.T) {
		bare := st.Start(t)
		body := unconfiguredPayment(t, bare, "evt_noconfig", "pi_noconfig")
		r := deliver(bare, body)
		m := r.Map(t)
		if r.Status != 500 || m["eventId"] != "evt_noconfig" || !strings.Contains(fmt.Sprint(m["error"]), "platform configuration") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		initConfig(t, bare)
		if r := deliver(bare, body); r.Status != 200 || !strings.HasPrefix(string(r.Body), "Order created: ") {
			t.Fatalf("the retry: %d %s", r.Status, r.Body)
		}
	})

	t.Run("a failed payment notifies the customer; a cancelled one keeps the cart", func(t *testing.T) {
		p := sh.payment("pi_fail")
		p.FailMessage = "Your card was declined."
		body := processor.Event("evt_fail", "payment_intent.payment_failed", p)
		for i := 0; i < 2; i++ { // the redelivery notifies nobody twice
			if r := deliver(s, body); r.Status != 200 {
				t.Fatalf("%d %s", r.Status, r.Body)
			}
		}
		eventually(t, "payment failure notification", func() bool { return count(inbox(t, s, sh.user), "payment_failed") == 1 })
		ns := inbox(t, s, sh.user)
		for _, n := range ns {
			if n.Type == "payment_failed" && n.Priority != "high" {
				t.Errorf("priority %s", n.Priority)
			}
		}
		if r := deliver(s, processor.Event("evt_cancel", "payment_intent.canceled", sh.payment("pi_cancel"))); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var cart struct {
			Items []json.RawMessage `json:"items"`
		}
		st.MustOK(t, s.Query(sh.user, "customers.cart.getMyCart", nil)).Decode(t, &cart)
		if len(cart.Items) != 3 {
			t.Fatalf("cart after a cancelled payment has %d lines", len(cart.Items))
		}
		time.Sleep(200 * time.Millisecond)
		if n := count(inbox(t, s, sh.user), "payment_failed"); n != 1 {
			t.Fatalf("%d payment failure notifications", n)
		}
	})

	t.Run("processor config", func(t *testing.T) {
		r := s.Do("GET", "/processor/config", nil, nil)
		if r.Status != 200 || r.Map(t)["publishableKey"] != st.PublishableKey {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})
}

// unconfiguredPayment prepares, on a system without a platform configuration,
// a customer whose cart holds a store's product, and returns a
// payment_intent.succeeded of that cart: its order cannot be priced (no
// commission rules) until an administrator configures the platform.
func unconfiguredPayment(t *testing.T, s *st.Sys, eventID, intent string) []byte {
	t.Helper()
	admin, owner, user := s.Token("admin-1", "admin"), s.Token("owner-1"), s.Token("user-1")
	store := newStore(t, s, admin, "Unconfigured Bakery", "owner-1", "", "")
	product := okID(t, s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": "Bread", "price": 12.35}))
	customer := okID(t, s.Mutation(user, "customers.profile.upsertMyProfile", map[string]any{"name": "Noor", "phone": "+971501111111"}))
	okID(t, s.Mutation(user, "customers.cart.addItem", map[string]any{"productId": product, "quantity": 2}))
	return processor.Event(eventID, "payment_intent.succeeded", processor.Payment{
		IntentID: intent, AmountFils: 2*1235 + 1000, CustomerID: customer, StoreID: store,
		Address:      processor.Address{FullAddress: "Villa 7, Street 3", City: "Dubai", Area: "Jumeirah", PhoneNumber: "+971501111111"},
		DeliveryType: "standard", DeliveryFee: "10.00",
	})
}

// TestWebhookWithCustomersDown: a dependency that is down is a 503 with retryAfter.
func TestWebhookWithCustomersDown(t *testing.T) {
	s := st.Start(t, st.WithModules(withoutModule("customers")...))
	body := processor.Event("evt_down", "payment_intent.succeeded", processor.Payment{
		IntentID: "pi_down", AmountFils: 100, CustomerID: missingLike("cus_6b02d32cab61147b66664b00"), StoreID: missingLike("sto_6b02d32cab61147b66664b00"),
		Address: processor.Address{FullAddress: "a", City: "b", Area: "c", PhoneNumber: "d"}, DeliveryType: "standard", DeliveryFee: "0",
	})
	r := deliver(s, body)
	m := r.Map(t)
	if r.Status != 503 || m["error"] == nil || m["retryAfter"] == nil {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
}

// TestWebhookRedeliveryAfterRestart: processed events survive a restart.
func TestWebhookRedeliveryAfterRestart(t *testing.T) {
	dir := t.TempDir()
	var body, failed []byte
	var user string
	t.Run("first run", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		sh := newShop(t, s)
		user = sh.user
		body = processor.Event("evt_r", "payment_intent.succeeded", sh.payment("pi_r"))
		if r := deliver(s, body); r.Status != 200 || !strings.HasPrefix(string(r.Body), "Order created") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		sh.fillCart(t)
		failed = processor.Event("evt_rf", "payment_intent.payment_failed", sh.payment("pi_rf"))
		if r := deliver(s, failed); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		eventually(t, "failure notification", func() bool { return count(inbox(t, s, user), "payment_failed") == 1 })
	})
	t.Run("after restart", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		r := deliver(s, body)
		if r.Status != 200 || !strings.Contains(string(r.Body), "already processed") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		if n := len(myOrders(t, s, user)); n != 1 {
			t.Fatalf("%d orders", n)
		}
		// The failure's event id was recorded durably: its redelivery publishes
		// nothing new (no order's unique index would have caught this one).
		if r := deliver(s, failed); r.Status != 200 || !strings.Contains(string(r.Body), "already processed") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		time.Sleep(300 * time.Millisecond)
		if n := count(inbox(t, s, user), "payment_failed"); n != 1 {
			t.Fatalf("%d failure notifications after the redelivery", n)
		}
	})
}

// TestOrderEventSurvivesACrashBeforePublishing: the process dies after the order
// commits and before its event is published; after a restart the event is
// delivered and the notifications appear exactly once.
func TestOrderEventSurvivesACrashBeforePublishing(t *testing.T) {
	dir := t.TempDir()
	var user, owner string
	t.Run("crash", func(t *testing.T) {
		var armed sync.Mutex
		crash := false
		fault := func() error {
			armed.Lock()
			defer armed.Unlock()
			if crash {
				return fmt.Errorf("simulated crash before publishing")
			}
			return nil
		}
		s := st.Start(t, st.WithDataDir(dir), st.WithRelayFault(fault))
		sh := newShop(t, s)
		user, owner = sh.user, sh.owner
		armed.Lock()
		crash = true
		armed.Unlock()
		r := deliver(s, processor.Event("evt_crash", "payment_intent.succeeded", sh.payment("pi_crash")))
		if r.Status != 200 || !strings.HasPrefix(string(r.Body), "Order created") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		time.Sleep(300 * time.Millisecond)
		if n := count(inbox(t, s, sh.user), "order_created"); n != 0 {
			t.Fatalf("the event was published despite the crash: %d notifications", n)
		}
	})
	t.Run("restart", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		eventually(t, "customer notification after restart", func() bool { return count(inbox(t, s, user), "order_created") == 1 })
		eventually(t, "owner notification after restart", func() bool { return count(inbox(t, s, owner), "new_order") == 1 })
		time.Sleep(300 * time.Millisecond)
		if c, o := count(inbox(t, s, user), "order_created"), count(inbox(t, s, owner), "new_order"); c != 1 || o != 1 {
			t.Fatalf("customer %d, owner %d notifications", c, o)
		}
	})
}

// The paid amount is checked against the order it pays for: a cart that grew
// after the payment intent was created (or a payment in another currency) does
// not make a silently paid order. The order is held (pending, payment under
// review), the administrators are notified, the store cannot move it, and an
// administrator settles it.
func TestPaidAmountMustMatchTheOrder(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	// The intent was created for the store's lines as they were (87.05 with the
	// fee); before the webhook arrives the customer adds 96 more loaves and 98 cakes.
	pay := sh.payment("pi_grown")
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 96}))
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA2, "quantity": 98}))
	r := deliver(s, processor.Event("evt_grown", "payment_intent.succeeded", pay))
	if r.Status != 200 || !strings.HasPrefix(string(r.Body), "Order created") {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var o orderView
	st.MustOK(t, s.Query(sh.user, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_grown"})).Decode(t, &o)
	// 99 × 12.35 + 99 × 40 + 10 = 5192.65, paid 87.05.
	if o.Total != 5192.65 || o.PaymentStatus != "under_review" || o.Status != "pending" || o.AmountPaid == nil || *o.AmountPaid != 87.05 ||
		o.PaymentReview == nil || o.PaymentReview.Reason != "amount_mismatch" || o.PaymentReview.ExpectedAmount != 5192.65 ||
		o.PaymentReview.AmountPaid != 87.05 || o.PaymentReview.Currency != "aed" {
		t.Fatalf("held order %+v (review %+v)", o, o.PaymentReview)
	}
	eventually(t, "the administrators are asked to review", func() bool { return count(inbox(t, s, sh.admin), "payment_review") == 1 })
	eventually(t, "the customer is told", func() bool { return count(inbox(t, s, sh.user), "order_payment_review") == 1 })
	if n := count(inbox(t, s, sh.owner), "new_order"); n != 0 {
		t.Fatalf("the store was told of a held order (%d)", n)
	}

	move := func(tok, status string) st.Result {
		return s.Mutation(tok, "stores.orders.updateOrderStatus", map[string]any{"orderId": o.ID, "status": status})
	}
	expectError(t, move(sh.owner, "confirmed"), "FAILED_PRECONDITION")
	expectError(t, move(sh.owner, "cancelled"), "FAILED_PRECONDITION")
	st.MustOK(t, move(sh.admin, "confirmed")) // settled (the customer paid the rest): the order is paid
	st.MustOK(t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_grown"})).Decode(t, &o)
	if o.Status != "confirmed" || o.PaymentStatus != "paid" || o.PaymentReview == nil || o.PaymentReview.ResolvedBy != "admin-1" {
		t.Fatalf("settled order %+v (review %+v)", o, o.PaymentReview)
	}
	eventually(t, "the store hears of it once confirmed", func() bool { return count(inbox(t, s, sh.owner), "new_order") == 1 })
	st.MustOK(t, move(sh.owner, "preparing"))

	t.Run("a payment in another currency is held too", func(t *testing.T) {
		sh.fillCart(t)
		p := sh.payment("pi_usd")
		p.Currency = "usd"
		if r := deliver(s, processor.Event("evt_usd", "payment_intent.succeeded", p)); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var o orderView
		st.MustOK(t, s.Query(sh.user, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_usd"})).Decode(t, &o)
		if o.PaymentStatus != "under_review" || o.Status != "pending" || o.AmountPaid != nil || o.PaymentReview == nil ||
			o.PaymentReview.Reason != "currency_mismatch" || o.PaymentReview.Currency != "usd" || o.PaymentReview.AmountPaid != 87.05 {
			t.Fatalf("order paid in usd %+v (review %+v)", o, o.PaymentReview)
		}
	})

	t.Run("the amount must be an integer JSON number of minor units", func(t *testing.T) {
		body := bytes.Replace(processor.Event("evt_str", "payment_intent.succeeded", sh.payment("pi_str")), []byte(`"amount":8705`), []byte(`"amount":"1"`), 1)
		r := deliver(s, body)
		if r.Status != 400 || !strings.Contains(string(r.Body), "amount") {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
	})

	t.Run("a matching payment is paid", func(t *testing.T) {
		sh.fillCart(t)
		if r := deliver(s, processor.Event("evt_ok", "payment_intent.succeeded", sh.payment("pi_ok"))); r.Status != 200 {
			t.Fatalf("%d %s", r.Status, r.Body)
		}
		var o orderView
		st.MustOK(t, s.Query(sh.user, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_ok"})).Decode(t, &o)
		if o.PaymentStatus != "paid" || o.Status != "confirmed" || o.PaymentReview != nil || o.Total != 87.05 {
			t.Fatalf("order %+v", o)
		}
	})
}
