package gateway

// Convex's clients (platform contract, section 8). The interface's first apps
// were written for Convex, with its npm package (ConvexHttpClient, ConvexClient,
// ConvexReactClient); the gateway answers them as a Convex deployment does, so
// an app moves here by changing its deployment URL:
//
//	POST /api/query, /api/mutation, /api/action   with a Convex-Client header
//	POST /api/run/<area>/<module>/<function>      always
//	GET  /api/sync, /api/<client version>/sync    the WebSocket sync protocol (sync.go)
//
// Requests without the header keep the contract's shapes (section 2): the
// handlers below pass them on to the gateway's own.
//
// How an HTTP answer is chosen (Convex's public_api.rs does the same split):
//
//	malformed request (body, path, format, args)   400, the contract's error body
//	a presented token that does not verify         401, the contract's error body
//	the operation answered                         200 {status:"success", value, logLines:[]}
//	the operation failed (any code, the gateway's   200 {status:"error", errorMessage,
//	  own refusals for it included)                      errorData:{code, ...details}, logLines:[]}
//
// ConvexHttpClient throws the text of a non-2xx answer as an Error, and turns
// errorData into a ConvexError whose data.code is the contract's code.

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/contrib/websocket"
	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
)

// HeaderConvexClient is the header Convex's clients send with every request
// ("npm-1.48.0"); its presence selects Convex's answer shapes.
const HeaderConvexClient = "Convex-Client"

// convexSide serves Convex's clients: the HTTP API, the sync protocol and the
// live queries behind it.
type convexSide struct {
	g     *Gateway
	clock tsClock
	live  *liveQueries
	conns connCounter
	// queries is the per-caller budget of queries added (or re-run by an
	// Authenticate) over sockets: MaxQueriesPerConnection at once, refilled at
	// RateLimitRPS a second (sync.go).
	queries *limiter

	topics atomic.Pointer[map[string]ops.Topics] // what each service declared on /ops
	events *follower

	// requests counts the ordinary requests in flight (everything but the
	// sync sockets): while any is, live queries run one at a time (live.go).
	requests atomic.Int64

	shutdown     chan struct{} // closed when the app shuts down: sockets close
	shutdownOnce sync.Once
	heartbeat    time.Duration
}

func newConvexSide(g *Gateway) *convexSide {
	x := &convexSide{g: g, shutdown: make(chan struct{}), heartbeat: heartbeatInterval}
	x.live = newLiveQueries(x, g.cfg.RerunConcurrency)
	x.live.maxLive, x.live.maxAnonymous, x.live.maxPerCaller = g.cfg.MaxLiveQueries, g.cfg.AnonMaxLiveQueries, g.cfg.MaxLiveQueriesPerCaller
	x.live.busy = func() bool { return x.requests.Load() > 0 }
	if g.cfg.RerunConcurrencyBusy > 0 {
		x.live.busyConcurrency = g.cfg.RerunConcurrencyBusy
	}
	if p := g.cfg.RerunSharePercent; p > 0 && p < 100 {
		x.live.share = float64(p) / 100
	}
	x.conns = connCounter{n: map[string]int{}}
	x.queries = newLimiter(g.cfg.RateLimitRPS, g.cfg.MaxQueriesPerConnection)
	x.topics.Store(&map[string]ops.Topics{})
	x.events = newFollower(x)
	return x
}

