package gateway

// Issue 18, item 3: anonymous live queries amplified load. Sockets and live
// queries are capped per IP address, per socket and in all, much lower
// without a token; live query runs have a budget of their own that leaves
// ordinary requests their latency.

import (
	"fmt"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/gateway/convex"
	"marketplace/libs/ops"
)

// modifyQuerySet sends one ModifyQuerySet from version base adding adds.
func modifyQuerySet(c *syncClient, base int, adds ...any) {
	c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": base, "newVersion": base + 1, "modifications": adds})
}

// answers reads Transitions until every query of ids has an answer; it
// returns the answers by id.
func answers(c *syncClient, ids ...int) map[float64]map[string]any {
	c.t.Helper()
	got := map[float64]map[string]any{}
	for {
		done := true
		for _, id := range ids {
			if got[float64(id)] == nil {
				done = false
			}
		}
		if done {
			return got
		}
		for id, m := range mods(c.until("Transition")) {
			got[id] = m
		}
	}
}

// refusedWith checks an answer is QueryFailed RATE_LIMITED for reason.
func refusedWith(t *testing.T, m map[string]any, reason string) {
	t.Helper()
	data, _ := m["errorData"].(map[string]any)
	if m["type"] != "QueryFailed" || data["code"] != "RATE_LIMITED" || data["reason"] != reason {
		t.Fatalf("want QueryFailed RATE_LIMITED %s, got %v", reason, m)
	}
}

// An IP address holds few sockets without a token, however many a signed-in
// user may hold; a socket counts as anonymous once it adds queries without
// having authenticated, and another address has sockets of its own.
func TestSyncAnonymousSocketsPerIP(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxConnectionsPerCaller, c.Convex.AnonMaxConnectionsPerIP, c.Convex.MaxConnectionsPerIP = 20, 2, 100
	})
	open := func(ip, session, tok string) *syncClient {
		c := dialSyncFrom(t, gw, ip)
		connect(c, session, tok)
		modifyQuerySet(c, 0)
		return c
	}
	open("127.0.0.1", "anon-1", "").expect("Transition")
	open("127.0.0.1", "anon-2", "").expect("Transition")
	open("127.0.0.1", "anon-3", "").closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	// Signed-in sockets from the same address are the user's own.
	for i := range 3 {
		open("127.0.0.1", fmt.Sprintf("user-%d", i), token(t, "u-caps", time.Hour)).until("Transition")
	}
	// Another address has its own anonymous sockets.
	open("127.0.0.2", "other-1", "").expect("Transition")
	open("127.0.0.2", "other-2", "").expect("Transition")
	open("127.0.0.2", "other-3", "").closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
}

// A socket without a token holds few live queries (more answer QueryFailed
// RATE_LIMITED, too_many_queries); a signed-in one holds many; one that signs
// out keeps only as many as an anonymous socket may hold.
func TestSyncAnonymousQueriesPerSocket(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.Convex.MaxQueriesPerConnection, c.Convex.AnonMaxQueriesPerConnection = 100, 2 })
	three := []any{add(0, "board/notes:count", map[string]any{"min": 10}), add(1, "board/notes:count", map[string]any{"min": 11}),
		add(2, "board/notes:count", map[string]any{"min": 12})}

	anon := dialSync(t, gw)
	connect(anon, "anon-q", "")
	modifyQuerySet(anon, 0, three...)
	got := answers(anon, 0, 1, 2)
	if got[0]["type"] != "QueryUpdated" || got[1]["type"] != "QueryUpdated" {
		t.Fatalf("the first two: %v", got)
	}
	refusedWith(t, got[2], "too_many_queries")

	user := dialSync(t, gw)
	connect(user, "user-q", token(t, "u-q", time.Hour))
	modifyQuerySet(user, 0, three...)
	for id, m := range answers(user, 0, 1, 2) {
		if m["type"] != "QueryUpdated" {
			t.Fatalf("signed-in query %v: %v", id, m)
		}
	}
	// Signing out: the first two run again as anonymous, the third fails.
	user.send(map[string]any{"type": "Authenticate", "tokenType": "None", "baseVersion": 1})
	for {
		m := mods(user.until("Transition"))
		if third, ok := m[2]; ok {
			refusedWith(t, third, "too_many_queries")
			break
		}
	}
	// The limit counts what the socket holds: removing one makes room.
	user.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{
		map[string]any{"type": "Remove", "queryId": 0}, add(3, "board/notes:count", map[string]any{"min": 13})}})
	if m := answers(user, 3)[3]; m["type"] != "QueryUpdated" {
		t.Fatalf("after a removal: %v", m)
	}
}

