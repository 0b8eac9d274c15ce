package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"sync"
	"time"
)

// The cost of a write to live queries (issue 23, Measures: `make
// bench-live`). The write is voteOnReview (a new voter, helpful) on the one
// review of store A, 40 at 5 a second per row, on a fresh all-in-one:
//
//   - c1: no live queries;
//   - c2: 10,000 distinct live queries of the reviews service that do not
//     read what the vote changes: store B's getStoreReviews (distinct page
//     sizes, orders and filters), getReview of each of B's reviews and B's
//     getStoreReviewStats, held by 10 signed-in callers (2 sockets of 500
//     each: a live query is shared only by one caller, so each caller's
//     1,000 are distinct from the others');
//   - c3: 1,000 subscriptions that read it, on 10 distinct live queries
//     (store A's getStoreReviews, 10 page sizes) from 100 anonymous sockets;
//   - c4: 1,000 distinct live queries that read it (A's getStoreReviews,
//     100 page sizes x 5 orders x 2 filters) on 2 sockets of one signed-in
//     caller.
//
// Each row: the process's CPU time from the first write until the process
// is idle again (the re-runs a write starts finish after its answer), per
// write, and the same less the process's CPU at rest (measured before and
// after the row: at 5 writes a second the all-in-one's rest, about 3% of a
// core, is most of a lone write's CPU, so that figure is noisy and R is made
// of the first); the write's own HTTP answer (p50/p99); for c3 and c4, the
// time from a write's answer until each subscription showed its new
// helpfulCount.
// The run ends with `live write cost: 10000 unrelated / none R`, R the CPU per
// write of c2 over that of c1 (issue 23's goal: R <= 1.5).
var (
	liveCost          = flag.Bool("live-cost", false, "run only the live write cost rows (make bench-live, issue 23)")
	liveCostWrites    = flag.Int("live-cost-writes", 40, "writes measured per live write cost row")
	liveCostRate      = flag.Int("live-cost-rate", 5, "writes per second in the live write cost rows")
	liveCostUnrelated = flag.Int("live-cost-unrelated", 10_000, "distinct live queries that do not read the write (row c2; a multiple of 1,000)")
	liveCostIdle      = flag.Duration("live-cost-idle-max", 3*time.Minute, "longest wait for the process to go idle after a row's writes")
)

const (
	// A process using less than idleShare of one core for idleFor is idle.
	idleShare  = 0.05
	idleFor    = time.Second
	idleSample = 250 * time.Millisecond
	// How long each row measures the process's CPU at rest before its writes.
	restFor = 3 * time.Second
	// Live queries per signed-in socket in c2 and c4: the gateway's default
	// CONVEX_MAX_QUERIES_PER_CONNECTION.
	perSignedInSocket = 500
	// Distinct live queries per signed-in caller in c2: within the default
	// CONVEX_MAX_LIVE_QUERIES_PER_CALLER (2,000).
	perCaller = 1000
	// c3's anonymous sockets per loopback address: within the default
	// CONVEX_ANON_MAX_CONNECTIONS_PER_IP (10).
	anonPerAddress = 5
)

type costRow struct {
	name             string
	writes, errors   int
	cpuPerWrite      time.Duration    // the process's CPU time per write (R's figure)
	netPerWrite      time.Duration    // the same, the process's CPU at rest taken out
	rest             float64          // the process's CPU at rest before and after the row, in cores
	write            [2]time.Duration // p50, p99 of the write's answer
	seen             [2]time.Duration // p50, p99 from the answer to each subscription's update
	seenN, missed    int              // updates measured; subscriptions that never showed a write
	drain            time.Duration    // from the last answer until idle
	idle, subscribed bool
}

