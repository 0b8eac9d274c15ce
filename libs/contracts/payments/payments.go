// Package payments is the payments context's contract: its events (topic
// "payments") and the internal operations other services call, with a typed
// client.
package payments

import (
	"context"

	"marketplace/libs/money"
	"marketplace/libs/ops"
)

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

// Service is the payments module name.
const Service = "payments"

// Events of the money after the order (docs/adr/0146-refunds.md and the
// records after it). Refund and dispute events are keyed by payment intent
// id, transfer events by payout id.
const (
	// The processor confirmed a refund (charge.refunded). Data: PaymentRefunded.
	EventPaymentRefunded = "payment.refunded"
	// The processor refused or failed a refund (refund.failed, or the
	// refund's creation was refused). Data: PaymentRefundFailed.
	EventPaymentRefundFailed = "payment.refund_failed"
	// A customer disputed a charge (charge.dispute.created). Data: Dispute.
	EventDisputeOpened = "payment.dispute_opened"
	// A dispute was closed won or lost (charge.dispute.closed). Data: Dispute.
	EventDisputeClosed = "payment.dispute_closed"
	// A payout's transfer reached the store's bank (payout.paid). Data: Transfer.
	EventTransferPaid = "payment.transfer_paid"
	// A payout's transfer failed (payout.failed). Data: Transfer.
	EventTransferFailed = "payment.transfer_failed"
)

// PaymentRefunded is the data of payment.refunded. RefundID is the
// marketplace's refund id (the order's), or the processor's id for a refund
// made at the processor without one (Origin "processor"). Amount is in the
// minor units of Currency.
type PaymentRefunded struct {
	RefundID          string     `json:"refundId"`
	ProcessorRefundID string     `json:"processorRefundId"`
	OrderID           string     `json:"orderId"`
	PaymentIntentID   string     `json:"paymentIntentId"`
	Amount            money.Fils `json:"amountFils"`
	Currency          string     `json:"currency"`
	Origin            string     `json:"origin" enum:"marketplace|processor"`
}

// PaymentRefundFailed is the data of payment.refund_failed.
type PaymentRefundFailed struct {
	RefundID          string     `json:"refundId"`
	ProcessorRefundID string     `json:"processorRefundId,omitempty"`
	OrderID           string     `json:"orderId"`
	PaymentIntentID   string     `json:"paymentIntentId"`
	Amount            money.Fils `json:"amountFils"`
	Currency          string     `json:"currency"`
	FailureReason     string     `json:"failureReason"`
}

// Dispute statuses.
const (
	DisputeOpen = "open"
	DisputeWon  = "won"
	DisputeLost = "lost"
)

// Dispute is a customer's dispute of a charge as the payments service has it
// (payment.dispute_opened, payment.dispute_closed, OpGetMoneyFacts).
// Amount is in the minor units of Currency; times are epoch ms; DueBy is
// when the evidence is due at the processor.
type Dispute struct {
	DisputeID       string     `json:"disputeId"`
	PaymentIntentID string     `json:"paymentIntentId"`
	OrderID         string     `json:"orderId"`
	StoreID         string     `json:"storeId"`
	Amount          money.Fils `json:"amountFils"`
	Currency        string     `json:"currency"`
	Reason          string     `json:"reason"`
	Status          string     `json:"status" enum:"open|won|lost"`
	DueBy           int64      `json:"dueBy"`
	OpenedAt        int64      `json:"openedAt"`
	ClosedAt        int64      `json:"closedAt,omitempty"`
}

// Transfer statuses.
const (
	TransferPending = "pending"
	TransferPaid    = "paid"
	TransferFailed  = "failed"
)

// Transfer is a payout's transfer to a store's bank account through the
// processor (payment.transfer_paid, payment.transfer_failed,
// OpCreateTransfer, OpGetMoneyFacts). Amount is fils (AED).
type Transfer struct {
	TransferID     string     `json:"transferId"` // the processor's payout id (po_…)
	PayoutID       string     `json:"payoutId"`
	StoreID        string     `json:"storeId"`
	Amount         money.Fils `json:"amountFils"`
	Status         string     `json:"status" enum:"pending|paid|failed"`
	FailureCode    string     `json:"failureCode,omitempty"`
	FailureMessage string     `json:"failureMessage,omitempty"`
	CreatedAt      int64      `json:"createdAt"`
	SettledAt      int64      `json:"settledAt,omitempty"`
}

