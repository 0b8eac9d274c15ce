package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fasthttp/websocket"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/gateway"
	"marketplace/libs/auth"
	"marketplace/libs/config"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
)

// Live queries re-run by what they read (issue 23, docs/convex.md): through
// the real gateway and services, a write re-runs the live queries whose
// stated reads it touches, and those whose answers stated none, and no
// other; two gateways keep each other's subscribers live through the
// services' live topics.

// TestLiveQueriesRerunByReadSets: a vote on review r1 of store A re-runs the
// live queries of A's lists and of r1 (their subscribers see the new
// helpfulness) and of A's stats, and none of store B's (its lists with several arguments, its
// stats, its review r2). The runs are counted where they reach the reviews
// service (serviceTap).
func TestLiveQueriesRerunByReadSets(t *testing.T) {
	tap := newServiceTap(t, "reviews")
	s := st.Start(t, st.WithGatewayResolver(tap.resolver))
	w := newLiveWorld(t, s)

	c := dialSync(t, s.BaseURL, "")
	listA := map[string]any{"storeId": w.storeA, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}
	listA5 := map[string]any{"storeId": w.storeA, "paginationOpts": map[string]any{"numItems": 5, "cursor": nil}}
	r1 := map[string]any{"reviewId": w.r1}
	statsA := map[string]any{"storeId": w.storeA}
	qListA, qListA5, qR1 := c.subscribe(opStoreReviews, listA), c.subscribe(opStoreReviews, listA5), c.subscribe(opGetReview, r1)
	c.subscribe(opReviewStats, statsA)
	type sub struct {
		path string
		args map[string]any
	}
	var ofB []sub
	for _, n := range []int{10, 5, 3} {
		ofB = append(ofB, sub{opStoreReviews, map[string]any{"storeId": w.storeB, "paginationOpts": map[string]any{"numItems": n, "cursor": nil}}})
	}
	ofB = append(ofB, sub{opStoreReviews, map[string]any{"storeId": w.storeB, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}, "sortBy": "highest_rating"}},
		sub{opReviewStats, map[string]any{"storeId": w.storeB}}, sub{opGetReview, map[string]any{"reviewId": w.r2}})
	for _, q := range ofB {
		c.subscribe(q.path, q.args)
	}
	c.awaitAll(t)
	tap.settle(t)
	before := tap.snapshot()
	for _, q := range ofB {
		if before[runKey(q.path, q.args)] == 0 {
			t.Fatalf("%s(%v) never reached the service: %v", q.path, q.args, before)
		}
	}

	st.MustOK(t, s.Mutation(w.voter, opVote, map[string]any{"reviewId": w.r1, "isHelpful": true}))
	for _, id := range []int{qListA, qListA5} {
		c.await(t, id, "A's list shows r1 helpful once", 5*time.Second, func(v json.RawMessage) bool { return helpfulIn(v, w.r1) == 1 })
	}
	c.await(t, qR1, "r1 shows helpful once", 5*time.Second, func(v json.RawMessage) bool { return helpfulOf(v) == 1 })
	// The write comes back on the live topic too: give it time to re-run
	// anything it would.
	time.Sleep(1500 * time.Millisecond)
	after := tap.snapshot()
	// A's stats too: a vote moves the store's statistics version on (the
	// version its lists' cached pages are kept by).
	for _, q := range []sub{{opStoreReviews, listA}, {opStoreReviews, listA5}, {opGetReview, r1}, {opReviewStats, statsA}} {
		if k := runKey(q.path, q.args); after[k] <= before[k] {
			t.Errorf("%s(%v) did not run again: %d runs before the vote, %d after", q.path, q.args, before[k], after[k])
		}
	}
	for _, q := range ofB {
		if k := runKey(q.path, q.args); after[k] != before[k] {
			t.Errorf("a vote on a review of store A re-ran %s(%v) of store B: %d runs before, %d after (it read %s)",
				q.path, q.args, before[k], after[k], tap.readsOf(k))
		}
	}
}

