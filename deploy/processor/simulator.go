package processor

// The processor simulator: the part of the processor's API the platform uses,
// for development (`make run` starts one on loopback and points
// PROCESSOR_API_URL at it) and for tests. It speaks the processor's wire
// format (Stripe's: form-encoded requests, bearer or basic secret keys, JSON
// objects and { error: { type, code, message, param } } errors), so the
// payments service talks to it with stripe-go exactly as it talks to the
// real API.
//
//	POST /v1/payment_intents              create (amount, currency, metadata[k], automatic_payment_methods[enabled], description); Idempotency-Key honoured
//	GET  /v1/payment_intents/{id}         retrieve (secret key, or publishable key with ?client_secret=)
//	POST /v1/payment_intents/{id}/confirm confirm (payment_method: pm_card_visa succeeds, pm_card_chargeDeclined and
//	                                      pm_card_chargeDeclinedInsufficientFunds are declined), then sends
//	                                      payment_intent.succeeded or payment_intent.payment_failed to the webhook
//	POST /v1/payment_intents/{id}/cancel  cancel, then sends payment_intent.canceled
//	POST /v1/refunds                      refund a paid intent (payment_intent or charge, amount: default all that is
//	                                      left, reason, metadata[k]); Idempotency-Key honoured; refused above what is
//	                                      left (amount_too_large: received − refunds not failed − lost disputes), with
//	                                      nothing left (charge_already_refunded), while a dispute is open
//	                                      (charge_disputed), for an intent not paid (payment_intent_unexpected_state);
//	                                      answers the refund pending, then queues charge.refunded (the Charge: amount_refunded,
//	                                      refunds.data) or, told to fail, refund.failed (the Refund, failure_reason)
//	GET  /v1/refunds/{id}                 retrieve
//	POST /v1/payouts                      a transfer to a bank account (amount, currency, metadata[k]: the IBAN travels in
//	                                      metadata[iban], metadata[accountHolderName]); Idempotency-Key honoured; answers
//	                                      it pending, then queues payout.paid or, told to fail, payout.failed
//	                                      (failure_code, failure_message)
//	GET  /v1/payouts/{id}                 retrieve
//	GET  /v1/disputes/{id}                retrieve
//	POST /simulator/payment_intents/{id}/disputes
//	                                      the cardholder's bank opens a dispute (amount: default all not refunded yet;
//	                                      reason, default fraudulent): status needs_response, evidence due in 7 days;
//	                                      queues charge.dispute.created
//	POST /simulator/disputes/{id}/close   decide it (outcome=won|lost); queues charge.dispute.closed; a lost
//	                                      dispute's amount can no longer be refunded
//	POST /simulator/controls              the next matching queued webhooks (type: an event type, "refund.*"-like, or
//	                                      "*"; objectId: the object, its payment intent, or metadata refundId/payoutId)
//	                                      fail (a refund or payout; failureCode), wait (delay, delayMs) or are held
//	                                      (hold), times times (default 1); GET lists them, DELETE /simulator/controls/{id}
//	GET  /simulator/deliveries            the queued webhooks and every attempt (?objectId=, ?type=, ?status=
//	                                      queued|held|delivered|gave_up)
//	POST /simulator/deliveries/{id}/release
//	                                      send a held delivery now, or retry a given-up one
//	GET  /simulator/payment_intents/{id}  what the simulator holds of an intent: the intent, the create request's
//	                                      form body as received, every webhook delivery with its answer, its refunds
//	                                      and disputes
//	GET  /livez, GET /readyz              200 (probes of `marketplace processor`)
//	GET  /version                         the build it runs (libs/version)
//
// The simulator-only POSTs take form-encoded or JSON bodies.
//
// Payment intents' webhooks are signed as the processor signs them (Sign)
// and sent before the confirm or cancel answers, so whoever confirmed can
// read the delivery's outcome at once (Simulator-Webhook-Status). Refunds',
// disputes' and payouts' webhooks are queued and sent later by Serve, signed
// the same way, in order per object, retried with a doubling wait (1 s to
// 5 min, 12 attempts) until the webhook answers 2xx; EnvWebhookDelay
// (PROCESSOR_SIMULATOR_WEBHOOK_DELAY, e.g. 5s) postpones them all, for demos.
// Intents (with their refunds and disputes), payouts, idempotency keys,
// controls and queued webhooks are kept in memory, and in Dir when one is
// given, so a payment can be confirmed, and a webhook still queued is sent,
// after a restart of the all-in-one.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"marketplace/libs/version"
)

