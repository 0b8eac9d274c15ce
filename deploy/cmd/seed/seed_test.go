package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// testSeed draws a small world with every kind of record (checked below).
const testSeed = 75

func seedConfig(s *st.Sys, seed uint64, stderr, stdout *bytes.Buffer) Config {
	return Config{BaseURL: s.BaseURL, SimulatorURL: s.ProcessorURL, DevSecret: s.DevSecret, Seed: seed, Sizes: smallSizes, Workers: 8,
		RPS: DefaultRPS, Burst: DefaultBurst, WebhookRPS: DefaultWebhookRPS, Stderr: stderr, Stdout: stdout}
}

// startLimited is a fresh system with the gateway's default rate limits
// (the tests' systems otherwise run without): the seed must stay under them.
func startLimited(t *testing.T) *st.Sys {
	return st.Start(t, st.WithEnv("RATE_LIMIT_RPS", "50"), st.WithEnv("RATE_LIMIT_BURST", "100"))
}

// make seed on a small size, through the real system: an interrupted run is
// continued by the next one with the same SEED without duplicates, another
// SEED is refused, the records are there as planned (counted through the
// API), the same SEED makes the same content in another system, and the
// calls printed at the end work as printed.
func TestSeedFillsTheSystem(t *testing.T) {
	plan, err := NewPlan(testSeed, smallSizes)
	if err != nil {
		t.Fatal(err)
	}
	checkTestPlan(t, plan)

	s := startLimited(t)
	// Cut off in the middle of the orders.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr, stdout bytes.Buffer
	cfg := seedConfig(s, testSeed, &stderr, &stdout)
	var orders atomic.Int32
	cfg.onStep = func(phase string) {
		if phase == "orders" && orders.Add(1) == 7 {
			cancel()
		}
	}
	if _, err := Seed(ctx, cfg); err == nil || !strings.Contains(err.Error(), "interrupted during orders") {
		t.Fatalf("an interrupted run answered %v", err)
	}
	for _, phase := range []string{"platform", "cities & areas", "stores & products", "customers", "orders"} {
		if !strings.Contains(stderr.String(), phase) {
			t.Errorf("no %q progress bar on stderr", phase)
		}
	}

	// The same SEED continues it.
	stderr.Reset()
	sum, err := Seed(context.Background(), seedConfig(s, testSeed, &stderr, &stdout))
	if err != nil {
		t.Fatalf("continuing: %v\n%s", err, stderr.String())
	}
	if !sum.Continued || sum.Calls.Replayed == 0 {
		t.Errorf("the second run did not continue the first: %+v", sum.Calls)
	}
	if sum.Calls.RateLimited != 0 || sum.Calls.RepaidOrder != 0 {
		t.Errorf("the seed went over the gateway's rate limit: %+v", sum.Calls)
	}
	checkSummary(t, plan, sum, stdout.String(), stderr.String())
	world := readWorld(t, s, plan)
	checkCounts(t, plan, world)

	// Once more: everything is answered from the kept outcomes, nothing is
	// made twice.
	stdout.Reset()
	again, err := Seed(context.Background(), seedConfig(s, testSeed, &stderr, &stdout))
	if err != nil {
		t.Fatalf("a third run: %v", err)
	}
	if !again.Continued {
		t.Error("the third run did not see the earlier ones")
	}
	if diff := compareWorlds(world, readWorld(t, s, plan)); diff != "" {
		t.Errorf("a run with the same SEED changed the data:\n%s", diff)
	}

	// Another SEED into this system is refused, unless forced.
	if _, err := Seed(context.Background(), seedConfig(s, testSeed+1, &stderr, &stdout)); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("another SEED into a seeded system: %v", err)
	}

	checkPrintedCalls(t, s, sum)

	// The same SEED in another system makes the same content.
	other := startLimited(t)
	stdout.Reset()
	if _, err := Seed(context.Background(), seedConfig(other, testSeed, &stderr, &stdout)); err != nil {
		t.Fatal(err)
	}
	if diff := compareWorlds(world, readWorld(t, other, plan)); diff != "" {
		t.Errorf("the same SEED made other content in another system:\n%s", diff)
	}

	// Forced, another SEED adds its world to what is there; a tiny one (one
	// store) still has payouts in every state.
	tiny := seedConfig(other, 4, &stderr, &stdout)
	tiny.Sizes, tiny.Force = Scaled(0.01), true
	sum, err = Seed(context.Background(), tiny)
	if err != nil {
		t.Fatalf("a forced tiny seed: %v", err)
	}
	if sum.Continued || sum.Counts.Stores != 1 || len(sum.Counts.PayoutsByStatus) != len(payoutStates) {
		t.Errorf("tiny forced seed: %+v", sum.Counts)
	}
	r := reader{t: t, s: other, admin: other.Token("test-reader", "admin")}
	if stores := pages[struct{ Name string }](r, r.admin, "catalog.stores.listStores", map[string]any{}); len(stores) != len(plan.Stores)+1 {
		t.Errorf("%d stores after the forced seed, want %d", len(stores), len(plan.Stores)+1)
	}
}

