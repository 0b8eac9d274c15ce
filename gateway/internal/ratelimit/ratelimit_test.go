package ratelimit

import (
	"testing"
	"time"
)

func TestLimiterRefillsAndSweeps(t *testing.T) {
	l := New(10, 2)
	now := time.Now()
	if !l.Allow("k", now) || !l.Allow("k", now) || l.Allow("k", now) {
		t.Fatal("burst")
	}
	if !l.Allow("k", now.Add(150*time.Millisecond)) {
		t.Fatal("no refill")
	}
	l.Sweep(now.Add(time.Hour))
	n := 0
	for i := range l.shards {
		n += len(l.shards[i].buckets)
	}
	if n != 0 {
		t.Fatalf("%d buckets left after sweep", n)
	}
	if !New(0, 0).Allow("x", now) {
		t.Fatal("disabled limiter refused")
	}
}

// The query budget: a reservation beyond the tokens left waits for the debt;
// one that would wait too long is not taken; a sweep forgets a bucket only
// once it is full again, never one in debt.
func TestLimiterReserve(t *testing.T) {
	l := New(10, 20) // 20 at once, 10 a second
	now := time.Now()
	if w, ok := l.Reserve("k", 20, now, time.Second); !ok || w != 0 {
		t.Fatalf("within the burst: %v %v", w, ok)
	}
	if w, ok := l.Reserve("k", 10, now, 5*time.Second); !ok || w != time.Second {
		t.Fatalf("10 beyond: %v %v; want 1s", w, ok)
	}
	if w, ok := l.Reserve("k", 100, now, 5*time.Second); ok {
		t.Fatalf("a wait of %v was taken", w)
	}
	// 2 s later the debt of 10 is paid and 10 are back; the old sweep rule
	// (idle longer than burst/rps) would have dropped the bucket at 2.5 s.
	l.Sweep(now.Add(2500 * time.Millisecond))
	if w, ok := l.Reserve("k", 20, now.Add(2500*time.Millisecond), 5*time.Second); !ok || w != 500*time.Millisecond {
		t.Fatalf("after the sweep: %v %v; want 500ms", w, ok)
	}
	l.Sweep(now.Add(time.Hour))
	for i := range l.shards {
		if len(l.shards[i].buckets) != 0 {
			t.Fatal("a full bucket was kept")
		}
	}
	if w, ok := New(0, 0).Reserve("x", 1000, now, 0); !ok || w != 0 {
		t.Fatal("a disabled limiter made a caller wait")
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
		if ka, kb := AnonymousKey(tc.a), AnonymousKey(tc.b); ka != kb {
			t.Errorf("%s and %s: %q and %q, want one key", tc.a, tc.b, ka, kb)
		}
	}
	for _, tc := range []struct{ a, b string }{
		{"2001:db8:1:2::1", "2001:db8:1:3::1"},
		{"10.0.0.1", "10.0.0.2"},
		{"::1", "0.0.0.1"},
	} {
		if ka, kb := AnonymousKey(tc.a), AnonymousKey(tc.b); ka == kb {
			t.Errorf("%s and %s: both %q, want two keys", tc.a, tc.b, ka)
		}
	}
	if got := AnonymousKey("2001:db8:1:2:3:4:5:6"); got != "ip:2001:db8:1:2::/64" {
		t.Errorf("key %q", got)
	}
	if got := AnonymousKey("192.0.2.7"); got != "ip:192.0.2.7" {
		t.Errorf("key %q", got)
	}
}