// Payment methods the simulator knows, as the processor's test mode names them.
const (
	CardSucceeds          = "pm_card_visa"
	CardDeclined          = "pm_card_chargeDeclined"
	CardInsufficientFunds = "pm_card_chargeDeclinedInsufficientFunds"
)

// Event types the simulator sends.
const (
	EventSucceeded = "payment_intent.succeeded"
	EventFailed    = "payment_intent.payment_failed"
	EventCanceled  = "payment_intent.canceled"
)

// The processor's limits the simulator enforces, as the real API does.
const (
	MaxAmount        = 99_999_999 // minor units: eight digits
	MinAmountAED     = 200        // 2.00 AED
	MinAmountOther   = 50
	MaxMetadataKeys  = 50
	MaxMetadataKey   = 40
	MaxMetadataValue = 500
)

// In SimulatorConfig.Dir: one file per intent and per idempotency key (a
// change rewrites only its own), and the URL.
const (
	intentsDir    = "intents" // with their refunds and disputes
	keysDir       = "idempotency"
	payoutsDir    = "payouts"
	deliveriesDir = "deliveries" // the webhook queue of refunds, disputes and payouts
	controlsFile  = "controls.json"
	urlFile       = "url"
)

// SimulatorConfig configures a simulator.
type SimulatorConfig struct {
	SecretKey      string // required: the key the platform calls with
	PublishableKey string // accepted with an intent's client_secret
	WebhookURL     string // where events go (the gateway's POST /processor/webhook)
	WebhookSecret  string // signs them
	Dir            string // keeps intents across restarts; "" keeps them in memory
	Logger         *slog.Logger
	// WebhookDelay postpones every queued webhook (refunds, disputes,
	// payouts) by this much: EnvWebhookDelay, for demos.
	WebhookDelay time.Duration
	// RetryBase is the wait before a queued webhook's second attempt, doubled
	// at each further one up to RetryMax (defaults 1 s and 5 min).
	RetryBase, RetryMax time.Duration
	// MaxAttempts is how many times a queued webhook is tried before it is
	// given up (default 12; POST /simulator/deliveries/{id}/release retries it).
	MaxAttempts int
}

// Intent is a payment intent as the processor's API shows it.
type Intent struct {
	ID                      string            `json:"id"`
	Object                  string            `json:"object"`
	Amount                  int64             `json:"amount"`
	AmountReceived          int64             `json:"amount_received"`
	Currency                string            `json:"currency"`
	Status                  string            `json:"status"`
	ClientSecret            string            `json:"client_secret"`
	Metadata                map[string]string `json:"metadata"`
	Description             *string           `json:"description"`
	Created                 int64             `json:"created"`
	Livemode                bool              `json:"livemode"`
	PaymentMethod           *string           `json:"payment_method"`
	LatestCharge            *string           `json:"latest_charge"`
	LastPaymentError        *APIError         `json:"last_payment_error"`
	CanceledAt              *int64            `json:"canceled_at"`
	CancellationReason      *string           `json:"cancellation_reason"`
	AutomaticPaymentMethods *struct {
		Enabled bool `json:"enabled"`
	} `json:"automatic_payment_methods"`
}

// Intent statuses the simulator moves through.
const (
	StatusRequiresPaymentMethod = "requires_payment_method"
	StatusSucceeded             = "succeeded"
	StatusCanceled              = "canceled"
)

// APIError is the processor's error object.
type APIError struct {
	Type          string  `json:"type"`
	Code          string  `json:"code,omitempty"`
	DeclineCode   string  `json:"decline_code,omitempty"`
	Message       string  `json:"message"`
	Param         string  `json:"param,omitempty"`
	PaymentIntent *Intent `json:"payment_intent,omitempty"`
	status        int
}

// Delivery is one webhook sent, and how it was answered.
type Delivery struct {
	EventID string `json:"eventId"`
	Type    string `json:"type"`
	At      int64  `json:"at"`     // unix milliseconds
	Status  int    `json:"status"` // 0 when no answer came
	Body    string `json:"body"`   // the answer's body (its first 2,000 bytes)
	Error   string `json:"error,omitempty"`
}

