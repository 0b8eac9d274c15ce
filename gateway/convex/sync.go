package convex

// Convex's sync protocol (convex-js src/browser/sync/protocol.ts; the server
// side is convex-backend's crates/sync), on GET /api/sync and
// /api/<client version>/sync. One socket per client; JSON text messages.
//
// Client → server:
//
//	Connect          sessionId (kept for the whole session, across reconnects), clientTs, maxObservedTimestamp
//	Authenticate     tokenType User (value: a JWT) or None, baseVersion (the identity version it builds on)
//	ModifyQuerySet   baseVersion → newVersion, modifications Add {queryId, udfPath, args: [args]} / Remove {queryId}
//	Mutation, Action requestId, udfPath, args: [args]
//	Event            client metrics; ignored
//
// Server → client:
//
//	Transition       startVersion → endVersion {querySet, identity, ts}, modifications
//	                 QueryUpdated {queryId, value} / QueryFailed {queryId, errorMessage, errorData} / QueryRemoved
//	MutationResponse requestId, success, result (the value, or the error message), ts, errorData
//	ActionResponse   requestId, success, result, errorData
//	AuthError        error, baseVersion, authUpdateAttempted; the socket then closes
//	FatalError       error; the socket then closes and the client gives up
//	Ping             after 15 s without any other message
//
// Versions: each Transition starts exactly where the last ended (the client
// checks). endVersion.querySet (identity) reaches a query set (identity)
// version only once every query it added (or must run again for the new
// identity) has its first answer; answers that come earlier ride along under
// the older version. ts is nanoseconds since the epoch (tsClock), base64 of its
// 8 little-endian bytes, and grows with every Transition. A successful
// mutation's MutationResponse carries a ts and is always followed by a
// Transition with a later one: the client resolves the mutation's promise
// only then, so the mutation is answered once this socket's own queries of the
// owning service have run again (or UpstreamTimeout passed), and the
// Transition after it shows the mutation's effect.
//
// Reconnects: the client sends Connect with the same sessionId, its identity,
// its whole query set and every mutation it has no answer for, with their
// requestIds. A mutation goes to its service with the Idempotency-Key
// "convex-sync:<sessionId>:<requestId>" (platform contract, section 2), so the
// owning service keeps its outcome for 24 hours per caller and a replay gets
// the kept outcome instead of running again; a replay that meets its first
// run still in flight (the socket dropped while it ran) waits for it. Keys
// are scoped per caller, so this holds for signed-in callers (every mutation
// of the platform needs one).
//
// Authentication: Authenticate verifies the token with the layer's verifier
// (a token that fails, an expired one included, answers AuthError with
// authUpdateAttempted true, as Convex does); every query and mutation then
// goes to its service with that token, which verifies it again and applies its
// own access rules. When the token expires, the socket answers AuthError with
// authUpdateAttempted false: the client fetches a fresh token and
// reconnects. A live query shared by several sockets runs with the token of
// a socket that is its caller at that moment (syncConn.token), never with
// that of a socket that has just authenticated as someone else.
//
// Limits: MaxQueriesPerConnection live queries per signed-in socket and
// AnonMaxQueriesPerConnection per socket without a token (more answer
// QueryFailed with RATE_LIMITED, too_many_queries; the distinct live queries
// in all are capped too, live.go), MaxConnectionsPerCaller sockets per
// signed-in subject, AnonMaxConnectionsPerIP sockets without a token per IP
// address (a socket counts as anonymous once it adds a query or calls a
// function before any Authenticate, or once AuthGrace passes without one;
// until then it counts among PendingMaxConnectionsPerIP),
// MaxLiveQueriesPerCaller distinct live queries per signed-in subject across
// its sockets (live.go), MaxConnectionsPerIP sockets of any kind
// per IP address and MaxConnections in all (more close with
// TooManyConcurrentRequests, see closing), 1,000 mutations and 8 MiB of their
// arguments waiting per socket (more close with TooManyConcurrentMutations, as
// Convex does),
// messages of at most 4 MiB; mutations count against the caller's rate limit
// like HTTP calls. Queries draw on a budget of their own per caller
// (Layer.queries, sync_limits.go): MaxQueriesPerConnection at once, refilled at
// RATE_LIMIT_RPS a second; each query a ModifyQuerySet adds costs one, and an
// Authenticate that changes the caller costs one per live query (they all run
// again). A message over budget waits (the socket reads nothing meanwhile)
// until the budget covers it; one that would wait more than maxAdmissionWait
// closes the socket with TooManyConcurrentRequests, and the client reconnects
// after its backoff. A reconnect re-adding its whole query set fits the
// budget at once.

import (
	"encoding/json"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	fws "github.com/fasthttp/websocket"
	"github.com/gofiber/contrib/websocket"

	"marketplace/gateway/internal/ratelimit"
)

