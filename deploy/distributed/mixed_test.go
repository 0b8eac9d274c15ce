package distributed_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/libs/version"
)

// Mixed versions (make test-mixed-versions, issue 19 item 3): the distributed
// mode with one service at one version and every other at another, both ways
// round, for each service that teams deploy on their own, and the journey
// passing each time. Two pairs: the version the contracts were accepted at
// (contracts/ACCEPTED) with the current code, and the current code with its
// "next version" (the same code built with -tags nextversion, which adds an
// optional field to every payload and answer and an optional argument to
// every internal operation, as a compatible next release would).
//
// make test-mixed-versions builds the three sets of binaries and names their
// directories here; without them (make test) the test is skipped.
const (
	envAcceptedBin = "MIXED_ACCEPTED_BIN"
	envCurrentBin  = "MIXED_CURRENT_BIN"
	envNextBin     = "MIXED_NEXT_BIN"
	// Labels of the versions in the report (commits).
	envAcceptedLabel = "MIXED_ACCEPTED_LABEL"
	envCurrentLabel  = "MIXED_CURRENT_LABEL"
)

// mixedServices are the services run at the other version in turn.
var mixedServices = []string{"customers", "payouts", "reviews", "notifications"}

// release is one version of the programs: its binaries and its name in the report.
type release struct {
	name, label, dir string
}

// mixedCase is one run: service at one version, the rest at the other.
type mixedCase struct {
	service        string
	single, others release
	atCurrent      []string // programs the others' version lacks
}

// binFrom is the case's launch.Options.BinFrom; BinDir is the others'
// version's directory. The gateway runs at the others' version: it is
// deployed like a service, and this way each service meets a gateway of the
// other version in one of its two cases. The broker and the processor
// simulator are always the current marketplace binary's: the broker stands in
// for Kafka, the simulator for the outside processor, neither a versioned
// peer of the services (and an older build may predate `marketplace
// processor`). A program the others' version does not have (a service added
// since) runs at the current version, and the report says so.
func (c *mixedCase) binFrom(current release) map[string]string {
	from := map[string]string{c.service: c.single.dir, "marketplace": current.dir}
	for _, p := range append(modules.Names(), launch.Gateway) {
		if _, err := os.Stat(filepath.Join(c.others.dir, p)); err != nil && from[p] == "" {
			from[p] = current.dir
			c.atCurrent = append(c.atCurrent, p)
		}
	}
	return from
}

func (c mixedCase) String() string {
	s := fmt.Sprintf("%s %s, others and the gateway %s", c.service, c.single.label, c.others.label)
	if len(c.atCurrent) > 0 {
		s += fmt.Sprintf(" (%s current: not in %s)", strings.Join(c.atCurrent, ", "), c.others.name)
	}
	return s
}

// programBuild is what a running program says it is: the commit it was
// built from (GET /version) and the contract versions it declares (GET /ops).
type programBuild struct {
	commit    string
	modified  bool
	contracts version.Contracts
}

func buildOf(t *testing.T, r *running, base string) programBuild {
	t.Helper()
	get := func(path string, out any) {
		resp, err := r.hc.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s%s: %v", base, path, err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s%s: %d %v", base, path, resp.StatusCode, err)
		}
	}
	var info version.Info
	get("/version", &info)
	var ops struct {
		Contracts version.Contracts `json:"contracts"`
	}
	get("/ops", &ops)
	return programBuild{commit: info.Commit, modified: info.Modified, contracts: ops.Contracts.OrLegacy()}
}

// checkBuilds holds the running case to what it claims: the service under
// test runs another build than its peers (catalog, never a case's service,
// stands for them), and a current or next build declares the contracts it
// should; otherwise a case would pass with every program at one version.
func (c mixedCase) checkBuilds(t *testing.T, r *running) {
	t.Helper()
	single, peer := buildOf(t, r, r.Services[c.service]), buildOf(t, r, r.Services["catalog"])
	if single == peer {
		t.Fatalf("%s runs the same build as its peers (%+v): the case mixes no versions", c.service, single)
	}
	built := version.BuiltContracts() // this test's own build: current
	for _, b := range []struct {
		rel   release
		build programBuild
	}{{c.single, single}, {c.others, peer}} {
		switch {
		case b.rel.name == "current" && b.build.contracts != built:
			t.Fatalf("the %s build declares contracts %+v, want %+v", b.rel.name, b.build.contracts, built)
		case b.rel.name == "next" && b.build.contracts == built:
			t.Fatalf("the next build declares the current contracts %+v", built)
		}
	}
}

type mixedResult struct {
	c        mixedCase
	passed   bool
	failedAt string
	took     time.Duration
}

