package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"
)

// The live query flood rows (issue 18, item 3): an ordinary request's latency
// (the probe: getStoreReviews over HTTP at a steady rate, with two votes a
// second on the store's reviews), first without subscriptions, then under a
// flood of distinct anonymous getStoreReviews subscriptions of the same
// store, each of which a vote re-runs. The flood opens as many as the
// gateway's caps let in: CONVEX_ANON_MAX_CONNECTIONS_PER_IP sockets of
// CONVEX_ANON_MAX_QUERIES_PER_CONNECTION queries per address, from as many
// loopback addresses (127.0.2.x: the gateway sees each as an IP address of
// its own) as -flood-queries needs, up to what CONVEX_ANON_MAX_LIVE_QUERIES
// lets in; their first answers come at the pace of the anonymous run budget
// (CONVEX_ANON_RUNS_PER_SECOND), and the row starts once they are in or after
// a minute. -flood-legacy runs the same against the limits of the code before
// the caps (50 sockets of 500 queries per address, no cap in all, 32 runs at
// once whatever requests wait, no rest between runs, no anonymous budget in
// all). Goal: the probe's p95 with the flood at most twice its p95 without.
// -flood-health (floodhealth.go) probes /health instead, with the flood from
// 10 addresses.
var (
	floodOnly    = flag.Bool("flood-only", false, "run only the live query flood rows")
	floodLegacy  = flag.Bool("flood-legacy", false, "the flood rows against the limits before the caps (50 anonymous sockets of 500 queries per address, 32 re-runs at once)")
	floodQueries = flag.Int("flood-queries", 5000, "distinct anonymous subscriptions the flood tries to open")
	floodDur     = flag.Duration("flood-d", 15*time.Second, "measured duration of each flood row")
	floodRate    = flag.Int("flood-probe-rate", 20, "probe requests per second")
	floodSet     = flag.String("flood-env", "", "more gateway settings for the flood rows, NAME=value,... (CONVEX_RERUN_CONCURRENCY=1)")
	floodChars   = flag.Int("flood-review-chars", 0, "each flood review's comment this many characters (at most 5000: answers of 40 reviews near 200 KB); 0: one short sentence")
)

// The gateway's limits the flood runs against (the defaults of convex.Config,
// or the legacy ones), set in the all-in-one's environment by floodEnv.
type floodLimits struct {
	socketsPerIP, queriesPerSocket int
	env                            map[string]string
}

func currentFloodLimits() floodLimits {
	if *floodLegacy {
		return floodLimits{socketsPerIP: 50, queriesPerSocket: 500, env: map[string]string{
			"CONVEX_ANON_MAX_CONNECTIONS_PER_IP": "50", "CONVEX_ANON_MAX_QUERIES_PER_CONNECTION": "500",
			"CONVEX_MAX_CONNECTIONS_PER_IP": "0", "CONVEX_MAX_LIVE_QUERIES": "0", "CONVEX_ANON_MAX_LIVE_QUERIES": "0",
			"CONVEX_RERUN_CONCURRENCY": "32", "CONVEX_RERUN_CONCURRENCY_BUSY": "32", "CONVEX_RERUN_SHARE_PERCENT": "100",
			// and without the anonymous budget in all (issue 29)
			"CONVEX_ANON_MAX_CONNECTIONS": "0", "CONVEX_ANON_MAX_SUBSCRIPTIONS": "0", "CONVEX_ANON_RUNS_PER_SECOND": "0", "CONVEX_ANON_RUN_CONCURRENCY": "32"}}
	}
	return floodLimits{socketsPerIP: 10, queriesPerSocket: 50} // convex.Config's defaults
}

