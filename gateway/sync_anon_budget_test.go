package gateway

// Issue 29, item 6: the per-address caps on anonymous sockets were passed by
// sending from several addresses (5,000 anonymous subscriptions from 10
// loopback addresses: CPU 3 % -> 58 %, /health p95 3.9 -> 51.6 ms).
// Anonymous callers now have a budget in all: their sockets and their
// subscriptions are capped whatever the address, and their live queries'
// runs are bounded in rate and concurrency, so signed-in subscribers and
// ordinary requests keep their latency.

import (
	"fmt"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/gateway/convex"
	"marketplace/libs/ops"
)

// Anonymous sockets are capped in all, whatever address they come from: over
// the cap one closes with 1013 TooManyConcurrentRequests, as over the
// per-address cap; signed-in sockets are not counted; a socket that signs in
// or closes gives its place back.
func TestSyncAnonymousSocketsInAll(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.AnonMaxConnectionsPerIP, c.Convex.MaxConnectionsPerIP, c.Convex.AnonMaxConnections = 10, 100, 2
	})
	open := func(ip, session, tok string) *syncClient {
		c := dialSyncFrom(t, gw, ip)
		connect(c, session, tok)
		modifyQuerySet(c, 0)
		return c
	}
	a := open("127.0.3.1", "anon-a", "")
	a.expect("Transition")
	open("127.0.3.2", "anon-b", "").expect("Transition")
	// A third address, each well within its own cap: the anonymous sockets in all are full.
	open("127.0.3.3", "anon-c", "").closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	// Signed in, from any address: not counted.
	open("127.0.3.3", "user-c", token(t, "u-anon-all", time.Hour)).until("Transition")
	if n := g.convex.Stats().Sockets["anonymous"]; n != 2 {
		t.Fatalf("%d anonymous sockets counted, want 2", n)
	}
	// a signs in: its anonymous place is free for another address.
	a.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u-anon-a", time.Hour), "baseVersion": 0})
	a.until("Transition")
	d := open("127.0.3.4", "anon-d", "")
	d.expect("Transition")
	open("127.0.3.5", "anon-e", "").closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	// d closes: its place is free again.
	d.ws.Close()
	d.closed()
	deadline := time.Now().Add(5 * time.Second)
	for g.convex.Stats().Sockets["anonymous"] != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("anonymous sockets after a close: %v", g.convex.Stats().Sockets)
		}
		time.Sleep(10 * time.Millisecond)
	}
	open("127.0.3.6", "anon-f", "").expect("Transition")
}

// Anonymous subscriptions are capped in all, across sockets and addresses,
// each counted (one sharing a live query too): over the cap one fails with
// QueryFailed RATE_LIMITED, too_many_anonymous_subscriptions, as the other
// query caps refuse; signed-in ones are not counted; a removal makes room.
func TestSyncAnonymousSubscriptionsInAll(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.AnonMaxQueriesPerConnection, c.Convex.AnonMaxSubscriptions = 100, 3
	})
	count := func(min int) any { return map[string]any{"min": min} }
	a := dialSyncFrom(t, gw, "127.0.4.1")
	connect(a, "subs-a", "")
	modifyQuerySet(a, 0, add(0, "board/notes:count", count(1)), add(1, "board/notes:count", count(2)))
	answers(a, 0, 1)
	b := dialSyncFrom(t, gw, "127.0.4.2")
	connect(b, "subs-b", "")
	// The same query as a's (a shared live query) still counts: the second is over.
	modifyQuerySet(b, 0, add(0, "board/notes:count", count(1)), add(1, "board/notes:count", count(3)))
	got := answers(b, 0, 1)
	if got[0]["type"] != "QueryUpdated" {
		t.Fatalf("the third subscription: %v", got[0])
	}
	refusedWith(t, got[1], "too_many_anonymous_subscriptions")
	if st := g.convex.Stats(); st.AnonymousSubscriptions != 3 || st.AnonymousLiveQueries != 2 {
		t.Fatalf("%d anonymous subscriptions on %d live queries, want 3 on 2", st.AnonymousSubscriptions, st.AnonymousLiveQueries)
	}
	// Signed in: not counted.
	u := dialSyncFrom(t, gw, "127.0.4.2")
	connect(u, "subs-u", token(t, "u-subs", time.Hour))
	modifyQuerySet(u, 0, add(0, "board/notes:count", count(4)), add(1, "board/notes:count", count(5)))
	for id, m := range answers(u, 0, 1) {
		if m["type"] != "QueryUpdated" {
			t.Fatalf("signed-in subscription %v: %v", id, m)
		}
	}
	// a removes one: b may add one.
	a.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{
		map[string]any{"type": "Remove", "queryId": 1}}})
	a.until("Transition")
	modifyQuerySet(b, 1, add(2, "board/notes:count", count(6)))
	if m := answers(b, 2)[2]; m["type"] != "QueryUpdated" {
		t.Fatalf("after a removal: %v", m)
	}
}

