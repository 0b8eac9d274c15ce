package payments

// The webhook's side of a payment intent's lifecycle: the rules and their
// table are domain/intent.go's (domain.VerdictFor); the intent's recorded
// status is storage.Intents'.

import (
	"marketplace/services/payments/domain"
)

// Event types this service acts on.
const (
	typeSucceeded = domain.TypeSucceeded
	typeFailed    = domain.TypeFailed
	typeCanceled  = domain.TypeCanceled
)

// textIntentSettled answers an event of an intent already settled.
const textIntentSettled = "Payment intent already settled"
