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
// Authentication: Authenticate verifies the token with the gateway's verifier
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
// (Layer.queries): MaxQueriesPerConnection at once, refilled at
// RATE_LIMIT_RPS a second; each query a ModifyQuerySet adds costs one, and an
// Authenticate that changes the caller costs one per live query (they all run
// again). A message over budget waits (the socket reads nothing meanwhile)
// until the budget covers it; one that would wait more than maxAdmissionWait
// closes the socket with TooManyConcurrentRequests, and the client reconnects
// after its backoff. A reconnect re-adding its whole query set fits the
// budget at once.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	fws "github.com/fasthttp/websocket"
	"github.com/gofiber/contrib/websocket"

	"marketplace/gateway/internal/ratelimit"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/ops"
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

// clientMessage is any client message; Type says which fields it uses.
type clientMessage struct {
	Type string `json:"type"`
	// Connect
	SessionID            string  `json:"sessionId"`
	MaxObservedTimestamp *string `json:"maxObservedTimestamp"`
	ClientTs             *int64  `json:"clientTs"`
	// Authenticate (and ModifyQuerySet's baseVersion)
	TokenType   string  `json:"tokenType"`
	Value       string  `json:"value"`
	BaseVersion *uint32 `json:"baseVersion"`
	// ModifyQuerySet
	NewVersion    *uint32             `json:"newVersion"`
	Modifications []queryModification `json:"modifications"`
	// Mutation, Action
	RequestID     *uint32         `json:"requestId"`
	UdfPath       string          `json:"udfPath"`
	Args          json.RawMessage `json:"args"`
	ComponentPath *string         `json:"componentPath"`
}

type queryModification struct {
	Type          string          `json:"type"`
	QueryID       *uint32         `json:"queryId"`
	UdfPath       string          `json:"udfPath"`
	Args          json.RawMessage `json:"args"`
	ComponentPath *string         `json:"componentPath"`
}

type stateVersion struct {
	QuerySet uint32 `json:"querySet"`
	Identity uint32 `json:"identity"`
	TS       string `json:"ts"`
	ts       uint64
}

// encodeTransition writes a Transition. The modifications are JSON already
// (a value is checked once, when its service answers), so they are copied,
// not encoded again: a value shared by a thousand subscriptions costs a copy
// each, not a parse.
func encodeTransition(start, end stateVersion, mods []json.RawMessage, skew *int64) []byte {
	n := 200
	for _, m := range mods {
		n += len(m) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, `{"type":"Transition","startVersion":`...)
	b = appendVersion(b, start)
	b = append(b, `,"endVersion":`...)
	b = appendVersion(b, end)
	b = append(b, `,"modifications":[`...)
	for i, m := range mods {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, m...)
	}
	b = append(b, `],"clientClockSkew":`...)
	if skew == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *skew, 10)
	}
	b = append(b, `,"serverTs":`...)
	b = strconv.AppendInt(b, time.Now().UnixNano(), 10)
	return append(b, '}')
}

func appendVersion(b []byte, v stateVersion) []byte {
	b = append(b, `{"querySet":`...)
	b = strconv.AppendUint(b, uint64(v.QuerySet), 10)
	b = append(b, `,"identity":`...)
	b = strconv.AppendUint(b, uint64(v.Identity), 10)
	b = append(b, `,"ts":"`...)
	b = append(b, v.TS...) // base64: nothing to escape
	return append(b, `"}`...)
}

// updatedModification is a QueryUpdated; value is valid JSON.
func updatedModification(id uint32, value json.RawMessage) json.RawMessage {
	b := make([]byte, 0, len(value)+80)
	b = append(b, `{"type":"QueryUpdated","queryId":`...)
	b = strconv.AppendUint(b, uint64(id), 10)
	b = append(b, `,"value":`...)
	b = append(b, value...)
	return append(b, `,"logLines":[],"journal":null}`...)
}

type queryFailed struct {
	Type         string          `json:"type"`
	QueryID      uint32          `json:"queryId"`
	ErrorMessage string          `json:"errorMessage"`
	LogLines     []string        `json:"logLines"`
	Journal      *string         `json:"journal"`
	ErrorData    json.RawMessage `json:"errorData"`
}

