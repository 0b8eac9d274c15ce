package ops

import (
	"slices"
	"strings"
)

// Nearest names the candidates nearest to name, for a "did you mean"
// (the gateway's unknown operation, `marketplace`'s unknown command): at
// most n, closest first, each within an edit distance that grows with the
// name's length (a typo, a wrong area or a wrong case, compared without
// case). A dotted candidate whose last segment equals name's (the same
// function in another area or module) counts as near.
func Nearest(name string, candidates []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	limit := max(3, len(name)/4)
	lower := strings.ToLower(name)
	var found []cand
	for _, c := range candidates {
		// The distance is at least the difference in length: measured only
		// when that leaves it within the limit (name comes from a request,
		// up to the body's 6 MiB, and the measure costs both lengths'
		// product, against every candidate).
		d := limit + 1
		if abs(len(lower)-len(c)) <= limit {
			d = editDistance(lower, strings.ToLower(c))
		}
		if lastSegment(c) == lastSegment(name) && d > limit {
			d = limit
		}
		if d <= limit {
			found = append(found, cand{c, d})
		}
	}
	slices.SortFunc(found, func(a, b cand) int {
		if a.d != b.d {
			return a.d - b.d
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for i := 0; i < len(found) && i < n; i++ {
		out = append(out, found[i].name)
	}
	return out
}

func abs(x int) int { return max(x, -x) }

func lastSegment(path string) string { return path[strings.LastIndexByte(path, '.')+1:] }

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
