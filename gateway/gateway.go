// Package gateway is the public entry point: it routes /api/query and
// /api/mutation by operation path to the owning service, and forwards the raw
// HTTP routes services declare (the processor's webhook, media uploads and
// downloads) by their exact method and path; the routing table is fetched
// from each service's own declarations. It verifies bearer tokens, applies
// CORS and per-caller rate limits. Internal operations do not exist here.
//
// Convex's clients are served by the Convex layer, package
// marketplace/gateway/convex (its HTTP shapes, the sync socket, live
// queries, following the services' events), which imports nothing of this
// package: the gateway is its host (convexhost.go implements convex.Host:
// Invoke, Owner, Allow) and calls Mount, Declare, Invalidate and Run.
// GATEWAY_CONVEX=off runs the gateway without it. The rate limiter and what
// both read from a request (PlainBody, an operation named by its URL) are in
// gateway/internal.
package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"marketplace/gateway/apischema"
	"marketplace/gateway/convex"
	"marketplace/gateway/internal/ratelimit"
	"marketplace/gateway/internal/request"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
	"marketplace/libs/telemetry"
	build "marketplace/libs/version"
	"marketplace/web/console"
)

// HealthMessage is the fixed body of GET /health.
const HealthMessage = "Backend is healthy"

// Config is the gateway's part of a program's configuration.
type Config struct {
	Services        []string      `env:"GATEWAY_SERVICES"` // default: every module (deploy/modules)
	UpstreamTimeout time.Duration `env:"GATEWAY_UPSTREAM_TIMEOUT" default:"10s"`
	RefreshInterval time.Duration `env:"GATEWAY_ROUTES_REFRESH" default:"15s"`
	RateLimitRPS    float64       `env:"RATE_LIMIT_RPS" default:"50"`
	RateLimitBurst  int           `env:"RATE_LIMIT_BURST" default:"100"`
	// Convex clients: GATEWAY_CONVEX "on" (or unset) serves them with the
	// Convex layer (package convex), "off" runs the gateway without it (no
	// sync socket, no Convex-Client shapes); Convex its settings, the
	// CONVEX_* variables (New fills in the values it takes from the
	// gateway's own).
	ConvexLayer string `env:"GATEWAY_CONVEX" default:"on"`
	Convex      convex.Config
	// The console and the portal (console.go): production sign-in's provider.
	Console console.Config
}

// validateConvex refuses a GATEWAY_CONVEX other than on or off.
func (c Config) validateConvex() error {
	if c.ConvexLayer != "" && c.ConvexLayer != "on" && c.ConvexLayer != "off" {
		return fmt.Errorf("GATEWAY_CONVEX: %q is neither on nor off", c.ConvexLayer)
	}
	return nil
}

type route struct {
	service string
	kind    ops.Kind
	access  ops.Access
	desc    ops.Descriptor // as declared: schemas for the OpenAPI document (openapi.go)
}

// rawRoute is a raw HTTP route a service declared (ops.Route).
type rawRoute struct {
	service string
	desc    ops.RouteDescriptor
	pattern ops.PathPattern
	// refused is the answer to every request of the route when its service
	// declares a public contract this gateway does not serve (versions.go).
	refused *apperr.Error
}

// Gateway holds the routing table and the upstream client.
type Gateway struct {
	cfg      Config
	resolver ops.Resolver
	verifier auth.Verifier
	logger   *slog.Logger
	limiter  *ratelimit.Limiter
	hc       *fasthttp.Client
	files    *fasthttp.Client // raw GET routes: large answers streamed (forward)

	routes  atomic.Pointer[map[string]route]
	raw     atomic.Pointer[[]rawRoute]
	mu      sync.Mutex   // serialises refreshes
	missing atomic.Value // []string of services that did not answer the last refresh
	// answered holds the services that answered a refresh at least once.
	answered sync.Map
	openapi  atomic.Pointer[openAPIDoc] // the document of the current table (openapi.go)
	// convex serves Convex's clients: live queries and the sync protocol
	// (nil when GATEWAY_CONVEX is off); invalidate is its Invalidate, which
	// the gateway's own writes call (afterWrite).
	convex     *convex.Layer
	invalidate func(service, writes string)
	unstated   func(service string) // its Unstated
	// bodyLimit bounds the bytes of a streamed body forwarded (the server's
	// HTTP_BODY_LIMIT, set by App).
	bodyLimit atomic.Int64
	// issuer signs the identities forwarded to the services (SignIdentities);
	// nil forwards the callers' tokens as they came.
	issuer *auth.Issuer

	// refused are the public operations of services that declare a public
	// contract this gateway does not serve, with their answer; serves are
	// the majors of the public contract it serves, and refusalsLogged the
	// service versions already logged as refused (versions.go).
	refused        atomic.Pointer[map[string]refusedOp]
	serves         []int
	refusalsLogged sync.Map
}