// checkTestPlan: the test's world has every kind of record, so the checks
// below see each of them made.
func checkTestPlan(t *testing.T, p *Plan) {
	t.Helper()
	statuses := map[string]bool{}
	declined := false
	for _, o := range p.Orders {
		statuses[o.Final()] = true
		declined = declined || o.DeclineFirst
	}
	spam, decided := false, map[string]bool{}
	for _, r := range p.Reviews {
		spam = spam || r.Spam
	}
	for _, f := range p.Flags {
		decided[f.Resolution] = true
	}
	if len(statuses) < 4 || !statuses[statusCancelled] || !declined || !spam || !decided["dismiss"] || !decided["hide_review"] || !decided[""] ||
		len(p.Edits) == 0 || len(p.Closed) == 0 || len(p.Responses) == 0 || len(p.Payouts) != len(payoutStates) {
		t.Fatalf("SEED %d no longer draws every kind of record at %+v (statuses %v, declined %v, spam %v, flags %v, %d edits, %d closed): pick another testSeed",
			p.Seed, smallSizes, statuses, declined, spam, decided, len(p.Edits), len(p.Closed))
	}
}

func checkSummary(t *testing.T, p *Plan, sum *Summary, stdout, stderr string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	var printed Summary
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &printed); err != nil {
		t.Fatalf("stdout's last line is not the JSON summary: %v\n%s", err, stdout)
	}
	for _, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("a stdout line is not JSON: %q", l)
		}
	}
	if printed.Counts.Orders != len(p.Orders) || printed.Counts.Reviews != len(p.Reviews) || len(printed.Users) != 3 || len(printed.Try) == 0 {
		t.Errorf("summary %+v", printed)
	}
	for _, u := range sum.Users {
		if !strings.Contains(stderr, "export "+u.Env+"="+u.Token) {
			t.Errorf("stderr does not show the %s token", u.Role)
		}
	}
	for _, c := range sum.Try {
		if !strings.Contains(stderr, c.Command+"\n") {
			t.Errorf("stderr does not show %q", c.Command)
		}
	}
}

// printedCall is the form of the printed calls.
var printedCall = regexp.MustCompile(`^curl -s (\S+)(?: -H "Authorization: Bearer \$([A-Z_]+)")? -d '([^']*)'$`)

// checkPrintedCalls runs the printed calls in a shell, with the printed
// exports, as someone would paste them (without curl, as curl would send
// them).
func checkPrintedCalls(t *testing.T, s *st.Sys, sum *Summary) {
	t.Helper()
	_, noCurl := exec.LookPath("curl")
	var exports []string
	tokens := map[string]string{}
	for _, u := range sum.Users {
		exports = append(exports, fmt.Sprintf("export %s=%s  # %s: %s", u.Env, u.Token, u.Sub, u.About))
		tokens[u.Env] = u.Token
	}
	for _, c := range sum.Try {
		m := printedCall.FindStringSubmatch(c.Command)
		if m == nil {
			t.Fatalf("not a call of the printed form: %s", c.Command)
		}
		var out []byte
		if noCurl == nil {
			var err error
			if out, err = exec.Command("bash", "-c", strings.Join(exports, "\n")+"\n"+c.Command).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", c.Command, err, out)
			}
		} else {
			headers := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
			if m[2] != "" {
				headers["Authorization"] = "Bearer " + tokens[m[2]]
			}
			out = s.DoAt(m[1], "POST", "", strings.NewReader(m[3]), headers).Body
		}
		var v any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%s answered %s", c.Command, out)
		}
		if m, ok := v.(map[string]any); ok && m["error"] != nil {
			t.Errorf("%s answered %s", c.Command, out)
		}
		empty := false
		switch x := v.(type) {
		case []any:
			empty = len(x) == 0
		case map[string]any:
			if pg, ok := x["page"].([]any); ok {
				empty = len(pg) == 0
			}
		case nil:
			empty = true
		}
		if empty {
			t.Errorf("%s (%s) found nothing: %s", c.Command, c.About, out)
		}
	}
}

