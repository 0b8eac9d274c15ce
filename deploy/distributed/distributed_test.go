// Package distributed_test runs the distributed mode as `make run-distributed`
// does — the broker, every service and the gateway as processes of their own
// binaries, launched by package launch — and checks what only separate
// processes can show: a service killed with SIGKILL in the middle of a burst
// of webhook deliveries, and restarted, loses no order and makes none twice,
// its events reach the notifications exactly once, and meanwhile the gateway
// answers 503 quickly rather than hanging or failing with a 500.
package distributed_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"marketplace/deploy/processor"
)

const (
	burst        = 50                     // distinct payment intents delivered in the burst
	workers      = 8                      // deliveries in flight at once
	killAfter    = 12                     // intents answered 2xx before the kill
	retryEvery   = 100 * time.Millisecond // a processor's retry delay, compressed
	answerBound  = 5 * time.Second        // no answer may take longer (a hang)
	victim       = "customers"            // owns order creation in the webhook path
	productPrice = 25.0                   // AED; two per order
	orderFils    = 2*2500 + 1000          // two products and the delivery fee
)

type orderView struct {
	ID              string  `json:"_id"`
	PaymentIntentID string  `json:"paymentIntentId"`
	Total           float64 `json:"total"`
	Status          string  `json:"status"`
	PaymentStatus   string  `json:"paymentStatus"`
}

type notificationView struct {
	ID   string         `json:"_id"`
	Type string         `json:"type"`
	Data map[string]any `json:"data"`
}

type pageOf[T any] struct {
	Page           []T    `json:"page"`
	IsDone         bool   `json:"isDone"`
	ContinueCursor string `json:"continueCursor"`
}

// all reads every page of a paginated query.
func all[T any](t *testing.T, r *running, token, path string, args map[string]any) []T {
	t.Helper()
	var out []T
	var cursor any
	for {
		a := map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": cursor}}
		for k, v := range args {
			a[k] = v
		}
		var p pageOf[T]
		r.must(t, "query", token, path, a, &p)
		out = append(out, p.Page...)
		if p.IsDone || len(p.Page) == 0 {
			return out
		}
		cursor = p.ContinueCursor
	}
}

// shop is the world of the journey: a platform configuration, a store with a
// product, and customers with that product in their carts.
type shop struct {
	admin, owner string
	store        string
	product      string
	users        []string // tokens
	customers    []string // customer ids, by index
}

func newShop(t *testing.T, r *running, customers int) *shop {
	t.Helper()
	sh := &shop{admin: r.token(t, "admin-1", "admin"), owner: r.token(t, "owner-1")}
	var cfgID string
	r.must(t, "mutation", sh.admin, "admins.platformAdmin.createInitialPlatformConfig", map[string]any{"adminUserId": "admin-1"}, &cfgID)
	r.must(t, "mutation", sh.admin, "admins.catalog.createStore", map[string]any{
		"name": "Distributed Bakery", "ownerUserId": "owner-1", "ownerName": "Owner", "ownerPhone": "+971500000000"}, &sh.store)
	r.must(t, "mutation", sh.owner, "stores.products.createProduct", map[string]any{"storeId": sh.store, "name": "Bread", "price": productPrice}, &sh.product)
	for i := range customers {
		tok := r.token(t, fmt.Sprintf("user-%d", i))
		var id, line string
		r.must(t, "mutation", tok, "customers.profile.upsertMyProfile", map[string]any{"name": fmt.Sprintf("Customer %d", i), "phone": "+971501111111"}, &id)
		r.must(t, "mutation", tok, "customers.cart.addItem", map[string]any{"productId": sh.product, "quantity": 2}, &line)
		sh.users, sh.customers = append(sh.users, tok), append(sh.customers, id)
	}
	return sh
}

func intentOf(i int) string { return "pi_distributed_" + strconv.Itoa(i) }

// webhook is the signed delivery of customer i's successful payment, signed
// now (a processor signs every attempt).
func (sh *shop) webhook(r *running, i int) answer {
	body := processor.Event("evt_distributed_"+strconv.Itoa(i), "payment_intent.succeeded", processor.Payment{
		IntentID: intentOf(i), AmountFils: orderFils, CustomerID: sh.customers[i], StoreID: sh.store,
		Address:      processor.Address{FullAddress: "Villa 1", City: "Dubai", Area: "Marina", PhoneNumber: "+971501111111"},
		DeliveryType: "standard", DeliveryFee: "10.00",
	})
	return r.do(http.MethodPost, "/processor/webhook", body, map[string]string{
		"Content-Type": "application/json", "processor-signature": processor.Sign(webhookSecret, body, time.Now()),
	})
}