func TestMixedVersions(t *testing.T) {
	if os.Getenv(envCurrentBin) == "" {
		t.Skip("make test-mixed-versions runs it (it builds the versions: " + envAcceptedBin + ", " + envCurrentBin + ", " + envNextBin + ")")
	}
	current := release{"current", strings.TrimSpace("current " + os.Getenv(envCurrentLabel)), os.Getenv(envCurrentBin)}
	pairs := [][2]release{}
	if d := os.Getenv(envAcceptedBin); d != "" {
		pairs = append(pairs, [2]release{{"accepted", strings.TrimSpace("accepted " + os.Getenv(envAcceptedLabel)), d}, current})
	}
	if d := os.Getenv(envNextBin); d != "" {
		pairs = append(pairs, [2]release{current, {"next", "next (current -tags nextversion)", d}})
	}
	if len(pairs) == 0 {
		t.Fatalf("%s or %s must name a second version's binaries", envAcceptedBin, envNextBin)
	}
	var results []mixedResult
	t.Cleanup(func() { t.Log(mixedReport(results)) })
	for _, p := range pairs {
		pair := p[0].name + "-" + p[1].name
		t.Run(pair, func(t *testing.T) {
			for _, s := range mixedServices {
				for _, c := range []mixedCase{
					{service: s, single: p[0], others: p[1]},
					{service: s, single: p[1], others: p[0]},
				} {
					var step string // "" when -run left the case out
					began := time.Now()
					ok := t.Run(s+"="+c.single.name, func(t *testing.T) {
						step = "start"
						from := c.binFrom(current)
						t.Logf("%s", c)
						r := start(t, testEnv(t, "PAYOUTS_RELEASE_INTERVAL", "1s"), func(o *launch.Options) { o.BinDir, o.BinFrom = c.others.dir, from })
						step = "versions"
						c.checkBuilds(t, r)
						journey(t, r, func(s string) { step = s })
					})
					if step != "" {
						results = append(results, mixedResult{c: c, passed: ok, failedAt: step, took: time.Since(began)})
					}
				}
			}
		})
	}
}

func mixedReport(results []mixedResult) string {
	var b strings.Builder
	passed := 0
	for _, r := range results {
		if r.passed {
			passed++
		}
	}
	fmt.Fprintf(&b, "mixed versions: %d of %d cases passed (the broker and the processor simulator: current)\n", passed, len(results))
	for _, r := range results {
		verdict, at := "PASS", ""
		if !r.passed {
			verdict, at = "FAIL", " -- failed at: "+r.failedAt
		}
		fmt.Fprintf(&b, "  %s %7s  %s%s\n", verdict, r.took.Round(100*time.Millisecond), r.c, at)
	}
	return b.String()
}

type walletView struct {
	ID               string  `json:"_id"`
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	TotalEarnings    float64 `json:"totalEarnings"`
	TotalOrders      int64   `json:"totalOrders"`
}

type txView struct {
	Type     string            `json:"type"`
	Amount   float64           `json:"amount"`
	Status   string            `json:"status"`
	Metadata map[string]string `json:"metadata"`
}

// payoutAmount is what the journey's store owner asks to be paid out (AED):
// less than the order earns, at least the journey's minimum payout.
const (
	payoutAmount     = 20.0
	journeyMinPayout = 10.0
)