// identityKey holds (in a request's locals) the caller the gateway verified,
// nil for an anonymous call: forward signs it for the service.
const identityKey = "gateway.identity"

// SignIdentities makes the gateway forward, in place of each caller's token,
// a token of its own for the identity it verified, signed by is (libs/auth's
// Issuer): the services then hold only the gateway's public key
// (AUTH_GATEWAY_PUBLIC_KEY), never the secret that mints users' tokens. Call
// it before serving.
func (g *Gateway) SignIdentities(is *auth.Issuer) { g.issuer = is }

// setIdentity sets the Authorization header of a call forwarded for id (none
// for an anonymous call) to the gateway's token for it.
func (g *Gateway) setIdentity(h *fasthttp.RequestHeader, id *auth.Identity) error {
	h.Del(fiber.HeaderAuthorization)
	if id == nil {
		return nil
	}
	tok, err := g.issuer.Token(id)
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "internal error")
	}
	h.Set(fiber.HeaderAuthorization, "Bearer "+tok)
	return nil
}

// New builds a gateway; call Refresh (or Run) before serving.
func New(cfg Config, resolver ops.Resolver, verifier auth.Verifier, logger *slog.Logger) *Gateway {
	g := &Gateway{
		cfg: cfg, resolver: resolver, verifier: verifier, logger: logger,
		limiter: ratelimit.New(cfg.RateLimitRPS, cfg.RateLimitBurst),
		hc: &fasthttp.Client{
			MaxConnsPerHost:     2048,
			ReadTimeout:         cfg.UpstreamTimeout,
			WriteTimeout:        cfg.UpstreamTimeout,
			MaxIdleConnDuration: 60 * time.Second,
			Dial: func(addr string) (net.Conn, error) {
				return fasthttp.DialTimeout(addr, 2*time.Second)
			},
		},
	}
	empty := map[string]route{}
	g.routes.Store(&empty)
	g.refused.Store(&map[string]refusedOp{})
	g.serves = servedMajors()
	g.raw.Store(&[]rawRoute{})
	g.missing.Store(cfg.Services)
	if cfg.ConvexLayer != "off" {
		cc := cfg.Convex
		cc.QueriesPerSecond, cc.UpstreamTimeout, cc.TopicsInterval = cfg.RateLimitRPS, cfg.UpstreamTimeout, cfg.RefreshInterval
		g.convex = convex.New(cc, convexHost{g}, verifier, logger)
		g.invalidate, g.unstated = g.convex.Invalidate, g.convex.Unstated
	}
	// Files (raw GET routes): an answer over 64 KiB is streamed to the client
	// as it arrives instead of being held whole (forward).
	// Its upstream timeout bounds each wait for the service (the headers,
	// every read of the body), not the whole answer: a CSV export written
	// page by page, or read by a slow client, takes as long as it takes
	// while its bytes keep coming (idleReadConn).
	g.files = &fasthttp.Client{
		MaxConnsPerHost: g.hc.MaxConnsPerHost, ReadTimeout: g.hc.ReadTimeout, WriteTimeout: g.hc.WriteTimeout,
		MaxIdleConnDuration: g.hc.MaxIdleConnDuration,
		Dial: func(addr string) (net.Conn, error) {
			conn, err := g.hc.Dial(addr)
			if err != nil {
				return nil, err
			}
			return &idleReadConn{Conn: conn, idle: cfg.UpstreamTimeout}, nil
		},
		StreamResponseBody: true, MaxResponseBodySize: streamAnswersOver,
	}
	return g
}

// idleReadConn is a connection to a service whose every Read waits at most
// idle for its first byte: the deadlines the HTTP client sets once per
// request (which would end a streamed answer idle after its start, however
// fast its bytes come) are replaced by one per read. Writes keep theirs.
type idleReadConn struct {
	net.Conn
	idle time.Duration
}

func (c *idleReadConn) Read(p []byte) (int, error) {
	if c.idle > 0 {
		if err := c.Conn.SetReadDeadline(time.Now().Add(c.idle)); err != nil {
			return 0, err
		}
	}
	return c.Conn.Read(p)
}

// SetReadDeadline is ignored: Read sets its own.
func (c *idleReadConn) SetReadDeadline(time.Time) error { return nil }