// TestLiveQueryWithoutReadsRerunsOnEveryWrite: a query whose answer states no
// reads (as from a service that cannot say them: the tap drops the header)
// re-runs on every write of its service, also one that touches nothing it
// shows; the same query with its reads stated does not.
func TestLiveQueryWithoutReadsRerunsOnEveryWrite(t *testing.T) {
	tap := newServiceTap(t, "reviews")
	s := st.Start(t, st.WithGatewayResolver(tap.resolver))
	w := newLiveWorld(t, s)
	unstated := map[string]any{"storeId": w.storeB, "paginationOpts": map[string]any{"numItems": 7, "cursor": nil}}
	stated := map[string]any{"storeId": w.storeB, "paginationOpts": map[string]any{"numItems": 8, "cursor": nil}}
	tap.dropReads(runKey(opStoreReviews, unstated))

	c := dialSync(t, s.BaseURL, "")
	c.subscribe(opStoreReviews, unstated)
	c.subscribe(opStoreReviews, stated)
	qR1 := c.subscribe(opGetReview, map[string]any{"reviewId": w.r1})
	c.awaitAll(t)
	tap.settle(t)
	before := tap.snapshot()
	if tap.readsOf(runKey(opStoreReviews, stated)) == "" {
		t.Fatal("the stated query's answer said nothing of its reads")
	}

	st.MustOK(t, s.Mutation(w.voter, opVote, map[string]any{"reviewId": w.r1, "isHelpful": true}))
	c.await(t, qR1, "r1 shows helpful once", 5*time.Second, func(v json.RawMessage) bool { return helpfulOf(v) == 1 })
	k := runKey(opStoreReviews, unstated)
	deadline := time.Now().Add(5 * time.Second)
	for tap.runs(k) <= before[k] {
		if time.Now().After(deadline) {
			t.Fatalf("the live query that stated no reads did not run again after a write of its service (%d runs)", tap.runs(k))
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if k := runKey(opStoreReviews, stated); tap.runs(k) != before[k] {
		t.Errorf("the same query with its reads stated ran again: %d runs before, %d after", before[k], tap.runs(k))
	}
}

// TestLiveQueriesAcrossGatewayReplicas: two gateways in front of the same
// services and broker (the system's and a second one started here, as
// system.Run builds the first) keep each other's subscribers live: a vote
// through one reaches a subscription on the other within seconds, both
// ways, through the reviews service's live topic; and a write a consumer
// makes (the notification of a failed payment) reaches the inbox
// subscriptions on both.
func TestLiveQueriesAcrossGatewayReplicas(t *testing.T) {
	s := st.Start(t)
	gw2 := startGatewayReplica(t, s)
	s2 := *s // the same system, called through the second gateway
	s2.BaseURL = gw2
	w := newLiveWorld(t, s)
	tokens, _ := makeCustomers(t, s, "replica-voter", 8)

	one, two := dialSync(t, s.BaseURL, ""), dialSync(t, gw2, "")
	warm := map[string]any{"reviewId": w.r2}
	warmOne, warmTwo := one.subscribe(opGetReview, warm), two.subscribe(opGetReview, warm)
	r1 := map[string]any{"reviewId": w.r1}
	r1One, r1Two := one.subscribe(opGetReview, r1), two.subscribe(opGetReview, r1)
	one.awaitAll(t)
	two.awaitAll(t)

	// Each gateway reads the live topics from their end once it has found
	// them: votes on r2 through the other until each has shown one.
	voted := 0
	for _, p := range []struct {
		via    *st.Sys
		seenBy *syncClient
		id     int
	}{{s, two, warmTwo}, {&s2, one, warmOne}} {
		for ok := false; !ok; {
			if voted == 4 {
				t.Fatal("a gateway did not show the other's writes after 4 votes (does it follow the live topics?)")
			}
			st.MustOK(t, p.via.Mutation(tokens[voted], opVote, map[string]any{"reviewId": w.r2, "isHelpful": true}))
			voted++
			want := voted
			ok = p.seenBy.within(p.id, 3*time.Second, func(v json.RawMessage) bool { return helpfulOf(v) == want })
		}
	}

	start := time.Now()
	st.MustOK(t, s.Mutation(tokens[6], opVote, map[string]any{"reviewId": w.r1, "isHelpful": true}))
	two.await(t, r1Two, "a vote through gateway 1, on gateway 2", 3*time.Second, func(v json.RawMessage) bool { return helpfulOf(v) == 1 })
	t.Logf("gateway 1's write on gateway 2 after %v", time.Since(start))
	start = time.Now()
	st.MustOK(t, s2.Mutation(tokens[7], opVote, map[string]any{"reviewId": w.r1, "isHelpful": true}))
	one.await(t, r1One, "a vote through gateway 2, on gateway 1", 3*time.Second, func(v json.RawMessage) bool { return helpfulOf(v) == 2 })
	t.Logf("gateway 2's write on gateway 1 after %v", time.Since(start))
	two.await(t, r1Two, "gateway 2's own vote", 3*time.Second, func(v json.RawMessage) bool { return helpfulOf(v) == 2 })

	// A consumer's write: the notifications service's, after the payments
	// service's event.
	inboxArgs := map[string]any{"paginationOpts": map[string]any{"numItems": 50, "cursor": nil}}
	in1, in2 := dialSync(t, s.BaseURL, w.user), dialSync(t, gw2, w.user)
	box1, box2 := in1.subscribe("notifications.inbox.list", inboxArgs), in2.subscribe("notifications.inbox.list", inboxArgs)
	in1.awaitAll(t)
	in2.awaitAll(t)
	failed := w.payment("pi_replica_failed")
	failed.FailMessage = "Your card was declined."
	start = time.Now()
	if r := deliver(s, processor.Event("evt_replica_failed", "payment_intent.payment_failed", failed)); r.Status != 200 {
		t.Fatalf("webhook: %d %s", r.Status, r.Body)
	}
	hasFailed := func(v json.RawMessage) bool {
		var p struct {
			Page []notification `json:"page"`
		}
		return json.Unmarshal(v, &p) == nil && count(p.Page, "payment_failed") == 1
	}
	in1.await(t, box1, "the failed payment's notification on gateway 1", 5*time.Second, hasFailed)
	in2.await(t, box2, "the failed payment's notification on gateway 2", 5*time.Second, hasFailed)
	t.Logf("the consumer's write on both gateways after %v", time.Since(start))
}

// liveWorld is a shop (stores A and B) with a review r1 of A and r2 of B by
// the shop's customer, and a voter.
type liveWorld struct {
	*shop
	r1, r2 string
	voter  string
}

func newLiveWorld(t *testing.T, s *st.Sys) *liveWorld {
	t.Helper()
	w := &liveWorld{shop: newShop(t, s)}
	w.r1 = addReviewOK(t, s, w.user, reviewArgs(w.storeA, 4))
	tokens, _ := makeCustomers(t, s, "live", 2)
	addReviewOK(t, s, tokens[0], reviewArgs(w.storeA, 5)) // A's lists hold more than r1
	w.r2 = addReviewOK(t, s, w.user, reviewArgs(w.storeB, 3))
	w.voter = tokens[1]
	return w
}

// helpfulOf is a review's helpfulCount (getReview's value), -1 if none.
func helpfulOf(v json.RawMessage) int {
	var r struct {
		HelpfulCount *float64 `json:"helpfulCount"`
	}
	if json.Unmarshal(v, &r) != nil || r.HelpfulCount == nil {
		return -1
	}
	return int(*r.HelpfulCount)
}

// helpfulIn is review id's helpfulCount in a page of a list, -1 if absent.
func helpfulIn(v json.RawMessage, id string) int {
	var p struct {
		Page []json.RawMessage `json:"page"`
	}
	if json.Unmarshal(v, &p) != nil {
		return -1
	}
	for _, it := range p.Page {
		var r struct {
			ID string `json:"_id"`
		}
		if json.Unmarshal(it, &r) == nil && r.ID == id {
			return helpfulOf(it)
		}
	}
	return -1
}

// startGatewayReplica starts a second gateway in this process in front of s's
// services and broker, built as system.Run builds the first (its Kafka user,
// the development secret, the services' addresses), and returns its base URL.
func startGatewayReplica(t *testing.T, s *st.Sys) string {
	t.Helper()
	var gc gateway.Config
	if err := config.Load(func(k string) string { return map[string]string{"RATE_LIMIT_RPS": "0"}[k] }, &gc); err != nil {
		t.Fatal(err)
	}
	gc.Services = slices.Sorted(maps.Keys(s.Services))
	gc.Convex.Brokers = s.Brokers
	verifier, err := auth.NewHS256([]byte(s.DevSecret), auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.DiscardHandler)
	gw := gateway.New(gc, discovery.NewStatic(s.Services), verifier, logger)
	ctx, cancel := context.WithCancel(context.Background())
	if err := gw.Refresh(ctx); err != nil {
		cancel()
		t.Fatal(err)
	}
	go gw.Run(ctx)
	h := httpserver.Defaults()
	h.AccessLog = false
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- httpserver.Serve(ctx, gw.App(h, logger), ln, h.ShutdownTimeout) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("the second gateway stopped with: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// serviceTap stands between the gateway and one service (the gateway's
// resolver sends it there): it counts the queries the gateway sends the
// service, by operation and arguments (a live query's runs), records what
// their answers said they read, and can drop that statement from the answers
// of chosen queries, as a service that cannot state its reads.
type serviceTap struct {
	service string
	srv     *httptest.Server
	target  atomic.Pointer[url.URL] // the service's own address

	mu    sync.Mutex
	count map[string]int
	reads map[string]string
	drop  map[string]bool
}

type tapKey struct{}

func newServiceTap(t *testing.T, service string) *serviceTap {
	p := &serviceTap{service: service, count: map[string]int{}, reads: map[string]string{}, drop: map[string]bool{}}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) { r.SetURL(p.target.Load()) },
		ModifyResponse: func(resp *http.Response) error {
			k, _ := resp.Request.Context().Value(tapKey{}).(string)
			if k == "" {
				return nil
			}
			p.mu.Lock()
			defer p.mu.Unlock()
			p.reads[k] = resp.Header.Get(liveset.HeaderReads)
			if p.drop[k] {
				resp.Header.Del(liveset.HeaderReads)
			}
			return nil
		},
	}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/api/query" {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var call struct {
				Path string          `json:"path"`
				Args json.RawMessage `json:"args"`
			}
			if json.Unmarshal(body, &call) == nil {
				k := runKey(call.Path, call.Args)
				p.mu.Lock()
				p.count[k]++
				p.mu.Unlock()
				r = r.WithContext(context.WithValue(r.Context(), tapKey{}, k))
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// resolver is the gateway's resolver with the tapped service at the tap.
func (p *serviceTap) resolver(r ops.Resolver) ops.Resolver {
	return resolverFunc(func(ctx context.Context, svc string) (string, error) {
		base, err := r.Resolve(ctx, svc)
		if err != nil || svc != p.service {
			return base, err
		}
		u, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		p.target.Store(u)
		return p.srv.URL, nil
	})
}

// dropReads makes the answers to the query of key state no reads.
func (p *serviceTap) dropReads(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drop[key] = true
}

func (p *serviceTap) runs(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.count[key]
}

// readsOf is what the last answer to the query of key said it read.
func (p *serviceTap) readsOf(key string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reads[key]
}

func (p *serviceTap) snapshot() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.count)
}

// settle waits until no query has reached the service for half a second
// (the writes of the test's setup may still re-run live queries).
func (p *serviceTap) settle(t *testing.T) {
	t.Helper()
	last, since := p.snapshot(), time.Now()
	for deadline := time.Now().Add(5 * time.Second); time.Since(since) < 500*time.Millisecond; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the live queries kept running for 5 s without a write")
		}
		if now := p.snapshot(); !maps.Equal(now, last) {
			last, since = now, time.Now()
		}
	}
}

