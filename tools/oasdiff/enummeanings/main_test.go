package main

import (
	"slices"
	"strings"
	"testing"
)

func TestBreaks(t *testing.T) {
	base := map[string]map[string]string{
		"orderStatus": {"pending": "placed", "delivered": "handed over"},
		"flagAction":  {"dismiss": "keep the review"},
	}
	cases := []struct {
		name string
		next map[string]map[string]string
		want []string // substrings of the breaks, in order; none: passes
	}{
		{"unchanged", base, nil},
		{"a value and an enum added", map[string]map[string]string{
			"orderStatus": {"pending": "placed", "delivered": "handed over", "returned": "sent back"},
			"flagAction":  {"dismiss": "keep the review"},
			"tier":        {"basic": "the basic tier"},
		}, nil},
		{"a meaning changed", map[string]map[string]string{
			"orderStatus": {"pending": "placed", "delivered": "left at the door"},
			"flagAction":  {"dismiss": "keep the review"},
		}, []string{`orderStatus: value "delivered" changed its meaning`}},
		{"a value gone", map[string]map[string]string{
			"orderStatus": {"pending": "placed"},
			"flagAction":  {"dismiss": "keep the review"},
		}, []string{`orderStatus: value "delivered" is gone`}},
		{"an enum gone", map[string]map[string]string{
			"orderStatus": {"pending": "placed", "delivered": "handed over"},
		}, []string{"enum flagAction: its meanings are gone"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := breaks(base, c.next)
			if len(got) != len(c.want) {
				t.Fatalf("breaks %q, want %d matching %q", got, len(c.want), c.want)
			}
			for i, w := range c.want {
				if !strings.Contains(got[i], w) {
					t.Errorf("break %d = %q, want it to contain %q", i, got[i], w)
				}
			}
			if !slices.IsSorted(got) {
				t.Errorf("breaks not sorted: %q", got)
			}
		})
	}
}