// SetDeadline sets the write deadline only (SetReadDeadline).
func (c *idleReadConn) SetDeadline(t time.Time) error { return c.Conn.SetWriteDeadline(t) }

// streamAnswersOver is the size from which a raw GET route's answer is
// streamed through the gateway rather than read whole.
const streamAnswersOver = 64 << 10

// Refresh fetches every service's declarations and swaps in the new table. Services
// that do not answer keep their previous routes, so a restarting service does not
// vanish from the table.
func (g *Gateway) Refresh(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	old, oldRaw, oldRefused := *g.routes.Load(), *g.raw.Load(), *g.refused.Load()
	next := make(map[string]route, len(old))
	nextRefused := map[string]refusedOp{}
	var nextRaw []rawRoute
	var missing []string
	var errs []error
	for _, svc := range g.cfg.Services {
		decl, err := g.fetch(ctx, svc)
		if err != nil {
			missing = append(missing, svc)
			errs = append(errs, err)
			for p, r := range old {
				if r.service == svc {
					next[p] = r
				}
			}
			for p, r := range oldRefused {
				if r.service == svc {
					nextRefused[p] = r
				}
			}
			var kept []ops.RouteDescriptor
			var refusal *apperr.Error
			for _, r := range oldRaw {
				if r.service == svc {
					kept, refusal = append(kept, r.desc), r.refused
				}
			}
			nextRaw = g.addRaw(nextRaw, svc, kept, refusal)
			continue
		}
		// A service of a public contract this gateway does not serve keeps
		// its operations and routes in the table, each answering why.
		refusal := g.contractRefusal(svc, decl.Contracts)
		nextRaw = g.addRaw(nextRaw, svc, decl.Routes, refusal)
		g.answered.Store(svc, true)
		if g.convex != nil {
			g.convex.Declare(svc, decl.Topics)
		}
		refusedOps := 0
		for _, d := range decl.Operations {
			if d.Access == ops.Internal {
				continue // never routable from outside
			}
			if prev, dup := next[d.Path]; dup && prev.service != svc {
				g.logger.Error("operation declared by two services", "path", d.Path, "services", prev.service+","+svc)
				continue
			}
			if refusal != nil {
				nextRefused[d.Path] = refusedOp{service: svc, answer: refusal}
				refusedOps++
				continue
			}
			next[d.Path] = route{service: svc, kind: d.Kind, access: d.Access, desc: d}
		}
		if refusal != nil {
			g.logRefusal(svc, decl.Contracts, refusal, refusedOps, len(decl.Routes))
		}
	}
	for p := range next {
		delete(nextRefused, p) // served by another service
	}
	g.routes.Store(&next)
	g.raw.Store(&nextRaw)
	g.refused.Store(&nextRefused)
	g.missing.Store(missing)
	return errors.Join(errs...)
}

// addRaw adds the raw routes svc declared to table. A declaration the gateway
// cannot honour (bad path, method or access), or one that could match a
// request another service's route already matches, is left out and logged.
// refused, when not nil, is the answer to each of them (versions.go).
func (g *Gateway) addRaw(table []rawRoute, svc string, routes []ops.RouteDescriptor, refused *apperr.Error) []rawRoute {
next:
	for _, d := range routes {
		if err := d.Validate(); err != nil {
			g.logger.Error("route declaration ignored", "service", svc, "err", err)
			continue
		}
		for _, r := range table {
			if r.desc.Overlaps(d) {
				g.logger.Error("route declared by two services", "method", d.Method, "path", d.Path, "services", r.service+","+svc)
				continue next
			}
		}
		p, _ := ops.CompilePath(d.Path) // valid: checked above
		table = append(table, rawRoute{service: svc, desc: d, pattern: p, refused: refused})
	}
	return table
}

// declaration is what a service's GET /ops declares.
type declaration struct {
	// Contracts are the contract versions the service implements; empty in
	// a service built before it declared them (version.Legacy).
	Contracts  build.Contracts       `json:"contracts"`
	Operations []ops.Descriptor      `json:"operations"`
	Routes     []ops.RouteDescriptor `json:"routes"`
	ops.Topics
}

