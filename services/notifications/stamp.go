package notifications

import (
	"sync"
	"time"

	"marketplace/libs/cache"
	"marketplace/services/notifications/domain"
)

// inboxClock gives notifications their creation times: the wall clock in
// Unix milliseconds, but strictly after the last time it gave the same inbox.
// An inbox is listed by creation time, the id (random) only breaking ties, so
// two notifications of one inbox written in the same millisecond (one batch of
// events: "preparing", then "out for delivery") would otherwise come back in
// no particular order. Only one inbox's own burst moves its times ahead of the
// wall clock, by a millisecond a notification; an inbox quiet for a minute is
// forgotten.
type inboxClock struct {
	mu   sync.Mutex
	last *cache.TTL[string, int64]
}

func newInboxClock() *inboxClock {
	return &inboxClock{last: cache.New[string, int64](time.Minute, 100_000)}
}

// next is the creation time of a notification of inbox written at wall.
func (c *inboxClock) next(inbox string, wall int64) int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	last, ok := c.last.Get(inbox)
	t := domain.NextTime(wall, last, ok)
	c.last.Put(inbox, t)
	return t
}
