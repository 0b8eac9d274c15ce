package domain

// A payout's transfer to a store's bank account through the processor
// (payments.transfers.createTransfer, docs/adr/0150-payouts-through-the-processor.md).
//
// One transfer per payout id: it is recorded before the processor is asked
// (status pending, no processor id yet), so that the processor's webhook,
// which may arrive before the processor's answer is recorded, always finds
// it by the payout id it carries in its metadata. The processor's answer
// adds its id (po_…); a refusal (4xx) removes the record again (nothing was
// sent). The outcome arrives as payout.paid or payout.failed:
//
//	event \ transfer   pending              paid                  failed
//	payout.paid        paid, published      ignored (duplicate)   ignored (late: failed is final)
//	payout.failed      failed, published    ignored (late, warned) ignored (duplicate)
//
// "Ignored" is a 200 and nothing written or published. A payout.failed after
// payout.paid is what a bank returning a paid transfer looks like at the
// processor; this service does not reverse a completed payout: it is warned
// about, for an operator.

import (
	"time"

	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/money"
)

// Event types of the processor's payouts.
const (
	TypePayoutPaid   = "payout.paid"
	TypePayoutFailed = "payout.failed"
)

// Transfer statuses (the contract's).
const (
	TransferPending = contract.TransferPending
	TransferPaid    = contract.TransferPaid
	TransferFailed  = contract.TransferFailed
	// TransferVoided is a payout's transfer voided before it was asked of
	// the processor (payments.transfers.voidTransfer, before a move by hand
	// of the payout): it is never sent, never shown as a transfer.
	TransferVoided = "voided"
)

// Transfer is a payout's transfer as recorded here, one per payout id.
type Transfer struct {
	PayoutID          string     `bson:"_id"`
	TransferID        string     `bson:"transferId,omitempty"` // the processor's payout id (po_…), once it answered
	StoreID           string     `bson:"storeId"`
	Amount            money.Fils `bson:"amount"`
	IBAN              string     `bson:"iban"`
	AccountHolderName string     `bson:"accountHolderName"`
	Status            string     `bson:"status"`
	FailureCode       string     `bson:"failureCode,omitempty"`
	FailureMessage    string     `bson:"failureMessage,omitempty"`
	EventID           string     `bson:"eventId,omitempty"` // the webhook event that settled it
	CreatedAt         time.Time  `bson:"createdAt"`
	SettledAt         *time.Time `bson:"settledAt,omitempty"`
	VoidedAt          *time.Time `bson:"voidedAt,omitempty"`
}

// Contract is t as the contract shows it.
func (t *Transfer) Contract() contract.Transfer {
	out := contract.Transfer{TransferID: t.TransferID, PayoutID: t.PayoutID, StoreID: t.StoreID, Amount: t.Amount, Status: t.Status,
		FailureCode: t.FailureCode, FailureMessage: t.FailureMessage, CreatedAt: t.CreatedAt.UnixMilli()}
	if t.SettledAt != nil {
		out.SettledAt = t.SettledAt.UnixMilli()
	}
	return out
}

// SameRequest reports whether a request for the payout asks what t was
// asked: a second call for the payout must not send another amount or to
// another account.
func (t *Transfer) SameRequest(storeID string, amount money.Fils, iban, holder string) bool {
	return t.StoreID == storeID && t.Amount == amount && t.IBAN == iban && t.AccountHolderName == holder
}

// TransferOutcome is the status a payout event settles a transfer in.
func TransferOutcome(eventType string) string {
	switch eventType {
	case TypePayoutPaid:
		return TransferPaid
	case TypePayoutFailed:
		return TransferFailed
	}
	return ""
}

// TransferVerdict is what a payout event does to a transfer in status
// (the table at the top of this file): ActOnEvent only for a pending one;
// IgnoreEvent for a duplicate or a late event (LateFailure tells the one
// that deserves a warning).
func TransferVerdict(status, eventType string) Verdict {
	if status == TransferPending && TransferOutcome(eventType) != "" {
		return ActOnEvent
	}
	return IgnoreEvent
}

// LateFailure reports a failure of a transfer already paid: ignored here, but
// the money may be back at the platform's account: an operator's case.
func LateFailure(status, eventType string) bool {
	return status == TransferPaid && eventType == TypePayoutFailed
}
