// Package apischema turns the services' declarations (their GET /ops: each
// operation's descriptor with its argument and return schemas, and each raw
// route with its documentation) into what users of the API read or compile:
// the OpenAPI 3.1 document (GET /api/openapi.json on the gateway,
// docs/openapi.json), the API reference (docs/api.md) and the typed
// TypeScript client (clients/typescript). The gateway builds the document
// from its live routing table, so it describes the deployment that serves
// it, in the all-in-one and in distributed mode alike.
package apischema

import (
	"sort"
	"strings"

	"marketplace/libs/ops"
)

// Operation is one operation and the service that declares it.
type Operation struct {
	Service string
	ops.Descriptor
}

// Route is one raw HTTP route and the service that declares it.
type Route struct {
	Service string
	ops.RouteDescriptor
}

// API is the public surface: the operations the gateway routes (internal
// ones are left out) and the raw routes it forwards, in a stable order.
type API struct {
	Operations []Operation
	Routes     []Route
	internal   []Operation // for the reference, which lists them too
}

// New builds the API from declarations, dropping internal operations and
// sorting operations by path and routes by path and method.
func New(operations []Operation, routes []Route) *API {
	a := &API{}
	for _, o := range operations {
		if o.Access != ops.Internal {
			a.Operations = append(a.Operations, o)
		} else {
			a.internal = append(a.internal, o)
		}
	}
	a.Routes = append(a.Routes, routes...)
	byPath := func(list []Operation) func(i, j int) bool {
		return func(i, j int) bool { return list[i].Path < list[j].Path }
	}
	sort.Slice(a.Operations, byPath(a.Operations))
	sort.Slice(a.internal, byPath(a.internal))
	sort.Slice(a.Routes, func(i, j int) bool {
		if a.Routes[i].Path != a.Routes[j].Path {
			return a.Routes[i].Path < a.Routes[j].Path
		}
		return a.Routes[i].Method < a.Routes[j].Method
	})
	return a
}

// ConvexName is an operation's name as Convex clients write it:
// "stores.reviews.addReview" is "stores/reviews:addReview".
func ConvexName(path string) string {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return path
	}
	return strings.ReplaceAll(path[:i], ".", "/") + ":" + path[i+1:]
}

// RunPath is the HTTP path that runs an operation Convex-style:
// "stores.reviews.addReview" is "/api/run/stores/reviews/addReview".
func RunPath(path string) string { return "/api/run/" + strings.ReplaceAll(path, ".", "/") }

// CallPath is an operation's own path in the contract's shapes (section 2),
// for generated clients: "stores.reviews.addReview", a mutation, is
// "/api/mutation/stores/reviews/addReview"; the body is its arguments object.
func CallPath(kind ops.Kind, path string) string {
	return "/api/" + string(kind) + "/" + strings.ReplaceAll(path, ".", "/")
}

// CallOperationID is the operationId of an operation's CallPath entry:
// "mutation.stores.reviews.addReview". Its /api/run entry keeps the plain
// path as its operationId, as it had before the CallPath entries existed.
func CallOperationID(kind ops.Kind, path string) string { return string(kind) + "." + path }

// Unknowns lists, for each operation, the places in its return schema that
// nothing is known of (ops.Schema.Unknown): "path: why". Every public
// operation's list must be empty.
func (a *API) Unknowns() map[string][]string {
	out := map[string][]string{}
	for _, o := range a.Operations {
		if o.Returns == nil {
			out[o.Path] = append(out[o.Path], "(no return schema declared)")
			continue
		}
		o.Returns.Walk(func(p string, s *ops.Schema) {
			if s.Unknown != "" {
				out[o.Path] = append(out[o.Path], "value"+p+": "+s.Unknown)
			}
		})
	}
	return out
}
