// Package money keeps amounts as integer fils (1 AED = 100 fils) inside the code;
// AED numbers exist only at the interface.
package money

import (
	"errors"
	"math"
)

// Fils is an amount in fils.
type Fils int64

// MaxAED bounds any single amount the platform accepts (one billion AED), far
// above any real order or payout, and far below float64's exact-integer range.
const MaxAED = 1_000_000_000

var (
	ErrNotFinite   = errors.New("must be a finite number")
	ErrTooPrecise  = errors.New("must have at most two decimals")
	ErrOutOfBounds = errors.New("is too large")
)

// FromAED converts an interface amount. More than two decimals is an error, not a
// silent rounding: a client that sends 10.005 AED has a bug worth hearing about.
func FromAED(aed float64) (Fils, error) {
	if math.IsNaN(aed) || math.IsInf(aed, 0) {
		return 0, ErrNotFinite
	}
	if math.Abs(aed) > MaxAED {
		return 0, ErrOutOfBounds
	}
	f := math.Round(aed * 100)
	if math.Abs(aed*100-f) > 1e-6 {
		return 0, ErrTooPrecise
	}
	return Fils(f), nil
}

// AED is the interface number for f.
func (f Fils) AED() float64 { return float64(f) / 100 }

// Rate is a fraction between 0 and 1 held as parts per million, so percentage
// math is integer math.
type Rate int64

const ppm = 1_000_000

// RateOf converts an interface rate (0.05 = 5%), rounding to a millionth.
func RateOf(r float64) Rate { return Rate(math.Round(r * ppm)) }

// Float is the interface number for r.
func (r Rate) Float() float64 { return float64(r) / ppm }

// Apply is amount × rate rounded half up to whole fils.
func (r Rate) Apply(amount Fils) Fils {
	p := int64(amount) * int64(r)
	if p >= 0 {
		return Fils((p + ppm/2) / ppm)
	}
	return -Fils((-p + ppm/2) / ppm)
}
