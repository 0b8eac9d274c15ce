package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/serviceauth"
	"marketplace/libs/version"
)

// Request is the body of POST /api/query and /api/mutation.
type Request struct {
	Path   string          `json:"path"`
	Args   json.RawMessage `json:"args"`
	Format *string         `json:"format,omitempty"` // some clients send "json"; nothing else is accepted
}

// ParseRequest decodes and checks a request body strictly. The gateway and the
// services both read bodies with it, so they agree on what a body is: keys are
// case-sensitive ("PATH" is an unknown key, not "path"), unknown keys are
// refused, and exactly one JSON object is allowed.
func ParseRequest(body []byte) (Request, error) {
	var r Request
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&m); err != nil || m == nil {
		msg := "body must be a JSON object { path, args }"
		if err != nil {
			msg += ": " + err.Error()
		}
		return r, apperr.New(apperr.InvalidArgument, "%s", msg)
	}
	if dec.More() {
		return r, apperr.New(apperr.InvalidArgument, "body must hold exactly one JSON object")
	}
	for k, v := range m {
		switch k {
		case "path":
			if err := json.Unmarshal(v, &r.Path); err != nil {
				return r, apperr.Invalid("path", "must be a string")
			}
		case "args":
			r.Args = v
		case "format":
			var f *string
			if err := json.Unmarshal(v, &f); err != nil {
				return r, apperr.Invalid("format", "must be a string")
			}
			r.Format = f
		default:
			return r, apperr.Invalid(k, "unknown key of the request body (keys are case-sensitive: path, args, format)")
		}
	}
	if r.Path == "" {
		return r, apperr.Invalid("path", "is required")
	}
	if r.Format != nil && *r.Format != "json" {
		return r, apperr.Invalid("format", "must be \"json\"")
	}
	r.Path = NormalizePath(r.Path)
	return r, nil
}

// Identify verifies the bearer token of a request, if any, and returns ctx carrying
// the caller and the raw token (so calls to other services can act for the caller).
// A present but invalid token is refused even on public operations.
func Identify(ctx context.Context, v auth.Verifier, header string) (context.Context, error) {
	tok, ok, err := auth.BearerToken(header)
	if err != nil || !ok {
		return ctx, err
	}
	if v == nil {
		return ctx, apperr.New(apperr.Unauthenticated, "no token verifier is configured")
	}
	id, err := v.Verify(ctx, tok)
	if err != nil {
		return ctx, err
	}
	return withToken(auth.WithIdentity(ctx, id), header), nil
}

type tokenKey struct{}

func withToken(ctx context.Context, header string) context.Context {
	return context.WithValue(ctx, tokenKey{}, header)
}

func tokenFrom(ctx context.Context) string { s, _ := ctx.Value(tokenKey{}).(string); return s }

// Server exposes a registry over HTTP: POST /api/query, POST /api/mutation and
// GET /ops (the declarations the gateway routes by).
type Server struct {
	Registry *Registry
	Verifier auth.Verifier
	// Peers verifies the assertions other services send (serviceauth.Header);
	// Callers are the services whose verified calls may reach internal
	// operations (INTERNAL_CALLERS: the modules that declare calls to this
	// one). Nil Peers verifies none, so no call is internal (peers.go).
	Peers   *serviceauth.Verifier
	Callers []string
	// Logger receives the internal calls refused to a request that carried an
	// assertion; nil logs nothing.
	Logger   *slog.Logger
	refusals *peerRefusals
	// Idempotency keeps the outcomes of mutations called with an Idempotency-Key
	// (idempotency.go); nil ignores the header.
	Idempotency *Idempotency
	// Routes are the service's raw HTTP routes (routes.go), mounted with
	// their access checks and listed by GET /ops for the gateway.
	Routes []Route
	// Topics are the event topics the service publishes and consumes, listed
	// by GET /ops: the gateway follows them to refresh live queries.
	Topics Topics
	// Contracts are the contract versions GET /ops declares; zero: those this
	// binary was built with (version.BuiltContracts). The gateway refuses to
	// route a public operation of a major it does not serve, and a calling
	// service's Client names the internal version in its errors.
	Contracts version.Contracts
}

