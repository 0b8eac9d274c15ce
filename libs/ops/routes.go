package ops

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
)

// Raw routes are the HTTP routes a service serves beside its operations: a
// webhook, file uploads and downloads. A service declares each once (Route,
// in service.Built.Routes): the service mounts it with its access applied,
// GET /ops lists it (RouteDescriptor), and the gateway forwards exactly the
// declared method and path to that service, nothing else: no prefix
// pass-through, so "/processor/../x" can never reach another route.
//
// A path is absolute, made of literal segments ([A-Za-z0-9_.-], never "." or
// "..") and parameter segments (":name"), which match one segment of
// [A-Za-z0-9_-] characters (MaxParamLength at most) and nothing else: no dot,
// no percent-encoding, no empty segment, no trailing slash.

// ErrorStyle is the body of the errors the gateway and the service's route
// wrapper answer for a route (a refused token, the rate limit, the service
// being unreachable). The handler's own answers are its business.
type ErrorStyle string

const (
	// ErrorsContract is the contract's { "error": { code, message } } (default).
	ErrorsContract ErrorStyle = ""
	// ErrorsSimple is { "error": "<message>" }, with "retryAfter" (seconds)
	// when a retry can help: what the payment processor's webhook answers.
	ErrorsSimple ErrorStyle = "simple"
)

// MaxParamLength bounds a path parameter's value.
const MaxParamLength = 128

// Route is one raw HTTP route of a service.
type Route struct {
	Method string // GET or POST
	Path   string // "/processor/webhook", "/api/storage/:storageId"
	// Access is Public, Authenticated, Admin, StoreOwner or
	// StoreOwnerOrAdmin, checked before the handler runs (mountRoutes): a
	// store level resolves the store StoreParam names with the registry's
	// Store resolver, as operations do, and hands it to the handler (StoreOf).
	Access Access
	// StoreParam is the path parameter holding the store id of a route of a
	// store access level ("storeId" for "/api/stores/:storeId/x.csv"); it
	// must be one of the path's parameters, and is empty for other levels.
	StoreParam string
	Errors     ErrorStyle
	Summary    string
	// Doc says what the route reads and answers, for the OpenAPI document
	// (optional; without it the document knows only the gateway's answers).
	Doc *RouteDoc
	// SenderLimited exempts the route from the gateway's per-caller rate
	// limit: for a machine sender that authenticates every request itself (the
	// processor's signed webhook) and sends everything from a few addresses,
	// retrying what fails; the handler must refuse unauthenticated requests
	// cheaply, before any other work.
	SenderLimited bool
	// StreamBody: the handler reads the request body as it arrives (on a
	// server that streams bodies, c.Context().RequestBodyStream()) and bounds
	// what it reads itself; the gateway forwards it as a stream, at most
	// HTTP_BODY_LIMIT bytes of it. Other routes get the body whole.
	StreamBody bool
	// Handler runs after the access check; c.UserContext() carries the
	// verified caller (Caller), if any, and its token for calls to other
	// services. Path parameters are c.Params(name).
	Handler fiber.Handler
}

// RouteDescriptor is the public description of a route (GET /ops "routes").
type RouteDescriptor struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Access Access `json:"access"`
	// StoreParam: the path parameter naming the store (Route).
	StoreParam string     `json:"storeParam,omitempty"`
	Errors     ErrorStyle `json:"errors,omitempty"`
	Summary    string     `json:"summary,omitempty"`
	Doc        *RouteDoc  `json:"doc,omitempty"`
	// SenderLimited: the gateway applies no per-caller rate limit (Route).
	SenderLimited bool `json:"senderLimited,omitempty"`
	// StreamBody: the body is streamed to the service (Route).
	StreamBody bool `json:"streamBody,omitempty"`
}

