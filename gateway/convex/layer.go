// Package convex is the gateway's Convex layer: it answers Convex's own
// client libraries (the npm package convex: ConvexHttpClient, ConvexClient,
// ConvexReactClient) as a Convex deployment does (platform contract, section
// 8), and keeps their subscribed queries live.
//
// Files:
//
//	layer.go          the Layer, its Host and Config, what the host calls
//	convex.go         the HTTP shapes (/api/query|mutation|action with a Convex-Client header, /api/run), values, paths
//	clock.go          the sync protocol's timestamps, the socket counters
//	version.go        the sync protocol version the layer speaks, checked at connect
//	sync.go           a sync socket: its loop, reads and writes, mailbox
//	sync_messages.go  the sync protocol's messages on the wire
//	sync_queries.go   Connect, Authenticate, ModifyQuerySet: the query set and the identity
//	sync_mutations.go Mutation and Action
//	sync_limits.go    the caps on sockets, queries and the query budget
//	sync_flush.go     what the socket sends: values, answers, Transitions
//	live.go           live queries: shared runs, the run queue and budget
//	follow.go         the services' events, which re-run live queries
//
// # The layer and its host
//
// The layer imports nothing of the gateway. The gateway (its host) implements
// Host, one narrow interface:
//
//   - Invoke runs an operation for a caller through the routing table and the
//     owning service (the table's kind and access checks, then the service's
//     own), and answers its value or failure, the owning service, and the
//     read and write sets the service stated (opaque to the layer: the
//     headers X-Live-Reads and X-Live-Writes of its answer, "" when it
//     stated none);
//   - Owner names the service that owns an operation (a live query is kept
//     by service), or answers why there is none in the contract's words
//     (NOT_FOUND with suggestions, or the gateway's own refusal), which the
//     layer words as Convex does;
//   - Allow takes one call from a caller's rate limit (the same buckets as
//     the contract's endpoints: "sub:<subject>", or ratelimit.AnonymousKey).
//
// What is settings is Config, read from the CONVEX_* variables (the
// gateway's Config holds it) plus a few values the host fills in (its
// upstream timeout, its refresh interval, the brokers, its rate).
//
// The host calls the layer: Mount adds its routes to the app (before the
// host's own: requests without a Convex-Client header pass on), Declare
// records the topics a service declared on GET /ops, Invalidate says a
// service wrote (writes: the write set its answer stated, "" for unknown,
// which re-runs every live query of the service), Run runs the background
// loops (following the events, sweeping the query budget) until its context
// ends.
package convex

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"

	"marketplace/gateway/internal/ratelimit"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
)

// Host is what the layer needs from the gateway that mounts it.
type Host interface {
	// Invoke runs call through the routing table and the owning service.
	Invoke(ctx context.Context, call Call) Outcome
	// Owner is the service owning the public operation path and the
	// operation's kind, or the answer (in the contract's words) why no
	// service does.
	Owner(path string) (service string, kind ops.Kind, err *apperr.Error)
	// Allow takes one call from caller's rate limit.
	Allow(caller string) bool
}

// Call is one call of an operation for a Convex client.
type Call struct {
	Kind           ops.Kind // how it was called; "" (/api/run) takes the operation's own kind
	Path           string   // dotted
	Args           []byte   // a plain JSON object
	Token          string   // the raw bearer token, "" for none
	Identity       *auth.Identity
	IdempotencyKey string // mutations only
	RequestID      string
	IP             string // the client's address, forwarded to the service
}

// Outcome is an operation's answer: its value (valid JSON), or the failure.
type Outcome struct {
	Value json.RawMessage
	Err   *apperr.Error
	// Service owns the operation ("" when none does), Kind is the
	// operation's own.
	Service string
	Kind    ops.Kind
	// Reads and Writes are what the service stated it read and wrote (the
	// headers X-Live-Reads and X-Live-Writes of its answer); opaque here,
	// "" when it stated nothing.
	Reads, Writes string
}

// outcome is the name the layer's code uses.
type outcome = Outcome

// invocation is the name the layer's code uses.
type invocation = Call

