package domain

import (
	"errors"
	"testing"
)

func TestCheckUAEIBAN(t *testing.T) {
	cases := []struct {
		in, want string
		err      error
	}{
		{"AE070331234567890123456", "AE070331234567890123456", nil},
		{"AE460090000000123456789", "AE460090000000123456789", nil},
		{"AE77 0331 2345 6789 0123 457", "AE770331234567890123457", nil}, // written in groups
		{"ae070331234567890123456", "AE070331234567890123456", nil},      // lower case
		{"AE070331234567890123457", "", errIBANChecksum},                 // one digit off
		{"AE080331234567890123456", "", errIBANChecksum},                 // check digits off
		{"AE700331234567890123456", "", errIBANChecksum},                 // check digits swapped
		{"GB82WEST12345698765432", "", errIBANCountry},                   // valid, but not the UAE
		{"AE07033123456789012345", "", errIBANLength},                    // 22 characters
		{"AE0703312345678901234567", "", errIBANLength},                  // 24 characters
		{"AE07033123456789012345X", "", errIBANDigits},
		{"", "", errIBANCountry},
		{"AE", "", errIBANLength},
	}
	for _, c := range cases {
		got, err := CheckUAEIBAN(c.in)
		if !errors.Is(err, c.err) || got != c.want {
			t.Errorf("CheckUAEIBAN(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

// Every single-digit change of a valid IBAN is caught by the mod-97 check.
func TestIBANCheckCatchesEverySingleDigitError(t *testing.T) {
	valid := []byte("AE070331234567890123456")
	for i := 2; i < len(valid); i++ {
		for d := byte('0'); d <= '9'; d++ {
			if d == valid[i] {
				continue
			}
			b := append([]byte(nil), valid...)
			b[i] = d
			if _, err := CheckUAEIBAN(string(b)); err == nil {
				t.Errorf("%s accepted", b)
			}
		}
	}
}
