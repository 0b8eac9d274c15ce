package media

import (
	"math"
	"sort"
	"sync"
	"time"
)

// uploadRate is a token bucket per user: burst uploads at once, then one
// every interval. It lives in the instance's memory (a restart refills it;
// the daily quota, counted from the stored uploads, does not reset).
type uploadRate struct {
	mu       sync.Mutex
	burst    float64
	interval time.Duration
	buckets  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// maxRateEntries bounds the buckets kept: beyond it, full ones are dropped.
const maxRateEntries = 10000

func newUploadRate(burst int, interval time.Duration) *uploadRate {
	return &uploadRate{burst: float64(burst), interval: interval, buckets: map[string]*bucket{}}
}

// take spends one upload of user at now; when none is left it answers how
// long until one is.
func (r *uploadRate) take(user string, now time.Time) (ok bool, retryAfter time.Duration) {
	if r.interval <= 0 {
		return true, 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	b := r.buckets[user]
	if b == nil {
		if len(r.buckets) >= maxRateEntries {
			r.prune(now)
		}
		b = &bucket{tokens: r.burst, at: now}
		r.buckets[user] = b
	}
	b.refill(now, r.burst, r.interval)
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) * float64(r.interval))
}

// give back an upload taken for a request refused afterwards for another
// reason (the quota, a bad body): the limit counts uploads stored or tried.
func (r *uploadRate) giveBack(user string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.buckets[user]; b != nil && b.tokens+1 <= r.burst {
		b.tokens++
	}
}

func (b *bucket) refill(now time.Time, burst float64, interval time.Duration) {
	if now.After(b.at) {
		b.tokens = math.Min(burst, b.tokens+float64(now.Sub(b.at))/float64(interval))
		b.at = now
	}
}

func (r *uploadRate) prune(now time.Time) {
	for u, b := range r.buckets {
		b.refill(now, r.burst, r.interval)
		if b.tokens >= r.burst {
			delete(r.buckets, u)
		}
	}
}

// usage is one upload counted against its user's daily quota.
type usage struct {
	At   time.Time
	Size int64
}

// dailyQuota decides an upload of size bytes by a user whose uploads of the
// window before now are recent: ok when they and it stay within limit;
// otherwise retryAfter is when enough of them have left the window for it to
// fit (at least a second; the whole window when size alone exceeds limit).
func dailyQuota(recent []usage, size, limit int64, window time.Duration, now time.Time) (ok bool, retryAfter time.Duration) {
	from := now.Add(-window)
	var used int64
	var in []usage
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

// retryAfterSeconds is a Retry-After value: whole seconds, rounded up, at least 1.
func retryAfterSeconds(d time.Duration) int64 {
	s := int64(math.Ceil(d.Seconds()))
	if s < 1 {
		return 1
	}
	return s
}
