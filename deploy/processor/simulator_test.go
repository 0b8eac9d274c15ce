package processor

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/stripe/stripe-go/v86"
	"github.com/stripe/stripe-go/v86/webhook"
)

const (
	simKey       = "sk_test_simulator_key"
	simPublished = "pk_test_simulator"
	simWebhook   = "whsec_simulator"
)

// hook is a webhook endpoint that verifies signatures as the payments
// service does and keeps the events.
type hook struct {
	mu       sync.Mutex
	events   []map[string]any
	raw      [][]byte // the bodies of events, as received
	status   int
	failures int // answer 503 to this many events first
}

func (h *hook) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if err := webhook.ValidatePayload(body, r.Header.Get("processor-signature"), simWebhook); err != nil {
		http.Error(w, "bad signature: "+err.Error(), http.StatusBadRequest)
		return
	}
	var ev map[string]any
	_ = json.Unmarshal(body, &ev)
	h.mu.Lock()
	h.events = append(h.events, ev)
	h.raw = append(h.raw, body)
	status := h.status
	if h.failures > 0 {
		h.failures--
		status = http.StatusServiceUnavailable
	}
	h.mu.Unlock()
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	io.WriteString(w, "ok")
}

func (h *hook) last(t *testing.T) map[string]any {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.events) == 0 {
		t.Fatal("no event received")
	}
	return h.events[len(h.events)-1]
}

type simWorld struct {
	sim  *Simulator
	url  string
	hook *hook
	sc   *stripe.Client
	stop func()
}

func startSim(t *testing.T, dir string) *simWorld {
	t.Helper()
	return startSimWith(t, dir, nil)
}

// startSimWith starts a simulator whose configuration configure may change
// (after the webhook URL is set to the test's hook).
func startSimWith(t *testing.T, dir string, configure func(*SimulatorConfig)) *simWorld {
	t.Helper()
	h := &hook{}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	cfg := SimulatorConfig{SecretKey: simKey, PublishableKey: simPublished, WebhookURL: hs.URL, WebhookSecret: simWebhook, Dir: dir}
	if configure != nil {
		configure(&cfg)
	}
	sim, err := NewSimulator(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sim.Serve(ctx, ln) }()
	w := &simWorld{sim: sim, url: "http://" + ln.Addr().String(), hook: h}
	w.sc = stripeClient(w.url, simKey)
	w.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
	t.Cleanup(func() {
		if ctx.Err() == nil {
			w.stop()
		}
	})
	return w
}

func stripeClient(base, key string) *stripe.Client {
	return stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL: stripe.String(base), MaxNetworkRetries: stripe.Int64(0),
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull},
	})))
}