// runKey names a query's runs: its dotted path and its arguments (as JSON,
// keys sorted).
func runKey(path string, args any) string {
	var v any = args
	if raw, ok := args.(json.RawMessage); ok {
		if json.Unmarshal(raw, &v) != nil {
			v = string(raw)
		}
	} else {
		b, _ := json.Marshal(args)
		_ = json.Unmarshal(b, &v)
	}
	b, _ := json.Marshal(v)
	return path + " " + string(b)
}

// syncClient is a socket of Convex's sync protocol (gateway/convex), as
// Convex's client speaks it, enough to subscribe to queries and watch their
// values: dial it, subscribe, await a value.
type syncClient struct {
	c       *websocket.Conn
	version int // of the query set
	next    int // query id
	paths   map[int]string

	mu      sync.Mutex
	values  map[int]json.RawMessage
	failed  map[int]string
	err     error
	changed chan struct{} // closed (and replaced) on each message read
}

// dialSync opens a sync socket to the gateway at base, signed in with token
// ("" stays anonymous); it closes at the test's end.
func dialSync(t *testing.T, base, token string) *syncClient {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/api/1.48.0/sync", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &syncClient{c: ws, paths: map[int]string{}, values: map[int]json.RawMessage{}, failed: map[int]string{}, changed: make(chan struct{})}
	session := make([]byte, 16)
	_, _ = rand.Read(session)
	c.send(t, map[string]any{"type": "Connect", "sessionId": hex.EncodeToString(session), "connectionCount": 0, "clientTs": time.Now().UnixMilli()})
	if token != "" {
		c.send(t, map[string]any{"type": "Authenticate", "tokenType": "User", "value": token, "baseVersion": 0})
	}
	done := make(chan struct{})
	go c.read(done)
	t.Cleanup(func() { ws.Close(); <-done })
	return c
}

