package customers

import (
	"context"

	"marketplace/libs/money"
	"marketplace/libs/ops"
)

// OpGetOrderFacts (internal query) is what the owner of the orders says of
// some orders, for a service that moves money on them (the payouts service
// credits a store's earnings only as confirmed here, never from an event's
// figures): OrderFactsArgs in, OrderFactsResult out.
const OpGetOrderFacts = "customers.orders.getOrderFacts"

// MaxOrderFacts is the most order ids one OpGetOrderFacts call takes;
// Client.OrderFacts splits longer lists.
const MaxOrderFacts = 200

// OrderFactsArgs are the arguments of OpGetOrderFacts.
type OrderFactsArgs struct {
	OrderIDs []string `json:"orderIds" op:"required,id=orders,max=200"`
}

// OrderFacts are one order's facts, read as committed (a status change is
// seen as soon as it has returned). Money is integer fils. DeliveredAt is when
// the order was marked delivered (epoch ms), absent if it never was.
type OrderFacts struct {
	OrderID            string     `json:"orderId"`
	StoreID            string     `json:"storeId"`
	StoreName          string     `json:"storeName"`
	StoreOwnerUserID   string     `json:"storeOwnerUserId"`
	Status             string     `json:"status"`
	Total              money.Fils `json:"totalFils"`
	PlatformCommission money.Fils `json:"platformCommissionFils"`
	StoreEarnings      money.Fils `json:"storeEarningsFils"`
	DeliveredAt        *int64     `json:"deliveredAt"`
	// PaymentStatus, AmountPaid (minor units of Currency), RefundedAmount
	// (what the processor confirmed refunding) and Refunds (every refund
	// asked, by status) are what a service moving money on a refund
	// confirms. Absent from a customers service older than refunds.
	PaymentStatus   string       `json:"paymentStatus,omitempty"`
	PaymentIntentID string       `json:"paymentIntentId,omitempty"`
	AmountPaid      money.Fils   `json:"amountPaidFils,omitempty"`
	Currency        string       `json:"currency,omitempty"`
	RefundedAmount  money.Fils   `json:"refundedAmountFils,omitempty"`
	Refunds         []RefundFact `json:"refunds,omitempty"`
}

// OrderFactsResult is OpGetOrderFacts's answer: the facts of each order asked
// for that exists, by id; an id that names no order is absent.
type OrderFactsResult struct {
	Orders map[string]OrderFacts `json:"orders"`
}

// OrderFacts asks the customers service for the facts of orderIDs (any
// number: split into calls of MaxOrderFacts). Orders that do not exist are
// absent from the answer.
func (c *Client) OrderFacts(ctx context.Context, orderIDs []string) (map[string]OrderFacts, error) {
	return ops.InChunks(orderIDs, MaxOrderFacts, func(ids []string) (map[string]OrderFacts, error) {
		var r OrderFactsResult
		err := c.calls.Query(ctx, Service, OpGetOrderFacts, OrderFactsArgs{OrderIDs: ids}, &r)
		return r.Orders, err
	})
}
