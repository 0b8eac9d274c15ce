package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/system"
	"marketplace/libs/auth"
)

// `marketplace pay` (make pay) settles a payment intent with the processor
// simulator of a running all-in-one: the webhook makes the order. An intent
// created before a restart is paid after it (the simulator keeps intents in
// DATA_DIR), a declined card reaches the webhook as payment_failed, and an
// unknown intent is an error.
func TestPayCommand(t *testing.T) {
	env := map[string]string{"DATA_DIR": t.TempDir(), "HTTP_ADDR": "127.0.0.1:0", "LOG_LEVEL": "warn", "ACCESS_LOG": "false",
		"RATE_LIMIT_RPS": "0", "PROCESSOR_PUBLISHABLE_KEY": "pk_test_cmd"}
	getenv := func(k string) string { return env[k] }
	start := func() (system.Info, func()) {
		ctx, cancel := context.WithCancel(context.Background())
		ready, done := make(chan system.Info, 1), make(chan error, 1)
		go func() {
			done <- system.Run(ctx, system.Options{Getenv: getenv, Stdout: io.Discard, OnReady: func(i system.Info) { ready <- i }})
		}()
		select {
		case info := <-ready:
			return info, func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("run: %v", err)
				}
			}
		case err := <-done:
			t.Fatalf("run ended: %v", err)
		case <-time.After(2 * time.Minute): // a loaded machine under -race starts slowly
			t.Fatal("not ready in 2 min")
		}
		panic("unreachable")
	}
	info, stop := start()
	if info.ProcessorURL == "" {
		t.Fatal("no processor simulator")
	}
	call := callerOf(t, &info)
	admin, owner, user := call.token("admin-1", "admin"), call.token("owner-1"), call.token("user-1")
	call.ok(admin, "mutation", "admins.platformAdmin.createInitialPlatformConfig", map[string]any{"adminUserId": "admin-1"})
	city := call.id(admin, "mutation", "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"})
	area := call.id(admin, "mutation", "admins.catalog.createArea", map[string]any{"name": "Marina", "city": city})
	customer := call.id(user, "mutation", "customers.profile.upsertMyProfile", map[string]any{"name": "Noor", "phone": "+971501111111"})
	address := call.id(user, "mutation", "customers.addresses.createAddress", map[string]any{"customerId": customer, "name": "Home",
		"fullAddress": "Villa 7", "city": city, "area": area})
	intent := func(name string, price float64) string {
		store := call.id(admin, "mutation", "admins.catalog.createStore", map[string]any{"name": name, "ownerUserId": "owner-1",
			"ownerName": "Owner", "ownerPhone": "+971500000000"})
		product := call.id(owner, "mutation", "stores.products.createProduct", map[string]any{"storeId": store, "name": "Item", "price": price})
		call.id(user, "mutation", "customers.cart.addItem", map[string]any{"productId": product, "quantity": 2})
		var in struct {
			PaymentIntentID string  `json:"paymentIntentId"`
			Amount          float64 `json:"amount"`
		}
		call.decode(call.ok(user, "mutation", "customers.checkout.createPaymentIntent",
			map[string]any{"storeId": store, "addressId": address, "deliveryType": "standard"}), &in)
		return in.PaymentIntentID
	}
	first, second := intent("Bakery", 12.5), intent("Florist", 60)

	type outcome struct {
		PaymentIntentID, Status string
		Amount                  float64
		Webhook                 struct {
			Type   string
			Status int
			Body   string
		}
	}
	pay := func(args ...string) (outcome, error) {
		var out bytes.Buffer
		err := runArgs(context.Background(), append([]string{"pay"}, args...), getenv, &out)
		var o outcome
		if err == nil {
			if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 1 || json.Unmarshal([]byte(lines[0]), &o) != nil {
				t.Fatalf("pay printed %q, want one JSON line", out.String())
			}
		}
		return o, err
	}
	o, err := pay("-intent", first)
	if err != nil || o.PaymentIntentID != first || o.Status != "succeeded" || o.Amount != 35 || o.Webhook.Type != "payment_intent.succeeded" ||
		o.Webhook.Status != 200 || !strings.HasPrefix(o.Webhook.Body, "Order created: ") {
		t.Fatalf("pay: %+v %v", o, err)
	}
	if _, err := pay("-intent", first); err == nil || !strings.Contains(err.Error(), "succeeded") {
		t.Fatalf("paying twice: %v", err)
	}

	stop()
	info, stop = start()
	defer stop()
	o, err = pay("-intent", second, "-outcome", "failed")
	if err != nil || o.Status != "requires_payment_method" || o.Webhook.Type != "payment_intent.payment_failed" || o.Webhook.Status != 200 {
		t.Fatalf("pay -outcome failed after a restart: %+v %v", o, err)
	}
	if o, err = pay("-intent", second); err != nil || o.Status != "succeeded" || o.Amount != 120 || o.Webhook.Status != 200 {
		t.Fatalf("pay after a restart: %+v %v", o, err)
	}
	var order struct {
		Total         float64 `json:"total"`
		PaymentStatus string  `json:"paymentStatus"`
	}
	call.decode(call.ok(user, "query", "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": second}), &order)
	if order.Total != 120 || order.PaymentStatus != "paid" {
		t.Fatalf("order %+v", order)
	}
	for _, bad := range [][]string{{"-intent", "pi_missing"}, {"-intent", "nothing"}, {"-intent", second, "-outcome", "maybe"}} {
		if _, err := pay(bad...); err == nil {
			t.Errorf("pay %v succeeded", bad)
		}
	}
}

// caller calls the running system's gateway.
type caller struct {
	t    *testing.T
	info *system.Info
}

func callerOf(t *testing.T, info *system.Info) caller { return caller{t, info} }

func (c caller) token(sub string, roles ...string) string {
	tok, err := auth.Mint([]byte(c.info.DevSecret), sub, roles, time.Hour, auth.Options{})
	if err != nil {
		c.t.Fatal(err)
	}
	return tok
}

// ok calls an operation and requires a 200.
func (c caller) ok(token, kind, path string, args any) []byte {
	c.t.Helper()
	body, _ := json.Marshal(map[string]any{"path": path, "args": args})
	req, _ := http.NewRequest(http.MethodPost, c.info.BaseURL+"/api/"+kind, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("%s: %d %s", path, resp.StatusCode, raw)
	}
	return raw
}

func (c caller) id(token, kind, path string, args any) string {
	c.t.Helper()
	var id string
	c.decode(c.ok(token, kind, path, args), &id)
	return id
}

func (c caller) decode(raw []byte, v any) {
	c.t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		c.t.Fatalf("%s: %v", raw, err)
	}
}