type queryRemoved struct {
	Type    string `json:"type"`
	QueryID uint32 `json:"queryId"`
}

// functionResponse is a MutationResponse or an ActionResponse.
type functionResponse struct {
	Type      string          `json:"type"`
	RequestID uint32          `json:"requestId"`
	Success   bool            `json:"success"`
	Result    json.RawMessage `json:"result"`
	TS        *string         `json:"ts,omitempty"`
	LogLines  []string        `json:"logLines"`
	ErrorData json.RawMessage `json:"errorData,omitempty"`
}

// closing ends a socket. As Convex's sync endpoint does: with a last message,
// an AuthError or, for a request the client must not repeat (a bad request),
// a FatalError, after which convex-js gives up; or with only a close frame
// (code and reason) for anything else, after which it reconnects with its
// whole state after a backoff chosen by the reason's prefix:
// TooManyConcurrentRequests (the per-caller limits; 3 s),
// TooManyConcurrentMutations (Convex's own, rate limited; 1 s), and
// InternalServerError for protocol states a real client never reaches
// (duplicate query id, removing an unknown one, versions that go backwards;
// Convex's internal errors, 1011; 1 s).
type closing struct {
	auth      bool
	code      int // a close frame of this code, message its reason; no last message
	message   string
	attempted bool // AuthError: in answer to an Authenticate
}

func (e *closing) Error() string { return e.message }

func fatal(format string, args ...any) *closing {
	return &closing{message: fmt.Sprintf(format, args...)}
}

// overLimit closes for a reconnect later (code 1013).
func overLimit(format string, args ...any) *closing {
	return &closing{code: fws.CloseTryAgainLater, message: fmt.Sprintf(format, args...)}
}

// inconsistent closes for a reconnect (code 1011), as Convex's internal errors.
func inconsistent(format string, args ...any) *closing {
	return &closing{code: fws.CloseInternalServerErr, message: "InternalServerError: " + fmt.Sprintf(format, args...)}
}

// connAuth is a socket's current identity.
type connAuth struct {
	token    string
	identity *auth.Identity
}

func (a *connAuth) identityOrNil() *auth.Identity {
	if a == nil {
		return nil
	}
	return a.identity
}

// versionStep is a version the socket reached in its messages; Transitions
// reach it once every query in awaiting has its first answer.
type versionStep struct {
	querySet, identity uint32
	awaiting           map[uint32]bool
}

type mutationRequest struct {
	requestID uint32
	path      string
	args      json.RawMessage
	component bool
	auth      *connAuth
	sessionID string
}

type pendingResponse struct {
	kind    string // MutationResponse or ActionResponse
	id      uint32
	out     outcome
	settled bool // a successful mutation whose settling began (connEvent.settling)
}

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
		c.x.conns.release(c.callerKey)
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

// token is the socket's bearer token for a live query of caller id: "" when
// the socket is not that caller (any more: an Authenticate moved it, and its
// subscriptions move in the loop after), when id is anonymous, or when the
// token expired.
func (c *syncConn) token(id *auth.Identity) string {
	a := c.auth.Load()
	if a == nil || id == nil || identityKey(a.identity) != identityKey(id) ||
		(!a.identity.Expires.IsZero() && time.Now().After(a.identity.Expires)) {
		return ""
	}
	return a.token
}

// expired reports whether the socket's token expired.
func (c *syncConn) expired() bool {
	a := c.auth.Load()
	return a != nil && !a.identity.Expires.IsZero() && time.Now().After(a.identity.Expires)
}

func (c *syncConn) identity() *auth.Identity {
	if a := c.auth.Load(); a != nil {
		return a.identity
	}
	return nil
}

func decodeClientMessage(raw []byte) (clientMessage, error) {
	var m clientMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, fatal("Received Invalid JSON on websocket: %v", err)
	}
	return m, nil
}

