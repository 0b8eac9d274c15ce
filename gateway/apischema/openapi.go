package apischema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
)

// The OpenAPI document (3.1, JSON Schema 2020-12). Each public operation is
// a POST on its own path /api/<kind>/<area>/<module>/<function> (CallPath),
// for generated clients: its arguments object as the body, its return value
// as the 200 answer, and each error status it can answer with the contract's
// error body; and again on its Convex-style path /api/run/<area>/<module>/
// <function>, for Convex's clients, which answers failures with HTTP 200.
// Both carry its argument and return schemas (components "<path>.Args" and
// "<path>.Returns"), its access (the bearer security scheme, with the admin
// role where needed) and, for mutations, the Idempotency-Key header;
// /api/query and /api/mutation are described once each, their bodies one of
// the operations' { path, args }. The raw routes
// the services declare (the processor's webhook, the media routes) follow
// with their own documentation, and the gateway's own routes last.

// Version is the document's info.version: the interface has one version.
const Version = "1.0.0"

type obj = map[string]any

const (
	schemaRef   = "#/components/schemas/"
	bearer      = "bearerAuth"
	mimeJSON    = "application/json"
	mimeText    = "text/plain"
	headerConvx = "Convex-Client"
)

// allCodes are the contract's codes in its order (section 2).
var allCodes = []apperr.Code{apperr.InvalidArgument, apperr.Unauthenticated, apperr.PermissionDenied, apperr.NotFound,
	apperr.AlreadyExists, apperr.FailedPrecondition, apperr.RateLimited, apperr.Unavailable, apperr.Internal}

// codeMeaning is each code's "when" of the contract's table.
var codeMeaning = map[apperr.Code]string{
	apperr.InvalidArgument:    "malformed JSON, unknown or missing arguments, wrong types, values out of range, malformed ids",
	apperr.Unauthenticated:    "a missing, expired or invalid bearer token where one is required (a presented token that does not verify is refused everywhere)",
	apperr.PermissionDenied:   "authenticated but not allowed (not the author, not the store's owner, not an administrator, someone else's record)",
	apperr.NotFound:           "a referenced record does not exist; also an unknown operation",
	apperr.AlreadyExists:      "a uniqueness rule",
	apperr.FailedPrecondition: "a state rule (details.reason idempotency_key_in_use: a call with the same Idempotency-Key is still running)",
	apperr.RateLimited:        "too many requests from one caller (Retry-After header)",
	apperr.Unavailable:        "a dependency is down; safe to retry (Retry-After header)",
	apperr.Internal:           "a bug; never for bad input",
}

var accessMeaning = map[ops.Access]string{
	ops.Public:            "no token needed; a presented token is still verified (an invalid one is UNAUTHENTICATED), and callers who present one may see more",
	ops.Authenticated:     "any caller with a valid bearer token",
	ops.Customer:          "a caller acting as their customer profile (a mutation by a caller without one is FAILED_PRECONDITION: call customers.profile.upsertMyProfile first)",
	ops.StoreOwner:        "the owner of the store its store argument names (another caller: PERMISSION_DENIED; a missing store: NOT_FOUND)",
	ops.StoreOwnerOrAdmin: "the owner of the store its store argument names, or an administrator",
	ops.Admin:             "callers whose token's roles claim holds admin; an adminUserId argument must be the caller's own sub",
}

// intro is the document's description (Markdown): its placeholders, such
// as <area>, are in code, where a renderer does not take them for HTML tags.
var intro = strings.Join([]string{
	"The marketplace's public API, generated from the services' declarations (`GET /ops` of each), served by the gateway at `GET /api/openapi.json` and kept in `docs/openapi.json`.",
	"Every operation is called in three ways; all three run the same checks and the same code:",
	"- **Its own path, for generated clients** (openapi-typescript, openapi-fetch, openapi-generator, ...): `POST /api/query/<area>/<module>/<function>` for a query, `POST /api/mutation/<area>/<module>/<function>` for a mutation, the body its arguments object (nothing or `{}` when it takes none). Success is HTTP 200 and the return value; a failure is a non-2xx status (each error code has one: 400, 401, 403, 404, 409, 429, 503, 500) and `{\"error\":{\"code\",\"message\",\"details\"?}}`. These are the entries to generate a client from: their operationIds are `<kind>.<area>.<module>.<function>`. Here they are grouped by area, in a tag per module, each named by the operation's path (`<area>.<module>.<function>`).\n" +
		"- **`/api/query` and `/api/mutation`, for hand-written calls** (curl, fetch): the body `{\"path\":\"<area>.<module>.<function>\",\"args\":{...}}`, with the same answers.\n" +
		"- **`/api/run/<area>/<module>/<function>` and the WebSocket sync endpoint (`/api/sync`, `/api/<client version>/sync`), for Convex's clients** (ConvexHttpClient, ConvexClient, ConvexReactClient): answered as Convex answers, HTTP 200 with `{\"status\":\"success\",\"value\":...}` or `{\"status\":\"error\",\"errorMessage\":...,\"errorData\":{\"code\":...}}`, so a generated client would see every failure as a success; their operationIds are the plain paths `<area>.<module>.<function>`. Here they are grouped apart, last (" + convexGroup + "), each named as Convex's clients name it (`<area>/<module>:<function>`). A request with a `Convex-Client` header is answered in Convex's shapes on every path.",
	"Each operation's x-marketplace extension says where it is called.",
	"Money crosses the interface as numbers of AED with at most two decimals; timestamps are epoch milliseconds; ids are opaque strings (a malformed id is INVALID_ARGUMENT; a query that fetches one record by id returns null for a well-formed id of a missing record). Mutations honour an `Idempotency-Key` header (1 to 255 printable ASCII characters): a repeat with the same key, operation and arguments gets the kept answer (header `Idempotent-Replayed: true`) and changes nothing.",
}, "\n\n")

