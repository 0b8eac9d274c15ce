package convex

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/libs/auth"
)

// gatedRuns replaces h's runs with ones that wait for next; order lists the
// paths in the order they started.
type gatedRuns struct {
	t     *testing.T
	mu    sync.Mutex
	order []string
	gate  chan struct{}
	stop  chan struct{}
}

func gateRuns(t *testing.T, h *liveQueries) *gatedRuns {
	g := &gatedRuns{t: t, gate: make(chan struct{}), stop: make(chan struct{})}
	t.Cleanup(func() { close(g.stop) }) // the runs left go through
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		g.mu.Lock()
		g.order = append(g.order, lq.path)
		g.mu.Unlock()
		select {
		case <-g.gate:
		case <-g.stop:
		}
		return outcome{Value: json.RawMessage(`1`)}
	}
	return g
}

// next lets the run in flight end.
func (g *gatedRuns) next() {
	g.t.Helper()
	select {
	case g.gate <- struct{}{}:
	case <-time.After(5 * time.Second):
		g.t.Fatal("no run")
	}
}

func (g *gatedRuns) started() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.order...)
}

// Anonymous first runs have a class of their own: after signed-in first runs,
// and on the anonymous side of the one-in-anonymousEvery fairness, so a
// churn of anonymous Adds does not hold back signed-in re-runs; still ahead of
// anonymous re-runs.
func TestLiveQueryAnonymousFirstRunsYield(t *testing.T) {
	h := newLiveQueries(nil, 1)
	g := gateRuns(t, h)
	u := &auth.Identity{Sub: "u"}
	h.subscribe(&querySub{id: 1, conn: schedulerConn{id: u}}, "svc", "signed-in", []byte(`{}`), u)
	g.next()
	h.subscribe(&querySub{id: 2, conn: schedulerConn{}}, "svc", "anon-re", []byte(`{}`), nil)
	g.next()
	h.subscribe(&querySub{id: 3, conn: schedulerConn{}}, "other", "blocker", []byte(`{}`), nil)
	for deadline := time.Now().Add(5 * time.Second); len(g.started()) < 3; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("blocker did not run")
		}
	} // blocker runs; the rest queue behind it
	h.changed("svc") // a signed-in and an anonymous re-run
	const churn = 12
	for i := range churn {
		h.subscribe(&querySub{id: uint32(10 + i), conn: schedulerConn{}}, "other", fmt.Sprintf("anon-first-%02d", i), []byte(`{}`), nil)
	}
	u2 := &auth.Identity{Sub: "u2"}
	h.subscribe(&querySub{id: 99, conn: schedulerConn{id: u2}}, "other", "signed-in-first", []byte(`{}`), u2)
	for range churn + 4 {
		g.next()
	}
	order := g.started()
	if len(order) != 3+churn+3 {
		t.Fatalf("runs: %v", order)
	}
	at := map[string]int{}
	for i, p := range order {
		at[p] = i // the last run of each
	}
	// order[2] is blocker; then the signed-in first run, then the signed-in
	// re-run within anonymousEvery picks, and the anonymous re-run within
	// 2*anonymousEvery (the anonymous picks take an anonymous re-run first
	// in turn).
	if at["signed-in-first"] != 3 {
		t.Fatalf("the signed-in first run came at %d: %v", at["signed-in-first"], order)
	}
	if at["signed-in"] > 3+anonymousEvery {
		t.Fatalf("the signed-in re-run came at %d, behind the anonymous first runs: %v", at["signed-in"], order)
	}
	if at["anon-re"] > 3+2*anonymousEvery {
		t.Fatalf("the anonymous re-run came at %d, behind the anonymous first runs: %v", at["anon-re"], order)
	}
	// Anonymous first runs otherwise go ahead of anonymous re-runs.
	h.changed("svc", "other") // the anonymous ones re-run, the signed-in ones too
	for i := range 4 {
		h.subscribe(&querySub{id: uint32(200 + i), conn: schedulerConn{}}, "other", fmt.Sprintf("anon-late-%d", i), []byte(`{}`), nil)
	}
	g.next() // the run in flight
	for range 2 + 1 + churn + 1 + 4 - 1 {
		g.next()
	}
	late := g.started()[len(order)+1:]
	firsts := 0
	for _, p := range late[:6] {
		if len(p) > 10 && p[:10] == "anon-late-" {
			firsts++
		}
	}
	if firsts < 3 {
		t.Fatalf("%d of the 4 anonymous first runs among the next 6 runs, queued behind 14 anonymous re-runs: %v", firsts, late)
	}
}

