package domain

import (
	"strings"
	"unicode/utf8"

	"marketplace/libs/apperr"
)

// The administrators' search of reviews (admins.reviewModeration.
// searchReviews, docs/adr/0169): bounded in what it answers and in what it
// may read.
const (
	MinSearchLength = 2
	MaxSearchLength = 100
	MaxSearchWords  = 8
	MaxSearchHits   = 20
	// MaxSearchScan bounds the reviews one search reads, newest first.
	MaxSearchScan = 2000
)

// What a review hit matched.
const (
	MatchedName    = "name"
	MatchedComment = "comment"
)

// ReviewQuery is a search of reviews: words (lower case), every one of which
// a review's reviewer name or its title and comment must contain.
type ReviewQuery struct{ Words []string }

// NewReviewQuery reads q: MinSearchLength to MaxSearchLength characters
// once trimmed, at most MaxSearchWords words, else INVALID_ARGUMENT naming
// query.
func NewReviewQuery(q string) (ReviewQuery, error) {
	q = strings.TrimSpace(q)
	if n := utf8.RuneCountInString(q); n < MinSearchLength || n > MaxSearchLength {
		return ReviewQuery{}, apperr.Invalid("query", "must be %d to %d characters", MinSearchLength, MaxSearchLength)
	}
	words := strings.Fields(strings.ToLower(q))
	if len(words) > MaxSearchWords {
		return ReviewQuery{}, apperr.Invalid("query", "must be at most %d words", MaxSearchWords)
	}
	return ReviewQuery{Words: words}, nil
}

// Match says what of r the query matches: MatchedName when the reviewer's
// name holds every word, MatchedComment when the title and comment do (the
// name first), "" when neither does. Words match any case, anywhere in a
// word ("fresh" in "Refreshing").
func (q ReviewQuery) Match(r *Review) string {
	if containsAll(strings.ToLower(r.CustomerName), q.Words) {
		return MatchedName
	}
	if containsAll(strings.ToLower(r.Title+"\n"+r.Comment), q.Words) {
		return MatchedComment
	}
	return ""
}

func containsAll(text string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(text, w) {
			return false
		}
	}
	return len(words) > 0
}
