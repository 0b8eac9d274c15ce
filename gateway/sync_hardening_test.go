package gateway

// The sync protocol's edges found in review: version bookkeeping, whose token
// a shared live query runs with, the socket's budgets, writes whose outcome
// is unknown, a service down under a live subscription, and arbitrary frames.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/gateway/convex"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
)

// Adding and removing a query in one ModifyQuerySet: the query set version is
// reached at once (nothing is left to wait for), and later versions follow.
func TestSyncAddAndRemoveInOneMessage(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	c := dialSync(t, gw)
	connect(c, "s-add-remove", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{
		add(0, "board/notes:count", map[string]any{}), map[string]any{"type": "Remove", "queryId": 0}}})
	tr := c.expect("Transition")
	if qs, _ := version(tr, "endVersion"); qs != 1 || mods(tr)[0]["type"] != "QueryRemoved" {
		t.Fatalf("add and remove: %v", tr)
	}
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{
		add(1, "board/notes:count", map[string]any{})}})
	tr = c.until("Transition")
	if qs, _ := version(tr, "endVersion"); qs != 2 || mods(tr)[1]["type"] != "QueryUpdated" {
		t.Fatalf("the next version: %v", tr)
	}
}

// Subscriptions draw on a per-caller budget (CONVEX_MAX_QUERIES_PER_CONNECTION
// at once, refilled at RATE_LIMIT_RPS): adding and removing queries in a loop
// does not run queries at the services faster than that; over budget, the
// socket's next messages wait, and the queries are answered in the end.
func TestSyncQueryChurnIsRateLimited(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxQueriesPerConnection = 10
		c.RateLimitRPS, c.RateLimitBurst = 20, 100
	})
	c := dialSync(t, gw)
	connect(c, "s-churn", "")
	const rounds = 5
	start := time.Now()
	for r := range rounds {
		var m []any
		for i := range 10 {
			if r > 0 {
				m = append(m, map[string]any{"type": "Remove", "queryId": (r-1)*10 + i})
			}
			m = append(m, add(r*10+i, "board/notes:count", map[string]any{"min": r*10 + i}))
		}
		c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": r, "newVersion": r + 1, "modifications": m})
	}
	time.Sleep(300 * time.Millisecond)
	// 10 at once, then 20 a second (+ slack for a slow machine).
	if n, most := b.countRuns.Load(), int32(10+20*time.Since(start).Seconds())+4; n > most {
		t.Fatalf("%d query runs within %v; the budget allows %d", n, time.Since(start), most)
	}
	// The last round's queries are answered once the budget allows.
	for {
		tr := c.until("Transition")
		if qs, _ := version(tr, "endVersion"); qs == rounds {
			break
		}
	}
	if d := time.Since(start); d < time.Second {
		t.Fatalf("40 queries beyond the budget ran within %v", d)
	}
}

// Switching the socket's identity back and forth re-runs every query each
// time: it draws on the same budget, and a socket that keeps at it is closed
// (the client reconnects later), not served.
func TestSyncIdentityChurnIsRateLimited(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxQueriesPerConnection = 20
		c.RateLimitRPS, c.RateLimitBurst = 20, 100
	})
	c := dialSync(t, gw)
	connect(c, "s-flip", "")
	var m []any
	for i := range 20 {
		m = append(m, add(i, "board/notes:count", map[string]any{"min": i}))
	}
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": m})
	tok := token(t, "u1", time.Hour)
	for v := range 200 {
		msg := map[string]any{"type": "Authenticate", "tokenType": "None", "baseVersion": v}
		if v%2 == 0 {
			msg = map[string]any{"type": "Authenticate", "tokenType": "User", "value": tok, "baseVersion": v}
		}
		if err := c.ws.WriteJSON(msg); err != nil {
			break // closed
		}
	}
	c.closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	// 20 at first, 20 a second and at most the wait's bound (30 s) of debt:
	// far from 200 switches × 20 queries.
	time.Sleep(200 * time.Millisecond)
	if n := b.countRuns.Load(); n > 20+20*31+20 {
		t.Fatalf("%d runs for a socket switching identities", n)
	}
}

// A socket holds at most maxPendingMutations bytes of mutations it has not
// answered: more closes it with TooManyConcurrentMutations (1013, as Convex:
// the client reconnects later and sends them again), not gigabytes queued.
func TestSyncPendingMutationBytesAreBounded(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	b.gate = make(chan struct{})
	defer close(b.gate)
	_, gw := startConvexGateway(t, boardURL, nil)
	c := dialSync(t, gw)
	connect(c, "s-big", token(t, "u1", time.Hour))
	big := strings.Repeat("x", 3<<20)
	for i := range 4 {
		if err := c.ws.WriteJSON(map[string]any{"type": "Mutation", "requestId": i, "udfPath": "board/notes:add",
			"args": []any{map[string]any{"text": big + string(rune('a'+i))}}}); err != nil {
			break
		}
	}
	c.closedWith(fws.CloseTryAgainLater, "TooManyConcurrentMutations")
}

