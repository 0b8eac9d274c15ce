package gateway

// Review of issue 18 item 3's caps: idle sockets, one user's live queries,
// the queue's anonymous first runs, IPv6 addresses, the rest after runs a
// user waits for.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/libs/auth"
	"marketplace/libs/ops"
)

// A socket that holds only a Connect counts as anonymous once the grace
// period passes: one address holds at most the anonymous cap of idle
// sockets (the one over it closes with 1013); a socket that signs in after
// the grace gives its anonymous place back.
func TestSyncIdleSocketsCountAsAnonymous(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.AnonMaxConnectionsPerIP, c.MaxConnectionsPerIP, c.AuthGrace = 2, 100, 200*time.Millisecond
	})
	const ip = "127.0.4.1"
	idle := func(session string) *syncClient {
		c := dialSyncFrom(t, gw, ip)
		c.send(map[string]any{"type": "Connect", "sessionId": session, "connectionCount": 0, "lastCloseReason": "InitialConnect"})
		return c
	}
	a, b := idle("idle-a"), idle("idle-b")
	time.Sleep(400 * time.Millisecond) // both past the grace: the address's two anonymous sockets
	idle("idle-c").closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	// a signs in late: its place goes back, and a new idle socket fits.
	a.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u-late", time.Hour), "baseVersion": 0})
	modifyQuerySet(a, 0)
	a.until("Transition")
	d := idle("idle-d")
	time.Sleep(400 * time.Millisecond)
	for _, c := range []*syncClient{b, d} {
		modifyQuerySet(c, 0)
		c.expect("Transition") // still open
	}
	// Signed in within the grace: never anonymous.
	for i := range 3 {
		c := dialSyncFrom(t, gw, ip)
		connect(c, fmt.Sprintf("quick-%d", i), token(t, "u-quick", time.Hour))
		modifyQuerySet(c, 0)
		c.until("Transition")
	}
}

// One signed-in user holds at most MaxLiveQueriesPerCaller distinct live
// queries across their sockets; a query shared with one they hold always
// goes in, another user has their own, and dropping one makes room.
func TestSyncLiveQueriesPerCaller(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.MaxLiveQueriesPerCaller = 3 })
	count := func(min int) any { return map[string]any{"min": min} }
	tok := token(t, "u-many", time.Hour)
	a := dialSync(t, gw)
	connect(a, "many-a", tok)
	modifyQuerySet(a, 0, add(0, "board/notes:count", count(1)), add(1, "board/notes:count", count(2)))
	answers(a, 0, 1)
	b := dialSync(t, gw)
	connect(b, "many-b", tok)
	modifyQuerySet(b, 0, add(0, "board/notes:count", count(1)), add(1, "board/notes:count", count(3)), add(2, "board/notes:count", count(4)))
	got := answers(b, 0, 1, 2)
	if got[0]["type"] != "QueryUpdated" || got[1]["type"] != "QueryUpdated" {
		t.Fatalf("a shared query and the third distinct one: %v", got)
	}
	refusedWith(t, got[2], "too_many_live_queries_per_caller")
	other := dialSync(t, gw)
	connect(other, "many-other", token(t, "u-other", time.Hour))
	modifyQuerySet(other, 0, add(0, "board/notes:count", count(4)))
	if m := answers(other, 0)[0]; m["type"] != "QueryUpdated" {
		t.Fatalf("another user: %v", m)
	}
	a.send(map[string]any{"type": "ModifyQuerySet", "baseVersion": 1, "newVersion": 2, "modifications": []any{
		map[string]any{"type": "Remove", "queryId": 1}}})
	a.until("Transition")
	modifyQuerySet(b, 1, add(3, "board/notes:count", count(5)))
	if m := answers(b, 3)[3]; m["type"] != "QueryUpdated" {
		t.Fatalf("after a drop: %v", m)
	}
}

// gatedRuns replaces h's runs with ones that wait for next; order lists the
// paths in the order they started.
type gatedRuns struct {
	t     *testing.T
	mu    sync.Mutex
	order []string
	gate  chan struct{}
	stop  chan struct{}
}