// OpenAPI renders the document as JSON indented to layoutDepth, compact
// below it (with a final newline).
func (a *API) OpenAPI() ([]byte, error) {
	schemas := obj{}
	for k, v := range commonSchemas() {
		schemas[k] = v
	}
	paths := obj{}
	var queries, mutations []Operation
	responses := runErrorResponses() // with the own paths' shared error answers
	for _, o := range a.Operations {
		schemas[o.Path+".Args"] = o.ArgsSchema
		schemas[o.Path+".Returns"] = returnsOrAny(o.Returns)
		paths[CallPath(o.Kind, o.Path)] = obj{"post": callPathOperation(o, responses)}
		paths[RunPath(o.Path)] = obj{"post": runOperation(o)}
		if o.Kind == ops.Mutation {
			mutations = append(mutations, o)
		} else {
			queries = append(queries, o)
		}
	}
	paths["/api/run/{area}/{module}/{function}"] = obj{"post": runUnknown()}
	paths["/api/query/{area}/{module}/{function}"] = obj{"post": callPathUnknown(ops.Query)}
	paths["/api/mutation/{area}/{module}/{function}"] = obj{"post": callPathUnknown(ops.Mutation)}
	paths["/api/query"] = obj{"post": callOperation(ops.Query, queries)}
	paths["/api/mutation"] = obj{"post": callOperation(ops.Mutation, mutations)}
	for _, r := range a.Routes {
		p := openAPIPath(r.Path)
		item, _ := paths[p].(obj)
		if item == nil {
			item = obj{}
			paths[p] = item
		}
		item[strings.ToLower(r.Method)] = routeOperation(r)
	}
	for p, item := range gatewayRoutes() {
		paths[p] = item
	}
	tags, groups := a.tagsAndGroups()

	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title":       "Marketplace API",
			"version":     Version,
			"description": intro,
		},
		"servers":     []obj{{"url": "/", "description": "the gateway that serves this document (make run: http://127.0.0.1:8080)"}},
		"tags":        tags,
		"x-tagGroups": groups,
		"paths":       paths,
		"components": obj{
			"schemas":   schemas,
			"responses": responses,
			"securitySchemes": obj{bearer: obj{
				"type": "http", "scheme": "bearer", "bearerFormat": "JWT",
				"description": "A JWT whose sub is the user id; its roles claim (an array of strings) may hold admin. Production tokens are RS256/ES256 from the identity provider (AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE); in development, HS256 tokens signed with AUTH_DEV_SECRET (`make token SUB=<user> ROLES=admin`). In the security requirements, the admin role is listed where an operation needs it.",
			}},
			"parameters": obj{
				"IdempotencyKey": obj{
					"name": ops.HeaderIdempotencyKey, "in": "header", "required": false,
					"description": "Makes a retried mutation safe: the first call with a key runs, and its answer (status and body) is kept for at least 24 hours per caller and key; a repeat with the same operation and arguments gets the kept answer and changes nothing. The same key with another operation or other arguments is INVALID_ARGUMENT (details.reason idempotency_key_reused); while the first call runs, FAILED_PRECONDITION (details.reason idempotency_key_in_use).",
					"schema":      obj{"type": "string", "minLength": 1, "maxLength": 255, "pattern": `^[\x21-\x7E]([\x20-\x7E]*[\x21-\x7E])?$`},
				},
				"ConvexClient": obj{
					"name": headerConvx, "in": "header", "required": false,
					"description": "Sent by Convex's client libraries (e.g. npm-1.48.0): the answer then takes Convex's shape (HTTP 200 with status success or error).",
					"schema":      obj{"type": "string"},
				},
			},
			"headers": obj{
				"IdempotentReplayed": obj{
					"description": "true when the answer is the one kept for an earlier call with the same Idempotency-Key",
					"schema":      obj{"type": "string", "enum": []string{"true"}},
				},
				"RetryAfter": obj{
					"description": "seconds to wait before retrying",
					"schema":      obj{"type": "integer", "minimum": 0},
				},
			},
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return indentTo(buf.Bytes(), layoutDepth), nil
}

// layoutDepth is how deep the document is indented: a line for each member
// down to an operation's fields (paths, its path, its method, then
// description, requestBody, responses...) and a schema's keywords
// (components, schemas, the schema, then properties, required...); below,
// compact JSON. Fully indented the document was 1.5 MiB, two thirds of it
// spaces and line breaks, over the repository's 1 MiB file rule; so it is
// about 0.85 MiB and a change still shows as the lines of the operations
// and schemas it touches (docs/adr/0014).
const layoutDepth = 4