// OK says whether the webhook accepted the event.
func (d Delivery) OK() bool { return d.Status >= 200 && d.Status < 300 }

// Record is what the simulator holds of an intent.
type Record struct {
	Intent     Intent     `json:"intent"`
	Request    string     `json:"request"` // the create request's form body, as received
	Deliveries []Delivery `json:"deliveries"`
	Refunds    []Refund   `json:"refunds,omitempty"`  // oldest first
	Disputes   []Dispute  `json:"disputes,omitempty"` // oldest first
}

// idempotent is what an Idempotency-Key was first used for: an intent
// (IntentID, as before refunds existed), or an Object ("refund", "payout")
// of id ObjectID.
type idempotent struct {
	Key         string `json:"key"`
	IntentID    string `json:"intentId,omitempty"`
	Object      string `json:"object,omitempty"`
	ObjectID    string `json:"objectId,omitempty"`
	Fingerprint string `json:"fingerprint"`
}

type simState struct {
	Intents     map[string]*Record    `json:"intents"`
	Idempotency map[string]idempotent `json:"idempotency"`
	Payouts     map[string]*Payout
	Deliveries  map[string]*QueuedDelivery
	Controls    []*Control
	// refundIntent and disputeIntent find the intent of a refund or a dispute.
	refundIntent, disputeIntent map[string]string
}

// Simulator is a running processor simulator.
type Simulator struct {
	cfg    SimulatorConfig
	client *http.Client
	mu     sync.Mutex
	state  simState
	wake   chan struct{} // a queued webhook became due
}

// NewSimulator makes a simulator, reading what Dir holds.
func NewSimulator(cfg SimulatorConfig) (*Simulator, error) {
	if cfg.SecretKey == "" {
		return nil, errors.New("processor simulator: a secret key is required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.RetryBase <= 0 {
		cfg.RetryBase = time.Second
	}
	if cfg.RetryMax <= 0 {
		cfg.RetryMax = 5 * time.Minute
	}
	if cfg.MaxAttempts <= 0 {
		cfg.MaxAttempts = 12
	}
	s := &Simulator{cfg: cfg, client: &http.Client{Timeout: 15 * time.Second}, wake: make(chan struct{}, 1),
		state: simState{Intents: map[string]*Record{}, Idempotency: map[string]idempotent{}, Payouts: map[string]*Payout{},
			Deliveries: map[string]*QueuedDelivery{}, refundIntent: map[string]string{}, disputeIntent: map[string]string{}}}
	if cfg.Dir != "" {
		if err := s.load(); err != nil {
			return nil, fmt.Errorf("processor simulator: %w", err)
		}
	}
	return s, nil
}

// load reads the intents, idempotency keys, payouts, queued webhooks and
// controls kept in Dir.
func (s *Simulator) load() error {
	if raw, err := os.ReadFile(filepath.Join(s.cfg.Dir, controlsFile)); err == nil {
		if err := json.Unmarshal(raw, &s.state.Controls); err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(s.cfg.Dir, controlsFile), err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, sub := range []string{intentsDir, keysDir, payoutsDir, deliveriesDir} {
		dir := filepath.Join(s.cfg.Dir, sub)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue // a temporary file of an interrupted write
			}
			raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
			if err != nil {
				return err
			}
			var v any
			switch sub {
			case intentsDir:
				v = &Record{}
			case keysDir:
				v = &idempotent{}
			case payoutsDir:
				v = &Payout{}
			default:
				v = &QueuedDelivery{}
			}
			if err := json.Unmarshal(raw, v); err != nil {
				return fmt.Errorf("%s: %w", filepath.Join(dir, e.Name()), err)
			}
			switch v := v.(type) {
			case *Record:
				s.state.Intents[v.Intent.ID] = v
				for _, f := range v.Refunds {
					s.state.refundIntent[f.ID] = v.Intent.ID
				}
				for _, d := range v.Disputes {
					s.state.disputeIntent[d.ID] = v.Intent.ID
				}
			case *idempotent:
				s.state.Idempotency[v.Key] = *v
			case *Payout:
				s.state.Payouts[v.ID] = v
			case *QueuedDelivery:
				s.state.Deliveries[v.ID] = v
			}
		}
	}
	return nil
}

