package gateway

// Issue 18, item 3: anonymous live queries amplified load. Sockets and live
// queries are capped per IP address, per socket and in all, much lower
// without a token; live query runs have a budget of their own that leaves
// ordinary requests their latency.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/libs/auth"
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
		c.MaxConnectionsPerCaller, c.AnonMaxConnectionsPerIP, c.MaxConnectionsPerIP = 20, 2, 100
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
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.MaxQueriesPerConnection, c.AnonMaxQueriesPerConnection = 100, 2 })
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
		c.MaxConnectionsPerCaller, c.AnonMaxConnectionsPerIP, c.MaxConnectionsPerIP, c.MaxConnections = 20, 20, 2, 3
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
		c.MaxQueriesPerConnection, c.AnonMaxQueriesPerConnection, c.MaxLiveQueries, c.AnonMaxLiveQueries = 100, 100, 4, 2
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
	if q, _ := g.convex.live.stats(); q != 4 {
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

// schedulerConn is a subscriber for the scheduler's unit tests.
type schedulerConn struct{ id *auth.Identity }

func (schedulerConn) deliver(*querySub, *queryResult) {}
func (c schedulerConn) token(id *auth.Identity) string {
	if id == nil || c.id == nil || id.Sub != c.id.Sub {
		return ""
	}
	return "token"
}

// The run budget: at most K runs at once (one while ordinary requests are in
// flight); a live query queued or running is queued once more at most,
// however many changes come; first runs go before re-runs, signed-in re-runs
// before anonymous ones but one pick in anonymousEvery.
func TestLiveQueryRunBudget(t *testing.T) {
	h := newLiveQueries(nil, 3)
	var busy atomic.Bool
	h.busy = busy.Load
	var (
		mu       sync.Mutex
		now, top int
		order    []string
		runs     = map[string]int{}
	)
	gate := make(chan struct{})
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		mu.Lock()
		now++
		top = max(top, now)
		order = append(order, lq.path)
		runs[lq.path]++
		mu.Unlock()
		<-gate
		mu.Lock()
		now--
		mu.Unlock()
		return outcome{value: json.RawMessage(`1`)}
	}
	settle := func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			h.mu.Lock()
			idle := h.workers == 0
			h.mu.Unlock()
			if idle {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the runs did not end")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// release lets every run through until the returned func is called.
	release := func() func() {
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case gate <- struct{}{}:
				case <-stop:
					return
				}
			}
		}()
		return func() { close(stop) }
	}
	const n = 20
	for i := range n {
		h.subscribe(&querySub{id: uint32(i), conn: schedulerConn{}}, "svc", fmt.Sprintf("anon-%02d", i), []byte(`{}`), nil)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if top != 3 {
		t.Fatalf("%d first runs at once, want 3", top)
	}
	mu.Unlock()
	// Ten changes while three run and seventeen wait: each live query runs
	// once more at most (the three running, once after their run; the others
	// run once, the changes merged).
	for range 10 {
		h.changed("svc")
	}
	stop := release()
	settle()
	stop()
	mu.Lock()
	total := 0
	for _, r := range runs {
		total += r
	}
	if total > n+3 {
		t.Fatalf("%d runs for %d live queries and 10 changes, want at most %d: %v", total, n, n+3, runs)
	}
	top, order = 0, nil
	mu.Unlock()

	// With ordinary requests in flight: one at a time.
	busy.Store(true)
	h.changed("svc")
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if top != 1 {
		t.Fatalf("%d runs at once while requests are in flight, want 1", top)
	}
	mu.Unlock()
	// Meanwhile a signed-in live query and a new signed-in one queue behind
	// the 19 anonymous re-runs: the new one's first run comes next, then the
	// signed-in re-run within anonymousEvery picks.
	u := &auth.Identity{Sub: "u"}
	h.subscribe(&querySub{id: 100, conn: schedulerConn{id: u}}, "svc", "signed-in", []byte(`{}`), u)
	gate <- struct{}{} // the anonymous run in flight ends; the signed-in first run starts
	gate <- struct{}{}
	h.changed("svc") // the signed-in query is queued behind the anonymous ones
	u2 := &auth.Identity{Sub: "u2"}
	h.subscribe(&querySub{id: 101, conn: schedulerConn{id: u2}}, "svc", "new", []byte(`{}`), u2)
	busy.Store(false)
	stop = release()
	settle()
	stop()
	mu.Lock()
	defer mu.Unlock()
	pos := map[string]int{}
	for i, p := range order {
		if _, seen := pos[p]; !seen {
			pos[p] = i
		}
	}
	if order[1] != "signed-in" {
		t.Fatalf("the signed-in first run came at %d: %v", pos["signed-in"], order)
	}
	// order: anon (in flight), signed-in (first), anon (next in line when it
	// was queued), then new (a first run), then the signed-in re-run within
	// anonymousEvery picks of it.
	newAt := -1
	for i, p := range order {
		if p == "new" {
			newAt = i
		}
	}
	reAt := -1
	for i := len(order) - 1; i >= 0; i-- {
		if order[i] == "signed-in" {
			reAt = i
			break
		}
	}
	if newAt < 0 || newAt > 3 || reAt <= newAt || reAt > newAt+anonymousEvery {
		t.Fatalf("the new query ran at %d, the signed-in re-run at %d: %v", newAt, reAt, order)
	}
}