// indentTo lays out compact JSON (one value, as json.Encoder writes it:
// no spaces outside strings, a final newline) with the members and
// elements of its objects and arrays down to depth on lines of their own,
// indented by two spaces a level, and what is deeper compact; empty ones
// stay {} and []. Only white space outside strings changes.
func indentTo(compact []byte, depth int) []byte {
	out := make([]byte, 0, len(compact)+len(compact)/16)
	level := 0
	inString, escaped := false, false
	newline := func(n int) {
		out = append(out, '\n')
		for range n {
			out = append(out, ' ', ' ')
		}
	}
	for i := 0; i < len(compact); i++ {
		c := compact[i]
		if inString {
			out = append(out, c)
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			out = append(out, c)
		case '{', '[':
			if i+1 < len(compact) && (compact[i+1] == '}' || compact[i+1] == ']') {
				out = append(out, c, compact[i+1])
				i++
				continue
			}
			level++
			out = append(out, c)
			if level <= depth {
				newline(level)
			}
		case '}', ']':
			if level <= depth {
				newline(level - 1)
			}
			level--
			out = append(out, c)
		case ',':
			out = append(out, c)
			if level <= depth {
				newline(level)
			}
		case ':':
			out = append(out, c)
			if level <= depth {
				out = append(out, ' ')
			}
		case ' ', '\t', '\r', '\n':
			// white space outside strings: the layout's own
		default:
			out = append(out, c)
		}
	}
	return append(out, '\n')
}

func ref(name string) obj { return obj{"$ref": schemaRef + name} }

func returnsOrAny(s *ops.Schema) any {
	if s == nil {
		return obj{}
	}
	return s
}

// commonSchemas are the bodies shared by every operation.
func commonSchemas() obj {
	codes := make([]string, len(allCodes))
	for i, c := range allCodes {
		codes[i] = string(c)
	}
	return obj{
		"ErrorCode": obj{"type": "string", "enum": codes, "description": "The contract's error codes (section 2); each has one HTTP status on an operation's own path (/api/query/..., /api/mutation/...) and on /api/query and /api/mutation:\n\n" + errorTable(allCodes)},
		"Error": obj{
			"type": "object", "required": []string{"error"},
			"description": "The contract's error body (section 2).",
			"properties": obj{"error": obj{
				"type": "object", "required": []string{"code", "message"},
				"properties": obj{
					"code":    ref("ErrorCode"),
					"message": obj{"type": "string", "description": "human readable"},
					"details": ref("ErrorDetails"),
				},
			}},
		},
		"SimpleError": obj{
			"type": "object", "required": []string{"error"},
			"description": "The webhook's error body: a message, with retryAfter (seconds) when a retry can help.",
			"properties": obj{
				"error":      obj{"type": "string"},
				"retryAfter": obj{"type": "integer", "minimum": 0},
			},
		},
		"ErrorDetails": obj{
			"type": "object", "additionalProperties": true, "properties": detailsProps,
			"description": "An error's structured details: which members it has depends on the code and the reason; other members may be added.",
		},
		"ConvexErrorData": obj{
			"type": "object", "required": []string{"code"}, "additionalProperties": true,
			"description": "A failed operation's errorData: the contract's code with the error's details beside it (those of ErrorDetails). Convex clients raise it as a ConvexError whose data is this object.",
			"properties":  withCode(detailsProps),
		},
		"ConvexFailure": obj{
			"type": "object", "required": []string{"status", "errorMessage", "errorData"},
			"properties": obj{
				"status":       obj{"const": "error"},
				"errorMessage": obj{"type": "string"},
				"errorData":    ref("ConvexErrorData"),
				"logLines":     obj{"type": "array", "items": obj{"type": "string"}},
			},
		},
		"ConvexSuccess": obj{
			"type": "object", "required": []string{"status", "value"},
			"properties": obj{
				"status":   obj{"const": "success"},
				"value":    obj{"description": "the operation's return value"},
				"logLines": obj{"type": "array", "items": obj{"type": "string"}},
			},
		},
	}
}

// security is an operation's security requirement: optional for public
// operations (a presented token is verified), the admin role for admin ones.
func security(a ops.Access) []obj {
	switch a {
	case ops.Public:
		return []obj{{}, {bearer: []string{}}}
	case ops.Admin:
		return []obj{{bearer: []string{"admin"}}}
	}
	return []obj{{bearer: []string{}}}
}

func statusesOf(codes []apperr.Code) map[int][]apperr.Code {
	out := map[int][]apperr.Code{}
	for _, c := range codes {
		out[c.Status()] = append(out[c.Status()], c)
	}
	return out
}

func codeStrings(codes []apperr.Code) []string {
	out := make([]string, len(codes))
	for i, c := range codes {
		out[i] = string(c)
	}
	return out
}

// errorTable is the Markdown list of codes with their statuses.
func errorTable(codes []apperr.Code) string {
	var b strings.Builder
	b.WriteString("| code | HTTP (own path, /api/query, /api/mutation) | when |\n|---|---|---|\n")
	for _, c := range codes {
		fmt.Fprintf(&b, "| %s | %d | %s |\n", c, c.Status(), codeMeaning[c])
	}
	return b.String()
}

// errorResponse is a non-2xx response of contract errors limited to codes.
func errorResponse(codes []apperr.Code) obj {
	desc := make([]string, len(codes))
	for i, c := range codes {
		desc[i] = string(c) + ": " + codeMeaning[c]
	}
	schema := obj{"allOf": []any{ref("Error"), obj{"properties": obj{"error": obj{"properties": obj{"code": obj{"enum": codeStrings(codes)}}}}}}}
	r := obj{"description": strings.Join(desc, "; "), "content": obj{mimeJSON: obj{"schema": schema}}}
	for _, c := range codes {
		if c == apperr.RateLimited || c == apperr.Unavailable {
			r["headers"] = obj{"Retry-After": obj{"$ref": "#/components/headers/RetryAfter"}}
		}
	}
	return r
}

