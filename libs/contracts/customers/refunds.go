package customers

import "marketplace/libs/money"

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