// The per-address caps take an IPv6 caller's /64 as one address (a host
// gets a whole /64 and picks any address in it), an IPv4 caller's full
// address.

// schedulerConn is a subscriber for the scheduler's unit tests.
type schedulerConn struct{ id *auth.Identity }

func (schedulerConn) deliver(*querySub, *queryResult) {}

func (c schedulerConn) token(id *auth.Identity) string {
	if id == nil || c.id == nil || id.Sub != c.id.Sub {
		return ""
	}
	return "token"
}

// The run budget: at most K runs at once (one while ordinary requests are in
// flight); a live query queued or running is queued once more at most,
// however many changes come; first runs go before re-runs, signed-in re-runs
// before anonymous ones but one pick in anonymousEvery.
func TestLiveQueryRunBudget(t *testing.T) {
	h := newLiveQueries(nil, 3)
	var busy atomic.Bool
	h.busy = busy.Load
	var (
		mu       sync.Mutex
		now, top int
		order    []string
		runs     = map[string]int{}
	)
	gate := make(chan struct{})
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		mu.Lock()
		now++
		top = max(top, now)
		order = append(order, lq.path)
		runs[lq.path]++
		mu.Unlock()
		<-gate
		mu.Lock()
		now--
		mu.Unlock()
		return outcome{Value: json.RawMessage(`1`)}
	}
	settle := func() {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			h.mu.Lock()
			idle := h.workers == 0
			h.mu.Unlock()
			if idle {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the runs did not end")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	// release lets every run through until the returned func is called.
	release := func() func() {
		stop := make(chan struct{})
		go func() {
			for {
				select {
				case gate <- struct{}{}:
				case <-stop:
					return
				}
			}
		}()
		return func() { close(stop) }
	}
	const n = 20
	for i := range n {
		h.subscribe(&querySub{id: uint32(i), conn: schedulerConn{}}, "svc", fmt.Sprintf("anon-%02d", i), []byte(`{}`), nil)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if top != 3 {
		t.Fatalf("%d first runs at once, want 3", top)
	}
	mu.Unlock()
	// Ten changes while three run and seventeen wait: each live query runs
	// once more at most (the three running, once after their run; the others
	// run once, the changes merged).
	for range 10 {
		h.changed("svc")
	}
	stop := release()
	settle()
	stop()
	mu.Lock()
	total := 0
	for _, r := range runs {
		total += r
	}
	if total > n+3 {
		t.Fatalf("%d runs for %d live queries and 10 changes, want at most %d: %v", total, n, n+3, runs)
	}
	top, order = 0, nil
	mu.Unlock()

	// With ordinary requests in flight: one at a time.
	busy.Store(true)
	h.changed("svc")
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	if top != 1 {
		t.Fatalf("%d runs at once while requests are in flight, want 1", top)
	}
	mu.Unlock()
	// Meanwhile a signed-in live query and a new signed-in one queue behind
	// the 19 anonymous re-runs: the new one's first run comes next, then the
	// signed-in re-run within anonymousEvery picks.
	u := &auth.Identity{Sub: "u"}
	h.subscribe(&querySub{id: 100, conn: schedulerConn{id: u}}, "svc", "signed-in", []byte(`{}`), u)
	gate <- struct{}{} // the anonymous run in flight ends; the signed-in first run starts
	gate <- struct{}{}
	h.changed("svc") // the signed-in query is queued behind the anonymous ones
	u2 := &auth.Identity{Sub: "u2"}
	h.subscribe(&querySub{id: 101, conn: schedulerConn{id: u2}}, "svc", "new", []byte(`{}`), u2)
	// Still one at a time while they drain: with more run slots, two
	// workers popping in order could record their runs in either order.
	stop = release()
	settle()
	stop()
	busy.Store(false)
	mu.Lock()
	defer mu.Unlock()
	pos := map[string]int{}
	for i, p := range order {
		if _, seen := pos[p]; !seen {
			pos[p] = i
		}
	}
	if order[1] != "signed-in" {
		t.Fatalf("the signed-in first run came at %d: %v", pos["signed-in"], order)
	}
	// order: anon (in flight), signed-in (first), anon (next in line when it
	// was queued), then new (a first run), then the signed-in re-run within
	// anonymousEvery picks of it.
	newAt := -1
	for i, p := range order {
		if p == "new" {
			newAt = i
		}
	}
	reAt := -1
	for i := len(order) - 1; i >= 0; i-- {
		if order[i] == "signed-in" {
			reAt = i
			break
		}
	}
	if newAt < 0 || newAt > 3 || reAt <= newAt || reAt > newAt+anonymousEvery {
		t.Fatalf("the new query ran at %d, the signed-in re-run at %d: %v", newAt, reAt, order)
	}
}

// A run slot rests after each run so that runs take at most their share of
// its time: at 50 %, ten runs of 20 ms one at a time take at least 380 ms
// (their 200 ms and nine rests), not 200.
func TestLiveQueryRunShare(t *testing.T) {
	h := newLiveQueries(nil, 1)
	h.share = 0.5
	var runs atomic.Int32
	done := make(chan struct{})
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		time.Sleep(20 * time.Millisecond)
		if runs.Add(1) == 10 {
			close(done)
		}
		return outcome{Value: json.RawMessage(`1`)}
	}
	start := time.Now()
	for i := range 10 {
		h.subscribe(&querySub{id: uint32(i), conn: schedulerConn{}}, "svc", fmt.Sprintf("q-%d", i), []byte(`{}`), nil)
	}
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the runs did not end")
	}
	if took := time.Since(start); took < 380*time.Millisecond {
		t.Fatalf("ten runs of 20 ms at a 50 %% share took %v", took)
	}
}

