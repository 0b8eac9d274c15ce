package domain

import (
	"errors"
	"testing"
	"time"

	"marketplace/libs/apperr"
)

// TestQuotaCheck: the daily quota's refusal is 429 RATE_LIMITED, a *Wait
// whose Retry-After is when enough has left the window; a new account's
// says so (reason new_account) and names the quota it gets with an order or
// a review; an upload that fits is let through.
func TestQuotaCheck(t *testing.T) {
	const MiB = 1 << 20
	recent := []Usage{{t0.Add(-3 * time.Hour), 2 * MiB}, {t0.Add(-time.Hour), MiB}}
	if err := QuotaOf(true, 4*MiB, MiB).Check(recent, MiB, t0); err != nil {
		t.Fatalf("an upload that fits: %v", err)
	}
	err := QuotaOf(true, 4*MiB, MiB).Check(recent, MiB+1, t0)
	var w *Wait
	if !errors.As(err, &w) || w.After != 21*time.Hour {
		t.Fatalf("over the quota: %v", err)
	}
	wantErr(t, "full quota", err, apperr.RateLimited, "daily upload quota reached: at most 4194304 bytes in 24 hours; retry in 75600 s",
		map[string]any{"limit": "dailyUploadBytes", "dailyUploadBytes": int64(4 * MiB), "retryAfterSeconds": int64(75600), "reason": nil})

	q := QuotaOf(false, 4*MiB, 2*MiB)
	if q != (Quota{Limit: 2 * MiB, Full: 4 * MiB, NewAccount: true}) {
		t.Fatalf("a new account's quota: %+v", q)
	}
	err = q.Check(recent, MiB, t0)
	if !errors.As(err, &w) || w.After != 21*time.Hour {
		t.Fatalf("over a new account's quota: %v", err)
	}
	wantErr(t, "new account", err, apperr.RateLimited,
		"daily upload quota reached: a new account uploads at most 2097152 bytes in 24 hours until it has an order or a review (then 4194304); retry in 75600 s",
		map[string]any{"limit": "dailyUploadBytes", "dailyUploadBytes": int64(2 * MiB), "retryAfterSeconds": int64(75600), "reason": "new_account"})
	if err := q.Check(nil, 2*MiB, t0); err != nil {
		t.Fatalf("a new account's quota exactly: %v", err)
	}
	if err := QuotaOf(true, 4*MiB, 2*MiB).Check(recent, MiB, t0); err != nil {
		t.Fatalf("the account once established: %v", err)
	}
}

// TestRateAndBusyRefusals: past the rate, 429 RATE_LIMITED with the burst,
// the interval and the wait; an instance storing as many uploads as it may,
// 503 UNAVAILABLE retried in 5 s.
func TestRateAndBusyRefusals(t *testing.T) {
	w := RateRefusal(5, 20*time.Second, 12500*time.Millisecond)
	if w.After != 12500*time.Millisecond {
		t.Fatalf("after %s", w.After)
	}
	wantErr(t, "rate", w, apperr.RateLimited, "too many uploads: at most 5 at once, then one every 20s; retry in 13 s",
		map[string]any{"limit": "uploadRate", "retryAfterSeconds": int64(13)})
	b := Busy()
	if b.After != 5*time.Second {
		t.Fatalf("busy after %s", b.After)
	}
	wantErr(t, "busy", b, apperr.Unavailable, "too many uploads at once; retry shortly", nil)
}

// TestTotalCap: the bytes of every upload kept or reserved stay within the
// cap: an upload that ends exactly at it fits, one byte more does not; 0 is
// no cap; the refusal is 503 UNAVAILABLE, retried in an hour.
func TestTotalCap(t *testing.T) {
	const max = 1000
	cases := []struct {
		name          string
		stored, size  int64
		max           int64
		fits, bounded bool
		limit         int64
	}{
		{"empty", 0, 10, max, true, true, 990},
		{"ends exactly at the cap", 990, 10, max, true, true, 990},
		{"one byte over", 991, 10, max, false, true, 990},
		{"larger than the cap alone", 0, max + 1, max, false, true, -1},
		{"already over", 1200, 1, max, false, true, 999},
		{"no cap", 1 << 50, 1 << 30, 0, true, false, 0},
	}
	for _, c := range cases {
		if got := Fits(c.stored, c.size, c.max); got != c.fits {
			t.Errorf("%s: fits %v", c.name, got)
		}
		// The storage's guard is "total <= limit": the same rule.
		limit, bounded := CapLimit(c.size, c.max)
		if bounded != c.bounded || (bounded && limit != c.limit) {
			t.Errorf("%s: CapLimit %d %v", c.name, limit, bounded)
		}
		if bounded && (c.stored <= limit) != c.fits {
			t.Errorf("%s: the guard disagrees with the rule", c.name)
		}
	}
	w := StorageFull()
	if w.After != time.Hour {
		t.Fatalf("full after %s", w.After)
	}
	wantErr(t, "full", w, apperr.Unavailable, "the media storage is full (MEDIA_MAX_STORED_BYTES); retry later", map[string]any{"limit": "maxStoredBytes"})
}

// TestTotalOf: the total counted afresh is the bytes of every upload, pending
// ones (their reservation) included.
func TestTotalOf(t *testing.T) {
	if got := TotalOf([]Upload{{Size: 10, State: StateStored}, {Size: Reservation(-1), State: StatePending}, {Size: 1}}); got != 11+Reservation(-1) {
		t.Fatalf("total %d", got)
	}
	if TotalOf(nil) != 0 {
		t.Fatal("nothing is not 0")
	}
}
