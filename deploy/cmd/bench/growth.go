package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/256dpi/lungo/boltstore"
	"github.com/256dpi/lungo/bsonkit"
)

// The embedded engine's growth rows (`make bench-engine`, issue 22's
// measures): the same rows with little and with much data stored, side by
// side, through the real system on `make run`'s file store, ending with the
// line of the three ratios.
//
// Filling: the small sizes go in through the API (2,000 reviews through
// addReview, 1,000 orders through the signed webhook); the large ones are
// those same documents copied into the closed database files
// (boltstore.Replicate: new _id and unique keys, same shapes and indexes) before
// the system starts again, so the fill does not cost what an insert costs on
// the engine measured. Phases, each a start of the system on the same
// DATA_DIR: (A) a platform configuration, the stores, reviewers, voters and
// the 50 wallets; (B) 2,000 reviews and their votes; (C) 1,000 orders;
// (D) the small rows; then the copies; (E) the restart (timed), memory, and
// the large rows.
var (
	engineGrowth  = flag.Bool("engine-growth", false, "run only the embedded engine's growth rows (make bench-engine)")
	growthOrders  = flag.Int("growth-orders", 100_000, "orders stored for the large order row (BENCH_ENGINE_QUICK=1: 10,000)")
	growthReviews = flag.Int("growth-reviews", 20_000, "reviews stored for the large vote row")
	growthSeed    = flag.Bool("growth-seed", false, "also time `make seed` (SEED_SCALE=1) on a fresh file store (slow)")
	voteProfile   = flag.String("growth-vote-cpuprofile", "", "write a CPU profile of the large vote row (g2) to this file")
	orderProfile  = flag.String("growth-order-cpuprofile", "", "write a CPU profile of the large order row (g4, until the consumers caught up) to this file")
	// 500 deliveries (the engine rows' -engine-orders) is shorter than the
	// period of one collection of the large database's 1 GB heap, which
	// marks it all (1-2 s of CPU): whether one fell into the row decided R2.
	growthRowOrders = flag.Int("growth-row-orders", 2000, "webhook deliveries of each order row (g3, g4)")
)

const (
	growthSmallOrders = 1_000
	growthSecret      = "whsec_bench"
	growthDevSecret   = "bench-growth-development-secret-0123456789abcdef0123456789abcdef"
)

// growthResult is one run's figures.
type growthResult struct {
	reviewsSmall, reviewsLarge int
	ordersSmall, ordersLarge   int
	votesSmall, votesLarge     row
	ordersSmallRow, ordersBig  row
	walletOne, walletMany      row
	walletCount                int
	coldP50                    time.Duration
	restart                    time.Duration
	heapInUse, storedBytes     int64
	heapSmall, storedSmall     int64
	seed                       time.Duration
	seedNote                   string
	fills                      []string
	quick                      bool
	// CPU time of the process (the all-in-one and the load) per request of
	// rows g1-g6: less sensitive than the rates to other work on the machine.
	cpu        [6]time.Duration
	loadBefore string // /proc/loadavg at the start and at the end
	loadAfter  string
}

