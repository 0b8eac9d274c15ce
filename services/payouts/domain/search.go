package domain

import (
	"strings"
	"unicode/utf8"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
)

// The administrators' search of payouts (admins.payoutOperations.
// searchPayouts, docs/adr/0169): bounded in what it answers and in what it
// may read.
const (
	MinSearchLength = 2
	MaxSearchLength = 100
	MaxSearchHits   = 20
	// MaxSearchScan bounds the payouts one search reads, newest request
	// first: an older payout is found by its full id or through its store.
	MaxSearchScan = 2000
	// MaxSearchStores bounds the stores a search looks through.
	MaxSearchStores = 10
	// ShortIDLength is the length of a payout's short form: the last hex
	// digits of its id, as the console shows it ("#A1B2C3", as an order's
	// number before numbers).
	ShortIDLength = 6
)

// What a hit matched.
const (
	MatchedID        = "id"
	MatchedReference = "reference"
	MatchedStore     = "store"
)

// PayoutQuery is a search of payouts: a full id (ID), or else the end of an
// id (Suffix, lower case: the short form, or more of the id) and a
// transaction reference containing Text (any case).
type PayoutQuery struct {
	ID     string
	Suffix string
	Text   string // lower case
}

// NewPayoutQuery reads q: MinSearchLength to MaxSearchLength characters once
// trimmed (a leading "#" dropped), else INVALID_ARGUMENT naming query.
func NewPayoutQuery(q string) (PayoutQuery, error) {
	q = strings.TrimSpace(q)
	if n := utf8.RuneCountInString(q); n < MinSearchLength || n > MaxSearchLength {
		return PayoutQuery{}, apperr.Invalid("query", "must be %d to %d characters", MinSearchLength, MaxSearchLength)
	}
	if ids.Valid("payouts", q) {
		return PayoutQuery{ID: q}, nil
	}
	bare := strings.ToLower(strings.TrimPrefix(q, "#"))
	out := PayoutQuery{Text: strings.ToLower(q)}
	if len(bare) >= ShortIDLength && isHex(bare) {
		out.Suffix = bare
	}
	return out, nil
}

func isHex(s string) bool {
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return s != ""
}

// Match says what of p the query matches: MatchedID (its id ends with the
// suffix), MatchedReference (its transaction reference contains the text),
// or "" (neither).
func (q PayoutQuery) Match(p *Payout) string {
	switch {
	case q.ID != "":
		if p.ID == q.ID {
			return MatchedID
		}
	case q.Suffix != "" && strings.HasSuffix(strings.ToLower(p.ID), q.Suffix):
		return MatchedID
	case q.Text != "" && p.TransactionReference != "" && strings.Contains(strings.ToLower(p.TransactionReference), q.Text):
		return MatchedReference
	}
	return ""
}
