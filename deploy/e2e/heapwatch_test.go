package e2e

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/store"
)

// watchHeap samples the live heap of the test process (which hosts every
// system the suite starts) and, the first time it reaches threshold and at
// every doubling after, writes to w the sites that hold the most memory, from
// the runtime's heap profile. A CI run once read 27 GiB of live heap on a
// 24 GiB machine, refusing every write after it (DB_MEMORY_LIMIT); this names
// the allocation if it happens again.
func watchHeap(w io.Writer, threshold uint64, every time.Duration, stop <-chan struct{}) {
	next := threshold
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		live := store.LiveHeap()
		if live < next {
			continue
		}
		for next <= live {
			next *= 2
		}
		rss, _ := store.ResidentMemory()
		at := time.Now().UTC().Format(time.RFC3339)
		// The heap profile lags the reading by a collection or two: two
		// more, and the holders are those of the reading (or it is gone).
		runtime.GC()
		runtime.GC()
		fmt.Fprintf(w, "heapwatch: live heap %s, resident %s at %s, while %s ran; after two collections %s live; the largest holders:\n%s",
			store.FormatBytes(int64(live)), store.FormatBytes(rss), at, strings.Join(st.Running(), ", "),
			store.FormatBytes(int64(store.LiveHeap())), heapHolders(8))
	}
}

// heapHolders lists the n allocation sites holding the most in-use bytes.
func heapHolders(n int) string {
	var recs []runtime.MemProfileRecord
	for {
		k, ok := runtime.MemProfile(recs, false)
		if ok {
			recs = recs[:k]
			break
		}
		recs = make([]runtime.MemProfileRecord, k+64)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].InUseBytes() > recs[j].InUseBytes() })
	var b strings.Builder
	for _, r := range recs[:min(n, len(recs))] {
		fmt.Fprintf(&b, "  %s in %d objects:\n", store.FormatBytes(r.InUseBytes()), r.InUseObjects())
		frames := runtime.CallersFrames(r.Stack())
		for i := 0; i < 8; i++ {
			f, more := frames.Next()
			fmt.Fprintf(&b, "    %s %s:%d\n", f.Function, f.File, f.Line)
			if !more {
				break
			}
		}
	}
	return b.String()
}

func init() {
	// Started here rather than in TestMain so that it watches every test;
	// 2 GiB is ten times what a quiet run of the suite holds.
	go watchHeap(os.Stderr, 2<<30, time.Second, nil)
}

// TestHeapWatchNamesWhatRan: past its threshold the watch gives the live
// heap after two collections, the tests whose systems run, and holders.
func TestHeapWatchNamesWhatRan(t *testing.T) {
	st.Start(t)
	var mu sync.Mutex
	var out strings.Builder
	w := writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return out.Write(p)
	})
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { defer close(done); watchHeap(w, 1, 10*time.Millisecond, stop) }()
	defer func() { close(stop); <-done }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		got := out.String()
		mu.Unlock()
		if strings.Contains(got, "while "+t.Name()+" ran; after two collections ") && strings.Contains(got, " in ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watch wrote %q", got)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
