// Package domain holds the payments service's rules that need no processor
// and no database: what the webhook knows of a payment intent's lifecycle, and
// what each event does to an intent in each status.
package domain

// What the webhook knows of a payment intent's lifecycle, so that an event
// arriving after its intent settled changes nothing.
//
// The processor's rules (the simulator enforces the same): a declined
// confirmation (payment_intent.payment_failed) leaves the intent payable, so
// any number of failures may precede one success or one cancellation; a
// succeeded or canceled intent is final (it is never confirmed or canceled
// again). The processor does not deliver events in order, nor only once, so
// the webhook judges each event against what it already heard of the intent:
//
//	event \ intent   open (nothing, or failures)   succeeded        canceled
//	succeeded        make the order                 (the order is     make the order (never sent
//	                                                 made once)       by the processor; the charge
//	                                                                  is its word: warned)
//	payment_failed   notify the customer            ignored          ignored
//	canceled         record, keep the cart          ignored          ignored
//
// "Ignored" is a 200 "Payment intent already settled": nothing is written or
// published. A failure delivered before the success it preceded was true when
// it happened, so its notice stands and the order follows.

import "time"

// Event types the webhook acts on.
const (
	TypeSucceeded = "payment_intent.succeeded"
	TypeFailed    = "payment_intent.payment_failed"
	TypeCanceled  = "payment_intent.canceled"
)

// Statuses of an intent as the webhook heard of it; "" is open.
const (
	IntentOpen      = ""
	IntentSucceeded = "succeeded"
	IntentCanceled  = "canceled"
)

// IntentState is an intent's document. Status is set by the event that
// settled it; Failures counts the failure notices sent while it was open.
type IntentState struct {
	ID        string    `bson:"_id"` // the payment intent's id
	Status    string    `bson:"status,omitempty"`
	EventID   string    `bson:"eventId,omitempty"` // the event that set Status
	SettledAt time.Time `bson:"settledAt,omitempty"`
	Failures  int       `bson:"failures,omitempty"`
}

// ProcessedEvent records an event whose work is done.
type ProcessedEvent struct {
	ID              string    `bson:"_id"` // the processor's event id
	Type            string    `bson:"type"`
	PaymentIntentID string    `bson:"paymentIntentId"`
	OrderID         string    `bson:"orderId,omitempty"`
	StoreID         string    `bson:"storeId,omitempty"` // a succeeded event's, with its order (since refunds and disputes)
	ProcessedAt     time.Time `bson:"processedAt"`
}

// SettledBy is the status an intent has once an event of type eventType
// was processed for it: succeeded or canceled, or open for any other event
// (for intents settled before their state documents existed).
func SettledBy(eventType string) string {
	switch eventType {
	case TypeSucceeded:
		return IntentSucceeded
	case TypeCanceled:
		return IntentCanceled
	}
	return IntentOpen
}

// Settled reports an intent that succeeded or was canceled: final.
func Settled(status string) bool { return status == IntentSucceeded || status == IntentCanceled }

// Verdict is what an event does to an intent in a given status.
type Verdict int

const (
	ActOnEvent  Verdict = iota // handle it as its type says
	IgnoreEvent                // acknowledge it; change nothing
	ActAndWarn                 // handle it, though the processor never sends it so
)

// VerdictFor is the table at the top of this file: the event type's verdict
// for an intent whose status is status ("" open, succeeded, canceled).
func VerdictFor(status, eventType string) Verdict {
	switch eventType {
	case TypeSucceeded:
		if status == IntentCanceled {
			return ActAndWarn
		}
		return ActOnEvent
	case TypeFailed, TypeCanceled:
		if Settled(status) {
			return IgnoreEvent
		}
	}
	return ActOnEvent
}