// Config is the layer's part of the gateway's configuration.
type Config struct {
	MaxQueriesPerConnection int `env:"CONVEX_MAX_QUERIES_PER_CONNECTION" default:"500"`
	MaxConnectionsPerCaller int `env:"CONVEX_MAX_CONNECTIONS_PER_CALLER" default:"50"`
	// Sockets without a token: per IP address and per socket (0: as the
	// signed-in limits above). Every socket: per IP address and in all, and
	// the distinct live queries in all and of anonymous callers (0: no cap).
	AnonMaxConnectionsPerIP     int `env:"CONVEX_ANON_MAX_CONNECTIONS_PER_IP" default:"10"`
	AnonMaxQueriesPerConnection int `env:"CONVEX_ANON_MAX_QUERIES_PER_CONNECTION" default:"50"`
	MaxConnectionsPerIP         int `env:"CONVEX_MAX_CONNECTIONS_PER_IP" default:"1000"`
	MaxConnections              int `env:"CONVEX_MAX_CONNECTIONS" default:"10000"`
	MaxLiveQueries              int `env:"CONVEX_MAX_LIVE_QUERIES" default:"50000"`
	AnonMaxLiveQueries          int `env:"CONVEX_ANON_MAX_LIVE_QUERIES" default:"5000"`
	// The distinct live queries of one signed-in user across their sockets
	// (0: no cap).
	MaxLiveQueriesPerCaller int `env:"CONVEX_MAX_LIVE_QUERIES_PER_CALLER" default:"2000"`
	// Anonymous callers in all, whatever addresses they send from (the
	// per-address caps alone are passed by using many): their sockets, and
	// their subscriptions (a query id of a socket; subscriptions sharing a
	// live query count each), 0: no cap. Over them a socket closes as over
	// the per-address cap, a subscription fails with RATE_LIMITED.
	AnonMaxConnections   int `env:"CONVEX_ANON_MAX_CONNECTIONS" default:"2000"`
	AnonMaxSubscriptions int `env:"CONVEX_ANON_MAX_SUBSCRIPTIONS" default:"10000"`
	// The runs of anonymous callers' live queries, first runs and re-runs,
	// in all: at most AnonRunsPerSecond a second (a burst of as many; 0: no
	// bound) and AnonRunConcurrency at once (0: 1), within the run budget
	// below (live.go).
	AnonRunsPerSecond  float64 `env:"CONVEX_ANON_RUNS_PER_SECOND" default:"20"`
	AnonRunConcurrency int     `env:"CONVEX_ANON_RUN_CONCURRENCY" default:"1"`
	// A socket that has not authenticated this long after it opened counts
	// as anonymous for AnonMaxConnectionsPerIP (0: 5 s).
	AuthGrace time.Duration `env:"CONVEX_AUTH_GRACE" default:"5s"`
	// Sockets per IP address within AuthGrace, neither signed in nor counted
	// as anonymous yet (0: no cap).
	PendingMaxConnectionsPerIP int `env:"CONVEX_PENDING_MAX_CONNECTIONS_PER_IP" default:"100"`
	// Live query runs at once (live.go), and while ordinary requests are in
	// flight (0: 2 and 1).
	RerunConcurrency     int `env:"CONVEX_RERUN_CONCURRENCY" default:"2"`
	RerunConcurrencyBusy int `env:"CONVEX_RERUN_CONCURRENCY_BUSY" default:"1"`
	// The percentage of each run slot's time runs may take: after a run, the
	// slot rests in proportion (0 or 100: no rest).
	RerunSharePercent int `env:"CONVEX_RERUN_SHARE_PERCENT" default:"50"`

	// Set by the host, not read from the environment.

	// Brokers are those whose events refresh the live queries (the
	// program's KAFKA_ settings, or the all-in-one's own broker); none: only
	// writes through the gateway do.
	Brokers events.Brokers
	// QueriesPerSecond refills the per-caller budget of queries added over
	// sockets (the gateway's RATE_LIMIT_RPS).
	QueriesPerSecond float64
	// UpstreamTimeout bounds a socket's mutation and the wait for its
	// queries to show it (the gateway's GATEWAY_UPSTREAM_TIMEOUT).
	UpstreamTimeout time.Duration
	// TopicsInterval is how often the declared topics are looked at again
	// for partitions to follow (the gateway's GATEWAY_ROUTES_REFRESH).
	TopicsInterval time.Duration
	// Heartbeat is how long a socket stays silent before a Ping (0: 15 s,
	// Convex's HEARTBEAT_INTERVAL).
	Heartbeat time.Duration
}

// topicsInterval is TopicsInterval, 15 s when the host says nothing.
func (x *Layer) topicsInterval() time.Duration {
	if x.cfg.TopicsInterval > 0 {
		return x.cfg.TopicsInterval
	}
	return 15 * time.Second
}

// defaultHeartbeat is Config.Heartbeat when the host says nothing.
const defaultHeartbeat = 15 * time.Second