// Serve answers on ln until ctx is done, and delivers the queued webhooks
// meanwhile (those a previous run left queued too). With a Dir, the
// simulator's URL is written there for `marketplace pay` (SimulatorURL).
func (s *Simulator) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: 60 * time.Second, IdleTimeout: 60 * time.Second}
	if s.cfg.Dir != "" {
		if err := writeFile(filepath.Join(s.cfg.Dir, urlFile), []byte("http://"+ln.Addr().String()+"\n")); err != nil {
			ln.Close()
			return fmt.Errorf("processor simulator: %w", err)
		}
	}
	done, delivered := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(delivered)
		s.deliverQueued(ctx)
	}()
	go func() {
		defer close(done)
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	err := srv.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	<-done
	<-delivered
	return err
}

// SimulatorURL is the base URL of the simulator the all-in-one ran with dir
// as its directory (the last one started).
func SimulatorURL(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, urlFile))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// Handler is the simulator's HTTP API.
func (s *Simulator) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/payment_intents", s.create)
	mux.HandleFunc("GET /v1/payment_intents/{id}", s.retrieve)
	mux.HandleFunc("POST /v1/payment_intents/{id}/confirm", s.confirm)
	mux.HandleFunc("POST /v1/payment_intents/{id}/cancel", s.cancel)
	mux.HandleFunc("GET /simulator/payment_intents/{id}", s.inspect)
	mux.HandleFunc("POST /v1/refunds", s.createRefund)
	mux.HandleFunc("GET /v1/refunds/{id}", retrieveObject(s, "refund", func(id string) *Refund { _, f := s.findRefund(id); return f }))
	mux.HandleFunc("GET /v1/disputes/{id}", retrieveObject(s, "dispute", func(id string) *Dispute { _, d := s.findDispute(id); return d }))
	mux.HandleFunc("POST /v1/payouts", s.createPayout)
	mux.HandleFunc("GET /v1/payouts/{id}", retrieveObject(s, "payout", func(id string) *Payout { return s.state.Payouts[id] }))
	mux.HandleFunc("POST /simulator/payment_intents/{id}/disputes", s.openDispute)
	mux.HandleFunc("POST /simulator/disputes/{id}/close", s.closeDispute)
	mux.HandleFunc("POST /simulator/controls", s.createControl)
	mux.HandleFunc("GET /simulator/controls", s.listControls)
	mux.HandleFunc("DELETE /simulator/controls/{id}", s.deleteControl)
	mux.HandleFunc("GET /simulator/deliveries", s.listDeliveries)
	mux.HandleFunc("POST /simulator/deliveries/{id}/release", s.releaseDelivery)
	// Probes of the simulator run as a program of its own (`marketplace
	// processor`): it is ready once it serves.
	for _, probe := range []string{"GET /livez", "GET /readyz"} {
		mux.HandleFunc(probe, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) })
	}
	mux.HandleFunc("GET /version", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(version.Get())
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &APIError{status: http.StatusNotFound, Type: "invalid_request_error",
			Message: fmt.Sprintf("Unrecognized request URL (%s: %s).", r.Method, r.URL.Path)})
	})
	return mux
}

// Get is what the simulator holds of an intent.
func (s *Simulator) Get(id string) (Record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.state.Intents[id]
	if !ok {
		return Record{}, false
	}
	return clone(r), true
}

func clone(r *Record) Record {
	b, _ := json.Marshal(r)
	var c Record
	_ = json.Unmarshal(b, &c)
	return c
}

// Key kinds a request may carry.
const (
	keyNone = iota
	keySecret
	keyPublishable
)

