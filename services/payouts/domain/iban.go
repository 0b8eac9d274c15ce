package domain

import (
	"errors"
	"strings"
)

// UAE IBANs: "AE", two check digits, a 3-digit bank code and a 16-digit
// account number, 23 characters, valid under ISO 13616's mod-97 check.
const uaeIBANLength = 23

var (
	errIBANCountry  = errors.New("must be a UAE IBAN (starting with AE)")
	errIBANLength   = errors.New("must be 23 characters (AE, 2 check digits, 19 digits)")
	errIBANDigits   = errors.New("must hold only digits after AE")
	errIBANChecksum = errors.New("fails the IBAN check digits (mod 97)")
)

// NormalizeIBAN drops the spaces people write IBANs with and upper-cases it.
func NormalizeIBAN(s string) string {
	return strings.ToUpper(strings.Join(strings.Fields(s), ""))
}

// CheckUAEIBAN returns the normalised IBAN, or why it is not a valid UAE IBAN.
func CheckUAEIBAN(s string) (string, error) {
	iban := NormalizeIBAN(s)
	if !strings.HasPrefix(iban, "AE") {
		return "", errIBANCountry
	}
	if len(iban) != uaeIBANLength {
		return "", errIBANLength
	}
	for i := 2; i < len(iban); i++ {
		if iban[i] < '0' || iban[i] > '9' {
			return "", errIBANDigits
		}
	}
	if ibanMod97(iban) != 1 {
		return "", errIBANChecksum
	}
	return iban, nil
}

// ibanMod97 is ISO 13616's remainder: the first four characters moved to the
// end, letters read as 10..35, the resulting number modulo 97 (digit by digit,
// so no big numbers are needed). It expects upper-case letters and digits.
func ibanMod97(iban string) int {
	r := 0
	for _, c := range iban[4:] + iban[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = (r*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			r = (r*100 + int(c-'A') + 10) % 97
		default:
			return -1
		}
	}
	return r
}
