package money

import (
	"errors"
	"math"
	"testing"
)

func TestFromAED(t *testing.T) {
	cases := []struct {
		in   float64
		want Fils
		err  error
	}{
		{0, 0, nil}, {2, 200, nil}, {0.1, 10, nil}, {19.99, 1999, nil}, {0.07, 7, nil},
		{1234567.89, 123456789, nil}, {-3.5, -350, nil},
		{10.005, 0, ErrTooPrecise}, {0.001, 0, ErrTooPrecise},
		{math.NaN(), 0, ErrNotFinite}, {math.Inf(1), 0, ErrNotFinite}, {2e9, 0, ErrOutOfBounds},
	}
	for _, c := range cases {
		got, err := FromAED(c.in)
		if !errors.Is(err, c.err) || (err == nil && got != c.want) {
			t.Errorf("FromAED(%v) = %v, %v; want %v, %v", c.in, got, err, c.want, c.err)
		}
	}
	if Fils(1999).AED() != 19.99 {
		t.Fatal("AED round trip")
	}
}

func TestRateApplyRoundsHalfUp(t *testing.T) {
	cases := []struct {
		rate   float64
		amount Fils
		want   Fils
	}{
		{0.05, 10000, 500}, {0.05, 1, 0}, {0.05, 10, 1}, {0.07, 1550, 109}, // 108.5 -> 109
		{0.045, 3333, 150}, {1, 777, 777}, {0, 777, 0}, {0.05, -10, -1},
	}
	for _, c := range cases {
		if got := RateOf(c.rate).Apply(c.amount); got != c.want {
			t.Errorf("%v × %v = %v, want %v", c.amount, c.rate, got, c.want)
		}
	}
	if RateOf(0.045).Float() != 0.045 {
		t.Fatal("rate round trip")
	}
}
