package domain

import (
	"strings"
	"testing"

	"marketplace/libs/apperr"
)

// A search's query: its bounds (INVALID_ARGUMENT naming query), a whole id,
// the short form (with or without #, any case) and a reference's part.
func TestPayoutQuery(t *testing.T) {
	const id = "pay_0123456789abcdef01a2b3c4"
	p := &Payout{ID: id, TransactionReference: "TRX-2026-Noor"}
	other := &Payout{ID: "pay_ffffffffffffffffffffffff"}
	for _, c := range []struct {
		q       string
		want    string // what p matched
		invalid bool
	}{
		{q: "", invalid: true},
		{q: " a ", invalid: true},
		{q: strings.Repeat("x", MaxSearchLength+1), invalid: true},
		{q: id, want: MatchedID},
		{q: "#A1B2C4", want: ""},
		{q: "#A2B3C4", want: MatchedID},
		{q: "a2b3c4", want: MatchedID},
		{q: "01a2b3c4", want: MatchedID},
		{q: "b3c4", want: ""}, // too short for an id's end, and not in the reference
		{q: "trx-2026", want: MatchedReference},
		{q: "noor", want: MatchedReference},
		{q: "TRX-2027", want: ""},
	} {
		q, err := NewPayoutQuery(c.q)
		if c.invalid {
			if apperr.CodeOf(err) != apperr.InvalidArgument || apperr.From(err).Details["field"] != "query" {
				t.Errorf("%q: %v, want INVALID_ARGUMENT query", c.q, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%q: %v", c.q, err)
		}
		if got := q.Match(p); got != c.want {
			t.Errorf("%q matched %q, want %q", c.q, got, c.want)
		}
		if got := q.Match(other); got != "" {
			t.Errorf("%q matched the other payout by %q", c.q, got)
		}
	}
}