// Topics are the event topics a service writes and reads.
type Topics struct {
	Publishes []string `json:"publishes,omitempty"`
	Consumes  []string `json:"consumes,omitempty"`
	// Live is the topic its committed writes leave on for live queries
	// (libs/liveset); "" for a service that does not publish them.
	Live string `json:"live,omitempty"`
}

// Mount adds the routes to app.
func (s *Server) Mount(app *fiber.App) {
	s.refusals = newPeerRefusals()
	app.Post("/api/query", s.handle(Query))
	app.Post("/api/mutation", s.handle(Mutation))
	contracts := s.Contracts
	if contracts == (version.Contracts{}) {
		contracts = version.BuiltContracts()
	}
	app.Get("/ops", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"service": s.Registry.Service, "contracts": contracts, "operations": s.Registry.Describe(), "routes": DescribeRoutes(s.Routes),
			"publishes": s.Topics.Publishes, "consumes": s.Topics.Consumes, "live": s.Topics.Live})
	})
	s.mountRoutes(app)
}

// trackLive records, for a caller that asks (liveset.HeaderWant), what the
// request reads (a query) or writes (a mutation, a raw route), and sets the
// answer's header once the handler is done (c's response is sent after it
// returns), within liveset.MaxHeader: a query's reads when they are known, a
// mutation's committed writes unless the answer is a replay (its first run
// wrote; the caller takes a missing header as unknown).
func trackLive(c *fiber.Ctx, ctx context.Context, kind Kind) context.Context {
	if c.Get(liveset.HeaderWant) == "" {
		return ctx
	}
	if kind == Query {
		ctx, rt := liveset.TrackReads(ctx)
		c.Locals(liveHeaderKey{}, func() {
			if rs, ok := rt.Reads(); ok {
				if rs = rs.Compact(liveset.MaxHeader); rs != nil {
					c.Set(liveset.HeaderReads, rs.Encode())
				}
			}
		})
		return ctx
	}
	ctx, wt := liveset.TrackWrites(ctx)
	c.Locals(liveHeaderKey{}, func() {
		if len(c.Response().Header.Peek(HeaderIdempotentReplayed)) > 0 {
			return
		}
		w := wt.Writes()
		w = w.Compact(liveset.MaxHeader)
		c.Set(liveset.HeaderWrites, w.Encode())
	})
	return ctx
}

type liveHeaderKey struct{}

// setLiveHeader sets the header trackLive prepared, if any.
func setLiveHeader(c *fiber.Ctx) {
	if f, ok := c.Locals(liveHeaderKey{}).(func()); ok {
		f()
	}
}

func (s *Server) handle(kind Kind) fiber.Handler {
	return func(c *fiber.Ctx) error {
		defer setLiveHeader(c)
		req, err := ParseRequest(c.BodyRaw()) // as sent: never inflated (c.Body would inflate a Content-Encoding without bound)
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		c.Locals("op", req.Path)
		ctx, err := Identify(c.UserContext(), s.Verifier, c.Get(fiber.HeaderAuthorization))
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		if rid, ok := c.Locals("requestid").(string); ok {
			ctx = withRequestID(ctx, rid)
		}
		internal := s.internalCall(ctx, c, req.Path)
		// What the answer rests on, or what it changed, for live queries
		// (libs/liveset; headers set on every answer, errors included).
		ctx = trackLive(c, ctx, kind)
		// Idempotency keys: for mutations of outside callers (a declared
		// caller's calls carry none); on queries the header is ignored.
		if kind == Mutation && !internal && s.Idempotency != nil {
			key, present, err := IdempotencyKeyOf(&c.Request().Header)
			if err != nil {
				return httpserver.WriteError(c, err)
			}
			if present {
				if caller := s.idempotencyCaller(ctx, req.Path); caller != "" {
					return s.runIdempotent(c, ctx, req, caller, key)
				}
			}
		}
		res, err := s.Registry.Invoke(ctx, kind, req.Path, req.Args, internal)
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		b, err := encodeAnswer(res)
		if err != nil {
			return httpserver.WriteError(c, err)
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(b)
	}
}

type requestIDKey struct{}

func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func requestIDFrom(ctx context.Context) string { s, _ := ctx.Value(requestIDKey{}).(string); return s }
