package convex

import (
	"strings"
	"time"
)

// The caps on sockets (in all, per address, per caller, within the auth
// grace) and on queries (per socket, and the per-caller budget of queries
// added).

// Keys of connCounter besides the callers' ("ip:<address>", "sub:<subject>").
const (
	allSocketsKey     = "*"
	ipSocketsKey      = "sockets-of:"
	pendingSocketsKey = "unsettled-of:" // sockets without a caller yet (AuthGrace)
	anonSocketsKey    = "anonymous"     // the anonymous sockets of every address
)

// defaultAuthGrace is AuthGrace when the settings say nothing.
const defaultAuthGrace = 5 * time.Second

// admit charges a ModifyQuerySet's added queries to the caller's query
// budget, and says how long the message waits for it.
func (c *syncConn) admit(m clientMessage) (time.Duration, error) {
	if m.Type != "ModifyQuerySet" {
		return 0, nil
	}
	n := 0
	for _, mod := range m.Modifications {
		if mod.Type == "Add" {
			n++
		}
	}
	return c.charge(n)
}

// charge takes n queries from the caller's budget: the wait, or an error that
// closes the socket when it would be too long.
func (c *syncConn) charge(n int) (time.Duration, error) {
	wait, ok := c.x.queries.Reserve(c.callerKey, n, time.Now(), maxAdmissionWait)
	if !ok {
		return 0, overLimit("TooManyConcurrentRequests: too many queries added or re-run; retry later")
	}
	return wait, nil
}

// admitSocket counts a new socket against the caps in all and per IP
// address, or says why it closes. Its caller is counted once it is known
// (settleCaller, authenticate).
func (x *Layer) admitSocket(c *syncConn) error {
	cfg := x.cfg
	if !x.conns.acquire(allSocketsKey, cfg.MaxConnections) {
		return overLimit("TooManyConcurrentRequests: the server holds its most sockets (%d)", cfg.MaxConnections)
	}
	if !x.conns.acquire(ipSocketsKey+c.anon, cfg.MaxConnectionsPerIP) {
		x.conns.release(allSocketsKey)
		return overLimit("TooManyConcurrentRequests: at most %d sockets per IP address", cfg.MaxConnectionsPerIP)
	}
	if !x.conns.acquire(pendingSocketsKey+c.anon, cfg.PendingMaxConnectionsPerIP) {
		x.conns.release(allSocketsKey)
		x.conns.release(ipSocketsKey + c.anon)
		return overLimit("TooManyConcurrentRequests: at most %d sockets per IP address without a token yet", cfg.PendingMaxConnectionsPerIP)
	}
	c.unsettled = true
	return nil
}

// settleCaller counts a socket that has not authenticated as anonymous, per
// IP address, once it adds queries or calls functions: a client that signs in
// sends Authenticate before any of them (convex-js does), so its sockets never
// count against the anonymous limit. A socket that does neither counts as
// anonymous once AuthGrace passes (loop), so idle sockets are bounded per
// address like anonymous ones.
func (c *syncConn) settleCaller(m clientMessage) error {
	if c.callerKey != "" || (m.Type != "ModifyQuerySet" && m.Type != "Mutation" && m.Type != "Action") {
		return nil
	}
	return c.settleAnonymous()
}

// settleAnonymous counts the socket as its address's anonymous one, or says
// why it closes.
func (c *syncConn) settleAnonymous() error {
	if err := c.x.acquireCaller(c.anon); err != nil {
		return err
	}
	c.callerKey = c.anon
	c.settled()
	return nil
}

// acquireCaller counts one more socket of caller key (a signed-in user's
// "sub:", or an address's anonymous "ip:"), and an anonymous one also among
// the anonymous sockets of every address (AnonMaxConnections: the
// per-address cap alone is passed by sending from many addresses); over a
// cap it says why the socket closes, as the per-address cap does.
func (x *Layer) acquireCaller(key string) error {
	limit, what := x.socketLimit(key)
	if !x.conns.acquire(key, limit) {
		return overLimit("TooManyConcurrentRequests: at most %d %s", limit, what)
	}
	if isAnonymousKey(key) && !x.conns.acquire(anonSocketsKey, x.cfg.AnonMaxConnections) {
		x.conns.release(key)
		return overLimit("TooManyConcurrentRequests: the server holds its most sockets without a token (%d); sign in or retry later", x.cfg.AnonMaxConnections)
	}
	return nil
}

// releaseCaller gives back what acquireCaller counted.
func (x *Layer) releaseCaller(key string) {
	x.conns.release(key)
	if isAnonymousKey(key) {
		x.conns.release(anonSocketsKey)
	}
}

// isAnonymousKey reports an address's key (ratelimit.AnonymousKey), not a
// user's.
func isAnonymousKey(key string) bool { return strings.HasPrefix(key, "ip:") }

// settled ends the socket's count among its address's sockets without a
// caller yet (admitSocket), once it has one. Owned by the loop.
func (c *syncConn) settled() {
	if c.unsettled {
		c.unsettled = false
		c.x.conns.release(pendingSocketsKey + c.anon)
	}
}

// socketLimit is how many sockets caller key may hold: a signed-in user's
// ("sub:"), or an IP address's without a token ("ip:").
func (x *Layer) socketLimit(key string) (int, string) {
	if isAnonymousKey(key) && x.cfg.AnonMaxConnectionsPerIP > 0 {
		return x.cfg.AnonMaxConnectionsPerIP, "sockets without a token per IP address"
	}
	return x.cfg.MaxConnectionsPerCaller, "sockets per caller"
}

// authGrace is how long a socket may stay without a caller before it counts
// as anonymous.
func (x *Layer) authGrace() time.Duration {
	if g := x.cfg.AuthGrace; g > 0 {
		return g
	}
	return defaultAuthGrace
}

// queryLimit is how many live queries a socket holds, anonymous or signed in.
func (x *Layer) queryLimit(anonymous bool) int {
	if anonymous && x.cfg.AnonMaxQueriesPerConnection > 0 {
		return x.cfg.AnonMaxQueriesPerConnection
	}
	return x.cfg.MaxQueriesPerConnection
}
