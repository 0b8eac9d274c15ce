package ops

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/version"
)

// A callee of the current release, and callers of a next one: the arguments
// of t.items.get at the callee, and those a newer caller sends.
type calleeArgs struct {
	Name string `json:"name" op:"required"`
}

type newerArgs struct {
	Name  string  `json:"name" op:"required"`
	Extra *string `json:"extra,omitempty"` // optional, new in the next release
	More  *int    `json:"more,omitempty"`  // another one
}

type newerRequiredArgs struct {
	Name  string `json:"name" op:"required"`
	Extra string `json:"extra" op:"required"` // required by the next release
}

// calleeAnswer is the callee's answer; olderAnswer is what an older caller
// reads of it.
type calleeAnswer struct {
	Name  string `json:"name"`
	Added string `json:"added"`
}

type olderAnswer struct {
	Name string `json:"name"`
}

// testCallee serves a registry as another service's server does once it has
// verified the caller (every call reaches internal operations), records the
// arguments of every call, and declares in GET /ops what declare returns
// (nil: what its registry declares).
type testCallee struct {
	url       string
	reg       *Registry
	contracts version.Contracts
	mu        sync.Mutex
	calls     []map[string]json.RawMessage
	declare   func() []Descriptor
	refuse    string // an argument refused as unknown, as a release without it does
	opsAsked  int
}