func (c *syncClient) send(t *testing.T, msg any) {
	t.Helper()
	if err := c.c.WriteJSON(msg); err != nil {
		t.Fatal(err)
	}
}

func (c *syncClient) read(done chan struct{}) {
	defer close(done)
	for {
		var m struct {
			Type          string `json:"type"`
			Error         string `json:"error"`
			Modifications []struct {
				Type         string          `json:"type"`
				QueryID      int             `json:"queryId"`
				Value        json.RawMessage `json:"value"`
				ErrorMessage string          `json:"errorMessage"`
			} `json:"modifications"`
		}
		err := c.c.ReadJSON(&m)
		c.mu.Lock()
		switch {
		case err != nil:
			c.err = err
		case m.Type == "FatalError" || m.Type == "AuthError":
			c.err = fmt.Errorf("%s: %s", m.Type, m.Error)
		case m.Type == "Transition":
			for _, q := range m.Modifications {
				switch q.Type {
				case "QueryUpdated":
					c.values[q.QueryID] = q.Value
				case "QueryFailed":
					c.failed[q.QueryID] = q.ErrorMessage
				}
			}
		}
		close(c.changed)
		c.changed = make(chan struct{})
		stop := c.err != nil
		c.mu.Unlock()
		if stop {
			return
		}
	}
}

