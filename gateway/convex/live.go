package convex

// Live queries: what the sync protocol's subscriptions run on.
//
// A subscription names an operation, its arguments and, through its socket,
// the caller. Subscriptions that agree on all three (path, canonical arguments,
// caller identity: subject and roles, or anonymous) share one live query: it
// runs once per change, and its value goes to every subscription that shares
// it. A live query runs again when its service may have changed what it
// shows:
//
//   - a write of that service went through the gateway (a mutation over HTTP
//     or a socket, from any client, or a raw route such as the processor's
//     webhook);
//   - an event on a topic the service publishes (at once: it is published
//     after the write committed) or consumes (once the service's consumer
//     group has committed past it, so its effect is visible; follow.go).
//
// Re-runs are coalesced: a live query is queued at most once, and a change
// while it waits or runs makes one more run, however many changes came in
// between. A run whose value is the same as the last one pushes nothing.
//
// Runs are a budget apart from ordinary requests, so that live queries cannot
// starve them (a write re-runs every live query of its service, and thousands
// of distinct anonymous live queries would otherwise take every core): at most
// CONVEX_RERUN_CONCURRENCY runs go to the services at once,
// CONVEX_RERUN_CONCURRENCY_BUSY (one) while an ordinary request is in flight
// at the gateway, and each worker rests after a run so that runs take at most
// CONVEX_RERUN_SHARE_PERCENT of its time, unless the next run is one someone
// waits for (a signed-in caller's first run, a run a mutation waits for; one
// queued during a rest ends it). Anonymous first runs keep the rest: churning
// anonymous Adds must not take runs past the share. The rest wait in the queue:
// subscribers see a change later, requests keep their latency. The queue
// serves signed-in callers' first runs first (a subscriber waits for them),
// and runs a socket's mutation waits for (sync.go) with them; then signed-in
// callers' re-runs, then anonymous callers' first runs, then their re-runs
// (one pick in anonymousEvery goes to the anonymous classes while signed-in
// re-runs wait, so neither starves, and a churn of anonymous Adds cannot hold
// back signed-in re-runs); first in, first out within each.
// Anonymous callers' runs have a budget of their own within that one, in all
// whatever addresses they come from (issue 29: 5,000 distinct anonymous
// subscriptions from 10 addresses took the server from 3 % to 58 % CPU and
// /health's p95 from 3.9 to 51.6 ms): their first runs and re-runs take at
// most CONVEX_ANON_RUNS_PER_SECOND a second (a token bucket with a burst of
// as many; a run costs one more for each 16 KiB of its answer) and
// CONVEX_ANON_RUN_CONCURRENCY (one) run slot at once. An
// anonymous live query the budget holds back stays queued (coalesced, as
// every queued run), a worker takes signed-in runs meanwhile, and a timer
// brings a worker back when the budget has a run again. Their subscriptions
// are capped in all (CONVEX_ANON_MAX_SUBSCRIPTIONS), beside their distinct
// live queries.
// The distinct live queries are capped in all (CONVEX_MAX_LIVE_QUERIES), of
// anonymous callers (CONVEX_ANON_MAX_LIVE_QUERIES) and of one signed-in user
// across their sockets (CONVEX_MAX_LIVE_QUERIES_PER_CALLER): a subscription that
// would start one more fails with RATE_LIMITED; one that joins a live query
// running already always goes in.
//
// A run that failed for a passing reason (UNAVAILABLE,
// INTERNAL, RATE_LIMITED) is retried with backoff while anyone still listens;
// such a failure is pushed only as a query's first answer: after a value, the
// value stays until a run answers again (as Convex retries a query's system
// errors rather than failing the query).
//
// A live query of a signed-in caller runs with that caller's current token,
// taken from a subscribed socket that is still that caller; when none is (the
// tokens expired, and the sockets are about to close), it does not run. An
// anonymous live query runs without a token.

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
)

// defaultRerunConcurrency bounds the live query runs in flight at once when
// the settings say nothing (CONVEX_RERUN_CONCURRENCY).
const defaultRerunConcurrency = 2

// defaultAnonRunConcurrency bounds the runs of anonymous live queries in
// flight at once when the settings say nothing (CONVEX_ANON_RUN_CONCURRENCY).
const defaultAnonRunConcurrency = 1