// A mutation whose outcome the gateway does not know (the service answered
// after the upstream timeout, so the caller got UNAVAILABLE) may have written:
// subscriptions run again, over HTTP and over a socket.
func TestSyncWriteOfUnknownOutcomeRerunsQueries(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.UpstreamTimeout = 300 * time.Millisecond })
	b.lagAfter.Store(int64(600 * time.Millisecond))
	tok := token(t, "u1", time.Hour)
	watcher := dialSync(t, gw)
	connect(watcher, "s-watch", "")
	watcher.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(0, "board/notes:count", map[string]any{})}})
	watcher.waitValue(0, 0.0)

	if st, body, _ := post(t, gw, "mutation", `{"path":"board.notes.add","args":{"text":"http"}}`, "Authorization", "Bearer "+tok); st != 503 {
		t.Fatalf("plain HTTP: %d %s", st, body)
	}
	time.Sleep(400 * time.Millisecond) // the write is done by now; only the answer was late
	watcher.waitValue(0, 1.0)

	if st, m := convexPost(t, gw, "/api/mutation", `{"path":"board/notes:add","args":[{"text":"convex"}]}`,
		"Authorization", "Bearer "+tok, convex.HeaderClient, "npm-1.48.0"); st != 200 || errorCode(m) != "UNAVAILABLE" {
		t.Fatalf("Convex HTTP: %d %v", st, m)
	}
	time.Sleep(400 * time.Millisecond)
	watcher.waitValue(0, 2.0)

	c := dialSync(t, gw)
	connect(c, "s-late", tok)
	c.send(map[string]any{"type": "Mutation", "requestId": 0, "udfPath": "board/notes:add", "args": []any{map[string]any{"text": "socket"}}})
	if r := c.until("MutationResponse"); r["success"] != false || r["errorData"].(map[string]any)["code"] != "UNAVAILABLE" {
		t.Fatalf("socket: %v", r)
	}
	time.Sleep(400 * time.Millisecond)
	watcher.waitValue(0, 3.0)
}

// The owning service becomes unreachable under a live subscription: a re-run
// that fails for a passing reason keeps the last value (as Convex retries a
// query's system errors instead of failing it), and when the service is back
// the retry pushes the new value. A query's first answer does fail.
func TestSyncServiceDownUnderASubscription(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	var down atomic.Bool
	resolver := resolverFunc(func(ctx context.Context, svc string) (string, error) {
		if down.Load() {
			return "", apperr.New(apperr.Unavailable, "board is down")
		}
		return boardURL, nil
	})
	g := New(Config{Services: []string{"board"}, UpstreamTimeout: 2 * time.Second, RefreshInterval: time.Hour,
		Convex: convex.Config{MaxQueriesPerConnection: 10, MaxConnectionsPerCaller: 10}}, resolver, nil, slog.New(slog.DiscardHandler))
	gw := serveGateway(t, g)
	c := dialSync(t, gw)
	connect(c, "s-outage", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(0, "board/notes:count", map[string]any{})}})
	c.waitValue(0, 0.0)

	down.Store(true)
	b.add("while down")
	g.convex.Invalidate("board", "") // an event said so
	c.quiet(300 * time.Millisecond)
	// A new query's first answer is the failure.
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{add(1, "board/notes:count", map[string]any{"min": 5})}})
	if m := mods(c.until("Transition"))[1]; m["type"] != "QueryFailed" || m["errorData"].(map[string]any)["code"] != "UNAVAILABLE" {
		t.Fatalf("first answer while down: %v", m)
	}
	down.Store(false)
	got := map[float64]any{}
	deadline := time.Now().Add(5 * time.Second)
	for (got[0] != 1.0 || got[1] != 5.0) && time.Now().Before(deadline) {
		for id, m := range mods(c.until("Transition")) {
			got[id] = m["value"]
		}
	}
	if got[0] != 1.0 || got[1] != 5.0 {
		t.Fatalf("after the service came back: %v", got)
	}
}