// subscribe adds the query path (dotted) with args to the socket's set and
// returns its query id.
func (c *syncClient) subscribe(path string, args any) int {
	id := c.next
	c.next++
	c.paths[id] = path
	udf := path
	if i := strings.LastIndex(udf, "."); i >= 0 {
		udf = strings.ReplaceAll(udf[:i], ".", "/") + ":" + udf[i+1:]
	}
	// Errors show as the socket's (await).
	_ = c.c.WriteJSON(map[string]any{"type": "ModifyQuerySet", "baseVersion": c.version, "newVersion": c.version + 1,
		"modifications": []any{map[string]any{"type": "Add", "queryId": id, "udfPath": udf, "args": []any{args}}}})
	c.version++
	return id
}

// within reports whether query id's value satisfies ok within d; a failed
// query or socket is false.
func (c *syncClient) within(id int, d time.Duration, ok func(json.RawMessage) bool) bool {
	timeout := time.After(d)
	for {
		c.mu.Lock()
		v, has := c.values[id]
		_, failed := c.failed[id]
		broken, changed := c.err, c.changed
		c.mu.Unlock()
		if has && ok(v) {
			return true
		}
		if failed || broken != nil {
			return false
		}
		select {
		case <-changed:
		case <-timeout:
			return false
		}
	}
}

// await fails the test unless query id's value satisfies ok within d.
func (c *syncClient) await(t *testing.T, id int, what string, d time.Duration, ok func(json.RawMessage) bool) {
	t.Helper()
	if c.within(id, d, ok) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t.Fatalf("%s: not within %v (%s: value %s, failure %q, socket %v)", what, d, c.paths[id], c.values[id], c.failed[id], c.err)
}

// awaitAll waits for a first value of every query subscribed.
func (c *syncClient) awaitAll(t *testing.T) {
	t.Helper()
	for id := range c.next {
		c.await(t, id, "first value", 10*time.Second, func(json.RawMessage) bool { return true })
	}
}