func createIntent(t *testing.T, w *simWorld, amount int64, meta map[string]string) *stripe.PaymentIntent {
	t.Helper()
	pi, err := w.sc.V1PaymentIntents.Create(context.Background(), &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(amount), Currency: stripe.String("aed"), Metadata: meta,
		AutomaticPaymentMethods: &stripe.PaymentIntentCreateAutomaticPaymentMethodsParams{Enabled: stripe.Bool(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	return pi
}

// stripe-go, the client the payments service uses, creates, retrieves and
// confirms intents against the simulator; the confirmation's webhook is
// signed with the webhook secret and carries the intent with its metadata.
func TestSimulatorSpeaksTheProcessorsAPI(t *testing.T) {
	w := startSim(t, "")
	meta := map[string]string{"customerId": "cus_1", "deliveryAddress": `{"fullAddress":"Villa 7 & Co","city":"cty_1"}`, "deliveryFee": "10.00"}
	pi := createIntent(t, w, 8705, meta)
	if !strings.HasPrefix(pi.ID, "pi_") || !strings.HasPrefix(pi.ClientSecret, pi.ID+"_secret_") || pi.Amount != 8705 ||
		pi.Currency != "aed" || pi.Status != stripe.PaymentIntentStatusRequiresPaymentMethod || pi.Metadata["deliveryAddress"] != meta["deliveryAddress"] {
		t.Fatalf("created %+v", pi)
	}
	rec, ok := w.sim.Get(pi.ID)
	if !ok {
		t.Fatal("the simulator does not hold the intent")
	}
	form, err := url.ParseQuery(rec.Request)
	if err != nil || form.Get("amount") != "8705" || form.Get("currency") != "aed" || form.Get("metadata[deliveryFee]") != "10.00" ||
		form.Get("automatic_payment_methods[enabled]") != "true" {
		t.Fatalf("the request as received: %q (%v)", rec.Request, err)
	}
	got, err := w.sc.V1PaymentIntents.Retrieve(context.Background(), pi.ID, nil)
	if err != nil || got.ID != pi.ID || got.Metadata["customerId"] != "cus_1" {
		t.Fatalf("retrieve: %+v %v", got, err)
	}
	// The client's side: the publishable key with the client secret, and
	// nothing without it.
	pub := stripeClient(w.url, simPublished)
	if _, err := pub.V1PaymentIntents.Retrieve(context.Background(), pi.ID, &stripe.PaymentIntentRetrieveParams{ClientSecret: stripe.String(pi.ClientSecret)}); err != nil {
		t.Fatalf("retrieve with the client secret: %v", err)
	}
	if _, err := pub.V1PaymentIntents.Retrieve(context.Background(), pi.ID, nil); !isStripeError(err, 404, "resource_missing") {
		t.Fatalf("retrieve with the publishable key alone: %v", err)
	}
	cp := &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String(CardSucceeds)}
	cp.AddExtra("client_secret", pi.ClientSecret) // as the processor's browser SDK sends it
	confirmed, err := pub.V1PaymentIntents.Confirm(context.Background(), pi.ID, cp)
	if err != nil || confirmed.Status != stripe.PaymentIntentStatusSucceeded || confirmed.AmountReceived != 8705 {
		t.Fatalf("confirm: %+v %v", confirmed, err)
	}
	ev := w.hook.last(t)
	obj := ev["data"].(map[string]any)["object"].(map[string]any)
	if ev["type"] != EventSucceeded || !strings.HasPrefix(ev["id"].(string), "evt_") || obj["id"] != pi.ID || obj["amount"] != 8705.0 ||
		obj["currency"] != "aed" || obj["metadata"].(map[string]any)["deliveryAddress"] != meta["deliveryAddress"] {
		t.Fatalf("event %v", ev)
	}
	rec, _ = w.sim.Get(pi.ID)
	if len(rec.Deliveries) != 1 || !rec.Deliveries[0].OK() || rec.Deliveries[0].Type != EventSucceeded || rec.Deliveries[0].Body != "ok" {
		t.Fatalf("deliveries %+v", rec.Deliveries)
	}
	// A paid intent is paid once.
	if _, err := w.sc.V1PaymentIntents.Confirm(context.Background(), pi.ID, nil); !isStripeError(err, 400, "payment_intent_unexpected_state") {
		t.Fatalf("second confirm: %v", err)
	}
	if _, err := w.sc.V1PaymentIntents.Cancel(context.Background(), pi.ID, nil); !isStripeError(err, 400, "payment_intent_unexpected_state") {
		t.Fatalf("cancel of a paid intent: %v", err)
	}
}

func isStripeError(err error, status int, code string) bool {
	var se *stripe.Error
	return errors.As(err, &se) && se.HTTPStatusCode == status && string(se.Code) == code
}

// A declined card answers 402 with the card error, sends
// payment_intent.payment_failed with last_payment_error, and leaves the
// intent payable with another card.
func TestSimulatorDeclinesAndCancels(t *testing.T) {
	w := startSim(t, "")
	pi := createIntent(t, w, 2500, map[string]string{"storeId": "sto_1"})
	_, err := w.sc.V1PaymentIntents.Confirm(context.Background(), pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String(CardInsufficientFunds)})
	var se *stripe.Error
	if !errors.As(err, &se) || se.HTTPStatusCode != 402 || se.Type != stripe.ErrorTypeCard || se.DeclineCode != "insufficient_funds" {
		t.Fatalf("declined confirm: %v", err)
	}
	ev := w.hook.last(t)
	obj := ev["data"].(map[string]any)["object"].(map[string]any)
	if ev["type"] != EventFailed || obj["status"] != StatusRequiresPaymentMethod ||
		obj["last_payment_error"].(map[string]any)["message"] != "Your card has insufficient funds." {
		t.Fatalf("event %v", ev)
	}
	if _, err := w.sc.V1PaymentIntents.Confirm(context.Background(), pi.ID, &stripe.PaymentIntentConfirmParams{PaymentMethod: stripe.String("tok_nothing")}); !isStripeError(err, 400, "resource_missing") {
		t.Fatalf("unknown payment method: %v", err)
	}
	if got, err := w.sc.V1PaymentIntents.Confirm(context.Background(), pi.ID, nil); err != nil || got.Status != stripe.PaymentIntentStatusSucceeded {
		t.Fatalf("paying again after a decline: %+v %v", got, err)
	}

	other := createIntent(t, w, 2500, nil)
	got, err := w.sc.V1PaymentIntents.Cancel(context.Background(), other.ID, &stripe.PaymentIntentCancelParams{CancellationReason: stripe.String("abandoned")})
	if err != nil || got.Status != stripe.PaymentIntentStatusCanceled {
		t.Fatalf("cancel: %+v %v", got, err)
	}
	if ev := w.hook.last(t); ev["type"] != EventCanceled {
		t.Fatalf("event %v", ev)
	}
	if _, err := w.sc.V1PaymentIntents.Confirm(context.Background(), other.ID, nil); !isStripeError(err, 400, "payment_intent_unexpected_state") {
		t.Fatalf("confirm of a canceled intent: %v", err)
	}
}

// The simulator refuses what the processor refuses: a wrong key, amounts
// outside its limits, metadata values over 500 characters, unknown
// parameters, and a reused idempotency key with other parameters; the same
// key with the same parameters replays the first answer.
func TestSimulatorRefusesWhatTheProcessorRefuses(t *testing.T) {
	w := startSim(t, "")
	ctx := context.Background()
	if _, err := stripeClient(w.url, "sk_test_wrong").V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(1000), Currency: stripe.String("aed")}); !isStripeError(err, 401, "") {
		t.Fatalf("wrong key: %v", err)
	}
	if _, err := stripeClient(w.url, simPublished).V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{
		Amount: stripe.Int64(1000), Currency: stripe.String("aed")}); !isStripeError(err, 401, "") {
		t.Fatalf("publishable key creating: %v", err)
	}
	for _, c := range []struct {
		p    *stripe.PaymentIntentCreateParams
		code string
	}{
		{&stripe.PaymentIntentCreateParams{Amount: stripe.Int64(199), Currency: stripe.String("aed")}, "amount_too_small"},
		{&stripe.PaymentIntentCreateParams{Amount: stripe.Int64(MaxAmount + 1), Currency: stripe.String("aed")}, "amount_too_large"},
		{&stripe.PaymentIntentCreateParams{Currency: stripe.String("aed")}, "parameter_missing"},
		{&stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1000), Currency: stripe.String("aed"),
			Metadata: map[string]string{"deliveryAddress": strings.Repeat("x", MaxMetadataValue+1)}}, "parameter_invalid_string"},
		{&stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1000), Currency: stripe.String("aed"), ReceiptEmail: stripe.String("a@b.c")}, "parameter_unknown"},
	} {
		if _, err := w.sc.V1PaymentIntents.Create(ctx, c.p); !isStripeError(err, 400, c.code) {
			t.Errorf("want %s, got %v", c.code, err)
		}
	}
	if _, err := w.sc.V1PaymentIntents.Create(ctx, &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(1000), Currency: stripe.String("aed"),
		Metadata: map[string]string{"deliveryAddress": strings.Repeat("ش", MaxMetadataValue)}}); err != nil {
		t.Errorf("500 characters (1,000 bytes) refused: %v", err)
	}
	params := func(amount int64) *stripe.PaymentIntentCreateParams {
		p := &stripe.PaymentIntentCreateParams{Amount: stripe.Int64(amount), Currency: stripe.String("aed")}
		p.SetIdempotencyKey("checkout-1")
		return p
	}
	a, err := w.sc.V1PaymentIntents.Create(ctx, params(1000))
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.sc.V1PaymentIntents.Create(ctx, params(1000))
	if err != nil || b.ID != a.ID {
		t.Fatalf("replay: %+v %v, want %s", b, err, a.ID)
	}
	if _, err := w.sc.V1PaymentIntents.Create(ctx, params(2000)); !isStripeError(err, 400, "") {
		t.Fatalf("reused key: %v", err)
	}
}