// The queue's classes, in the order it prefers them (but one pick in
// anonymousEvery, which prefers the anonymous ones to signed-in re-runs).
const (
	classFirst     = iota // a signed-in caller's first run, or one a socket's mutation waits for
	classSignedIn         // a signed-in caller's re-run
	classAnonFirst        // an anonymous caller's first run
	classAnonymous        // an anonymous caller's re-run
	runClasses
)

// anonymousEvery: one pick in this many goes to the anonymous classes while
// signed-in re-runs wait; those picks take an anonymous first run and an
// anonymous re-run first in turn, so neither anonymous class starves either.
const anonymousEvery = 4

// Retry backoff of a live query whose run failed for a passing reason.
const (
	liveRetryFirst = time.Second
	liveRetryMax   = 30 * time.Second
)

// queryResult is a query's answer as subscribers get it; shared, never changed.
type queryResult struct {
	value json.RawMessage // on success
	err   *apperr.Error   // on failure
	reads string          // what the run read, as the service stated it (Outcome.Reads); "" for not stated
	hash  [32]byte
	seq   uint64 // the live query's results in order: a later one has a higher seq
}

func newQueryResult(out outcome) *queryResult {
	r := &queryResult{value: out.Value, err: out.Err, reads: out.Reads}
	h := sha256.New()
	if out.Err == nil {
		h.Write([]byte{1})
		h.Write(out.Value)
	} else {
		h.Write([]byte{0})
		h.Write(errorBody(out.Err))
	}
	copy(r.hash[:], h.Sum(nil))
	return r
}

// readSet is what the run read, nil when the service did not say (or said
// something unreadable).
func (r *queryResult) readSet() liveset.Reads {
	if r.reads == "" {
		return nil
	}
	rs, err := liveset.DecodeReads(r.reads)
	if err != nil || rs == nil {
		return nil
	}
	return rs
}

// transient reports a failure a later run may not repeat.
func (r *queryResult) transient() bool {
	if r.err == nil {
		return false
	}
	switch r.err.Code {
	case apperr.Unavailable, apperr.Internal, apperr.RateLimited:
		return true
	}
	return false
}

// subscriber receives a live query's values (a socket's subscription).
type subscriber interface {
	deliver(s *querySub, r *queryResult)
	// token is the subscriber's bearer token if it is caller id now and the
	// token has not expired; "" otherwise (always for an anonymous id).
	token(id *auth.Identity) string
}

// querySub is one subscription: a socket's query id on a live query.
type querySub struct {
	id      uint32
	conn    subscriber
	service string // the owning service, "" for a subscription failed at once
	path    string
	args    []byte
	lq      *liveQuery // nil for a subscription failed at once (bad path or arguments, a cap)
	// capped: refused for a cap (RATE_LIMITED, too many queries of the
	// socket or live queries in all); it is tried again when the socket's
	// caller changes.
	capped bool

	// Owned by the socket's loop: the seq of the last result it applied (an
	// older one arriving later is ignored), and the hash of the last answer it
	// sent (the same again is not sent, even from another live query after an
	// identity change).
	seen     uint64
	sentHash [32]byte
	sent     bool
}

type liveQuery struct {
	key, service, path string
	args               []byte
	identity           *auth.Identity

	// guarded by liveQueries.mu: the services whose indexes hold it
	readOf []string

	// guarded by liveQueries.mu
	subs    map[*querySub]struct{}
	result  *queryResult
	seq     uint64 // of result
	want    uint64 // runs asked for
	done    uint64 // the want a finished run started at
	running bool
	queued  bool   // in the run queue (at most once)
	class   int    // the queue class it waits in, while queued
	entry   uint64 // its current queue entry (queueEntry.gen); older ones are stale
	waiters []liveWaiter
	retry   *time.Timer
	backoff time.Duration
	// anonBudget: its run in flight holds a slot of the anonymous run budget.
	anonBudget bool
}

// queueEntry is a live query in the run queue; an entry whose gen is not
// the live query's entry any more is stale (it moved to a higher class) and
// is skipped.
type queueEntry struct {
	lq  *liveQuery
	gen uint64
}

type liveWaiter struct {
	gen uint64
	ch  chan struct{}
}