// The runs of anonymous live queries have a budget in all: at most
// CONVEX_ANON_RUNS_PER_SECOND a second (a burst of as many) and
// CONVEX_ANON_RUN_CONCURRENCY at once, across every socket and address. A
// write that re-runs many anonymous live queries spreads their runs over
// time, one at a time at the service, while a signed-in subscriber's re-run
// and an ordinary request go ahead; every re-run is done in the end.
func TestSyncAnonymousRunBudget(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	const rate = 20
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.AnonMaxQueriesPerConnection, c.Convex.RerunConcurrency, c.Convex.RerunConcurrencyBusy = 100, 2, 2
		c.Convex.AnonRunsPerSecond, c.Convex.AnonRunConcurrency = rate, 1
	})
	const sockets, perSocket = 3, 20
	var socks []*syncClient
	for s := range sockets {
		c := dialSyncFrom(t, gw, fmt.Sprintf("127.0.5.%d", s+1))
		connect(c, fmt.Sprintf("budget-%d", s), "")
		var adds []any
		var ids []int
		for q := range perSocket {
			// Each query's min is above the total: a write changes no value.
			adds = append(adds, add(q, "board/notes:count", map[string]any{"min": 1000 + s*perSocket + q}))
			ids = append(ids, q)
		}
		modifyQuerySet(c, 0, adds...)
		answers(c, ids...)
		socks = append(socks, c)
	}
	// A signed-in subscriber of the same service, whose value a write changes.
	u := dialSync(t, gw)
	connect(u, "budget-user", token(t, "u-budget", time.Hour))
	modifyQuerySet(u, 0, add(0, "board/notes:count", map[string]any{}))
	u.waitValue(0, 0.0)

	time.Sleep(time.Second + 100*time.Millisecond) // the budget is full again: a burst of `rate`
	b.countLag.Store(int64(5 * time.Millisecond))
	b.countPeak.Store(0)
	before := b.countRuns.Load()
	anonBefore := g.convex.Stats().AnonymousRuns
	start := time.Now()
	writer := token(t, "budget-writer", time.Hour)
	if code, m := convexPost(t, gw, "/api/mutation", `{"path":"board/notes:add","args":[{"text":"x"}],"format":"convex_encoded_json"}`,
		"Authorization", "Bearer "+writer, convex.HeaderClient, "npm-1.48.0"); code != 200 || m["status"] != "success" {
		t.Fatalf("write: %d %v", code, m)
	}
	// The signed-in subscriber sees the write at once, though 60 anonymous re-runs wait.
	u.waitValue(0, 1.0)
	if took := time.Since(start); took > time.Second {
		t.Errorf("the signed-in subscriber saw the write after %v", took)
	}
	b.countPeak.Store(0) // the signed-in run is over: only anonymous ones from here
	if q := g.convex.Stats().AnonymousQueued; q == 0 {
		t.Error("no anonymous run waits for the budget right after the write")
	}
	// An ordinary request meanwhile.
	probe := time.Now()
	if code, m := convexPost(t, gw, "/api/query", `{"path":"board/notes:page","args":[{"paginationOpts":{"numItems":5,"cursor":null}}],"format":"convex_encoded_json"}`,
		convex.HeaderClient, "npm-1.48.0"); code != 200 || m["status"] != "success" {
		t.Fatalf("probe: %d %v", code, m)
	}
	if took := time.Since(probe); took > 500*time.Millisecond {
		t.Errorf("an ordinary request took %v during the anonymous re-runs", took)
	}
	// Half a second after the write: the burst and half a second's runs at most.
	time.Sleep(time.Until(start.Add(500 * time.Millisecond)))
	early := b.countRuns.Load() - before
	if max := int32(1 + rate + rate/2 + 2); early > max {
		t.Errorf("%d runs within 0.5 s of the write; the anonymous budget allows about %d", early, max)
	}
	// Every anonymous re-run is done in the end, at the budget's pace.
	want := int32(sockets*perSocket + 1)
	for deadline := time.Now().Add(15 * time.Second); b.countRuns.Load()-before < want; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d runs after the write", b.countRuns.Load()-before, want)
		}
	}
	if took := time.Since(start); took < time.Duration(float64(sockets*perSocket-rate)/rate*float64(time.Second))-300*time.Millisecond {
		t.Errorf("%d anonymous re-runs took %v: faster than %d a second after the burst", sockets*perSocket, took, rate)
	}
	if st := g.convex.Stats(); st.AnonymousRuns-anonBefore != sockets*perSocket || st.AnonymousQueued != 0 {
		t.Errorf("%d anonymous runs counted, %d still queued; want %d and 0", st.AnonymousRuns-anonBefore, st.AnonymousQueued, sockets*perSocket)
	}
	// One anonymous run at a time at the service (two run slots in all).
	if peak := b.countPeak.Load(); peak > 1 {
		t.Errorf("%d runs at once at the service, want 1", peak)
	}
	for _, c := range socks {
		c.drainQuiet()
	}
}
