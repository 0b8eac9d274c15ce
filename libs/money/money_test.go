package money

import (
	"errors"
	"math"
	"strings"
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

func TestParseAEDIsExact(t *testing.T) {
	cases := []struct {
		in   string
		want Fils
		err  error
	}{
		{"0", 0, nil}, {"-0", 0, nil}, {"0.00", 0, nil}, {"-0.0e5", 0, nil}, {"12.5", 1250, nil}, {"12.50", 1250, nil},
		{"19.99", 1999, nil}, {"0.07", 7, nil}, {"-3.5", -350, nil}, {"1e2", 10000, nil}, {"1.5E+1", 1500, nil},
		{"1234e-2", 1234, nil}, {"1000000000", 100000000000, nil}, {"0.010", 1, nil}, {"10.000", 1000, nil},
		{"1e-300", 0, ErrTooPrecise}, {"10.005", 0, ErrTooPrecise}, {"0.001", 0, ErrTooPrecise},
		{"1e-3", 0, ErrTooPrecise}, {"1e-99999999999", 0, ErrTooPrecise},
		{"1000000000.01", 0, ErrOutOfBounds}, {"1e10", 0, ErrOutOfBounds}, {"1e99999999999", 0, ErrOutOfBounds},
		{"", 0, ErrNotANumber}, {"-", 0, ErrNotANumber}, {".5", 0, ErrNotANumber}, {"5.", 0, ErrNotANumber},
		{"1e", 0, ErrNotANumber}, {"0x10", 0, ErrNotANumber}, {"1,5", 0, ErrNotANumber}, {"NaN", 0, ErrNotANumber},
	}
	// Huge exponents are decided by their sign, whatever the mantissa's length
	// (a long mantissa must not balance a clipped exponent).
	long := "1" + strings.Repeat("0", 1_000_002)
	cases = append(cases, []struct {
		in   string
		want Fils
		err  error
	}{
		{long + "e-9999999", 0, ErrTooPrecise}, {"-" + long + "e-9999999", 0, ErrTooPrecise},
		{"0." + strings.Repeat("0", 999_998) + "1e9999999", 0, ErrOutOfBounds},
		{"0e99999999", 0, nil}, {"0.000e-99999999", 0, nil}, {"1e+1234567", 0, ErrOutOfBounds},
	}...)
	for _, c := range cases {
		got, err := ParseAED(c.in)
		if !errors.Is(err, c.err) || (err == nil && got != c.want) {
			t.Errorf("ParseAED(%q) = %v, %v; want %v, %v", c.in, got, err, c.want, c.err)
		}
		if err == nil && got == 0 && math.Signbit(float64(got)) {
			t.Errorf("ParseAED(%q) is a negative zero", c.in)
		}
	}
}

func TestMajorUnitsFollowTheCurrency(t *testing.T) {
	for _, c := range []struct {
		minor    int64
		currency string
		want     float64
	}{{1234, "aed", 12.34}, {1234, "USD", 12.34}, {1234, "jpy", 1234}, {1234, "omr", 1.234}, {1234, "KWD", 1.234}} {
		if got := Major(c.minor, c.currency); got != c.want {
			t.Errorf("Major(%d, %s) = %v, want %v", c.minor, c.currency, got, c.want)
		}
	}
}
