package payouts

// Earnings are credited only as the owner of the orders confirms them. An
// order.status_changed event says which order was delivered; what it carries
// besides (the store, the amounts) is never trusted: anyone who can publish
// on the broker can write it. The consumer asks the customers service
// (customers.orders.getOrderFacts) and credits the store the order is of,
// with the earnings frozen on the order, once the order is delivered; an
// event for an order that does not exist or is not delivered credits
// nothing, and is logged and counted (marketplace_payouts_unconfirmed_earnings_total).
//
// The question is asked before the consumer's transaction, for a whole batch
// at once (events.Prepare), so no transaction waits on the network. When the
// customers service does not answer, the events wait and are asked about
// again (never dead-lettered: a real delivery must not be lost).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/events"
	"marketplace/libs/ids"
)

// confirmTimeout bounds one call asking the customers service about orders.
const confirmTimeout = 5 * time.Second

// Why an earning is not as its order says (the metric's reason, and
// reconcileWallet's).
const (
	reasonUnknownOrder  = "unknown_order"  // no such order
	reasonNotDelivered  = "not_delivered"  // the order is not delivered
	reasonOtherStore    = "other_store"    // the order is of another store than the event's (or the wallet's)
	reasonAmountDiffers = "amount_differs" // the earnings differ from the order's
)

// unconfirmedMetric counts order.status_changed events (to delivered) whose
// claims the customers service did not confirm, by reason: unknown_order and
// not_delivered credited nothing; other_store and amount_differs were
// credited as the order has it, not as the event said.
const unconfirmedMetric = "marketplace.payouts.unconfirmed_earnings"

func newUnconfirmedCounter() metric.Int64Counter {
	c, err := otel.GetMeterProvider().Meter("marketplace/payouts").Int64Counter(unconfirmedMetric,
		metric.WithDescription("Delivered-order events whose order, store or earnings the customers service did not confirm, by reason."))
	if err != nil {
		otel.Handle(err)
		return nil
	}
	// Every reason from 0, so the first one is an increase a rate() sees.
	for _, r := range []string{reasonUnknownOrder, reasonNotDelivered, reasonOtherStore, reasonAmountDiffers} {
		c.Add(context.Background(), 0, metric.WithAttributes(attribute.String("reason", r)))
	}
	return c
}

// countUnconfirmed counts an unconfirmed event once its transaction has
// committed (events.OnCommit): a batch rolled back for another event's
// failure handles it again, and must not count it twice.
func (s *svc) countUnconfirmed(ctx context.Context, reason string) {
	if s.unconfirmed == nil {
		return
	}
	events.OnCommit(ctx, func() {
		s.unconfirmed.Add(context.WithoutCancel(ctx), 1, metric.WithAttributes(attribute.String("reason", reason)))
	})
}

// confirmedKey carries what prepare learnt to the handler.
type confirmedKey struct{}

// confirmed is the customers service's answer about the orders of a batch:
// asked holds every order id asked about, facts those that exist.
type confirmed struct {
	asked map[string]bool
	facts map[string]customers.OrderFacts
}

// deliveredOrderOf is the order id of an order.status_changed to delivered
// whose id is an order id, "" for any other event.
func deliveredOrderOf(env events.Envelope) string {
	if env.Type != customers.EventOrderStatusChanged {
		return ""
	}
	var d struct {
		OrderID string `json:"orderId"`
		To      string `json:"to"`
	}
	if json.Unmarshal(env.Data, &d) != nil || d.To != customers.StatusDelivered || !ids.Valid("orders", d.OrderID) {
		return ""
	}
	return d.OrderID
}

// prepare asks the customers service, in one call, about the orders that the
// delivered-order events of a batch name (events.Prepare: outside the
// consumer's transaction; its error makes the batch wait and ask again).
func (s *svc) prepare(ctx context.Context, envs []events.Envelope) (context.Context, error) {
	var orderIDs []string
	asked := map[string]bool{}
	for _, env := range envs {
		if id := deliveredOrderOf(env); id != "" && !asked[id] {
			asked[id] = true
			orderIDs = append(orderIDs, id)
		}
	}
	if len(orderIDs) == 0 {
		return ctx, nil
	}
	facts, err := s.askOrders(ctx, orderIDs)
	if err != nil {
		return nil, err
	}
	return context.WithValue(ctx, confirmedKey{}, &confirmed{asked: asked, facts: facts}), nil
}

// askOrders asks the customers service about orderIDs, within confirmTimeout
// for each call the client makes (of at most customers.MaxOrderFacts ids): a
// reconciliation asks about every earning of a wallet, thousands of orders,
// which one call's time would cut short.
func (s *svc) askOrders(ctx context.Context, orderIDs []string) (map[string]customers.OrderFacts, error) {
	calls := max(1, (len(orderIDs)+customers.MaxOrderFacts-1)/customers.MaxOrderFacts)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(calls)*confirmTimeout)
	defer cancel()
	facts, err := s.orderFacts(ctx, orderIDs)
	if err != nil {
		return nil, fmt.Errorf("payouts: the customers service did not confirm %d orders: %w", len(orderIDs), err)
	}
	return facts, nil
}