// serveGateway refreshes g's table and serves it on loopback; given an
// access log, it writes each request's line there.
func serveGateway(t *testing.T, g *Gateway, accessLog ...*slog.Logger) string {
	t.Helper()
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := httpserver.Defaults()
	h.AccessLog = len(accessLog) > 0
	logger := slog.New(slog.DiscardHandler)
	if h.AccessLog {
		logger = accessLog[0]
	}
	app := g.App(h, logger)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

type resolverFunc func(ctx context.Context, svc string) (string, error)

func (f resolverFunc) Resolve(ctx context.Context, svc string) (string, error) { return f(ctx, svc) }

func mustVerifier(tb testing.TB) auth.Verifier {
	v, err := auth.NewHS256(secret, auth.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// Refused Convex HTTP requests count against the caller, as on the contract's
// endpoints: a flood of malformed bodies is limited like any other.
func TestConvexHTTPMalformedRequestsAreRateLimited(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.RateLimitRPS, c.RateLimitBurst = 1, 3 })
	var got []string
	for range 5 {
		st, m := convexPost(t, gw, "/api/query", `{"path":"board notes","args":{}}`, convex.HeaderClient, "npm-1.48.0")
		got = append(got, fmt.Sprintf("%d %s", st, errorCode(m)))
	}
	// The limiter's refusal has Convex's shape, as for any call (200, errorData.code).
	if got[0] != "400 " || got[4] != "200 RATE_LIMITED" {
		t.Fatalf("malformed Convex queries: %q", got)
	}
	if st, m := convexPost(t, gw, "/api/run/board/notes/count", `{"args":5}`); st != 200 || errorCode(m) != "RATE_LIMITED" {
		t.Fatalf("/api/run after the flood: %d %v", st, m)
	}
}

// The key of a socket's mutation (session id and request id, both chosen by
// the client) is kept per caller by the service: another caller sending the
// same session and request ids runs its own mutation, and never gets the first
// caller's kept outcome.
func TestSyncMutationKeysAreScopedToTheCaller(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	mutation := map[string]any{"type": "Mutation", "requestId": 0, "udfPath": "board/notes:add", "args": []any{map[string]any{"text": "same"}}}
	for i, sub := range []string{"u1", "u1", "u2"} {
		c := dialSync(t, gw)
		connect(c, "s-shared-session", token(t, sub, time.Hour))
		c.send(mutation)
		if r := c.until("MutationResponse"); r["success"] != true || r["result"] != 1.0 {
			t.Fatalf("%d (%s): %v", i, sub, r)
		}
	}
	if n := b.runsOf("same"); n != 2 {
		t.Fatalf("ran %d times; want once for u1 (the second is a replay) and once for u2", n)
	}
}

// After an Authenticate that changes the caller every query runs again; one
// whose value is the same for the new caller is not pushed again (Convex sends
// no modification for an unchanged result), and the identity version is
// still reached.
func TestSyncUnchangedValueNotPushedAfterAuthenticate(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	c := dialSync(t, gw)
	connect(c, "s-same", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{
		add(0, "board/notes:count", map[string]any{}), add(1, "board/notes:mine", map[string]any{})}})
	for n := 0; n < 2; {
		n += len(mods(c.expect("Transition")))
	}
	c.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u1", time.Hour), "baseVersion": 0})
	got := map[float64]map[string]any{}
	for {
		tr := c.expect("Transition")
		for id, m := range mods(tr) {
			got[id] = m
		}
		if _, id := version(tr, "endVersion"); id == 1 {
			break
		}
	}
	if len(got) != 1 || got[1]["type"] != "QueryUpdated" {
		t.Fatalf("after Authenticate: %v", got)
	}
	c.quiet(100 * time.Millisecond)
}

// Protocol states a real client never sends are Convex's internal errors: the
// socket closes with 1011 InternalServerError and the client reconnects with
// its whole state (a FatalError would stop it for good). A query set base
// version that does not match stays a FatalError (Convex's BaseVersionMismatch
// is a bad request), as does a message that is not valid.
func TestSyncInconsistentStateClosesForAReconnect(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, nil)
	for name, mods := range map[string][]any{
		"duplicate query id": {add(0, "board/notes:count", map[string]any{}), add(0, "board/notes:count", map[string]any{})},
		"unknown query id":   {map[string]any{"type": "Remove", "queryId": 4}},
	} {
		c := dialSync(t, gw)
		connect(c, "s-"+name, "")
		c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": mods})
		c.closedWith(fws.CloseInternalServerErr, "InternalServerError")
	}
	c := dialSync(t, gw)
	connect(c, "s-backwards", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 0, "modifications": []any{}})
	c.closedWith(fws.CloseInternalServerErr, "InternalServerError")

	c = dialSync(t, gw)
	connect(c, "s-mismatch", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 3, "newVersion": 4, "modifications": []any{}})
	if f := c.expect("FatalError"); !strings.Contains(f["error"].(string), "Base version 3 passed up doesn't match the current version 0") {
		t.Fatalf("base version mismatch: %v", f)
	}
	c = dialSync(t, gw)
	c.send(map[string]any{"type": "Nope"})
	if f := c.expect("FatalError"); !strings.HasPrefix(f["error"].(string), "Received Invalid JSON on websocket") {
		t.Fatalf("unknown message: %v", f)
	}
}