// journey is the marketplace's whole path through every service: checkout
// (profile, address, cart, payment intent, payment through the processor
// simulator) -> a paid order -> delivered by the store's owner -> its
// earning in the store's wallet -> a payout requested by the owner and
// approved by an administrator; a verified review of the delivered order;
// the customer's and the owner's notifications. step names the part under
// way (the report says where a case failed).
//
// Earnings are held pendingBalanceHoldDays (7 by default) before they can be
// paid out: the journey sets the hold to 0 days through the platform
// configuration, and the run releases due earnings every second
// (PAYOUTS_RELEASE_INTERVAL=1s instead of 1m), so the earning becomes
// available through the payouts service's own release loop within seconds.
func journey(t *testing.T, r *running, step func(string)) {
	step("shop")
	sh := newShop(t, r, 1)
	customer := sh.users[0]
	var cfg struct {
		ID string `json:"_id"`
	}
	r.must(t, "query", sh.admin, "admins.platformAdmin.getActivePlatformConfig", nil, &cfg)
	r.must(t, "mutation", sh.admin, "admins.platformAdmin.updatePlatformConfig", map[string]any{"adminUserId": "admin-1", "configId": cfg.ID,
		"walletSettings": map[string]any{"pendingBalanceHoldDays": 0, "minPayoutAmount": journeyMinPayout}}, nil)

	step("checkout")
	in := sh.createPaymentIntent(t, r, 0)
	if math.Round(in.Amount*100) != orderFils {
		t.Fatalf("intent %+v, want %d fils", in, orderFils)
	}
	step("payment")
	o := r.pay(t, customer, in.PaymentIntentID)
	var order struct {
		StoreEarnings *float64 `json:"storeEarnings"`
	}
	r.must(t, "query", sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": in.PaymentIntentID}, &order)
	if order.StoreEarnings == nil || *order.StoreEarnings <= payoutAmount || *order.StoreEarnings >= o.Total {
		t.Fatalf("order %s earns the store %v of %.2f AED", o.ID, order.StoreEarnings, o.Total)
	}
	earns := *order.StoreEarnings

	step("delivery")
	for _, status := range []string{"preparing", "out_for_delivery", "delivered"} {
		r.must(t, "mutation", sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o.ID, "status": status}, nil)
	}

	step("earning")
	var w walletView
	eventually(t, "the delivered order's earning, released", 30*time.Second, func() bool {
		r.must(t, "query", sh.owner, "stores.wallet.getWallet", map[string]any{"storeId": sh.store}, &w)
		return w.TotalOrders == 1 && w.AvailableBalance == earns
	})
	if w.TotalEarnings != earns || w.PendingBalance != 0 {
		t.Fatalf("wallet %+v, want %.2f AED earned and available", w, earns)
	}
	txs := all[txView](t, r, sh.admin, "stores.wallet.listTransactions", map[string]any{"storeId": sh.store})
	var earning *txView
	for i := range txs {
		if txs[i].Type == "earning" {
			earning = &txs[i]
		}
	}
	if earning == nil || earning.Amount != earns || earning.Metadata["orderId"] != o.ID || earning.Metadata["holdDays"] != "0" {
		t.Fatalf("the order's earning among %+v", txs)
	}

	step("payout")
	var payoutID string
	r.must(t, "mutation", sh.owner, "stores.payouts.requestPayout", map[string]any{"storeId": sh.store, "amount": payoutAmount,
		"bankDetails": map[string]any{"IBAN": "AE070331234567890123456", "bankName": "Emirates NBD", "accountHolderName": "Owner"}}, &payoutID)
	var payout struct {
		ID              string  `json:"_id"`
		Status          string  `json:"status"`
		RequestedAmount float64 `json:"requestedAmount"`
	}
	r.must(t, "mutation", sh.admin, "admins.payoutOperations.approvePayout", map[string]any{"payoutId": payoutID, "adminUserId": "admin-1"}, &payout)
	if payout.ID != payoutID || payout.Status != "approved" || payout.RequestedAmount != payoutAmount {
		t.Fatalf("approved payout %+v", payout)
	}
	r.must(t, "query", sh.owner, "stores.wallet.getWallet", map[string]any{"storeId": sh.store}, &w)
	if math.Round(w.AvailableBalance*100) != math.Round((earns-payoutAmount)*100) {
		t.Fatalf("wallet %+v after a payout of %.2f AED out of %.2f", w, payoutAmount, earns)
	}

	step("review")
	var added struct {
		ReviewID string `json:"reviewId"`
	}
	r.must(t, "mutation", customer, "stores.reviews.addReview", map[string]any{"storeId": sh.store, "orderId": o.ID, "rating": 5,
		"comment": "Fresh bread, on time"}, &added)
	var review *struct {
		ID                 string `json:"_id"`
		IsVerifiedPurchase bool   `json:"isVerifiedPurchase"`
		OrderID            string `json:"orderId"`
		Rating             int    `json:"rating"`
	}
	r.must(t, "query", customer, "stores.reviews.getReview", map[string]any{"reviewId": added.ReviewID}, &review)
	if review == nil || review.ID != added.ReviewID || !review.IsVerifiedPurchase || review.OrderID != o.ID || review.Rating != 5 {
		t.Fatalf("review %+v of delivered order %s", review, o.ID)
	}

	step("notifications")
	want := map[string][]string{
		"customer": {"order_created", "order_status", "review_invitation"},
		"owner":    {"new_order", "payout_approved"},
	}
	tokens := map[string]string{"customer": customer, "owner": sh.owner}
	for who, types := range want {
		var got []notificationView
		eventually(t, "the "+who+"'s notifications "+strings.Join(types, ", "), 30*time.Second, func() bool {
			got = all[notificationView](t, r, tokens[who], "notifications.inbox.list", nil)
			for _, typ := range types {
				if count(got, typ) == 0 {
					return false
				}
			}
			return true
		})
		if n := countFor(got, types[0], o.ID); n != 1 {
			t.Fatalf("the %s has %d %s notifications of order %s: %+v", who, n, types[0], o.ID, got)
		}
	}
	step("done")
}