// auth reads the API key of a request: Authorization: Bearer <key>, or basic
// auth with the key as the user name (curl -u sk_...:).
func (s *Simulator) auth(r *http.Request) (int, *APIError) {
	key := ""
	if user, _, ok := r.BasicAuth(); ok {
		key = user
	} else if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		key = strings.TrimSpace(b)
	}
	switch {
	case key == "":
		return keyNone, &APIError{status: http.StatusUnauthorized, Type: "invalid_request_error",
			Message: "You did not provide an API key. Provide it in the Authorization header (Authorization: Bearer YOUR_SECRET_KEY)."}
	case key == s.cfg.SecretKey:
		return keySecret, nil
	case s.cfg.PublishableKey != "" && key == s.cfg.PublishableKey:
		return keyPublishable, nil
	}
	return keyNone, &APIError{status: http.StatusUnauthorized, Type: "invalid_request_error",
		Message: "Invalid API Key provided: " + maskKey(key)}
}

func maskKey(k string) string {
	if len(k) <= 8 {
		return strings.Repeat("*", len(k))
	}
	return k[:4] + strings.Repeat("*", len(k)-8) + k[len(k)-4:]
}

// readForm reads a form-encoded body; a key outside allowed (its part before the
// first "[") is refused as the processor refuses unknown parameters.
func readForm(w http.ResponseWriter, r *http.Request, allowed ...string) (map[string][]string, string, *APIError) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		return nil, "", &APIError{status: http.StatusBadRequest, Type: "invalid_request_error", Message: "The request body could not be read."}
	}
	vals, err := url.ParseQuery(string(raw))
	if err != nil {
		return nil, "", &APIError{status: http.StatusBadRequest, Type: "invalid_request_error", Message: "Invalid request body: " + err.Error()}
	}
	for k := range vals {
		base, _, _ := strings.Cut(k, "[")
		if !slices.Contains(allowed, base) {
			return nil, "", &APIError{status: http.StatusBadRequest, Type: "invalid_request_error", Code: "parameter_unknown", Param: k,
				Message: "Received unknown parameter: " + k}
		}
	}
	return vals, string(raw), nil
}

func first(vals map[string][]string, k string) (string, bool) {
	v, ok := vals[k]
	if !ok || len(v) == 0 {
		return "", false
	}
	return v[0], true
}

var currencyRE = regexp.MustCompile(`^[a-z]{3}$`)

func invalid(param, code, format string, args ...any) *APIError {
	return &APIError{status: http.StatusBadRequest, Type: "invalid_request_error", Code: code, Param: param, Message: fmt.Sprintf(format, args...)}
}

func (s *Simulator) create(w http.ResponseWriter, r *http.Request) {
	if kind, e := s.auth(r); e != nil || kind != keySecret {
		if e == nil {
			e = &APIError{status: http.StatusUnauthorized, Type: "invalid_request_error", Message: "This API call cannot be made with a publishable API key."}
		}
		writeError(w, e)
		return
	}
	vals, raw, e := readForm(w, r, "amount", "currency", "metadata", "automatic_payment_methods", "description", "expand")
	if e != nil {
		writeError(w, e)
		return
	}
	in, e := newIntent(vals)
	if e != nil {
		writeError(w, e)
		return
	}
	key := r.Header.Get("Idempotency-Key")
	fp := fingerprint(raw)
	s.mu.Lock()
	if key != "" {
		if prev, ok := s.state.Idempotency[key]; ok {
			rec := s.state.Intents[prev.IntentID]
			s.mu.Unlock()
			if prev.Fingerprint != fp || rec == nil {
				writeError(w, &APIError{status: http.StatusBadRequest, Type: "idempotency_error",
					Message: "Keys for idempotent requests can only be used with the same parameters they were first used with."})
				return
			}
			w.Header().Set("Idempotent-Replayed", "true")
			writeJSON(w, http.StatusOK, rec.Intent)
			return
		}
	}
	s.state.Intents[in.ID] = &Record{Intent: *in, Request: raw, Deliveries: []Delivery{}}
	if key != "" {
		s.state.Idempotency[key] = idempotent{Key: key, IntentID: in.ID, Fingerprint: fp}
	}
	err := errors.Join(s.saveLocked(in.ID), s.saveKeyLocked(key))
	s.mu.Unlock()
	if err != nil {
		s.cfg.Logger.Error("processor simulator: saving intents failed", "err", err)
	}
	s.cfg.Logger.Info("processor simulator: payment intent created", "paymentIntentId", in.ID, "amount", in.Amount, "currency", in.Currency)
	writeJSON(w, http.StatusOK, in)
}