// declare records the topics a service declared (Refresh, on each answer).
func (x *convexSide) declare(service string, t ops.Topics) {
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

// changed re-runs the live queries of services (a write went through the
// gateway, or an event said so).
func (x *convexSide) changed(services ...string) { x.live.changed(services...) }

// afterWrite is deferred by the gateway's own handlers of writes: when the
// service accepted the write, or its outcome is unknown (a 5xx: the service
// failed, or answered after the upstream timeout), its live queries run again.
func (x *convexSide) afterWrite(c *fiber.Ctx, service string) {
	if st := c.Response().StatusCode(); st < 400 || st >= 500 {
		x.changed(service)
	}
}

// countRequests counts the ordinary requests in flight (x.requests).
func (x *convexSide) countRequests(c *fiber.Ctx) error {
	if strings.HasSuffix(c.Path(), "/sync") {
		return c.Next()
	}
	x.requests.Add(1)
	defer x.requests.Add(-1)
	return c.Next()
}

// outcomeUnknown reports a failed write that may have written all the same:
// the gateway gave up waiting for the service (UNAVAILABLE), or the service
// failed partway (INTERNAL).
func outcomeUnknown(e *apperr.Error) bool {
	return e.Code == apperr.Unavailable || e.Code == apperr.Internal
}

func (x *convexSide) mount(app *fiber.App) {
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
	app.Get("/api/:version/sync", upgrade, sync)
	app.Hooks().OnShutdown(func() error {
		x.shutdownOnce.Do(func() { close(x.shutdown) })
		return nil
	})
}

// kindAction is how /api/action and the Action message call a function. The
// platform has no actions: every operation is a query or a mutation.
const kindAction ops.Kind = "action"

// httpCall answers /api/query, /api/mutation and /api/action for requests
// with a Convex-Client header; the others go on to the contract's handlers.
// byURL: an operation's own path (OperationURL), whose URL names it and
// whose body is its arguments, answered in Convex's shapes as /api/run is
// but with the kind checked as on /api/query and /api/mutation.
func (x *convexSide) httpCall(kind ops.Kind, byURL bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(c.Request().Header.Peek(HeaderConvexClient)) == 0 {
			return c.Next()
		}
		var req convexRequest
		err := PlainBody(c) // before c.Body(), which would inflate it
		if err == nil && byURL {
			req.path, err = operationOfURL(c, kind)
			req.args = c.Body()
		} else if err == nil {
			req, err = parseConvexBody(c.Body(), true)
		}
		return x.answerHTTP(c, kind, req, err)
	}
}

// httpRun answers POST /api/run/<module path>/<function>: any kind of
// function, its path in the URL, JSON ("json") values by default.
func (x *convexSide) httpRun(c *fiber.Ctx) error {
	req, err := parseRunRequest(c)
	return x.answerHTTP(c, "", req, err)
}

// parseRunRequest reads /api/run's function path and body.
func parseRunRequest(c *fiber.Ctx) (convexRequest, error) {
	raw := strings.TrimPrefix(string(c.Request().URI().PathOriginal()), "/api/run/")
	parts := strings.Split(raw, "/")
	for i, p := range parts {
		d, err := url.PathUnescape(p)
		if err != nil {
			return convexRequest{}, apperr.New(apperr.InvalidArgument, "the function path %q is not valid URL path escaping", raw)
		}
		parts[i] = d
	}
	if len(parts) < 2 {
		return convexRequest{}, apperr.New(apperr.InvalidArgument,
			"name the function in the URL: /api/run/<area>/<module>/<function>, e.g. /api/run/catalog/locations/listCities")
	}
	if err := PlainBody(c); err != nil { // before c.Body(), which would inflate it
		return convexRequest{}, err
	}
	req, err := parseConvexBody(c.Body(), false)
	if err != nil {
		return req, err
	}
	req.path = strings.Join(parts[:len(parts)-1], "/") + ":" + parts[len(parts)-1]
	return req, nil
}

// convexRequest is a Convex HTTP body: { path, args, format } (/api/run has
// no path). Other keys (ts, componentPath) are ignored, as Convex does.
type convexRequest struct {
	path string
	args json.RawMessage
}

