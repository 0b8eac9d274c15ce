package domain

import (
	"errors"
	"testing"

	"marketplace/libs/apperr"
)

func TestCheckHeldPeriod(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	day := int64(24 * 3600 * 1000)
	for _, c := range []struct {
		name     string
		from, to *int64
		reason   string // "" ok, "-" invalid without a reason
	}{
		{"no period", nil, nil, ""},
		{"from only", p(5), nil, ""},
		{"to only", nil, p(5), ""},
		{"one instant", p(5), p(5), ""},
		{"366 days", p(0), p(366 * day), ""},
		{"366 days and 1 ms", p(0), p(366*day + 1), "range_too_large"},
		{"reversed", p(6), p(5), "-"},
	} {
		err := CheckHeldPeriod(c.from, c.to)
		if c.reason == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		var e *apperr.Error
		if !errors.As(err, &e) || e.Code != apperr.InvalidArgument {
			t.Fatalf("%s: %v, want INVALID_ARGUMENT", c.name, err)
		}
		if c.reason != "-" && e.Details["reason"] != c.reason {
			t.Errorf("%s: details %v, want reason %s", c.name, e.Details, c.reason)
		}
	}
}
