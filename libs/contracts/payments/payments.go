// Package payments is the payments context's contract: its events (topic
// "payments").
package payments

import "marketplace/libs/money"

// Topic carries the payments service's events, keyed by payment intent id.
const Topic = "payments"

// EventPaymentFailed is published for a failed payment; data: PaymentFailed.
const EventPaymentFailed = "payment.failed"

// PaymentFailed is the data of payment.failed. Amount is in the minor units of
// Currency (fils for aed).
type PaymentFailed struct {
	PaymentIntentID string     `json:"paymentIntentId"`
	CustomerID      string     `json:"customerId"`
	CustomerUserID  string     `json:"customerUserId"`
	StoreID         string     `json:"storeId"`
	Amount          money.Fils `json:"amountFils"`
	Currency        string     `json:"currency"`
	FailureMessage  string     `json:"failureMessage"` // the processor's last_payment_error.message, may be ""
}