// The cases' binaries: the others' version from BinDir, the one service's
// from its version's directory, the gateway with the others, the broker and
// the processor simulator (the marketplace binary) always current, and a
// program the others' version lacks at the current version, said in the
// report.
func TestMixedCaseBinaries(t *testing.T) {
	dir := func(programs ...string) string {
		d := t.TempDir()
		for _, p := range programs {
			if err := os.WriteFile(filepath.Join(d, p), nil, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		return d
	}
	every := append(modules.Names(), launch.Gateway, "marketplace")
	current := release{"current", "current abc", dir(every...)}
	var older []string
	for _, p := range every {
		if p != "media" && p != "marketplace" {
			older = append(older, p)
		}
	}
	accepted := release{"accepted", "accepted def", dir(older...)}

	c := mixedCase{service: "customers", single: current, others: accepted}
	from := c.binFrom(current)
	want := map[string]string{"customers": current.dir, "marketplace": current.dir, "media": current.dir}
	if len(from) != len(want) || from["customers"] != want["customers"] || from["marketplace"] != want["marketplace"] || from["media"] != want["media"] {
		t.Errorf("customers current among accepted: BinFrom %v, want %v", from, want)
	}
	if s := c.String(); s != "customers current abc, others and the gateway accepted def (media current: not in accepted)" {
		t.Errorf("report line %q", s)
	}

	c = mixedCase{service: "customers", single: accepted, others: current}
	from = c.binFrom(current)
	if len(from) != 2 || from["customers"] != accepted.dir || from["marketplace"] != current.dir || len(c.atCurrent) != 0 {
		t.Errorf("customers accepted among current: BinFrom %v (at current: %v)", from, c.atCurrent)
	}
	report := mixedReport([]mixedResult{{c: c, passed: true, took: 1500 * time.Millisecond}, {c: c, failedAt: "earning", took: 31 * time.Second}})
	for _, line := range []string{"1 of 2 cases passed", "PASS    1.5s  customers accepted def, others and the gateway current abc\n",
		"FAIL     31s  customers accepted def, others and the gateway current abc -- failed at: earning\n"} {
		if !strings.Contains(report, line) {
			t.Errorf("report lacks %q:\n%s", line, report)
		}
	}
}

// make test-mixed-versions finds the older version's commit in
// contracts/ACCEPTED (or MIXED_OLD_COMMIT); a clone that lacks it, such as
// a shallow one, says so and fetches it from origin, and one it cannot fetch
// fails saying what to do. (The script's resolve step, on a repository of
// the test's own.)
func TestMixedVersionsFindsTheOlderCommit(t *testing.T) {
	script, err := os.ReadFile("mixed-versions.sh")
	if err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	origin := t.TempDir()
	git(origin, "init", "-q")
	for _, f := range []string{"contracts", "deploy/distributed"} {
		if err := os.MkdirAll(filepath.Join(origin, f), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(origin, "deploy/distributed/mixed-versions.sh", string(script))
	write(origin, "contracts/ACCEPTED", "# none yet\n")
	git(origin, "add", ".")
	git(origin, "commit", "-q", "-m", "accepted")
	accepted := git(origin, "rev-parse", "HEAD")
	write(origin, "contracts/ACCEPTED", "# written by make contracts-accept\ncommit "+accepted+"\npublic 1.0.0\n")
	git(origin, "commit", "-q", "-am", "later")
	shallow := filepath.Join(t.TempDir(), "clone")
	git(origin, "clone", "-q", "--depth=1", "file://"+origin, shallow)

	resolve := func(repo string, env ...string) (string, error) {
		cmd := exec.Command("bash", filepath.Join(repo, "deploy", "distributed", "mixed-versions.sh"), "resolve")
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := resolve(shallow)
	if err != nil || !strings.Contains(out, "commit "+accepted+" (contracts/ACCEPTED) is not in this clone, which is shallow: fetching that commit from origin") ||
		!strings.HasSuffix(out, "\n"+accepted+"\n") {
		t.Errorf("a shallow clone without the accepted commit (%v):\n%s", err, out)
	}
	if out, err := resolve(origin); err != nil || out != accepted+"\n" {
		t.Errorf("a clone with the commit (%v):\n%s", err, out)
	}
	if out, err := resolve(origin, "MIXED_OLD_COMMIT=HEAD"); err != nil || out != git(origin, "rev-parse", "HEAD")+"\n" {
		t.Errorf("MIXED_OLD_COMMIT=HEAD (%v):\n%s", err, out)
	}
	missing := strings.Repeat("0", 39) + "1"
	if out, err := resolve(shallow, "MIXED_OLD_COMMIT="+missing); err == nil || !strings.Contains(out, "could not fetch "+missing+" from origin") ||
		!strings.Contains(out, "git fetch --unshallow") {
		t.Errorf("a commit origin does not have (%v):\n%s", err, out)
	}
	write(shallow, "contracts/ACCEPTED", "# no commit line\npublic 1.0.0\n")
	if out, err := resolve(shallow); err == nil || !strings.Contains(out, "contracts/ACCEPTED has no 'commit <sha>' line") {
		t.Errorf("ACCEPTED without a commit (%v):\n%s", err, out)
	}
}