func (g *Gateway) fetch(ctx context.Context, svc string) (declaration, error) {
	var body declaration
	base, err := g.resolver.Resolve(ctx, svc)
	if err != nil {
		return body, err
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(base + "/ops")
	if err := g.hc.DoTimeout(req, resp, 5*time.Second); err != nil {
		return body, fmt.Errorf("%s: %w", svc, err)
	}
	if resp.StatusCode() != 200 {
		return body, fmt.Errorf("%s: /ops answered %d", svc, resp.StatusCode())
	}
	if err := json.Unmarshal(resp.Body(), &body); err != nil {
		return declaration{}, fmt.Errorf("%s: %w", svc, err)
	}
	body.Contracts = body.Contracts.OrLegacy()
	return body, nil
}

// Run refreshes the table until ctx is done: quickly while a service is missing,
// then every RefreshInterval.
func (g *Gateway) Run(ctx context.Context) {
	if g.convex != nil {
		go g.convex.Run(ctx) // live queries: the services' events
	}
	for {
		wait := g.cfg.RefreshInterval
		if m, _ := g.missing.Load().([]string); len(m) > 0 {
			wait = time.Second
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		if err := g.Refresh(ctx); err != nil {
			g.logger.Warn("routing table refresh incomplete", "err", err)
		}
		g.limiter.Sweep(time.Now())
	}
}

// Ready fails while a service has never answered. A service that answered once
// and is down now keeps its routes (its calls get 503), so one service's outage
// does not take the gateway out of the load balancer for every other service.
func (g *Gateway) Ready(context.Context) error {
	var never []string
	for _, svc := range g.cfg.Services {
		if _, ok := g.answered.Load(svc); !ok {
			never = append(never, svc)
		}
	}
	if len(never) > 0 {
		return fmt.Errorf("no routes yet from %s", strings.Join(never, ", "))
	}
	return nil
}

// Operations lists the public routing table (for the API reference endpoint).
func (g *Gateway) Operations() map[string]route { return *g.routes.Load() }

// Routes lists the raw routes the gateway forwards, with their services.
func (g *Gateway) Routes() map[string]ops.RouteDescriptor {
	out := map[string]ops.RouteDescriptor{}
	for _, r := range *g.raw.Load() {
		if r.refused == nil {
			out[r.service+" "+r.desc.Method+" "+r.desc.Path] = r.desc
		}
	}
	return out
}

// matchRaw finds the declared route of a request; path is the path exactly
// as the client sent it.
func (g *Gateway) matchRaw(method, path string) (rawRoute, bool) {
	for _, r := range *g.raw.Load() {
		if r.desc.Method == method && r.pattern.Match(path) {
			return r, true
		}
	}
	return rawRoute{}, false
}

// Mount adds the public routes to app (built with httpserver.New).
func (g *Gateway) Mount(app *fiber.App) {
	if g.convex != nil {
		g.convex.Mount(app) // first: it passes requests without a Convex-Client header on
	}
	app.Get("/health", func(c *fiber.Ctx) error { return c.SendString(HealthMessage) })
	app.Get("/api/openapi.json", g.handleOpenAPI)
	app.Post("/api/query", g.handleOp(ops.Query, false))
	app.Post("/api/mutation", g.handleOp(ops.Mutation, false))
	// One path per operation (OperationURL), for generated clients: the same
	// handler, the operation named by the URL and the body its arguments.
	app.Post("/api/query/*", g.handleOp(ops.Query, true))
	app.Post("/api/mutation/*", g.handleOp(ops.Mutation, true))
	app.Get("/api/operations", g.handleOperations)
	g.mountConsole(app) // /admin/, /store/ and their assets
	g.mountDocs(app)    // /docs, its assets and the index at /
	// Last: every request no route above took is matched against the raw
	// routes the services declared, by exact method and path, or is 404.
	app.Use(g.handleRaw)
}

// OperationEntry is one operation of GET /api/operations: what a client
// (`marketplace call` and `ops`) needs to call it and to show it, from the
// declarations.
type OperationEntry struct {
	Path    string       `json:"path"`
	Kind    ops.Kind     `json:"kind"`
	Access  ops.Access   `json:"access"`
	Service string       `json:"service"`
	Summary string       `json:"summary,omitempty"`
	Args    []ops.ArgDoc `json:"args"`
}

// handleOperations lists the public routing table, sorted by path.
func (g *Gateway) handleOperations(c *fiber.Ctx) error {
	out := []OperationEntry{}
	for p, r := range g.Operations() {
		args := r.desc.Args
		if args == nil {
			args = []ops.ArgDoc{}
		}
		out = append(out, OperationEntry{Path: p, Kind: r.kind, Access: r.access, Service: r.service, Summary: r.desc.Summary, Args: args})
	}
	slices.SortFunc(out, func(a, b OperationEntry) int { return strings.Compare(a.Path, b.Path) })
	return c.JSON(out)
}

// CORS sets the interface's CORS headers on every response and answers preflights.
func CORS() fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set("Access-Control-Allow-Origin", "*")
		c.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		// The interface's list, then the contract's Idempotency-Key and the
		// header Convex's clients send (section 8); a replayed answer's marker
		// is readable by browser clients.
		c.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, processor-signature, "+ops.HeaderIdempotencyKey+", "+convex.HeaderClient)
		c.Set("Access-Control-Expose-Headers", ops.HeaderIdempotentReplayed)
		if c.Method() == fiber.MethodOptions {
			c.Set("Access-Control-Max-Age", "600")
			return c.SendStatus(fiber.StatusNoContent)
		}
		return c.Next()
	}
}

