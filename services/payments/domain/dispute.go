package domain

// A customer's dispute of a charge, as the processor's webhook tells it
// (docs/adr/0149-refunds-and-disputes-at-the-processor.md):
// charge.dispute.created opens it, charge.dispute.closed closes it won or
// lost. Events come in any order and more than once, so each is judged
// against the dispute's recorded status ("" when there is no record):
//
//	event \ status   none                         open                 won / lost
//	created          record open, tell opened     ignore (duplicate)   ignore (late)
//	closed           record closed, tell opened   close, tell closed   ignore (duplicate: same
//	                 then closed                                       outcome), warn (another)
//
// A close heard before its opening records and tells both, in order, so that
// whoever follows the events (the store's wallet) sees the whole life of the
// dispute; the opening delivered afterwards is then late. won and lost are
// final.

import (
	"marketplace/libs/contracts/payments"
	"marketplace/libs/money"
)

// Dispute statuses (the contract's).
const (
	DisputeNone = ""
	DisputeOpen = payments.DisputeOpen
	DisputeWon  = payments.DisputeWon
	DisputeLost = payments.DisputeLost
)

// DisputeVerdict is what a dispute event does.
type DisputeVerdict int

const (
	DisputeIgnore       DisputeVerdict = iota // acknowledge; change nothing
	DisputeRecordOpen                         // write it open; tell opened
	DisputeClose                              // close it; tell closed
	DisputeRecordClosed                       // write it closed; tell opened, then closed
	DisputeContradict                         // closed again with another outcome: change nothing, log an error
)

// DisputeVerdictFor is the table at the top of this file. outcome is the
// closing event's (won or lost), "" for an opening.
func DisputeVerdictFor(status, outcome string) DisputeVerdict {
	opening := outcome == ""
	switch status {
	case DisputeNone:
		if opening {
			return DisputeRecordOpen
		}
		return DisputeRecordClosed
	case DisputeOpen:
		if opening {
			return DisputeIgnore
		}
		return DisputeClose
	}
	if opening || outcome == status {
		return DisputeIgnore
	}
	return DisputeContradict
}

// ClosedOutcome is the dispute status a processor's closed dispute status
// means (won or lost); ok is false for any other.
func ClosedOutcome(processorStatus string) (string, bool) {
	switch processorStatus {
	case "won":
		return DisputeWon, true
	case "lost":
		return DisputeLost, true
	}
	return "", false
}

// Dispute is one dispute (collection disputes). Times are epoch ms.
type Dispute struct {
	ID              string     `bson:"_id"` // the processor's dispute id (dp_…)
	PaymentIntentID string     `bson:"paymentIntentId"`
	ChargeID        string     `bson:"chargeId,omitempty"`
	OrderID         string     `bson:"orderId"`
	StoreID         string     `bson:"storeId"`
	Amount          money.Fils `bson:"amount"`
	Currency        string     `bson:"currency"`
	Reason          string     `bson:"reason"`
	Status          string     `bson:"status"`
	DueBy           int64      `bson:"dueBy"`
	OpenedAt        int64      `bson:"openedAt"`
	ClosedAt        int64      `bson:"closedAt,omitempty"`
}

// Open is the dispute d opened, and closed with outcome when outcome is
// won or lost (a close heard first) at closedAt.
func (d Dispute) Open(outcome string, closedAt int64) Dispute {
	d.Status = DisputeOpen
	if outcome != "" {
		d.Status, d.ClosedAt = outcome, closedAt
	}
	return d
}

// Close is d closed with outcome at closedAt.
func (d Dispute) Close(outcome string, closedAt int64) Dispute {
	d.Status, d.ClosedAt = outcome, closedAt
	return d
}

// Contract is the dispute as events and getFacts carry it.
func (d Dispute) Contract() payments.Dispute {
	return payments.Dispute{DisputeID: d.ID, PaymentIntentID: d.PaymentIntentID, OrderID: d.OrderID, StoreID: d.StoreID,
		Amount: d.Amount, Currency: d.Currency, Reason: d.Reason, Status: d.Status, DueBy: d.DueBy, OpenedAt: d.OpenedAt, ClosedAt: d.ClosedAt}
}
