package ops

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"marketplace/libs/apperr"
	"marketplace/libs/logtest"
)

// callersRegistry is a callee whose two declared callers (payments, reviews)
// may each call only some of its internal operations.
func callersRegistry() *Registry {
	ok := func(context.Context, *NoArgs) (string, error) { return "ok", nil }
	return NewRegistry("t",
		NewMutation("t.orders.create", Internal, "", ok, CalledBy("payments")),
		NewQuery("t.orders.facts", Internal, "", ok, CalledBy("reviews", "payments", "reviews")),
		NewQuery("t.files.check", Internal, "", ok, CalledBy()),
		NewQuery("t.stores.get", Public, "", ok),
	)
}

// TestInternalOperationsAcceptOnlyTheirCallers: a verified call of a service
// the callee accepts (INTERNAL_CALLERS) reaches only the internal operations
// that name it (CalledBy); any other is refused as an undeclared caller is
// (NOT_FOUND, an unknown operation), logged at warn and counted with reason
// not_a_caller_of_operation, and the calling client gets INTERNAL. An
// operation declared with CalledBy() answers no service. Public operations
// serve every caller. GET /ops publishes each internal operation's callers.
func TestInternalOperationsAcceptOnlyTheirCallers(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	peers := newTestPeers(t, "t", "payments", "reviews")
	var logs logtest.Buffer
	app := fiber.New()
	(&Server{Registry: callersRegistry(), Peers: peers.verifier, Callers: []string{"payments", "reviews"},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))}).Mount(app)
	call := func(kind Kind, path, caller string) (int, string) {
		t.Helper()
		req := httptest.NewRequest(http.MethodPost, "/api/"+string(kind), strings.NewReader(`{"path":"`+path+`"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Service-Assertion", peers.assertion(caller, "t"))
		resp, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}

	type callCase struct {
		kind         Kind
		path, caller string
	}
	reached := []callCase{
		{Mutation, "t.orders.create", "payments"},
		{Query, "t.orders.facts", "payments"},
		{Query, "t.orders.facts", "reviews"},
		{Query, "t.stores.get", "reviews"},
		{Query, "t.stores.get", "payments"},
	}
	refused := []callCase{
		{Mutation, "t.orders.create", "reviews"},
		{Query, "t.files.check", "payments"},
		{Query, "t.files.check", "reviews"},
	}
	for _, c := range reached {
		if st, body := call(c.kind, c.path, c.caller); st != 200 || body != `"ok"` {
			t.Errorf("%s calling %s: %d %s", c.caller, c.path, st, body)
		}
	}
	for _, c := range refused {
		if st, body := call(c.kind, c.path, c.caller); st != 404 || !strings.Contains(body, `"reason":"unknown_operation"`) {
			t.Errorf("%s calling %s: %d %s, want the unknown operation's answer", c.caller, c.path, st, body)
		}
	}

	recs := logs.Records(t)
	if len(recs) != len(refused) {
		t.Fatalf("%d log lines for %d refusals: %s", len(recs), len(refused), logs.String())
	}
	counts := refusedCalls(t, reader)
	for i, c := range refused {
		r := recs[i]
		if r["level"] != "WARN" || r["msg"] != "internal call refused" || r["callee"] != "t" || r["caller"] != c.caller ||
			r["operation"] != c.path || r["reason"] != RefusedNotACallerOfOperation {
			t.Errorf("%s calling %s: log %v", c.caller, c.path, r)
		}
		if n := counts[[4]string{"t", c.caller, c.path, RefusedNotACallerOfOperation}]; n != 1 {
			t.Errorf("%s calling %s: counted %d times (%v)", c.caller, c.path, n, counts)
		}
	}
	if len(counts) != len(refused) {
		t.Errorf("series %v", counts)
	}

	// Through the client: a call outside the operation's callers is the
	// calling service's own bug, INTERNAL; its callers' calls go through.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	defer app.Shutdown()
	res := staticResolver{"t": "http://" + ln.Addr().String()}
	var s string
	if err := NewClient(res, peers.signer("reviews"), 2*time.Second).Mutation(context.Background(), "t", "t.orders.create", nil, &s); apperr.CodeOf(err) != apperr.Internal {
		t.Fatalf("reviews calling t.orders.create through the client: %v", err)
	}
	if err := NewClient(res, peers.signer("payments"), 2*time.Second).Mutation(context.Background(), "t", "t.orders.create", nil, &s); err != nil || s != "ok" {
		t.Fatalf("payments calling t.orders.create through the client: %q %v", s, err)
	}

	// GET /ops: each internal operation's callers, sorted and once each;
	// none on CalledBy() and on public operations.
	resp, err := app.Test(httptest.NewRequest(http.MethodGet, "/ops", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Operations []map[string]json.RawMessage `json:"operations"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&d); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"t.orders.create": `["payments"]`, "t.orders.facts": `["payments","reviews"]`, "t.files.check": "", "t.stores.get": ""}
	for _, op := range d.Operations {
		var path string
		_ = json.Unmarshal(op["path"], &path)
		if got := string(op["callers"]); got != want[path] {
			t.Errorf("GET /ops: %s callers %s, want %q", path, got, want[path])
		}
	}
	if len(d.Operations) != len(want) {
		t.Errorf("GET /ops: %d operations", len(d.Operations))
	}
}

// TestEveryInternalOperationDeclaresItsCallers: Registry.Check (run by every
// service at start) refuses an internal operation without CalledBy, so an
// operation cannot be left open or shut by omission; CalledBy() passes.
// CalledBy on an operation that is not internal is a declaration error.
func TestEveryInternalOperationDeclaresItsCallers(t *testing.T) {
	ok := func(context.Context, *NoArgs) (string, error) { return "ok", nil }
	r := NewRegistry("t", NewQuery("t.files.check", Internal, "", ok), NewQuery("t.files.list", Internal, "", ok, CalledBy("reviews")))
	if err := r.Check(); err == nil || !strings.Contains(err.Error(), "t.files.check") || !strings.Contains(err.Error(), "ops.CalledBy") {
		t.Fatalf("an internal operation without callers: %v", err)
	}
	if err := callersRegistry().Check(); err != nil {
		t.Fatalf("declared callers: %v", err)
	}
	if c, ok := callersRegistry().CallersOf("t.orders.facts"); !ok || !slices.Equal(c, []string{"payments", "reviews"}) {
		t.Errorf("CallersOf: %v %v", c, ok)
	}
	if c, ok := callersRegistry().CallersOf("t.files.check"); !ok || len(c) != 0 {
		t.Errorf("CallersOf, none: %v %v", c, ok)
	}
	if _, ok := callersRegistry().CallersOf("t.stores.get"); ok {
		t.Error("CallersOf a public operation")
	}
	for _, access := range []Access{Public, Authenticated, Admin} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(p.(string), "only for internal operations") {
					t.Errorf("%s with CalledBy: %v", access, p)
				}
			}()
			NewQuery("t.stores.get", access, "", ok, CalledBy("reviews"))
		}()
	}
}