// handleOp answers the contract's calls of an operation (section 2): on
// /api/query and /api/mutation the body names it ({"path", "args"}); on its
// own path (byURL: /api/<kind>/<area>/<module>/<function>) the URL names it
// and the body is its arguments, rewritten here into the same {"path",
// "args"} body, so both forms take the same steps below and reach the
// service alike.
func (g *Gateway) handleOp(kind ops.Kind, byURL bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		var path string
		err := request.PlainBody(c)
		if err == nil && byURL {
			path, err = urlOperation(c, kind)
		} else if err == nil {
			path, err = routePath(c.Body())
			if err == nil && len(path) > request.MaxOperationPath {
				err = tooLongOperation(path)
			}
		}
		ctx := c.UserContext()
		if err == nil {
			c.Locals("op", path)
			ctx, err = ops.Identify(ctx, g.verifier, c.Get(fiber.HeaderAuthorization))
		}
		// Refused requests count against the caller too, so a flood of bad tokens
		// or bodies is limited like any other.
		caller := ratelimit.AnonymousKey(c.IP())
		if id := auth.FromContext(ctx); id != nil {
			caller = "sub:" + id.Sub
		}
		if !g.limiter.Allow(caller, time.Now()) {
			c.Set(fiber.HeaderRetryAfter, "1")
			return httpserver.WriteError(c, apperr.New(apperr.RateLimited, "too many requests; retry shortly"))
		}
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		c.Locals(identityKey, auth.FromContext(ctx)) // for forward
		r, ok := g.lookup(path)
		if !ok {
			return httpserver.WriteError(c, g.unknownOperation(path))
		}
		if err := ops.CheckCall(ctx, r.kind, r.access, kind, path); err != nil {
			return httpserver.WriteError(c, err)
		}
		if kind == ops.Mutation {
			// Checked here with the services' own function: an empty header would
			// otherwise not be forwarded, and the call would run without its key.
			if _, _, err := ops.IdempotencyKeyOf(&c.Request().Header); err != nil {
				return httpserver.WriteError(c, err)
			}
			g.wantLive(c)
			defer g.afterWrite(c, r.service) // its live queries run again
		}
		return g.forward(c, r.service, "/api/"+string(kind), ops.ErrorsContract)
	}
}

// lookup finds a public operation by its dotted path.
func (g *Gateway) lookup(path string) (route, bool) {
	r, ok := (*g.routes.Load())[path]
	return r, ok
}

// routePath reads the body as the owning service will (ops.ParseRequest), so
// the two agree on what a body is; the arguments are checked by the service.
func routePath(body []byte) (string, error) {
	r, err := ops.ParseRequest(body)
	return r.Path, err
}

// tooLongOperation refuses a path longer than request.MaxOperationPath as the
// unknown operation it is, quoting its start only.
func tooLongOperation(path string) error {
	return apperr.New(apperr.NotFound, "unknown operation %q... (%d bytes; an operation's path is at most %d)", path[:64], len(path), request.MaxOperationPath).
		WithDetails(map[string]any{"reason": ops.ReasonUnknownOperation})
}

// OperationURL is an operation's own path in the contract's shapes, for
// generated clients: "stores.reviews.addReview", a mutation, is
// "/api/mutation/stores/reviews/addReview". Its body is the arguments object.
func OperationURL(kind ops.Kind, path string) string { return apischema.CallPath(kind, path) }

// urlOperation reads the operation a per-operation URL names and rewrites
// the request's body, the operation's arguments (nothing for none), into
// the {"path", "args"} body the owning service reads.
func urlOperation(c *fiber.Ctx, kind ops.Kind) (string, error) {
	path, err := request.OperationOfURL(c, kind)
	if err != nil {
		return path, err
	}
	args := bytes.TrimSpace(c.Body())
	body := make([]byte, 0, len(args)+len(path)+32)
	body = append(body, `{"path":`...)
	body = strconv.AppendQuote(body, path)
	if len(args) > 0 {
		if args[0] != '{' || !json.Valid(args) {
			return path, apperr.New(apperr.InvalidArgument, "the body of POST %s is the operation's arguments: one JSON object ({} or nothing when it takes none)", c.Path())
		}
		body = append(body, `,"args":`...)
		body = append(body, args...)
	}
	body = append(body, '}')
	c.Request().SetBody(body)
	return path, nil
}