// status is one answer seen during the burst.
type status struct {
	what       string // "webhook <intent>" or "query"
	code       int
	took       time.Duration
	at         time.Time // when the answer came
	detail     string
	retryAfter string
}

func (s status) sent() time.Time { return s.at.Add(-s.took) }

type recorder struct {
	mu   sync.Mutex
	seen []status
}

func (rc *recorder) add(what string, a answer) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	s := status{what: what, code: a.status, took: a.took, at: time.Now(), retryAfter: a.header.Get("Retry-After")}
	if a.err != nil {
		s.detail = a.err.Error()
	} else if a.status != http.StatusOK {
		s.detail = strings.TrimSpace(string(a.body))
	}
	rc.seen = append(rc.seen, s)
}

func (rc *recorder) all() []status {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.seen)
}

var orderCreated = regexp.MustCompile(`^Order created: (\S+)$`)

// TestKillAServiceDuringAWebhookBurst: the journey through the gateway of the
// distributed system, then 50 payments delivered by the processor's webhook,
// each retried until answered 2xx; after the twelfth is answered, the
// customers service (which makes orders from carts) is killed with SIGKILL
// and the launcher restarts it. Every payment ends as exactly one order, every
// order as exactly one notification for its customer and one for the store
// owner; while the service was down the gateway answered 503 within a bound,
// never a 500 or a hang, to the webhook and to the service's own operations.
func TestKillAServiceDuringAWebhookBurst(t *testing.T) {
	binaries(t) // built before the clock starts
	began := time.Now()
	r := start(t, testEnv(t))
	startedIn := time.Since(began)
	sh := newShop(t, r, burst+1)

	// The journey: customer 0 pays, the order is made from the cart and its
	// notifications arrive.
	a := sh.webhook(r, 0)
	m := orderCreated.FindStringSubmatch(string(a.body))
	if a.status != http.StatusOK || m == nil {
		t.Fatalf("the journey's webhook: %s", a)
	}
	var mine pageOf[orderView]
	r.must(t, "query", sh.users[0], "customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}, &mine)
	if len(mine.Page) != 1 || mine.Page[0].ID != m[1] || mine.Page[0].PaymentIntentID != intentOf(0) ||
		mine.Page[0].Total != float64(orderFils)/100 || mine.Page[0].Status != "confirmed" || mine.Page[0].PaymentStatus != "paid" {
		t.Fatalf("the journey's order: %+v (webhook said %s)", mine.Page, a)
	}
	eventually(t, "the journey's order_created notification", 20*time.Second, func() bool {
		return count(all[notificationView](t, r, sh.users[0], "notifications.inbox.list", nil), "order_created") == 1
	})
	journeyDone := time.Since(began)

	// The burst.
	pidBefore := r.PID(victim)
	rec := &recorder{}
	var answered atomic.Int32
	var killedAt, stopProbe, burstOver atomic.Value
	killed := make(chan struct{})
	go func() {
		for answered.Load() < killAfter {
			if burstOver.Load() != nil {
				return
			}
			time.Sleep(2 * time.Millisecond)
		}
		killedAt.Store(time.Now()) // just before: an answer after this may show the kill
		if err := r.Signal(victim, syscall.SIGKILL); err != nil {
			t.Errorf("kill %s: %v", victim, err)
		}
		close(killed)
	}()
	// A client of the killed service's own operations, through the gateway.
	var probeWG sync.WaitGroup
	defer probeWG.Wait()
	defer stopProbe.Store(true) // (also when the test fails early)
	probeWG.Add(1)
	go func() {
		defer probeWG.Done()
		for stopProbe.Load() == nil {
			rec.add("query", r.op("query", sh.users[0], "customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 1, "cursor": nil}}))
			time.Sleep(50 * time.Millisecond)
		}
	}()
	intents := make(chan int, burst)
	for i := 1; i <= burst; i++ {
		intents <- i
	}
	close(intents)
	orderOf := make([]string, burst+1)
	orderOf[0] = m[1]
	var wg sync.WaitGroup
	burstBegan := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range intents {
				for attempt := 1; ; attempt++ {
					a := sh.webhook(r, i)
					rec.add("webhook "+intentOf(i), a)
					if a.err == nil && a.status/100 == 2 {
						if m := orderCreated.FindStringSubmatch(string(a.body)); m != nil {
							orderOf[i] = m[1]
						}
						answered.Add(1)
						break
					}
					if attempt == 300 {
						t.Errorf("%s: no 2xx after %d attempts; last %s", intentOf(i), attempt, a)
						break
					}
					time.Sleep(retryEvery)
				}
			}
		}()
	}
	wg.Wait()
	burstOver.Store(true)
	burstTook := time.Since(burstBegan)
	select {
	case <-killed:
	case <-time.After(5 * time.Second):
		t.Fatalf("%s was not killed during the burst", victim)
	}
	// The probe runs on until the restarted service answers it.
	eventually(t, "the restarted "+victim+" answering through the gateway", 30*time.Second, func() bool {
		s := rec.all()
		for j := len(s) - 1; j >= 0; j-- {
			if s[j].what == "query" {
				// Sent after the kill: one in flight then may still have been
				// answered by the process about to die.
				return s[j].code == http.StatusOK && s[j].sent().After(killedAt.Load().(time.Time))
			}
		}
		return false
	})
	stopProbe.Store(true)
	probeWG.Wait()

	// The launcher restarted the killed service: a new process, on the same address.
	if pid := r.PID(victim); pid == pidBefore || r.Runs(victim) != 2 {
		t.Errorf("%s: pid %d before the kill, %d after, %d runs", victim, pidBefore, pid, r.Runs(victim))
	}

	// Every answer: 200 or 503, none slow; 503s while the service was down,
	// and only then: none received before the kill (requests in flight then
	// may get one), none to a request sent after the restarted service
	// answered through the gateway.
	seen := rec.all()
	var webhook503, query503, webhookAfterKill int
	var slowest time.Duration
	codes := map[int]int{}
	kt := killedAt.Load().(time.Time)
	backAt := firstOK(seen, "query", kt)
	for _, s := range seen {
		if s.code == http.StatusServiceUnavailable {
			if s.retryAfter == "" {
				t.Errorf("%s: a 503 without Retry-After", s.what)
			}
			if s.at.Before(kt) || s.sent().After(backAt) {
				t.Errorf("%s: 503 to a request sent %s after the kill, answered %s after it, outside the outage (%s long): %s", s.what,
					s.sent().Sub(kt).Round(time.Millisecond), s.at.Sub(kt).Round(time.Millisecond), backAt.Sub(kt).Round(time.Millisecond), s.detail)
			}
		}
		codes[s.code]++
		slowest = max(slowest, s.took)
		if s.took > answerBound {
			t.Errorf("%s took %s (bound %s): %d %s", s.what, s.took, answerBound, s.code, s.detail)
		}
		switch {
		case s.code == http.StatusOK:
		case s.code == http.StatusServiceUnavailable && strings.HasPrefix(s.what, "webhook"):
			webhook503++
			var body struct {
				Error      string `json:"error"`
				RetryAfter int    `json:"retryAfter"`
			}
			if json.Unmarshal([]byte(s.detail), &body) != nil || body.Error == "" || body.RetryAfter <= 0 {
				t.Errorf("%s: a 503 without { error, retryAfter }: %s", s.what, s.detail)
			}
		case s.code == http.StatusServiceUnavailable && s.what == "query":
			query503++
			if code := errorCode([]byte(s.detail)); code != "UNAVAILABLE" {
				t.Errorf("query: a 503 with code %q: %s", code, s.detail)
			}
		default:
			t.Errorf("%s answered %d (only 200 or 503 are right): %s", s.what, s.code, s.detail)
		}
		if strings.HasPrefix(s.what, "webhook") && s.at.After(kt) {
			webhookAfterKill++
		}
	}
	if webhook503 == 0 || query503 == 0 {
		t.Errorf("while %s was down: %d webhook and %d query answers were 503; want both > 0 (codes %v)", victim, webhook503, query503, codes)
	}
	if webhookAfterKill == 0 {
		t.Errorf("no delivery after the kill")
	}

	// Exactly one order per payment, each the customer's only one.
	for i := 0; i <= burst; i++ {
		var got pageOf[orderView]
		r.must(t, "query", sh.users[i], "customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}, &got)
		if len(got.Page) != 1 || got.Page[0].PaymentIntentID != intentOf(i) || got.Page[0].Total != float64(orderFils)/100 {
			t.Errorf("customer %d: orders %+v", i, got.Page)
			continue
		}
		if orderOf[i] != "" && orderOf[i] != got.Page[0].ID {
			t.Errorf("customer %d: the webhook announced order %s, the customer has %s", i, orderOf[i], got.Page[0].ID)
		}
		orderOf[i] = got.Page[0].ID
	}
	storeOrders := all[orderView](t, r, sh.owner, "stores.orders.listStoreOrders", map[string]any{"storeId": sh.store})
	intentsSeen := map[string]int{}
	for _, o := range storeOrders {
		intentsSeen[o.PaymentIntentID]++
	}
	if len(storeOrders) != burst+1 || len(intentsSeen) != burst+1 {
		t.Errorf("the store has %d orders for %d payment intents; want %d of each", len(storeOrders), len(intentsSeen), burst+1)
	}

	// Exactly one notification of each kind per order, once the consumer has
	// caught up; then a second look finds no late copy.
	check := func(final bool) bool {
		ok := true
		for i := 0; i <= burst; i++ {
			ns := all[notificationView](t, r, sh.users[i], "notifications.inbox.list", nil)
			if n := countFor(ns, "order_created", orderOf[i]); n != 1 || len(ns) != 1 {
				ok = false
				if final {
					t.Errorf("customer %d: %d order_created notifications of order %s, %d in all", i, n, orderOf[i], len(ns))
				}
			}
		}
		owner := all[notificationView](t, r, sh.owner, "notifications.inbox.list", nil)
		for i := 0; i <= burst; i++ {
			if n := countFor(owner, "new_order", orderOf[i]); n != 1 {
				ok = false
				if final {
					t.Errorf("owner: %d new_order notifications of order %s", n, orderOf[i])
				}
			}
		}
		if n := count(owner, "new_order"); n != burst+1 {
			ok = false
			if final {
				t.Errorf("owner: %d new_order notifications, want %d", n, burst+1)
			}
		}
		return ok
	}
	eventually(t, "one notification of each kind per order", 30*time.Second, func() bool { return check(false) })
	time.Sleep(time.Second)
	check(true)

	// A clean stop: every program exits.
	pids := []int{}
	for _, n := range append([]string{"broker", "gateway"}, keys(r.Services)...) {
		pids = append(pids, r.PID(n))
	}
	stopBegan := time.Now()
	if err := r.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	for _, pid := range pids {
		if syscall.Kill(pid, 0) == nil {
			t.Errorf("process %d still runs after the launcher stopped", pid)
		}
	}
	restartedAfter := backAt.Sub(kt).Round(10 * time.Millisecond)
	t.Logf("figures: start %s, journey %s, burst of %d intents %s (%d answers: %v; slowest %s), %s answering again %s after the kill, stop %s",
		startedIn.Round(10*time.Millisecond), (journeyDone - startedIn).Round(10*time.Millisecond), burst, burstTook.Round(10*time.Millisecond),
		len(seen), codes, slowest.Round(time.Millisecond), victim, restartedAfter, time.Since(stopBegan).Round(10*time.Millisecond))
}

// firstOK is when the first OK to a request of what sent after "after" was
// answered (a request in flight at the kill may be answered by the dying
// process: it does not show the service back).
func firstOK(seen []status, what string, after time.Time) time.Time {
	for _, s := range seen {
		if s.what == what && s.code == http.StatusOK && s.sent().After(after) {
			return s.at
		}
	}
	return time.Time{}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func count(ns []notificationView, typ string) int {
	n := 0
	for _, x := range ns {
		if x.Type == typ {
			n++
		}
	}
	return n
}

func countFor(ns []notificationView, typ, orderID string) int {
	n := 0
	for _, x := range ns {
		if x.Type == typ && x.Data["orderId"] == orderID {
			n++
		}
	}
	return n
}

func eventually(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %s", what, within)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
