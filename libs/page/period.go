package page

import "marketplace/libs/apperr"

// MaxPeriodDays is the longest period a list's from..to filter covers (the
// exports' and the histories' limit too).
const MaxPeriodDays = 366

const dayMs = 24 * 60 * 60 * 1000

// Period is a list's optional date filter: from and to in epoch
// milliseconds, inclusive, either one or both absent (unbounded on that side).
type Period struct {
	From, To *int64
}

// NewPeriod checks a list's from and to: INVALID_ARGUMENT on to when it is
// before from, or when both are given and more than MaxPeriodDays apart
// (details reason range_too_large, maxDays). A period open on one side is
// not limited: its index range is bounded by the list's other keys.
func NewPeriod(from, to *int64) (Period, error) {
	if from != nil && to != nil {
		if *to < *from {
			return Period{}, apperr.Invalid("to", "must not be before from (%d > %d)", *from, *to)
		}
		if *to-*from > MaxPeriodDays*dayMs {
			return Period{}, apperr.Invalid("to", "a list's period covers at most %d days; ask for a shorter period", MaxPeriodDays).
				WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": MaxPeriodDays})
		}
	}
	return Period{From: from, To: to}, nil
}

// IsSet says whether the period bounds anything.
func (p Period) IsSet() bool { return p.From != nil || p.To != nil }

// Contains says whether t (epoch ms) is in the period.
func (p Period) Contains(t int64) bool {
	return (p.From == nil || t >= *p.From) && (p.To == nil || t <= *p.To)
}

// Range is the period as a query condition on a field ({$gte, $lte}); nil
// when it bounds nothing.
func (p Period) Range() map[string]any {
	if !p.IsSet() {
		return nil
	}
	r := map[string]any{}
	if p.From != nil {
		r["$gte"] = *p.From
	}
	if p.To != nil {
		r["$lte"] = *p.To
	}
	return r
}
