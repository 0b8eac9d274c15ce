package apischema

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"marketplace/libs/ops"
)

// Markdown renders the API reference (docs/api.md): the services in the
// order given, each with its routes and operations, every operation with its
// arguments, its return shape and its error codes, every route with what it
// reads and answers.
func (a *API) Markdown(services []string) string {
	var b strings.Builder
	b.WriteString("# API reference\n\nGenerated from the services' operation declarations (`GET /ops` of each service); do not edit by hand.\n")
	b.WriteString("Regenerate with `UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestAPIReferenceIsGenerated`. The same declarations give the OpenAPI document (`GET /api/openapi.json` on the gateway, `docs/openapi.json`) and the typed TypeScript client (`clients/typescript`).\n\n")
	b.WriteString("Every operation is called in three ways, with the same checks and the same code behind them:\n\n")
	b.WriteString("- **Its own path, for generated clients** (openapi-typescript with openapi-fetch, openapi-generator, ...): `POST /api/query/<area>/<module>/<function>` for a query, `POST /api/mutation/<area>/<module>/<function>` for a mutation, the body its arguments object (nothing or `{}` when it takes none). Success is HTTP 200 and the return value; failure a non-2xx status (each code's below) and `{ \"error\": { \"code\", \"message\", \"details\"? } }`. Generate clients from the OpenAPI document's entries for these paths (operationIds `query.<path>` and `mutation.<path>`).\n")
	b.WriteString("- **`POST /api/query` and `POST /api/mutation`, for hand-written calls** (curl, fetch): the body `{ \"path\": ..., \"args\": { ... } }`, with the same answers.\n")
	b.WriteString("- **`POST /api/run/<area>/<module>/<function>` and the WebSocket sync endpoint, for Convex's clients** (`ConvexHttpClient`, `ConvexClient`, `ConvexReactClient`, or `clients/typescript`): answered as Convex answers, HTTP 200 and `{ \"status\": \"success\", \"value\": ... }` or `{ \"status\": \"error\", \"errorMessage\": ..., \"errorData\": { \"code\": ... } }`, so a generated client would take every failure for a success. A `Convex-Client` header makes any of these paths answer in Convex's shapes.\n\n")
	b.WriteString("Access (enforced by each service's registry before the handler runs): `public` needs no token (a presented one is still verified); `authenticated` needs a bearer token; `customer` acts as the caller's customer profile (a mutation without one is FAILED_PRECONDITION); `store_owner` is for the owner of the store its store argument names, `store_owner_or_admin` also for administrators (another caller: PERMISSION_DENIED; a missing store: NOT_FOUND); `admin` needs the admin role, and `adminUserId`, when an argument, must be the caller. `internal` operations are only reachable by other services, never through the gateway. Mutations honour an `Idempotency-Key` header.\n")
	b.WriteString("Argument rules: `required`; `min`/`max` (numbers: value; strings and arrays: length); `id=kind` (a well-formed id of that kind); `enum=a|b`; `nonblank`. Amounts are AED numbers with at most two decimals.\n")
	b.WriteString("Return shapes are TypeScript types (`?`: a field that may be left out; `| null`: a value that may be null); amounts in them are AED, times epoch milliseconds.\n")
	b.WriteString("Error codes: every operation may answer INVALID_ARGUMENT (400), UNAUTHENTICATED (401), NOT_FOUND (404), RATE_LIMITED (429), UNAVAILABLE (503) and INTERNAL (500); operations that are not public also PERMISSION_DENIED (403); mutations also ALREADY_EXISTS and FAILED_PRECONDITION (409). Each operation lists its own.\n")
	b.WriteString("HTTP routes (`METHOD /path`) are called as they are, through the gateway, which forwards exactly the declared method and path; a `:name` segment is one segment of letters, digits, `_` and `-`.\n")
	all := append(append([]Operation(nil), a.Operations...), a.internal...)
	sort.Slice(all, func(i, j int) bool { return all[i].Path < all[j].Path })
	for _, svc := range services {
		fmt.Fprintf(&b, "\n## Service `%s`\n", svc)
		for _, r := range a.Routes {
			if r.Service == svc {
				writeRoute(&b, r)
			}
		}
		for _, o := range all {
			if o.Service == svc {
				writeOperation(&b, o)
			}
		}
	}
	return b.String()
}