type liveQueries struct {
	x         *Layer
	mu        sync.Mutex
	byKey     map[string]*liveQuery
	byService map[string]map[*liveQuery]struct{}
	// By what they read (libs/liveset): per service, the live queries whose
	// last run stated its reads, indexed by them, and those whose did not
	// (or that have not run yet), which every write of the service re-runs;
	// and the runs in flight, which a write of their service always asks to
	// run again (what they read may predate it).
	reads     map[string]*readIndex[*liveQuery]
	unread    map[string]map[*liveQuery]struct{}
	running   map[*liveQuery]struct{}
	anonymous int            // live queries of anonymous callers
	anonSubs  int            // their subscriptions
	ofCaller  map[string]int // live queries of each signed-in subject
	// maxAnonSubs caps anonSubs (0: no cap).
	maxAnonSubs int
	// anonRuns bounds the runs of anonymous live queries a second (nil: no
	// bound), anonConcurrency those in flight (anonRunning); anonWake is the
	// timer that brings a worker back when anonRuns has a run again.
	anonRuns                     *runBudget
	anonConcurrency, anonRunning int
	anonWake                     *time.Timer
	anonRunsDone                 int64 // runs of anonymous live queries since the start
	// maxLive, maxAnonymous and maxPerCaller cap the distinct live queries
	// in all, of anonymous callers and of one signed-in subject (0: no cap).
	maxLive, maxAnonymous, maxPerCaller int
	// concurrency bounds the runs in flight; busyConcurrency while busy
	// reports ordinary requests in flight.
	concurrency, busyConcurrency int
	busy                         func() bool
	// share is the part of each worker's time runs may take (0 < share <= 1):
	// after a run of d, a worker rests d*(1-share)/share before the next.
	share float64
	// waited is closed (and replaced) when a run someone waits for is
	// queued: a resting worker stops resting for it.
	waited  chan struct{}
	queue   [runClasses][]queueEntry
	picks   int // queue pops, for anonymousEvery
	workers int // goroutines running the queue
	// timeout bounds one run (the services' own timeout is UpstreamTimeout).
	timeout time.Duration
	// run runs a live query once (x.invoke; tests replace it).
	run func(ctx context.Context, lq *liveQuery, token string) outcome
}

func newLiveQueries(x *Layer, concurrency int) *liveQueries {
	if concurrency <= 0 {
		concurrency = defaultRerunConcurrency
	}
	h := &liveQueries{x: x, byKey: map[string]*liveQuery{}, byService: map[string]map[*liveQuery]struct{}{}, ofCaller: map[string]int{},
		reads: map[string]*readIndex[*liveQuery]{}, unread: map[string]map[*liveQuery]struct{}{}, running: map[*liveQuery]struct{}{},
		concurrency: concurrency, busyConcurrency: 1, share: 1, timeout: 30 * time.Second, waited: make(chan struct{}),
		anonConcurrency: concurrency} // the layer bounds it (Config.AnonRunConcurrency)
	h.run = func(ctx context.Context, lq *liveQuery, token string) outcome {
		out := x.invoke(ctx, Call{Kind: ops.Query, Path: lq.path, Args: lq.args, Token: token, Identity: lq.identity})
		if out.Err != nil {
			x.logInternal(out.Err, "op", lq.path, "live", true)
		}
		return out
	}
	return h
}

// identityKey is the part of a caller a query's answer may depend on.
func identityKey(id *auth.Identity) string {
	if id == nil {
		return ""
	}
	roles := slices.Clone(id.Roles)
	slices.Sort(roles)
	return id.Sub + "\x00" + strings.Join(roles, "\x00")
}