func startCallee(t *testing.T, reg *Registry, contracts version.Contracts) *testCallee {
	t.Helper()
	tc := &testCallee{reg: reg, contracts: contracts}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/ops", func(c *fiber.Ctx) error {
		tc.mu.Lock()
		tc.opsAsked++
		declare := tc.declare
		tc.mu.Unlock()
		descs := reg.Describe()
		if declare != nil {
			descs = declare()
		}
		return c.JSON(fiber.Map{"service": reg.Service, "contracts": tc.contracts, "operations": descs})
	})
	app.Post("/api/:kind", func(c *fiber.Ctx) error {
		req, err := ParseRequest(c.BodyRaw())
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		var args map[string]json.RawMessage
		_ = json.Unmarshal(req.Args, &args)
		tc.mu.Lock()
		tc.calls = append(tc.calls, args)
		refuse := tc.refuse
		tc.mu.Unlock()
		if refuse != "" && has(args, refuse) {
			return httpserver.WriteError(c, apperr.Invalid(refuse, msgUnknownArgument))
		}
		res, err := reg.Invoke(c.UserContext(), Kind(c.Params("kind")), req.Path, req.Args, true)
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		b, err := encodeAnswer(res)
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(b)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	tc.url = "http://" + ln.Addr().String()
	return tc
}

// sent are the arguments of the calls the callee received since the last look.
func (tc *testCallee) sent() []map[string]json.RawMessage {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	out := tc.calls
	tc.calls = nil
	return out
}

func currentCallee(t *testing.T, contracts version.Contracts) *testCallee {
	return startCallee(t, NewRegistry("shop",
		NewQuery("t.items.get", Internal, "", func(_ context.Context, a *calleeArgs) (calleeAnswer, error) {
			return calleeAnswer{Name: a.Name, Added: "new"}, nil
		})), contracts)
}

// callerOf is a Client of the services in urls (which prove nothing: the
// test callees take every call as a service's).
func callerOf(urls map[string]string) *Client {
	return &Client{resolver: staticResolver(urls), timeout: 2 * time.Second, hc: &fasthttp.Client{}, callees: newCallees()}
}

func has(args map[string]json.RawMessage, name string) bool { _, ok := args[name]; return ok }

// TestNewerCallerLeavesOutWhatTheCalleeDoesNotDeclare: a caller of a next
// release sends an optional argument its callee's release does not know. The
// first call is refused as an unknown argument before the operation runs, and
// is sent once more without it; the caller reads the callee's declarations
// then, and from then on leaves the argument out from the start. The newer
// caller of a callee that declares it sends it, and never asks its GET /ops.
func TestNewerCallerLeavesOutWhatTheCalleeDoesNotDeclare(t *testing.T) {
	callee := currentCallee(t, version.Contracts{Public: "1.0.0", Internal: "1.0.0", Events: "1.0.0"})
	c := callerOf(map[string]string{"shop": callee.url})
	extra := "x"
	var out calleeAnswer
	if err := c.Query(context.Background(), "shop", "t.items.get", newerArgs{Name: "a", Extra: &extra}, &out); err != nil || out.Name != "a" {
		t.Fatalf("first call: %v %+v", err, out)
	}
	calls := callee.sent()
	if len(calls) != 2 || !has(calls[0], "extra") || has(calls[1], "extra") || !has(calls[1], "name") {
		t.Fatalf("first call: the callee received %v, want it with extra, then without", calls)
	}
	for range 3 {
		if err := c.Query(context.Background(), "shop", "t.items.get", newerArgs{Name: "b", Extra: &extra}, &out); err != nil || out.Name != "b" {
			t.Fatalf("later call: %v %+v", err, out)
		}
	}
	if calls := callee.sent(); len(calls) != 3 || has(calls[0], "extra") || has(calls[2], "extra") {
		t.Fatalf("later calls: the callee received %v, want each once without extra", calls)
	}
	callee.mu.Lock()
	asked := callee.opsAsked
	callee.mu.Unlock()
	if asked > 2 {
		t.Errorf("GET /ops asked %d times for 4 calls", asked)
	}

	// A callee that declares it gets it.
	newer := startCallee(t, NewRegistry("shop",
		NewQuery("t.items.get", Internal, "", func(_ context.Context, a *newerArgs) (string, error) {
			if a.Extra == nil {
				return "", nil
			}
			return *a.Extra, nil
		})),
		version.Contracts{Internal: "1.1.0"})
	c = callerOf(map[string]string{"shop": newer.url})
	for range 2 {
		var got string
		if err := c.Query(context.Background(), "shop", "t.items.get", newerArgs{Name: "a", Extra: &extra}, &got); err != nil || got != "x" {
			t.Fatalf("newer callee: %v %q", err, got)
		}
	}
	if calls := newer.sent(); len(calls) != 2 || !has(calls[0], "extra") || !has(calls[1], "extra") {
		t.Fatalf("newer callee received %v", calls)
	}
	newer.mu.Lock()
	defer newer.mu.Unlock()
	if newer.opsAsked != 0 {
		t.Fatalf("GET /ops of a callee that refused nothing asked %d times", newer.opsAsked)
	}
}

// TestOlderCallerOfANewerCallee: a caller of the current release calls a
// callee of a next one, which declares an optional argument more and answers
// a field more: the caller sends what it knows and reads what it knows.
func TestOlderCallerOfANewerCallee(t *testing.T) {
	callee := startCallee(t, NewRegistry("shop",
		NewQuery("t.items.get", Internal, "", func(_ context.Context, a *newerArgs) (calleeAnswer, error) {
			return calleeAnswer{Name: a.Name, Added: "new"}, nil
		})), version.Contracts{Public: "1.1.0", Internal: "1.1.0", Events: "1.1.0"})
	c := callerOf(map[string]string{"shop": callee.url})
	for range 2 {
		var out olderAnswer
		if err := c.Query(context.Background(), "shop", "t.items.get", calleeArgs{Name: "a"}, &out); err != nil || out.Name != "a" {
			t.Fatalf("%v %+v", err, out)
		}
	}
	if calls := callee.sent(); len(calls) != 2 {
		t.Fatalf("the callee received %v", calls)
	}
}

// TestRollingDeployRetriesOnce: the declarations say the callee takes the
// optional arguments (a newer instance answered GET /ops), but the calls
// reach an older instance, which refuses them: each refusal is followed by
// at most one more call, without the argument refused.
func TestRollingDeployRetriesOnce(t *testing.T) {
	callee := currentCallee(t, version.Contracts{Internal: "1.0.0"})
	newer := NewRegistry("shop", NewQuery("t.items.get", Internal, "", func(context.Context, *newerArgs) (string, error) { return "", nil }))
	callee.declare = newer.Describe
	c := callerOf(map[string]string{"shop": callee.url})
	extra, more := "x", 2
	ctx := context.Background()
	for i := range 2 { // the second knows the declarations, which declare extra
		var out calleeAnswer
		if err := c.Query(ctx, "shop", "t.items.get", newerArgs{Name: "a", Extra: &extra}, &out); err != nil || out.Name != "a" {
			t.Fatalf("call %d, one unknown optional argument: %v", i, err)
		}
		if calls := callee.sent(); len(calls) != 2 || !has(calls[0], "extra") || has(calls[1], "extra") {
			t.Fatalf("call %d: the callee received %v, want with extra, then without", i, calls)
		}
	}
	var out calleeAnswer
	// Two unknown arguments: one retry only, and the second refusal stands,
	// as UNAVAILABLE naming the callee's version (never as the callee's
	// INVALID_ARGUMENT, which the caller's own caller would take for its own).
	err := c.Query(ctx, "shop", "t.items.get", newerArgs{Name: "a", Extra: &extra, More: &more}, &out)
	if e := apperr.From(err); e.Code != apperr.Unavailable || e.Details["reason"] != ReasonContractVersionUnsupported || e.Details["argument"] != "more" {
		t.Fatalf("two unknown arguments: %v", err)
	}
	if calls := callee.sent(); len(calls) != 2 {
		t.Fatalf("the callee received %d calls, want 2 (one retry): %v", len(calls), calls)
	}
}

// TestRequiredArgumentTheCalleeDoesNotKnow: an argument the caller requires
// and the callee does not declare is not left out: the call fails
// UNAVAILABLE naming the callee's internal contract version, and once the
// declarations are known it is not even sent. Every key of a map counts as
// required.
func TestRequiredArgumentTheCalleeDoesNotKnow(t *testing.T) {
	callee := currentCallee(t, version.Contracts{Public: "1.0.0", Internal: "1.3.1", Events: "1.0.0"})
	c := callerOf(map[string]string{"shop": callee.url})
	check := func(err error) {
		t.Helper()
		e := apperr.From(err)
		if e.Code != apperr.Unavailable || e.Details["reason"] != ReasonContractVersionUnsupported || e.Details["declared"] != "1.3.1" ||
			e.Details["argument"] != "extra" || !strings.Contains(e.Message, "shop implements internal contract 1.3.1") {
			t.Fatalf("got %v %v, want UNAVAILABLE naming internal contract 1.3.1", err, e.Details)
		}
	}
	ctx := context.Background()
	check(c.Query(ctx, "shop", "t.items.get", newerRequiredArgs{Name: "a", Extra: "x"}, nil))
	if calls := callee.sent(); len(calls) != 1 {
		t.Fatalf("first call: the callee received %v, want one refused call", calls)
	}
	check(c.Query(ctx, "shop", "t.items.get", newerRequiredArgs{Name: "a", Extra: "x"}, nil))
	check(c.Query(ctx, "shop", "t.items.get", map[string]any{"name": "a", "extra": "x"}, nil))
	if calls := callee.sent(); len(calls) != 0 {
		t.Fatalf("the callee received %v, want nothing once its declarations are known", calls)
	}
	// What the callee declares still goes through.
	if err := c.Query(ctx, "shop", "t.items.get", map[string]any{"name": "a"}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestCalleeWithoutDeclarations: a callee whose GET /ops does not answer
// declarations still has an optional argument it refuses left out of the
// call sent again (each time: nothing says it may be left out from the start).
func TestCalleeWithoutDeclarations(t *testing.T) {
	var mu sync.Mutex
	var got []string
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Post("/api/query", func(c *fiber.Ctx) error {
		req, _ := ParseRequest(c.BodyRaw())
		mu.Lock()
		got = append(got, string(req.Args))
		mu.Unlock()
		if strings.Contains(string(req.Args), `"extra"`) {
			return httpserver.WriteError(c, apperr.Invalid("extra", msgUnknownArgument))
		}
		return c.JSON("ok")
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	c := callerOf(map[string]string{"plain": "http://" + ln.Addr().String()})
	extra := "x"
	for range 2 {
		var out string
		if err := c.Query(context.Background(), "plain", "t.items.get", newerArgs{Name: "a", Extra: &extra}, &out); err != nil || out != "ok" {
			t.Fatal(err, out)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 4 || !strings.Contains(got[2], "extra") || strings.Contains(got[3], "extra") {
		t.Fatalf("sent %q", got)
	}
}

func TestArgNamesOf(t *testing.T) {
	type embedded struct {
		Inner *string `json:"inner,omitempty"`
	}
	type args struct {
		embedded
		Req    string   `json:"req" op:"required"`
		Plain  string   `json:"plain"`
		Empty  string   `json:"empty,omitempty"`
		Ptr    *int     `json:"ptr"`
		List   []string `json:"list" op:"max=3"`
		Skip   string   `json:"-"`
		hidden string
	}
	_ = args{}.hidden
	got := map[string]bool{}
	for _, a := range argNamesOf(&args{}) {
		got[a.name] = a.required
	}
	want := map[string]bool{"inner": false, "req": true, "plain": true, "empty": false, "ptr": false, "list": false}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if r, ok := got[k]; !ok || r != v {
			t.Errorf("%s: required %v (present %v), want %v", k, r, ok, v)
		}
	}
	if n := argNamesOf(map[string]int{"a": 1}); len(n) != 1 || !n[0].required {
		t.Errorf("map: %v", n)
	}
	for _, v := range []any{nil, json.RawMessage(`{"a":1}`), (*args)(nil), 5} {
		if n := argNamesOf(v); n != nil {
			t.Errorf("%T: %v", v, n)
		}
	}
}

// TestUnknownArgumentIsRecognised: the refusal the strict decoder writes is
// the one a Client recognises (top-level arguments only).
func TestUnknownArgumentIsRecognised(t *testing.T) {
	err := Decode([]byte(`{"name":"a","extra":1}`), &calleeArgs{})
	status, body := apperr.Body(err)
	e, _ := apperr.Parse(status, body)
	if name, ok := unknownArgument(e); !ok || name != "extra" {
		t.Fatalf("%s: %q %v", body, name, ok)
	}
	// With a suggestion ("names: unknown argument; did you mean name?").
	status, body = apperr.Body(Decode([]byte(`{"name":"a","names":1}`), &calleeArgs{}))
	e, _ = apperr.Parse(status, body)
	if name, ok := unknownArgument(e); !ok || name != "names" || !strings.HasSuffix(e.Message, "; did you mean name?") {
		t.Fatalf("%s: %q %v", body, name, ok)
	}
	type outer struct {
		In *calleeArgs `json:"in"`
	}
	status, body = apperr.Body(Decode([]byte(`{"in":{"name":"a","x":1}}`), &outer{}))
	e, _ = apperr.Parse(status, body)
	if name, ok := unknownArgument(e); ok {
		t.Fatalf("nested %s recognised as %q", body, name)
	}
	if _, ok := unknownArgument(apperr.Invalid("name", "is required")); ok {
		t.Fatal("another refusal recognised")
	}
}