// newIntent checks a create request as the processor does.
func newIntent(vals map[string][]string) (*Intent, *APIError) {
	rawAmount, ok := first(vals, "amount")
	if !ok {
		return nil, invalid("amount", "parameter_missing", "Missing required param: amount.")
	}
	amount, err := strconv.ParseInt(rawAmount, 10, 64)
	if err != nil {
		return nil, invalid("amount", "parameter_invalid_integer", "Invalid integer: %s", rawAmount)
	}
	currency, ok := first(vals, "currency")
	if !ok {
		return nil, invalid("currency", "parameter_missing", "Missing required param: currency.")
	}
	currency = strings.ToLower(currency)
	if !currencyRE.MatchString(currency) {
		return nil, invalid("currency", "parameter_invalid_string", "Invalid currency: %s.", currency)
	}
	minimum := int64(MinAmountOther)
	if currency == "aed" {
		minimum = MinAmountAED
	}
	if amount < minimum {
		return nil, invalid("amount", "amount_too_small", "Amount must be at least %d %s (minor units).", minimum, currency)
	}
	if amount > MaxAmount {
		return nil, invalid("amount", "amount_too_large", "Amount must be no more than %d %s (minor units).", MaxAmount, currency)
	}
	in := &Intent{ID: newID("pi_"), Object: "payment_intent", Amount: amount, Currency: currency, Status: StatusRequiresPaymentMethod,
		Metadata: map[string]string{}, Created: time.Now().Unix()}
	in.ClientSecret = in.ID + "_secret_" + randomToken(25)
	var e *APIError
	if in.Metadata, e = metadata(vals); e != nil {
		return nil, e
	}
	if d, ok := first(vals, "description"); ok {
		in.Description = &d
	}
	if v, ok := first(vals, "automatic_payment_methods[enabled]"); ok {
		enabled, err := strconv.ParseBool(v)
		if err != nil {
			return nil, invalid("automatic_payment_methods[enabled]", "parameter_invalid_boolean", "Invalid boolean: %s", v)
		}
		in.AutomaticPaymentMethods = &struct {
			Enabled bool `json:"enabled"`
		}{enabled}
	}
	return in, nil
}

// metadata reads the metadata[k] parameters as the processor checks them.
func metadata(vals map[string][]string) (map[string]string, *APIError) {
	md := map[string]string{}
	for k, v := range vals {
		if k == "metadata" && len(v) == 1 && v[0] == "" {
			continue // metadata= clears it
		}
		name, ok := strings.CutPrefix(k, "metadata[")
		if !ok {
			continue
		}
		name, ok = strings.CutSuffix(name, "]")
		if !ok || name == "" || strings.ContainsAny(name, "[]") {
			return nil, invalid(k, "parameter_invalid_string", "Invalid metadata key: %s", k)
		}
		if utf8.RuneCountInString(name) > MaxMetadataKey {
			return nil, invalid(k, "parameter_invalid_string", "Metadata keys can have up to %d characters.", MaxMetadataKey)
		}
		if utf8.RuneCountInString(v[0]) > MaxMetadataValue {
			return nil, invalid(k, "parameter_invalid_string", "Metadata values can have up to %d characters, but you passed in a value that is %d characters.",
				MaxMetadataValue, utf8.RuneCountInString(v[0]))
		}
		md[name] = v[0]
	}
	if len(md) > MaxMetadataKeys {
		return nil, invalid("metadata", "parameter_invalid_string", "Metadata can have up to %d keys.", MaxMetadataKeys)
	}
	return md, nil
}

// lookup finds an intent for a request: the secret key sees every intent, the
// publishable key an intent whose client secret the request carries.
func (s *Simulator) lookup(r *http.Request, clientSecret string) (*Record, *APIError) {
	kind, e := s.auth(r)
	if e != nil {
		return nil, e
	}
	id := r.PathValue("id")
	missing := &APIError{status: http.StatusNotFound, Type: "invalid_request_error", Code: "resource_missing", Param: "intent",
		Message: fmt.Sprintf("No such payment_intent: '%s'", id)}
	rec, ok := s.state.Intents[id]
	if !ok {
		return nil, missing
	}
	if kind == keyPublishable && clientSecret != rec.Intent.ClientSecret {
		return nil, missing
	}
	return rec, nil
}

