package domain

import (
	"time"

	"marketplace/libs/apperr"
)

// The limits that keep one user, or many new accounts, from filling the
// media storage (docs/adr/0049-media-upload-limits.md): the upload rate
// (Bucket), the daily quota (DailyQuota, QuotaFor) and the total cap
// (CapLimit). A refusal the client may retry later is a *Wait.

const (
	// QuotaWindow is the daily quota's window.
	QuotaWindow = 24 * time.Hour
	// FullRetryAfter is the Retry-After of a refusal for the total cap.
	FullRetryAfter = time.Hour
	// BusyRetryAfter is the Retry-After of a refusal when the instance
	// stores as many uploads at once as it may.
	BusyRetryAfter = 5 * time.Second
)

// Wait is a refusal the client may retry after a while (Retry-After).
type Wait struct {
	Err   error
	After time.Duration
}

func (w *Wait) Error() string { return w.Err.Error() }
func (w *Wait) Unwrap() error { return w.Err }

// RateRefusal refuses an upload past the rate (burst at once, then one every
// interval), to be retried in wait.
func RateRefusal(burst int, interval, wait time.Duration) *Wait {
	return &Wait{apperr.New(apperr.RateLimited, "too many uploads: at most %d at once, then one every %s; retry in %d s",
		burst, interval, RetryAfterSeconds(wait)).
		WithDetails(map[string]any{"limit": "uploadRate", "retryAfterSeconds": RetryAfterSeconds(wait)}), wait}
}

// Busy refuses an upload that waited too long for its turn on the instance.
func Busy() *Wait {
	return &Wait{apperr.New(apperr.Unavailable, "too many uploads at once; retry shortly"), BusyRetryAfter}
}

// Quota is a user's daily upload quota: Limit bytes in any QuotaWindow;
// NewAccount when it is the new accounts' smaller one (Full is then the
// quota the account gets once it has an order or a review).
type Quota struct {
	Limit, Full int64
	NewAccount  bool
}

// QuotaOf is the daily quota of an account (QuotaFor).
func QuotaOf(established bool, full, newAccount int64) Quota {
	limit, isNew := QuotaFor(established, full, newAccount)
	return Quota{Limit: limit, Full: full, NewAccount: isNew}
}

// Check decides an upload of size bytes at now by a user whose uploads of
// the window are recent: nil when they fit, else a 429 RATE_LIMITED *Wait
// saying when enough of them have left the window (DailyQuota).
func (q Quota) Check(recent []Usage, size int64, now time.Time) error {
	ok, wait := DailyQuota(recent, size, q.Limit, QuotaWindow, now)
	if ok {
		return nil
	}
	secs := RetryAfterSeconds(wait)
	details := map[string]any{"limit": "dailyUploadBytes", "dailyUploadBytes": q.Limit, "retryAfterSeconds": secs}
	if q.NewAccount {
		details["reason"] = "new_account"
		return &Wait{apperr.New(apperr.RateLimited, "daily upload quota reached: a new account uploads at most %d bytes in 24 hours until it has an order or a review (then %d); retry in %d s",
			q.Limit, q.Full, secs).WithDetails(details), wait}
	}
	return &Wait{apperr.New(apperr.RateLimited, "daily upload quota reached: at most %d bytes in 24 hours; retry in %d s",
		q.Limit, secs).WithDetails(details), wait}
}

// CapLimit is the most the total of every upload kept or reserved may be for
// an upload of size bytes to fit under the cap max (MEDIA_MAX_STORED_BYTES);
// bounded is false when max is 0 (no cap). The storage's conditional
// increment of the total uses it, so that concurrent uploads never pass the
// cap together.
func CapLimit(size, max int64) (limit int64, bounded bool) {
	if max <= 0 {
		return 0, false
	}
	return max - size, true
}

// Fits says whether an upload of size bytes fits under the cap max when
// stored bytes are kept or reserved.
func Fits(stored, size, max int64) bool {
	limit, bounded := CapLimit(size, max)
	return !bounded || stored <= limit
}

// StorageFull refuses an upload over the total cap: 503 UNAVAILABLE, retried
// after FullRetryAfter.
func StorageFull() *Wait {
	return &Wait{apperr.New(apperr.Unavailable, "the media storage is full (MEDIA_MAX_STORED_BYTES); retry later").
		WithDetails(map[string]any{"limit": "maxStoredBytes"}), FullRetryAfter}
}

// TotalOf is the bytes of uploads: what the usage total holds when it is
// first counted.
func TotalOf(uploads []Upload) int64 {
	var total int64
	for _, u := range uploads {
		total += u.Size
	}
	return total
}
