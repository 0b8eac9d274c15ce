// Package gateway is the public entry point: it routes /api/query and
// /api/mutation by operation path to the owning service (the routing table is
// fetched from each service's own declarations), verifies bearer tokens, applies
// CORS and per-caller rate limits, and forwards /processor/* to the payments
// service. Internal operations do not exist here.
package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
)

// HealthMessage is the fixed body of GET /health.
const HealthMessage = "Backend is healthy"

// Config is the gateway's part of a program's configuration.
type Config struct {
	Services         []string      `env:"GATEWAY_SERVICES"` // default: every module (deploy/modules)
	ProcessorService string        `env:"GATEWAY_PROCESSOR_SERVICE" default:"payments"`
	UpstreamTimeout  time.Duration `env:"GATEWAY_UPSTREAM_TIMEOUT" default:"10s"`
	RefreshInterval  time.Duration `env:"GATEWAY_ROUTES_REFRESH" default:"15s"`
	RateLimitRPS     float64       `env:"RATE_LIMIT_RPS" default:"50"`
	RateLimitBurst   int           `env:"RATE_LIMIT_BURST" default:"100"`
}

type route struct {
	service string
	kind    ops.Kind
	access  ops.Access
}

// Gateway holds the routing table and the upstream client.
type Gateway struct {
	cfg      Config
	resolver ops.Resolver
	verifier auth.Verifier
	logger   *slog.Logger
	limiter  *limiter
	hc       *fasthttp.Client

	routes  atomic.Pointer[map[string]route]
	mu      sync.Mutex   // serialises refreshes
	missing atomic.Value // []string of services that did not answer the last refresh
	// answered holds the services that answered a refresh at least once.
	answered sync.Map
}

// New builds a gateway; call Refresh (or Run) before serving.
func New(cfg Config, resolver ops.Resolver, verifier auth.Verifier, logger *slog.Logger) *Gateway {
	g := &Gateway{
		cfg: cfg, resolver: resolver, verifier: verifier, logger: logger,
		limiter: newLimiter(cfg.RateLimitRPS, cfg.RateLimitBurst),
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
	g.missing.Store(cfg.Services)
	return g
}

// Refresh fetches every service's declarations and swaps in the new table. Services
// that do not answer keep their previous routes, so a restarting service does not
// vanish from the table.
func (g *Gateway) Refresh(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	old := *g.routes.Load()
	next := make(map[string]route, len(old))
	var missing []string
	var errs []error
	for _, svc := range g.cfg.Services {
		descs, err := g.fetch(ctx, svc)
		if err != nil {
			missing = append(missing, svc)
			errs = append(errs, err)
			for p, r := range old {
				if r.service == svc {
					next[p] = r
				}
			}
			continue
		}
		g.answered.Store(svc, true)
		for _, d := range descs {
			if d.Access == ops.Internal {
				continue // never routable from outside
			}
			if prev, dup := next[d.Path]; dup && prev.service != svc {
				g.logger.Error("operation declared by two services", "path", d.Path, "services", prev.service+","+svc)
				continue
			}
			next[d.Path] = route{service: svc, kind: d.Kind, access: d.Access}
		}
	}
	g.routes.Store(&next)
	g.missing.Store(missing)
	return errors.Join(errs...)
}

func (g *Gateway) fetch(ctx context.Context, svc string) ([]ops.Descriptor, error) {
	base, err := g.resolver.Resolve(ctx, svc)
	if err != nil {
		return nil, err
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(base + "/ops")
	if err := g.hc.DoTimeout(req, resp, 5*time.Second); err != nil {
		return nil, fmt.Errorf("%s: %w", svc, err)
	}
	if resp.StatusCode() != 200 {
		return nil, fmt.Errorf("%s: /ops answered %d", svc, resp.StatusCode())
	}
	var body struct {
		Operations []ops.Descriptor `json:"operations"`
	}
	if err := json.Unmarshal(resp.Body(), &body); err != nil {
		return nil, fmt.Errorf("%s: %w", svc, err)
	}
	return body.Operations, nil
}

// Run refreshes the table until ctx is done: quickly while a service is missing,
// then every RefreshInterval.
func (g *Gateway) Run(ctx context.Context) {
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
		g.limiter.sweep(time.Now())
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

// Mount adds the public routes to app (built with httpserver.New).
func (g *Gateway) Mount(app *fiber.App) {
	app.Get("/health", func(c *fiber.Ctx) error { return c.SendString(HealthMessage) })
	app.Post("/api/query", g.handleOp(ops.Query))
	app.Post("/api/mutation", g.handleOp(ops.Mutation))
	app.Get("/api/operations", func(c *fiber.Ctx) error {
		out := []fiber.Map{}
		for p, r := range g.Operations() {
			out = append(out, fiber.Map{"path": p, "kind": r.kind, "access": r.access, "service": r.service})
		}
		return c.JSON(out)
	})
	// Only the processor's two routes, forwarded by their fixed paths: a raw
	// /processor/* pass-through would let "/processor/../x" reach other routes of
	// the payments service.
	app.Post("/processor/webhook", g.handleProcessor("/processor/webhook"))
	app.Get("/processor/config", g.handleProcessor("/processor/config"))
}

// CORS sets the interface's CORS headers on every response and answers preflights.
func CORS() fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Set("Access-Control-Allow-Origin", "*")
		c.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
		// The interface's list, then the contract's Idempotency-Key; a replayed
		// answer's marker is readable by browser clients.
		c.Set("Access-Control-Allow-Headers", "Content-Type, Authorization, processor-signature, "+ops.HeaderIdempotencyKey)
		c.Set("Access-Control-Expose-Headers", ops.HeaderIdempotentReplayed)
		if c.Method() == fiber.MethodOptions {
			c.Set("Access-Control-Max-Age", "600")
			return c.SendStatus(fiber.StatusNoContent)
		}
		return c.Next()
	}
}

func (g *Gateway) handleOp(kind ops.Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		path, err := routePath(c.Body())
		ctx := c.UserContext()
		if err == nil {
			c.Locals("op", path)
			ctx, err = ops.Identify(ctx, g.verifier, c.Get(fiber.HeaderAuthorization))
		}
		// Refused requests count against the caller too, so a flood of bad tokens
		// or bodies is limited like any other.
		caller := c.IP()
		if id := auth.FromContext(ctx); id != nil {
			caller = "sub:" + id.Sub
		}
		if !g.limiter.allow(caller, time.Now()) {
			c.Set(fiber.HeaderRetryAfter, "1")
			return httpserver.WriteError(c, apperr.New(apperr.RateLimited, "too many requests; retry shortly"))
		}
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		r, ok := (*g.routes.Load())[path]
		if !ok {
			return httpserver.WriteError(c, apperr.New(apperr.NotFound, "unknown operation %q", path))
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
		}
		return g.forward(c, r.service, "/api/"+string(kind), false)
	}
}