// Layer serves Convex's clients: the HTTP API, the sync protocol and the
// live queries behind it.
type Layer struct {
	host     Host
	cfg      Config
	verifier auth.Verifier
	logger   *slog.Logger

	clock tsClock
	live  *liveQueries
	conns connCounter
	// queries is the per-caller budget of queries added (or re-run by an
	// Authenticate) over sockets: MaxQueriesPerConnection at once, refilled at
	// QueriesPerSecond (sync_limits.go).
	queries *ratelimit.Limiter

	topics atomic.Pointer[map[string]ops.Topics] // what each service declared on /ops
	events *follower
	// legacy: service -> when a replica last showed it does not publish its
	// writes (markLegacy).
	legacy sync.Map
	// applied are the live events whose writes were applied from a
	// service's answer: read again on the live topic, they are skipped.
	applied recentIDs

	// requests counts the ordinary requests in flight (everything but the
	// sync sockets): while any is, live queries run one at a time (live.go).
	requests atomic.Int64

	shutdown     chan struct{} // closed when the app shuts down: sockets close
	shutdownOnce sync.Once
	heartbeat    time.Duration
}

// New builds the layer for host; verifier checks the tokens of sockets and
// HTTP calls (nil: none verifies).
func New(cfg Config, host Host, verifier auth.Verifier, logger *slog.Logger) *Layer {
	x := &Layer{host: host, cfg: cfg, verifier: verifier, logger: logger, shutdown: make(chan struct{}), heartbeat: cfg.Heartbeat}
	if x.heartbeat <= 0 {
		x.heartbeat = defaultHeartbeat
	}
	x.live = newLiveQueries(x, cfg.RerunConcurrency)
	x.live.maxLive, x.live.maxAnonymous, x.live.maxPerCaller = cfg.MaxLiveQueries, cfg.AnonMaxLiveQueries, cfg.MaxLiveQueriesPerCaller
	x.live.maxAnonSubs = cfg.AnonMaxSubscriptions
	x.live.anonRuns = newRunBudget(cfg.AnonRunsPerSecond)
	x.live.anonConcurrency = defaultAnonRunConcurrency
	if cfg.AnonRunConcurrency > 0 {
		x.live.anonConcurrency = cfg.AnonRunConcurrency
	}
	x.live.busy = func() bool { return x.requests.Load() > 0 }
	if cfg.RerunConcurrencyBusy > 0 {
		x.live.busyConcurrency = cfg.RerunConcurrencyBusy
	}
	if p := cfg.RerunSharePercent; p > 0 && p < 100 {
		x.live.share = float64(p) / 100
	}
	x.conns = connCounter{n: map[string]int{}}
	x.queries = ratelimit.New(cfg.QueriesPerSecond, cfg.MaxQueriesPerConnection)
	x.topics.Store(&map[string]ops.Topics{})
	x.events = newFollower(x)
	return x
}