func parseConvexBody(body []byte, needPath bool) (convexRequest, error) {
	var r convexRequest
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil || m == nil {
		msg := "body must be a JSON object { path, args, format }"
		if err != nil {
			msg += ": " + err.Error()
		}
		return r, apperr.New(apperr.InvalidArgument, "%s", msg)
	}
	if dec.More() {
		return r, apperr.New(apperr.InvalidArgument, "body must hold exactly one JSON object")
	}
	if needPath {
		if err := json.Unmarshal(m["path"], &r.path); err != nil || r.path == "" {
			return r, apperr.Invalid("path", "is required: the function's path, e.g. \"catalog/locations:listCities\"")
		}
	}
	r.args = m["args"]
	if f, ok := m["format"]; ok && string(f) != "null" {
		var format string
		if err := json.Unmarshal(f, &format); err != nil || !valueFormats[format] {
			return r, apperr.Invalid("format", "must be one of json, convex_encoded_json (or their aliases convex_clean_json, convex_json, export_json)")
		}
	}
	return r, nil
}

// valueFormats are the formats Convex accepts. Our values are plain JSON
// (numbers, strings, booleans, null, arrays, objects), which read the same in
// every one of them, so the format changes nothing in an answer.
var valueFormats = map[string]bool{
	"json": true, "convex_clean_json": true, "convex_encoded_json": true, "convex_json": true, "export_json": true,
}

// answerHTTP runs a request for a Convex client (parsed, or refused with
// malformed) and writes Convex's shape. Refused requests count against the
// caller's rate limit too, as on the contract's endpoints.
func (x *convexSide) answerHTTP(c *fiber.Ctx, kind ops.Kind, req convexRequest, malformed error) error {
	var path string
	var args []byte
	err := malformed
	if err == nil {
		path, err = functionPath(req.path)
	}
	if err == nil {
		c.Locals("op", path)
		args, err = decodeArgs(req.args)
	}
	header := c.Get(fiber.HeaderAuthorization)
	ctx := c.UserContext()
	if err == nil {
		// Convex answers a bad token with a 401 too.
		ctx, err = ops.Identify(ctx, x.g.verifier, header)
	}
	caller := anonymousCaller(c.IP())
	id := auth.FromContext(ctx)
	if id != nil {
		caller = "sub:" + id.Sub
	}
	if !x.g.limiter.allow(caller, time.Now()) {
		c.Set(fiber.HeaderRetryAfter, "1")
		return x.writeConvex(c, outcome{err: apperr.New(apperr.RateLimited, "too many requests; retry shortly")})
	}
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	idemKey, _, err := ops.IdempotencyKeyOf(&c.Request().Header)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	rid, _ := c.Locals("requestid").(string)
	out := x.invoke(c.UserContext(), invocation{
		called: kind, path: path, args: args, token: bearerToken(header), identity: id,
		idemKey: idemKey, requestID: rid, ip: c.IP(),
	})
	if out.kind == ops.Mutation && (out.err == nil || outcomeUnknown(out.err)) {
		x.changed(out.service)
	}
	if out.err != nil && out.err.Code == apperr.Unavailable {
		c.Set(fiber.HeaderRetryAfter, "5")
	}
	return x.writeConvex(c, out)
}

func bearerToken(header string) string {
	tok, ok, err := auth.BearerToken(header)
	if err != nil || !ok {
		return ""
	}
	return tok
}

// writeConvex writes an outcome in Convex's UdfResponse shape.
func (x *convexSide) writeConvex(c *fiber.Ctx, out outcome) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	if out.err == nil {
		return c.Send(successBody(out.value))
	}
	rid, _ := c.Locals("requestid").(string)
	x.logInternal(out.err, "request_id", rid, "op", c.Locals("op"))
	return c.Send(errorBody(out.err))
}

// logInternal logs the cause of an INTERNAL failure the gateway itself made
// (one a service answered, the service logged).
func (x *convexSide) logInternal(e *apperr.Error, attrs ...any) {
	if e.Code == apperr.Internal && apperr.Describe(e) != e.Error() {
		x.g.logger.Error("internal error", append(attrs, "err", apperr.Describe(e))...)
	}
}

func successBody(value json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteString(`{"status":"success","value":`)
	b.Write(value)
	b.WriteString(`,"logLines":[]}`)
	return b.Bytes()
}

