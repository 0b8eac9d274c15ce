package gateway

// The sync protocol's edges found in review: version bookkeeping, whose token
// a shared live query runs with, the socket's budgets, writes whose outcome
// is unknown, a service down under a live subscription, and arbitrary frames.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/discovery"
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

// A live query runs with a token of its own caller only. A socket whose
// identity changed (Authenticate) still has subscriptions on its previous
// identity's live queries until the loop moves them: a run meanwhile must not
// take the socket's new token, or one caller's answer would reach another's
// subscribers. An anonymous live query runs without a token; one whose
// callers' tokens all expired does not run as anonymous.
func TestLiveQueriesRunWithTheirOwnCallersToken(t *testing.T) {
	h := newLiveQueries(nil, 4)
	tokens := make(chan string, 10)
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		tokens <- token
		return outcome{value: json.RawMessage(`1`)}
	}
	conn := func(sub string, expires time.Time) *syncConn {
		c := &syncConn{results: map[*querySub]*queryResult{}, wake: make(chan struct{}, 1)}
		c.auth.Store(&connAuth{token: "token-of-" + sub, identity: &auth.Identity{Sub: sub, Expires: expires}})
		return c
	}
	next := func() (string, bool) {
		select {
		case tok := <-tokens:
			return tok, true
		case <-time.After(300 * time.Millisecond):
			return "", false
		}
	}
	// The socket is "mallory" now; its subscription is still on alice's query.
	h.subscribe(&querySub{id: 1, conn: conn("mallory", time.Time{})}, "svc", "a.b.alice", []byte(`{}`), &auth.Identity{Sub: "alice"})
	if tok, ran := next(); ran && tok != "" {
		t.Fatalf("alice's live query ran with %q", tok)
	}
	// ... or still on the anonymous query it subscribed to before signing in.
	h.subscribe(&querySub{id: 2, conn: conn("mallory", time.Time{})}, "svc", "a.b.anon", []byte(`{}`), nil)
	if tok, ran := next(); !ran || tok != "" {
		t.Fatalf("the anonymous live query ran with %q (ran: %v)", tok, ran)
	}
	// A caller's own current token is used.
	h.subscribe(&querySub{id: 3, conn: conn("bob", time.Time{})}, "svc", "a.b.bob", []byte(`{}`), &auth.Identity{Sub: "bob"})
	if tok, ran := next(); !ran || tok != "token-of-bob" {
		t.Fatalf("bob's live query ran with %q (ran: %v)", tok, ran)
	}
	// Expired: no run as anonymous.
	h.subscribe(&querySub{id: 4, conn: conn("carol", time.Now().Add(-time.Second))}, "svc", "a.b.carol", []byte(`{}`), &auth.Identity{Sub: "carol"})
	if tok, ran := next(); ran {
		t.Fatalf("carol's live query ran with %q after her token expired", tok)
	}
}

// Subscriptions draw on a per-caller budget (CONVEX_MAX_QUERIES_PER_CONNECTION
// at once, refilled at RATE_LIMIT_RPS): adding and removing queries in a loop
// does not run queries at the services faster than that; over budget, the
// socket's next messages wait, and the queries are answered in the end.
func TestSyncQueryChurnIsRateLimited(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.MaxQueriesPerConnection = 10
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
		c.MaxQueriesPerConnection = 20
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
		"Authorization", "Bearer "+tok, HeaderConvexClient, "npm-1.48.0"); st != 200 || errorCode(m) != "UNAVAILABLE" {
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
		MaxQueriesPerConnection: 10, MaxConnectionsPerCaller: 10}, resolver, nil, slog.New(slog.DiscardHandler))
	gw := serveGateway(t, g)
	c := dialSync(t, gw)
	connect(c, "s-outage", "")
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{add(0, "board/notes:count", map[string]any{})}})
	c.waitValue(0, 0.0)

	down.Store(true)
	b.add("while down")
	g.convex.changed("board") // an event said so
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

