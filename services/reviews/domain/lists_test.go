package domain

import (
	"testing"

	"marketplace/libs/apperr"
)

func TestCheckListSort(t *testing.T) {
	for _, c := range []struct {
		sort   string
		period bool
		ok     bool
	}{
		{"", true, true}, {"newest", true, true}, {"oldest", true, true},
		{"highest_rating", false, true}, {"most_helpful", false, true},
		{"highest_rating", true, false}, {"lowest_rating", true, false}, {"most_helpful", true, false},
	} {
		err := CheckListSort(c.sort, c.period)
		if c.ok != (err == nil) {
			t.Errorf("%q with period %v: %v", c.sort, c.period, err)
		}
		if err != nil {
			if e := apperr.From(err); e.Code != apperr.InvalidArgument || e.Details["reason"] != "sort_with_filter" || e.Details["field"] != "sortBy" {
				t.Errorf("%q: %+v", c.sort, e)
			}
		}
	}
}
