package distributed_test

import (
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Checkout in the distributed mode, as deploy/README.md walks it: the
// payments service creates the payment intent with the processor simulator
// (`marketplace processor`, a program of its own that the launcher starts),
// `marketplace pay` (what `make pay` runs) pays it there, and the simulator's
// signed webhook through the gateway makes the order.
func TestCheckoutPaysWithTheProcessorSimulator(t *testing.T) {
	env := testEnv(t)
	r := start(t, env)
	if r.ProcessorURL == "" || r.PID("processor") == 0 {
		t.Fatalf("no processor simulator runs (url %q)", r.ProcessorURL)
	}
	sh := newShop(t, r, 1)
	var city, area, address string
	r.must(t, "mutation", sh.admin, "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"}, &city)
	r.must(t, "mutation", sh.admin, "admins.catalog.createArea", map[string]any{"name": "Marina", "city": city}, &area)
	r.must(t, "mutation", sh.users[0], "customers.addresses.createAddress", map[string]any{"customerId": sh.customers[0], "name": "Home",
		"fullAddress": "Villa 7, Marina Walk", "city": city, "area": area}, &address)

	var in struct {
		PaymentIntentID string  `json:"paymentIntentId"`
		ClientSecret    string  `json:"clientSecret"`
		Amount          float64 `json:"amount"`
		PublishableKey  string  `json:"publishableKey"`
	}
	r.must(t, "mutation", sh.users[0], "customers.checkout.createPaymentIntent",
		map[string]any{"storeId": sh.store, "addressId": address, "deliveryType": "standard"}, &in)
	if !strings.HasPrefix(in.PaymentIntentID, "pi_") || !strings.HasPrefix(in.ClientSecret, in.PaymentIntentID+"_secret_") ||
		math.Round(in.Amount*100) != orderFils || in.PublishableKey == "" {
		t.Fatalf("intent %+v", in)
	}
	var none *orderView
	r.must(t, "query", sh.users[0], "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": in.PaymentIntentID}, &none)
	if none != nil {
		t.Fatalf("an order before the payment: %+v", none)
	}

	// make pay INTENT=...: the binary finds the simulator and its key in
	// DATA_DIR, as for the all-in-one.
	cmd := exec.Command(filepath.Join(binaries(t), "marketplace"), "pay", "-intent", in.PaymentIntentID)
	cmd.Env = environ(map[string]string{"DATA_DIR": env["DATA_DIR"], "LOG_LEVEL": "warn"})
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("marketplace pay: %v\n%s%s", err, out, stderrOf(err))
	}
	var paid struct {
		PaymentIntentID string `json:"paymentIntentId"`
		Status          string `json:"status"`
		Webhook         struct {
			Type   string `json:"type"`
			Status int    `json:"status"`
			Body   string `json:"body"`
		} `json:"webhook"`
	}
	if err := json.Unmarshal(out, &paid); err != nil || paid.PaymentIntentID != in.PaymentIntentID || paid.Status != "succeeded" ||
		paid.Webhook.Type != "payment_intent.succeeded" || paid.Webhook.Status != 200 {
		t.Fatalf("marketplace pay said %s (%v)", out, err)
	}

	var o *orderView
	r.must(t, "query", sh.users[0], "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": in.PaymentIntentID}, &o)
	if o == nil || o.PaymentIntentID != in.PaymentIntentID || math.Round(o.Total*100) != orderFils || o.Status != "confirmed" ||
		o.PaymentStatus != "paid" || paid.Webhook.Body != "Order created: "+o.ID {
		t.Fatalf("order %+v after the payment (webhook answered %q)", o, paid.Webhook.Body)
	}
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
