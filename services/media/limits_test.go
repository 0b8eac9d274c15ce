package media

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
		recent []usage
		size   int64
		ok     bool
		wait   time.Duration
	}{
		{"nothing yet", nil, 5 * MiB, true, 0},
		{"exactly the limit", []usage{{ago(time.Hour), 95 * MiB}}, 5 * MiB, true, 0},
		{"one byte over", []usage{{ago(time.Hour), 95 * MiB}}, 5*MiB + 1, false, 23 * time.Hour},
		{"older than the window does not count", []usage{{ago(24 * time.Hour), 100 * MiB}, {ago(25 * time.Hour), 100 * MiB}}, 5 * MiB, true, 0},
		{"waits for the oldest that makes room", []usage{{ago(time.Hour), 50 * MiB}, {ago(3 * time.Hour), 30 * MiB}, {ago(2 * time.Hour), 20 * MiB}},
			25 * MiB, false, 21 * time.Hour},
		{"the oldest alone is not enough", []usage{{ago(time.Hour), 60 * MiB}, {ago(10 * time.Hour), 10 * MiB}, {ago(5 * time.Hour), 30 * MiB}},
			45 * MiB, false, 23 * time.Hour},
		{"larger than the limit itself", nil, 101 * MiB, false, 24 * time.Hour},
		{"at least a second", []usage{{ago(24*time.Hour - time.Millisecond), 100 * MiB}}, MiB, false, time.Second},
	}
	for _, c := range cases {
		ok, wait := dailyQuota(c.recent, c.size, 100*MiB, 24*time.Hour, now)
		if ok != c.ok || wait != c.wait {
			t.Errorf("%s: ok=%v wait=%s, want ok=%v wait=%s", c.name, ok, wait, c.ok, c.wait)
		}
	}
}

// TestUploadRateRule: burst uploads at once, then one per interval; the
// answer says how long until the next; users are apart; a refused upload
// given back is not counted; interval 0 is no limit.
func TestUploadRateRule(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	r := newUploadRate(2, 10*time.Second)
	for i := 0; i < 2; i++ {
		if ok, _ := r.take("u", now); !ok {
			t.Fatalf("upload %d of the burst refused", i+1)
		}
	}
	if ok, wait := r.take("u", now); ok || wait != 10*time.Second {
		t.Fatalf("past the burst: ok=%v wait=%s", ok, wait)
	}
	if ok, _ := r.take("v", now); !ok {
		t.Fatal("another user refused")
	}
	if ok, wait := r.take("u", now.Add(4*time.Second)); ok || wait != 6*time.Second {
		t.Fatalf("4 s later: ok=%v wait=%s", ok, wait)
	}
	if ok, _ := r.take("u", now.Add(10*time.Second)); !ok {
		t.Fatal("refused after an interval")
	}
	r.giveBack("u")
	if ok, _ := r.take("u", now.Add(10*time.Second)); !ok {
		t.Fatal("an upload given back was still counted")
	}
	if ok, _ := r.take("u", now.Add(10*time.Second)); ok {
		t.Fatal("the burst refilled beyond its size")
	}
	off := newUploadRate(1, 0)
	for i := 0; i < 100; i++ {
		if ok, _ := off.take("u", now); !ok {
			t.Fatal("interval 0 limited")
		}
	}
}