func errorBody(e *apperr.Error) []byte {
	b, _ := json.Marshal(struct {
		Status       string          `json:"status"`
		ErrorMessage string          `json:"errorMessage"`
		ErrorData    json.RawMessage `json:"errorData"`
		LogLines     []string        `json:"logLines"`
	}{"error", e.Message, errorData(e), []string{}})
	return b
}

// errorData is the ConvexError data of a failure: { code, ...details }.
func errorData(e *apperr.Error) json.RawMessage {
	m := make(map[string]any, len(e.Details)+1)
	for k, v := range e.Details {
		m[k] = v
	}
	m["code"] = string(e.Code)
	b, err := json.Marshal(m)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"code": string(e.Code)})
	}
	return b
}

// invocation is one call of an operation for a Convex client.
type invocation struct {
	called    ops.Kind // how it was called; "" (/api/run) takes the operation's own kind
	path      string   // dotted
	args      []byte   // a plain JSON object
	token     string   // the raw bearer token, "" for none
	identity  *auth.Identity
	idemKey   string
	requestID string
	ip        string
}

// outcome is an operation's answer: its value, or the failure.
type outcome struct {
	value   json.RawMessage
	err     *apperr.Error
	service string
	kind    ops.Kind
}

// invoke runs an operation through the gateway's routing table and the owning
// service, with the same rules as POST /api/query and /api/mutation: the
// table's kind and access checks, then the service's own.
func (x *convexSide) invoke(ctx context.Context, in invocation) outcome {
	r, ok := x.g.lookup(in.path)
	if !ok {
		return outcome{err: x.g.unknownFunction(in.path)}
	}
	out := outcome{service: r.service, kind: r.kind}
	called := in.called
	switch called {
	case "":
		called = r.kind
	case kindAction:
		out.err = apperr.New(apperr.InvalidArgument, "%s is a %s, not an action: call it as a %s", convexName(in.path), r.kind, r.kind)
		return out
	}
	if in.identity != nil {
		ctx = auth.WithIdentity(ctx, in.identity)
	}
	if err := ops.CheckCall(ctx, r.kind, r.access, called, in.path); err != nil {
		out.err = apperr.From(err)
		return out
	}
	body, err := json.Marshal(struct {
		Path string          `json:"path"`
		Args json.RawMessage `json:"args"`
	}{in.path, in.args})
	if err != nil {
		out.err = apperr.Wrap(err, apperr.Internal, "internal error")
		return out
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.Header.SetMethod(fiber.MethodPost)
	req.Header.SetContentType(fiber.MIMEApplicationJSON)
	if in.token != "" {
		req.Header.Set(fiber.HeaderAuthorization, "Bearer "+in.token)
	}
	if in.idemKey != "" && r.kind == ops.Mutation {
		req.Header.Set(ops.HeaderIdempotencyKey, in.idemKey)
	}
	if in.requestID != "" {
		req.Header.Set(httpserver.HeaderRequestID, in.requestID)
	}
	if in.ip != "" {
		req.Header.Set("X-Forwarded-For", in.ip)
	}
	req.SetBodyRaw(body)
	if err := x.g.send(ctx, r.service, "/api/"+string(r.kind), req, resp); err != nil {
		x.g.logger.Warn("upstream unavailable", "service", r.service, "err", err)
		out.err = apperr.New(apperr.Unavailable, "%s is unavailable; retry shortly", r.service)
		return out
	}
	if status := resp.StatusCode(); status >= 200 && status < 300 {
		out.value = append(json.RawMessage(nil), bytes.TrimSpace(resp.Body())...)
		if len(out.value) == 0 {
			out.value = json.RawMessage("null")
		}
		// Checked once here: answers copy the value into their JSON as is.
		if !json.Valid(out.value) {
			out.value, out.err = nil, apperr.Wrap(fmt.Errorf("%s answered %d with a body that is not JSON: %.200q", r.service, status, resp.Body()),
				apperr.Internal, "internal error")
		}
		return out
	}
	e, ok := apperr.Parse(resp.StatusCode(), resp.Body())
	if !ok {
		out.err = apperr.Wrap(fmt.Errorf("%s answered %d with %.200q", r.service, resp.StatusCode(), resp.Body()),
			apperr.Internal, "internal error")
		return out
	}
	out.err = e
	return out
}

// unknownFunction is the answer for a path no service declares (or an
// internal one), in Convex's words, with the contract's code and the nearest
// public names (details.suggestions); or the UNAVAILABLE of an operation of
// a contract version the gateway does not serve (versions.go).
func (g *Gateway) unknownFunction(path string) *apperr.Error {
	if refused := g.refusal(path); refused != nil {
		return refused
	}
	d := map[string]any{"reason": ops.ReasonUnknownOperation}
	if near := g.suggest(path); len(near) > 0 {
		d["suggestions"] = near
	}
	return apperr.New(apperr.NotFound, "Could not find public function for '%s'.", convexName(path)).WithDetails(d)
}

// Function paths. Convex names a function "<module path>:<function>", where
// the module path is a file path ("stores/reviews", "stores/reviews.js"); a
// path without ":" names the module's default export. Our operations are
// "<area>.<module>.<function>". The dotted form is accepted as well.

var pathSegment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// functionPath turns a client's function path into the dotted operation path.
func functionPath(p string) (string, error) {
	bad := func(why string) error {
		return apperr.Invalid("path", "%q is not a valid path to a function: %s", p, why)
	}
	if len(p) > maxOperationPath {
		return "", bad("too long")
	}
	var segments []string
	if strings.ContainsAny(p, "/:") {
		module, fn := p, "default"
		if i := strings.LastIndexByte(p, ':'); i >= 0 {
			module, fn = p[:i], p[i+1:]
		}
		module = strings.TrimSuffix(module, ".js")
		segments = append(strings.Split(module, "/"), fn)
	} else {
		segments = strings.Split(p, ".")
		if len(segments) < 3 {
			return "", bad(`use "<area>/<module>:<function>"`)
		}
	}
	for _, s := range segments {
		if !pathSegment.MatchString(s) {
			return "", bad(`use "<area>/<module>:<function>" with names of letters, digits and _`)
		}
	}
	return strings.Join(segments, "."), nil
}

// convexName is a dotted operation path as Convex writes it ("a/b:c").
func convexName(dotted string) string {
	i := strings.LastIndexByte(dotted, '.')
	if i < 0 {
		return dotted
	}
	return strings.ReplaceAll(dotted[:i], ".", "/") + ":" + dotted[i+1:]
}

// Values. Convex's clients send arguments in its encoded JSON: plain JSON,
// except for values JSON cannot hold, which are one-key objects: {"$integer":
// base64 of a little-endian int64} (a BigInt), {"$float": base64 of a
// little-endian float64} (NaN, ±Infinity, -0), {"$bytes": base64}. Field
// names starting with "$" are reserved. Convex decodes arguments this way
// whatever the request's format, and so do we: an int64 becomes a JSON
// number, -0 stays -0 (a whole-number argument reads it as 0), bytes become their
// base64 string; NaN and infinities
// have no JSON form and are refused. The services then check the arguments as
// for any other call. Our answers are plain JSON, which every format reads as is.

// decodeArgs turns Convex's args (an object, a one-element array holding one,
// or nothing) into the plain JSON object the services read.
func decodeArgs(raw json.RawMessage) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return []byte("{}"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, apperr.Invalid("args", "must be JSON: %v", err)
	}
	if dec.More() {
		return nil, apperr.Invalid("args", "must be one JSON value")
	}
	if list, ok := v.([]any); ok {
		switch len(list) {
		case 0:
			return []byte("{}"), nil
		case 1:
			v = list[0]
		default:
			return nil, apperr.Invalid("args", "a function takes one arguments object, not %d values", len(list))
		}
	}
	plain, err := decodeValue(v, "args")
	if err != nil {
		return nil, err
	}
	// Checked on the decoded value: {"$integer": ...} is an object in JSON, a
	// number in Convex's encoding.
	if _, ok := plain.(map[string]any); !ok {
		return nil, apperr.Invalid("args", "must be an object of named arguments")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(plain); err != nil {
		return nil, apperr.Invalid("args", "%v", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// decodeValue converts one encoded value; at names it for errors.
func decodeValue(v any, at string) (any, error) {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			d, err := decodeValue(e, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, err
			}
			out[i] = d
		}
		return out, nil
	case map[string]any:
		if len(t) == 1 {
			for k, e := range t {
				if strings.HasPrefix(k, "$") {
					return decodeSpecial(k, e, at)
				}
			}
		}
		out := make(map[string]any, len(t))
		for k, e := range t {
			if strings.HasPrefix(k, "$") {
				return nil, apperr.Invalid(at, "field name %q starts with a '$', which is reserved", k)
			}
			d, err := decodeValue(e, at+"."+k)
			if err != nil {
				return nil, err
			}
			out[k] = d
		}
		return out, nil
	}
	return v, nil
}

func decodeSpecial(key string, v any, at string) (any, error) {
	s, ok := v.(string)
	if !ok {
		return nil, apperr.Invalid(at, "%s must hold a base64 string", key)
	}
	switch key {
	case "$integer", "$float":
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(b) != 8 {
			return nil, apperr.Invalid(at, "%s must be the base64 of 8 little-endian bytes", key)
		}
		bits := binary.LittleEndian.Uint64(b)
		if key == "$integer" {
			return json.Number(strconv.FormatInt(int64(bits), 10)), nil
		}
		f := math.Float64frombits(bits)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, apperr.Invalid(at, "%v is not a number the platform accepts", f)
		}
		return json.Number(strconv.FormatFloat(f, 'g', -1, 64)), nil
	case "$bytes":
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return nil, apperr.Invalid(at, "$bytes must hold base64")
		}
		return s, nil
	}
	return nil, apperr.Invalid(at, "%s values are not supported (field names starting with '$' are reserved)", key)
}