func gateRuns(t *testing.T, h *liveQueries) *gatedRuns {
	g := &gatedRuns{t: t, gate: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() { close(g.stop) }) // the runs left go through
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		g.mu.Lock()
		g.order = append(g.order, lq.path)
		g.mu.Unlock()
		select {
		case <-g.gate:
		case <-g.stop:
		}
		return outcome{value: json.RawMessage(`1`)}
	}
	return g
}

// next lets the run in flight end.
func (g *gatedRuns) next() {
	g.t.Helper()
	select {
	case g.gate <- struct{}{}:
	case <-time.After(5 * time.Second):
		g.t.Fatal("no run")
	}
}

func (g *gatedRuns) started() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.order...)
}

// Anonymous first runs have a class of their own: after signed-in first runs,
// and on the anonymous side of the one-in-anonymousEvery fairness, so a
// churn of anonymous Adds does not hold back signed-in re-runs; still ahead of
// anonymous re-runs.
func TestLiveQueryAnonymousFirstRunsYield(t *testing.T) {
	h := newLiveQueries(nil, 1)
	g := gateRuns(t, h)
	u := &auth.Identity{Sub: "u"}
	h.subscribe(&querySub{id: 1, conn: schedulerConn{id: u}}, "svc", "signed-in", []byte(`{}`), u)
	g.next()
	h.subscribe(&querySub{id: 2, conn: schedulerConn{}}, "svc", "anon-re", []byte(`{}`), nil)
	g.next()
	h.subscribe(&querySub{id: 3, conn: schedulerConn{}}, "other", "blocker", []byte(`{}`), nil)
	for deadline := time.Now().Add(5 * time.Second); len(g.started()) < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("blocker did not run")
		}
	} // blocker runs; the rest queue behind it
	h.changed("svc") // a signed-in and an anonymous re-run
	const churn = 12
	for i := range churn {
		h.subscribe(&querySub{id: uint32(10 + i), conn: schedulerConn{}}, "other", fmt.Sprintf("anon-first-%02d", i), []byte(`{}`), nil)
	}
	u2 := &auth.Identity{Sub: "u2"}
	h.subscribe(&querySub{id: 99, conn: schedulerConn{id: u2}}, "other", "signed-in-first", []byte(`{}`), u2)
	for range churn + 4 {
		g.next()
	}
	order := g.started()
	if len(order) != 3+churn+3 {
		t.Fatalf("runs: %v", order)
	}
	at := map[string]int{}
	for i, p := range order {
		at[p] = i // the last run of each
	}
	// order[2] is blocker; then the signed-in first run, then the signed-in
	// re-run within anonymousEvery picks, and the anonymous re-run within
	// 2*anonymousEvery (the anonymous picks take an anonymous re-run first
	// in turn).
	if at["signed-in-first"] != 3 {
		t.Fatalf("the signed-in first run came at %d: %v", at["signed-in-first"], order)
	}
	if at["signed-in"] > 3+anonymousEvery {
		t.Fatalf("the signed-in re-run came at %d, behind the anonymous first runs: %v", at["signed-in"], order)
	}
	if at["anon-re"] > 3+2*anonymousEvery {
		t.Fatalf("the anonymous re-run came at %d, behind the anonymous first runs: %v", at["anon-re"], order)
	}
	// Anonymous first runs otherwise go ahead of anonymous re-runs.
	h.changed("svc", "other") // the anonymous ones re-run, the signed-in ones too
	for i := range 4 {
		h.subscribe(&querySub{id: uint32(200 + i), conn: schedulerConn{}}, "other", fmt.Sprintf("anon-late-%d", i), []byte(`{}`), nil)
	}
	g.next() // the run in flight
	for range 2 + 1 + churn + 1 + 4 - 1 {
		g.next()
	}
	late := g.started()[len(order)+1:]
	firsts := 0
	for _, p := range late[:6] {
		if len(p) > 10 && p[:10] == "anon-late-" {
			firsts++
		}
	}
	if firsts < 3 {
		t.Fatalf("%d of the 4 anonymous first runs among the next 6 runs, queued behind 14 anonymous re-runs: %v", firsts, late)
	}
}