func marketplaceExt(o Operation) obj {
	ext := obj{
		"path": o.Path, "kind": o.Kind, "access": o.Access, "service": o.Service,
		"endpoint": "/api/" + string(o.Kind), "convexName": ConvexName(o.Path),
	}
	if o.StoreArg != "" {
		ext["storeArg"] = o.StoreArg
	}
	errs := obj{}
	for _, c := range o.Errors {
		errs[string(c)] = c.Status()
	}
	ext["errors"] = errs
	return ext
}

// runOperation is an operation's entry on /api/run/<area>/<module>/<function>.
func runOperation(o Operation) obj {
	var d strings.Builder
	fmt.Fprintf(&d, "%s\n\nA %s; access `%s`: %s.", o.Summary, o.Kind, o.Access, accessMeaning[o.Access])
	if o.StoreArg != "" {
		fmt.Fprintf(&d, " The store is the one `%s` names.", o.StoreArg)
	}
	deprecatedNote(&d, o)
	fmt.Fprintf(&d, "\n\n**For Convex's clients** (`%s`): failures are answered with HTTP 200. Generated clients call POST %s instead (operationId `%s`), whose failures have their own statuses; hand-written calls may use POST /api/%s with {\"path\": \"%s\", \"args\": {...}}.\n\nError codes, here in errorData.code with HTTP 200 (except INTERNAL: HTTP 500 and the contract's error body): %s; what each means is in ErrorCode and in the responses of POST %s.",
		ConvexName(o.Path), CallPath(o.Kind, o.Path), CallOperationID(o.Kind, o.Path), o.Kind, o.Path, strings.Join(codeStrings(o.Errors), ", "), CallPath(o.Kind, o.Path))
	success := obj{"allOf": []any{ref("ConvexSuccess"), obj{"required": []string{"value"}, "properties": obj{"value": ref(o.Path + ".Returns")}}}}
	failure := obj{"allOf": []any{ref("ConvexFailure"), obj{"properties": obj{"errorData": obj{"properties": obj{"code": obj{"enum": convexCodes(o.Errors)}}}}}}}
	op := obj{
		"operationId":   o.Path,
		"summary":       ConvexName(o.Path),
		"description":   d.String(),
		"tags":          []string{ConvexTag(Area(o.Path))},
		"security":      security(o.Access),
		"x-marketplace": marketplaceExt(o),
		"requestBody": obj{
			"required": false,
			"content": obj{mimeJSON: obj{"schema": obj{
				"type": "object",
				"properties": obj{
					"args": obj{"anyOf": []any{ref(o.Path + ".Args"), obj{
						"type": "array", "items": ref(o.Path + ".Args"), "minItems": 1, "maxItems": 1,
					}}, "description": "the arguments, as an object or as a one-element array; absent means {}"},
					"format": obj{"type": "string", "enum": []string{"json", "convex_encoded_json"}},
				},
			}}},
		},
		"responses": runResponses(o, success, failure),
	}
	if o.Kind == ops.Mutation {
		op["parameters"] = []any{obj{"$ref": "#/components/parameters/IdempotencyKey"}}
	}
	if o.Deprecated != "" {
		op["deprecated"] = true
	}
	return op
}

// deprecatedNote adds a deprecated operation's note to its description.
func deprecatedNote(d *strings.Builder, o Operation) {
	if o.Deprecated != "" {
		fmt.Fprintf(d, "\n\n**Deprecated**: %s.", o.Deprecated)
	}
}

// callPathOperation is an operation's entry on its own path (CallPath): the
// body its arguments, the 200 its return value, each error status with the
// contract's body limited to the codes of that status.
func callPathOperation(o Operation, shared obj) obj {
	var d strings.Builder
	fmt.Fprintf(&d, "%s\n\nA %s; access `%s`: %s.", o.Summary, o.Kind, o.Access, accessMeaning[o.Access])
	if o.StoreArg != "" {
		fmt.Fprintf(&d, " The store is the one `%s` names.", o.StoreArg)
	}
	deprecatedNote(&d, o)
	fmt.Fprintf(&d, "\n\nThe body is the arguments object. The same operation is POST /api/%s with {\"path\": \"%s\", \"args\": {...}}, and, for Convex's clients, POST %s (`%s`).\n\nError codes: %s; each is answered with its status (the responses below) and the contract's error body.",
		o.Kind, o.Path, RunPath(o.Path), ConvexName(o.Path), strings.Join(codeStrings(o.Errors), ", "))
	ok := obj{
		"description": "the return value",
		"content":     obj{mimeJSON: obj{"schema": ref(o.Path + ".Returns")}},
	}
	op := obj{
		"operationId":   CallOperationID(o.Kind, o.Path),
		"summary":       o.Path,
		"description":   d.String(),
		"tags":          []string{OperationTag(o.Path)},
		"security":      security(o.Access),
		"x-marketplace": marketplaceExt(o),
		"requestBody": obj{
			// Required when an argument is: openapi-fetch then asks for it.
			"required": o.ArgsSchema != nil && len(o.ArgsSchema.Required) > 0,
			"content":  obj{mimeJSON: obj{"schema": ref(o.Path + ".Args")}},
		},
	}
	if o.Kind == ops.Mutation {
		op["parameters"] = []any{obj{"$ref": "#/components/parameters/IdempotencyKey"}}
		ok["headers"] = obj{ops.HeaderIdempotentReplayed: obj{"$ref": "#/components/headers/IdempotentReplayed"}}
	}
	responses := obj{"200": ok}
	for status, cs := range statusesOf(o.Errors) {
		responses[strconv.Itoa(status)] = sharedErrorResponse(shared, cs)
	}
	op["responses"] = responses
	if o.Deprecated != "" {
		op["deprecated"] = true
	}
	return op
}