// subscribe adds s to the live query of (path, args, identity) on service,
// creating and running it if new; a live query that already has a value
// hands it to s at once. A new live query over the caps is refused
// (RATE_LIMITED), and s stays without one.
func (h *liveQueries) subscribe(s *querySub, service, path string, args []byte, identity *auth.Identity) *apperr.Error {
	key := path + "\x01" + string(args) + "\x01" + identityKey(identity)
	h.mu.Lock()
	if identity == nil && h.maxAnonSubs > 0 && h.anonSubs >= h.maxAnonSubs {
		h.mu.Unlock()
		return apperr.New(apperr.RateLimited, "the server holds its most subscriptions of anonymous callers (%d); sign in or retry later", h.maxAnonSubs).
			WithDetails(map[string]any{"reason": "too_many_anonymous_subscriptions"})
	}
	lq := h.byKey[key]
	if lq == nil {
		if h.maxLive > 0 && len(h.byKey) >= h.maxLive {
			h.mu.Unlock()
			return apperr.New(apperr.RateLimited, "the server holds its most live queries (%d); retry later", h.maxLive).
				WithDetails(map[string]any{"reason": "too_many_live_queries"})
		}
		if identity == nil && h.maxAnonymous > 0 && h.anonymous >= h.maxAnonymous {
			h.mu.Unlock()
			return apperr.New(apperr.RateLimited, "the server holds its most live queries of anonymous callers (%d); sign in or retry later", h.maxAnonymous).
				WithDetails(map[string]any{"reason": "too_many_live_queries"})
		}
		if identity != nil && h.maxPerCaller > 0 && h.ofCaller[identity.Sub] >= h.maxPerCaller {
			h.mu.Unlock()
			return apperr.New(apperr.RateLimited, "at most %d live queries per user across their connections", h.maxPerCaller).
				WithDetails(map[string]any{"reason": "too_many_live_queries_per_caller"})
		}
		if identity == nil {
			h.anonymous++
		} else {
			h.ofCaller[identity.Sub]++
		}
		lq = &liveQuery{key: key, service: service, path: path, args: args, identity: identity, subs: map[*querySub]struct{}{}}
		h.byKey[key] = lq
		if h.byService[service] == nil {
			h.byService[service] = map[*liveQuery]struct{}{}
		}
		h.byService[service][lq] = struct{}{}
		h.setReads(lq, nil)
		h.touch(lq)
	}
	if lq.result == nil && !lq.running && !lq.queued {
		h.touch(lq) // its last run had nobody to run as
	}
	lq.subs[s] = struct{}{}
	if identity == nil {
		h.anonSubs++
	}
	s.lq = lq
	result := lq.result
	h.mu.Unlock()
	if result != nil {
		s.conn.deliver(s, result)
	}
	return nil
}

// unsubscribe removes s; a live query nobody listens to is dropped.
func (h *liveQueries) unsubscribe(s *querySub) {
	lq := s.lq
	if lq == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := lq.subs[s]; ok && lq.identity == nil {
		h.anonSubs--
	}
	delete(lq.subs, s)
	if len(lq.subs) > 0 || h.byKey[lq.key] != lq {
		return
	}
	delete(h.byKey, lq.key)
	if lq.identity == nil {
		h.anonymous--
	} else if h.ofCaller[lq.identity.Sub]--; h.ofCaller[lq.identity.Sub] <= 0 {
		delete(h.ofCaller, lq.identity.Sub)
	}
	if m := h.byService[lq.service]; m != nil {
		delete(m, lq)
		if len(m) == 0 {
			delete(h.byService, lq.service)
		}
	}
	h.forgetReads(lq)
	if lq.retry != nil {
		lq.retry.Stop()
	}
	for _, w := range lq.waiters {
		close(w.ch)
	}
	lq.waiters = nil
}

// setReads records what lq's last run read (reads nil: not stated): it is
// indexed by its reads of each service (its own, and those its calls
// read), or it waits in its service's fallback. h.mu is held.
func (h *liveQueries) setReads(lq *liveQuery, reads liveset.Reads) {
	h.forgetReads(lq)
	if reads == nil {
		if h.unread[lq.service] == nil {
			h.unread[lq.service] = map[*liveQuery]struct{}{}
		}
		h.unread[lq.service][lq] = struct{}{}
		return
	}
	bySvc := map[string]liveset.Reads{}
	for _, r := range reads {
		svc := r.Service
		if svc == "" {
			svc = lq.service
		}
		r.Service = ""
		bySvc[svc] = append(bySvc[svc], r)
	}
	for svc, rs := range bySvc {
		x := h.reads[svc]
		if x == nil {
			x = newReadIndex[*liveQuery]()
			h.reads[svc] = x
		}
		x.Set(lq, rs)
		lq.readOf = append(lq.readOf, svc)
	}
}

// forgetReads takes lq out of the indexes and the fallback. h.mu is held.
func (h *liveQueries) forgetReads(lq *liveQuery) {
	for _, svc := range lq.readOf {
		if x := h.reads[svc]; x != nil {
			if x.Remove(lq); x.Len() == 0 {
				delete(h.reads, svc)
			}
		}
	}
	lq.readOf = nil
	if m := h.unread[lq.service]; m != nil {
		if delete(m, lq); len(m) == 0 {
			delete(h.unread, lq.service)
		}
	}
}

