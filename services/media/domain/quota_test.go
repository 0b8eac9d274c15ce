package domain

import (
	"testing"
	"time"
)

// TestDailyQuotaRule: the pure rule of the daily quota, uploads of the
// window counted, refusals answering when enough has left the window.
func TestDailyQuotaRule(t *testing.T) {
	const MiB = 1 << 20
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	cases := []struct {
		name   string
		recent []Usage
		size   int64
		ok     bool
		wait   time.Duration
	}{
		{"nothing yet", nil, 5 * MiB, true, 0},
		{"exactly the limit", []Usage{{ago(time.Hour), 95 * MiB}}, 5 * MiB, true, 0},
		{"one byte over", []Usage{{ago(time.Hour), 95 * MiB}}, 5*MiB + 1, false, 23 * time.Hour},
		{"older than the window does not count", []Usage{{ago(24 * time.Hour), 100 * MiB}, {ago(25 * time.Hour), 100 * MiB}}, 5 * MiB, true, 0},
		{"waits for the oldest that makes room", []Usage{{ago(time.Hour), 50 * MiB}, {ago(3 * time.Hour), 30 * MiB}, {ago(2 * time.Hour), 20 * MiB}},
			25 * MiB, false, 21 * time.Hour},
		{"the oldest alone is not enough", []Usage{{ago(time.Hour), 60 * MiB}, {ago(10 * time.Hour), 10 * MiB}, {ago(5 * time.Hour), 30 * MiB}},
			45 * MiB, false, 23 * time.Hour},
		{"larger than the limit itself", nil, 101 * MiB, false, 24 * time.Hour},
		{"at least a second", []Usage{{ago(24*time.Hour - time.Millisecond), 100 * MiB}}, MiB, false, time.Second},
	}
	for _, c := range cases {
		ok, wait := DailyQuota(c.recent, c.size, 100*MiB, 24*time.Hour, now)
		if ok != c.ok || wait != c.wait {
			t.Errorf("%s: ok=%v wait=%s, want ok=%v wait=%s", c.name, ok, wait, c.ok, c.wait)
		}
	}
}

// TestBucket: burst uploads at once, then one per interval; the answer says
// how long until the next; an upload given back is not counted, never beyond
// the burst; interval 0 is no limit.
func TestBucket(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	b := NewBucket(2, now)
	for i := 0; i < 2; i++ {
		if ok, _ := b.Take(now, 2, 10*time.Second); !ok {
			t.Fatalf("upload %d of the burst refused", i+1)
		}
	}
	if ok, wait := b.Take(now, 2, 10*time.Second); ok || wait != 10*time.Second {
		t.Fatalf("past the burst: ok=%v wait=%s", ok, wait)
	}
	if ok, wait := b.Take(now.Add(4*time.Second), 2, 10*time.Second); ok || wait != 6*time.Second {
		t.Fatalf("4 s later: ok=%v wait=%s", ok, wait)
	}
	if ok, _ := b.Take(now.Add(10*time.Second), 2, 10*time.Second); !ok {
		t.Fatal("refused after an interval")
	}
	b.GiveBack(2)
	b.GiveBack(2)
	b.GiveBack(2)
	if !b.Full(2) || b.Tokens != 2 {
		t.Fatalf("given back beyond the burst: %v", b.Tokens)
	}
	b.Refill(now.Add(time.Hour), 2, 10*time.Second)
	if b.Tokens != 2 {
		t.Fatalf("refilled beyond the burst: %v", b.Tokens)
	}
	off := NewBucket(1, now)
	for i := 0; i < 100; i++ {
		if ok, _ := off.Take(now, 1, 0); !ok {
			t.Fatal("interval 0 limited")
		}
	}
}

// TestRetryAfterSeconds: whole seconds, rounded up, at least 1.
func TestRetryAfterSeconds(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int64
	}{{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1001 * time.Millisecond, 2}, {23 * time.Hour, 82800}} {
		if got := RetryAfterSeconds(c.d); got != c.want {
			t.Errorf("%s: %d, want %d", c.d, got, c.want)
		}
	}
}

// TestNewAccountQuotaRule: an established account (an order, a review, an
// administrator) has the full daily quota; a new one the new accounts'
// quota, never above the full one.
func TestNewAccountQuotaRule(t *testing.T) {
	const MiB = 1 << 20
	cases := []struct {
		name             string
		full, newAccount int64
		established      bool
		want             int64
		wantNew          bool
	}{
		{"new account", 100 * MiB, 10 * MiB, false, 10 * MiB, true},
		{"established", 100 * MiB, 10 * MiB, true, 100 * MiB, false},
		{"new quota above the full one: the full one", 3 * MiB, 10 * MiB, false, 3 * MiB, false},
		{"new quota equal to the full one", 10 * MiB, 10 * MiB, false, 10 * MiB, false},
		{"new quota one byte under the full one", 10 * MiB, 10*MiB - 1, false, 10*MiB - 1, true},
	}
	for _, c := range cases {
		if got, isNew := QuotaFor(c.established, c.full, c.newAccount); got != c.want || isNew != c.wantNew {
			t.Errorf("%s: %d new=%v, want %d new=%v", c.name, got, isNew, c.want, c.wantNew)
		}
		if got := NewAccountQuota(c.full, c.newAccount); got > c.full {
			t.Errorf("%s: new account quota %d above the full one", c.name, got)
		}
	}
}

// TestEstablish: an order or a review naming a user establishes that
// account, recording what did it, the event and when; an event naming
// nobody establishes nothing.
func TestEstablish(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	a, ok := Establish("buyer", ByOrder, "evt_1", now)
	if !ok || a != (EstablishedAccount{UserID: "buyer", By: "order", EventID: "evt_1", At: now.UnixMilli()}) {
		t.Fatalf("an order: %+v %v", a, ok)
	}
	if a, ok := Establish("reviewer", ByReview, "evt_2", now); !ok || a.By != "review" || a.UserID != "reviewer" {
		t.Fatalf("a review: %+v %v", a, ok)
	}
	if a, ok := Establish("", ByOrder, "evt_3", now); ok || a != (EstablishedAccount{}) {
		t.Fatalf("nobody: %+v %v", a, ok)
	}
}