// routePath reads the body as the owning service will (ops.ParseRequest), so
// the two agree on what a body is; the arguments are checked by the service.
func routePath(body []byte) (string, error) {
	r, err := ops.ParseRequest(body)
	return r.Path, err
}

func (g *Gateway) handleProcessor(path string) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if !g.limiter.allow(c.IP(), time.Now()) {
			c.Set(fiber.HeaderRetryAfter, "1")
			return c.Status(fiber.StatusTooManyRequests).JSON(fiber.Map{"error": "too many requests", "retryAfter": 1})
		}
		return g.forward(c, g.cfg.ProcessorService, path, true)
	}
}

// forward sends the request to service and relays its answer. plain selects the
// webhook's error shape ({ error, retryAfter }) instead of the operation error body.
func (g *Gateway) forward(c *fiber.Ctx, service, uri string, plain bool) error {
	unavailable := func(err error) error {
		g.logger.Warn("upstream unavailable", "service", service, "err", err)
		c.Set(fiber.HeaderRetryAfter, "5")
		if plain {
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"error": service + " is unavailable", "retryAfter": 5})
		}
		return httpserver.WriteError(c, apperr.New(apperr.Unavailable, "%s is unavailable; retry shortly", service))
	}
	base, err := g.resolver.Resolve(c.UserContext(), service)
	if err != nil {
		return unavailable(err)
	}
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	src := &c.Request().Header
	req.Header.SetMethodBytes(src.Method())
	req.SetRequestURI(base + uri)
	for _, h := range []string{fiber.HeaderContentType, fiber.HeaderAuthorization, "processor-signature", httpserver.HeaderRequestID, ops.HeaderIdempotencyKey} {
		if v := src.Peek(h); len(v) > 0 {
			req.Header.SetBytesV(h, v)
		}
	}
	if rid, ok := c.Locals("requestid").(string); ok && len(src.Peek(httpserver.HeaderRequestID)) == 0 {
		req.Header.Set(httpserver.HeaderRequestID, rid)
	}
	req.Header.Set("X-Forwarded-For", c.IP())
	req.SetBodyRaw(c.BodyRaw())
	if err := g.hc.DoTimeout(req, resp, g.cfg.UpstreamTimeout); err != nil {
		return unavailable(err)
	}
	c.Status(resp.StatusCode())
	if ct := resp.Header.ContentType(); len(ct) > 0 {
		c.Context().Response.Header.SetContentTypeBytes(ct)
	}
	for _, h := range []string{fiber.HeaderRetryAfter, ops.HeaderIdempotentReplayed} {
		if v := resp.Header.Peek(h); len(v) > 0 {
			c.Context().Response.Header.SetBytesV(h, v)
		}
	}
	// Copy: resp goes back to its pool when this function returns, before Fiber
	// writes the response; sending its buffer would hand it to another request.
	c.Response().SetBody(resp.Body())
	return nil
}
