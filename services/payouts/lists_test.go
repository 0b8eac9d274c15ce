package payouts

import (
	"errors"
	"testing"

	"marketplace/libs/apperr"
)

func TestListPeriod(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	const day = dayMs
	for _, tc := range []struct {
		name     string
		from, to *int64
		reason   string // "" accepted; "-" refused without a reason
	}{
		{"none", nil, nil, ""},
		{"from only", p(5), nil, ""},
		{"to only", nil, p(5), ""},
		{"one instant", p(7), p(7), ""},
		{"366 days", p(0), p(366 * day), ""},
		{"366 days and a millisecond", p(0), p(366*day + 1), "range_too_large"},
		{"reversed", p(8), p(7), "-"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := listPeriod(tc.from, tc.to)
			if tc.reason == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.InvalidArgument {
				t.Fatalf("want INVALID_ARGUMENT, got %v", err)
			}
			if got, _ := ae.Details["reason"].(string); tc.reason != "-" && got != tc.reason {
				t.Fatalf("reason %q, want %q", got, tc.reason)
			}
		})
	}
}

func TestCappedCount(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want ListCount
	}{
		{0, ListCount{}},
		{10, ListCount{Count: 10}},
		{maxListCount, ListCount{Count: maxListCount}},
		{maxListCount + 1, ListCount{Count: maxListCount, Capped: true}},
	} {
		if got := cappedCount(tc.n, maxListCount); got != tc.want {
			t.Errorf("cappedCount(%d) = %+v, want %+v", tc.n, got, tc.want)
		}
	}
}