// End to end: many live queries of a slow service, and writes that re-run
// them all. The service never sees more live query runs at once than
// CONVEX_RERUN_CONCURRENCY (today's code ran 32), and an ordinary request is
// answered meanwhile within a bound.
func TestSyncRerunsLeaveRoomForRequests(t *testing.T) {
	b, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.MaxQueriesPerConnection, c.AnonMaxQueriesPerConnection, c.RerunConcurrency = 100, 100, 2
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
		"Authorization", "Bearer "+writer, HeaderConvexClient, "npm-1.48.0"); code != 200 || m["status"] != "success" {
		t.Fatalf("write: %d %v", code, m)
	}
	time.Sleep(200 * time.Millisecond)
	// Ordinary requests meanwhile: answered within a bound (the service's
	// own 10 ms and the wait for at most two runs ahead of it).
	var worst time.Duration
	for range 10 {
		start := time.Now()
		if code, m := convexPost(t, gw, "/api/query", `{"path":"board/notes:page","args":[{"paginationOpts":{"numItems":5,"cursor":null}}],"format":"convex_encoded_json"}`,
			HeaderConvexClient, "npm-1.48.0"); code != 200 || m["status"] != "success" {
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

// A run slot rests after each run so that runs take at most their share of
// its time: at 50 %, ten runs of 20 ms one at a time take at least 380 ms
// (their 200 ms and nine rests), not 200.
func TestLiveQueryRunShare(t *testing.T) {
	h := newLiveQueries(nil, 1)
	h.share = 0.5
	var runs atomic.Int32
	done := make(chan struct{})
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		time.Sleep(20 * time.Millisecond)
		if runs.Add(1) == 10 {
			close(done)
		}
		return outcome{value: json.RawMessage(`1`)}
	}
	start := time.Now()
	for i := range 10 {
		h.subscribe(&querySub{id: uint32(i), conn: schedulerConn{}}, "svc", fmt.Sprintf("q-%d", i), []byte(`{}`), nil)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the runs did not end")
	}
	if took := time.Since(start); took < 380*time.Millisecond {
		t.Fatalf("ten runs of 20 ms at a 50 %% share took %v", took)
	}
}

// A run a socket's mutation waits for (its own queries of the service it
// wrote) goes with the first runs, ahead of other callers' queued re-runs:
// whether its live query was idle, or queued already among a busy service's
// re-runs (another caller's write came just before) and moves up.
func TestLiveQueryWaitedRunGoesFirst(t *testing.T) {
	for _, queued := range []bool{false, true} {
		t.Run(fmt.Sprintf("queued=%v", queued), func(t *testing.T) {
			h := newLiveQueries(nil, 1)
			var mu sync.Mutex
			var order []string
			gate, stop := make(chan struct{}), make(chan struct{})
			defer close(stop) // the runs left go through
			h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
				mu.Lock()
				order = append(order, lq.path)
				mu.Unlock()
				select {
				case <-gate:
				case <-stop:
				}
				return outcome{value: json.RawMessage(`1`)}
			}
			next := func() {
				t.Helper()
				select {
				case gate <- struct{}{}:
				case <-time.After(5 * time.Second):
					t.Fatal("no run")
				}
			}
			for i := range 10 {
				id := &auth.Identity{Sub: fmt.Sprintf("other-%d", i)}
				h.subscribe(&querySub{id: uint32(i), conn: schedulerConn{id: id}}, "svc", fmt.Sprintf("other-%d", i), []byte(`{}`), id)
			}
			me := &auth.Identity{Sub: "me"}
			mine := schedulerConn{id: me}
			h.subscribe(&querySub{id: 99, conn: mine}, "svc2", "mine", []byte(`{}`), me)
			for range 11 {
				next() // the first runs
			}
			if queued {
				h.changed("svc", "svc2") // eleven signed-in re-runs queue, mine last; the first starts
			} else {
				h.changed("svc") // ten signed-in re-runs queue; the first starts
			}
			time.Sleep(50 * time.Millisecond)
			waited := make(chan struct{})
			go func() {
				h.changedAndWait(context.Background(), mine, "svc2")
				close(waited)
			}()
			time.Sleep(50 * time.Millisecond)
			next() // the re-run in flight ends; the waited one is next
			next()
			select {
			case <-waited:
			case <-time.After(2 * time.Second):
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("the waited run did not come next: %v", order)
			}
			mu.Lock()
			defer mu.Unlock()
			if got := order[12]; got != "mine" {
				t.Fatalf("after the first runs and one re-run, %s ran; order %v", got, order)
			}
		})
	}
}

// Sockets opened and closed in odd ways (before Connect, right after an
// Authenticate, after a refused token, after removing queries, across
// identity switches, closed by the server on a limit) give back everything
// they counted: after many such cycles, the caps admit as many as at first.
func TestSyncCapsReleasedOnEveryClose(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.MaxConnectionsPerCaller, c.AnonMaxConnectionsPerIP, c.MaxConnectionsPerIP, c.MaxConnections = 2, 2, 3, 4
		c.MaxQueriesPerConnection, c.AnonMaxQueriesPerConnection, c.MaxLiveQueries, c.AnonMaxLiveQueries = 4, 2, 6, 3
	})
	x := g.convex
	count := func(min int) any { return map[string]any{"min": min} }
	idle := func(round int) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			x.conns.mu.Lock()
			held := fmt.Sprint(x.conns.n)
			empty := len(x.conns.n) == 0
			x.conns.mu.Unlock()
			x.live.mu.Lock()
			anon, callers := x.live.anonymous, len(x.live.ofCaller)
			x.live.mu.Unlock()
			q, s := x.live.stats()
			if empty && anon == 0 && callers == 0 && q == 0 && s == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("round %d: sockets counted %s, %d live queries (%d anonymous), %d subscriptions after every socket closed",
					round, held, q, anon, s)
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
			x.conns.mu.Lock()
			n := x.conns.n["ip:"+ip]
			x.conns.mu.Unlock()
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
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.MaxQueriesPerConnection, c.AnonMaxQueriesPerConnection = 100, 2 })
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
