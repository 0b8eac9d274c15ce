package gateway

// Review of issue 18 item 3's caps: idle sockets, one user's live queries,
// the queue's anonymous first runs, IPv6 addresses, the rest after runs a
// user waits for.

import (
	"fmt"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"

	"marketplace/libs/ops"
)

// A socket that holds only a Connect counts as anonymous once the grace
// period passes: one address holds at most the anonymous cap of idle
// sockets (the one over it closes with 1013); a socket that signs in after
// the grace gives its anonymous place back.
func TestSyncIdleSocketsCountAsAnonymous(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	_, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.AnonMaxConnectionsPerIP, c.Convex.MaxConnectionsPerIP, c.Convex.AuthGrace = 2, 100, 200*time.Millisecond
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
	_, gw := startConvexGateway(t, boardURL, func(c *Config) { c.Convex.MaxLiveQueriesPerCaller = 3 })
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

// Sockets still within their grace (neither signed in nor counted anonymous)
// are capped per address too, so reopening idle sockets every grace period
// does not hold more than that cap plus the anonymous one; signing in or
// going anonymous makes room.
func TestSyncPendingSocketsPerIP(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) {
		c.Convex.AnonMaxConnectionsPerIP, c.Convex.MaxConnectionsPerIP, c.Convex.PendingMaxConnectionsPerIP, c.Convex.AuthGrace = 5, 100, 2, time.Hour
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
			got := g.convex.Stats().Sockets["unsettled-of:ip:"+ip]
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