// RouteDoc documents a raw route: the request headers and bodies it reads,
// the answers of its handler, and the contract-style error codes it answers
// (in the route's error style). The gateway's own answers (a refused token,
// the rate limit, the service unreachable) need no declaration: the document
// adds them from the route's access and error style.
type RouteDoc struct {
	Description string        `json:"description,omitempty"`
	Headers     []HeaderDoc   `json:"headers,omitempty"`
	Body        []BodyDoc     `json:"body,omitempty"`
	Responses   []ResponseDoc `json:"responses,omitempty"`
	Codes       []apperr.Code `json:"codes,omitempty"`
}

// HeaderDoc is a request or response header.
type HeaderDoc struct {
	Name        string  `json:"name"`
	Required    bool    `json:"required,omitempty"`
	Description string  `json:"description,omitempty"`
	Schema      *Schema `json:"schema,omitempty"`
}

// BodyDoc is a body of one content type; a nil Schema is any bytes (an image).
type BodyDoc struct {
	ContentType string  `json:"contentType"`
	Schema      *Schema `json:"schema,omitempty"`
}

// ResponseDoc is one status a handler answers, with its bodies and headers.
type ResponseDoc struct {
	Status      int         `json:"status"`
	Description string      `json:"description"`
	Bodies      []BodyDoc   `json:"bodies,omitempty"`
	Headers     []HeaderDoc `json:"headers,omitempty"`
}

// JSONBody is an application/json body whose schema is derived from T as
// encoding/json writes it.
func JSONBody[T any]() BodyDoc {
	return BodyDoc{ContentType: fiber.MIMEApplicationJSON, Schema: SchemaFor[T]()}
}

// SchemaFor is the schema of T as encoding/json writes it.
func SchemaFor[T any]() *Schema { return ResultSchemaOf(reflect.TypeOf((*T)(nil)).Elem()) }

// Describe is the route's descriptor.
func (r Route) Describe() RouteDescriptor {
	return RouteDescriptor{Method: r.Method, Path: r.Path, Access: r.Access, StoreParam: r.StoreParam, Errors: r.Errors, Summary: r.Summary, Doc: r.Doc,
		SenderLimited: r.SenderLimited, StreamBody: r.StreamBody}
}

// StreamsBody tells whether a request of method and path is for one of rs
// that streams its body (httpserver.Config.StreamBody); nil when none does.
func StreamsBody(rs []Route) func(method, path string) bool {
	return routesWhere(rs, func(r Route) bool { return r.StreamBody })
}

// routesWhere tells whether a request of method and path is for one of the
// routes of rs that keep accepts; nil when keep accepts none.
func routesWhere(rs []Route, keep func(Route) bool) func(method, path string) bool {
	type route struct {
		method  string
		pattern PathPattern
	}
	var list []route
	for _, r := range rs {
		if !keep(r) {
			continue
		}
		if p, err := CompilePath(r.Path); err == nil {
			list = append(list, route{r.Method, p})
		}
	}
	if len(list) == 0 {
		return nil
	}
	return func(method, path string) bool {
		for _, s := range list {
			if s.method == method && s.pattern.Match(path) {
				return true
			}
		}
		return false
	}
}

// WriteBodyTooLarge answers a request whose body is over the server's limit in
// the route's style: the contract's 400 INVALID_ARGUMENT, or for a route of
// the simple shape 413 { error } (the webhook's documented answer).
func WriteBodyTooLarge(c *fiber.Ctx, style ErrorStyle) error {
	if style != ErrorsSimple {
		return httpserver.WriteError(c, apperr.New(apperr.InvalidArgument, "%s", httpserver.BodyTooLargeMessage))
	}
	return c.Status(fiber.StatusRequestEntityTooLarge).JSON(fiber.Map{"error": httpserver.BodyTooLargeMessage})
}