// With a directory the intents outlive the simulator: a payment created
// before a restart is paid after it, and the URL is where `pay` finds it.
func TestSimulatorKeepsIntentsInItsDirectory(t *testing.T) {
	dir := t.TempDir()
	w := startSim(t, dir)
	pi := createIntent(t, w, 4200, map[string]string{"customerId": "cus_9"})
	if u, err := SimulatorURL(dir); err != nil || u != w.url {
		t.Fatalf("url file: %q %v, want %s", u, err, w.url)
	}
	w.stop()

	w2 := startSim(t, dir)
	got, err := w2.sc.V1PaymentIntents.Confirm(context.Background(), pi.ID, nil)
	if err != nil || got.Status != stripe.PaymentIntentStatusSucceeded || got.Metadata["customerId"] != "cus_9" || got.Amount != 4200 {
		t.Fatalf("after a restart: %+v %v", got, err)
	}
	if u, _ := SimulatorURL(dir); u != w2.url {
		t.Fatalf("url file %q, want the new %s", u, w2.url)
	}
	// The webhook's failure is recorded, not hidden.
	w2.hook.mu.Lock()
	w2.hook.status = http.StatusInternalServerError
	w2.hook.mu.Unlock()
	other := createIntent(t, w2, 4200, nil)
	if _, err := w2.sc.V1PaymentIntents.Confirm(context.Background(), other.ID, nil); err != nil {
		t.Fatal(err)
	}
	rec, _ := w2.sim.Get(other.ID)
	if len(rec.Deliveries) != 1 || rec.Deliveries[0].OK() || rec.Deliveries[0].Status != 500 {
		t.Fatalf("deliveries %+v", rec.Deliveries)
	}
}