// FuzzSyncMessage: no client message makes the protocol loop panic; each is
// handled or ends the socket with a closing message.
func FuzzSyncMessage(f *testing.F) {
	for _, s := range []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"type":"Connect","sessionId":"s","clientTs":1,"maxObservedTimestamp":"AQAAAAAAAAA="}`,
		`{"type":"Connect","sessionId":"s","maxObservedTimestamp":"!!"}`,
		`{"type":"Authenticate","tokenType":"User","value":"x.y.z","baseVersion":0}`,
		`{"type":"Authenticate","tokenType":"None","baseVersion":0}`,
		`{"type":"Authenticate","tokenType":"Admin","value":"k","baseVersion":0}`,
		`{"type":"ModifyQuerySet","baseVersion":0,"newVersion":1,"modifications":[{"type":"Add","queryId":0,"udfPath":"a/b:c","args":[{}]}]}`,
		`{"type":"ModifyQuerySet","baseVersion":0,"newVersion":1,"modifications":[{"type":"Add","queryId":0,"udfPath":"a/b:c","args":[{"x":{"$integer":"AQ=="}}]},{"type":"Remove","queryId":0}]}`,
		`{"type":"ModifyQuerySet","baseVersion":0,"newVersion":4294967295,"modifications":[{"type":"Remove","queryId":9}]}`,
		`{"type":"ModifyQuerySet","baseVersion":0,"newVersion":1,"modifications":[{"type":"Add"}]}`,
		`{"type":"ModifyQuerySet","baseVersion":-1,"newVersion":1e3}`,
		`{"type":"Mutation","requestId":0,"udfPath":"a/b:c","args":[{"$bytes":"AQID"}],"componentPath":"x"}`,
		`{"type":"Mutation","requestId":4294967296,"udfPath":"a/b:c"}`,
		`{"type":"Action","requestId":1,"udfPath":"a/b:c","args":[]}`,
		`{"type":"Event","eventType":"x","event":{}}`,
		`{"type":"ModifyQuerySet","baseVersion":0,"newVersion":1,"modifications":null}`,
		`{"type":"Mutation","requestId":0,"udfPath":"` + strings.Repeat("a/", 300) + `b:c"}`,
	} {
		f.Add([]byte(s))
	}
	g := New(Config{MaxQueriesPerConnection: 2, MaxConnectionsPerCaller: 2, UpstreamTimeout: time.Second, RateLimitRPS: 1000, RateLimitBurst: 1000},
		discovery.NewStatic(map[string]string{}), mustVerifier(f), slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := newSyncConn(g.convex, nil, "192.0.2.1")
		defer close(c.stop)
		for range 2 { // twice: a message may depend on the state the first left
			m, err := decodeClientMessage(raw)
			if err == nil {
				err = c.handle(m)
			}
			if err != nil {
				if _, ok := err.(*closing); !ok {
					t.Fatalf("%q: %T %v", raw, err, err)
				}
				return
			}
			if err := c.drain(); err != nil {
				if _, ok := err.(*closing); !ok {
					t.Fatalf("%q: drain: %v", raw, err)
				}
				return
			}
		}
		for _, s := range c.queries {
			g.convex.live.unsubscribe(s)
		}
	})
}

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
		st, m := convexPost(t, gw, "/api/query", `{"path":"board notes","args":{}}`, HeaderConvexClient, "npm-1.48.0")
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

// subscribe hands a new subscriber the live query's last value outside the
// lock, so a run that finishes meanwhile may deliver its newer value first:
// the older one, arriving second, must not replace it (before or after the
// loop drained the newer one).
func TestSyncOlderValueArrivingLastIsIgnored(t *testing.T) {
	g := New(Config{}, discovery.NewStatic(map[string]string{}), nil, slog.New(slog.DiscardHandler))
	c := newSyncConn(g.convex, nil, "192.0.2.1")
	s := &querySub{id: 1, conn: c}
	c.queries[1] = s
	result := func(v string, seq uint64) *queryResult {
		r := newQueryResult(outcome{value: json.RawMessage(v)})
		r.seq = seq
		return r
	}
	shown := func() string {
		t.Helper()
		if err := c.drain(); err != nil {
			t.Fatal(err)
		}
		m := string(c.mods[1])
		c.mods = map[uint32]json.RawMessage{}
		return m
	}
	// Both in the mailbox: the newer stays.
	c.deliver(s, result(`"new"`, 2))
	c.deliver(s, result(`"old"`, 1))
	if m := shown(); !strings.Contains(m, `"new"`) {
		t.Fatalf("shown: %s", m)
	}
	// The older after the newer was drained: nothing.
	c.deliver(s, result(`"old"`, 1))
	if m := shown(); m != "" {
		t.Fatalf("an older value was pushed after a newer one: %s", m)
	}
	c.deliver(s, result(`"newer"`, 3))
	if m := shown(); !strings.Contains(m, `"newer"`) {
		t.Fatalf("shown: %s", m)
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

// The query budget: a reservation beyond the tokens left waits for the debt;
// one that would wait too long is not taken; a sweep forgets a bucket only
// once it is full again, never one in debt.
func TestLimiterReserve(t *testing.T) {
	l := newLimiter(10, 20) // 20 at once, 10 a second
	now := time.Now()
	if w, ok := l.reserve("k", 20, now, time.Second); !ok || w != 0 {
		t.Fatalf("within the burst: %v %v", w, ok)
	}
	if w, ok := l.reserve("k", 10, now, 5*time.Second); !ok || w != time.Second {
		t.Fatalf("10 beyond: %v %v; want 1s", w, ok)
	}
	if w, ok := l.reserve("k", 100, now, 5*time.Second); ok {
		t.Fatalf("a wait of %v was taken", w)
	}
	// 2 s later the debt of 10 is paid and 10 are back; the old sweep rule
	// (idle longer than burst/rps) would have dropped the bucket at 2.5 s.
	l.sweep(now.Add(2500 * time.Millisecond))
	if w, ok := l.reserve("k", 20, now.Add(2500*time.Millisecond), 5*time.Second); !ok || w != 500*time.Millisecond {
		t.Fatalf("after the sweep: %v %v; want 500ms", w, ok)
	}
	l.sweep(now.Add(time.Hour))
	for i := range l.shards {
		if len(l.shards[i].buckets) != 0 {
			t.Fatal("a full bucket was kept")
		}
	}
	if w, ok := newLimiter(0, 0).reserve("x", 1000, now, 0); !ok || w != 0 {
		t.Fatal("a disabled limiter made a caller wait")
	}
}