// BodyTooLarge is httpserver.Config.BodyTooLarge for rs: a request for one
// of them answers in its style (WriteBodyTooLarge); nil when every route
// answers the contract's errors.
func BodyTooLarge(rs []Route) func(c *fiber.Ctx) (bool, error) {
	simple := routesWhere(rs, func(r Route) bool { return r.Errors == ErrorsSimple })
	if simple == nil {
		return nil
	}
	return func(c *fiber.Ctx) (bool, error) {
		if simple(c.Method(), c.Path()) {
			return true, WriteBodyTooLarge(c, ErrorsSimple)
		}
		return false, nil
	}
}

// DescribeRoutes lists the descriptors of rs (never nil, so GET /ops shows []).
func DescribeRoutes(rs []Route) []RouteDescriptor {
	out := make([]RouteDescriptor, 0, len(rs))
	for _, r := range rs {
		out = append(out, r.Describe())
	}
	return out
}

// reservedPaths are served by every service or by the gateway itself: no
// route may take them.
var reservedPaths = map[string]bool{
	"/ops": true, "/livez": true, "/readyz": true, "/health": true, "/metrics": true, "/version": true,
	"/api/query": true, "/api/mutation": true, "/api/operations": true, "/api/openapi.json": true,
	"/": true, "/docs": true, // the gateway's index and API reference (web/apidocs)
}

// reservedPrefixes are the gateway's families of one path per operation
// (/api/query/<area>/<module>/<function>, the same under /api/mutation, and
// Convex's /api/run/...), and the API reference's assets (/docs/...): no
// route may take a path under them.
var reservedPrefixes = []string{"/api/query/", "/api/mutation/", "/api/run/", "/docs/"}

// Validate reports what is wrong with a declaration (services check theirs at
// start; the gateway ignores a route it cannot honour).
func (d RouteDescriptor) Validate() error {
	if d.Method != fiber.MethodGet && d.Method != fiber.MethodPost {
		return fmt.Errorf("ops: route %s %s: method must be GET or POST", d.Method, d.Path)
	}
	switch d.Access {
	case Public, Authenticated, Admin, StoreOwner, StoreOwnerOrAdmin:
	default:
		return fmt.Errorf("ops: route %s %s: access must be %s, %s, %s, %s or %s", d.Method, d.Path,
			Public, Authenticated, Admin, StoreOwner, StoreOwnerOrAdmin)
	}
	if isStoreAccess(d.Access) != (d.StoreParam != "") {
		return fmt.Errorf("ops: route %s %s: a store access level (and only one) names its store's path parameter (StoreParam)", d.Method, d.Path)
	}
	if d.StoreParam != "" && !slices.Contains(strings.Split(d.Path, "/"), ":"+d.StoreParam) {
		return fmt.Errorf("ops: route %s %s: StoreParam %q is not a parameter of the path", d.Method, d.Path, d.StoreParam)
	}
	if d.Errors != ErrorsContract && d.Errors != ErrorsSimple {
		return fmt.Errorf("ops: route %s %s: unknown error style %q", d.Method, d.Path, d.Errors)
	}
	p, err := CompilePath(d.Path)
	if err != nil {
		return err
	}
	// Also a pattern that would match a reserved path ("/:page" takes
	// "/metrics"): the gateway would forward that request to the service.
	for r := range reservedPaths {
		if d.Path == r || p.Match(r) {
			return fmt.Errorf("ops: route path %s is or matches the reserved path %s", d.Path, r)
		}
	}
	// The same probe under each reserved prefix: the route's segments after
	// the prefix's own, parameters filled in.
	segs := strings.Split(strings.TrimPrefix(d.Path, "/"), "/")
	for _, prefix := range reservedPrefixes {
		n := strings.Count(prefix, "/") - 1
		if len(segs) <= n {
			continue
		}
		probe := append(strings.Split(strings.Trim(prefix, "/"), "/"), segs[n:]...)
		for i, s := range probe {
			if strings.HasPrefix(s, ":") {
				probe[i] = "x"
			}
		}
		if p.Match("/" + strings.Join(probe, "/")) {
			return fmt.Errorf("ops: route path %s is or matches a path under %s, reserved for the gateway", d.Path, prefix)
		}
	}
	return nil
}

