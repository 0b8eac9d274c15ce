package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/fasthttp/websocket"
)

var (
	liveOnly   = flag.Bool("live-only", false, "run only the live query rows (Convex clients' subscriptions)")
	liveRounds = flag.Int("live-rounds", 30, "mutations measured per live query row")
)

// runLiveOnly runs and prints the live query rows alone.
func runLiveOnly(base string, tok func(sub string, roles ...string) string) error {
	rows, err := benchLive(base, tok, *liveRounds)
	if err != nil {
		return err
	}
	fmt.Printf("\n%-46s %10s %10s %10s %7s\n", "row", "", "p50", "p99", "errors")
	printLive(rows)
	return nil
}

// benchLive: 1,000 open subscriptions of Convex's sync protocol to one
// store's product list (its first page: one product), and the time from a change of its price
// over HTTP to the last subscriber's update (the Transition that shows the new
// price), p50/p99 over `rounds` mutations. Two shapes:
//
//   - shared: 20 anonymous sockets with 50 subscriptions each (4 sockets from
//     each of 5 loopback addresses: the gateway's caps on anonymous sockets),
//     all the same query: one live query, run once per change and fanned out
//     to 1,000;
//   - distinct: 1,000 sockets, each signed in as its own user (100 from each
//     of 10 addresses): 1,000 live queries (path, arguments and caller
//     differ), each run once per change.
func benchLive(base string, tok func(sub string, roles ...string) string, rounds int) ([]row, error) {
	admin, owner := tok("bench-live-admin", "admin"), tok("bench-live-owner")
	raw, err := do(base+"/api/mutation", admin, "admins.catalog.createStore", map[string]any{
		"name": "Live Store", "ownerUserId": "bench-live-owner", "ownerName": "O", "ownerPhone": "+971500000000"})
	if err != nil {
		return nil, err
	}
	var store string
	_ = json.Unmarshal(raw, &store)
	raw, err = do(base+"/api/mutation", owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": "Live box", "price": 1})
	if err != nil {
		return nil, err
	}
	var product string
	_ = json.Unmarshal(raw, &product)
	price := 1
	setPrice := func() error {
		_, err := do(base+"/api/mutation", owner, "stores.products.updateProduct", map[string]any{"productId": product, "price": price})
		return err
	}
	args := map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}

	var rows []row
	for _, shape := range []struct {
		name           string
		sockets, perSk int
		signedIn       bool
	}{
		{"(l1) 1,000 subscriptions, one shared query", 20, 50, false},
		{"(l2) 1,000 subscriptions, 1,000 distinct", 1000, 1, true},
	} {
		w := &liveWatch{}
		var socks []*liveSocket
		for i := 0; i < shape.sockets; i++ {
			token := ""
			if shape.signedIn {
				token = tok(fmt.Sprintf("bench-live-%d", i))
			}
			ip := fmt.Sprintf("127.0.1.%d", 1+i/4)
			if shape.signedIn {
				ip = fmt.Sprintf("127.0.1.%d", 101+i/100)
			}
			s, err := openLiveSocket(base, ip, token, shape.perSk, "stores/products:listProductsPaginated", args, w)
			if err != nil {
				for _, s := range socks {
					s.close()
				}
				return nil, fmt.Errorf("%s: socket %d: %w", shape.name, i, err)
			}
			socks = append(socks, s)
		}
		total := shape.sockets * shape.perSk
		var lat []time.Duration
		var failures int64
		for r := 0; r < rounds; r++ {
			price++
			all := w.expect(price, total)
			t0 := time.Now()
			if err := setPrice(); err != nil {
				failures++
				continue
			}
			select {
			case <-all:
				lat = append(lat, w.last.Sub(t0))
			case <-time.After(30 * time.Second):
				failures++
			}
		}
		for _, s := range socks {
			s.close()
		}
		rows = append(rows, summarize(shape.name, lat, 0, failures))
	}
	return rows, nil
}

func printLive(rows []row) {
	for _, r := range rows {
		fmt.Printf("%-46s %10s %10v %10v %7d   (mutation -> last subscriber's update)\n", r.name, "", r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.errors)
	}
}

// liveWatch counts the subscriptions that show the current round's price.
type liveWatch struct {
	mu      sync.Mutex
	want    int // the price subscriptions must show
	pending int // subscriptions still behind
	all     chan struct{}
	last    time.Time
}

// expect starts a round; the channel closes when every subscription shows price.
func (w *liveWatch) expect(price, subscriptions int) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.want, w.pending, w.all = price, subscriptions, make(chan struct{})
	return w.all
}

// saw records that a subscription shows price (prices only grow).
func (w *liveWatch) saw(s *liveSocket, id int, price int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	was := s.seen[id]
	s.seen[id] = max(was, price)
	if price >= w.want && was < w.want && w.pending > 0 {
		w.pending--
		if w.pending == 0 {
			w.last = time.Now()
			close(w.all)
		}
	}
}

type liveSocket struct {
	c    *websocket.Conn
	seen map[int]int // query id -> the price it shows (guarded by the watch)
	done chan struct{}
}

