// Package ratelimit holds the gateway's per-caller token buckets and the key
// a caller without a token counts under; the gateway and its Convex layer
// (marketplace/gateway/convex) share them.
package ratelimit

import (
	"hash/maphash"
	"net/netip"
	"sync"
	"time"
)

// Limiter is a per-caller token bucket, sharded so concurrent callers rarely share
// a lock. rps <= 0 disables it.
type Limiter struct {
	rps    float64
	burst  float64
	seed   maphash.Seed
	shards [64]shard
}

type shard struct {
	mu      sync.Mutex
	buckets map[string]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// New is a limiter of rps a second per caller, burst at once.
func New(rps float64, burst int) *Limiter {
	l := &Limiter{rps: rps, burst: float64(max(burst, 1)), seed: maphash.MakeSeed()}
	for i := range l.shards {
		l.shards[i].buckets = map[string]*bucket{}
	}
	return l
}

// Allow takes one token from key's bucket, if it has one.
func (l *Limiter) Allow(key string, now time.Time) bool {
	if l.rps <= 0 {
		return true
	}
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.buckets[key]
	if !ok {
		b = &bucket{tokens: l.burst, last: now}
		s.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rps)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// Reserve takes n tokens from key's bucket, going into debt if it must, and
// says how long the caller waits until the debt is paid. A reservation whose
// wait would exceed maxWait is not taken (ok false).
func (l *Limiter) Reserve(key string, n int, now time.Time, maxWait time.Duration) (wait time.Duration, ok bool) {
	if l.rps <= 0 || n <= 0 {
		return 0, true
	}
	s := &l.shards[maphash.String(l.seed, key)%uint64(len(l.shards))]
	s.mu.Lock()
	defer s.mu.Unlock()
	b, found := s.buckets[key]
	if !found {
		b = &bucket{tokens: l.burst, last: now}
		s.buckets[key] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rps)
	b.last = now
	left := b.tokens - float64(n)
	if left < 0 {
		wait = time.Duration(-left / l.rps * float64(time.Second))
		if wait > maxWait {
			return wait, false
		}
	}
	b.tokens = left
	return wait, true
}

// Sweep forgets callers whose buckets are full again, bounding memory.
func (l *Limiter) Sweep(now time.Time) {
	if l.rps <= 0 {
		return
	}
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		for k, b := range s.buckets {
			if b.tokens+now.Sub(b.last).Seconds()*l.rps >= l.burst {
				delete(s.buckets, k)
			}
		}
		s.mu.Unlock()
	}
}

// AnonymousKey is the key a caller without a token at address ip counts
// under, for the rate limit (HTTP and sockets' mutations) and the sockets'
// per-address caps alike: "ip:" and the IPv4 address, or the IPv6 address's
// /64 (a host or a home gets a whole /64 and may use any address in it, so
// keying by the full address would let one caller bypass every per-address
// limit). An IPv4-mapped IPv6 address is its IPv4 address.
func AnonymousKey(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return "ip:" + ip
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return "ip:" + a.String()
	}
	p, err := a.Prefix(64)
	if err != nil {
		return "ip:" + ip
	}
	return "ip:" + p.String()
}
