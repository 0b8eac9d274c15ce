package boltstore

import (
	"math"
	"runtime/debug"
	"sync"
)

// The collector during an open. Reading a database file allocates its whole
// content (every document decoded, every index built) and little garbage
// beside it, so a collection in the middle of it finds almost nothing to free
// while it marks everything read so far, again at every cycle as the heap
// doubles, and slows every allocation with its write barriers: the restart's
// profile (docs/bench.md, row g8) gave the collector a fifth of the CPU. While
// any database is being read (the all-in-one opens its services' files at
// once) the collector is held back, and given back when the last open ends:
// one collection then marks what was read, once.
//
// Held back means off when the process has a memory limit (DB_MEMORY_LIMIT
// or GOMEMLIMIT, through debug.SetMemoryLimit): the runtime still collects as
// the heap nears the limit, so an open never grows the heap past it. Without
// a limit, the heap may grow to openGCPercent of the live heap before a
// collection instead of 100%: bounded, and larger than the open's garbage.
const openGCPercent = 400

var openGC struct {
	sync.Mutex
	opens int // opens reading now
	prev  int // the collector's setting before the first of them
}

// holdGC holds the collector back until release is called.
func holdGC() (release func()) {
	openGC.Lock()
	defer openGC.Unlock()
	if openGC.opens == 0 {
		pct := -1
		if debug.SetMemoryLimit(-1) == math.MaxInt64 {
			pct = openGCPercent
		}
		openGC.prev = debug.SetGCPercent(pct)
		if openGC.prev < 0 || (pct > 0 && openGC.prev > pct) {
			debug.SetGCPercent(openGC.prev) // GOGC=off or higher already
		}
	}
	openGC.opens++
	var once sync.Once
	return func() {
		once.Do(func() {
			openGC.Lock()
			defer openGC.Unlock()
			if openGC.opens--; openGC.opens == 0 {
				debug.SetGCPercent(openGC.prev)
			}
		})
	}
}
