package distributed_test

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"marketplace/deploy/modules"
	"marketplace/deploy/systemtest"
	"marketplace/libs/events"
)

// Checkout in the distributed mode, as deploy/README.md walks it: the
// payments service creates the payment intent with the processor simulator
// (`marketplace processor`, a program of its own that the launcher starts),
// `marketplace pay` (what `make pay` runs) pays it there, and the simulator's
// signed webhook through the gateway makes the order. The programs' Kafka
// users are held to their ACLs.
func TestCheckoutPaysWithTheProcessorSimulator(t *testing.T) {
	r := start(t, testEnv(t))
	if r.ProcessorURL == "" || r.PID("processor") == 0 {
		t.Fatalf("no processor simulator runs (url %q)", r.ProcessorURL)
	}
	sh := newShop(t, r, 1)
	in := sh.createPaymentIntent(t, r, 0)
	if !strings.HasPrefix(in.PaymentIntentID, "pi_") || !strings.HasPrefix(in.ClientSecret, in.PaymentIntentID+"_secret_") ||
		math.Round(in.Amount*100) != orderFils || in.PublishableKey == "" {
		t.Fatalf("intent %+v", in)
	}
	var none *orderView
	r.must(t, "query", sh.users[0], "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": in.PaymentIntentID}, &none)
	if none != nil {
		t.Fatalf("an order before the payment: %+v", none)
	}
	o := r.pay(t, sh.users[0], in.PaymentIntentID)
	if math.Round(o.Total*100) != orderFils {
		t.Fatalf("order %+v after the payment", o)
	}
	// All of that ran with services that hold no development secret (only
	// the gateway verifies users' tokens and vouches for them): an
	// administrator's token sent straight to a service's port is refused.
	body, _ := json.Marshal(map[string]any{"path": "catalog.categories.listCategories", "args": map[string]any{}})
	req, _ := http.NewRequest(http.MethodPost, r.Services["catalog"]+"/api/query", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+sh.admin)
	if resp, err := r.hc.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a user's token at the catalog's own port: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}

	// The broker (`marketplace broker -users`) holds each program's own
	// Kafka user, the launcher's for this run, to what the module list
	// allows it: the journey above ran with them, and nothing more passes.
	kafka := func(user string) events.Brokers {
		u, ok := r.KafkaUsers[user]
		if !ok {
			t.Fatalf("no Kafka user %q: %v", user, r.KafkaUsers)
		}
		b, err := events.KafkaSettings{KafkaBrokers: r.Brokers, KafkaSASLMechanism: u.Mechanism, KafkaSASLUsername: u.Username, KafkaSASLPassword: u.Password}.Kafka()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	systemtest.CheckKafkaRights(t, modules.All, kafka)
}

type intentView struct {
	PaymentIntentID string  `json:"paymentIntentId"`
	ClientSecret    string  `json:"clientSecret"`
	Amount          float64 `json:"amount"`
	PublishableKey  string  `json:"publishableKey"`
}

// createPaymentIntent is customer i's checkout of their cart's lines of the
// shop's store, to a delivery address saved for it.
func (sh *shop) createPaymentIntent(t *testing.T, r *running, i int) intentView {
	t.Helper()
	var city, area, address string
	r.must(t, "mutation", sh.admin, "admins.catalog.createCity", map[string]any{"name": "Dubai", "nameArabic": "دبي"}, &city)
	r.must(t, "mutation", sh.admin, "admins.catalog.createArea", map[string]any{"name": "Marina", "city": city}, &area)
	r.must(t, "mutation", sh.users[i], "customers.addresses.createAddress", map[string]any{"customerId": sh.customers[i], "name": "Home",
		"fullAddress": "Villa 7, Marina Walk", "city": city, "area": area}, &address)
	var in intentView
	r.must(t, "mutation", sh.users[i], "customers.checkout.createPaymentIntent",
		map[string]any{"storeId": sh.store, "addressId": address, "deliveryType": "standard"}, &in)
	return in
}

// pay pays an intent as `make pay INTENT=...` does, with the marketplace
// binary of the run, which finds the simulator and its key in DATA_DIR as for
// the all-in-one; the simulator's webhook through the gateway makes the
// order, which the customer (token) then sees, confirmed and paid.
func (r *running) pay(t *testing.T, token, intent string) orderView {
	t.Helper()
	cmd := exec.Command(filepath.Join(r.bin, "marketplace"), "pay", "-intent", intent)
	cmd.Env = environ(map[string]string{"DATA_DIR": r.env["DATA_DIR"], "LOG_LEVEL": "warn"})
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
	if err := json.Unmarshal(out, &paid); err != nil || paid.PaymentIntentID != intent || paid.Status != "succeeded" ||
		paid.Webhook.Type != "payment_intent.succeeded" || paid.Webhook.Status != 200 {
		t.Fatalf("marketplace pay said %s (%v)", out, err)
	}
	var o *orderView
	r.must(t, "query", token, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent}, &o)
	if o == nil || o.PaymentIntentID != intent || o.Status != "confirmed" || o.PaymentStatus != "paid" || paid.Webhook.Body != "Order created: "+o.ID {
		t.Fatalf("order %+v after the payment (webhook answered %q)", o, paid.Webhook.Body)
	}
	return *o
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}
