// Package systemtest starts the whole system in-process on the embedded engines
// (in memory) and calls it over HTTP, as a client would. Black-box tests and the
// benchmarks use it.
package systemtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"marketplace/deploy/system"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/serviceauth"
	"marketplace/libs/store"
)

// The processor settings every test system runs with.
const (
	WebhookSecret  = "whsec_test_secret"
	PublishableKey = "pk_test_marketplace"
)

// Sys is a running system.
type Sys struct {
	system.Info
	HTTP *http.Client
	tb   testing.TB
}

// Option adjusts the environment or options of a system before it starts.
type Option func(env map[string]string, o *system.Options)

// WithEnv sets an environment variable for the system.
func WithEnv(k, v string) Option {
	return func(env map[string]string, _ *system.Options) { env[k] = v }
}

// WithDataDir runs on files under dir instead of memory (restart tests).
func WithDataDir(dir string) Option {
	return func(env map[string]string, o *system.Options) { env["DATA_DIR"] = dir; o.Memory = false }
}

// WithModules runs only the given modules (for example, without one whose
// absence a test needs).
func WithModules(m ...service.Module) Option {
	return func(_ map[string]string, o *system.Options) { o.Modules = m }
}

// WithGatewayResolver wraps the discovery the gateway (alone) uses, e.g. to
// make a running service unreachable to it.
func WithGatewayResolver(wrap func(ops.Resolver) ops.Resolver) Option {
	return func(_ map[string]string, o *system.Options) { o.GatewayResolver = wrap }
}

// WithServiceResolver wraps the discovery the services use to call one
// another (a test holds a call in transit, or sends it elsewhere).
func WithServiceResolver(wrap func(ops.Resolver) ops.Resolver) Option {
	return func(_ map[string]string, o *system.Options) { o.ServiceResolver = wrap }
}

// WithClock makes now every service's clock (Env.Now), so tests move time
// instead of sleeping.
func WithClock(now func() time.Time) Option {
	return func(_ map[string]string, o *system.Options) { o.Now = now }
}

// WithTracerProvider sends every span of the system to tp, and makes the HTTP
// servers trace as with an OTLP endpoint: a trace test passes a provider with
// an in-memory exporter (go.opentelemetry.io/otel/sdk/trace/tracetest). The
// provider becomes the process's global one while the system runs.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(_ map[string]string, o *system.Options) { o.TracerProvider = tp }
}

// WithMemoryLimit gives every embedded database of the system lim as its
// DB_MEMORY_LIMIT, whose heap reading the test sets (store.MemoryLimit's
// SetHeapReader) instead of allocating gigabytes.
func WithMemoryLimit(lim *store.MemoryLimit) Option {
	return func(_ map[string]string, o *system.Options) { o.MemoryLimit = lim }
}

// WithRelayFault installs the outbox relay's crash-test fault point.
func WithRelayFault(f func() error) Option {
	return func(_ map[string]string, o *system.Options) { o.RelayFault = f }
}

// running holds the systems running now: a start's number to its test's name.
var (
	running sync.Map
	starts  atomic.Uint64
)

// Running names the tests whose systems run now, sorted (deploy/e2e's heap
// watch names them beside a reading).
func Running() []string {
	var names []string
	running.Range(func(_, name any) bool {
		names = append(names, name.(string))
		return true
	})
	slices.Sort(names)
	return slices.Compact(names) // (a test may run two systems)
}

// Start runs a fresh in-memory system for the test and stops it at cleanup.
func Start(tb testing.TB, opts ...Option) *Sys {
	tb.Helper()
	n := starts.Add(1)
	running.Store(n, tb.Name())
	tb.Cleanup(func() { running.Delete(n) }) // (runs after the system's own cleanup below)
	env := map[string]string{
		"LOG_LEVEL":                 "warn",
		"ACCESS_LOG":                "false",
		"RATE_LIMIT_RPS":            "0",
		"PROCESSOR_WEBHOOK_SECRET":  WebhookSecret,
		"PROCESSOR_PUBLISHABLE_KEY": PublishableKey,
		// Every system its own metrics port (Info.MetricsURL): tests run side by side.
		"METRICS_ADDR": "127.0.0.1:0",
		// Tests upload photos back to back: the per-user upload rate is off
		// (its own tests turn it on with WithEnv).
		"MEDIA_UPLOAD_INTERVAL": "0",
	}
	o := system.Options{Memory: true}
	// The same tests run against real servers when the containers suite
	// (deploy/containers) hands them over; each system gets its own databases.
	if uri := os.Getenv("MARKETPLACE_TEST_MONGODB_URI"); uri != "" {
		env["MONGODB_URI"] = uri
		env["DB_NAME_PREFIX"] = fmt.Sprintf("t%d_", time.Now().UnixNano())
	}
	if brokers := os.Getenv("MARKETPLACE_TEST_KAFKA_BROKERS"); brokers != "" {
		env["KAFKA_BROKERS"] = brokers
	}
	for _, f := range opts {
		f(env, &o)
	}
	o.Getenv = func(k string) string { return env[k] }
	if testing.Verbose() {
		o.Stdout = os.Stderr
	} else {
		o.Stdout = io.Discard
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	o.Listener = ln
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan system.Info, 1)
	o.OnReady = func(i system.Info) { ready <- i }
	done := make(chan error, 1)
	go func() { done <- system.Run(ctx, o) }()
	s := &Sys{HTTP: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}, tb: tb}
	select {
	case s.Info = <-ready:
	case err := <-done:
		cancel()
		tb.Fatalf("system did not start: %v", err)
	case <-time.After(30 * time.Second):
		cancel()
		tb.Fatal("system did not start within 30s")
	}
	tb.Cleanup(func() {
		// Idle keep-alive connections would hold the servers' graceful shutdown.
		s.HTTP.CloseIdleConnections()
		cancel()
		select {
		case err := <-done:
			if err != nil {
				tb.Errorf("system stopped with: %v", err)
			}
		case <-time.After(20 * time.Second):
			tb.Error("system did not stop within 20s")
		}
	})
	return s
}

