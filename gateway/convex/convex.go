package convex

// Convex's clients (platform contract, section 8). The interface's first apps
// were written for Convex, with its npm package (ConvexHttpClient, ConvexClient,
// ConvexReactClient); the gateway answers them as a Convex deployment does, so
// an app moves here by changing its deployment URL:
//
//	POST /api/query, /api/mutation, /api/action   with a Convex-Client header
//	POST /api/run/<area>/<module>/<function>      always
//	GET  /api/sync, /api/<client version>/sync    the WebSocket sync protocol (sync.go; the version: version.go)
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
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"marketplace/gateway/internal/ratelimit"
	"marketplace/gateway/internal/request"
	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
)

// HeaderClient is the header Convex's clients send with every request
// ("npm-1.48.0"); its presence selects Convex's answer shapes.
const HeaderClient = "Convex-Client"

// countRequests counts the ordinary requests in flight (x.requests).
func (x *Layer) countRequests(c *fiber.Ctx) error {
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

// kindAction is how /api/action and the Action message call a function. The
// platform has no actions: every operation is a query or a mutation.
const kindAction ops.Kind = "action"

// httpCall answers /api/query, /api/mutation and /api/action for requests
// with a Convex-Client header; the others go on to the contract's handlers.
// byURL: an operation's own path (OperationURL), whose URL names it and
// whose body is its arguments, answered in Convex's shapes as /api/run is
// but with the kind checked as on /api/query and /api/mutation.
func (x *Layer) httpCall(kind ops.Kind, byURL bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(c.Request().Header.Peek(HeaderClient)) == 0 {
			return c.Next()
		}
		var req convexRequest
		err := request.PlainBody(c) // before c.Body(), which would inflate it
		if err == nil && byURL {
			req.path, err = request.OperationOfURL(c, kind)
			req.args = c.Body()
		} else if err == nil {
			req, err = parseConvexBody(c.Body(), true)
		}
		return x.answerHTTP(c, kind, req, err)
	}
}

// httpRun answers POST /api/run/<module path>/<function>: any kind of
// function, its path in the URL, JSON ("json") values by default.
func (x *Layer) httpRun(c *fiber.Ctx) error {
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
	if err := request.PlainBody(c); err != nil { // before c.Body(), which would inflate it
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
func (x *Layer) answerHTTP(c *fiber.Ctx, kind ops.Kind, req convexRequest, malformed error) error {
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
		ctx, err = ops.Identify(ctx, x.verifier, header)
	}
	caller := ratelimit.AnonymousKey(c.IP())
	id := auth.FromContext(ctx)
	if id != nil {
		caller = "sub:" + id.Sub
	}
	if !x.host.Allow(caller) {
		c.Set(fiber.HeaderRetryAfter, "1")
		return x.writeConvex(c, outcome{Err: apperr.New(apperr.RateLimited, "too many requests; retry shortly")})
	}
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	idemKey, _, err := ops.IdempotencyKeyOf(&c.Request().Header)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	rid, _ := c.Locals("requestid").(string)
	out := x.invoke(c.UserContext(), Call{
		Kind: kind, Path: path, Args: args, Token: bearerToken(header), Identity: id,
		IdempotencyKey: idemKey, RequestID: rid, IP: c.IP(),
	})
	switch {
	case out.Kind != ops.Mutation:
	case out.Err == nil && out.Writes == "":
		x.Unstated(out.Service)
	case out.Err == nil || outcomeUnknown(out.Err) || out.Writes != "":
		x.Invalidate(out.Service, out.Writes)
	}
	if out.Err != nil && out.Err.Code == apperr.Unavailable {
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
func (x *Layer) writeConvex(c *fiber.Ctx, out outcome) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	if out.Err == nil {
		return c.Send(successBody(out.Value))
	}
	rid, _ := c.Locals("requestid").(string)
	x.logInternal(out.Err, "request_id", rid, "op", c.Locals("op"))
	return c.Send(errorBody(out.Err))
}

// logInternal logs the cause of an INTERNAL failure the gateway itself made
// (one a service answered, the service logged).
func (x *Layer) logInternal(e *apperr.Error, attrs ...any) {
	if e.Code == apperr.Internal && apperr.Describe(e) != e.Error() {
		x.logger.Error("internal error", append(attrs, "err", apperr.Describe(e))...)
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

// invoke runs an operation for a Convex client through the host, with the
// same rules as POST /api/query and /api/mutation (the table's kind and
// access checks, then the service's own). An action names the operation's
// kind instead: the platform has none.
func (x *Layer) invoke(ctx context.Context, in Call) Outcome {
	if in.Kind == kindAction {
		svc, kind, err := x.host.Owner(in.Path)
		if err != nil {
			return Outcome{Err: x.unknownFunction(in.Path, err)}
		}
		return Outcome{Service: svc, Kind: kind,
			Err: apperr.New(apperr.InvalidArgument, "%s is a %s, not an action: call it as a %s", convexName(in.Path), kind, kind)}
	}
	out := x.host.Invoke(ctx, in)
	if out.Err != nil && out.Service == "" {
		out.Err = x.unknownFunction(in.Path, out.Err)
	}
	return out
}

// unknownFunction words the host's answer for a path no service owns as
// Convex does ("Could not find public function for 'a/b:c'."), keeping the
// contract's code and details (the nearest public names); the host's other
// refusals (an operation of a contract version it does not serve) pass as
// they are.
func (x *Layer) unknownFunction(path string, e *apperr.Error) *apperr.Error {
	if e.Code != apperr.NotFound || e.Details["reason"] != ops.ReasonUnknownOperation {
		return e
	}
	return apperr.New(apperr.NotFound, "Could not find public function for '%s'.", convexName(path)).WithDetails(e.Details)
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
	if len(p) > request.MaxOperationPath {
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
	v, err := ops.ArgsValue(raw)
	switch {
	case err != nil:
		return nil, err
	case v == nil:
		return []byte("{}"), nil
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
	b, err := ops.PlainJSON(plain)
	if err != nil {
		return nil, apperr.Invalid("args", "%v", err)
	}
	return b, nil
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