func (s *Simulator) retrieve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	rec, e := s.lookup(r, r.URL.Query().Get("client_secret"))
	var in Intent
	if rec != nil {
		in = clone(rec).Intent
	}
	s.mu.Unlock()
	if e != nil {
		writeError(w, e)
		return
	}
	writeJSON(w, http.StatusOK, in)
}

func (s *Simulator) inspect(w http.ResponseWriter, r *http.Request) {
	if kind, e := s.auth(r); e != nil || kind != keySecret {
		if e == nil {
			e = &APIError{status: http.StatusUnauthorized, Type: "invalid_request_error", Message: "The simulator's records need the secret key."}
		}
		writeError(w, e)
		return
	}
	rec, ok := s.Get(r.PathValue("id"))
	if !ok {
		writeError(w, &APIError{status: http.StatusNotFound, Type: "invalid_request_error", Code: "resource_missing", Param: "intent",
			Message: fmt.Sprintf("No such payment_intent: '%s'", r.PathValue("id"))})
		return
	}
	writeJSON(w, http.StatusOK, rec)
}

// declines are the declining payment methods: decline code and message.
var declines = map[string][2]string{
	CardDeclined:          {"generic_decline", "Your card was declined."},
	CardInsufficientFunds: {"insufficient_funds", "Your card has insufficient funds."},
}

func unexpectedState(action string, in *Intent) *APIError {
	return &APIError{status: http.StatusBadRequest, Type: "invalid_request_error", Code: "payment_intent_unexpected_state",
		Message: fmt.Sprintf("You cannot %s this PaymentIntent because it has a status of %s.", action, in.Status), PaymentIntent: in}
}

func (s *Simulator) confirm(w http.ResponseWriter, r *http.Request) {
	vals, _, e := readForm(w, r, "payment_method", "client_secret", "return_url", "expand")
	if e != nil {
		writeError(w, e)
		return
	}
	secret, _ := first(vals, "client_secret")
	pm, ok := first(vals, "payment_method")
	if !ok || pm == "" {
		pm = CardSucceeds
	}
	s.mu.Lock()
	rec, e := s.lookup(r, secret)
	if e != nil {
		s.mu.Unlock()
		writeError(w, e)
		return
	}
	in := &rec.Intent
	if in.Status != StatusRequiresPaymentMethod {
		snapshot := clone(rec).Intent
		s.mu.Unlock()
		writeError(w, unexpectedState("confirm", &snapshot))
		return
	}
	decline, declined := declines[pm]
	if !declined && !strings.HasPrefix(pm, "pm_card_") {
		s.mu.Unlock()
		writeError(w, invalid("payment_method", "resource_missing", "No such PaymentMethod: '%s'", pm))
		return
	}
	eventType := EventSucceeded
	if declined {
		eventType = EventFailed
		in.PaymentMethod, in.LatestCharge = nil, nil
		in.LastPaymentError = &APIError{Type: "card_error", Code: "card_declined", DeclineCode: decline[0], Message: decline[1]}
	} else {
		charge := newID("ch_")
		in.Status, in.AmountReceived, in.PaymentMethod, in.LatestCharge, in.LastPaymentError = StatusSucceeded, in.Amount, &pm, &charge, nil
	}
	snapshot := clone(rec).Intent
	err := s.saveLocked(in.ID)
	s.mu.Unlock()
	if err != nil {
		s.cfg.Logger.Error("processor simulator: saving intents failed", "err", err)
	}
	d := s.Send(r.Context(), eventType, snapshot)
	w.Header().Set("Simulator-Webhook-Status", strconv.Itoa(d.Status))
	if declined {
		writeError(w, &APIError{status: http.StatusPaymentRequired, Type: "card_error", Code: "card_declined", DeclineCode: decline[0],
			Message: decline[1], PaymentIntent: &snapshot})
		return
	}
	writeJSON(w, http.StatusOK, snapshot)
}

