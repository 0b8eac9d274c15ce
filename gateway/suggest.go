package gateway

import (
	"fmt"
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
// error's message and details: at most three, closest first, each within an
// edit distance that grows with the path's length (a typo, a wrong area or a
// wrong case). Internal operations are never in the table, so never named.
func (g *Gateway) suggest(path string) []string {
	type cand struct {
		name string
		d    int
	}
	limit := max(3, len(path)/4)
	lower := strings.ToLower(path)
	var found []cand
	for name := range *g.routes.Load() {
		d := editDistance(lower, strings.ToLower(name))
		// The same function name in another area or module counts as near.
		if last(name) == last(path) && d > limit {
			d = limit
		}
		if d <= limit {
			found = append(found, cand{name, d})
		}
	}
	slices.SortFunc(found, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for i := 0; i < len(found) && i < 3; i++ {
		out = append(out, found[i].name)
	}
	return out
}

func last(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