// Declare records the topics a service declared (the host's routing table
// refresh, on each answer of the service).
func (x *Layer) Declare(service string, t ops.Topics) {
	if t.Live == "" {
		x.markLegacy(service) // a replica that does not publish its writes
	}
	for {
		old := x.topics.Load()
		next := make(map[string]ops.Topics, len(*old)+1)
		for k, v := range *old {
			next[k] = v
		}
		next[service] = t
		if x.topics.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Invalidate says service wrote: a write went through the gateway (its
// outcome known or not), or an event said so. writes is the write set its
// answer stated (Outcome.Writes, libs/liveset); "" is unknown. The live
// queries of the service whose reads it touches run again, with those that
// stated no reads; unknown writes run every one of them.
func (x *Layer) Invalidate(service string, writes string) {
	x.live.changedBy(service, x.writeSet(writes))
}

// Unstated says service answered a write without stating its write set (a
// replica of an older version): every live query of the service runs again,
// and for a while its domain events re-run them too (follow.go).
func (x *Layer) Unstated(service string) {
	x.markLegacy(service)
	x.live.changedBy(service, nil)
}

// legacyWindow is how long a sign of a replica that does not publish its
// writes (a declaration without a live topic, a write answered without a
// write set) keeps its service on the old rule for domain events.
const legacyWindow = 10 * time.Minute

func (x *Layer) markLegacy(service string) { x.legacy.Store(service, time.Now()) }

// isLegacy reports whether some replica of service may not publish its
// writes: then its domain events re-run its live queries as before.
func (x *Layer) isLegacy(service string) bool {
	at, ok := x.legacy.Load(service)
	return ok && time.Since(at.(time.Time)) < legacyWindow
}

// invalidateAndWait is Invalidate for a socket's own mutation, which is
// answered once the socket's queries the write touched have run again (until
// ctx ends).
func (x *Layer) invalidateAndWait(ctx context.Context, conn subscriber, service, writes string) {
	x.live.changedAndWait(ctx, conn, service, x.writeSet(writes))
}

// writeSet reads a service's statement of its writes (nil: unknown) and
// notes the live events it names as applied (follow.go skips them).
func (x *Layer) writeSet(writes string) *liveset.Writes {
	if writes == "" {
		return nil
	}
	w, err := liveset.DecodeWrites(writes)
	if err != nil {
		x.logger.Warn("live queries: a service stated its writes unreadably; re-running all its queries", "err", err)
		return nil
	}
	x.applied.add(w.IDs...)
	return &w
}

// changed re-runs the live queries of services.
func (x *Layer) changed(services ...string) { x.live.changed(services...) }

// Run runs the layer's background work until ctx ends: following the
// services' events (follow.go), and sweeping the query budget every
// TopicsInterval.
func (x *Layer) Run(ctx context.Context) {
	go x.followEvents(ctx)
	tick := time.NewTicker(x.topicsInterval())
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tick.C:
			x.queries.Sweep(now)
		}
	}
}

// Mount adds the layer's routes to app, before the host's own: its HTTP
// handlers pass requests without a Convex-Client header on.
func (x *Layer) Mount(app *fiber.App) {
	app.Use(x.countRequests)
	app.Post("/api/query", x.httpCall(ops.Query, false))
	app.Post("/api/mutation", x.httpCall(ops.Mutation, false))
	app.Post("/api/action", x.httpCall(kindAction, false))
	app.Post("/api/run/*", x.httpRun)
	app.Post("/api/query/*", x.httpCall(ops.Query, true))
	app.Post("/api/mutation/*", x.httpCall(ops.Mutation, true))
	sync := websocket.New(x.serveSync, websocket.Config{HandshakeTimeout: 10 * time.Second})
	upgrade := func(c *fiber.Ctx) error {
		if !websocket.IsWebSocketUpgrade(c) {
			return httpserver.WriteError(c, apperr.New(apperr.InvalidArgument, "%s is Convex's sync protocol: open it as a WebSocket", c.Path()))
		}
		return c.Next()
	}
	app.Get("/api/sync", upgrade, sync)
	app.Get("/api/:version/sync", upgrade, x.checkVersion, sync)
	app.Hooks().OnShutdown(func() error {
		x.shutdownOnce.Do(func() { close(x.shutdown) })
		return nil
	})
}

// Stats is what the layer holds now, for tests and the bench.
type Stats struct {
	LiveQueries, Subscriptions int
	// AnonymousLiveQueries are the live queries of anonymous callers,
	// AnonymousSubscriptions their subscriptions; Callers the signed-in
	// subjects with live queries.
	AnonymousLiveQueries, AnonymousSubscriptions, Callers int
	// AnonymousRuns are the runs of anonymous live queries since the start,
	// AnonymousQueued those waiting for the anonymous run budget now.
	AnonymousRuns   int64
	AnonymousQueued int
	// Sockets counts the open sockets by key: "*" all of them,
	// "sockets-of:<address key>" per address, "unsettled-of:<address key>"
	// those of an address without a caller yet, "<address key>" its
	// anonymous ones, "anonymous" those of every address and
	// "sub:<subject>" a user's.
	Sockets map[string]int
	// EventsRead are the services' events read since the start.
	EventsRead int64
}

// Stats reports what the layer holds now.
func (x *Layer) Stats() Stats {
	var st Stats
	st.LiveQueries, st.Subscriptions = x.live.stats()
	x.live.mu.Lock()
	st.AnonymousLiveQueries, st.AnonymousSubscriptions, st.Callers = x.live.anonymous, x.live.anonSubs, len(x.live.ofCaller)
	st.AnonymousRuns = x.live.anonRunsDone
	for _, c := range []int{classAnonFirst, classAnonymous} {
		for _, e := range x.live.queue[c] {
			if e.gen == e.lq.entry {
				st.AnonymousQueued++
			}
		}
	}
	x.live.mu.Unlock()
	x.conns.mu.Lock()
	st.Sockets = make(map[string]int, len(x.conns.n))
	for k, v := range x.conns.n {
		st.Sockets[k] = v
	}
	x.conns.mu.Unlock()
	st.EventsRead = x.events.seen.Load()
	return st
}

// recentIDs remembers ids for a while (at most recentIDsMax of them, the
// oldest forgotten first).
type recentIDs struct {
	mu    sync.Mutex
	set   map[string]struct{}
	order []string
}

const recentIDsMax = 100_000

func (r *recentIDs) add(ids ...string) {
	if len(ids) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.set == nil {
		r.set = map[string]struct{}{}
	}
	for _, id := range ids {
		if _, ok := r.set[id]; ok {
			continue
		}
		r.set[id] = struct{}{}
		r.order = append(r.order, id)
		if len(r.order) > recentIDsMax {
			delete(r.set, r.order[0])
			r.order = r.order[1:]
		}
	}
}

// taken reports whether id was added, and forgets it (an event is read once).
func (r *recentIDs) taken(id string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.set[id]; !ok {
		return false
	}
	delete(r.set, id)
	return true
}