// The per-address caps take an IPv6 caller's /64 as one address (a host
// gets a whole /64 and picks any address in it), an IPv4 caller's full
// address.
func TestSyncSocketsPerIPv6Prefix(t *testing.T) {
	x := &convexSide{g: &Gateway{cfg: Config{MaxConnectionsPerIP: 2, AnonMaxConnectionsPerIP: 1}, logger: slog.New(slog.DiscardHandler)},
		conns: connCounter{n: map[string]int{}}}
	admit := func(ip string) (*syncConn, error) {
		c := newSyncConn(x, nil, ip)
		return c, x.admitSocket(c)
	}
	a, err := admit("2001:db8:0:1::1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := admit("2001:db8:0:1:ffff:ffff:ffff:2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := admit("2001:db8:0:1::3"); err == nil {
		t.Fatal("a third socket of one /64 admitted")
	}
	if _, err := admit("2001:db8:0:2::1"); err != nil {
		t.Fatalf("another /64: %v", err)
	}
	if err := a.settleAnonymous(); err != nil {
		t.Fatal(err)
	}
	if err := b.settleAnonymous(); err == nil {
		t.Fatal("a second anonymous socket of one /64 admitted")
	}
	for _, ip := range []string{"127.0.0.1", "127.0.0.2", "127.0.0.2"} {
		if _, err := admit(ip); err != nil {
			t.Fatalf("%s: %v", ip, err)
		}
	}
	if _, err := admit("::ffff:127.0.0.2"); err == nil {
		t.Fatal("an IPv4-mapped address is its IPv4 address")
	}
}

func TestAddressKey(t *testing.T) {
	for _, tc := range []struct{ a, b string }{
		{"::1", "::2"},
		{"::1", "::ffff:0:0:1"},
		{"2001:db8:1:2::1", "2001:db8:1:2:aaaa:bbbb:cccc:dddd"},
		{"fe80::1%eth0", "fe80::2"},
		{"10.0.0.1", "::ffff:10.0.0.1"},
	} {
		if ka, kb := anonymousCaller(tc.a), anonymousCaller(tc.b); ka != kb {
			t.Errorf("%s and %s: %q and %q, want one key", tc.a, tc.b, ka, kb)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"10.0.0.1", "10.0.0.2"},
		{"::1", "0.0.0.1"},
	} {
		if ka, kb := anonymousCaller(tc.a), anonymousCaller(tc.b); ka == kb {
			t.Errorf("%s and %s: both %q, want two keys", tc.a, tc.b, ka)
		}
	}
	if got := anonymousCaller("2001:db8:1:2:3:4:5:6"); got != "ip:2001:db8:1:2::/64" {
		t.Errorf("key %q", got)
	}
	if got := anonymousCaller("192.0.2.7"); got != "ip:192.0.2.7" {
		t.Errorf("key %q", got)
	}
}

// A run slot does not rest before a run someone waits for (a signed-in first
// run, a run a mutation waits for), and such a run queued while it rests ends
// the rest: the rest keeps re-runs to their share, and a subscriber or a
// mutation is not made to wait for it. It still rests before a re-run.
func TestLiveQueryNoRestBeforeWaitedRuns(t *testing.T) {
	h := newLiveQueries(nil, 1)
	h.share = 0.5
	const took = 200 * time.Millisecond
	var mu sync.Mutex
	starts, ends := map[string]time.Time{}, map[string]time.Time{}
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		mu.Lock()
		key := lq.path
		if _, again := starts[key]; again {
			key += "-again"
		}
		starts[key] = time.Now()
		mu.Unlock()
		time.Sleep(took)
		mu.Lock()
		ends[key] = time.Now()
		mu.Unlock()
		return outcome{value: json.RawMessage(`1`)}
	}
	u := &auth.Identity{Sub: "u"}
	mine := schedulerConn{id: u}
	h.subscribe(&querySub{id: 1, conn: mine}, "svc", "a", []byte(`{}`), u)
	time.Sleep(took / 4)
	h.subscribe(&querySub{id: 2, conn: mine}, "svc2", "b", []byte(`{}`), u) // a first run, queued behind a
	time.Sleep(took + took/2)                                               // a ended, b runs
	h.changed("svc")                                                        // a re-run, queued behind b
	waited := make(chan struct{})
	var asked time.Time
	go func() {
		// b ended and the slot rests (a re-run is next) when the awaited
		// run comes: the rest ends for it.
		for {
			mu.Lock()
			done := !ends["b"].IsZero()
			mu.Unlock()
			if done {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(took / 4)
		mu.Lock()
		asked = time.Now()
		mu.Unlock()
		h.changedAndWait(context.Background(), mine, "svc2") // b again, awaited: ahead of a's re-run
		close(waited)
	}()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the awaited run did not end")
	}
	time.Sleep(3 * took)
	mu.Lock()
	defer mu.Unlock()
	if gap := starts["b"].Sub(ends["a"]); gap > took/2 {
		t.Fatalf("the first run started %v after the run before it ended", gap)
	}
	if gap := starts["b-again"].Sub(asked); asked.Before(ends["b"]) || gap > took/2 {
		t.Fatalf("the awaited run started %v after it was asked for, %v after the run before it ended", gap, starts["b-again"].Sub(ends["b"]))
	}
	if starts["a-again"].IsZero() || starts["a-again"].Sub(ends["b-again"]) < took*8/10 {
		t.Fatalf("the re-run started %v after the run before it ended, want a rest of about %v", starts["a-again"].Sub(ends["b-again"]), took)
	}
}

// Sockets still within their grace (neither signed in nor counted anonymous)
// are capped per address too, so reopening idle sockets every grace period
// does not hold more than that cap plus the anonymous one; signing in or
// going anonymous makes room.
func TestSyncPendingSocketsPerIP(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.AnonMaxConnectionsPerIP, c.MaxConnectionsPerIP, c.PendingMaxConnectionsPerIP, c.AuthGrace = 5, 100, 2, time.Hour
	})
	const ip = "127.0.4.2"
	idle := func(session string) *syncClient {
		c := dialSyncFrom(t, gw, ip)
		c.send(map[string]any{"type": "Connect", "sessionId": session, "connectionCount": 0, "lastCloseReason": "InitialConnect"})
		return c
	}
	// admitted waits for n sockets of the address without a caller yet (the
	// server admits sockets in no particular order).
	admitted := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			g.convex.conns.mu.Lock()
			got := g.convex.conns.n[pendingSocketsKey+"ip:"+ip]
			g.convex.conns.mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d sockets without a caller, want %d", got, n)
			}
		}
	}
	a, b := idle("pending-a"), idle("pending-b")
	admitted(2)
	dialSyncFrom(t, gw, ip).closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	a.send(map[string]any{"type": "Authenticate", "tokenType": "User", "value": token(t, "u-pending", time.Hour), "baseVersion": 0})
	modifyQuerySet(a, 0)
	a.until("Transition")
	modifyQuerySet(b, 0) // anonymous now
	b.expect("Transition")
	admitted(0) // both have left the pending count (the answer may come before the count moves)
	c, d := idle("pending-c"), idle("pending-d")
	admitted(2)
	dialSyncFrom(t, gw, ip).closedWith(fws.CloseTryAgainLater, "TooManyConcurrentRequests")
	for _, s := range []*syncClient{c, d} {
		modifyQuerySet(s, 0)
		s.expect("Transition")
	}
	// Another address has its own.
	for i := range 2 {
		o := dialSyncFrom(t, gw, "127.0.4.3")
		o.send(map[string]any{"type": "Connect", "sessionId": fmt.Sprintf("pending-o%d", i), "connectionCount": 0, "lastCloseReason": "InitialConnect"})
		modifyQuerySet(o, 0)
		o.expect("Transition")
	}
}
