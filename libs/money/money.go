// Package money keeps amounts as integer fils (1 AED = 100 fils) inside the code;
// AED numbers exist only at the interface.
package money

import (
	"errors"
	"math"
	"strings"
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

// maxFilsDigits is the number of digits of MaxAED in fils (100000000000).
const maxFilsDigits = 12

// ErrNotANumber is a text that is not a decimal number.
var ErrNotANumber = errors.New("must be a number")

// ParseAED converts the text of a decimal number (JSON number syntax: "12.5",
// "-3", "1e2", "0.10") exactly, without going through a float: a value that is
// not a whole number of fils is ErrTooPrecise however small ("1e-300" is not
// zero), and zero is always 0 (never a negative zero).
func ParseAED(s string) (Fils, error) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e := s[i+1:]
		eneg := strings.HasPrefix(e, "-")
		e = strings.TrimPrefix(strings.TrimPrefix(e, "+"), "-")
		if e == "" || !allDigits(e) {
			return 0, ErrNotANumber
		}
		e = strings.TrimLeft(e, "0")
		huge := len(e) > 6
		for _, c := range e[:min(len(e), 7)] {
			exp = exp*10 + int(c-'0')
		}
		if eneg {
			exp = -exp
		}
		if huge {
			// |exponent| >= 10^7 is beyond what any mantissa in a request body
			// (at most a few million digits) can balance: zero stays zero, any
			// other value is too large or too small, whatever its digits.
			whole, frac, _ := strings.Cut(mant, ".")
			switch {
			case whole == "" || !allDigits(whole) || !allDigits(frac):
				return 0, ErrNotANumber
			case strings.Trim(whole+frac, "0") == "":
				return 0, nil
			case eneg:
				return 0, ErrTooPrecise
			}
			return 0, ErrOutOfBounds
		}
	}
	whole, frac, dot := strings.Cut(mant, ".")
	if whole == "" || !allDigits(whole) || !allDigits(frac) || (dot && frac == "") {
		return 0, ErrNotANumber
	}
	// value = digits × 10^scale fils
	digits := strings.TrimLeft(whole+frac, "0")
	scale := exp - len(frac) + 2
	trimmed := strings.TrimRight(digits, "0")
	scale += len(digits) - len(trimmed)
	digits = trimmed
	if digits == "" {
		return 0, nil
	}
	if scale < 0 {
		return 0, ErrTooPrecise
	}
	if len(digits)+scale > maxFilsDigits {
		return 0, ErrOutOfBounds
	}
	var f int64
	for _, c := range digits {
		f = f*10 + int64(c-'0')
	}
	for range scale {
		f *= 10
	}
	if f > MaxAED*100 {
		return 0, ErrOutOfBounds
	}
	if neg {
		f = -f
	}
	return Fils(f), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
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

// MinorUnits is the number of decimals of currency's minor unit (ISO 4217, as
// payment processors count amounts): 2 for most currencies, AED included; 0 for
// the zero-decimal ones (JPY, KRW, ...); 3 for BHD, JOD, KWD, OMR and TND.
func MinorUnits(currency string) int {
	switch strings.ToLower(currency) {
	case "bif", "clp", "djf", "gnf", "isk", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf":
		return 0
	case "bhd", "jod", "kwd", "omr", "tnd":
		return 3
	}
	return 2
}

// Major is an amount of minor units of currency in its major unit (1234 fils
// is 12.34 AED, 1234 yen is 1234 JPY, 1234 baisa is 1.234 OMR).
func Major(minor int64, currency string) float64 {
	return float64(minor) / math.Pow10(MinorUnits(currency))
}
