// Package cache is a small in-process cache with a time to live, for the typed
// clients' lookups of records that change rarely (a store's owner, a user's
// customer profile): a call saved is a round trip saved on every request.
package cache

import (
	"sync"
	"time"
)

// TTL keeps values for a fixed time. It holds at most Max entries; past that it
// forgets everything (simple, and bounded).
type TTL[K comparable, V any] struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu sync.Mutex
	m  map[K]entry[V]
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// New makes a cache whose entries live ttl, at most max of them.
func New[K comparable, V any](ttl time.Duration, max int) *TTL[K, V] {
	return &TTL[K, V]{ttl: ttl, max: max, now: time.Now, m: map[K]entry[V]{}}
}

// Get is the value of k while it is fresh.
func (c *TTL[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[k]
	if !ok || !c.now().Before(e.expires) {
		var zero V
		return zero, false
	}
	return e.v, true
}

// Put keeps v for k.
func (c *TTL[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m)
	}
	c.m[k] = entry[V]{v: v, expires: c.now().Add(c.ttl)}
}

// Forget drops k (after a change that makes it stale).
func (c *TTL[K, V]) Forget(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, k)
}

// Lookup is the fresh value of k, else fetch's, kept when fetch finds one (a
// nil answer, "none", is not kept: the record may appear any moment).
func (c *TTL[K, V]) Lookup(k K, fetch func() (*V, error)) (*V, error) {
	if v, ok := c.Get(k); ok {
		return &v, nil
	}
	v, err := fetch()
	if err != nil || v == nil {
		return nil, err
	}
	c.Put(k, *v)
	return v, nil
}