func writeOperation(b *strings.Builder, d Operation) {
	access := fmt.Sprintf("`%s`", d.Access)
	if d.StoreArg != "" {
		access += fmt.Sprintf(" (the store of `%s`)", d.StoreArg)
	}
	fmt.Fprintf(b, "\n### `%s`\n\n%s, access %s. %s\n", d.Path, d.Kind, access, d.Summary)
	if d.Deprecated != "" {
		fmt.Fprintf(b, "\n**Deprecated**: %s.\n", d.Deprecated)
	}
	if d.Access != ops.Internal {
		fmt.Fprintf(b, "\n`POST %s` (body: the arguments), `POST /api/%s` with `{ \"path\": \"%s\", \"args\": ... }`, or `%s` from Convex's clients.\n", CallPath(d.Kind, d.Path), d.Kind, d.Path, ConvexName(d.Path))
	}
	if len(d.Args) == 0 {
		b.WriteString("\nNo arguments.\n")
	} else {
		b.WriteString("\n| argument | type | required | rules |\n|---|---|---|---|\n")
		for _, a := range d.Args {
			req := "no"
			if a.Required {
				req = "yes"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", a.Name, cell(a.Type), req, cell(a.Rules))
		}
	}
	fmt.Fprintf(b, "\nReturns:\n\n```ts\n%s\n```\n", tsType(d.Returns, false, ""))
	if d.Access != ops.Internal && len(d.Errors) > 0 {
		codes := make([]string, len(d.Errors))
		for i, c := range d.Errors {
			codes[i] = fmt.Sprintf("%s (%d)", c, c.Status())
		}
		fmt.Fprintf(b, "\nErrors: %s.\n", strings.Join(codes, ", "))
	}
}

// cell escapes a table cell: the column separator, and the angle brackets
// outside code spans, which Markdown renderers would read as HTML
// ("<unix seconds>"; in a code span they are text, and an entity would show
// as written).
func cell(s string) string {
	s = mapOutsideCode(s, strings.NewReplacer("<", "&lt;", ">", "&gt;").Replace)
	return strings.ReplaceAll(s, "|", "\\|")
}

var docComment = regexp.MustCompile(`/\*\*.*?\*/\s*`)

// inlineType is a schema's TypeScript type on one line, without comments.
func inlineType(s *ops.Schema) string {
	return docComment.ReplaceAllString(strings.Join(strings.Fields(tsType(s, false, "")), " "), "")
}

func writeRoute(b *strings.Builder, r Route) {
	fmt.Fprintf(b, "\n### `%s %s`\n\nHTTP route, access `%s`. %s\n", r.Method, r.Path, r.Access, r.Summary)
	doc := r.Doc
	if doc == nil {
		return
	}
	if doc.Description != "" {
		fmt.Fprintf(b, "\n%s\n", doc.Description)
	}
	if len(doc.Headers) > 0 {
		b.WriteString("\n| request header | required | meaning |\n|---|---|---|\n")
		for _, h := range doc.Headers {
			req := "no"
			if h.Required {
				req = "yes"
			}
			fmt.Fprintf(b, "| `%s` | %s | %s |\n", h.Name, req, cell(h.Description))
		}
	}
	for _, body := range doc.Body {
		fmt.Fprintf(b, "\nRequest body, `%s`", body.ContentType)
		if body.Schema == nil {
			b.WriteString(": the bytes.\n")
			continue
		}
		fmt.Fprintf(b, ":\n\n```ts\n%s\n```\n", tsType(body.Schema, false, ""))
		writeFields(b, body.Schema)
	}
	if len(doc.Responses) > 0 || len(doc.Codes) > 0 {
		b.WriteString("\n| status | body | when |\n|---|---|---|\n")
		for _, resp := range doc.Responses {
			var bodies []string
			for _, body := range resp.Bodies {
				s := "`" + body.ContentType + "`"
				if body.Schema != nil {
					s += " `" + inlineType(body.Schema) + "`"
				}
				bodies = append(bodies, s)
			}
			if len(bodies) == 0 {
				bodies = []string{"none"}
			}
			fmt.Fprintf(b, "| %d | %s | %s |\n", resp.Status, strings.ReplaceAll(strings.Join(bodies, "; "), "|", "\\|"), cell(resp.Description))
		}
		for _, c := range doc.Codes {
			fmt.Fprintf(b, "| %d | error `%s` | %s |\n", c.Status(), c, cell(codeMeaning[c]))
		}
	}
}

// writeFields lists the documented fields of a body (those with a
// description), by their path, so that keys such as the webhook's metadata
// are named with what they mean.
func writeFields(b *strings.Builder, s *ops.Schema) {
	type row struct{ path, typ, desc string }
	var rows []row
	s.Walk(func(p string, f *ops.Schema) {
		if p != "" && f.Description != "" {
			typ := strings.Join(f.Type, " or ")
			if f.Pattern != "" {
				typ += fmt.Sprintf(" matching `%s`", f.Pattern)
			}
			rows = append(rows, row{strings.TrimPrefix(p, "."), typ, f.Description})
		}
	})
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n| field | type | meaning |\n|---|---|---|\n")
	for _, r := range rows {
		fmt.Fprintf(b, "| `%s` | %s | %s |\n", r.path, cell(r.typ), cell(r.desc))
	}
}