func runLiveCost() error {
	env := map[string]string{"LOG_LEVEL": "error", "ACCESS_LOG": "false", "RATE_LIMIT_RPS": "1000000000", "RATE_LIMIT_BURST": "1000000000"}
	sys, _, err := launch(env, true)
	if err != nil {
		return err
	}
	defer sys.stop()
	loadStart := loadAvg()
	start := time.Now()
	rows, setup, err := benchLiveCost(sys.info.BaseURL, sys.tok)
	if err != nil {
		return err
	}
	host, _ := os.Hostname()
	fmt.Printf("\nlive write cost (issue 23), %s: voteOnReview (a new voter, helpful) on store A's one review, %d writes at %d/s per row, after every\n",
		time.Now().UTC().Format(time.RFC3339), *liveCostWrites, *liveCostRate)
	fmt.Printf("subscription has its first value and the process is idle; all-in-one in memory on the embedded engine, %s, %d CPUs, load %s at the start, %s at the end (%v)\n",
		host, runtime.NumCPU(), loadStart, loadAvg(), time.Since(start).Round(time.Second))
	fmt.Printf("gateway caps at their defaults: c2 and c4 are signed-in callers (%d live queries per socket, %d per caller), c3 anonymous sockets, %d per loopback address\n",
		perSignedInSocket, perCaller, anonPerAddress)
	fmt.Println("CPU/write: the process's CPU time (getrusage; the gateway, the services, the engine and this bench's own clients and socket readers share")
	fmt.Println("the process) from the first write until the process is idle again, over the writes: R is made of these; less rest: the same less")
	fmt.Printf("the process's CPU at rest over that time (noisy: at 5 writes/s the rest is most of a lone write's CPU); at rest: the process's CPU (share of\n")
	fmt.Printf("one core) in the %v before the row and the %[1]v after it; write: the write's HTTP answer;\n", restFor)
	fmt.Println("seen: from a write's answer to each subscription's update showing it (0 when the update came first); idle after: from the last answer")
	fmt.Printf("until the process used less than %.0f%% of a core for %v\n", 100*idleShare, idleFor)
	for _, s := range setup {
		fmt.Println("setup:", s)
	}
	printLiveCost(os.Stdout, rows)
	return nil
}

func printLiveCost(w interface{ Write([]byte) (int, error) }, rows []costRow) {
	fmt.Fprintf(w, "%-58s %10s %10s %7s %10s %10s %10s %10s %10s %6s\n", "row", "CPU/write", "less rest", "at rest", "write p50", "write p99", "seen p50", "seen p99", "idle after", "errors")
	d := func(v time.Duration) string {
		if v >= time.Second {
			return v.Round(10 * time.Millisecond).String()
		}
		return v.Round(10 * time.Microsecond).String()
	}
	for _, r := range rows {
		seen50, seen99 := "", ""
		if r.subscribed {
			seen50, seen99 = d(r.seen[0]), d(r.seen[1])
		}
		idle := d(r.drain)
		if !r.idle {
			idle = ">" + idle
		}
		fmt.Fprintf(w, "%-58s %10s %10s %6.1f%% %10s %10s %10s %10s %10s %6d\n", r.name, d(r.cpuPerWrite), d(r.netPerWrite), 100*r.rest, d(r.write[0]), d(r.write[1]),
			seen50, seen99, idle, r.errors+r.missed)
	}
	for _, r := range rows {
		if r.subscribed {
			fmt.Fprintf(w, "%s: %d updates measured, %d subscriptions missed a write (goal: seen p99 <= 50ms)\n", r.name[:4], r.seenN, r.missed)
		}
	}
	if len(rows) >= 2 {
		fmt.Fprintln(w, costLine(*liveCostUnrelated, rows[1].cpuPerWrite, rows[0].cpuPerWrite))
	}
}

// costLine is the run's last line: CPU per write with the unrelated live
// queries over CPU per write with none (issue 23's goal: <= 1.5); with the
// default 10,000 it is issue 23's line exactly.
func costLine(queries int, unrelated, none time.Duration) string {
	r := math.NaN()
	if none > 0 {
		r = float64(unrelated) / float64(none)
	}
	return fmt.Sprintf("live write cost: %d unrelated / none %.2f", queries, r)
}