// tsClock hands out the sync protocol's timestamps: nanoseconds since the Unix
// epoch, strictly growing. Taken from the wall clock (max(last+1, now)), they
// also grow across restarts, and across gateways whose clocks agree.
type tsClock struct{ last atomic.Uint64 }

func (c *tsClock) next() uint64 {
	for {
		last := c.last.Load()
		n := max(uint64(time.Now().UnixNano()), last+1)
		if c.last.CompareAndSwap(last, n) {
			return n
		}
	}
}

// observe moves the clock up to a timestamp a client saw (from another
// gateway whose clock runs ahead), so this one never answers older ones. A
// timestamp far in the future is ignored: a client must not stop the clock.
func (c *tsClock) observe(ts uint64) {
	if ts > uint64(time.Now().Add(time.Minute).UnixNano()) {
		return
	}
	for {
		last := c.last.Load()
		if ts <= last || c.last.CompareAndSwap(last, ts) {
			return
		}
	}
}

// encodeTS is a timestamp on the wire: base64 of its 8 little-endian bytes.
func encodeTS(ts uint64) string {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], ts)
	return base64.StdEncoding.EncodeToString(b[:])
}

func decodeTS(s string) (uint64, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(b) != 8 {
		return 0, errors.New("a timestamp is the base64 of 8 little-endian bytes")
	}
	return binary.LittleEndian.Uint64(b), nil
}

// connCounter bounds the sockets one caller holds open.
type connCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *connCounter) acquire(key string, limit int) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if limit > 0 && c.n[key] >= limit {
		return false
	}
	c.n[key]++
	return true
}

func (c *connCounter) release(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n[key]--; c.n[key] <= 0 {
		delete(c.n, key)
	}
}