// floodEnv adds the flood's limits to the all-in-one's environment.
func floodEnv(env map[string]string) {
	for k, v := range currentFloodLimits().env {
		env[k] = v
	}
	for _, kv := range strings.Split(*floodSet, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
}

type floodResult struct {
	without, with        probeStats
	subscribed, refused  int
	addresses, sockets   int
	updatesWith          int64
	catchUp              time.Duration // from the last vote to the flood's last update
	cpuWithout, cpuWith  float64
	votesWithout, votesW int
	legacy               bool
}

type probeStats struct {
	p50, p95, p99, max time.Duration
	n, errors          int
}

func runFloodOnly(base string, tok func(sub string, roles ...string) string) error {
	res, err := benchFlood(base, tok)
	if err != nil {
		return err
	}
	printFlood(res)
	return nil
}

// floodWorld is what the flood rows need: a store with 40 reviews by 10
// reviewers, and two voters.
type floodWorld struct {
	store           string
	reviews, voters []string
}

func newFloodWorld(base string, tok func(sub string, roles ...string) string) (*floodWorld, error) {
	admin := tok("bench-flood-admin", "admin")
	raw, err := do(base+"/api/mutation", admin, "admins.catalog.createStore", map[string]any{
		"name": "Flood Store", "ownerUserId": "bench-flood-owner", "ownerName": "O", "ownerPhone": "+971500000000"})
	if err != nil {
		return nil, err
	}
	var store string
	_ = json.Unmarshal(raw, &store)
	profile := func(sub string) (string, error) {
		t := tok(sub)
		_, err := do(base+"/api/mutation", t, "customers.profile.upsertMyProfile", map[string]any{"name": sub})
		return t, err
	}
	// 40 reviews by 10 reviewers; two voters.
	var reviews []string
	for r := range 10 {
		t, err := profile(fmt.Sprintf("bench-flood-reviewer-%d", r))
		if err != nil {
			return nil, err
		}
		for k := range 4 {
			comment := "A bench review of a store, of some realistic length: the delivery was on time."
			if *floodChars > 0 {
				comment = strings.Repeat("The delivery was on time and the bread was fresh. ", *floodChars/50+1)[:min(*floodChars, 5000)]
			}
			raw, err := do(base+"/api/mutation", t, "stores.reviews.addReview", map[string]any{"storeId": store, "rating": 1 + (r+k)%5,
				"title": fmt.Sprintf("Flood review %d.%d", r, k), "comment": comment})
			if err != nil {
				return nil, err
			}
			var out struct {
				ReviewID string `json:"reviewId"`
			}
			_ = json.Unmarshal(raw, &out)
			reviews = append(reviews, out.ReviewID)
		}
	}
	var voters []string
	for v := range 2 {
		t, err := profile(fmt.Sprintf("bench-flood-voter-%d", v))
		if err != nil {
			return nil, err
		}
		voters = append(voters, t)
	}
	return &floodWorld{store: store, reviews: reviews, voters: voters}, nil
}

func benchFlood(base string, tok func(sub string, roles ...string) string) (*floodResult, error) {
	limits := currentFloodLimits()
	world, err := newFloodWorld(base, tok)
	if err != nil {
		return nil, err
	}
	store, reviews, voters := world.store, world.reviews, world.voters
	probe := body("stores.reviews.getStoreReviews", map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 20, "cursor": nil}, "sortBy": "most_helpful"})
	res := &floodResult{legacy: *floodLegacy}

	// Without the flood.
	var votes atomic.Int64
	stopVotes := vote(base, voters, reviews, &votes)
	time.Sleep(time.Second)
	cpu := cpuMeter()
	res.without = probeAt(base, probe, *floodRate, *floodDur)
	res.cpuWithout = cpu()
	stopVotes()
	res.votesWithout = int(votes.Swap(0))

	// The flood: sockets of distinct queries, address after address, until
	// -flood-queries are asked for (the caps refuse what is over them). Their
	// first answers come at the pace of the anonymous run budget: the row
	// starts once they are in, or after a minute, whichever is first.
	var fc floodCounters
	var socks []*websocket.Conn
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	next := 0
	for addr := 1; next < *floodQueries && addr < 250; addr++ {
		ip := fmt.Sprintf("127.0.2.%d", addr)
		res.addresses++
		for s := 0; s < limits.socketsPerIP && next < *floodQueries; s++ {
			n := min(limits.queriesPerSocket, *floodQueries-next)
			c, err := openFloodSocket(base, ip, store, next, n, &fc)
			if err != nil {
				return nil, fmt.Errorf("flood socket from %s: %w", ip, err)
			}
			socks = append(socks, c)
			next += n
		}
	}
	res.sockets = len(socks)
	for deadline := time.Now().Add(time.Minute); fc.answered.Load()+fc.refused.Load() < int64(next) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	// Votes re-run the flood from now on.
	stopVotes = vote(base, voters, reviews, &votes)
	time.Sleep(2 * time.Second)
	fc.updates.Store(0)
	cpu = cpuMeter()
	res.with = probeAt(base, probe, *floodRate, *floodDur)
	res.cpuWith = cpu()
	res.updatesWith = fc.updates.Load()
	stopVotes()
	lastVote := time.Now()
	res.votesW = int(votes.Swap(0))
	res.subscribed, res.refused = int(fc.answered.Load()), int(fc.refused.Load())
	// How far behind the flood's subscriptions are: until no update came for 3 s.
	for time.Since(time.Unix(0, fc.last.Load())) < 3*time.Second && time.Since(lastVote) < 3*time.Minute {
		time.Sleep(100 * time.Millisecond)
	}
	res.catchUp = max(0, time.Unix(0, fc.last.Load()).Sub(lastVote))
	return res, nil
}