// relatedArgs are c4's 1,000 distinct arguments of store A's getStoreReviews,
// each of whose pages holds A's one review: 100 page sizes x 5 orders x
// (no filter, rating 5).
func relatedArgs(store string) []any {
	sorts := []string{"newest", "oldest", "highest_rating", "lowest_rating", "most_helpful"}
	var out []any
	for _, rated := range []bool{false, true} {
		for _, s := range sorts {
			for n := 1; n <= 100; n++ {
				a := map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": n, "cursor": nil}, "sortBy": s}
				if rated {
					a["ratingFilter"] = 5
				}
				out = append(out, a)
			}
		}
	}
	return out
}

// unrelatedQueries are one caller's 1,000 distinct live queries of store B:
// its statistics, each of its reviews, and getStoreReviews (floodArgs) for
// the rest.
func unrelatedQueries(store string, reviews []string) []liveQuery {
	out := []liveQuery{{path: "stores/reviews:getStoreReviewStats", args: map[string]any{"storeId": store}}}
	for _, r := range reviews {
		out = append(out, liveQuery{path: "stores/reviews:getReview", args: map[string]any{"reviewId": r}})
	}
	for i := 0; len(out) < perCaller; i++ {
		out = append(out, liveQuery{path: "stores/reviews:getStoreReviews", args: floodArgs(store, i)})
	}
	return out
}

// helpfulWatch records, per subscription, when it first showed each
// helpfulCount of the voted review.
type helpfulWatch struct {
	review string
	base   int // helpfulCount before the row's first write
	mu     sync.Mutex
	seen   map[[2]int][]time.Time // (socket, query id) -> time it showed base+1+k
	shown  map[[2]int]int         // (socket, query id) -> the highest count shown
}

func newHelpfulWatch(review string, base int) *helpfulWatch {
	return &helpfulWatch{review: review, base: base, seen: map[[2]int][]time.Time{}, shown: map[[2]int]int{}}
}

// add registers a subscription, which shows base until a write.
func (h *helpfulWatch) add(sock, id, writes int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen[[2]int{sock, id}] = make([]time.Time, writes)
	h.shown[[2]int{sock, id}] = h.base
}

// update reads the voted review's helpfulCount from a getStoreReviews page.
func (h *helpfulWatch) update(sock, id int, value json.RawMessage) {
	now := time.Now()
	var p struct {
		Page []struct {
			ID           string `json:"_id"`
			HelpfulCount int    `json:"helpfulCount"`
		} `json:"page"`
	}
	if json.Unmarshal(value, &p) != nil {
		return
	}
	for _, r := range p.Page {
		if r.ID == h.review {
			h.show(sock, id, r.HelpfulCount, now)
		}
	}
}

func (h *helpfulWatch) show(sock, id, count int, at time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := [2]int{sock, id}
	times := h.seen[k]
	for c := h.shown[k] + 1; c <= count; c++ {
		if i := c - h.base - 1; i >= 0 && i < len(times) {
			times[i] = at
		}
	}
	h.shown[k] = max(h.shown[k], count)
}

// caughtUp reports whether every subscription shows count.
func (h *helpfulWatch) caughtUp(count int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.shown {
		if c < count {
			return false
		}
	}
	return true
}

// latencies are, for each write answered at answered[count], the time until
// each subscription showed count; missed counts the subscriptions that never
// showed the last count.
func (h *helpfulWatch) latencies(answered map[int]time.Time) (lat []time.Duration, missed int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	last := h.base
	for c := range answered {
		last = max(last, c)
	}
	for k, times := range h.seen {
		if h.shown[k] < last {
			missed++
		}
		for c, at := range answered {
			if i := c - h.base - 1; i >= 0 && i < len(times) && !times[i].IsZero() {
				lat = append(lat, max(0, times[i].Sub(at)))
			}
		}
	}
	return lat, missed
}