// sharedErrorResponse is a reference to the error answer of codes (one
// status), added to shared (components.responses) under a name of its
// codes the first time: "NotFound", "AlreadyExistsOrFailedPrecondition".
func sharedErrorResponse(shared obj, codes []apperr.Code) obj {
	var name strings.Builder
	for i, c := range codes {
		if i > 0 {
			name.WriteString("Or")
		}
		for _, w := range strings.Split(strings.ToLower(string(c)), "_") {
			name.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	if _, ok := shared[name.String()]; !ok {
		shared[name.String()] = errorResponse(codes)
	}
	return obj{"$ref": "#/components/responses/" + name.String()}
}

// detailsProps are the members an error's details may have, as the
// services and the gateway write them (apperr's WithDetails).
var detailsProps = obj{
	"field":                  obj{"type": "string", "description": "the offending argument, as a path into the arguments (e.g. bankDetails.IBAN, items[0].quantity)"},
	"reason":                 obj{"type": "string", "description": "why, for a program: e.g. unknown_operation, unknown_argument, idempotency_key_reused, idempotency_key_in_use, status_not_allowed, insufficient_balance, payout_status, empty_cart, store_closed, contract_version_unsupported"},
	"header":                 obj{"type": "string", "description": "the offending request header (Idempotency-Key, Content-Encoding, ...)"},
	"suggestions":            obj{"type": "array", "items": obj{"type": "string"}, "description": "the nearest names: operations for an unknown operation, arguments for an unknown argument"},
	"current":                obj{"type": "string", "description": "status_not_allowed: the order's current status"},
	"requested":              obj{"type": "string", "description": "status_not_allowed: the status asked for"},
	"allowed":                obj{"type": "array", "items": obj{"type": "string"}, "description": "status_not_allowed: the statuses the order may move to from its current one"},
	"status":                 obj{"type": "string", "description": "payout_status: the payout's current status"},
	"balance":                obj{"type": "string", "description": "insufficient_balance: which balance is short (available or pending)"},
	"amount":                 obj{"type": "number", "description": "the amount asked for, AED"},
	"minPayoutAmount":        obj{"type": "number", "description": "the smallest payout, AED"},
	"maxPayoutAmount":        obj{"type": "number", "description": "the largest payout, AED"},
	"processingFee":          obj{"type": "number", "description": "the fee kept from each payout, AED"},
	"availableBalance":       obj{"type": "number", "description": "the wallet's available balance, AED"},
	"pendingBalance":         obj{"type": "number", "description": "the wallet's pending (held) balance, AED"},
	"pendingBalanceHoldDays": obj{"type": "integer", "description": "how many days earnings are held after delivery"},
	"nextReleaseAt":          obj{"type": "integer", "description": "when the oldest held earning is released, epoch milliseconds"},
	"nextReleaseAmount":      obj{"type": "number", "description": "how much is released then, AED"},
	"productIds":             obj{"type": "array", "items": obj{"type": "string"}, "description": "unavailable_products: the products that cannot be ordered"},
	"limit":                  obj{"type": "string", "description": "which limit refused the request (uploadRate, dailyUploadBytes, maxStoredBytes)"},
	"retryAfterSeconds":      obj{"type": "integer", "description": "seconds until a retry can succeed (as the Retry-After header)"},
	"maxBytes":               obj{"type": "integer", "description": "the largest accepted body, bytes"},
	"dailyUploadBytes":       obj{"type": "integer", "description": "the daily upload quota, bytes"},
	"service":                obj{"type": "string", "description": "contract_version_unsupported: the service concerned"},
	"contract":               obj{"type": "string", "description": "contract_version_unsupported: public or internal"},
	"declared":               obj{"type": "string", "description": "contract_version_unsupported: the version the service implements"},
	"serves":                 obj{"type": "string", "description": "contract_version_unsupported: the versions the gateway serves"},
	"operation":              obj{"type": "string", "description": "contract_version_unsupported: the operation concerned"},
	"argument":               obj{"type": "string", "description": "contract_version_unsupported: the argument concerned"},
}

// withCode is props with the contract's code beside them (Convex's errorData).
func withCode(props obj) obj {
	out := obj{"code": ref("ErrorCode")}
	for k, v := range props {
		out[k] = v
	}
	return out
}

// runResponses: the operation's answer, success or failure, is HTTP 200 in
// Convex's shape (the gateway's convex.go); a request it cannot read (body,
// path, format, Idempotency-Key) is 400 and a presented token that does not
// verify 401, with the contract's error body, as Convex answers them; an
// INTERNAL failure is a 500 with the contract's body.
func runResponses(o Operation, success, failure obj) obj {
	ok := obj{
		"description": "The operation ran: its value, or its failure with the contract's code in errorData.code (RATE_LIMITED and UNAVAILABLE with a Retry-After header).",
		"content":     obj{mimeJSON: obj{"schema": obj{"oneOf": []any{success, failure}}}},
	}
	return obj{
		"200": ok,
		"400": obj{"$ref": "#/components/responses/RunInvalidArgument"},
		"401": obj{"$ref": "#/components/responses/RunUnauthenticated"},
		"500": obj{"$ref": "#/components/responses/RunInternal"},
	}
}

// runErrorResponses are the non-2xx answers of /api/run, shared by every
// operation.
func runErrorResponses() obj {
	return obj{
		"RunInvalidArgument": errorResponse([]apperr.Code{apperr.InvalidArgument}),
		"RunUnauthenticated": errorResponse([]apperr.Code{apperr.Unauthenticated}),
		"RunInternal":        errorResponse([]apperr.Code{apperr.Internal}),
	}
}

// runUnknown is /api/run for a path that names no public operation (the
// paths above are matched first, as concrete paths are).
func runUnknown() obj {
	failure := obj{"allOf": []any{ref("ConvexFailure"), obj{"properties": obj{"errorData": obj{"properties": obj{
		"code": obj{"enum": []string{string(apperr.NotFound), string(apperr.RateLimited)}},
	}}}}}}
	return obj{
		"operationId": "runUnknown",
		"summary":     "/api/run/{area}/{module}/{function}",
		"description": "A function path that names no public operation: answered as Convex answers an unknown function, HTTP 200 with status error, errorData.code NOT_FOUND and errorData.reason unknown_operation. Internal operations are unknown here too.",
		"tags":        []string{ConvexTag(gatewayTag)},
		"security":    []obj{{}, {bearer: []string{}}},
		"parameters": []any{
			obj{"name": "area", "in": "path", "required": true, "schema": obj{"type": "string"}},
			obj{"name": "module", "in": "path", "required": true, "schema": obj{"type": "string"}},
			obj{"name": "function", "in": "path", "required": true, "schema": obj{"type": "string"}},
		},
		"requestBody": obj{"required": false, "content": obj{mimeJSON: obj{"schema": obj{"type": "object"}}}},
		"responses": obj{
			"200": obj{"description": "the failure", "content": obj{mimeJSON: obj{"schema": failure}}},
			"400": obj{"$ref": "#/components/responses/RunInvalidArgument"},
			"401": obj{"$ref": "#/components/responses/RunUnauthenticated"},
		},
	}
}

// callPathUnknown is /api/<kind>/... for a path that names no public
// operation of that kind (the operations' own paths above are matched
// first, as concrete paths are): an operation of the other kind is
// INVALID_ARGUMENT, an unknown one NOT_FOUND with its nearest names.
func callPathUnknown(kind ops.Kind) obj {
	return obj{
		"operationId": string(kind) + "Unknown",
		"summary":     "/api/" + string(kind) + "/{area}/{module}/{function}",
		"description": fmt.Sprintf("A path that names no public %s: a %s called here is INVALID_ARGUMENT (call it on `/api/%s/...`); a name of no public operation is NOT_FOUND with details.reason unknown_operation and details.suggestions, the nearest names. Internal operations are unknown here too.", kind, otherKind(kind), otherKind(kind)),
		"tags":        []string{gatewayTag},
		"security":    []obj{{}, {bearer: []string{}}},
		"parameters": []any{
			obj{"name": "area", "in": "path", "required": true, "schema": obj{"type": "string"}},
			obj{"name": "module", "in": "path", "required": true, "schema": obj{"type": "string"}},
			obj{"name": "function", "in": "path", "required": true, "schema": obj{"type": "string"}},
		},
		"requestBody": obj{"required": false, "content": obj{mimeJSON: obj{"schema": obj{"type": "object"}}}},
		"responses": obj{
			"400": errorResponse([]apperr.Code{apperr.InvalidArgument}),
			"401": errorResponse([]apperr.Code{apperr.Unauthenticated}),
			"404": errorResponse([]apperr.Code{apperr.NotFound}),
			"429": errorResponse([]apperr.Code{apperr.RateLimited}),
		},
	}
}

// convexCodes are the codes a Convex-shaped failure carries: all but
// INTERNAL, which is a 500.
func convexCodes(codes []apperr.Code) []string {
	var out []string
	for _, c := range codes {
		if c != apperr.Internal {
			out = append(out, string(c))
		}
	}
	return out
}

// callOperation is /api/query or /api/mutation: the body names one of ops.
func callOperation(kind ops.Kind, list []Operation) obj {
	var bodies, returns []any
	seen := map[string]bool{}
	var codes []apperr.Code
	for _, o := range list {
		bodies = append(bodies, obj{
			"type": "object", "required": []string{"path"}, "additionalProperties": false,
			"properties": obj{
				"path":   obj{"enum": []string{o.Path, ConvexName(o.Path)}},
				"args":   ref(o.Path + ".Args"),
				"format": obj{"type": "string", "enum": []string{"json"}},
			},
		})
		returns = append(returns, ref(o.Path+".Returns"))
		for _, c := range o.Errors {
			if !seen[string(c)] {
				seen[string(c)] = true
				codes = append(codes, c)
			}
		}
	}
	sort.Slice(codes, func(i, j int) bool { return codeIndex(codes[i]) < codeIndex(codes[j]) })
	if len(bodies) == 0 {
		bodies = []any{obj{"type": "object"}}
		returns = []any{obj{}}
	}
	names := make([]string, len(list))
	for i, o := range list {
		names[i] = "`" + o.Path + "`"
	}
	title := "Call a query"
	if kind == ops.Mutation {
		title = "Call a mutation"
	}
	ok := obj{
		"description": "The operation's return value as JSON (null where it returns nothing): see the operation's own entry (`/api/query/...` or `/api/mutation/...`) and its `<path>.Returns` schema. With a Convex-Client header: Convex's { status, value } or { status: error, ... } (HTTP 200).",
		"content": obj{mimeJSON: obj{"schema": obj{"anyOf": []any{
			obj{"anyOf": returns}, ref("ConvexSuccess"), ref("ConvexFailure"),
		}}}},
	}
	params := []any{obj{"$ref": "#/components/parameters/ConvexClient"}}
	if kind == ops.Mutation {
		params = append(params, obj{"$ref": "#/components/parameters/IdempotencyKey"})
		ok["headers"] = obj{ops.HeaderIdempotentReplayed: obj{"$ref": "#/components/headers/IdempotentReplayed"}}
	}
	responses := obj{"200": ok}
	byStatus := statusesOf(codes)
	for status, cs := range byStatus {
		responses[strconv.Itoa(status)] = errorResponse(cs)
	}
	return obj{
		"operationId": string(kind),
		"summary":     "/api/" + string(kind),
		"description": fmt.Sprintf("%s by its path (contract section 2). The body names the %s and its arguments: `{\"path\": \"<area>.<module>.<function>\", \"args\": {...}}` (the Convex form `\"<area>/<module>:<function>\"` is accepted too; args may be left out when there are none). Calling a %s here is INVALID_ARGUMENT. The %s operations: %s.\n\nError codes:\n\n%s",
			title, kind, otherKind(kind), kind, strings.Join(names, ", "), errorTable(codes)),
		"tags":       []string{gatewayTag},
		"security":   []obj{{}, {bearer: []string{}}},
		"parameters": params,
		"requestBody": obj{
			"required": true,
			"content":  obj{mimeJSON: obj{"schema": obj{"oneOf": bodies}}},
		},
		"responses": responses,
	}
}

func otherKind(k ops.Kind) ops.Kind {
	if k == ops.Mutation {
		return ops.Query
	}
	return ops.Mutation
}

func codeIndex(c apperr.Code) int {
	for i, x := range allCodes {
		if x == c {
			return i
		}
	}
	return len(allCodes)
}

// openAPIPath writes ":name" segments as "{name}".
func openAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, ":") {
			segs[i] = "{" + s[1:] + "}"
		}
	}
	return strings.Join(segs, "/")
}

