package convex

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"testing"
	"time"

	"marketplace/libs/liveset"
)

// countedRuns answers each live query at once with the reads its path
// names, and counts the runs of each path.
type countedRuns struct {
	mu   sync.Mutex
	runs map[string]int
}

func countRuns(h *liveQueries, reads map[string]string) *countedRuns {
	c := &countedRuns{runs: map[string]int{}}
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		c.mu.Lock()
		c.runs[lq.path]++
		n := c.runs[lq.path]
		c.mu.Unlock()
		v, _ := json.Marshal(n) // a new value each run: every run is pushed
		return outcome{Value: v, Reads: reads[lq.path]}
	}
	return c
}

func (c *countedRuns) snapshot() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.runs)
}

// waitRuns waits until every path has run want[path] times, then a little
// longer, and checks no path ran more.
func (c *countedRuns) waitRuns(t *testing.T, want map[string]int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got := c.snapshot()
		done := true
		for p, n := range want {
			if got[p] < n {
				done = false
			}
		}
		if done {
			time.Sleep(50 * time.Millisecond)
			if got := c.snapshot(); !maps.Equal(got, want) {
				t.Fatalf("runs %v, want %v", got, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("runs %v, want %v", got, want)
		}
		time.Sleep(time.Millisecond)
	}
}

func reviewWrites(id, store string) *liveset.Writes {
	w := &liveset.Writes{}
	cw := w.Coll("reviews", []string{"_id", "storeId"})
	cw.Add("_id", id)
	cw.Add("storeId", store)
	return w
}

// A write re-runs the live queries whose reads it touches, those whose runs
// did not state their reads (the fallback), and nothing else: a write to
// store A does not re-run a query on store B; a write to a review re-runs the
// queries that listed it.
func TestLiveQueriesRunAgainByWhatTheyRead(t *testing.T) {
	h := newLiveQueries(nil, 2)
	c := countRuns(h, map[string]string{
		"storeA":  `[{"c":"reviews","f":"storeId","v":["A"]}]`,
		"storeB":  `[{"c":"reviews","f":"storeId","v":["B"]}]`,
		"listsR1": `[{"c":"reviews","f":"_id","v":["r1","r9"]}]`,
		"stats":   `[{"c":"reviewStats","f":"_id","v":["A"]}]`,
		"all":     `[{"c":"reviews"}]`,
		"opaque":  "", // states nothing: every write of its service re-runs it
		"other":   `[{"c":"reviews"}]`,
	})
	paths := []string{"storeA", "storeB", "listsR1", "stats", "all", "opaque"}
	for i, p := range paths {
		h.subscribe(&querySub{id: uint32(i + 1), conn: schedulerConn{}}, "reviews", p, []byte(`{}`), nil)
	}
	h.subscribe(&querySub{id: 99, conn: schedulerConn{}}, "elsewhere", "other", []byte(`{}`), nil)
	want := map[string]int{"storeA": 1, "storeB": 1, "listsR1": 1, "stats": 1, "all": 1, "opaque": 1, "other": 1}
	c.waitRuns(t, want)

	h.changedBy("reviews", reviewWrites("r1", "A")) // a vote on review r1 of store A
	for _, p := range []string{"storeA", "listsR1", "all", "opaque"} {
		want[p]++
	}
	c.waitRuns(t, want)

	h.changedBy("reviews", reviewWrites("r5", "B")) // store B's review r5
	for _, p := range []string{"storeB", "all", "opaque"} {
		want[p]++
	}
	c.waitRuns(t, want)

	h.changedBy("reviews", &liveset.Writes{}) // a mutation that wrote nothing
	want["opaque"]++
	c.waitRuns(t, want)

	h.changedBy("reviews", nil) // writes not stated (an answer lost): everything of the service
	for _, p := range paths {
		want[p]++
	}
	c.waitRuns(t, want)

	// A query's reads follow its last run: once it states them, it leaves
	// the fallback.
	h.mu.Lock()
	if n := len(h.unread["reviews"]); n != 1 {
		t.Errorf("%d live queries in the fallback, want 1 (opaque)", n)
	}
	if n := h.reads["reviews"].Len(); n != 5 {
		t.Errorf("%d live queries indexed by their reads, want 5", n)
	}
	h.mu.Unlock()
	// Dropped live queries leave the index.
	for i := range paths {
		s := &querySub{id: uint32(i + 1)}
		for lq := range h.byService["reviews"] {
			for sub := range lq.subs {
				if sub.id == s.id {
					h.unsubscribe(sub)
				}
			}
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reads["reviews"] != nil || h.unread["reviews"] != nil {
		t.Errorf("dropped live queries left in the index: %v %v", h.reads["reviews"], h.unread["reviews"])
	}
}

// A live query whose run is in flight when a write comes runs again even if
// its last stated reads do not meet the write: what the run in flight reads
// may predate the write.
func TestARunInFlightRunsAgainAfterAWriteOfItsService(t *testing.T) {
	h := newLiveQueries(nil, 1)
	gate := make(chan struct{})
	var mu sync.Mutex
	runs := 0
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		mu.Lock()
		runs++
		n := runs
		mu.Unlock()
		if n == 2 {
			<-gate
		}
		return outcome{Value: json.RawMessage(`1`), Reads: `[{"c":"reviews","f":"storeId","v":["B"]}]`}
	}
	h.subscribe(&querySub{id: 1, conn: schedulerConn{}}, "reviews", "storeB", []byte(`{}`), nil)
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			mu.Lock()
			got := runs
			mu.Unlock()
			if got == n {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d runs, want %d", got, n)
			}
		}
	}
	waitFor(1)
	h.changed("reviews") // the second run starts and waits at the gate
	waitFor(2)
	h.changedBy("reviews", reviewWrites("r1", "A")) // does not touch store B, but the run is in flight
	close(gate)
	waitFor(3)
}

// A query's reads through its calls to another service are indexed under
// that service: the other service's writes re-run it when they touch them.
func TestLiveQueriesRunAgainOnWritesOfServicesTheyCalled(t *testing.T) {
	h := newLiveQueries(nil, 2)
	c := countRuns(h, map[string]string{
		"payoutsOfS1": `[{"c":"payouts","f":"storeId","v":["s1"]},{"s":"catalog","c":"stores","f":"_id","v":["s1"]}]`,
	})
	h.subscribe(&querySub{id: 1, conn: schedulerConn{}}, "payouts", "payoutsOfS1", []byte(`{}`), nil)
	want := map[string]int{"payoutsOfS1": 1}
	c.waitRuns(t, want)
	stores := func(id string) *liveset.Writes {
		w := &liveset.Writes{}
		w.Coll("stores", []string{"_id"}).Add("_id", id)
		return w
	}
	h.changedBy("catalog", stores("s2")) // another store
	c.waitRuns(t, want)
	h.changedBy("catalog", stores("s1")) // its store's owner changed
	want["payoutsOfS1"]++
	c.waitRuns(t, want)
	h.changedBy("payouts", reviewWrites("x", "y")) // a collection of payouts it did not read
	c.waitRuns(t, want)
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.reads["catalog"].Len() != 1 || h.reads["payouts"].Len() != 1 {
		t.Fatalf("indexes: catalog %d, payouts %d", h.reads["catalog"].Len(), h.reads["payouts"].Len())
	}
}