func benchLiveCost(base string, tok func(sub string, roles ...string) string) ([]costRow, []string, error) {
	if *liveCostUnrelated%perCaller != 0 || *liveCostWrites < 1 || *liveCostRate < 1 {
		return nil, nil, fmt.Errorf("-live-cost-unrelated must be a multiple of %d, -live-cost-writes and -live-cost-rate at least 1", perCaller)
	}
	var setup []string
	t0 := time.Now()
	admin := tok("bench-cost-admin", "admin")
	newStore := func(name string) (string, error) {
		raw, err := do(base+"/api/mutation", admin, "admins.catalog.createStore", map[string]any{
			"name": name, "ownerUserId": "bench-cost-owner", "ownerName": "O", "ownerPhone": "+971500000000"})
		var id string
		_ = json.Unmarshal(raw, &id)
		return id, err
	}
	customer := func(sub string) (string, error) {
		t := tok(sub)
		_, err := do(base+"/api/mutation", t, "customers.profile.upsertMyProfile", map[string]any{"name": sub})
		return t, err
	}
	review := func(t, store string, rating int, title string) (string, error) {
		raw, err := do(base+"/api/mutation", t, "stores.reviews.addReview", map[string]any{"storeId": store, "rating": rating,
			"title": title, "comment": "A bench review of a store, of some realistic length: the delivery was on time."})
		var out struct {
			ReviewID string `json:"reviewId"`
		}
		_ = json.Unmarshal(raw, &out)
		return out.ReviewID, err
	}
	storeA, err := newStore("Cost Store A")
	if err != nil {
		return nil, nil, err
	}
	storeB, err := newStore("Cost Store B")
	if err != nil {
		return nil, nil, err
	}
	author, err := customer("bench-cost-author")
	if err != nil {
		return nil, nil, err
	}
	voted, err := review(author, storeA, 5, "The voted review")
	if err != nil {
		return nil, nil, err
	}
	// Store B: 20 reviews by 10 reviewers.
	var bReviews []string
	for r := range 10 {
		t, err := customer(fmt.Sprintf("bench-cost-reviewer-%d", r))
		if err != nil {
			return nil, nil, err
		}
		for k := range 2 {
			id, err := review(t, storeB, 1+(r+k)%5, fmt.Sprintf("Store B review %d.%d", r, k))
			if err != nil {
				return nil, nil, err
			}
			bReviews = append(bReviews, id)
		}
	}
	// One new voter per write of every row.
	const rowCount = 4
	voters := make([]string, rowCount**liveCostWrites)
	for i := range voters {
		if voters[i], err = customer(fmt.Sprintf("bench-cost-voter-%d", i)); err != nil {
			return nil, nil, err
		}
	}
	setup = append(setup, fmt.Sprintf("store A with the voted review, store B with %d reviews, %d voters in %v", len(bReviews), len(voters), time.Since(t0).Round(10*time.Millisecond)))
	nextVoter := 0
	// helpful is the voted review's helpfulCount now (a write that failed
	// may have counted).
	helpful := func() (int, error) {
		raw, err := do(base+"/api/query", admin, "stores.reviews.getReview", map[string]any{"reviewId": voted})
		var v struct {
			HelpfulCount int `json:"helpfulCount"`
		}
		if err == nil {
			err = json.Unmarshal(raw, &v)
		}
		return v.HelpfulCount, err
	}

	// measure runs a row's writes and waits for the process to go idle.
	measure := func(name string, h *helpfulWatch) costRow {
		r := costRow{name: name, writes: *liveCostWrites, subscribed: h != nil}
		var mu sync.Mutex
		var lat []time.Duration
		answered := map[int]time.Time{}
		var wg sync.WaitGroup
		// At rest: what the process uses with nothing to do (timers, polls,
		// idle sockets), measured before the row and taken out of its CPU.
		waitIdle(*liveCostIdle)
		restAt, restCPU := time.Now(), cpuTime()
		time.Sleep(restFor)
		t0, c0 := time.Now(), cpuTime()
		tick := time.NewTicker(time.Second / time.Duration(*liveCostRate))
		for i := 0; i < *liveCostWrites; i++ {
			if i > 0 {
				<-tick.C
			}
			voter := voters[nextVoter]
			nextVoter++
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := time.Now()
				raw, err := do(base+"/api/mutation", voter, "stores.reviews.voteOnReview", map[string]any{"reviewId": voted, "isHelpful": true})
				at := time.Now()
				var v struct {
					HelpfulCount int `json:"helpfulCount"`
				}
				mu.Lock()
				defer mu.Unlock()
				if err != nil || json.Unmarshal(raw, &v) != nil {
					r.errors++
					return
				}
				lat = append(lat, at.Sub(t))
				answered[v.HelpfulCount] = at
			}()
		}
		tick.Stop()
		wg.Wait()
		lastAnswer := time.Now()
		if h != nil {
			last := 0
			for c := range answered {
				last = max(last, c)
			}
			for !h.caughtUp(last) && time.Since(lastAnswer) < *liveCostIdle {
				time.Sleep(5 * time.Millisecond)
			}
		}
		cpu, at, idle := waitIdle(*liveCostIdle)
		r.idle, r.drain = idle, at.Sub(lastAnswer)
		// And at rest after the row: the rate is the mean of both.
		restAt2, restCPU2 := time.Now(), cpuTime()
		time.Sleep(restFor)
		r.rest = float64(c0-restCPU+cpuTime()-restCPU2) / float64(t0.Sub(restAt)+time.Since(restAt2))
		if n := *liveCostWrites - r.errors; n > 0 {
			r.cpuPerWrite = (cpu - c0) / time.Duration(n)
			r.netPerWrite = max(0, cpu-c0-time.Duration(r.rest*float64(at.Sub(t0)))) / time.Duration(n)
		}
		r.write[0], r.write[1] = percentiles(lat)
		if h != nil {
			seen, missed := h.latencies(answered)
			r.seen[0], r.seen[1] = percentiles(seen)
			r.seenN, r.missed = len(seen), missed
		}
		return r
	}
	closeAll := func(socks []*liveSocket) {
		for _, s := range socks {
			s.close()
		}
	}
	var rows []costRow

	// c1: no live queries.
	rows = append(rows, measure("(c1) no live queries", nil))

	// c2: the unrelated live queries.
	t0 = time.Now()
	var socks []*liveSocket
	ignore := func(*liveSocket, int, json.RawMessage) {}
	for c := 0; c < *liveCostUnrelated/perCaller; c++ {
		t := tok(fmt.Sprintf("bench-cost-unrelated-%d", c))
		qs := unrelatedQueries(storeB, bReviews)
		for s := 0; s*perSignedInSocket < len(qs); s++ {
			sk, err := dialLive(base, fmt.Sprintf("127.0.3.%d", 1+c), t, qs[s*perSignedInSocket:min(len(qs), (s+1)*perSignedInSocket)], ignore)
			if err != nil {
				closeAll(socks)
				return nil, nil, fmt.Errorf("unrelated caller %d, socket %d: %w", c, s, err)
			}
			socks = append(socks, sk)
		}
	}
	setup = append(setup, fmt.Sprintf("c2: %d live queries of store B (%d callers, %d sockets) answered in %v", *liveCostUnrelated, *liveCostUnrelated/perCaller, len(socks), time.Since(t0).Round(10*time.Millisecond)))
	rows = append(rows, measure(fmt.Sprintf("(c2) %d live queries that did not read it", *liveCostUnrelated), nil))
	closeAll(socks)

	// c3: 1,000 subscriptions on 10 live queries that read it.
	t0 = time.Now()
	socks = nil
	count, err := helpful()
	if err != nil {
		return nil, nil, err
	}
	h := newHelpfulWatch(voted, count)
	shared := make([]liveQuery, 10)
	for i := range shared {
		shared[i] = liveQuery{path: "stores/reviews:getStoreReviews", args: map[string]any{"storeId": storeA, "paginationOpts": map[string]any{"numItems": 1 + i, "cursor": nil}, "sortBy": "most_helpful"}}
	}
	for s := 0; s < 100; s++ {
		for id := range shared {
			h.add(s, id, *liveCostWrites)
		}
		sock := s
		sk, err := dialLive(base, fmt.Sprintf("127.0.4.%d", 1+s/anonPerAddress), "", shared, func(_ *liveSocket, id int, v json.RawMessage) { h.update(sock, id, v) })
		if err != nil {
			closeAll(socks)
			return nil, nil, fmt.Errorf("shared row, socket %d: %w", s, err)
		}
		socks = append(socks, sk)
	}
	setup = append(setup, fmt.Sprintf("c3: 1000 subscriptions (10 live queries of store A, 100 anonymous sockets from %d addresses) answered in %v", 100/anonPerAddress, time.Since(t0).Round(10*time.Millisecond)))
	rows = append(rows, measure("(c3) 1000 subscriptions, 10 live queries that read it", h))
	closeAll(socks)

	// c4: 1,000 distinct live queries that read it.
	t0 = time.Now()
	socks = nil
	if count, err = helpful(); err != nil {
		return nil, nil, err
	}
	h = newHelpfulWatch(voted, count)
	var distinct []liveQuery
	for _, a := range relatedArgs(storeA) {
		distinct = append(distinct, liveQuery{path: "stores/reviews:getStoreReviews", args: a})
	}
	related := tok("bench-cost-related")
	for s := 0; s*perSignedInSocket < len(distinct); s++ {
		qs := distinct[s*perSignedInSocket : min(len(distinct), (s+1)*perSignedInSocket)]
		for id := range qs {
			h.add(s, id, *liveCostWrites)
		}
		sock := s
		sk, err := dialLive(base, "127.0.5.1", related, qs, func(_ *liveSocket, id int, v json.RawMessage) { h.update(sock, id, v) })
		if err != nil {
			closeAll(socks)
			return nil, nil, fmt.Errorf("distinct row, socket %d: %w", s, err)
		}
		socks = append(socks, sk)
	}
	setup = append(setup, fmt.Sprintf("c4: %d distinct live queries of store A (one caller, %d sockets) answered in %v", len(distinct), len(socks), time.Since(t0).Round(10*time.Millisecond)))
	rows = append(rows, measure(fmt.Sprintf("(c4) %d distinct live queries that read it", len(distinct)), h))
	closeAll(socks)
	return rows, setup, nil
}

// percentiles are the p50 and p99 of lat.
func percentiles(lat []time.Duration) (time.Duration, time.Duration) {
	s := summarize("", lat, 0, 0)
	return s.p50, s.p99
}

// waitIdle waits until the process has used less than idleShare of one core
// over idleFor (at most max): the process's CPU time and the instant when
// that quiet stretch began, and whether it came.
func waitIdle(max time.Duration) (time.Duration, time.Time, bool) {
	type sample struct {
		at  time.Time
		cpu time.Duration
	}
	end := time.Now().Add(max)
	quiet := sample{time.Now(), cpuTime()} // where the current quiet stretch began
	prev := quiet
	for time.Now().Before(end) {
		time.Sleep(idleSample)
		cur := sample{time.Now(), cpuTime()}
		if float64(cur.cpu-prev.cpu) > idleShare*float64(cur.at.Sub(prev.at)) {
			quiet = cur
		} else if cur.at.Sub(quiet.at) >= idleFor {
			return quiet.cpu, quiet.at, true
		}
		prev = cur
	}
	return prev.cpu, prev.at, false
}
