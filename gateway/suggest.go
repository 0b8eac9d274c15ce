package gateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
)

// unknownOperation is the answer for a path the public table does not have:
// NOT_FOUND naming the nearest public operations, if any, or UNAVAILABLE for
// an operation of a contract version the gateway does not serve (versions.go).
func (g *Gateway) unknownOperation(path string) *apperr.Error {
	if refused := g.refusal(path); refused != nil {
		return refused
	}
	d := map[string]any{"reason": ops.ReasonUnknownOperation}
	msg := fmt.Sprintf("unknown operation %q", path)
	if near := g.suggest(path); len(near) > 0 {
		d["suggestions"] = near
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(near, ", "))
	}
	return apperr.New(apperr.NotFound, "%s", msg).WithDetails(d)
}

// suggest names the public operations nearest to an unknown path, for the
// error's message and details: at most three, closest first (ops.Nearest).
// Internal operations are never in the table, so never named.
func (g *Gateway) suggest(path string) []string {
	return ops.Nearest(path, slices.Collect(maps.Keys(*g.routes.Load())), 3)
}