const (
	writeTimeout        = 10 * time.Second // a client that reads nothing this long is gone
	maxClientMessage    = 4 << 20          // bytes
	maxQueuedMutation   = 1000             // as Convex's OPERATION_QUEUE_BUFFER_SIZE
	maxPendingMutations = 8 << 20          // bytes of arguments of a socket's unanswered mutations
	readAhead           = 2                // messages read before the loop takes them
	maxAdmissionWait    = 30 * time.Second // the longest a message waits for the query budget
	idemKeyPrefix       = "convex-sync:"   // Idempotency-Key of a socket's mutations
	maxSessionID        = 100              // characters; Convex's are UUIDs
)

// readTimeout: a client silent this long (not even a pong) is gone.
func (c *syncConn) readTimeout() time.Duration { return 4 * c.x.heartbeat }

// syncConn is one socket. Its loop goroutine owns the protocol state; live
// queries and the mutation worker hand it results through the mailbox.
type syncConn struct {
	x    *Layer
	ws   *fws.Conn
	ip   string
	anon string // the key of the socket's address (anonymousCaller): per IP address limits
	log  *slog.Logger

	auth atomic.Pointer[connAuth]

	mu      sync.Mutex // the mailbox
	results map[*querySub]*queryResult
	events  []connEvent
	wake    chan struct{}

	in         chan []byte
	readerDone chan struct{}
	mutations  chan mutationRequest
	pending    atomic.Int64 // bytes of arguments of unanswered mutations
	stop       chan struct{}

	// owned by the loop
	sessionID  string
	skew       *int64
	recvQS     uint32
	recvID     uint32
	sent       stateVersion
	queries    map[uint32]*querySub
	live       int // queries with a live query behind them
	steps      []*versionStep
	mods       map[uint32]json.RawMessage
	responses  []pendingResponse
	transition bool // a Transition is owed (after a successful mutation)
	settling   int  // successful mutations whose queries are running again
	lastWrite  time.Time
	lastPing   time.Time
	callerKey  string
	authGen    uint64
	expiry     *time.Timer
	held       *clientMessage // a message waiting for the query budget
	unsettled  bool           // counted among its address's sockets without a caller yet
}

type connEvent struct {
	response *pendingResponse
	expired  uint64 // the authGen whose token expired
	// settling: a mutation succeeded and its socket's queries run again;
	// Transitions wait for its answer, so they come with it.
	settling bool
}

func newSyncConn(x *Layer, ws *fws.Conn, ip string) *syncConn {
	return &syncConn{
		x: x, ws: ws, ip: ip, anon: ratelimit.AnonymousKey(ip), log: x.logger.With("sync", true),
		results: map[*querySub]*queryResult{}, wake: make(chan struct{}, 1),
		in: make(chan []byte, readAhead), readerDone: make(chan struct{}), mutations: make(chan mutationRequest, maxQueuedMutation),
		stop: make(chan struct{}), queries: map[uint32]*querySub{}, mods: map[uint32]json.RawMessage{},
		sent: stateVersion{TS: encodeTS(0)}, lastWrite: time.Now(), lastPing: time.Now(),
	}
}

func (x *Layer) serveSync(wc *websocket.Conn) {
	c := newSyncConn(x, wc.Conn, wc.IP())
	if msg, _ := wc.Locals(refusedKey).(string); msg != "" {
		c.end(fatal("%s", msg)) // its client version (version.go)
		c.ws.Close()
		return
	}
	if err := x.admitSocket(c); err != nil {
		c.end(err)
		c.ws.Close()
		return
	}
	go c.read()
	go c.runMutations()
	c.end(c.loop())
	c.cleanup()
}

// loop runs the protocol until the socket ends; the error says how.
func (c *syncConn) loop() error {
	tick := time.NewTicker(c.x.heartbeat / 3)
	defer tick.Stop()
	hold := time.NewTimer(0)
	<-hold.C
	defer hold.Stop()
	grace := time.NewTimer(c.x.authGrace())
	defer grace.Stop()
	for {
		in := c.in
		if c.held != nil {
			in = nil // the held message goes first
		}
		select {
		case raw, ok := <-in:
			if !ok {
				return nil // the client went away
			}
			m, err := decodeClientMessage(raw)
			if err != nil {
				return err
			}
			if err := c.settleCaller(m); err != nil {
				return err
			}
			wait, err := c.admit(m)
			if err != nil {
				return err
			}
			if wait > 0 {
				c.held = &m
				hold.Reset(wait)
				break
			}
			if err := c.handle(m); err != nil {
				return err
			}
		case <-hold.C:
			m := *c.held
			c.held = nil
			if err := c.handle(m); err != nil {
				return err
			}
		case <-grace.C:
			if c.callerKey == "" {
				if err := c.settleAnonymous(); err != nil {
					return err
				}
			}
		case <-c.wake:
		case <-tick.C:
			if time.Since(c.lastWrite) >= c.x.heartbeat {
				if err := c.write(map[string]string{"type": "Ping"}); err != nil {
					return nil
				}
			}
			// A WebSocket ping too, whatever else is sent: the client's pong
			// keeps the read deadline of a client that has nothing to say.
			if time.Since(c.lastPing) >= c.x.heartbeat {
				c.lastPing = time.Now()
				_ = c.ws.WriteControl(fws.PingMessage, nil, time.Now().Add(writeTimeout))
			}
		case <-c.x.shutdown:
			_ = c.ws.WriteControl(fws.CloseMessage, fws.FormatCloseMessage(fws.CloseGoingAway, "the gateway is shutting down"),
				time.Now().Add(time.Second))
			return nil
		}
		if err := c.drain(); err != nil {
			return err
		}
		if err := c.flush(); err != nil {
			return nil // the client does not read: it is gone
		}
	}
}

