package domain

import (
	"strings"
	"testing"

	"marketplace/libs/apperr"
)

// A search of reviews: its bounds, and words matched in the reviewer's name
// or in the title and comment, any case, every word.
func TestReviewQuery(t *testing.T) {
	r := &Review{CustomerName: "Noor Hassan", Title: "Lovely", Comment: "Fresh bread, and on time. خبز طازج"}
	for _, c := range []struct {
		q       string
		want    string
		invalid bool
	}{
		{q: "", invalid: true},
		{q: "x", invalid: true},
		{q: strings.Repeat("y", MaxSearchLength+1), invalid: true},
		{q: "a b c d e f g h i", invalid: true},
		{q: "noor", want: MatchedName},
		{q: "HASSAN noor", want: MatchedName},
		{q: "bread time", want: MatchedComment},
		{q: "lovely fresh", want: MatchedComment},
		{q: "طازج", want: MatchedComment},
		{q: "noor bread", want: ""}, // the words in two places: neither holds both
		{q: "stale", want: ""},
	} {
		q, err := NewReviewQuery(c.q)
		if c.invalid {
			if apperr.CodeOf(err) != apperr.InvalidArgument || apperr.From(err).Details["field"] != "query" {
				t.Errorf("%q: %v, want INVALID_ARGUMENT query", c.q, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if got := q.Match(r); got != c.want {
			t.Errorf("%q matched %q, want %q", c.q, got, c.want)
		}
	}
}
