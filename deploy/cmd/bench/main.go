// Command bench measures, side by side in one run on loopback: a trivial
// operation straight to its service, the same through the gateway with a
// verified token, the same through nginx (when installed), and
// getCommissionPreview through the gateway. Each row is a closed loop of -c
// connections for -d, reporting requests/s and p50/p99 latency.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"marketplace/deploy/system"
	"marketplace/libs/auth"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type row struct {
	name     string
	rps      float64
	p50, p99 time.Duration
	errors   int64
	skipped  string
}

func run() error {
	conns := flag.Int("c", 50, "concurrent connections per row")
	dur := flag.Duration("d", 5*time.Second, "measured duration per row")
	warm := flag.Duration("warmup", time.Second, "warm-up per row")
	profile := flag.String("cpuprofile", "", "write a CPU profile of one row to this file")
	profileRow := flag.String("profile-row", "b", "the row -cpuprofile covers: a, b, c, d or e")
	orders := flag.Int("orders", 1000, "webhook deliveries (orders) in the order row")
	orderConc := flag.Int("order-c", 10, "concurrent webhook deliveries")
	pacedOrders := flag.Int("paced-orders", 300, "orders delivered at a steady rate for the event latency row")
	pacedRate := flag.Int("paced-rate", 50, "orders per second of the paced run")
	reviewsLarge := flag.Int("reviews-large", 20_000, "reviews in the database of row (r3), the store's 200 among them (2000 or less skips the row)")
	flag.Parse()

	if *restartFrom != "" {
		return benchRestarts()
	}
	if *liveCost {
		return runLiveCost()
	}
	if *engineGrowth {
		res, err := benchGrowth(*conns, *dur, *warm, *orderConc)
		if err != nil {
			return err
		}
		printGrowth(os.Stdout, res, *conns, *dur, *warm)
		return nil
	}

	// The embedded engine rows first, each on a fresh all-in-one of its own (engine.go).
	var engine *engineResult
	var err error
	if !*consoleOnly {
		if engine, err = benchEngine(*orderConc); err != nil {
			return err
		}
	}
	if *engineOnly {
		printEngine(engine)
		return nil
	}

	const webhookSecret = "whsec_bench"
	env := map[string]string{"LOG_LEVEL": "error", "ACCESS_LOG": "false", "RATE_LIMIT_RPS": "1000000000", "RATE_LIMIT_BURST": "1000000000",
		"PROCESSOR_WEBHOOK_SECRET": webhookSecret}
	floodEnv(env) // the live query caps the flood rows run against (flood.go)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	infoc := make(chan system.Info, 1)
	done := make(chan error, 1)
	go func() {
		done <- system.Run(ctx, system.Options{Getenv: func(k string) string { return env[k] }, Stdout: io.Discard, Memory: true,
			Listener: mustListen(), OnReady: func(i system.Info) { infoc <- i }})
	}()
	var info system.Info
	select {
	case info = <-infoc:
	case err := <-done:
		return err
	}
	tok := func(sub string, roles ...string) string {
		t, _ := auth.Mint([]byte(info.DevSecret), sub, roles, time.Hour, auth.Options{})
		return t
	}
	admin, user := tok("bench-admin", "admin"), tok("bench-user")

	// Data for the operations: a few cities, a config, a Food store.
	call := func(kind, path string, args any) (json.RawMessage, error) {
		return do(info.BaseURL+"/api/"+kind, admin, path, args)
	}
	for _, c := range []string{"Dubai", "Abu Dhabi", "Sharjah"} {
		if _, err := call("mutation", "admins.catalog.createCity", map[string]any{"name": c, "nameArabic": c}); err != nil {
			return err
		}
	}
	if _, err := call("mutation", "admins.platformAdmin.createInitialPlatformConfig", map[string]any{"adminUserId": "bench-admin"}); err != nil {
		return err
	}
	catID, err := call("mutation", "admins.catalog.createCategory", map[string]any{"name": "Bench Food"})
	if err != nil {
		return err
	}
	var cat string
	_ = json.Unmarshal(catID, &cat)
	storeRaw, err := call("mutation", "admins.catalog.createStore", map[string]any{"name": "Bench Store", "ownerUserId": "owner", "ownerName": "O", "ownerPhone": "+971500000000", "primaryCategoryId": cat})
	if err != nil {
		return err
	}
	var storeID string
	_ = json.Unmarshal(storeRaw, &storeID)

	// A customer with 10 addresses, for the addresses row.
	userCall := func(kind, path string, args any) (json.RawMessage, error) {
		return do(info.BaseURL+"/api/"+kind, user, path, args)
	}
	cityRaw, err := call("mutation", "admins.catalog.createCity", map[string]any{"name": "Ajman", "nameArabic": "عجمان"})
	if err != nil {
		return err
	}
	var city, area, customer string
	_ = json.Unmarshal(cityRaw, &city)
	areaRaw, err := call("mutation", "admins.catalog.createArea", map[string]any{"name": "Al Nuaimiya", "city": city})
	if err != nil {
		return err
	}
	_ = json.Unmarshal(areaRaw, &area)
	custRaw, err := userCall("mutation", "customers.profile.upsertMyProfile", map[string]any{"name": "Bench User"})
	if err != nil {
		return err
	}
	_ = json.Unmarshal(custRaw, &customer)
	for i := 0; i < 10; i++ {
		if _, err := userCall("mutation", "customers.addresses.createAddress", map[string]any{"customerId": customer, "name": fmt.Sprintf("Address %d", i),
			"fullAddress": fmt.Sprintf("Building %d, Street %d", i, i), "city": city, "area": area, "latitude": "25.40", "longitude": "55.44"}); err != nil {
			return err
		}
	}

	if *eventsOnly {
		return runEventsOnly(info, webhookSecret, tok, storeID, *orderConc)
	}
	if *liveOnly {
		return runLiveOnly(info.BaseURL, tok)
	}
	if *consoleOnly {
		return runConsoleOnly(info.BaseURL, tok)
	}
	if *floodOnly {
		return runFloodOnly(info.BaseURL, tok)
	}
	if *floodHealth {
		return runFloodHealth(info.BaseURL, tok)
	}
	trivial := body("catalog.locations.listCities", nil)
	preview := body("admins.platformAdmin.getCommissionPreview", map[string]any{"storeId": storeID, "subtotal": 123.45, "deliveryFee": 7})
	rows := []row{}
	measure := func(name, url string, payload []byte) {
		if name[1:2] == *profileRow {
			defer startProfile(*profile)()
		}
		rows = append(rows, load(name, url, user, payload, *conns, *dur, *warm))
	}
	measure("(a) listCities direct to catalog", info.Services["catalog"]+"/api/query", trivial)
	measure("(b) listCities via gateway, verified token", info.BaseURL+"/api/query", trivial)
	if ngx, stop, why := startNginx(info.Services["catalog"]); ngx != "" {
		measure("(c) listCities via nginx to catalog", ngx+"/api/query", trivial)
		stop()
	} else {
		rows = append(rows, row{name: "(c) listCities via nginx to catalog", skipped: why})
	}
	measure("(d) getCommissionPreview via gateway", info.BaseURL+"/api/query", preview)
	measure("(e) getCustomerAddresses (10) via gateway", info.BaseURL+"/api/query", body("customers.addresses.getCustomerAddresses", nil))
	// Store discovery next to the other reads (see discovery.go).
	searchRow, searchNote, err := benchSearch(info.BaseURL, info.Brokers, tok, *conns, *dur, *warm)
	if err != nil {
		return err
	}
	discoveryRows := []row{searchRow}
	// Reviews' reads at 2,000 reviews next to the other read rows; their
	// 20,000 and their write rows come last (see reviews.go).
	reviews, err := newReviewBench(info.BaseURL, tok, *reviewsLarge)
	if err != nil {
		return err
	}
	reviewRows, err := reviews.reads(*conns, *dur, *warm)
	if err != nil {
		return err
	}

	productRaw, err := do(info.BaseURL+"/api/mutation", tok("owner"), "stores.products.createProduct", map[string]any{"storeId": storeID, "name": "Bench Box", "price": 25})
	if err != nil {
		return err
	}
	var productID string
	_ = json.Unmarshal(productRaw, &productID)
	if *profileRow == "f" {
		defer startProfile(*profile)()
	}
	mint := func(sub string) string { return tok(sub) }
	// The steady-rate run first: the embedded engine's reads and writes grow with
	// its collections, so after the load run every later number is slower.
	_, pacedEvents, err := benchOrders("paced", info.BaseURL, webhookSecret, mint, storeID, productID, *pacedOrders, 4, time.Second/time.Duration(*pacedRate))
	if err != nil {
		return err
	}
	deliveries, loadedEvents, err := benchOrders("load", info.BaseURL, webhookSecret, mint, storeID, productID, *orders, *orderConc, 0)
	if err != nil {
		return err
	}
	// The store's order list over the orders just stored.
	discoveryRows = append(discoveryRows, benchStoreOrders(info.BaseURL, tok("owner"), storeID, *pacedOrders+*orders, *conns, *dur, *warm))
	// Payouts last: their setup stores 5,000 payouts, and the notifications
	// of that setup must not queue before the order rows' events.
	payoutRows, err := benchPayouts(info.BaseURL, tok, *conns, *dur, *warm)
	if err != nil {
		return err
	}
	// Reviews after them: their setup stores 20,000 reviews.
	moreReviewRows, err := reviews.rest(*conns, *dur, *warm)
	if err != nil {
		return err
	}
	reviewRows = append(reviewRows, moreReviewRows...)
	// The event rows last: they store up to -event-stored orders.
	eventRows, err := benchEvents(info.BaseURL, webhookSecret, info.Brokers, mint, storeID, productID, *pacedOrders+*orders, *orderConc)
	if err != nil {
		return err
	}

	// The console in the browser (console.go): one cold load, before the
	// flood rows leave the gateway busy.
	consoleRow := benchConsole(info.BaseURL, tok)

	// Convex clients' live queries (gateway/convex/live.go).
	liveRows, err := benchLive(info.BaseURL, tok, *liveRounds)
	if err != nil {
		return err
	}
	flood, err := benchFlood(info.BaseURL, tok)
	if err != nil {
		return err
	}

	fmt.Printf("\n%d connections, %v per row (after %v warm-up), loopback, %s\n\n", *conns, *dur, *warm, time.Now().Format(time.RFC3339))
	fmt.Printf("%-46s %10s %10s %10s %7s\n", "row", "req/s", "p50", "p99", "errors")
	for _, r := range rows {
		if r.skipped != "" {
			fmt.Printf("%-46s %s\n", r.name, "skipped: "+r.skipped)
			continue
		}
		fmt.Printf("%-46s %10.0f %10v %10v %7d\n", r.name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.errors)
	}
	fmt.Printf("%-46s %10.0f %10v %10v %7d   (orders/s)\n", "(f) "+deliveries.name, deliveries.rps, deliveries.p50.Round(time.Microsecond), deliveries.p99.Round(time.Microsecond), deliveries.errors)
	fmt.Printf("%-46s %10s %10v %10v %7d   (goal p99 < 50ms; ms resolution)\n", fmt.Sprintf("(g) event latency at %d orders/s", *pacedRate), "", pacedEvents.p50, pacedEvents.p99, pacedEvents.errors)
	fmt.Printf("%-46s %10s %10v %10v %7d   (queueing: orders arrive faster than one consumer stores)\n", "(h) event latency during row (f)", "", loadedEvents.p50, loadedEvents.p99, loadedEvents.errors)
	printDiscovery(discoveryRows)
	for _, r := range payoutRows {
		fmt.Printf("%-46s %10.0f %10v %10v %7d\n", r.name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.errors)
	}
	for _, r := range reviewRows {
		if r.skipped != "" {
			fmt.Printf("%-46s %s\n", r.name, "skipped: "+r.skipped)
			continue
		}
		fmt.Printf("%-46s %10.0f %10v %10v %7d\n", r.name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.errors)
	}
	printEventRows(eventRows)
	printLive(liveRows)
	printFlood(flood)
	printConsole(consoleRow)
	fmt.Println()
	if rows[2].skipped == "" {
		fmt.Printf("gateway / nginx throughput: %.2f (goal >= 0.90)\n", rows[1].rps/rows[2].rps)
	}
	fmt.Printf("gateway / direct throughput: %.2f\n", rows[1].rps/rows[0].rps)
	fmt.Printf("preview / gateway trivial throughput: %.2f (goal >= 0.40)\n", rows[3].rps/rows[1].rps)
	fmt.Printf("addresses / gateway trivial throughput: %.2f (goal >= 0.40)\n", rows[4].rps/rows[1].rps)
	printDiscoveryRatios(discoveryRows, rows[1])
	for i, r := range payoutRows {
		fmt.Printf("%s / gateway trivial throughput: %.2f\n", payoutRowNames[i], r.rps/rows[1].rps)
	}
	for i, r := range reviewRows {
		if r.skipped == "" {
			fmt.Printf("%s / gateway trivial throughput: %.2f%s\n", reviewRowNames[i], r.rps/rows[1].rps, reviewGoals[i])
		}
	}
	fmt.Println(searchNote)
	printEngine(engine)
	for _, n := range reviews.notes {
		fmt.Println(n)
	}
	cancel()
	<-done
	return nil
}