// Sockets are capped per IP address (with or without a token) and in all.
func TestSyncSocketsPerIPAndInAll(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxConnectionsPerCaller, c.Convex.AnonMaxConnectionsPerIP, c.Convex.MaxConnectionsPerIP, c.Convex.MaxConnections = 20, 20, 2, 3
	})
	open := func(ip, tok string) *syncClient {
		c := dialSyncFrom(t, gw, ip)
		connect(c, "s-"+ip, tok)
		modifyQuerySet(c, 0)
		return c
	}
	open("127.0.0.3", "").expect("Transition")
	open("127.0.0.3", token(t, "u-ip", time.Hour)).until("Transition")
	// A third socket from the address, even signed in, is refused at once.
	dialSyncFrom(t, gw, "127.0.0.3").closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	open("127.0.0.4", "").expect("Transition")
	// Three in all: a fourth address is refused too.
	dialSyncFrom(t, gw, "127.0.0.5").closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
}

// The distinct live queries are capped in all and, lower, of anonymous
// callers; a subscription that joins a live query running already always
// goes in, and a live query dropped makes room.
func TestSyncLiveQueriesInAll(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxQueriesPerConnection, c.Convex.AnonMaxQueriesPerConnection, c.Convex.MaxLiveQueries, c.Convex.AnonMaxLiveQueries = 100, 100, 4, 2
	})
	count := func(min int) any { return map[string]any{"min": min} }
	a := dialSyncFrom(t, gw, "127.0.0.6")
	connect(a, "live-a", "")
	modifyQuerySet(a, 0, add(0, "board/notes:count", count(1)), add(1, "board/notes:count", count(2)))
	answers(a, 0, 1)
	// Another address, anonymous: a third distinct anonymous live query is
	// refused; the same query as a's shares its live query.
	b := dialSyncFrom(t, gw, "127.0.0.7")
	connect(b, "live-b", "")
	modifyQuerySet(b, 0, add(0, "board/notes:count", count(3)), add(1, "board/notes:count", count(1)))
	got := answers(b, 0, 1)
	refusedWith(t, got[0], "too_many_live_queries")
	if got[1]["type"] != "QueryUpdated" {
		t.Fatalf("a shared query: %v", got[1])
	}
	// Signed in: two more distinct live queries fit the total of four, a third does not.
	u := dialSync(t, gw)
	connect(u, "live-u", token(t, "u-live", time.Hour))
	modifyQuerySet(u, 0, add(0, "board/notes:count", count(1)), add(1, "board/notes:count", count(2)), add(2, "board/notes:count", count(3)))
	got = answers(u, 0, 1, 2)
	if got[0]["type"] != "QueryUpdated" || got[1]["type"] != "QueryUpdated" {
		t.Fatalf("signed-in queries: %v", got)
	}
	refusedWith(t, got[2], "too_many_live_queries")
	if q := g.convex.Stats().LiveQueries; q != 4 {
		t.Fatalf("%d live queries, want 4", q)
	}
	// a drops one of its anonymous live queries: b may start one.
	a.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{
		map[string]any{"type": "Remove", "queryId": 1}}})
	a.until("Transition")
	modifyQuerySet(b, 1, add(2, "board/notes:count", count(5)))
	if m := answers(b, 2)[2]; m["type"] != "QueryUpdated" {
		t.Fatalf("after a drop: %v", m)
	}
}