// touchedBy calls fn for each live query of service that a write w may have
// changed (w nil: every one): those whose reads w touches, those that
// stated none, and those running. h.mu is held.
func (h *liveQueries) touchedBy(service string, w *liveset.Writes, fn func(*liveQuery)) {
	if w == nil || w.Unknown {
		for lq := range h.byService[service] {
			fn(lq)
		}
		return
	}
	seen := map[*liveQuery]bool{}
	each := func(lq *liveQuery) {
		if !seen[lq] {
			seen[lq] = true
			fn(lq)
		}
	}
	if x := h.reads[service]; x != nil {
		x.Touched(w, each)
	}
	for lq := range h.unread[service] {
		each(lq)
	}
	for lq := range h.running { // of any service: it may read this one's through a call
		each(lq)
	}
}

// changed asks every live query of services to run again.
func (h *liveQueries) changed(services ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, svc := range services {
		h.touchedBy(svc, nil, h.touch)
	}
}

// changedBy asks the live queries of service that w may have changed to run
// again (w nil: all of them).
func (h *liveQueries) changedBy(service string, w *liveset.Writes) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.touchedBy(service, w, h.touch)
}

// changedAndWait is changedBy, then waits (until ctx ends) for the runs it
// asked for of the live queries conn subscribes to: a socket's mutation is
// answered once the socket's own queries show its effect.
func (h *liveQueries) changedAndWait(ctx context.Context, conn subscriber, service string, w *liveset.Writes) {
	var wait []chan struct{}
	h.mu.Lock()
	h.touchedBy(service, w, func(lq *liveQuery) {
		// The waiter first: touch queues a live query someone waits for
		// with the first runs.
		for s := range lq.subs {
			if s.conn == conn {
				ch := make(chan struct{})
				lq.waiters = append(lq.waiters, liveWaiter{gen: lq.want + 1, ch: ch})
				wait = append(wait, ch)
				break
			}
		}
		h.touch(lq)
	})
	h.mu.Unlock()
	for _, ch := range wait {
		select {
		case <-ch:
		case <-ctx.Done():
			return
		}
	}
}

// touch asks for one more run of lq and queues it unless it is queued or
// running already (a running one queues itself again when it ends); a queued
// one that someone now waits for moves up to the first runs. h.mu is held.
func (h *liveQueries) touch(lq *liveQuery) {
	lq.want++
	if lq.running {
		return
	}
	c := classAnonymous
	switch {
	case len(lq.waiters) > 0 || (lq.result == nil && lq.identity != nil):
		c = classFirst
	case lq.result == nil:
		c = classAnonFirst
	case lq.identity != nil:
		c = classSignedIn
	}
	if lq.queued && lq.class <= c {
		return
	}
	lq.queued, lq.class = true, c
	lq.entry++
	h.queue[c] = append(h.queue[c], queueEntry{lq: lq, gen: lq.entry})
	if c == classFirst {
		close(h.waited)
		h.waited = make(chan struct{})
	}
	if h.workers < h.limit() {
		h.workers++
		go h.work()
	}
}

// limit is how many runs may be in flight now. h.mu is held.
func (h *liveQueries) limit() int {
	if h.busy != nil && h.busy() {
		return min(h.busyConcurrency, h.concurrency)
	}
	return h.concurrency
}

// pop takes the next live query to run, nil when none waits. h.mu is held.
func (h *liveQueries) pop() *liveQuery {
	h.picks++
	order := [runClasses]int{classFirst, classSignedIn, classAnonFirst, classAnonymous}
	switch {
	case h.picks%(2*anonymousEvery) == anonymousEvery:
		order = [runClasses]int{classFirst, classAnonFirst, classAnonymous, classSignedIn}
	case h.picks%anonymousEvery == 0:
		order = [runClasses]int{classFirst, classAnonymous, classAnonFirst, classSignedIn}
	}
	anonOK := h.anonAllowed()
	for _, c := range order {
		anon := c == classAnonFirst || c == classAnonymous
		if anon && !anonOK {
			continue
		}
		for q := h.queue[c]; len(q) > 0; q = h.queue[c] {
			e := q[0]
			q[0] = queueEntry{}
			h.queue[c] = q[1:]
			if e.gen != e.lq.entry {
				continue // stale: it moved to another class
			}
			if len(e.lq.subs) == 0 {
				e.lq.queued = false // dropped meanwhile
				continue
			}
			if anon {
				h.anonTake()
				e.lq.anonBudget = true
			}
			return e.lq
		}
	}
	if !anonOK {
		h.wakeForAnonymous()
	}
	return nil
}