// admit charges a ModifyQuerySet's added queries to the caller's query
// budget, and says how long the message waits for it.
func (c *syncConn) admit(m clientMessage) (time.Duration, error) {
	if m.Type != "ModifyQuerySet" {
		return 0, nil
	}
	n := 0
	for _, mod := range m.Modifications {
		if mod.Type == "Add" {
			n++
		}
	}
	return c.charge(n)
}

// charge takes n queries from the caller's budget: the wait, or an error that
// closes the socket when it would be too long.
func (c *syncConn) charge(n int) (time.Duration, error) {
	wait, ok := c.x.queries.Reserve(c.callerKey, n, time.Now(), maxAdmissionWait)
	if !ok {
		return 0, overLimit("TooManyConcurrentRequests: too many queries added or re-run; retry later")
	}
	return wait, nil
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

func (c *syncConn) connect(m clientMessage) error {
	if m.SessionID == "" || len(m.SessionID) > maxSessionID || ops.CheckIdempotencyKey(m.SessionID) != nil {
		return fatal("Received Invalid JSON on websocket: Connect needs a sessionId of at most %d printable characters", maxSessionID)
	}
	c.sessionID = m.SessionID
	if m.ClientTs != nil {
		skew := *m.ClientTs - time.Now().UnixMilli()
		c.skew = &skew
	}
	if m.MaxObservedTimestamp != nil {
		if ts, err := decodeTS(*m.MaxObservedTimestamp); err == nil {
			c.x.clock.observe(ts)
		}
	}
	return nil
}

func (c *syncConn) authenticate(m clientMessage) error {
	if m.BaseVersion == nil || *m.BaseVersion != c.recvID {
		return inconsistent("Base identity version %v doesn't match the current version %d", deref(m.BaseVersion), c.recvID)
	}
	var next *connAuth
	switch m.TokenType {
	case "User":
		if c.x.verifier == nil {
			return &closing{auth: true, attempted: true, message: "AuthUpdateFailed: no token verifier is configured"}
		}
		id, err := c.x.verifier.Verify(context.Background(), m.Value)
		if err != nil {
			return &closing{auth: true, attempted: true, message: "AuthUpdateFailed: " + apperr.From(err).Message}
		}
		next = &connAuth{token: m.Value, identity: id}
	case "None":
	case "Admin":
		return &closing{auth: true, attempted: true, message: "AuthUpdateFailed: admin keys are not accepted: authenticate with a user's token"}
	default:
		return fatal("Received Invalid JSON on websocket: unknown tokenType %q", m.TokenType)
	}
	key := c.anon
	if next != nil {
		key = "sub:" + next.identity.Sub
	}
	if key != c.callerKey {
		if limit, what := c.x.socketLimit(key); !c.x.conns.acquire(key, limit) {
			return overLimit("TooManyConcurrentRequests: at most %d %s", limit, what)
		}
		if c.callerKey != "" {
			c.x.conns.release(c.callerKey)
		}
		c.callerKey = key
		c.settled()
	}
	prev := c.identity()
	if identityKey(prev) != identityKey(next.identityOrNil()) {
		// Every live query runs again as the new caller, and every query a cap
		// refused is tried again: charged like adding them. Over budget, it
		// goes ahead (the next Adds wait for the debt).
		again := 0
		for _, s := range c.queries {
			if s.lq != nil || s.capped {
				again++
			}
		}
		if _, err := c.charge(again); err != nil {
			return err
		}
	}
	if next == nil {
		c.auth.Store(nil)
	} else {
		c.auth.Store(next)
	}
	c.recvID++
	step := &versionStep{querySet: c.recvQS, identity: c.recvID, awaiting: map[uint32]bool{}}
	if identityKey(prev) != identityKey(c.identity()) {
		// Another caller: every query runs again as them, within their limits
		// (a socket that signs out keeps the first of its queries an anonymous
		// socket may hold; the others fail), and so does every query a cap
		// refused (a socket that signs in gets those an anonymous one could
		// not hold).
		limit := c.x.queryLimit(c.identity() == nil)
		ids := make([]uint32, 0, len(c.queries))
		for id := range c.queries {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		kept := 0
		for _, id := range ids {
			s := c.queries[id]
			if s.lq == nil && !s.capped {
				continue // failed for good (a bad path or arguments)
			}
			if s.lq != nil {
				c.x.live.unsubscribe(s)
				c.live--
			}
			fresh := &querySub{id: id, conn: c, service: s.service, path: s.path, args: s.args, sentHash: s.sentHash, sent: s.sent}
			c.queries[id] = fresh
			var fail *apperr.Error
			if kept >= limit {
				fail = tooManyQueries(limit)
			} else {
				fail = c.x.live.subscribe(fresh, s.service, s.path, s.args, c.identity())
			}
			if fail != nil {
				fresh.capped = true
				c.mods[id] = failedModification(id, fail)
				continue
			}
			kept++
			c.live++
			step.awaiting[id] = true
		}
	}
	c.steps = append(c.steps, step)
	c.authGen++
	if c.expiry != nil {
		c.expiry.Stop()
		c.expiry = nil
	}
	if next != nil && !next.identity.Expires.IsZero() {
		gen := c.authGen
		c.expiry = time.AfterFunc(time.Until(next.identity.Expires), func() { c.post(connEvent{expired: gen}) })
	}
	return nil
}

func (c *syncConn) modifyQuerySet(m clientMessage) error {
	if m.BaseVersion == nil || m.NewVersion == nil {
		return fatal("Received Invalid JSON on websocket: ModifyQuerySet needs baseVersion and newVersion")
	}
	if *m.BaseVersion != c.recvQS {
		return fatal("Base version %d passed up doesn't match the current version %d", *m.BaseVersion, c.recvQS)
	}
	if *m.NewVersion <= *m.BaseVersion {
		return inconsistent("the new query set version %d is not above %d", *m.NewVersion, *m.BaseVersion)
	}
	step := &versionStep{querySet: *m.NewVersion, identity: c.recvID, awaiting: map[uint32]bool{}}
	for _, mod := range m.Modifications {
		if mod.QueryID == nil {
			return fatal("Received Invalid JSON on websocket: %s needs a queryId", mod.Type)
		}
		id := *mod.QueryID
		switch mod.Type {
		case "Add":
			if _, dup := c.queries[id]; dup {
				return inconsistent("Duplicate query ID: %d", id)
			}
			path, err := functionPath(mod.UdfPath)
			if err != nil {
				return fatal("Received Invalid JSON on websocket: %s", apperr.From(err).Message)
			}
			s := &querySub{id: id, conn: c, path: path}
			c.queries[id] = s
			if fail := c.subscribe(s, mod); fail != nil {
				c.mods[id] = failedModification(id, fail)
				continue
			}
			step.awaiting[id] = true
		case "Remove":
			s, ok := c.queries[id]
			if !ok {
				return inconsistent("Nonexistent query id: %d", id)
			}
			if s.lq != nil {
				c.x.live.unsubscribe(s)
				c.live--
			}
			delete(c.queries, id)
			c.mods[id] = mustJSON(queryRemoved{Type: "QueryRemoved", QueryID: id})
			for _, st := range c.steps {
				delete(st.awaiting, id)
			}
			delete(step.awaiting, id) // added by this very message

		default:
			return fatal("Received Invalid JSON on websocket: unknown modification %q", mod.Type)
		}
	}
	c.recvQS = *m.NewVersion
	c.steps = append(c.steps, step)
	return nil
}

// subscribe starts s on its live query, or says why it fails at once.
func (c *syncConn) subscribe(s *querySub, mod queryModification) *apperr.Error {
	if mod.ComponentPath != nil && *mod.ComponentPath != "" {
		return apperr.New(apperr.InvalidArgument, "components are not supported: call %s without componentPath", convexName(s.path))
	}
	args, err := decodeArgs(mod.Args)
	if err != nil {
		return apperr.From(err)
	}
	service, _, fail := c.x.host.Owner(s.path)
	if fail != nil {
		return c.x.unknownFunction(s.path, fail)
	}
	s.service, s.args = service, args
	if limit := c.x.queryLimit(c.identity() == nil); c.live >= limit {
		s.capped = true
		return tooManyQueries(limit)
	}
	if fail := c.x.live.subscribe(s, service, s.path, args, c.identity()); fail != nil {
		s.capped = true
		return fail
	}
	c.live++
	return nil
}

func tooManyQueries(limit int) *apperr.Error {
	return apperr.New(apperr.RateLimited, "at most %d queries per connection", limit).
		WithDetails(map[string]any{"reason": "too_many_queries"})
}

// Keys of connCounter besides the callers' ("ip:<address>", "sub:<subject>").
const (
	allSocketsKey     = "*"
	ipSocketsKey      = "sockets-of:"
	pendingSocketsKey = "unsettled-of:" // sockets without a caller yet (AuthGrace)
)

// admitSocket counts a new socket against the caps in all and per IP
// address, or says why it closes. Its caller is counted once it is known
// (settleCaller, authenticate).
func (x *Layer) admitSocket(c *syncConn) error {
	cfg := x.cfg
	if !x.conns.acquire(allSocketsKey, cfg.MaxConnections) {
		return overLimit("TooManyConcurrentRequests: the server holds its most sockets (%d)", cfg.MaxConnections)
	}
	if !x.conns.acquire(ipSocketsKey+c.anon, cfg.MaxConnectionsPerIP) {
		x.conns.release(allSocketsKey)
		return overLimit("TooManyConcurrentRequests: at most %d sockets per IP address", cfg.MaxConnectionsPerIP)
	}
	if !x.conns.acquire(pendingSocketsKey+c.anon, cfg.PendingMaxConnectionsPerIP) {
		x.conns.release(allSocketsKey)
		x.conns.release(ipSocketsKey + c.anon)
		return overLimit("TooManyConcurrentRequests: at most %d sockets per IP address without a token yet", cfg.PendingMaxConnectionsPerIP)
	}
	c.unsettled = true
	return nil
}

// settleCaller counts a socket that has not authenticated as anonymous, per
// IP address, once it adds queries or calls functions: a client that signs in
// sends Authenticate before any of them (convex-js does), so its sockets never
// count against the anonymous limit. A socket that does neither counts as
// anonymous once AuthGrace passes (loop), so idle sockets are bounded per
// address like anonymous ones.
func (c *syncConn) settleCaller(m clientMessage) error {
	if c.callerKey != "" || (m.Type != "ModifyQuerySet" && m.Type != "Mutation" && m.Type != "Action") {
		return nil
	}
	return c.settleAnonymous()
}

// settleAnonymous counts the socket as its address's anonymous one, or says
// why it closes.
func (c *syncConn) settleAnonymous() error {
	key := c.anon
	if limit, what := c.x.socketLimit(key); !c.x.conns.acquire(key, limit) {
		return overLimit("TooManyConcurrentRequests: at most %d %s", limit, what)
	}
	c.callerKey = key
	c.settled()
	return nil
}

// settled ends the socket's count among its address's sockets without a
// caller yet (admitSocket), once it has one. Owned by the loop.
func (c *syncConn) settled() {
	if c.unsettled {
		c.unsettled = false
		c.x.conns.release(pendingSocketsKey + c.anon)
	}
}

// socketLimit is how many sockets caller key may hold: a signed-in user's
// ("sub:"), or an IP address's without a token ("ip:").
func (x *Layer) socketLimit(key string) (int, string) {
	if strings.HasPrefix(key, "ip:") && x.cfg.AnonMaxConnectionsPerIP > 0 {
		return x.cfg.AnonMaxConnectionsPerIP, "sockets without a token per IP address"
	}
	return x.cfg.MaxConnectionsPerCaller, "sockets per caller"
}

// authGrace is how long a socket may stay without a caller before it counts
// as anonymous.
func (x *Layer) authGrace() time.Duration {
	if g := x.cfg.AuthGrace; g > 0 {
		return g
	}
	return defaultAuthGrace
}

// defaultAuthGrace is AuthGrace when the settings say nothing.
const defaultAuthGrace = 5 * time.Second

// queryLimit is how many live queries a socket holds, anonymous or signed in.
func (x *Layer) queryLimit(anonymous bool) int {
	if anonymous && x.cfg.AnonMaxQueriesPerConnection > 0 {
		return x.cfg.AnonMaxQueriesPerConnection
	}
	return x.cfg.MaxQueriesPerConnection
}

func (c *syncConn) mutation(m clientMessage) error {
	if m.RequestID == nil {
		return fatal("Received Invalid JSON on websocket: Mutation needs a requestId")
	}
	path, err := functionPath(m.UdfPath)
	if err != nil {
		return fatal("Received Invalid JSON on websocket: %s", apperr.From(err).Message)
	}
	req := mutationRequest{requestID: *m.RequestID, path: path, args: m.Args, auth: c.auth.Load(), sessionID: c.sessionID,
		component: m.ComponentPath != nil && *m.ComponentPath != ""}
	if c.pending.Add(int64(len(m.Args))) > maxPendingMutations {
		return overLimit("TooManyConcurrentMutations: only up to %d MiB of arguments of pending mutations allowed on a single websocket",
			maxPendingMutations>>20)
	}
	select {
	case c.mutations <- req:
		return nil
	default:
		return overLimit("TooManyConcurrentMutations: only up to %d pending mutations allowed on a single websocket", maxQueuedMutation)
	}
}

// action answers an Action: the platform has none, so it names the function's kind.
func (c *syncConn) action(m clientMessage) error {
	if m.RequestID == nil {
		return fatal("Received Invalid JSON on websocket: Action needs a requestId")
	}
	path, err := functionPath(m.UdfPath)
	if err != nil {
		return fatal("Received Invalid JSON on websocket: %s", apperr.From(err).Message)
	}
	out := c.x.invoke(context.Background(), Call{Kind: kindAction, Path: path})
	c.responses = append(c.responses, pendingResponse{kind: "ActionResponse", id: *m.RequestID, out: out})
	return nil
}

// runMutations runs the socket's mutations one at a time, in order, as Convex does.
func (c *syncConn) runMutations() {
	for {
		select {
		case <-c.stop:
			return
		case req := <-c.mutations:
			out := c.runMutation(req)
			c.pending.Add(-int64(len(req.args)))
			c.post(connEvent{response: &pendingResponse{kind: "MutationResponse", id: req.requestID, out: out, settled: out.Err == nil}})
		}
	}
}

func (c *syncConn) runMutation(req mutationRequest) outcome {
	if req.component {
		return outcome{Err: apperr.New(apperr.InvalidArgument, "components are not supported: call %s without componentPath", convexName(req.path))}
	}
	args, err := decodeArgs(req.args)
	if err != nil {
		return outcome{Err: apperr.From(err)}
	}
	in := Call{Kind: ops.Mutation, Path: req.path, Args: args, IP: c.ip}
	caller := c.anon
	if req.auth != nil {
		in.Token, in.Identity = req.auth.token, req.auth.identity
		caller = "sub:" + req.auth.identity.Sub
		if req.sessionID != "" {
			in.IdempotencyKey = fmt.Sprintf("%s%s:%d", idemKeyPrefix, req.sessionID, req.requestID)
		}
	}
	if !c.x.host.Allow(caller) {
		return outcome{Err: apperr.New(apperr.RateLimited, "too many requests; retry shortly")}
	}
	timeout := c.x.cfg.UpstreamTimeout
	deadline := time.Now().Add(2 * timeout)
	var out outcome
	for {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		out = c.x.invoke(ctx, in)
		cancel()
		// A replay whose first run is still in flight (the socket dropped
		// while it ran) waits for its outcome.
		if out.Err == nil || out.Err.Code != apperr.FailedPrecondition || out.Err.Details["reason"] != ops.ReasonIdempotencyKeyInUse ||
			time.Now().After(deadline) {
			break
		}
		select {
		case <-c.stop:
			return out
		case <-time.After(50 * time.Millisecond):
		}
	}
	if out.Err != nil {
		c.x.logInternal(out.Err, "op", req.path, "sync", true)
		if outcomeUnknown(out.Err) {
			c.x.Invalidate(out.Service, "") // it may have written all the same
		}
		return out
	}
	c.post(connEvent{settling: true})
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	c.x.live.changedAndWait(ctx, c, out.Service)
	cancel()
	return out
}

// drain applies what the mailbox holds: live query values, answers of
// mutations, an expired token.
func (c *syncConn) drain() error {
	c.mu.Lock()
	results, events := c.results, c.events
	c.results, c.events = map[*querySub]*queryResult{}, nil
	c.mu.Unlock()
	for s, r := range results {
		if c.queries[s.id] != s {
			continue // removed, or replaced for another identity
		}
		if r.seq < s.seen {
			continue // older than what it showed
		}
		s.seen = r.seq
		if r.err != nil && r.err.Code == apperr.Unauthenticated && c.expired() {
			return &closing{auth: true, message: "TokenExpired: the token expired"}
		}
		switch {
		case s.sent && s.sentHash == r.hash:
			// The client has this answer already (a re-run for another identity
			// that answered the same): nothing to send, the version moves on.
		case r.err == nil:
			c.mods[s.id] = updatedModification(s.id, r.value)
		default:
			c.mods[s.id] = failedModification(s.id, r.err)
		}
		s.sent, s.sentHash = true, r.hash
		for _, st := range c.steps {
			delete(st.awaiting, s.id)
		}
	}
	for _, e := range events {
		switch {
		case e.settling:
			c.settling++
		case e.response != nil:
			c.responses = append(c.responses, *e.response)
			if e.response.settled {
				c.settling--
			}
		case e.expired != 0 && e.expired == c.authGen && c.identity() != nil:
			return &closing{auth: true, message: "TokenExpired: the token expired"}
		}
	}
	return nil
}

func failedModification(id uint32, e *apperr.Error) json.RawMessage {
	return mustJSON(queryFailed{Type: "QueryFailed", QueryID: id, ErrorMessage: e.Message, LogLines: []string{}, ErrorData: errorData(e)})
}

// flush sends the answers of mutations and actions, then a Transition when
// the client's state moved: new values, a version reached, or a mutation's ts
// to cover.
func (c *syncConn) flush() error {
	end := c.sent
	for len(c.steps) > 0 && len(c.steps[0].awaiting) == 0 {
		end.QuerySet, end.Identity = c.steps[0].querySet, c.steps[0].identity
		c.steps = c.steps[1:]
	}
	for _, r := range c.responses {
		msg := functionResponse{Type: r.kind, RequestID: r.id, Success: r.out.Err == nil, LogLines: []string{}}
		if r.out.Err == nil {
			msg.Result = r.out.Value
			if r.kind == "MutationResponse" {
				ts := encodeTS(c.x.clock.next())
				msg.TS = &ts
				c.transition = true
			}
		} else {
			msg.Result = mustJSON(r.out.Err.Message)
			msg.ErrorData = errorData(r.out.Err)
		}
		if err := c.write(msg); err != nil {
			return err
		}
	}
	c.responses = nil
	if c.settling > 0 {
		return nil // the Transition comes with the mutation's answer
	}
	if len(c.mods) == 0 && end.QuerySet == c.sent.QuerySet && end.Identity == c.sent.Identity && !c.transition {
		return nil
	}
	end.ts = c.x.clock.next()
	end.TS = encodeTS(end.ts)
	ids := make([]uint32, 0, len(c.mods))
	for id := range c.mods {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	mods := make([]json.RawMessage, len(ids))
	for i, id := range ids {
		mods[i] = c.mods[id]
	}
	if err := c.writeRaw(encodeTransition(c.sent, end, mods, c.skew)); err != nil {
		return err
	}
	c.sent = end
	c.mods = map[uint32]json.RawMessage{}
	c.transition = false
	return nil
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only our own message types are marshalled
	}
	return b
}

func deref(p *uint32) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