func printFlood(r *floodResult) {
	mode := "the caps' defaults"
	if r.legacy {
		mode = "the limits before the caps (-flood-legacy)"
	}
	if *floodSet != "" {
		mode += ", " + *floodSet
	}
	fmt.Printf("\nlive query flood, %s; probe getStoreReviews at %d/s over HTTP, 2 votes/s on the store's reviews\n", mode, *floodRate)
	fmt.Printf("%-58s %9s %9s %9s %9s %6s %6s\n", "row", "p50", "p95", "p99", "max", "errors", "CPU")
	line := func(name string, s probeStats, cpu float64) {
		fmt.Printf("%-58s %9v %9v %9v %9v %6d %5.0f%%\n", name, s.p50.Round(10*time.Microsecond), s.p95.Round(10*time.Microsecond),
			s.p99.Round(10*time.Microsecond), s.max.Round(10*time.Microsecond), s.errors, cpu)
	}
	line("(l3) probe, no subscriptions", r.without, r.cpuWithout)
	line(fmt.Sprintf("(l4) probe, %d distinct anonymous subscriptions", r.subscribed), r.with, r.cpuWith)
	fmt.Printf("flood: %d subscriptions answered on %d sockets from %d addresses, %d refused by the caps; %d updates pushed to it in %v (%d votes); its last update %v after the last vote\n",
		r.subscribed, r.sockets, r.addresses, r.refused, r.updatesWith, *floodDur, r.votesW, r.catchUp.Round(100*time.Millisecond))
	if r.without.p95 > 0 {
		fmt.Printf("probe p95 with flood / without: %.2f (goal <= 2.00)\n", float64(r.with.p95)/float64(r.without.p95))
	}
}

// vote votes on the reviews twice a second (alternating voters, reviews and
// helpfulness) until the returned func is called.
func vote(base string, voters, reviews []string, n *atomic.Int64) func() {
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			_, err := do(base+"/api/mutation", voters[i%len(voters)], "stores.reviews.voteOnReview",
				map[string]any{"reviewId": reviews[(i/2)%len(reviews)], "isHelpful": (i/len(reviews))%2 == 0})
			if err == nil {
				n.Add(1)
			}
		}
	}()
	return func() { close(stop); <-done }
}

// probeAt sends body to the gateway at rate a second (open loop: a slow
// answer does not delay the next request) for dur.
func probeAt(base string, payload []byte, rate int, dur time.Duration) probeStats {
	return probeWith(rate, dur, func(req *fasthttp.Request) {
		req.SetRequestURI(base + "/api/query")
		req.Header.SetMethod("POST")
		req.Header.SetContentType("application/json")
		req.SetBody(payload)
	})
}

// probeWith sends the request prepare makes at rate a second (open loop)
// for dur; an answer other than 200 is an error.
func probeWith(rate int, dur time.Duration, prepare func(*fasthttp.Request)) probeStats {
	hc := &fasthttp.Client{ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	var mu sync.Mutex
	var lat []time.Duration
	var errs int
	var wg sync.WaitGroup
	t := time.NewTicker(time.Second / time.Duration(rate))
	defer t.Stop()
	end := time.Now().Add(dur)
	for time.Now().Before(end) {
		<-t.C
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			prepare(req)
			start := time.Now()
			err := hc.Do(req, resp)
			took := time.Since(start)
			mu.Lock()
			defer mu.Unlock()
			if err != nil || resp.StatusCode() != 200 {
				errs++
				return
			}
			lat = append(lat, took)
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	s := probeStats{n: len(lat), errors: errs}
	if len(lat) > 0 {
		s.p50, s.p95, s.p99, s.max = lat[len(lat)/2], lat[len(lat)*95/100], lat[len(lat)*99/100], lat[len(lat)-1]
	}
	return s
}

// cpuMeter starts measuring the process's CPU time; the returned func is the
// share of the machine's cores used since, in percent.
func cpuMeter() func() float64 {
	used := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start, cpu0 := time.Now(), used()
	return func() float64 {
		return 100 * float64(used()-cpu0) / float64(time.Since(start)) / float64(runtime.NumCPU())
	}
}

// floodArgs are the arguments of distinct subscription i: page size, order,
// verified only and rating filter vary (9,000 combinations).
func floodArgs(store string, i int) map[string]any {
	sorts := []string{"newest", "oldest", "highest_rating", "lowest_rating", "most_helpful"}
	a := map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 1 + i%100, "cursor": nil}, "sortBy": sorts[(i/100)%5]}
	switch (i / 500) % 3 {
	case 1:
		a["verifiedOnly"] = true
	case 2:
		a["verifiedOnly"] = false
	}
	if r := (i / 1500) % 6; r > 0 {
		a["ratingFilter"] = r
	}
	return a
}
