package convex

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// tsClock hands out the sync protocol's timestamps: nanoseconds since the Unix
// epoch, strictly growing. Taken from the wall clock (max(last+1, now)), they
// also grow across restarts, and across gateways whose clocks agree.
type tsClock struct{ last atomic.Uint64 }

func (c *tsClock) next() uint64 {
	for {
		last := c.last.Load()
		n := max(uint64(time.Now().UnixNano()), last+1)
		if c.last.CompareAndSwap(last, n) {
			return n
		}
	}
}

// observe moves the clock up to a timestamp a client saw (from another
// gateway whose clock runs ahead), so this one never answers older ones. A
// timestamp far in the future is ignored: a client must not stop the clock.
func (c *tsClock) observe(ts uint64) {
	if ts > uint64(time.Now().Add(time.Minute).UnixNano()) {
		return
	}
	for {
		last := c.last.Load()
		if ts <= last || c.last.CompareAndSwap(last, ts) {
			return
		}
	}
}

// encodeTS is a timestamp on the wire: base64 of its 8 little-endian bytes.
func encodeTS(ts uint64) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], ts)
	return base64.StdEncoding.EncodeToString(b[:])
}

func decodeTS(s string) (uint64, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != 8 {
		return 0, errors.New("a timestamp is the base64 of 8 little-endian bytes")
	}
	return binary.LittleEndian.Uint64(b), nil
}

// connCounter bounds the sockets one caller holds open.
type connCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *connCounter) acquire(key string, limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if limit > 0 && c.n[key] >= limit {
		return false
	}
	c.n[key]++
	return true
}

func (c *connCounter) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[key]--; c.n[key] <= 0 {
		delete(c.n, key)
	}
}