// Token mints a development token for sub with roles.
func (s *Sys) Token(sub string, roles ...string) string {
	tok, err := auth.Mint([]byte(s.DevSecret), sub, roles, time.Hour, auth.Options{})
	if err != nil {
		s.tb.Fatal(err)
	}
	return tok
}

// NamedToken is Token with the person's name in the token's `name` claim.
func (s *Sys) NamedToken(sub, name string, roles ...string) string {
	tok, err := auth.MintNamed([]byte(s.DevSecret), sub, name, roles, time.Hour, auth.Options{})
	if err != nil {
		s.tb.Fatal(err)
	}
	return tok
}

// CallsAs is a client of the services' own addresses that signs its calls as
// service, with that service's key of this run: a test calls internal
// operations as that service would (or as one the callee does not accept).
func (s *Sys) CallsAs(service string) *ops.Client {
	s.tb.Helper()
	key, ok := s.ServiceKeys[service]
	if !ok {
		s.tb.Fatalf("no service %q runs", service)
	}
	return ops.NewClient(discovery.NewStatic(s.Services), serviceauth.NewSigner(service, key, nil), 5*time.Second)
}

// Assertion is service's assertion for a call to callee (the value of
// serviceauth.Header), signed with service's key of this run.
func (s *Sys) Assertion(service, callee string) string {
	s.tb.Helper()
	key, ok := s.ServiceKeys[service]
	if !ok {
		s.tb.Fatalf("no service %q runs", service)
	}
	a, err := serviceauth.NewSigner(service, key, nil).Assertion(callee)
	if err != nil {
		s.tb.Fatal(err)
	}
	return a
}

// Result is a response: the status and the raw body, decodable on demand.
type Result struct {
	Status int
	Body   []byte
	Header http.Header
}

// Decode unmarshals the body into v, failing the test on error.
func (r Result) Decode(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		tb.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Map is the body as a generic JSON object.
func (r Result) Map(tb testing.TB) map[string]any {
	tb.Helper()
	var m map[string]any
	r.Decode(tb, &m)
	return m
}

// Code is the error code of an error body ("" for success bodies).
func (r Result) Code() string {
	var e struct {
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Error.Code
}

// Query calls /api/query; token may be "".
func (s *Sys) Query(token, path string, args any) Result {
	return s.op("query", token, path, args)
}

// Mutation calls /api/mutation; token may be "".
func (s *Sys) Mutation(token, path string, args any) Result {
	return s.op("mutation", token, path, args)
}

func (s *Sys) op(kind, token, path string, args any) Result {
	s.tb.Helper()
	body := map[string]any{"path": path}
	if args != nil {
		body["args"] = args
	}
	b, _ := json.Marshal(body)
	return s.Do("POST", "/api/"+kind, bytes.NewReader(b), map[string]string{"Authorization": bearer(token), "Content-Type": "application/json"})
}

func bearer(token string) string {
	if token == "" {
		return ""
	}
	return "Bearer " + token
}

// Do sends a raw request to the gateway.
func (s *Sys) Do(method, path string, body io.Reader, headers map[string]string) Result {
	s.tb.Helper()
	return s.DoAt(s.BaseURL, method, path, body, headers)
}

// DoAt sends a raw request to base (the gateway, or a service's own address
// from Services, bypassing the gateway).
func (s *Sys) DoAt(base, method, path string, body io.Reader, headers map[string]string) Result {
	s.tb.Helper()
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		s.tb.Fatal(err)
	}
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := s.HTTP.Do(req)
	if err != nil {
		s.tb.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return Result{Status: resp.StatusCode, Body: b, Header: resp.Header}
}

// Metrics scrapes the system's /metrics (Info.MetricsURL) and returns the
// text exposition.
func (s *Sys) Metrics() string {
	s.tb.Helper()
	if s.MetricsURL == "" {
		s.tb.Fatal("the system serves no metrics")
	}
	r := s.DoAt(strings.TrimSuffix(s.MetricsURL, "/metrics"), "GET", "/metrics", nil, nil)
	if r.Status != 200 {
		s.tb.Fatalf("GET %s: %d %s", s.MetricsURL, r.Status, r.Body)
	}
	return string(r.Body)
}

// MustOK fails the test unless r is a 200, and returns it.
func MustOK(tb testing.TB, r Result) Result {
	tb.Helper()
	if r.Status != 200 {
		tb.Fatalf("want 200, got %d %s", r.Status, strings.TrimSpace(string(r.Body)))
	}
	return r
}

// Expect fails the test unless r is an error with code and that code's status.
func Expect(tb testing.TB, r Result, code string) {
	tb.Helper()
	if r.Code() != code || r.Status != apperr.Code(code).Status() {
		tb.Fatalf("want %s (%d), got %d %s", code, apperr.Code(code).Status(), r.Status, strings.TrimSpace(string(r.Body)))
	}
}

// Concurrently runs call(0..n-1) on n goroutines released together, so the calls
// really race, and returns their results in order.
func Concurrently(n int, call func(i int) Result) []Result {
	results := make([]Result, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			results[i] = call(i)
		}()
	}
	close(start)
	wg.Wait()
	return results
}

// CountOK counts the 200s among results; every other result must be an error with code.
func CountOK(tb testing.TB, results []Result, code string) int {
	tb.Helper()
	ok := 0
	for _, r := range results {
		if r.Status == 200 {
			ok++
			continue
		}
		Expect(tb, r, code)
	}
	return ok
}
