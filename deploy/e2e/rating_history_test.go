package e2e

import (
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

type ratingHistory struct {
	Weeks []struct {
		WeekStart int64    `json:"weekStart"`
		Count     int      `json:"count"`
		Average   *float64 `json:"average"`
	} `json:"weeks"`
}

// TestRatingHistory: a store's visible reviews by Dubai week from Monday over
// HTTP. Reviews a minute either side of Monday midnight in Dubai fall in two
// weeks; a hidden one counts nowhere; an empty week has no average; 367 days
// are refused and another owner too.
func TestRatingHistory(t *testing.T) {
	dubai := time.FixedZone("Dubai", 4*3600)
	clock := newTestClock(time.Date(2026, 3, 29, 23, 59, 0, 0, dubai)) // Sunday
	s := st.Start(t, st.WithClock(clock.Now))
	rs := newReviewShop(t, s)
	tokens, _ := makeCustomers(t, s, "rater", 4)
	addReviewOK(t, s, tokens[0], reviewArgs(rs.storeA, 5))
	hidden := addReviewOK(t, s, tokens[1], reviewArgs(rs.storeA, 1))
	st.MustOK(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": hidden, "adminUserId": "admin-1", "visible": false}))
	addReviewOK(t, s, tokens[2], reviewArgs(rs.storeA, 4))
	clock.Set(time.Date(2026, 3, 30, 0, 1, 0, 0, dubai)) // Monday
	addReviewOK(t, s, tokens[3], reviewArgs(rs.storeA, 2))

	from := time.Date(2026, 3, 23, 0, 0, 0, 0, dubai).UnixMilli()
	to := time.Date(2026, 4, 13, 0, 0, 0, 0, dubai).UnixMilli() - 1 // three weeks
	h := okAs[ratingHistory](t, s.Query(rs.owner, "stores.reviews.getRatingHistory", map[string]any{"storeId": rs.storeA, "from": from, "to": to}))
	week := int64(7 * 24 * 3600 * 1000)
	if len(h.Weeks) != 3 || h.Weeks[0].WeekStart != from || h.Weeks[1].WeekStart != from+week || h.Weeks[2].WeekStart != from+2*week {
		t.Fatalf("weeks %+v", h.Weeks)
	}
	if w := h.Weeks[0]; w.Count != 2 || w.Average == nil || *w.Average != 4.5 {
		t.Errorf("the week before Monday 30 March: %+v", w)
	}
	if w := h.Weeks[1]; w.Count != 1 || w.Average == nil || *w.Average != 2 {
		t.Errorf("the week of Monday 30 March: %+v", w)
	}
	if w := h.Weeks[2]; w.Count != 0 || w.Average != nil {
		t.Errorf("an empty week: %+v", w)
	}
	if a := okAs[ratingHistory](t, s.Query(rs.admin, "stores.reviews.getRatingHistory", map[string]any{"storeId": rs.storeA, "from": from, "to": to})); len(a.Weeks) != 3 {
		t.Errorf("as an administrator: %+v", a)
	}
	expectDetails(t, s.Query(rs.owner, "stores.reviews.getRatingHistory", map[string]any{"storeId": rs.storeA, "from": from, "to": from + 367*24*3600*1000}),
		"INVALID_ARGUMENT", map[string]any{"field": "to", "reason": "range_too_large"})
	expectError(t, s.Query(s.Token("owner-2"), "stores.reviews.getRatingHistory", map[string]any{"storeId": rs.storeA, "from": from, "to": to}), "PERMISSION_DENIED")
}
