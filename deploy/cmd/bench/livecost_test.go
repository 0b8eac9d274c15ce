package main

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// `make bench-live` ends with issue 23's line exactly, whose R is the CPU per
// write (the first column, the process's CPU at rest included) of the printed c2 row
// over that of c1: a fake run's rows are printed, parsed back and R
// recomputed from them.
func TestLiveCostEndsWithTheRatioOfItsRows(t *testing.T) {
	rows := []costRow{
		{name: "(c1) no live queries", writes: 40, cpuPerWrite: 7150 * time.Microsecond, netPerWrite: 3150 * time.Microsecond, rest: 0.02, idle: true},
		{name: "(c2) 10000 live queries that did not read it", writes: 40, cpuPerWrite: 116380 * time.Microsecond, netPerWrite: 112380 * time.Microsecond,
			rest: 0.021, drain: 6 * time.Second, idle: true},
		{name: "(c3) 1000 subscriptions, 10 live queries that read it", writes: 40, cpuPerWrite: 47 * time.Millisecond, subscribed: true,
			seen: [2]time.Duration{12 * time.Millisecond, 72 * time.Millisecond}, seenN: 40000, idle: true},
		{name: "(c4) 1000 distinct live queries that read it", writes: 40, cpuPerWrite: 97 * time.Millisecond, subscribed: true, missed: 3},
	}
	var out bytes.Buffer
	printLiveCost(&out, rows)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	last := lines[len(lines)-1]
	m := regexp.MustCompile(`^live write cost: 10000 unrelated / none (\d+\.\d\d)$`).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("last line %q is not issue 23's line", last)
	}
	cpu := map[string]time.Duration{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || !regexp.MustCompile(`^\(c[1-4]\)$`).MatchString(f[0]) {
			continue
		}
		for _, v := range f[1:] { // the first duration after the name
			if d, err := time.ParseDuration(v); err == nil {
				cpu[f[0]] = d
				break
			}
		}
	}
	if len(cpu) != 4 {
		t.Fatalf("rows parsed back: %v\n%s", cpu, out.String())
	}
	r, _ := strconv.ParseFloat(m[1], 64)
	if want := float64(cpu["(c2)"]) / float64(cpu["(c1)"]); r != float64(int(want*100+0.5))/100 {
		t.Fatalf("R %v, the printed rows give %.4f\n%s", r, want, out.String())
	}
	if !strings.Contains(out.String(), ">0s") || !strings.Contains(out.String(), "3 subscriptions missed a write") {
		t.Fatalf("a row that never went idle or missed writes is not shown as such:\n%s", out.String())
	}
	if got := costLine(10000, time.Millisecond, 0); got != "live write cost: 10000 unrelated / none NaN" {
		t.Fatalf("no CPU without live queries: %q", got)
	}
}

// The rows' query sets are what they claim: c4's 1,000 and each c2 caller's
// 1,000 live queries are distinct (a repeated one would share a live query).
func TestLiveCostQueriesAreDistinct(t *testing.T) {
	key := func(path string, args any) string {
		b, _ := json.Marshal(args)
		return path + string(b)
	}
	seen := map[string]bool{}
	for _, a := range relatedArgs("A") {
		seen[key("", a)] = true
		if a.(map[string]any)["storeId"] != "A" {
			t.Fatalf("c4 query of another store: %v", a)
		}
	}
	if len(seen) != 1000 {
		t.Fatalf("c4: %d distinct live queries, want 1000", len(seen))
	}
	seen = map[string]bool{}
	for _, q := range unrelatedQueries("B", []string{"r1", "r2"}) {
		seen[key(q.path, q.args)] = true
		if b, _ := json.Marshal(q.args); strings.Contains(string(b), `"A"`) {
			t.Fatalf("c2 query reads store A: %s", b)
		}
	}
	if len(seen) != perCaller {
		t.Fatalf("c2: %d distinct live queries per caller, want %d", len(seen), perCaller)
	}
}

// A subscription that jumps from count 3 to 5 saw writes 4 and 5 at that
// instant; an update before the write's answer counts 0; one that never
// showed the last write is missed.
func TestHelpfulWatchLatencies(t *testing.T) {
	h := newHelpfulWatch("rv", 3)
	h.add(0, 0, 2)
	h.add(0, 1, 2)
	t0 := time.Now()
	answered := map[int]time.Time{4: t0, 5: t0.Add(10 * time.Millisecond)}
	page := func(count int) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"page": []any{map[string]any{"_id": "other", "helpfulCount": 99}, map[string]any{"_id": "rv", "helpfulCount": count}}})
		return b
	}
	h.show(0, 0, 5, t0.Add(30*time.Millisecond))
	h.update(0, 1, page(4))
	h.show(0, 1, 4, t0.Add(-time.Millisecond)) // already shown: no change
	if h.caughtUp(5) {
		t.Fatal("caught up while query 1 shows 4")
	}
	lat, missed := h.latencies(answered)
	if missed != 1 || len(lat) != 3 {
		t.Fatalf("latencies %v, missed %d: want 3 and 1", lat, missed)
	}
	var sum time.Duration
	for _, l := range lat {
		if l < 0 {
			t.Fatalf("negative latency %v", l)
		}
		sum += l
	}
	// Query 0: 30 ms after write 4, 20 ms after write 5; query 1: write 4 at
	// the update's time (just after t0).
	if sum < 50*time.Millisecond || sum > 100*time.Millisecond {
		t.Fatalf("latencies %v", lat)
	}
}