// factsOf is the customers service's facts of an order (nil: no such order):
// those prepare read for the batch, else asked now (an event the batch's
// prepare did not see). An error is the customers service's: the event is
// retried (events.Retry), never dead-lettered.
func (s *svc) factsOf(ctx context.Context, orderID string) (*customers.OrderFacts, error) {
	if c, _ := ctx.Value(confirmedKey{}).(*confirmed); c != nil && c.asked[orderID] {
		if f, ok := c.facts[orderID]; ok {
			return &f, nil
		}
		return nil, nil
	}
	facts, err := s.askOrders(ctx, []string{orderID})
	if err != nil {
		return nil, events.Retry(err)
	}
	if f, ok := facts[orderID]; ok {
		return &f, nil
	}
	return nil, nil
}

// onDelivered credits the earnings of a delivered order as the customers
// service confirms them (see the top of this file). It runs in the consumer's
// transaction.
func (s *svc) onDelivered(ctx context.Context, env events.Envelope, d customers.OrderEvent) error {
	skip := func(reason string) error {
		s.countUnconfirmed(ctx, reason)
		s.env.Logger.WarnContext(ctx, "payouts: a delivered-order event the customers service does not confirm: nothing credited",
			"eventId", env.ID, "orderId", d.OrderID, "reason", reason, "eventStoreId", d.StoreID, "eventStoreEarnings", aedText(d.StoreEarnings))
		return nil
	}
	if !ids.Valid("orders", d.OrderID) {
		return skip(reasonUnknownOrder)
	}
	f, err := s.factsOf(ctx, d.OrderID)
	if err != nil {
		return err
	}
	switch {
	case f == nil:
		return skip(reasonUnknownOrder)
	case f.Status != customers.StatusDelivered:
		return skip(reasonNotDelivered)
	case !ids.Valid("stores", f.StoreID) || f.StoreEarnings < 0:
		return fmt.Errorf("%s %s: the customers service's order %s has store %q and earnings %d fils", env.Type, env.ID, d.OrderID, f.StoreID, f.StoreEarnings)
	}
	for _, differs := range []struct {
		reason string
		is     bool
	}{{reasonOtherStore, f.StoreID != d.StoreID}, {reasonAmountDiffers, f.StoreEarnings != d.StoreEarnings}} {
		if differs.is {
			s.countUnconfirmed(ctx, differs.reason)
			s.env.Logger.WarnContext(ctx, "payouts: a delivered-order event differs from its order: credited as the order has it",
				"eventId", env.ID, "orderId", d.OrderID, "reason", differs.reason, "eventStoreId", d.StoreID, "storeId", f.StoreID,
				"eventStoreEarnings", aedText(d.StoreEarnings), "storeEarnings", aedText(f.StoreEarnings))
		}
	}
	return s.creditEarnings(ctx, customers.OrderEvent{
		OrderID: d.OrderID, StoreID: f.StoreID, StoreName: f.StoreName, StoreOwnerUserID: f.StoreOwnerUserID,
		Total: f.Total, PlatformCommission: f.PlatformCommission, StoreEarnings: f.StoreEarnings, Status: f.Status, To: customers.StatusDelivered,
	})
}

// UnconfirmedEarning is an earning of a wallet whose order the customers
// service does not confirm (reconcileWallet): Reason is unknown_order,
// not_delivered, other_store (the order is of another store) or
// amount_differs (the order's store earnings are OrderEarnings).
type UnconfirmedEarning struct {
	TransactionID string   `json:"transactionId"`
	OrderID       string   `json:"orderId"`
	Amount        float64  `json:"amount"`
	Reason        string   `json:"reason"`
	OrderEarnings *float64 `json:"orderEarnings,omitempty"`
}

// unconfirmedEarnings checks each earning among txs against its order, as the
// customers service has it. A service that does not answer is UNAVAILABLE:
// the wallet cannot be said to be consistent.
func (s *svc) unconfirmedEarnings(ctx context.Context, storeID string, txs []txDoc) ([]UnconfirmedEarning, error) {
	var orderIDs []string
	seen := map[string]bool{}
	for _, t := range txs {
		if id := t.Metadata["orderId"]; t.Type == TxEarning && ids.Valid("orders", id) && !seen[id] {
			seen[id] = true
			orderIDs = append(orderIDs, id)
		}
	}
	facts := map[string]customers.OrderFacts{}
	if len(orderIDs) > 0 {
		var err error
		if facts, err = s.askOrders(ctx, orderIDs); err != nil {
			return nil, apperr.Wrap(err, apperr.Unavailable, "the customers service cannot confirm the wallet's orders now; try again")
		}
	}
	out := []UnconfirmedEarning{}
	for _, t := range txs {
		if t.Type != TxEarning {
			continue
		}
		u := UnconfirmedEarning{TransactionID: t.ID, OrderID: t.Metadata["orderId"], Amount: t.Amount.AED()}
		f, ok := facts[u.OrderID]
		switch {
		case !ok:
			u.Reason = reasonUnknownOrder
		case f.Status != customers.StatusDelivered:
			u.Reason = reasonNotDelivered
		case f.StoreID != storeID:
			u.Reason = reasonOtherStore
		case f.StoreEarnings != t.Amount:
			u.Reason = reasonAmountDiffers
			e := f.StoreEarnings.AED()
			u.OrderEarnings = &e
		default:
			continue
		}
		out = append(out, u)
	}
	return out, nil
}