// A run a socket's mutation waits for (its own queries of the service it
// wrote) goes with the first runs, ahead of other callers' queued re-runs:
// whether its live query was idle, or queued already among a busy service's
// re-runs (another caller's write came just before) and moves up.
func TestLiveQueryWaitedRunGoesFirst(t *testing.T) {
	for _, queued := range []bool{false, true} {
		t.Run(fmt.Sprintf("queued=%v", queued), func(t *testing.T) {
			h := newLiveQueries(nil, 1)
			var mu sync.Mutex
			var order []string
			gate, stop := make(chan struct{}), make(chan struct{})
			defer close(stop) // the runs left go through
			h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
				mu.Lock()
				order = append(order, lq.path)
				mu.Unlock()
				select {
				case <-gate:
				case <-stop:
				}
				return outcome{Value: json.RawMessage(`1`)}
			}
			next := func() {
				t.Helper()
				select {
				case gate <- struct{}{}:
				case <-time.After(5 * time.Second):
					t.Fatal("no run")
				}
			}
			for i := range 10 {
				id := &auth.Identity{Sub: fmt.Sprintf("other-%d", i)}
				h.subscribe(&querySub{id: uint32(i), conn: schedulerConn{id: id}}, "svc", fmt.Sprintf("other-%d", i), []byte(`{}`), id)
			}
			me := &auth.Identity{Sub: "me"}
			mine := schedulerConn{id: me}
			h.subscribe(&querySub{id: 99, conn: mine}, "svc2", "mine", []byte(`{}`), me)
			for range 11 {
				next() // the first runs
			}
			if queued {
				h.changed("svc", "svc2") // eleven signed-in re-runs queue, mine last; the first starts
			} else {
				h.changed("svc") // ten signed-in re-runs queue; the first starts
			}
			time.Sleep(50 * time.Millisecond)
			waited := make(chan struct{})
			go func() {
				h.changedAndWait(context.Background(), mine, "svc2", nil)
				close(waited)
			}()
			time.Sleep(50 * time.Millisecond)
			next() // the re-run in flight ends; the waited one is next
			next()
			select {
			case <-waited:
			case <-time.After(2 * time.Second):
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("the waited run did not come next: %v", order)
			}
			mu.Lock()
			defer mu.Unlock()
			if got := order[12]; got != "mine" {
				t.Fatalf("after the first runs and one re-run, %s ran; order %v", got, order)
			}
		})
	}
}

