package page

import (
	"testing"

	"marketplace/libs/apperr"
)

func TestNewPeriod(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	day := int64(dayMs)
	for _, c := range []struct {
		name     string
		from, to *int64
		reason   string // "" accepted; "to" refused on to; "range_too_large"
	}{
		{"none", nil, nil, ""},
		{"from only", i(5), nil, ""},
		{"to only", nil, i(5), ""},
		{"one instant", i(5), i(5), ""},
		{"366 days", i(0), i(366 * day), ""},
		{"366 days and 1 ms", i(0), i(366*day + 1), "range_too_large"},
		{"reversed", i(6), i(5), "to"},
		{"far open end", i(0), nil, ""},
	} {
		p, err := NewPeriod(c.from, c.to)
		if c.reason == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			if p.IsSet() != (c.from != nil || c.to != nil) {
				t.Errorf("%s: IsSet %v", c.name, p.IsSet())
			}
			continue
		}
		e := apperr.From(err)
		if err == nil || e.Code != apperr.InvalidArgument || e.Details["field"] != "to" {
			t.Errorf("%s: %v, want INVALID_ARGUMENT on to", c.name, err)
			continue
		}
		if c.reason == "range_too_large" && e.Details["reason"] != "range_too_large" {
			t.Errorf("%s: details %v", c.name, e.Details)
		}
	}
}

func TestPeriodContainsAndRange(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	p, _ := NewPeriod(i(10), i(20))
	for at, want := range map[int64]bool{9: false, 10: true, 15: true, 20: true, 21: false} {
		if p.Contains(at) != want {
			t.Errorf("Contains(%d) = %v", at, !want)
		}
	}
	r := p.Range()
	if r["$gte"] != int64(10) || r["$lte"] != int64(20) || len(r) != 2 {
		t.Errorf("Range %v", r)
	}
	open, _ := NewPeriod(nil, i(20))
	if r := open.Range(); len(r) != 1 || r["$lte"] != int64(20) || !open.Contains(-5) {
		t.Errorf("open Range %v", r)
	}
	if (Period{}).Range() != nil || !(Period{}).Contains(0) {
		t.Error("an empty period bounds nothing")
	}
}
