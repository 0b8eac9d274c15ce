package domain

import "marketplace/libs/apperr"

// MaxHeldDays bounds the period of a listing of held orders (listHeldOrders,
// countHeldOrders), as the other lists' periods (docs/adr/0179).
const MaxHeldDays = 366

// CheckHeldPeriod refuses a reversed period and one longer than MaxHeldDays
// (INVALID_ARGUMENT, details.reason range_too_large); an open end (nil) is
// no bound.
func CheckHeldPeriod(from, to *int64) error {
	if from == nil || to == nil {
		return nil
	}
	if *from > *to {
		return apperr.Invalid("to", "must not be before from (%d > %d)", *from, *to)
	}
	if *to-*from > MaxHeldDays*dayMs {
		return apperr.Invalid("to", "a list's date range covers at most %d days", MaxHeldDays).
			WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": MaxHeldDays})
	}
	return nil
}
