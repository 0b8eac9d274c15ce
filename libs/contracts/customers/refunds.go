package customers

import (
	"context"

	"marketplace/libs/money"
)

// Refund events on TopicOrders (key: the order id). A refund is asked of the
// processor (through the payments service) and takes effect only when the
// processor confirms it (docs/adr/0146-refunds.md).
const (
	// EventRefundRequested: a refund was reserved on an order; the payments
	// service asks the processor for it. Data: RefundRequested.
	EventRefundRequested = "order.refund_requested"
	// EventOrderRefunded: the processor confirmed a refund and the order's
	// refunded amount grew. Data: OrderRefunded.
	EventOrderRefunded = "order.refunded"
	// EventRefundFailed: the processor refused or failed a refund; its
	// reservation is released. Data: RefundFailed.
	EventRefundFailed = "order.refund_failed"
)

// Refund statuses of an order (its refundStatus; absent while nothing was
// refunded) and of one refund.
const (
	OrderRefundPartial = "partially_refunded"
	OrderRefundFull    = "refunded"

	RefundStatusRequested = "requested"
	RefundStatusSucceeded = "succeeded"
	RefundStatusFailed    = "failed"
)

// Where a refund came from.
const (
	RefundByAdmin        = "admin"        // admins.orders.refundOrder
	RefundByStore        = "store"        // stores.orders.refundOrder
	RefundByCancellation = "cancellation" // a paid order cancelled: refunded in full
	RefundByProcessor    = "processor"    // made at the processor (its dashboard), learnt from its webhook
)

// RefundRequested is the data of order.refund_requested. Amount is in the
// minor units of Currency (fils for aed); Full says the refund is of all that
// is left (the processor is asked without an amount).
type RefundRequested struct {
	RefundID        string     `json:"refundId"`
	OrderID         string     `json:"orderId"`
	StoreID         string     `json:"storeId"`
	CustomerID      string     `json:"customerId"`
	PaymentIntentID string     `json:"paymentIntentId"`
	Amount          money.Fils `json:"amountFils"`
	Currency        string     `json:"currency"`
	Full            bool       `json:"full"`
	Reason          string     `json:"reason"`
	Origin          string     `json:"origin" enum:"admin|store|cancellation|processor"`
	RequestedBy     string     `json:"requestedBy"`
}

// OrderRefunded is the data of order.refunded: one refund confirmed by the
// processor, and the order's refunded amount after it (minor units of
// Currency).
type OrderRefunded struct {
	RefundID         string     `json:"refundId"`
	OrderID          string     `json:"orderId"`
	StoreID          string     `json:"storeId"`
	StoreOwnerUserID string     `json:"storeOwnerUserId"`
	CustomerUserID   string     `json:"customerUserId"`
	PaymentIntentID  string     `json:"paymentIntentId"`
	Amount           money.Fils `json:"amountFils"`
	RefundedAmount   money.Fils `json:"refundedAmountFils"`
	Currency         string     `json:"currency"`
	RefundStatus     string     `json:"refundStatus" enum:"partially_refunded|refunded"`
	Origin           string     `json:"origin" enum:"admin|store|cancellation|processor"`
}

// RefundFailed is the data of order.refund_failed.
type RefundFailed struct {
	RefundID         string     `json:"refundId"`
	OrderID          string     `json:"orderId"`
	StoreID          string     `json:"storeId"`
	StoreOwnerUserID string     `json:"storeOwnerUserId"`
	CustomerUserID   string     `json:"customerUserId"`
	Amount           money.Fils `json:"amountFils"`
	Currency         string     `json:"currency"`
	FailureReason    string     `json:"failureReason"`
	Origin           string     `json:"origin" enum:"admin|store|cancellation|processor"`
	RequestedBy      string     `json:"requestedBy"`
}

// RefundFact is one refund of an order as its owner has it (OrderFacts).
type RefundFact struct {
	RefundID  string     `json:"refundId"`
	Amount    money.Fils `json:"amountFils"`
	Status    string     `json:"status" enum:"requested|succeeded|failed"`
	SettledAt int64      `json:"settledAt,omitempty"`
}

// OpGetMoneyTotals (internal query, called by payouts) sums the money of
// every order paid in AED, for the platform's reconciliation
// (docs/adr/0151-platform-reconciliation.md): MoneyTotals out, no arguments.
const OpGetMoneyTotals = "customers.orders.getMoneyTotals"

// MoneyTotals are sums over the orders paid in AED, in fils. Captured is what
// was paid; Refunded what the processor refunded; DisputesLost what lost
// disputes took back. NotDelivered is paid − refunded − lost of the orders
// not delivered (their store has been credited nothing); PaymentDifferences
// is paid − total of the delivered ones (a held payment an administrator
// accepted). Orders paid in another currency are only counted
// (OtherCurrencyOrders): they are not AED.
type MoneyTotals struct {
	Orders              int        `json:"orders"`
	Delivered           int        `json:"delivered"`
	Captured            money.Fils `json:"capturedFils"`
	Refunded            money.Fils `json:"refundedFils"`
	DisputesLost        money.Fils `json:"disputesLostFils"`
	NotDelivered        money.Fils `json:"notDeliveredFils"`
	PaymentDifferences  money.Fils `json:"paymentDifferencesFils"`
	OtherCurrencyOrders int        `json:"otherCurrencyOrders"`
	// OtherCurrencyDelivered is the AED total of the delivered orders paid in
	// another currency: an administrator accepted their payment as worth
	// it, and the payouts service credited their store in AED
	// (docs/adr/0151); less the AED counterpart of what their refunds and
	// lost disputes took back, (total × r + paid/2) / paid for r of paid
	// in that currency, as payouts reverses them (docs/adr/0153).
	OtherCurrencyDelivered money.Fils `json:"otherCurrencyDeliveredFils"`
	// DeliveredStoreEarnings and DeliveredCommission are the figures frozen on
	// the delivered orders, before any refund or dispute.
	DeliveredStoreEarnings money.Fils `json:"deliveredStoreEarningsFils"`
	DeliveredCommission    money.Fils `json:"deliveredCommissionFils"`
}

// MoneyTotals asks the customers service for its money totals.
func (c *Client) MoneyTotals(ctx context.Context) (*MoneyTotals, error) {
	var out MoneyTotals
	if err := c.calls.Query(ctx, Service, OpGetMoneyTotals, nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