// withCPU runs a closed-loop row and gives the process's CPU time per
// request, the warm-up counted at the measured rate.
func withCPU(dur, warm time.Duration, f func() row) (row, time.Duration) {
	c0 := cpuTime()
	r := f()
	n := r.rps * (dur + warm).Seconds()
	if n < 1 {
		return r, 0
	}
	return r, time.Duration(float64(cpuTime()-c0) / n)
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func growthEnv(dir string) map[string]string {
	return map[string]string{"LOG_LEVEL": "error", "ACCESS_LOG": "false", "RATE_LIMIT_RPS": "1000000000", "RATE_LIMIT_BURST": "1000000000",
		"PROCESSOR_WEBHOOK_SECRET": growthSecret, "AUTH_DEV_SECRET": growthDevSecret, "DATA_DIR": dir}
}

// dbFiles is the database files of a DATA_DIR.
func dbFiles(dir string) ([]string, error) {
	return filepath.Glob(filepath.Join(dir, "db", "*.lungo"))
}

// marks is FileMarks of every database file.
func marks(dir string) (map[string]map[string]uint64, error) {
	files, err := dbFiles(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]uint64{}
	for _, f := range files {
		if out[f], err = boltstore.FileMarks(f); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// replicate copies the documents every file got between two marks.
func replicate(dir string, from, to map[string]map[string]uint64, copies int) (int, error) {
	files, err := dbFiles(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range files {
		if to[f] == nil {
			continue
		}
		// The outbox's documents are events not yet relayed: a copy would be
		// published again.
		st, err := boltstore.Replicate(f, from[f], to[f], copies, func(ns string, _ bsonkit.Doc, _ int) bool { return !strings.HasSuffix(ns, ".outbox") })
		if err != nil {
			return n, err
		}
		n += st.Copied
	}
	return n, nil
}

func storedBytes(dir string) (int64, error) {
	files, err := dbFiles(dir)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, f := range files {
		b, _, err := boltstore.StoredBytes(f)
		if err != nil {
			return 0, err
		}
		n += b
	}
	return n, nil
}

func heapInUse() int64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapInuse)
}

// benchGrowth runs the growth rows.
func benchGrowth(conns int, dur, warm time.Duration, conc int) (*growthResult, error) {
	res := &growthResult{reviewsSmall: reviewsSmall, reviewsLarge: *growthReviews, ordersSmall: growthSmallOrders, ordersLarge: *growthOrders}
	if os.Getenv("BENCH_ENGINE_QUICK") == "1" {
		res.quick = true
		res.ordersLarge = 10_000
	}
	if res.reviewsLarge < 2*reviewsSmall || res.ordersLarge < 2*growthSmallOrders {
		return nil, fmt.Errorf("-growth-reviews must be at least %d and -growth-orders at least %d", 2*reviewsSmall, 2*growthSmallOrders)
	}
	res.loadBefore = loadAvg()
	dir, err := os.MkdirTemp("", "bench-growth")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	env := growthEnv(dir)
	step := func(format string, args ...any) {
		line := fmt.Sprintf(format, args...)
		fmt.Println("growth fill: " + line)
		res.fills = append(res.fills, line)
	}
	t0 := time.Now()

	// (A) configuration, stores, people, wallets.
	s, _, err := launch(env, false)
	if err != nil {
		return nil, err
	}
	if err := s.seed(); err != nil {
		s.stop()
		return nil, err
	}
	storeID, productID := s.storeID, s.productID
	relaunch := func() (*benchSystem, time.Duration, error) {
		s, took, err := launch(env, false)
		if err == nil {
			s.storeID, s.productID, s.noEventLatency = storeID, productID, true
		}
		return s, took, err
	}
	rb, err := newReviewBench(s.info.BaseURL, s.tok, reviewsSmall)
	if err != nil {
		s.stop()
		return nil, err
	}
	shops, err := payoutShops(s.info.BaseURL, s.tok)
	if err != nil {
		s.stop()
		return nil, err
	}
	res.walletCount = len(shops)
	s.stop()
	m0, err := marks(dir)
	if err != nil {
		return nil, err
	}

	// (B) reviews through addReview.
	if s, _, err = relaunch(); err != nil {
		return nil, err
	}
	rb.base = s.info.BaseURL
	tb := time.Now()
	if err := rb.fillSmall(); err != nil {
		s.stop()
		return nil, err
	}
	if _, err := waitCaughtUp(s.info.Brokers, 5*time.Minute); err != nil {
		s.stop()
		return nil, err
	}
	step("%d reviews (and votes on 200) stored through addReview and voteOnReview in %v", reviewsSmall, time.Since(tb).Round(time.Millisecond))
	s.stop()
	m1, err := marks(dir)
	if err != nil {
		return nil, err
	}

	// (C) orders through the webhook.
	if s, _, err = relaunch(); err != nil {
		return nil, err
	}
	tc := time.Now()
	if err := seedOrders("growfill", s.info.BaseURL, growthSecret, func(sub string) string { return s.tok(sub) }, storeID, productID, growthSmallOrders, conc); err != nil {
		s.stop()
		return nil, err
	}
	if _, err := waitCaughtUp(s.info.Brokers, 5*time.Minute); err != nil {
		s.stop()
		return nil, err
	}
	step("%d orders stored through the signed webhook in %v", growthSmallOrders, time.Since(tc).Round(time.Millisecond))
	s.stop()
	m2, err := marks(dir)
	if err != nil {
		return nil, err
	}

	// (D) the small rows.
	if s, _, err = relaunch(); err != nil {
		return nil, err
	}
	rb.base = s.info.BaseURL
	res.votesSmall, res.cpu[0] = withCPU(dur, warm, func() row {
		return rb.voteRow(fmt.Sprintf("(g1) voteOnReview, %d reviews stored", reviewsSmall), conns, dur, warm)
	})
	admin := s.tok("bench-admin", "admin")
	res.walletOne, res.cpu[4] = withCPU(dur, warm, func() row { return adjustOneRow(s.info.BaseURL, admin, shops[0], conns, dur, warm) })
	res.walletMany, res.cpu[5] = withCPU(dur, warm, func() row { return adjustEachRow(s.info.BaseURL, admin, shops, conns, dur, warm) })
	r, err := s.round("growsmall", growthSmallOrders, *growthRowOrders, conc, "")
	if err != nil {
		s.stop()
		return nil, err
	}
	res.ordersSmallRow, res.cpu[2] = r.deliveries, r.cpu
	res.heapSmall = heapInUse()
	s.stop()
	ordersNow := growthSmallOrders + *growthRowOrders
	if res.storedSmall, err = storedBytes(dir); err != nil {
		return nil, err
	}

	// The copies.
	tr := time.Now()
	reviewCopies := (res.reviewsLarge - reviewsSmall + reviewsSmall/2) / reviewsSmall
	n, err := replicate(dir, m0, m1, reviewCopies)
	if err != nil {
		return nil, err
	}
	res.reviewsLarge = reviewsSmall * (1 + reviewCopies)
	orderCopies := (res.ordersLarge - ordersNow + growthSmallOrders/2) / growthSmallOrders
	k, err := replicate(dir, m1, m2, orderCopies)
	if err != nil {
		return nil, err
	}
	res.ordersLarge = ordersNow + orderCopies*growthSmallOrders
	if res.storedBytes, err = storedBytes(dir); err != nil {
		return nil, err
	}
	step("%d documents copied into the files in %v (the reviews phase's %d times, the orders phase's %d times): %d reviews, %d orders, %.0f MB of BSON stored",
		n+k, time.Since(tr).Round(time.Millisecond), reviewCopies, orderCopies, res.reviewsLarge, res.ordersLarge, float64(res.storedBytes)/1e6)

	if *growthKeep != "" {
		if err := copyTree(*growthKeep, dir); err != nil {
			return nil, err
		}
		step("the large database kept in %s (-restart-from)", *growthKeep)
	}

	// (E) the restart, memory, the large rows.
	fmt.Println("growth: restarting on the large database...")
	var took time.Duration
	stopRestartProfile := startProfile(*restartProfile)
	s, took, err = relaunch()
	stopRestartProfile()
	if err != nil {
		return nil, err
	}
	res.restart = took
	fmt.Printf("growth: ready in %v; the large rows...\n", took.Round(time.Millisecond))
	res.heapInUse = heapInUse()
	rb.base = s.info.BaseURL
	if lat, err := coldListingLatencies(rb.base, rb.voters[3], rb.targetReviews[1], mustPage(rb)); err == nil {
		res.coldP50 = lat[len(lat)/2]
	} else {
		step("getStoreReviews after a change: %v", err)
	}
	stopProfile := startProfile(*voteProfile)
	res.votesLarge, res.cpu[1] = withCPU(dur, warm, func() row {
		return rb.voteRow(fmt.Sprintf("(g2) voteOnReview, %d reviews stored", res.reviewsLarge), conns, dur, warm)
	})
	stopProfile()
	stopProfile = startProfile(*orderProfile)
	r, err = s.round("growlarge", res.ordersLarge, *growthRowOrders, conc, "")
	stopProfile()
	if err != nil {
		s.stop()
		return nil, err
	}
	res.ordersBig, res.cpu[3] = r.deliveries, r.cpu
	s.stop()
	step("phases A-E took %v", time.Since(t0).Round(time.Second))
	res.loadAfter = loadAvg()

	if *growthSeed {
		res.seed, res.seedNote = timeSeed()
	}
	return res, nil
}

// mustPage is the first page of the target store's list, most helpful first
// (its body; the cursor is not needed).
func mustPage(b *reviewBench) []byte {
	return body("stores.reviews.getStoreReviews", map[string]any{"storeId": b.target, "sortBy": "most_helpful",
		"paginationOpts": map[string]any{"numItems": reviewPageSize, "cursor": nil}})
}

// timeSeed runs `make seed` (bin/seed, SEED_SCALE=1) against a fresh
// all-in-one on a file store, and times it.
func timeSeed() (time.Duration, string) {
	dir, err := os.MkdirTemp("", "bench-seed")
	if err != nil {
		return 0, err.Error()
	}
	defer os.RemoveAll(dir)
	env := growthEnv(dir)
	s, _, err := launch(env, false)
	if err != nil {
		return 0, err.Error()
	}
	defer s.stop()
	cmd := exec.Command("go", "run", "./deploy/cmd/seed", "-url", s.info.BaseURL)
	cmd.Dir = repoRoot()
	cmd.Env = append(os.Environ(), "DATA_DIR="+dir, "AUTH_DEV_SECRET="+growthDevSecret, "SEED_SCALE=1")
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &out
	t0 := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, fmt.Sprintf("make seed failed: %v %s", err, lastLine(out.String()))
	}
	return time.Since(t0), ""
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// repoRoot is the directory holding the Makefile, from the working directory up.
func repoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "Makefile")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// printGrowth prints the rows and, last, the line of the three ratios.
func printGrowth(w io.Writer, r *growthResult, conns int, dur, warm time.Duration) {
	fmt.Fprintf(w, "\nembedded engine growth (make run's file store, %d CPUs, %s; %d connections, %v per row after %v warm-up)\n", runtime.NumCPU(), time.Now().UTC().Format(time.RFC3339), conns, dur, warm)
	fmt.Fprintf(w, "load average (1, 5, 15 min) at the start %s, at the end %s; CPU/req is the process's CPU time per request (the all-in-one and the load; orders: until the consumers caught up)\n",
		r.loadBefore, r.loadAfter)
	for _, f := range r.fills {
		fmt.Fprintf(w, "fill: %s\n", f)
	}
	fmt.Fprintf(w, "%-62s %10s %10s %10s %7s %9s\n", "row", "req/s", "p50", "p99", "errors", "CPU/req")
	line := func(x row, cpu time.Duration, note string) {
		fmt.Fprintf(w, "%-62s %10.0f %10v %10v %7d %9v%s\n", x.name, x.rps, x.p50.Round(time.Microsecond), x.p99.Round(time.Microsecond), x.errors,
			cpu.Round(10*time.Microsecond), note)
	}
	line(r.votesSmall, r.cpu[0], "   (votes/s; reviews through the API)")
	line(r.votesLarge, r.cpu[1], fmt.Sprintf("   (votes/s; %d through the API, the rest copied into the file)", r.reviewsSmall))
	r.ordersSmallRow.name = fmt.Sprintf("(g3) webhook -> order, %d orders stored", r.ordersSmall)
	r.ordersBig.name = fmt.Sprintf("(g4) webhook -> order, %d orders stored", r.ordersLarge)
	line(r.ordersSmallRow, r.cpu[2], "   (orders/s; orders through the webhook)")
	line(r.ordersBig, r.cpu[3], "   (orders/s; the first through the webhook, the rest copied into the file)")
	r.walletOne.name, r.walletMany.name = "(g5) adjustWalletBalance, one wallet", fmt.Sprintf("(g6) adjustWalletBalance, %d wallets", r.walletCount)
	line(r.walletOne, r.cpu[4], "")
	line(r.walletMany, r.cpu[5], "")
	fmt.Fprintf(w, "%-62s %10s %10v %10s %7s   (one at a time, computed, not from the page cache; goal p50 <= 2ms)\n",
		fmt.Sprintf("(g7) getStoreReviews after a change, 200 of %d", r.reviewsLarge), "", r.coldP50.Round(time.Microsecond), "", "")
	fmt.Fprintf(w, "%-62s %10s %10v   (start of the all-in-one to ready: open, read every file, serve)\n",
		fmt.Sprintf("(g8) restart with %d orders, %d reviews stored", r.ordersLarge, r.reviewsLarge), "", r.restart.Round(time.Millisecond))
	fmt.Fprintf(w, "%-62s %10.2f   (heap in use of the whole process after a GC, %.0f MB, / BSON in the databases, %.0f MB)\n",
		"(g9) memory per stored byte, large", ratio(float64(r.heapInUse), float64(r.storedBytes)), float64(r.heapInUse)/1e6, float64(r.storedBytes)/1e6)
	fmt.Fprintf(w, "%-62s %10.2f   (the heap's growth from the small database to the large / the BSON's growth)\n",
		"(g10) memory per stored byte, added", ratio(float64(r.heapInUse-r.heapSmall), float64(r.storedBytes-r.storedSmall)))
	switch {
	case r.seed > 0:
		fmt.Fprintf(w, "%-62s %10s %10v\n", "(g11) make seed (SEED_SCALE=1), fresh file store", "", r.seed.Round(time.Second))
	case r.seedNote != "":
		fmt.Fprintf(w, "%-62s %s\n", "(g11) make seed (SEED_SCALE=1), fresh file store", r.seedNote)
	default:
		fmt.Fprintf(w, "%-62s %s\n", "(g11) make seed (SEED_SCALE=1), fresh file store", "not run (-growth-seed, or BENCHFLAGS=-growth-seed make bench-engine)")
	}
	fmt.Fprintf(w, "votes/s absolute: %.0f at %d reviews (goal >= 1,500); orders/s absolute: %.0f at %d orders (goal >= 1,000)\n",
		r.votesLarge.rps, r.reviewsLarge, r.ordersBig.rps, r.ordersLarge)
	if r.quick {
		fmt.Fprintf(w, "quick run (BENCH_ENGINE_QUICK=1): %d orders stored, not 100,000\n", r.ordersLarge)
	}
	fmt.Fprintln(w, growthLine(r.votesLarge.rps/r.votesSmall.rps, r.ordersBig.rps/r.ordersSmallRow.rps, r.walletMany.rps/r.walletOne.rps))
}

// growthLine is the last line of `make bench-engine` (issue 22's format).
func growthLine(votes, orders, wallets float64) string {
	return fmt.Sprintf("engine growth: votes 20k/2k %.2f, orders 100k/1k %.2f, wallets 50/1 %.2f", votes, orders, wallets)
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}