// world is what the API shows of the seeded data, without the ids the
// server chose: one line per record, sorted.
type world struct {
	lines  []string
	counts map[string]int
}

func compareWorlds(a, b world) string {
	var diff []string
	for _, l := range a.lines {
		if !slices.Contains(b.lines, l) {
			diff = append(diff, "- "+l)
		}
	}
	for _, l := range b.lines {
		if !slices.Contains(a.lines, l) {
			diff = append(diff, "+ "+l)
		}
	}
	if len(a.lines) != len(b.lines) {
		diff = append(diff, fmt.Sprintf("%d records, then %d", len(a.lines), len(b.lines)))
	}
	if len(diff) > 20 {
		diff = append(diff[:20], "...")
	}
	return strings.Join(diff, "\n")
}

type reader struct {
	t     *testing.T
	s     *st.Sys
	admin string
}

// read calls an operation, waiting out the gateway's rate limit.
func (r reader) read(token, path string, args any, out any) {
	r.t.Helper()
	for range 30 {
		res := r.s.Query(token, path, args)
		if res.Status == 429 {
			time.Sleep(time.Second)
			continue
		}
		st.MustOK(r.t, res).Decode(r.t, out)
		return
	}
	r.t.Fatalf("%s: still rate-limited", path)
}

// pages reads every page of a paginated query.
func pages[T any](r reader, token, path string, args map[string]any) []T {
	r.t.Helper()
	var all []T
	cursor := ""
	for {
		opts := map[string]any{"numItems": 100}
		if cursor != "" {
			opts["cursor"] = cursor
		}
		args["paginationOpts"] = opts
		var pg struct {
			Page           []T    `json:"page"`
			IsDone         bool   `json:"isDone"`
			ContinueCursor string `json:"continueCursor"`
		}
		r.read(token, path, args, &pg)
		all = append(all, pg.Page...)
		if pg.IsDone {
			return all
		}
		cursor = pg.ContinueCursor
	}
}