// CheckRoutes validates a service's routes: each declaration, a handler for
// each, and no two that could match the same request.
func CheckRoutes(rs []Route) error {
	for i, r := range rs {
		d := r.Describe()
		if err := d.Validate(); err != nil {
			return err
		}
		if r.Handler == nil {
			return fmt.Errorf("ops: route %s %s has no handler", r.Method, r.Path)
		}
		for _, o := range rs[:i] {
			if d.Overlaps(o.Describe()) {
				return fmt.Errorf("ops: routes %s %s and %s %s overlap", o.Method, o.Path, r.Method, r.Path)
			}
		}
	}
	return nil
}

// CheckRoutes is CheckRoutes plus what the routes' access levels need of
// the registry: the Store resolver for a store level.
func (r *Registry) CheckRoutes(rs []Route) error {
	if err := CheckRoutes(rs); err != nil {
		return err
	}
	for _, rt := range rs {
		if isStoreAccess(rt.Access) && r.resolvers.Store == nil {
			return fmt.Errorf("ops: route %s %s needs a store resolver (Registry.WithResolvers)", rt.Method, rt.Path)
		}
	}
	return nil
}

// Overlaps reports whether one request could match both d and o.
func (d RouteDescriptor) Overlaps(o RouteDescriptor) bool {
	if d.Method != o.Method {
		return false
	}
	a, b := strings.Split(d.Path, "/"), strings.Split(o.Path, "/")
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !isParam(a[i]) && !isParam(b[i]) {
			return false
		}
	}
	return true
}

// PathPattern is a compiled route path.
type PathPattern struct {
	segments []string // literal segments, or "" for a parameter
}

func isParam(seg string) bool { return strings.HasPrefix(seg, ":") }

// CompilePath checks and compiles a route path.
func CompilePath(path string) (PathPattern, error) {
	bad := func(why string) (PathPattern, error) {
		return PathPattern{}, fmt.Errorf("ops: route path %q: %s", path, why)
	}
	if !strings.HasPrefix(path, "/") || path == "/" {
		return bad("must start with / and name something")
	}
	var p PathPattern
	names := map[string]bool{}
	for _, seg := range strings.Split(path[1:], "/") {
		switch {
		case seg == "":
			return bad("empty segment (or trailing slash)")
		case isParam(seg):
			name := seg[1:]
			if name == "" || !safeSegment(name, false) || names[name] {
				return bad("parameter " + seg + " must be a unique name of letters, digits, _ and -")
			}
			names[name] = true
			p.segments = append(p.segments, "")
		case seg == "." || seg == "..":
			return bad("dot segment")
		case !safeSegment(seg, true):
			return bad("segment " + seg + " may hold only letters, digits, _, - and .")
		default:
			p.segments = append(p.segments, seg)
		}
	}
	return p, nil
}

// safeSegment: [A-Za-z0-9_-]+, plus '.' when dot is true.
func safeSegment(s string, dot bool) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
		case c == '.' && dot:
		default:
			return false
		}
	}
	return true
}

// Match reports whether a request's path, exactly as the client sent it (not
// decoded, not cleaned), matches: literal segments byte for byte, each
// parameter one segment of [A-Za-z0-9_-] of at most MaxParamLength. A path
// that matches is made of safe characters only, so it can be forwarded as is.
func (p PathPattern) Match(path string) bool {
	if !strings.HasPrefix(path, "/") {
		return false
	}
	rest := path[1:]
	for i, lit := range p.segments {
		seg := rest
		next := strings.IndexByte(rest, '/')
		if next >= 0 {
			seg, rest = rest[:next], rest[next+1:]
		} else {
			rest = ""
		}
		last := i == len(p.segments)-1
		if (next >= 0) == last { // a segment too many, or too few
			return false
		}
		if lit != "" {
			if seg != lit {
				return false
			}
		} else if len(seg) > MaxParamLength || !safeSegment(seg, false) {
			return false
		}
	}
	return true
}