func routeOperationID(r Route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Method))
	for _, s := range strings.Split(r.Path, "/") {
		s = strings.TrimPrefix(s, ":")
		if s == "" {
			continue
		}
		b.WriteString(strings.ToUpper(s[:1]) + s[1:])
	}
	return b.String()
}

// routeOperation is a raw route's entry: its declared documentation, the
// codes it answers in its error style, and the gateway's own answers.
func routeOperation(r Route) obj {
	doc := r.Doc
	if doc == nil {
		doc = &ops.RouteDoc{}
	}
	desc := r.Summary
	if doc.Description != "" {
		desc += "\n\n" + doc.Description
	}
	var params []any
	for _, s := range strings.Split(r.Path, "/") {
		if strings.HasPrefix(s, ":") {
			params = append(params, obj{
				"name": s[1:], "in": "path", "required": true,
				"schema": obj{"type": "string", "pattern": fmt.Sprintf("^[A-Za-z0-9_-]{1,%d}$", ops.MaxParamLength)},
			})
		}
	}
	for _, h := range doc.Headers {
		p := obj{"name": h.Name, "in": "header", "required": h.Required, "description": h.Description}
		if h.Schema != nil {
			p["schema"] = h.Schema
		} else {
			p["schema"] = obj{"type": "string"}
		}
		params = append(params, p)
	}
	op := obj{
		"operationId": routeOperationID(r),
		"summary":     openAPIPath(r.Path),
		"description": desc,
		"tags":        []string{r.Service},
		"security":    security(r.Access),
		"x-marketplace": obj{
			"service": r.Service, "access": r.Access, "route": r.Method + " " + r.Path,
		},
	}
	if r.StoreParam != "" {
		desc += fmt.Sprintf("\n\nAccess `%s`: %s (the store is the path's `%s`).", r.Access, accessMeaning[r.Access], r.StoreParam)
		op["description"] = desc
		op["x-marketplace"].(obj)["storeParam"] = r.StoreParam
	} else if r.Access == ops.Admin {
		desc += fmt.Sprintf("\n\nAccess `%s`: %s.", r.Access, accessMeaning[r.Access])
		op["description"] = desc
	}
	if len(params) > 0 {
		op["parameters"] = params
	}
	if len(doc.Body) > 0 {
		op["requestBody"] = obj{"required": true, "content": contentOf(doc.Body)}
	}
	responses := obj{}
	for _, resp := range doc.Responses {
		ro := obj{"description": resp.Description}
		if len(resp.Bodies) > 0 {
			ro["content"] = contentOf(resp.Bodies)
		}
		if len(resp.Headers) > 0 {
			hs := obj{}
			for _, h := range resp.Headers {
				s := any(obj{"type": "string"})
				if h.Schema != nil {
					s = h.Schema
				}
				hs[h.Name] = obj{"description": h.Description, "schema": s}
			}
			ro["headers"] = hs
		}
		responses[strconv.Itoa(resp.Status)] = ro
	}
	codes := append([]apperr.Code(nil), doc.Codes...)
	// The gateway's own answers: a token that does not verify (or a missing
	// one on an authenticated route), the rate limit, the service unreachable.
	codes = append(codes, apperr.Unauthenticated, apperr.Unavailable)
	// The access check before the handler (ops.Route.Access): not an
	// administrator, not the store's owner, no such store.
	switch r.Access {
	case ops.Admin:
		codes = append(codes, apperr.PermissionDenied)
	case ops.StoreOwner, ops.StoreOwnerOrAdmin:
		codes = append(codes, apperr.PermissionDenied, apperr.NotFound)
	}
	if !r.SenderLimited {
		codes = append(codes, apperr.RateLimited)
	}
	byStatus := statusesOf(dedupe(codes))
	for status, cs := range byStatus {
		key := strconv.Itoa(status)
		if _, declared := responses[key]; declared {
			continue
		}
		if r.Errors == ops.ErrorsSimple {
			responses[key] = simpleErrorResponse(cs)
		} else {
			responses[key] = errorResponse(cs)
		}
	}
	op["responses"] = responses
	return op
}

