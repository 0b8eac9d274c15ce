package domain

import (
	"math"
	"sort"
	"time"
)

// Usage is one upload counted against its user's daily quota.
type Usage struct {
	At   time.Time
	Size int64
}

// DailyQuota decides an upload of size bytes by a user whose uploads of the
// window before now are recent: ok when they and it stay within limit;
// otherwise retryAfter is when enough of them have left the window for it to
// fit (at least a second; the whole window when size alone exceeds limit).
func DailyQuota(recent []Usage, size, limit int64, window time.Duration, now time.Time) (ok bool, retryAfter time.Duration) {
	from := now.Add(-window)
	var used int64
	var in []Usage
	for _, u := range recent {
		if u.At.After(from) {
			used += u.Size
			in = append(in, u)
		}
	}
	if used+size <= limit {
		return true, 0
	}
	if size > limit {
		return false, window
	}
	sort.Slice(in, func(i, j int) bool { return in[i].At.Before(in[j].At) })
	for _, u := range in {
		used -= u.Size
		if used+size <= limit {
			return false, max(time.Second, u.At.Add(window).Sub(now))
		}
	}
	return false, window // not reached: used-all+size = size <= limit
}

// RetryAfterSeconds is a Retry-After value: whole seconds, rounded up, at least 1.
func RetryAfterSeconds(d time.Duration) int64 {
	s := int64(math.Ceil(d.Seconds()))
	if s < 1 {
		return 1
	}
	return s
}

// New accounts upload less (issue 29): until an account has an order or a
// review (or is an administrator's), its daily quota is the new accounts'
// one, never above the full one.

// NewAccountQuota is a new account's daily quota: never above the full one.
func NewAccountQuota(full, newAccount int64) int64 { return min(newAccount, full) }

// QuotaFor is the daily upload quota of an account: the full one once it is
// established (an order, a review, an administrator), the new accounts'
// otherwise; isNew says the smaller one applies.
func QuotaFor(established bool, full, newAccount int64) (limit int64, isNew bool) {
	if established || NewAccountQuota(full, newAccount) >= full {
		return full, false
	}
	return NewAccountQuota(full, newAccount), true
}

// Bucket is one user's upload rate: burst uploads at once, then one every
// interval (a token bucket).
type Bucket struct {
	Tokens float64
	At     time.Time
}

// NewBucket is a full bucket at now.
func NewBucket(burst int, now time.Time) Bucket { return Bucket{Tokens: float64(burst), At: now} }

// Refill adds the uploads earned since the bucket's time, up to burst.
func (b *Bucket) Refill(now time.Time, burst int, interval time.Duration) {
	if now.After(b.At) {
		b.Tokens = math.Min(float64(burst), b.Tokens+float64(now.Sub(b.At))/float64(interval))
		b.At = now
	}
}

// Take spends one upload at now; when none is left it answers how long until
// one is. Interval 0 is no limit.
func (b *Bucket) Take(now time.Time, burst int, interval time.Duration) (ok bool, retryAfter time.Duration) {
	if interval <= 0 {
		return true, 0
	}
	b.Refill(now, burst, interval)
	if b.Tokens >= 1 {
		b.Tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.Tokens) * float64(interval))
}

// GiveBack returns an upload taken for a request refused afterwards for
// another reason (the quota, a bad body): the limit counts uploads stored or
// tried. Never beyond burst.
func (b *Bucket) GiveBack(burst int) {
	if b.Tokens+1 <= float64(burst) {
		b.Tokens++
	}
}

// Full says the bucket holds its whole burst (nothing to remember).
func (b *Bucket) Full(burst int) bool { return b.Tokens >= float64(burst) }

// EstablishedAccount is an account known to have an order or a review
// (collection establishedAccounts), learnt from the customers' and the
// reviews' events.
type EstablishedAccount struct {
	UserID  string `bson:"_id"`
	By      string `bson:"by"` // "order" | "review"
	EventID string `bson:"eventId"`
	At      int64  `bson:"at"` // when the media service learnt it, epoch ms
}

// Establishment is what makes an account established: an order ("order") or
// a review ("review") of its own.
const (
	ByOrder  = "order"
	ByReview = "review"
)

// Establish is the record of user's account established by (ByOrder,
// ByReview) the event eventID, learnt at now; ok is false when the event
// names nobody (nothing to learn). The first record of an account stays
// (storage.Accounts.Establish).
func Establish(user, by, eventID string, now time.Time) (a EstablishedAccount, ok bool) {
	if user == "" {
		return EstablishedAccount{}, false
	}
	return EstablishedAccount{UserID: user, By: by, EventID: eventID, At: now.UnixMilli()}, true
}