// WriteRouteError answers err in the route's error style.
func WriteRouteError(c *fiber.Ctx, style ErrorStyle, err error) error {
	if style != ErrorsSimple {
		return httpserver.WriteError(c, err)
	}
	e := apperr.From(err)
	body := fiber.Map{"error": e.Message}
	switch e.Code {
	case apperr.Unavailable, apperr.RateLimited:
		if ra := c.GetRespHeader(fiber.HeaderRetryAfter); ra != "" {
			var secs int
			if _, err := fmt.Sscan(ra, &secs); err == nil {
				body["retryAfter"] = secs
			}
		}
	}
	return c.Status(e.Code.Status()).JSON(body)
}

// mountRoutes adds the declared routes to app, each behind its access check:
// a presented bearer token is verified on every route (a bad one is refused
// even on a public route, as on public operations), a route of any other
// level than Public refuses anonymous callers (401), an Admin route callers
// without the admin role (403), and a store route resolves the store its
// StoreParam names (404 when there is none) and refuses a caller who is not
// its owner (nor, for StoreOwnerOrAdmin, an administrator) (403). All of it
// before the handler runs, so before any byte of its answer.
func (s *Server) mountRoutes(app *fiber.App) {
	for _, r := range s.Routes {
		app.Add(r.Method, r.Path, func(c *fiber.Ctx) error {
			c.Locals("op", r.Method+" "+r.Path)
			ctx, err := Identify(c.UserContext(), s.Verifier, c.Get(fiber.HeaderAuthorization))
			if err == nil {
				ctx, err = s.routeAccess(ctx, r, c.Params)
			}
			if err != nil {
				return WriteRouteError(c, r.Errors, err)
			}
			if rid, ok := c.Locals("requestid").(string); ok {
				ctx = withRequestID(ctx, rid)
			}
			if r.Method != fiber.MethodGet && r.Method != fiber.MethodHead {
				ctx = trackLive(c, ctx, Mutation) // its writes, for live queries
				defer setLiveHeader(c)
			}
			c.SetUserContext(ctx)
			return r.Handler(c)
		})
	}
}

// routeAccess applies r's access level to the caller in ctx (Identify's),
// param giving the request's path parameters; it returns ctx carrying the
// resolved store (StoreOf) for a store level.
func (s *Server) routeAccess(ctx context.Context, r Route, param func(string, ...string) string) (context.Context, error) {
	if !r.Access.NeedsIdentity() {
		return ctx, nil
	}
	caller := auth.FromContext(ctx)
	if caller == nil {
		return ctx, apperr.New(apperr.Unauthenticated, "%s %s needs a bearer token", r.Method, r.Path)
	}
	switch {
	case r.Access == Admin && !caller.IsAdmin():
		return ctx, apperr.New(apperr.PermissionDenied, "%s %s is for administrators", r.Method, r.Path)
	case isStoreAccess(r.Access):
		res := Resolvers{}
		if s.Registry != nil {
			res = s.Registry.resolvers
		}
		if res.Store == nil { // Registry.CheckRoutes refuses this at start
			return ctx, apperr.New(apperr.Internal, "%s %s: no store resolver", r.Method, r.Path)
		}
		storeID := param(r.StoreParam)
		st, err := res.Store(ctx, storeID)
		if err != nil {
			return ctx, err
		}
		if st == nil {
			return ctx, apperr.New(apperr.NotFound, "store %s does not exist", storeID)
		}
		if st.OwnerUserID != caller.Sub && (r.Access != StoreOwnerOrAdmin || !caller.IsAdmin()) {
			who := "the store's owner"
			if r.Access == StoreOwnerOrAdmin {
				who += " or an administrator"
			}
			return ctx, apperr.New(apperr.PermissionDenied, "%s %s is for %s", r.Method, r.Path, who)
		}
		return WithStore(ctx, st), nil
	}
	return ctx, nil
}
