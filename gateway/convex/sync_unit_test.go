package convex

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/ops"
)

// The per-address caps take an IPv6 caller's /64 as one address (a host
// gets a whole /64 and picks any address in it), an IPv4 caller's full
// address.
func TestSyncSocketsPerIPv6Prefix(t *testing.T) {
	x := New(Config{MaxConnectionsPerIP: 2, AnonMaxConnectionsPerIP: 1}, noRoutes{}, nil, slog.New(slog.DiscardHandler))
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
	x := New(Config{MaxQueriesPerConnection: 2, MaxConnectionsPerCaller: 2, UpstreamTimeout: time.Second, QueriesPerSecond: 1000},
		noRoutes{}, testVerifier(f), slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, raw []byte) {
		c := newSyncConn(x, nil, "192.0.2.1")
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
			x.live.unsubscribe(s)
		}
	})
}

// subscribe hands a new subscriber the live query's last value outside the
// lock, so a run that finishes meanwhile may deliver its newer value first:
// the older one, arriving second, must not replace it (before or after the
// loop drained the newer one).
func TestSyncOlderValueArrivingLastIsIgnored(t *testing.T) {
	x := New(Config{}, noRoutes{}, nil, slog.New(slog.DiscardHandler))
	c := newSyncConn(x, nil, "192.0.2.1")
	s := &querySub{id: 1, conn: c}
	c.queries[1] = s
	result := func(v string, seq uint64) *queryResult {
		r := newQueryResult(outcome{Value: json.RawMessage(v)})
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

// noRoutes is a host without operations, for the tests that need no
// service: every path is unknown, as in a gateway whose table is empty.
type noRoutes struct{}

func (noRoutes) unknown(path string) *apperr.Error {
	return apperr.New(apperr.NotFound, "unknown operation %q", path).WithDetails(map[string]any{"reason": ops.ReasonUnknownOperation})
}

func (h noRoutes) Owner(path string) (string, ops.Kind, *apperr.Error) {
	return "", "", h.unknown(path)
}

func (h noRoutes) Invoke(_ context.Context, call Call) Outcome {
	return Outcome{Err: h.unknown(call.Path)}
}

func (noRoutes) Allow(string) bool { return true }

// testVerifier verifies the tests' tokens (HS256).
func testVerifier(tb testing.TB) auth.Verifier {
	v, err := auth.NewHS256([]byte("0123456789abcdef0123456789abcdef"), auth.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// The anonymous run budget's bucket: a burst of rate runs, then one every
// 1/rate; none for a rate that is not positive.
func TestRunBudget(t *testing.T) {
	if newRunBudget(0) != nil || newRunBudget(-1) != nil {
		t.Fatal("a budget for no rate")
	}
	now := time.Now()
	b := newRunBudget(4)
	for i := range 4 {
		if w := b.wait(now); w != 0 {
			t.Fatalf("run %d of the burst waits %v", i+1, w)
		}
		b.take(now)
	}
	if w := b.wait(now); w != 250*time.Millisecond {
		t.Fatalf("after the burst: wait %v, want 250ms", w)
	}
	if w := b.wait(now.Add(100 * time.Millisecond)); w != 150*time.Millisecond {
		t.Fatalf("100 ms later: wait %v, want 150ms", w)
	}
	if w := b.wait(now.Add(250 * time.Millisecond)); w != 0 {
		t.Fatalf("250 ms later: wait %v", w)
	}
	b.take(now.Add(250 * time.Millisecond))
	// Idle for long: the burst again, not more.
	later := now.Add(time.Hour)
	for range 4 {
		if b.wait(later) != 0 {
			t.Fatal("the burst after an idle hour")
		}
		b.take(later)
	}
	if b.wait(later) == 0 {
		t.Fatal("more than the burst after an idle hour")
	}
	// A rate under one a second still has a burst of one.
	slow := newRunBudget(0.5)
	if slow.wait(now) != 0 {
		t.Fatal("no first run at half a run a second")
	}
	slow.take(now)
	if w := slow.wait(now); w != 2*time.Second {
		t.Fatalf("half a run a second: wait %v, want 2s", w)
	}
}