// openLiveSocket connects from local address ip, signs in (token "" stays
// anonymous), subscribes queries times to path(args) and returns once every
// subscription has its first value; from then on updates go to w.
func openLiveSocket(base, ip, token string, queries int, path string, args any, w *liveWatch) (*liveSocket, error) {
	qs := make([]liveQuery, queries)
	for i := range qs {
		qs[i] = liveQuery{path: path, args: args}
	}
	return dialLive(base, ip, token, qs, func(s *liveSocket, id int, value json.RawMessage) {
		var list struct {
			Page []struct {
				Price float64 `json:"price"`
			} `json:"page"`
		}
		if json.Unmarshal(value, &list) == nil && len(list.Page) == 1 {
			w.saw(s, id, int(list.Page[0].Price))
		}
	})
}

// liveQuery is one subscription: a function and its arguments.
type liveQuery struct {
	path string // Convex form, "stores/reviews:getStoreReviews"
	args any
}

// dialLive connects from local address ip, signs in (token "" stays
// anonymous), subscribes to queries (query id i is queries[i]) in one
// ModifyQuerySet and returns once each has its first value (a QueryFailed,
// such as the caps' RATE_LIMITED, is an error). From then on every
// QueryUpdated goes to onUpdate, from the socket's reader goroutine.
func dialLive(base, ip, token string, queries []liveQuery, onUpdate func(s *liveSocket, id int, value json.RawMessage)) (*liveSocket, error) {
	c, err := subscribeFrom(base, ip, token, queries)
	if err != nil {
		return nil, err
	}
	s := &liveSocket{c: c, seen: map[int]int{}, done: make(chan struct{})}
	// Until the query set is answered and every query has its first value.
	answered := map[int]bool{}
	_ = c.SetReadDeadline(time.Now().Add(2 * time.Minute))
	for reached := false; !reached || len(answered) < len(queries); {
		t, err := readTransition(c)
		if err != nil {
			c.Close()
			return nil, err
		}
		for _, m := range t.Modifications {
			switch m.Type {
			case "QueryUpdated":
				answered[m.QueryID] = true
			case "QueryFailed":
				c.Close()
				return nil, fmt.Errorf("query %d (%s) failed: %s", m.QueryID, queries[m.QueryID%len(queries)].path, m.ErrorMessage)
			}
		}
		reached = reached || t.EndVersion.QuerySet == 1
	}
	_ = c.SetReadDeadline(time.Time{})
	go func() {
		defer close(s.done)
		for {
			t, err := readTransition(c)
			if err != nil {
				return
			}
			for _, m := range t.Modifications {
				if m.Type == "QueryUpdated" {
					onUpdate(s, m.QueryID, m.Value)
				}
			}
		}
	}()
	return s, nil
}

func (s *liveSocket) close() {
	s.c.Close()
	<-s.done
}

type liveTransition struct {
	Type       string `json:"type"`
	EndVersion struct {
		QuerySet int `json:"querySet"`
	} `json:"endVersion"`
	Modifications []struct {
		Type    string          `json:"type"`
		QueryID int             `json:"queryId"`
		Value   json.RawMessage `json:"value"`
		// ErrorMessage is a QueryFailed's reason.
		ErrorMessage string `json:"errorMessage"`
	} `json:"modifications"`
	Error string `json:"error"`
}

// readTransition reads up to the next Transition (a FatalError or AuthError is an error).
func readTransition(c *websocket.Conn) (liveTransition, error) {
	for {
		var t liveTransition
		if err := c.ReadJSON(&t); err != nil {
			return t, err
		}
		switch t.Type {
		case "Transition":
			return t, nil
		case "FatalError", "AuthError":
			return t, fmt.Errorf("%s: %s", t.Type, t.Error)
		}
	}
}

// subscribeFrom opens a sync socket from the local address ip, signs in with
// token (none: anonymous), and adds queries as ids 0..len-1 in one query set,
// without waiting for their answers.
func subscribeFrom(base, ip, token string, queries []liveQuery) (*websocket.Conn, error) {
	dialer := *websocket.DefaultDialer
	dialer.NetDial = func(network, addr string) (net.Conn, error) {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
		return d.Dial(network, addr)
	}
	c, _, err := dialer.Dial("ws"+strings.TrimPrefix(base, "http")+"/api/1.48.0/sync", nil)
	if err != nil {
		return nil, err
	}
	session := make([]byte, 16)
	_, _ = rand.Read(session)
	msgs := []any{map[string]any{"type": "Connect", "sessionId": hex.EncodeToString(session), "connectionCount": 0, "clientTs": time.Now().UnixMilli()}}
	if token != "" {
		msgs = append(msgs, map[string]any{"type": "Authenticate", "tokenType": "User", "value": token, "baseVersion": 0})
	}
	adds := make([]any, len(queries))
	for i, q := range queries {
		adds[i] = map[string]any{"type": "Add", "queryId": i, "udfPath": q.path, "args": []any{q.args}}
	}
	msgs = append(msgs, map[string]any{"type": "ModifyQuerySet", "baseVersion": 0, "newVersion": 1, "modifications": adds})
	for _, m := range msgs {
		if err := c.WriteJSON(m); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}
