package domain

import "marketplace/libs/money"

// Rates is one level of commission rules; nil fields fall back to the next level.
type Rates struct {
	Rate              *money.Rate
	FixedFee          *money.Fils
	MinimumCommission *money.Fils
}

// Effective are the rules that apply to one store.
type Effective struct {
	Rate    money.Rate
	Fixed   money.Fils
	Minimum money.Fils
	Maximum money.Fils
}

// Resolve applies the precedence of the platform contract: the store's primary
// category entry, else its tier entry, else the platform defaults; the fixed fee
// and the minimum fall back the same way, field by field. The maximum is always
// the platform's.
func Resolve(defaults Effective, levels ...*Rates) Effective {
	e := defaults
	// Walk from the least to the most specific level so the most specific wins.
	for i := len(levels) - 1; i >= 0; i-- {
		l := levels[i]
		if l == nil {
			continue
		}
		if l.Rate != nil {
			e.Rate = *l.Rate
		}
		if l.FixedFee != nil {
			e.Fixed = *l.FixedFee
		}
		if l.MinimumCommission != nil {
			e.Minimum = *l.MinimumCommission
		}
	}
	return e
}

// Commission is the outcome of the calculation.
type Commission struct {
	Total          money.Fils
	Percentage     money.Fils
	Platform       money.Fils
	StoreEarnings  money.Fils
	MinimumApplied bool
	MaximumApplied bool
}

// Compute is the calculation of the interface document (section 4.5):
// (subtotal + deliveryFee) × rate + fixed fee, clamped between the minimum and the
// maximum, and never more than the order total.
func Compute(e Effective, subtotal, deliveryFee money.Fils) Commission {
	c := Commission{Total: subtotal + deliveryFee}
	c.Percentage = e.Rate.Apply(c.Total)
	c.Platform = c.Percentage + e.Fixed
	if c.Platform < e.Minimum {
		c.Platform, c.MinimumApplied = e.Minimum, true
	}
	if c.Platform > e.Maximum {
		c.Platform, c.MaximumApplied = e.Maximum, true
	}
	if c.Platform > c.Total {
		c.Platform = c.Total
	}
	c.StoreEarnings = c.Total - c.Platform
	return c
}