func (s *Simulator) cancel(w http.ResponseWriter, r *http.Request) {
	vals, _, e := readForm(w, r, "cancellation_reason", "expand")
	if e != nil {
		writeError(w, e)
		return
	}
	reason, _ := first(vals, "cancellation_reason")
	if reason != "" && !slices.Contains([]string{"duplicate", "fraudulent", "requested_by_customer", "abandoned"}, reason) {
		writeError(w, invalid("cancellation_reason", "parameter_invalid_string", "Invalid cancellation_reason: %s", reason))
		return
	}
	s.mu.Lock()
	rec, e := s.lookup(r, "")
	if e == nil {
		if kind, _ := s.auth(r); kind != keySecret {
			e = &APIError{status: http.StatusUnauthorized, Type: "invalid_request_error", Message: "This API call cannot be made with a publishable API key."}
		}
	}
	if e != nil {
		s.mu.Unlock()
		writeError(w, e)
		return
	}
	in := &rec.Intent
	if in.Status == StatusSucceeded || in.Status == StatusCanceled {
		snapshot := clone(rec).Intent
		s.mu.Unlock()
		writeError(w, unexpectedState("cancel", &snapshot))
		return
	}
	now := time.Now().Unix()
	in.Status, in.CanceledAt = StatusCanceled, &now
	if reason != "" {
		in.CancellationReason = &reason
	}
	snapshot := clone(rec).Intent
	err := s.saveLocked(in.ID)
	s.mu.Unlock()
	if err != nil {
		s.cfg.Logger.Error("processor simulator: saving intents failed", "err", err)
	}
	d := s.Send(r.Context(), EventCanceled, snapshot)
	w.Header().Set("Simulator-Webhook-Status", strconv.Itoa(d.Status))
	writeJSON(w, http.StatusOK, snapshot)
}

// Send delivers an event of type about in to the webhook, signed, records the
// delivery on the intent and returns it.
func (s *Simulator) Send(ctx context.Context, eventType string, in Intent) Delivery {
	id, body := newEvent(eventType, in)
	d := Delivery{EventID: id, Type: eventType, At: time.Now().UnixMilli()}
	if s.cfg.WebhookURL == "" {
		d.Error = "no webhook URL configured"
	} else {
		d.Status, d.Body, d.Error = s.post(ctx, body)
	}
	level := slog.LevelInfo
	if !d.OK() {
		level = slog.LevelWarn
	}
	s.cfg.Logger.Log(ctx, level, "processor simulator: webhook sent", "eventId", d.EventID, "eventType", eventType,
		"paymentIntentId", in.ID, "status", d.Status, "err", d.Error)
	s.mu.Lock()
	if rec, ok := s.state.Intents[in.ID]; ok {
		rec.Deliveries = append(rec.Deliveries, d)
		if err := s.saveLocked(in.ID); err != nil {
			s.cfg.Logger.Error("processor simulator: saving intents failed", "err", err)
		}
	}
	s.mu.Unlock()
	return d
}

func (s *Simulator) post(ctx context.Context, body []byte) (int, string, string) {
	// Not the caller's context alone: a client that hangs up must not leave
	// the event half sent.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.WebhookURL, bytes.NewReader(body))
	if err != nil {
		return 0, "", err.Error()
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "marketplace-processor-simulator/1.0")
	req.Header.Set("processor-signature", Sign(s.cfg.WebhookSecret, body, time.Now()))
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, "", err.Error()
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 2000))
	return resp.StatusCode, string(answer), ""
}

// saveLocked writes an intent's record to Dir (s.mu held).
func (s *Simulator) saveLocked(id string) error {
	rec, ok := s.state.Intents[id]
	if s.cfg.Dir == "" || !ok {
		return nil
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(s.cfg.Dir, intentsDir, id+".json"), b)
}

// saveKeyLocked writes an idempotency key's entry to Dir (s.mu held).
func (s *Simulator) saveKeyLocked(key string) error {
	k, ok := s.state.Idempotency[key]
	if s.cfg.Dir == "" || key == "" || !ok {
		return nil
	}
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(s.cfg.Dir, keysDir, fingerprint(key)+".json"), b)
}

// writeFile replaces path atomically.
func writeFile(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Request-Id", newID("req_"))
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, e *APIError) {
	status := e.status
	if status == 0 {
		status = http.StatusBadRequest
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func fingerprint(raw string) string {
	h := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(h[:])
}

const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomToken is n random letters and digits (the slight bias of the modulo
// does not matter for ids).
func randomToken(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return string(b)
}

func newID(prefix string) string { return prefix + randomToken(24) }
