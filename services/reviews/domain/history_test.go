package domain

import (
	"testing"
	"time"

	"marketplace/libs/apperr"
)

func at(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func TestHistoryOfWeeksFromMondayInDubai(t *testing.T) {
	// Monday 23 November 2026 00:00 Dubai is 20:00 UTC on Sunday the 22nd.
	from, to := at("2026-11-22T20:00:00Z"), at("2026-12-06T19:59:59Z") // two weeks
	reviews := []Review{
		{Rating: 5, CreatedAt: at("2026-11-22T20:00:00Z")},               // Monday 00:00 Dubai: first week
		{Rating: 4, CreatedAt: at("2026-11-29T19:59:59Z")},               // Sunday 23:59:59 Dubai: first week
		{Rating: 4, CreatedAt: at("2026-11-25T10:00:00Z")},               // first week
		{Rating: 1, CreatedAt: at("2026-11-26T10:00:00Z"), Hidden: true}, // hidden: left out
		{Rating: 1, CreatedAt: at("2026-11-29T20:00:00Z")},               // Monday 00:00 Dubai: second week
		{Rating: 2, CreatedAt: from - 1},                                 // before the period
		{Rating: 2, CreatedAt: to + 1},                                   // after it
	}
	h := HistoryOf(reviews, from, to)
	if len(h.Weeks) != 2 || h.Weeks[0].WeekStart != from || h.Weeks[1].WeekStart != at("2026-11-29T20:00:00Z") {
		t.Fatalf("weeks %+v", h.Weeks)
	}
	if w := h.Weeks[0]; w.Count != 3 || w.Average == nil || *w.Average != 4.33 {
		t.Errorf("first week %+v", w)
	}
	if w := h.Weeks[1]; w.Count != 1 || *w.Average != 1 {
		t.Errorf("second week %+v", w)
	}
	// An empty week has no average; a period starting mid-week starts at its Monday.
	e := HistoryOf(nil, at("2026-11-26T10:00:00Z"), at("2026-11-27T10:00:00Z"))
	if len(e.Weeks) != 1 || e.Weeks[0].WeekStart != from || e.Weeks[0].Average != nil || e.Weeks[0].Count != 0 {
		t.Errorf("empty %+v", e.Weeks)
	}
}

func TestCheckHistoryPeriod(t *testing.T) {
	from := at("2026-01-01T00:00:00Z")
	if err := CheckHistoryPeriod(from, from+366*dayMs); err != nil {
		t.Errorf("366 days: %v", err)
	}
	for _, to := range []int64{from + 366*dayMs + 1, from - 1} {
		if e := apperr.From(CheckHistoryPeriod(from, to)); e.Code != apperr.InvalidArgument || e.Details["field"] != "to" {
			t.Errorf("to %d: %v", to, e)
		}
	}
	if e := apperr.From(TooManyReviews(3)); e.Code != apperr.FailedPrecondition || e.Details["reason"] != "too_many_reviews" {
		t.Errorf("%v", e)
	}
}