// End to end: many live queries of a slow service, and writes that re-run
// them all. The service never sees more live query runs at once than
// CONVEX_RERUN_CONCURRENCY (today's code ran 32), and an ordinary request is
// answered meanwhile within a bound.
func TestSyncRerunsLeaveRoomForRequests(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxQueriesPerConnection, c.Convex.AnonMaxQueriesPerConnection, c.Convex.RerunConcurrency = 100, 100, 2
	})
	const sockets, perSocket = 4, 50
	var socks []*syncClient
	for s := range sockets {
		c := dialSyncFrom(t, gw, fmt.Sprintf("127.0.1.%d", s+1))
		connect(c, fmt.Sprintf("slow-%d", s), "")
		var adds []any
		var ids []int
		for q := range perSocket {
			adds = append(adds, add(q, "board/notes:count", map[string]any{"min": 1000 + s*perSocket + q}))
			ids = append(ids, q)
		}
		modifyQuerySet(c, 0, adds...)
		answers(c, ids...)
		socks = append(socks, c)
	}
	b.countLag.Store(int64(10 * time.Millisecond))
	b.countPeak.Store(0)
	before := b.countRuns.Load()
	// A write through the gateway re-runs all 200 (2 s of the service's time).
	writer := token(t, "writer", time.Hour)
	if code, m := convexPost(t, gw, "/api/mutation", `{"path":"board/notes:add","args":[{"text":"x"}],"format":"convex_encoded_json"}`,
		"Authorization", "Bearer "+writer, convex.HeaderClient, "npm-1.48.0"); code != 200 || m["status"] != "success" {
		t.Fatalf("write: %d %v", code, m)
	}
	time.Sleep(200 * time.Millisecond)
	// Ordinary requests meanwhile: answered within a bound (the service's
	// own 10 ms and the wait for at most two runs ahead of it).
	var worst time.Duration
	for range 10 {
		start := time.Now()
		if code, m := convexPost(t, gw, "/api/query", `{"path":"board/notes:page","args":[{"paginationOpts":{"numItems":5,"cursor":null}}],"format":"convex_encoded_json"}`,
			convex.HeaderClient, "npm-1.48.0"); code != 200 || m["status"] != "success" {
			t.Fatalf("probe: %d %v", code, m)
		}
		worst = max(worst, time.Since(start))
		time.Sleep(20 * time.Millisecond)
	}
	if peak := b.countPeak.Load(); peak > 2 {
		t.Fatalf("%d live query runs at the service at once, want at most 2", peak)
	}
	if worst > 500*time.Millisecond {
		t.Fatalf("an ordinary request took %v during the re-runs", worst)
	}
	// And the re-runs all finish (their values do not change: each query's
	// min is above the total, so the sockets see nothing new).
	b.countLag.Store(0)
	for deadline := time.Now().Add(10 * time.Second); b.countRuns.Load()-before < sockets*perSocket; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d re-runs after the write", b.countRuns.Load()-before, sockets*perSocket)
		}
	}
	for _, c := range socks {
		c.drainQuiet()
	}
}

// drainQuiet reads whatever arrives until the socket is quiet for 300 ms.
func (c *syncClient) drainQuiet() {
	for {
		select {
		case _, ok := <-c.msgs:
			if !ok {
				return
			}
		case <-time.After(300 * time.Millisecond):
			return
		}
	}
}

