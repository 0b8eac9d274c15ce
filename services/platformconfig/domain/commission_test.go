package domain

import (
	"testing"

	"marketplace/libs/money"
)

func amt(aed float64) money.Fils { f, _ := money.FromAED(aed); return f }
func rate(r float64) *money.Rate { x := money.RateOf(r); return &x }
func fp(aed float64) *money.Fils { f := amt(aed); return &f }

var defaults = Effective{Rate: money.RateOf(0.05), Fixed: amt(2), Minimum: amt(1), Maximum: amt(50)}

func TestResolvePrecedence(t *testing.T) {
	category := &Rates{Rate: rate(0.04)}                                            // leaves fee and minimum out
	tier := &Rates{Rate: rate(0.03), FixedFee: fp(1.5), MinimumCommission: fp(0.5)} // premium-like
	cases := []struct {
		name   string
		levels []*Rates
		want   Effective
	}{
		{"defaults only", nil, defaults},
		{"category over defaults", []*Rates{category, nil}, Effective{Rate: money.RateOf(0.04), Fixed: amt(2), Minimum: amt(1), Maximum: amt(50)}},
		{"tier over defaults", []*Rates{nil, tier}, Effective{Rate: money.RateOf(0.03), Fixed: amt(1.5), Minimum: amt(0.5), Maximum: amt(50)}},
		{"category rate, tier fee and minimum", []*Rates{category, tier}, Effective{Rate: money.RateOf(0.04), Fixed: amt(1.5), Minimum: amt(0.5), Maximum: amt(50)}},
		{"category overrides all it sets", []*Rates{{Rate: rate(0.07), FixedFee: fp(0), MinimumCommission: fp(3)}, tier}, Effective{Rate: money.RateOf(0.07), Fixed: 0, Minimum: amt(3), Maximum: amt(50)}},
	}
	for _, c := range cases {
		if got := Resolve(defaults, c.levels...); got != c.want {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestComputeClampsAndNeverExceedsTotal(t *testing.T) {
	cases := []struct {
		name                string
		e                   Effective
		subtotal, fee       float64
		pct, platform, earn float64
		minApplied, maxApp  bool
	}{
		{"plain", defaults, 100, 10, 5.5, 7.5, 102.5, false, false},
		{"minimum applies", Effective{Rate: money.RateOf(0.01), Fixed: 0, Minimum: amt(1), Maximum: amt(50)}, 20, 0, 0.2, 1, 19, true, false},
		{"maximum applies", defaults, 2000, 0, 100, 50, 1950, false, true},
		{"never above total", defaults, 1.5, 0, 0.08, 1.5, 0, false, false}, // 0.075 rounds to 0.08; +2 fee = 2.08 > 1.5
		{"fee alone above a tiny order total is capped by it", defaults, 0.5, 0, 0.03, 0.5, 0, false, false},
		{"zero order", defaults, 0, 0, 0, 0, 0, false, false},
		{"rounding half up", Effective{Rate: money.RateOf(0.07), Maximum: amt(50)}, 15.5, 0, 1.09, 1.09, 14.41, false, false},
	}
	for _, c := range cases {
		got := Compute(c.e, amt(c.subtotal), amt(c.fee))
		if got.Total != amt(c.subtotal+c.fee) || got.Percentage != amt(c.pct) || got.Platform != amt(c.platform) ||
			got.StoreEarnings != amt(c.earn) || got.Total != got.Platform+got.StoreEarnings {
			t.Errorf("%s: %+v", c.name, got)
		}
		if got.MinimumApplied != c.minApplied || got.MaximumApplied != c.maxApp {
			t.Errorf("%s: flags %v %v", c.name, got.MinimumApplied, got.MaximumApplied)
		}
	}
}