func mustListen() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	return ln
}

func body(path string, args any) []byte {
	b, _ := json.Marshal(map[string]any{"path": path, "args": args})
	return b
}

func do(url, token, path string, args any) (json.RawMessage, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(url)
	req.Header.SetMethod("POST")
	req.Header.SetContentType("application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.SetBody(body(path, args))
	if err := fasthttp.DoTimeout(req, resp, 10*time.Second); err != nil {
		return nil, err
	}
	if resp.StatusCode() != 200 {
		return nil, fmt.Errorf("%s: %d %s", path, resp.StatusCode(), resp.Body())
	}
	return append(json.RawMessage(nil), resp.Body()...), nil
}

// load runs a closed loop of conns workers against url.
func load(name, url, token string, payload []byte, conns int, dur, warm time.Duration) row {
	return loadEach(name, url, token, [][]byte{payload}, conns, dur, warm)
}

// loadEach is load with worker w sending payloads[w % len(payloads)].
func loadEach(name, url, token string, payloads [][]byte, conns int, dur, warm time.Duration) row {
	return loadVaried(name, url, []string{token}, conns, dur, warm, func(w, _ int) []byte { return payloads[w%len(payloads)] })
}

// startNginx proxies a loopback port to upstream with keep-alive, as a production
// reverse proxy would be configured.
func startNginx(upstream string) (url string, stop func(), why string) {
	bin, err := exec.LookPath("nginx")
	if err != nil {
		return "", nil, "nginx is not installed (apt-get install -y nginx-light)"
	}
	dir, _ := os.MkdirTemp("", "bench-nginx")
	ln := mustListen()
	addr := ln.Addr().String()
	ln.Close()
	conf := fmt.Sprintf(`worker_processes auto;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path %[1]s/body;
  proxy_temp_path %[1]s/proxy;
  fastcgi_temp_path %[1]s/fastcgi;
  uwsgi_temp_path %[1]s/uwsgi;
  scgi_temp_path %[1]s/scgi;
  upstream svc { server %[2]s; keepalive 256; }
  server {
    listen %[3]s;
    location / {
      proxy_pass http://svc;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
    }
  }
}
`, dir, upstream[len("http://"):], addr)
	cf := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(cf, []byte(conf), 0o600); err != nil {
		return "", nil, err.Error()
	}
	cmd := exec.Command(bin, "-c", cf, "-p", dir, "-g", "daemon off;")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", nil, err.Error()
	}
	stop = func() {
		// TERM lets the master stop its workers; a KILL would orphan them.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the whole group
			<-done
		}
		_ = os.RemoveAll(dir)
	}
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr, stop, ""
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	return "", nil, errors.New("nginx did not start").Error()
}