// Sockets opened and closed in odd ways (before Connect, right after an
// Authenticate, after a refused token, after removing queries, across
// identity switches, closed by the server on a limit) give back everything
// they counted: after many such cycles, the caps admit as many as at first.
func TestSyncCapsReleasedOnEveryClose(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.MaxConnectionsPerCaller, c.Convex.AnonMaxConnectionsPerIP, c.Convex.MaxConnectionsPerIP, c.Convex.MaxConnections = 2, 2, 3, 4
		c.Convex.MaxQueriesPerConnection, c.Convex.AnonMaxQueriesPerConnection, c.Convex.MaxLiveQueries, c.Convex.AnonMaxLiveQueries = 4, 2, 6, 3
	})
	x := g.convex
	count := func(min int) any { return map[string]any{"min": min} }
	idle := func(round int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			st := x.Stats()
			held := fmt.Sprint(st.Sockets)
			empty := len(st.Sockets) == 0
			anon, anonSubs, callers := st.AnonymousLiveQueries, st.AnonymousSubscriptions, st.Callers
			q, s := st.LiveQueries, st.Subscriptions
			if empty && anon == 0 && anonSubs == 0 && callers == 0 && q == 0 && s == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: sockets counted %s, %d live queries (%d anonymous), %d subscriptions (%d anonymous) after every socket closed",
					round, held, q, anon, s, anonSubs)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	ip := "127.0.2.1"
	for round := range 4 {
		// Closed before Connect.
		dialSyncFrom(t, gw, ip).ws.Close()
		// Closed right after an Authenticate.
		c := dialSyncFrom(t, gw, ip)
		connect(c, "odd-auth", token(t, "u-odd", time.Hour))
		c.ws.Close()
		// A token that does not verify: AuthError, closed by the server.
		c = dialSyncFrom(t, gw, ip)
		connect(c, "odd-bogus", "not-a-token")
		c.until("AuthError")
		c.closed()
		// Anonymous queries, one removed, then closed.
		c = dialSyncFrom(t, gw, ip)
		connect(c, "odd-remove", "")
		modifyQuerySet(c, 0, add(0, "board/notes:count", count(1)), add(1, "board/notes:count", count(2)))
		answers(c, 0, 1)
		c.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{
			map[string]any{"type": "Remove", "queryId": 0}}})
		c.until("Transition")
		// Anonymous -> signed in -> anonymous, the second socket of the
		// address refused on the way back (a limit closes it), the first
		// closed by the client.
		d := dialSyncFrom(t, gw, ip)
		connect(d, "odd-switch", "")
		modifyQuerySet(d, 0, add(0, "board/notes:count", count(3)))
		answers(d, 0)
		e := dialSyncFrom(t, gw, ip)
		// Refused once it counts as anonymous: the server may have closed
		// it already when these are written (a write error is no failure).
		_ = e.ws.WriteJSON(map[string]any{"type": "Connect", "sessionId": "odd-third", "connectionCount": 0, "lastCloseReason": "InitialConnect", "clientTs": time.Now().UnixMilli()})
		_ = e.ws.WriteJSON(map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": []any{}})
		e.closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests") // two anonymous sockets already
		d.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u-odd", time.Hour), "baseVersion": 0})
		modifyQuerySet(d, 1, add(1, "board/notes:count", count(4)), add(2, "board/notes:count", count(5)), add(3, "board/notes:count", count(6)))
		answers(d, 1, 2, 3)
		c.ws.Close() // room for d's address to go anonymous again
		c.closed()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			n := x.Stats().Sockets["ip:"+ip]
			if n < 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: the closed socket still counts", round)
			}
		}
		d.send(map[string]any{"type": "Authenticate", "tokenType": "None", "baseVersion": 1})
		for done := false; !done; {
			_, done = mods(d.until("Transition"))[3]
		}
		// A mutation in flight when the socket goes.
		d.send(map[string]any{"type": "Mutation", "requestId": 0, "udfPath": "board/notes:add", "args": []any{map[string]any{"text": "odd"}}})
		d.ws.Close()
		idle(round)
		// Over the sockets per address: refused at once.
		var f []*syncClient
		for i := range 3 {
			s := dialSyncFrom(t, gw, ip)
			connect(s, fmt.Sprintf("odd-full-%d", i), token(t, fmt.Sprintf("u-full-%d", i), time.Hour))
			modifyQuerySet(s, 0)
			s.until("Transition") // admitted
			f = append(f, s)
		}
		dialSyncFrom(t, gw, ip).closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
		for _, s := range f {
			s.ws.Close()
		}
		idle(round)
	}
	// And the caps admit as many as at first.
	for i := range 2 {
		c := dialSyncFrom(t, gw, ip)
		connect(c, fmt.Sprintf("after-%d", i), "")
		modifyQuerySet(c, 0, add(0, "board/notes:count", count(10+i)))
		if m := answers(c, 0)[0]; m["type"] != "QueryUpdated" {
			t.Fatalf("after the cycles: %v", m)
		}
	}
}

// A query refused for a cap of anonymous sockets runs once the socket signs
// in (every query runs again as the new caller; the one refused was not in
// the way of anything but the anonymous cap), and fails again when it signs
// out.
func TestSyncCappedQueryRunsAfterSignIn(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.Convex.MaxQueriesPerConnection, c.Convex.AnonMaxQueriesPerConnection = 100, 2 })
	c := dialSync(t, gw)
	connect(c, "capped-then-signed-in", "")
	modifyQuerySet(c, 0, add(0, "board/notes:count", map[string]any{"min": 20}), add(1, "board/notes:count", map[string]any{"min": 21}),
		add(2, "board/notes:count", map[string]any{"min": 22}))
	refusedWith(t, answers(c, 0, 1, 2)[2], "too_many_queries")
	c.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u-capped", time.Hour), "baseVersion": 0})
	for {
		tr := c.until("Transition")
		if m, ok := mods(tr)[2]; ok {
			if m["type"] != "QueryUpdated" || m["value"] != 22.0 {
				t.Fatalf("the capped query once signed in: %v", m)
			}
			break
		}
		if _, identity := version(tr, "endVersion"); identity == 1 {
			t.Fatalf("the identity changed and the capped query is still refused: %v", tr)
		}
	}
	c.send(map[string]any{"type": "Authenticate", "tokenType": "None", "baseVersion": 1})
	for {
		if m, ok := mods(c.until("Transition"))[2]; ok {
			refusedWith(t, m, "too_many_queries")
			break
		}
	}
}