// methodsOf lists the methods path is served with, by the gateway's own
// routes or the services' raw routes: a request with another method is 405.
func (g *Gateway) methodsOf(app *fiber.App, path string) []string {
	var out []string
	for _, r := range app.GetRoutes(true) {
		if r.Method == fiber.MethodHead || r.Method == fiber.MethodOptions || strings.Contains(r.Path, ":") {
			continue
		}
		prefix, wild := strings.CutSuffix(r.Path, "*")
		if (wild && strings.HasPrefix(path, prefix) && len(path) > len(prefix)) || (!wild && r.Path == path) {
			out = append(out, r.Method)
		}
	}
	for _, r := range *g.raw.Load() {
		if r.pattern.Match(path) {
			out = append(out, r.desc.Method)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// handleRaw forwards a request that matches a raw route a service declared,
// by its exact method and path (the path as the client sent it: no decoding,
// no dot segments, parameters of safe characters only), to that service. The
// token is verified and the rate limit applied as for operations; the
// gateway's own refusals use the route's error style.
func (g *Gateway) handleRaw(c *fiber.Ctx) error {
	path := string(c.Request().URI().PathOriginal())
	r, ok := g.matchRaw(c.Method(), path)
	if !ok {
		if allow := g.methodsOf(c.App(), path); len(allow) > 0 && !slices.Contains(allow, c.Method()) {
			c.Set(fiber.HeaderAllow, strings.Join(allow, ", "))
			return httpserver.WriteMethodNotAllowed(c)
		}
		return httpserver.WriteError(c, apperr.New(apperr.NotFound, "no route %s %s", c.Method(), c.Path()))
	}
	c.Locals("op", r.desc.Method+" "+r.desc.Path)
	if r.refused != nil {
		return ops.WriteRouteError(c, r.desc.Errors, r.refused)
	}
	if c.Request().IsBodyStream() {
		// A streamed body (ops.Route.StreamBody) not read to its end (refused
		// here, or by the service before it read it all) is read and dropped
		// up to drainLimit, so that the client, which sends its whole body
		// before it reads, gets the answer; a longer rest stays unread and
		// the connection ends with the answer.
		defer func() {
			if ended, _ := c.Locals(bodyEndedKey).(bool); !ended {
				_, _ = io.Copy(io.Discard, &forwardedBody{c: c, r: c.Context().RequestBodyStream(), left: drainLimit})
			}
			if ended, _ := c.Locals(bodyEndedKey).(bool); !ended {
				c.Context().SetConnectionClose()
			}
		}()
	}
	ctx, err := ops.Identify(c.UserContext(), g.verifier, c.Get(fiber.HeaderAuthorization))
	caller := ratelimit.AnonymousKey(c.IP())
	if id := auth.FromContext(ctx); id != nil {
		caller = "sub:" + id.Sub
	}
	if !r.desc.SenderLimited && !g.limiter.Allow(caller, time.Now()) {
		c.Set(fiber.HeaderRetryAfter, "1")
		return ops.WriteRouteError(c, r.desc.Errors, apperr.New(apperr.RateLimited, "too many requests; retry shortly"))
	}
	if err == nil && r.desc.Access.NeedsIdentity() && auth.FromContext(ctx) == nil {
		err = apperr.New(apperr.Unauthenticated, "%s %s needs a bearer token", r.desc.Method, r.desc.Path)
	}
	if err != nil {
		return ops.WriteRouteError(c, r.desc.Errors, err)
	}
	c.Locals(identityKey, auth.FromContext(ctx)) // for forward
	uri := path
	if q := c.Request().URI().QueryString(); len(q) > 0 {
		uri += "?" + string(q)
	}
	if r.desc.Method != fiber.MethodGet {
		g.wantLive(c)
		defer g.afterWrite(c, r.service) // a webhook or an upload changes what queries show
	}
	return g.forward(c, r.service, uri, r.desc.Errors)
}

// Headers relayed from the client to a service, and from a service's answer
// to the client; nothing else crosses (a service's X-Service-Assertion never
// does: internal operations stay out of the public's reach).
// Content-Encoding crosses with the body it describes: the service that owns
// the route decides whether it accepts one (the media service refuses a
// compressed upload, whose size and bytes it could not check).
var (
	requestHeaders = []string{fiber.HeaderContentType, fiber.HeaderContentEncoding, fiber.HeaderAuthorization, "processor-signature", httpserver.HeaderRequestID,
		ops.HeaderIdempotencyKey, fiber.HeaderIfNoneMatch, fiber.HeaderIfModifiedSince}
	responseHeaders = []string{fiber.HeaderRetryAfter, ops.HeaderIdempotentReplayed, fiber.HeaderETag, fiber.HeaderCacheControl,
		fiber.HeaderLastModified, fiber.HeaderExpires, fiber.HeaderXContentTypeOptions, fiber.HeaderContentDisposition,
		fiber.HeaderContentSecurityPolicy}
)

// forward sends the request to service and relays its answer. style selects
// the body of the gateway's own errors (the webhook's { error, retryAfter }
// for ops.ErrorsSimple routes).
func (g *Gateway) forward(c *fiber.Ctx, service, uri string, style ops.ErrorStyle) error {
	unavailable := func(err error) error {
		g.logger.Warn("upstream unavailable", "service", service, "err", err)
		c.Set(fiber.HeaderRetryAfter, "5")
		return ops.WriteRouteError(c, style, apperr.New(apperr.Unavailable, "%s is unavailable; retry shortly", service))
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	// A large GET answer (a file) goes on to the client as it arrives; resp
	// is then released once the client has it (upstreamBody.Close).
	streamed := false
	defer func() {
		if !streamed {
			releaseUpstream(resp)
		}
	}()
	src := &c.Request().Header
	req.Header.SetMethodBytes(src.Method())
	for _, h := range requestHeaders {
		if v := src.Peek(h); len(v) > 0 {
			req.Header.SetBytesV(h, v)
		}
	}
	if g.issuer != nil {
		// The service gets the gateway's word for who calls, not the
		// caller's token (SignIdentities).
		id, _ := c.Locals(identityKey).(*auth.Identity)
		if err := g.setIdentity(&req.Header, id); err != nil {
			return ops.WriteRouteError(c, style, err)
		}
	}
	if rid, ok := c.Locals("requestid").(string); ok && len(src.Peek(httpserver.HeaderRequestID)) == 0 {
		req.Header.Set(httpserver.HeaderRequestID, rid)
	}
	req.Header.Set("X-Forwarded-For", c.IP())
	if want, _ := c.Locals(wantLiveKey).(bool); want {
		req.Header.Set(liveset.HeaderWant, "1")
	}
	if c.Request().IsBodyStream() {
		// Sent on as it arrives, with the length the client declared (the
		// service decides on it before reading) or chunked, at most
		// bodyLimit bytes: the service refuses what is over its own cap.
		n, limit := c.Request().Header.ContentLength(), g.bodyLimit.Load()
		if int64(n) > limit {
			return ops.WriteBodyTooLarge(c, style) // drained by handleRaw
		}
		req.SetBodyStream(&forwardedBody{c: c, r: c.Context().RequestBodyStream(), left: limit}, n)
	} else {
		req.SetBodyRaw(c.BodyRaw())
	}
	hc := g.hc
	if c.Method() == fiber.MethodGet && g.files != nil {
		hc = g.files
	}
	if err := g.sendVia(hc, c.UserContext(), service, uri, req, resp); err != nil {
		return unavailable(err)
	}
	status := resp.StatusCode()
	if w := resp.Header.Peek(HeaderLiveWrites); len(w) > 0 {
		c.Locals(liveWritesKey, string(w)) // for afterWrite; not relayed
	}
	for _, h := range responseHeaders {
		if v := resp.Header.Peek(h); len(v) > 0 {
			c.Context().Response.Header.SetBytesV(h, v)
		}
	}
	// A conditional GET whose entity tag matches is answered 304 here even
	// when the service sent the whole body.
	if status == fiber.StatusOK && c.Method() == fiber.MethodGet &&
		httpserver.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), string(resp.Header.Peek(fiber.HeaderETag))) {
		status = fiber.StatusNotModified
	}
	c.Status(status)
	if status == fiber.StatusNotModified {
		c.Response().ResetBody()
		return nil
	}
	if ct := resp.Header.ContentType(); len(ct) > 0 {
		c.Context().Response.Header.SetContentTypeBytes(ct)
	}
	if body := resp.BodyStream(); body != nil {
		streamed = true
		c.Response().SetBodyStream(&upstreamBody{r: body, resp: resp, client: c.Context().Conn()}, resp.Header.ContentLength())
		return nil
	}
	// Copy: resp goes back to its pool when this function returns, before Fiber
	// writes the response; sending its buffer would hand it to another request.
	c.Response().SetBody(resp.Body())
	return nil
}

// upstreamBody is a service's streamed answer on its way to the client; the
// server closes it once written (or abandoned), which releases the answer.
type upstreamBody struct {
	r     io.Reader
	resp  *fasthttp.Response
	ended bool // read to its end
	// client is the caller's connection, whose write deadline (the server's
	// write timeout, one deadline for the whole answer, set before its first
	// byte) moves with each piece read: a file that streams for longer than
	// the timeout is not cut; the window bounds a client that stopped reading.
	client interface{ SetWriteDeadline(time.Time) error }
}

func (u *upstreamBody) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	u.ended = u.ended || err == io.EOF
	if n > 0 && u.client != nil {
		_ = u.client.SetWriteDeadline(time.Now().Add(httpserver.StreamWriteWindow))
	}
	return n, err
}

// Close hands the service's connection back. A body read to its end is not
// read again: a chunked body's stream does not remember its end, and would
// wait for another chunk until the upstream timeout (every streamed CSV
// export took that long). A body not read to its end (the client went away,
// the service's stream broke) ends its connection rather than leave unread
// or broken bytes in the pool.
func (u *upstreamBody) Close() error {
	if !u.ended {
		u.resp.SetConnectionClose()
	}
	fasthttp.ReleaseResponse(u.resp)
	return nil
}

// releaseUpstream returns a service's answer to its pool. A streamed body not
// read to its end is read and dropped first: closing the stream hands its
// connection back to the client's pool, which must not hold unread bytes.
func releaseUpstream(resp *fasthttp.Response) {
	if body := resp.BodyStream(); body != nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(body, drainLimit))
	}
	fasthttp.ReleaseResponse(resp)
}