// A run slot does not rest before a run someone waits for (a signed-in first
// run, a run a mutation waits for), and such a run queued while it rests ends
// the rest: the rest keeps re-runs to their share, and a subscriber or a
// mutation is not made to wait for it. It still rests before a re-run.
func TestLiveQueryNoRestBeforeWaitedRuns(t *testing.T) {
	h := newLiveQueries(nil, 1)
	h.share = 0.5
	const took = 200 * time.Millisecond
	var mu sync.Mutex
	starts, ends := map[string]time.Time{}, map[string]time.Time{}
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		mu.Lock()
		key := lq.path
		if _, again := starts[key]; again {
			key += "-again"
		}
		starts[key] = time.Now()
		mu.Unlock()
		time.Sleep(took)
		mu.Lock()
		ends[key] = time.Now()
		mu.Unlock()
		return outcome{Value: json.RawMessage(`1`)}
	}
	u := &auth.Identity{Sub: "u"}
	mine := schedulerConn{id: u}
	h.subscribe(&querySub{id: 1, conn: mine}, "svc", "a", []byte(`{}`), u)
	time.Sleep(took / 4)
	h.subscribe(&querySub{id: 2, conn: mine}, "svc2", "b", []byte(`{}`), u) // a first run, queued behind a
	time.Sleep(took + took/2)                                               // a ended, b runs
	h.changed("svc")                                                        // a re-run, queued behind b
	waited := make(chan struct{})
	var asked time.Time
	go func() {
		// b ended and the slot rests (a re-run is next) when the awaited
		// run comes: the rest ends for it.
		for {
			mu.Lock()
			done := !ends["b"].IsZero()
			mu.Unlock()
			if done {
				break
			}
			time.Sleep(time.Millisecond)
		}
		time.Sleep(took / 4)
		mu.Lock()
		asked = time.Now()
		mu.Unlock()
		h.changedAndWait(context.Background(), mine, "svc2", nil) // b again, awaited: ahead of a's re-run
		close(waited)
	}()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("the awaited run did not end")
	}
	time.Sleep(3 * took)
	mu.Lock()
	defer mu.Unlock()
	if gap := starts["b"].Sub(ends["a"]); gap > took/2 {
		t.Fatalf("the first run started %v after the run before it ended", gap)
	}
	if gap := starts["b-again"].Sub(asked); asked.Before(ends["b"]) || gap > took/2 {
		t.Fatalf("the awaited run started %v after it was asked for, %v after the run before it ended", gap, starts["b-again"].Sub(ends["b"]))
	}
	if starts["a-again"].IsZero() || starts["a-again"].Sub(ends["b-again"]) < took*8/10 {
		t.Fatalf("the re-run started %v after the run before it ended, want a rest of about %v", starts["a-again"].Sub(ends["b-again"]), took)
	}
}

// A live query runs with a token of its own caller only. A socket whose
// identity changed (Authenticate) still has subscriptions on its previous
// identity's live queries until the loop moves them: a run meanwhile must not
// take the socket's new token, or one caller's answer would reach another's
// subscribers. An anonymous live query runs without a token; one whose
// callers' tokens all expired does not run as anonymous.
func TestLiveQueriesRunWithTheirOwnCallersToken(t *testing.T) {
	h := newLiveQueries(nil, 4)
	tokens := make(chan string, 10)
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		tokens <- token
		return outcome{Value: json.RawMessage(`1`)}
	}
	conn := func(sub string, expires time.Time) *syncConn {
		c := &syncConn{results: map[*querySub]*queryResult{}, wake: make(chan struct{}, 1)}
		c.auth.Store(&connAuth{token: "token-of-" + sub, identity: &auth.Identity{Sub: sub, Expires: expires}})
		return c
	}
	next := func() (string, bool) {
		select {
		case tok := <-tokens:
			return tok, true
		case <-time.After(300 * time.Millisecond):
			return "", false
		}
	}
	// The socket is "mallory" now; its subscription is still on alice's query.
	h.subscribe(&querySub{id: 1, conn: conn("mallory", time.Time{})}, "svc", "a.b.alice", []byte(`{}`), &auth.Identity{Sub: "alice"})
	if tok, ran := next(); ran && tok != "" {
		t.Fatalf("alice's live query ran with %q", tok)
	}
	// ... or still on the anonymous query it subscribed to before signing in.
	h.subscribe(&querySub{id: 2, conn: conn("mallory", time.Time{})}, "svc", "a.b.anon", []byte(`{}`), nil)
	if tok, ran := next(); !ran || tok != "" {
		t.Fatalf("the anonymous live query ran with %q (ran: %v)", tok, ran)
	}
	// A caller's own current token is used.
	h.subscribe(&querySub{id: 3, conn: conn("bob", time.Time{})}, "svc", "a.b.bob", []byte(`{}`), &auth.Identity{Sub: "bob"})
	if tok, ran := next(); !ran || tok != "token-of-bob" {
		t.Fatalf("bob's live query ran with %q (ran: %v)", tok, ran)
	}
	// Expired: no run as anonymous.
	h.subscribe(&querySub{id: 4, conn: conn("carol", time.Now().Add(-time.Second))}, "svc", "a.b.carol", []byte(`{}`), &auth.Identity{Sub: "carol"})
	if tok, ran := next(); ran {
		t.Fatalf("carol's live query ran with %q after her token expired", tok)
	}
}
