package auth

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// Cached remembers verified tokens so a client's repeated calls are not verified
// from scratch each time (RS256 checks cost tens of microseconds). Entries live
// until the token expires or ttl passes, whichever is first; failures are never
// cached. The cache holds at most size entries and is cleared when full: simple,
// and bounded under a flood of distinct tokens.
func Cached(v Verifier, size int, ttl time.Duration) Verifier {
	return &cached{next: v, size: size, ttl: ttl, m: make(map[[32]byte]cacheEntry, size)}
}

type cacheEntry struct {
	id    *Identity
	until time.Time
}

type cached struct {
	next Verifier
	size int
	ttl  time.Duration
	mu   sync.RWMutex
	m    map[[32]byte]cacheEntry
}

func (c *cached) Verify(ctx context.Context, token string) (*Identity, error) {
	key := sha256.Sum256([]byte(token))
	now := time.Now()
	c.mu.RLock()
	e, ok := c.m[key]
	c.mu.RUnlock()
	if ok && now.Before(e.until) {
		return e.id, nil
	}
	id, err := c.next.Verify(ctx, token)
	if err != nil {
		return nil, err
	}
	until := now.Add(c.ttl)
	if !id.Expires.IsZero() && id.Expires.Before(until) {
		until = id.Expires
	}
	c.mu.Lock()
	if len(c.m) >= c.size {
		clear(c.m)
	}
	c.m[key] = cacheEntry{id: id, until: until}
	c.mu.Unlock()
	return id, nil
}