// Internal operations of the payments service.
const (
	// OpCreateTransfer (internal mutation, called by payouts) sends a
	// payout's net amount to the store's bank account through the processor,
	// once per payout id (a second call answers the first transfer):
	// TransferArgs in, Transfer out. A refusal by the processor is
	// FAILED_PRECONDITION; the processor unreachable, UNAVAILABLE.
	OpCreateTransfer = "payments.transfers.createTransfer"
	// OpVoidTransfer (internal mutation, called by payouts) comes before a
	// move by hand of a payout sent through the processor: if the payout's
	// transfer was not yet asked of the processor, it is voided (recorded
	// so, atomically with OpCreateTransfer's claim of it) and no transfer is
	// ever made for that payout; otherwise the transfer is answered as it
	// is (pending, paid or failed). VoidTransferArgs in, TransferVoid out.
	OpVoidTransfer = "payments.transfers.voidTransfer"
	// OpGetMoneyFacts (internal query, called by payouts and customers) is
	// what the payments service has of some disputes and transfers:
	// MoneyFactsArgs in, MoneyFacts out; unknown ids are absent.
	OpGetMoneyFacts = "payments.money.getFacts"
)

// TransferArgs are the arguments of OpCreateTransfer.
type TransferArgs struct {
	PayoutID          string     `json:"payoutId" op:"required,id=payouts"`
	StoreID           string     `json:"storeId" op:"required,id=stores"`
	Amount            money.Fils `json:"amountFils" op:"required"`
	IBAN              string     `json:"iban" op:"required"`
	AccountHolderName string     `json:"accountHolderName" op:"required"`
}

// VoidTransferArgs are the arguments of OpVoidTransfer.
type VoidTransferArgs struct {
	PayoutID string `json:"payoutId" op:"required,id=payouts"`
}

// TransferVoid is OpVoidTransfer's answer: Voided when the payout has no
// transfer at the processor and never will (a call again answers the same),
// else its Transfer as it is.
type TransferVoid struct {
	PayoutID string    `json:"payoutId"`
	Voided   bool      `json:"voided"`
	Transfer *Transfer `json:"transfer,omitempty"`
}

// MaxMoneyFacts is the most ids of each kind one OpGetMoneyFacts call takes.
const MaxMoneyFacts = 200

// MoneyFactsArgs are the arguments of OpGetMoneyFacts.
type MoneyFactsArgs struct {
	DisputeIDs []string `json:"disputeIds" op:"max=200"`
	PayoutIDs  []string `json:"payoutIds" op:"max=200"`
}

// MoneyFacts is OpGetMoneyFacts's answer: disputes by dispute id, transfers
// by payout id.
type MoneyFacts struct {
	Disputes  map[string]Dispute  `json:"disputes"`
	Transfers map[string]Transfer `json:"transfers"`
}

// Client calls the payments service's internal operations.
type Client struct{ calls *ops.Client }

// NewClient makes a client over calls.
func NewClient(calls *ops.Client) *Client { return &Client{calls: calls} }

// CreateTransfer asks for a payout's transfer (OpCreateTransfer).
func (c *Client) CreateTransfer(ctx context.Context, args TransferArgs) (*Transfer, error) {
	var out Transfer
	if err := c.calls.Mutation(ctx, Service, OpCreateTransfer, args, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// VoidTransfer voids a payout's transfer not yet asked of the processor, or
// answers it as it is (OpVoidTransfer).
func (c *Client) VoidTransfer(ctx context.Context, args VoidTransferArgs) (*TransferVoid, error) {
	var out TransferVoid
	if err := c.calls.Mutation(ctx, Service, OpVoidTransfer, args, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// MoneyFacts asks for disputes by id and transfers by payout id
// (OpGetMoneyFacts); at most MaxMoneyFacts of each per call.
func (c *Client) MoneyFacts(ctx context.Context, args MoneyFactsArgs) (*MoneyFacts, error) {
	var out MoneyFacts
	if err := c.calls.Query(ctx, Service, OpGetMoneyFacts, args, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