// end sends the last message of a socket that closes with one.
func (c *syncConn) end(err error) {
	cl, ok := err.(*closing)
	if !ok || cl == nil {
		return
	}
	if cl.code != 0 {
		c.log.Info("sync: closing for a reconnect", "code", cl.code, "err", cl.message)
		_ = c.flush()
		reason := cl.message
		if len(reason) > 123 { // the most a close frame holds
			reason = reason[:123]
		}
		_ = c.ws.WriteControl(fws.CloseMessage, fws.FormatCloseMessage(cl.code, reason), time.Now().Add(time.Second))
		return
	}
	var msg any = map[string]string{"type": "FatalError", "error": cl.message}
	if cl.auth {
		msg = map[string]any{"type": "AuthError", "error": cl.message, "baseVersion": c.recvID, "authUpdateAttempted": cl.attempted}
		c.log.Info("sync: authentication refused", "err", cl.message, "attempted", cl.attempted)
	} else {
		c.log.Info("sync: closing with a fatal error", "err", cl.message)
	}
	_ = c.flush() // what was answered already goes first
	_ = c.write(msg)
	_ = c.ws.WriteControl(fws.CloseMessage, fws.FormatCloseMessage(fws.CloseNormalClosure, ""), time.Now().Add(time.Second))
}

func (c *syncConn) cleanup() {
	close(c.stop)
	for _, s := range c.queries {
		c.x.live.unsubscribe(s)
	}
	if c.expiry != nil {
		c.expiry.Stop()
	}
	if c.callerKey != "" {
		c.x.releaseCaller(c.callerKey)
	}
	c.settled()
	c.x.conns.release(allSocketsKey)
	c.x.conns.release(ipSocketsKey + c.anon)
	c.ws.Close()
	<-c.readerDone // the reader must not outlive the handler (the socket goes back to a pool)
}

// read hands the client's messages to the loop.
func (c *syncConn) read() {
	defer close(c.readerDone)
	defer close(c.in)
	c.ws.SetReadLimit(maxClientMessage)
	_ = c.ws.SetReadDeadline(time.Now().Add(c.readTimeout()))
	c.ws.SetPongHandler(func(string) error { return c.ws.SetReadDeadline(time.Now().Add(c.readTimeout())) })
	for {
		kind, data, err := c.ws.ReadMessage()
		if err != nil {
			return
		}
		_ = c.ws.SetReadDeadline(time.Now().Add(c.readTimeout()))
		if kind != fws.TextMessage {
			return // the protocol is text only
		}
		select {
		case c.in <- data:
		case <-c.stop:
			return
		}
	}
}

func (c *syncConn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.writeRaw(b)
}

func (c *syncConn) writeRaw(b []byte) error {
	_ = c.ws.SetWriteDeadline(time.Now().Add(writeTimeout))
	c.lastWrite = time.Now()
	return c.ws.WriteMessage(fws.TextMessage, b)
}

// deliver is a live query's new value for s (any goroutine). Deliveries of
// one live query may arrive out of order (subscribe hands over the last value
// outside the live queries' lock): the mailbox keeps the latest.
func (c *syncConn) deliver(s *querySub, r *queryResult) {
	c.mu.Lock()
	if old := c.results[s]; old == nil || old.seq < r.seq {
		c.results[s] = r
	}
	c.mu.Unlock()
	c.signal()
}

func (c *syncConn) post(e connEvent) {
	c.mu.Lock()
	c.events = append(c.events, e)
	c.mu.Unlock()
	c.signal()
}

func (c *syncConn) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func (c *syncConn) handle(m clientMessage) error {
	switch m.Type {
	case "Connect":
		return c.connect(m)
	case "Authenticate":
		return c.authenticate(m)
	case "ModifyQuerySet":
		return c.modifyQuerySet(m)
	case "Mutation":
		return c.mutation(m)
	case "Action":
		return c.action(m)
	case "Event":
		return nil // the client's own metrics
	}
	return fatal("Received Invalid JSON on websocket: unknown message type %q", m.Type)
}