// readWorld reads, through the API, everything the seed made.
func readWorld(t *testing.T, s *st.Sys, p *Plan) world {
	t.Helper()
	r := reader{t: t, s: s, admin: s.Token("test-reader", "admin")}
	w := world{counts: map[string]int{}}
	add := func(kind string, format string, args ...any) {
		w.lines = append(w.lines, kind+": "+fmt.Sprintf(format, args...))
		w.counts[kind]++
	}
	names := map[string]string{} // id -> name of categories, cities, areas, stores, customers
	type place struct {
		ID         string `json:"_id"`
		Name       string `json:"name"`
		NameArabic string `json:"nameArabic"`
	}
	var cats []place
	r.read(r.admin, "catalog.categories.listCategories", nil, &cats)
	for _, c := range cats {
		names[c.ID] = c.Name
		add("category", "%s %s", c.Name, c.NameArabic)
	}
	var cs []place
	r.read(r.admin, "catalog.locations.listCities", nil, &cs)
	for _, c := range cs {
		names[c.ID] = c.Name
		add("city", "%s %s", c.Name, c.NameArabic)
		var areas []place
		r.read(r.admin, "catalog.locations.listAreas", map[string]any{"city": c.ID}, &areas)
		for _, a := range areas {
			names[a.ID] = a.Name
			add("area", "%s, %s", a.Name, c.Name)
		}
	}
	type storeView struct {
		ID                                             string `json:"_id"`
		Name, OwnerUserID, OwnerName, OwnerPhone, Tier string
		PrimaryCategoryID, City, Area                  string
		IsOpen                                         bool
		Latitude, Longitude                            float64
	}
	stores := pages[storeView](r, r.admin, "catalog.stores.listStores", map[string]any{})
	for _, st := range stores {
		names[st.ID] = st.Name
		add("store", "%s owner %s %s %s, %s, %s in %s, %s at %.6f,%.6f open %v", st.Name, st.OwnerUserID, st.OwnerName, st.OwnerPhone, st.Tier,
			names[st.PrimaryCategoryID], names[st.Area], names[st.City], st.Latitude, st.Longitude, st.IsOpen)
		type productView struct {
			Name        string
			Price       float64
			IsAvailable bool
		}
		products := pages[productView](r, r.admin, "stores.products.listProductsPaginated", map[string]any{"storeId": st.ID})
		for _, pr := range products {
			add("product", "%s of %s at %.2f available %v", pr.Name, st.Name, pr.Price, pr.IsAvailable)
		}
	}
	for _, c := range p.Customers {
		tok := s.Token(c.Sub)
		var prof struct {
			ID                 string `json:"_id"`
			Name, Phone, Email string
		}
		r.read(tok, "customers.profile.getMyProfile", nil, &prof)
		names[prof.ID] = prof.Name
		add("customer", "%s %s %s %s", c.Sub, prof.Name, prof.Phone, prof.Email)
		var addrs []struct {
			Name, FullAddress, FlatVilaNumber, BuildingNameNumber, Landmark, Latitude, Longitude string
			City                                                                                 struct{ Name string }
			Area                                                                                 struct{ Name string }
			IsDefault                                                                            bool
		}
		r.read(tok, "customers.addresses.getCustomerAddresses", map[string]any{}, &addrs)
		for _, a := range addrs {
			add("address", "%s of %s: %s (%s, %s, %s) %s, %s at %s,%s default %v", a.Name, prof.Name, a.FullAddress, a.FlatVilaNumber, a.BuildingNameNumber,
				a.Landmark, a.Area.Name, a.City.Name, a.Latitude, a.Longitude, a.IsDefault)
		}
	}
	type orderView struct {
		CustomerID, Status, DeliveryType, PaymentStatus string
		Items                                           []struct {
			Name      string
			UnitPrice float64
			Quantity  int
		}
		Subtotal, DeliveryFee, Total, PlatformCommission, StoreEarnings float64
		StatusHistory                                                   []struct{ Status string }
		DeliveryAddress                                                 struct{ FullAddress, PhoneNumber string }
	}
	for _, st := range stores {
		for _, o := range pages[orderView](r, r.admin, "stores.orders.listStoreOrders", map[string]any{"storeId": st.ID}) {
			var items, history []string
			for _, it := range o.Items {
				items = append(items, fmt.Sprintf("%d x %s at %.2f", it.Quantity, it.Name, it.UnitPrice))
			}
			for _, h := range o.StatusHistory {
				history = append(history, h.Status)
			}
			slices.Sort(items)
			add("order", "%s of %s to %s (%s): %s; %.2f + %.2f = %.2f, commission %.2f, earnings %.2f, %s %s, paid %s, %s",
				st.Name, names[o.CustomerID], o.DeliveryAddress.FullAddress, o.DeliveryAddress.PhoneNumber, strings.Join(items, ", "),
				o.Subtotal, o.DeliveryFee, o.Total, o.PlatformCommission, o.StoreEarnings, o.DeliveryType, o.Status, o.PaymentStatus, strings.Join(history, ">"))
			w.counts["order "+o.Status]++
		}
		type reviewView struct {
			Rating                        int
			Title, Comment                string
			IsVerifiedPurchase, IsEdited  bool
			HelpfulCount, NotHelpfulCount int
			Customer                      struct{ Name string }
			StoreResponse                 *struct{ Comment string }
		}
		for _, rv := range pages[reviewView](r, r.admin, "stores.reviews.getStoreReviews", map[string]any{"storeId": st.ID}) {
			response := ""
			if rv.StoreResponse != nil {
				response = rv.StoreResponse.Comment
				w.counts["response"]++
			}
			add("review", "of %s by %s: %d %q %q verified %v edited %v, votes %d/%d, response %q", st.Name, rv.Customer.Name, rv.Rating, rv.Title,
				rv.Comment, rv.IsVerifiedPurchase, rv.IsEdited, rv.HelpfulCount, rv.NotHelpfulCount, response)
			w.counts["vote"] += rv.HelpfulCount + rv.NotHelpfulCount
		}
		var wallet struct {
			AvailableBalance, PendingBalance, TotalEarnings, TotalPayouts float64
			TotalOrders                                                   int
		}
		r.read(r.admin, "stores.wallet.getWallet", map[string]any{"storeId": st.ID}, &wallet)
		add("wallet", "of %s: available %.2f, pending %.2f, earned %.2f over %d orders, paid out %.2f", st.Name, wallet.AvailableBalance,
			wallet.PendingBalance, wallet.TotalEarnings, wallet.TotalOrders, wallet.TotalPayouts)
		type payoutView struct {
			RequestedAmount, ProcessingFee, NetAmount float64
			Status                                    string
			BankDetails                               struct{ IBAN, BankName, AccountHolderName string }
			ProcessingMethod, TransactionReference    *string
			RejectionReason, FailureReason            *string
			BalanceRestored                           bool
			History                                   []struct{ Action, To string }
		}
		for _, po := range pages[payoutView](r, r.admin, "stores.payouts.listPayouts", map[string]any{"storeId": st.ID}) {
			var history []string
			for _, h := range po.History {
				history = append(history, h.Action+">"+h.To)
			}
			add("payout", "of %s: %.2f - %.2f = %.2f to %s %s %s, %s (%s), method %s ref %s, rejected %s, failed %s, restored %v", st.Name,
				po.RequestedAmount, po.ProcessingFee, po.NetAmount, po.BankDetails.IBAN, po.BankDetails.BankName, po.BankDetails.AccountHolderName,
				po.Status, strings.Join(history, ", "), deref(po.ProcessingMethod), deref(po.TransactionReference), deref(po.RejectionReason),
				deref(po.FailureReason), po.BalanceRestored)
			w.counts["payout "+po.Status]++
		}
	}
	type flagView struct {
		Reason, Description, Status string
		FlaggedBy                   struct{ Name string }
		Resolution                  *struct{ Action string }
		Review                      struct {
			Rating   int
			Comment  string
			IsHidden bool
			Store    struct{ Name string }
		}
	}
	for _, f := range pages[flagView](r, r.admin, "admins.reviewModeration.listFlags", map[string]any{}) {
		action := ""
		if f.Resolution != nil {
			action = f.Resolution.Action
		}
		add("flag", "%s by %s (%s): %s, %s; review %d %q of %s, hidden %v", f.Reason, f.FlaggedBy.Name, f.Description, f.Status, action,
			f.Review.Rating, f.Review.Comment, f.Review.Store.Name, f.Review.IsHidden)
		if f.Review.IsHidden {
			w.counts["hidden"]++
		}
	}
	slices.Sort(w.lines)
	return w
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// checkCounts: what the API shows is what the plan made.
func checkCounts(t *testing.T, p *Plan, w world) {
	t.Helper()
	products, addresses, responses, closed := 0, 0, len(p.Responses), len(p.Closed)
	for _, s := range p.Stores {
		products += len(s.Products)
	}
	for _, c := range p.Customers {
		addresses += len(c.Addresses)
	}
	hiddenReviews := 0
	for _, r := range p.Reviews {
		if r.Spam {
			hiddenReviews++
		}
	}
	want := map[string]int{
		"category": len(categories), "city": len(cities), "store": len(p.Stores), "product": products, "customer": len(p.Customers),
		"address": addresses, "order": len(p.Orders), "review": len(p.Reviews) - hiddenReviews, "vote": len(p.Votes), "response": responses,
		"flag": len(p.Flags), "payout": len(p.Payouts), "wallet": len(p.Stores),
	}
	for _, o := range p.Orders {
		want["order "+o.Final()]++
	}
	for _, po := range p.Payouts {
		want["payout "+po.Final]++
	}
	for k, n := range want {
		if w.counts[k] != n {
			t.Errorf("%s: the API shows %d, the seed planned %d", k, w.counts[k], n)
		}
	}
	open := 0
	for _, l := range w.lines {
		if strings.HasPrefix(l, "store: ") && strings.HasSuffix(l, "open true") {
			open++
		}
	}
	if open != len(p.Stores)-closed {
		t.Errorf("%d open stores, want %d", open, len(p.Stores)-closed)
	}
	if w.counts["hidden"] == 0 {
		t.Error("no flagged review was hidden")
	}
}