func dedupe(codes []apperr.Code) []apperr.Code {
	seen := map[apperr.Code]bool{}
	var out []apperr.Code
	for _, c := range codes {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return codeIndex(out[i]) < codeIndex(out[j]) })
	return out
}

func simpleErrorResponse(codes []apperr.Code) obj {
	desc := make([]string, len(codes))
	for i, c := range codes {
		desc[i] = codeMeaning[c]
	}
	r := obj{"description": strings.Join(desc, "; "), "content": obj{mimeJSON: obj{"schema": ref("SimpleError")}}}
	for _, c := range codes {
		if c == apperr.RateLimited || c == apperr.Unavailable {
			r["headers"] = obj{"Retry-After": obj{"$ref": "#/components/headers/RetryAfter"}}
		}
	}
	return r
}

func contentOf(bodies []ops.BodyDoc) obj {
	c := obj{}
	for _, b := range bodies {
		if b.Schema != nil {
			c[b.ContentType] = obj{"schema": b.Schema}
		} else {
			c[b.ContentType] = obj{}
		}
	}
	return c
}

// gatewayRoutes are the routes the gateway answers itself.
func gatewayRoutes() obj {
	return obj{
		"/health": obj{"get": obj{
			"operationId": "getHealth", "summary": "/health",
			"description": "Liveness: a fixed plain-text message stating that the backend is healthy. Answered by the gateway itself, whatever the state of the services behind it (each service has its own /livez and /readyz).",
			"tags":        []string{gatewayTag}, "security": []obj{{}},
			"responses": obj{"200": obj{"description": "healthy", "content": obj{mimeText: obj{"schema": obj{"type": "string"}}}}},
		}},
		"/api/openapi.json": obj{"get": obj{
			"operationId": "getOpenAPI", "summary": "/api/openapi.json",
			"description": "This document, built from the gateway's live routing table. Generate clients from it (openapi-typescript, openapi-fetch, ...): the operations' own paths /api/query/... and /api/mutation/... answer failures with their statuses.",
			"tags":        []string{gatewayTag}, "security": []obj{{}},
			"responses": obj{"200": obj{"description": "the OpenAPI 3.1 document", "content": obj{mimeJSON: obj{"schema": obj{"type": "object"}}}}},
		}},
		"/api/operations": obj{"get": obj{
			"operationId": "getOperations", "summary": "/api/operations",
			"tags": []string{gatewayTag}, "security": []obj{{}},
			"description": "The gateway's routing table: every public operation, sorted by path, with its kind, access, service, summary and arguments (what `marketplace call` and `marketplace ops` read). One entry per public operation the gateway routes now, from the services' declarations; the same operations are in this document, each with its own path.",
			"responses": obj{"200": obj{"description": "the operations", "content": obj{mimeJSON: obj{"schema": obj{
				"type": "array", "items": obj{
					"type": "object", "required": []string{"path", "kind", "access", "service", "args"},
					"properties": obj{
						"path": obj{"type": "string"}, "kind": obj{"enum": []string{"query", "mutation"}},
						"access": obj{"type": "string"}, "service": obj{"type": "string"}, "summary": obj{"type": "string"},
						"args": obj{"type": "array", "description": "the arguments object's members, as the API reference lists them", "items": obj{
							"type": "object", "required": []string{"name", "type", "required"},
							"properties": obj{
								"name": obj{"type": "string"}, "type": obj{"type": "string", "description": "e.g. string, number, number (AED), boolean, array of string, { field?: type }"},
								"required": obj{"type": "boolean"}, "rules": obj{"type": "string", "description": "the declared validation rules"},
								"fields": obj{"type": "array", "description": "the members of an object argument (or of an array's objects), described alike", "items": obj{"type": "object"}},
							},
						}},
					},
				},
			}}}}},
		}},
	}
}