// drainLimit bounds the bytes of a refused streamed body read and dropped
// before the answer; a longer one ends the connection unread.
const drainLimit = 16 << 20

// bodyEndedKey marks (in a request's locals) a streamed body read to its end.
const bodyEndedKey = "gateway.bodyEnded"

// forwardedBody is a client's streamed body on its way to a service: it ends
// after left bytes, and records in c's locals whether the client's body
// ended within them.
type forwardedBody struct {
	c    *fiber.Ctx
	r    io.Reader
	left int64
}

func (f *forwardedBody) Read(p []byte) (int, error) {
	if f.left <= 0 {
		return 0, io.EOF // the rest stays unread: the connection is closed
	}
	if int64(len(p)) > f.left {
		p = p[:f.left]
	}
	n, err := f.r.Read(p)
	f.left -= int64(n)
	if errors.Is(err, io.EOF) {
		f.c.Locals(bodyEndedKey, true)
	}
	return n, err
}

// bodyTooLarge answers a body over the server's limit sent to a raw route in
// the route's own error shape (the webhook's 413 { error });
// httpserver answers every other request's.
func (g *Gateway) bodyTooLarge(c *fiber.Ctx) (bool, error) {
	r, ok := g.matchRaw(c.Method(), c.Path())
	if !ok || r.desc.Errors != ops.ErrorsSimple {
		return false, nil
	}
	return true, ops.WriteBodyTooLarge(c, r.desc.Errors)
}

// streamsBody tells the server which requests' bodies stay streams: those of
// raw routes declared with StreamBody.
func (g *Gateway) streamsBody(method, path string) bool {
	r, ok := g.matchRaw(method, path)
	return ok && r.desc.StreamBody
}

// send delivers req to uri on service and reads the answer into resp: every
// call the gateway forwards, the Convex clients' included, goes through it.
func (g *Gateway) send(ctx context.Context, service, uri string, req *fasthttp.Request, resp *fasthttp.Response) error {
	return g.sendVia(g.hc, ctx, service, uri, req, resp)
}

// sendVia is send through client hc.
func (g *Gateway) sendVia(hc *fasthttp.Client, ctx context.Context, service, uri string, req *fasthttp.Request, resp *fasthttp.Response) error {
	base, err := g.resolver.Resolve(ctx, service)
	if err != nil {
		return err
	}
	req.SetRequestURI(base + uri)
	telemetry.InjectHTTP(ctx, &req.Header) // the service's server span continues the gateway's trace
	return hc.DoTimeout(req, resp, g.cfg.UpstreamTimeout)
}