// anonAllowed reports whether the anonymous run budget has a run now: a
// run slot of its own free and, when bounded, a run a second left. h.mu is
// held.
func (h *liveQueries) anonAllowed() bool {
	if h.anonRunning >= h.anonConcurrency {
		return false
	}
	return h.anonRuns == nil || h.anonRuns.wait(time.Now()) == 0
}

// anonTake spends one anonymous run (pop took one). h.mu is held.
func (h *liveQueries) anonTake() {
	h.anonRunning++
	h.anonRunsDone++
	if h.anonRuns != nil {
		h.anonRuns.take(time.Now())
	}
}

// wakeForAnonymous brings a worker back when the anonymous run budget has a
// run again, if anonymous runs wait for it (none is in flight: the end of
// one lets its worker go on). h.mu is held.
func (h *liveQueries) wakeForAnonymous() {
	if h.anonWake != nil || h.anonRunning >= h.anonConcurrency || h.anonRuns == nil ||
		(len(h.queue[classAnonFirst]) == 0 && len(h.queue[classAnonymous]) == 0) {
		return
	}
	h.anonWake = time.AfterFunc(h.anonRuns.wait(time.Now()), func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.anonWake = nil
		if h.workers < h.limit() && h.queued() {
			h.workers++
			go h.work()
		}
	})
}

// work runs queued live queries until the queue is empty or more workers run
// than the limit allows now.
func (h *liveQueries) work() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for h.workers <= h.limit() {
		lq := h.pop()
		if lq == nil {
			break
		}
		lq.queued = false
		if len(lq.subs) == 0 {
			continue // dropped meanwhile
		}
		took := h.runOnce(lq)
		if h.share > 0 && h.share < 1 && !h.waitedQueued() {
			// The rest keeps re-runs to their share; a run someone waits for
			// (a signed-in caller's first run, a run a mutation waits for)
			// goes without one, also when it is queued during the rest.
			waited := h.waited
			h.mu.Unlock()
			rest := time.NewTimer(time.Duration(float64(took) * (1 - h.share) / h.share))
			select {
			case <-rest.C:
			case <-waited:
				rest.Stop()
			}
			h.mu.Lock()
		}
		if h.workers < h.limit() && h.queued() {
			h.workers++
			go h.work() // the limit went up (no ordinary request in flight any more)
		}
	}
	h.workers--
}

// waitedQueued reports a run someone waits for in the queue (the first
// class: pop takes it next). h.mu is held.
func (h *liveQueries) waitedQueued() bool {
	q := h.queue[classFirst]
	for len(q) > 0 && (q[0].gen != q[0].lq.entry || len(q[0].lq.subs) == 0) {
		if q[0].gen == q[0].lq.entry {
			q[0].lq.queued = false // dropped meanwhile, as work skips it
		}
		q[0] = queueEntry{}
		q = q[1:] // stale (it moved) or dropped
	}
	h.queue[classFirst] = q
	return len(q) > 0
}

// queued reports entries in the queue (stale ones too). h.mu is held.
func (h *liveQueries) queued() bool {
	for _, q := range h.queue {
		if len(q) > 0 {
			return true
		}
	}
	return false
}

