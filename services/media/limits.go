package media

import (
	"sync"
	"time"

	"marketplace/services/media/domain"
)

// uploadRate holds a token bucket (domain.Bucket) per user: burst uploads at
// once, then one every interval. It lives in the instance's memory (a restart
// refills it; the daily quota, counted from the stored uploads, does not
// reset).
type uploadRate struct {
	mu       sync.Mutex
	burst    int
	interval time.Duration
	buckets  map[string]*domain.Bucket
}

// maxRateEntries bounds the buckets kept: beyond it, full ones are dropped.
const maxRateEntries = 10000

func newUploadRate(burst int, interval time.Duration) *uploadRate {
	return &uploadRate{burst: burst, interval: interval, buckets: map[string]*domain.Bucket{}}
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
		nb := domain.NewBucket(r.burst, now)
		b = &nb
		r.buckets[user] = b
	}
	return b.Take(now, r.burst, r.interval)
}

// give back an upload taken for a request refused afterwards for another
// reason (the quota, a bad body): the limit counts uploads stored or tried.
func (r *uploadRate) giveBack(user string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.buckets[user]; b != nil {
		b.GiveBack(r.burst)
	}
}

func (r *uploadRate) prune(now time.Time) {
	for u, b := range r.buckets {
		b.Refill(now, r.burst, r.interval)
		if b.Full(r.burst) {
			delete(r.buckets, u)
		}
	}
}
