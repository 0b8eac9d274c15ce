// Package clocktest is a clock tests set and move by hand, for a service's
// injectable clock (service.Env.Now): hold times, pass a day, cross midnight.
package clocktest

import (
	"sync"
	"time"
)

// Clock is a settable clock, safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// New is a clock standing at t.
func New(t time.Time) *Clock { return &Clock{t: t} }

// Now is the clock's time (service.Env.Now).
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the clock on by d.
func (c *Clock) Advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// Set puts the clock at t.
func (c *Clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