// runOnce runs lq once and hands out its value, and says how long the run
// took; h.mu is held on entry and exit, and released while the run is in
// flight.
func (h *liveQueries) runOnce(lq *liveQuery) time.Duration {
	lq.running = true
	h.running[lq] = struct{}{}
	gen := lq.want
	token := ""
	if lq.identity != nil {
		for s := range lq.subs {
			if token = s.conn.token(lq.identity); token != "" {
				break
			}
		}
	}
	h.mu.Unlock()

	var res *queryResult
	start := time.Now()
	if lq.identity == nil || token != "" {
		ctx, cancel := context.WithTimeout(context.Background(), h.timeout)
		res = newQueryResult(h.run(ctx, lq, token))
		cancel()
	}
	took := time.Since(start)

	h.mu.Lock()
	var targets []*querySub
	kept := res == nil || (res.transient() && lq.result != nil && lq.result.err == nil)
	if !kept && (lq.result == nil || lq.result.hash != res.hash) {
		lq.seq++
		res.seq = lq.seq
		lq.result = res
		for s := range lq.subs {
			targets = append(targets, s)
		}
	}
	lq.done = gen
	var ready []chan struct{}
	waiting := lq.waiters[:0]
	for _, w := range lq.waiters {
		if w.gen <= lq.done {
			ready = append(ready, w.ch)
		} else {
			waiting = append(waiting, w)
		}
	}
	lq.waiters = waiting
	if res != nil {
		h.scheduleRetry(lq, res)
		if h.byKey[lq.key] == lq {
			h.setReads(lq, res.readSet())
		}
	}
	lq.running = false
	delete(h.running, lq)
	if lq.anonBudget {
		lq.anonBudget = false
		h.anonRunning--
		if h.anonRuns != nil && res != nil {
			h.anonRuns.charge(time.Now(), res.size())
		}
	}
	if lq.want > gen && len(lq.subs) > 0 {
		lq.want-- // touch counts the run it queues; this one was asked for already
		h.touch(lq)
	}
	h.mu.Unlock()

	// Values first, then the waiters: a socket waiting on this run finds
	// the value in its mailbox before its mutation's answer.
	for _, s := range targets {
		s.conn.deliver(s, res)
	}
	for _, ch := range ready {
		close(ch)
	}
	h.mu.Lock()
	return took
}

// scheduleRetry arranges another run of a live query whose run failed for a
// passing reason. h.mu is held.
func (h *liveQueries) scheduleRetry(lq *liveQuery, res *queryResult) {
	if !res.transient() {
		lq.backoff = 0
		return
	}
	if lq.retry != nil {
		lq.retry.Stop()
	}
	lq.backoff = min(max(2*lq.backoff, liveRetryFirst), liveRetryMax)
	lq.retry = time.AfterFunc(lq.backoff, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.byKey[lq.key] == lq {
			h.touch(lq)
		}
	})
}

// stats reports the live queries and subscriptions (tests, the bench).
func (h *liveQueries) stats() (queries, subscriptions int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, lq := range h.byKey {
		queries++
		subscriptions += len(lq.subs)
	}
	return
}

// anonRunUnit is what one run of the anonymous budget buys: a run costs one,
// and one more for each anonRunUnit bytes of its answer (charged once the
// answer is known). Why: the work of a run grows with its answer (the
// service encodes it, the gateway reads and hashes it, each socket encodes
// and writes it again), and 5,000 distinct anonymous queries of pages of 40
// long reviews (about 200 KB each) cost at 20 runs a second what 700 runs
// of small answers do.
const anonRunUnit = 16 << 10

// size is the answer's size in bytes, its value's or its error's.
func (r *queryResult) size() int {
	if r.err != nil {
		return len(r.err.Message)
	}
	return len(r.value)
}

// runBudget is a token bucket of runs: rate a second, a burst of as many
// (at least one). A run takes one before it starts and is charged for its
// answer after (the bucket may go below zero: the next runs wait the
// longer). Not safe for concurrent use (liveQueries.mu guards it).
type runBudget struct {
	rate, burst, tokens float64
	at                  time.Time
}

// newRunBudget is a budget of rate runs a second; nil (no bound) when rate
// is not positive.
func newRunBudget(rate float64) *runBudget {
	if rate <= 0 {
		return nil
	}
	burst := max(rate, 1)
	return &runBudget{rate: rate, burst: burst, tokens: burst}
}

func (b *runBudget) refill(now time.Time) {
	if !b.at.IsZero() && now.After(b.at) {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.at).Seconds()*b.rate)
	}
	if b.at.IsZero() || now.After(b.at) {
		b.at = now
	}
}

// wait is how long until a run is available (0: now).
func (b *runBudget) wait(now time.Time) time.Duration {
	b.refill(now)
	if b.tokens >= 1 {
		return 0
	}
	return time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
}

// take spends a run.
func (b *runBudget) take(now time.Time) {
	b.refill(now)
	b.tokens--
}

// charge spends what an answer of size bytes costs beyond its run.
func (b *runBudget) charge(now time.Time, size int) {
	b.refill(now)
	b.tokens -= float64(size) / anonRunUnit
}
