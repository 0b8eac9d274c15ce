package domain

import (
	"testing"

	"marketplace/libs/money"
)

// TestReviewReason: an order is paid only when the payment is in AED and is
// its total to the fils; a payment above the total (a cart that shrank after
// its payment intent was made) is held as surely as one below it.
func TestReviewReason(t *testing.T) {
	const total money.Fils = 157_50
	cases := []struct {
		name     string
		currency string
		paid     money.Fils
		want     string
	}{
		{"exact", "aed", total, ""},
		{"one fils short", "aed", total - 1, ReviewAmountMismatch},
		{"underpaid", "aed", 100_00, ReviewAmountMismatch},
		{"one fils over", "aed", total + 1, ReviewAmountMismatch},
		{"overpaid: the cart shrank after the intent", "aed", 2 * total, ReviewAmountMismatch},
		{"nothing paid", "aed", 0, ReviewAmountMismatch},
		{"another currency, same number", "usd", total, ReviewCurrencyMismatch},
		{"another currency, another number", "eur", total + 5, ReviewCurrencyMismatch},
		{"no currency", "", total, ReviewCurrencyMismatch},
	}
	for _, c := range cases {
		if got := ReviewReason(c.currency, c.paid, total); got != c.want {
			t.Errorf("%s: ReviewReason(%q, %d, %d) = %q, want %q", c.name, c.currency, c.paid, total, got, c.want)
		}
	}
}
