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
// Store events likewise: a store.created or store.updated only says that a
// store may have changed; the wallet's copy of the store (name, owner,
// contact) is what the catalog answers (catalog.stores.getStoreContacts),
// never the event's claims (a forged one with a huge version would pin the
// copy, and send the wallet's notifications to an owner of its choosing).
//
// The questions are asked before the consumer's transaction, for a whole
// batch at once (events.Prepare), so no transaction waits on the network.
// When the customers service or the catalog does not answer (UNAVAILABLE),
// the events wait and are asked about again (never dead-lettered: a real
// delivery must not be lost). Any other error answer is the event's: it is
// retried MaxAttempts times, then parked on the DLQ for an operator to replay,
// rather than stalling the partition for as long as it lasts.

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/services/payouts/domain"
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

// Why a store event is not as the catalog says (unconfirmedStoresMetric's
// reason).
const (
	reasonUnknownStore   = "unknown_store"    // the catalog has no such store: nothing recorded
	reasonAheadOfCatalog = "ahead_of_catalog" // the event's version is newer than the catalog's: the catalog's recorded
)

// unconfirmedStoresMetric counts store events the catalog did not confirm,
// by reason.
const unconfirmedStoresMetric = "marketplace.payouts.unconfirmed_store_events"

func newUnconfirmedCounter() metric.Int64Counter {
	return newReasonCounter(unconfirmedMetric,
		"Delivered-order events whose order, store or earnings the customers service did not confirm, by reason.",
		reasonUnknownOrder, reasonNotDelivered, reasonOtherStore, reasonAmountDiffers)
}

func newUnconfirmedStoresCounter() metric.Int64Counter {
	return newReasonCounter(unconfirmedStoresMetric,
		"Store events whose store the catalog does not have, or has at an older version, by reason.",
		reasonUnknownStore, reasonAheadOfCatalog)
}

func newReasonCounter(name, description string, reasons ...string) metric.Int64Counter {
	c, err := otel.GetMeterProvider().Meter("marketplace/payouts").Int64Counter(name, metric.WithDescription(description))
	if err != nil {
		otel.Handle(err)
		return nil
	}
	// Every reason from 0, so the first one is an increase a rate() sees.
	for _, r := range reasons {
		c.Add(context.Background(), 0, metric.WithAttributes(attribute.String("reason", r)))
	}
	return c
}

// countUnconfirmed counts an unconfirmed event once its transaction has
// committed (events.OnCommit): a batch rolled back for another event's
// failure handles it again, and must not count it twice.
func (s *svc) countUnconfirmed(ctx context.Context, reason string) {
	countOnCommit(ctx, s.unconfirmed, reason)
}

func countOnCommit(ctx context.Context, c metric.Int64Counter, reason string) {
	if c == nil {
		return
	}
	events.OnCommit(ctx, func() {
		c.Add(context.WithoutCancel(ctx), 1, metric.WithAttributes(attribute.String("reason", reason)))
	})
}

// transient tells whether another service's error goes away by itself: it
// did not answer (UNAVAILABLE: down, restarting, a timeout, its database
// unreachable) or asked us to slow down. Any other answer (INTERNAL,
// INVALID_ARGUMENT...) is not waited out.
func transient(err error) bool {
	switch apperr.CodeOf(err) {
	case apperr.Unavailable, apperr.RateLimited:
		return true
	}
	return false
}

// asHandlerError is a dependency's error as the handler returns it: a retry
// (events.Retry: waited out, never dead-lettered) when it is transient, else
// a plain error (the event's attempts, then the DLQ).
func asHandlerError(err error) error {
	if transient(err) {
		return events.Retry(err)
	}
	return err
}

// confirmedKey carries what prepare learnt to the handler.
type confirmedKey struct{}

// confirmed is what prepare learnt about the events of a batch: asked holds
// every order id asked about, facts those that exist, ordersErr the customers
// service's answer when it was an error other than transient (the handler
// returns it for each event that needed it); storesAsked, stores and
// storesErr the same of the catalog about the stores of store events.
type confirmed struct {
	asked     map[string]bool
	facts     map[string]customers.OrderFacts
	ordersErr error

	storesAsked map[string]bool
	stores      map[string]catalog.StoreContact
	storesErr   error

	disputesAsked map[string]bool
	disputes      map[string]payments.Dispute
	disputesErr   error
}

// storeEventOf is the store id of a store.created or store.updated whose
// id is a store id, "" for any other event.
func storeEventOf(env events.Envelope) string {
	if env.Type != catalog.EventStoreCreated && env.Type != catalog.EventStoreUpdated {
		return ""
	}
	var d struct {
		StoreID string `json:"storeId"`
	}
	if json.Unmarshal(env.Data, &d) != nil || !ids.Valid("stores", d.StoreID) {
		return ""
	}
	return d.StoreID
}

// deliveredOrderOf is the order id of an order.status_changed to delivered
// whose id is an order id, "" for any other event.
func deliveredOrderOf(env events.Envelope) string {
	if env.Type == customers.EventOrderRefunded {
		return refundedOrderOf(env)
	}
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

// refundedOrderOf is the order id of an order.refunded whose id is an order
// id, "" otherwise: prepare asks about it with the deliveries (refunds.go).
func refundedOrderOf(env events.Envelope) string {
	var d struct {
		OrderID string `json:"orderId"`
	}
	if json.Unmarshal(env.Data, &d) != nil || !ids.Valid("orders", d.OrderID) {
		return ""
	}
	return d.OrderID
}

// prepare asks the customers service, in one call, about the orders that the
// delivered-order events of a batch name, and the catalog about the stores of
// its store events (events.Prepare: outside the consumer's transaction). A
// transient error makes the batch wait and ask again; any other is kept for
// the handler, which returns it as the error of each event that needed the
// answer (the batch is then handled one event at a time, and each such event
// asks again alone, spends its attempts and is parked).
func (s *svc) prepare(ctx context.Context, envs []events.Envelope) (context.Context, error) {
	ctx, err := s.prepareTransfers(ctx, envs) // transfers.go
	if err != nil {
		return nil, err
	}
	var orderIDs, storeIDs, disputeIDs []string
	c := &confirmed{asked: map[string]bool{}, storesAsked: map[string]bool{}, disputesAsked: map[string]bool{}}
	for _, env := range envs {
		if id, orderID := disputeOf(env); id != "" && !c.disputesAsked[id] {
			c.disputesAsked[id] = true
			disputeIDs = append(disputeIDs, id)
			if ids.Valid("orders", orderID) && !c.asked[orderID] { // the dispute's order, as the event names it
				c.asked[orderID] = true
				orderIDs = append(orderIDs, orderID)
			}
		}
		if id := deliveredOrderOf(env); id != "" && !c.asked[id] {
			c.asked[id] = true
			orderIDs = append(orderIDs, id)
		}
		if id := storeEventOf(env); id != "" && !c.storesAsked[id] {
			c.storesAsked[id] = true
			storeIDs = append(storeIDs, id)
		}
	}
	if len(orderIDs) == 0 && len(storeIDs) == 0 && len(disputeIDs) == 0 {
		return ctx, nil
	}
	if len(disputeIDs) > 0 {
		ds, err := s.askDisputes(ctx, disputeIDs)
		if err != nil && transient(err) {
			return nil, err
		}
		c.disputes, c.disputesErr = ds, err
	}
	if len(orderIDs) > 0 {
		facts, err := s.askOrders(ctx, orderIDs)
		if err != nil && transient(err) {
			return nil, err
		}
		c.facts, c.ordersErr = facts, err
	}
	if len(storeIDs) > 0 {
		stores, err := s.askStores(ctx, storeIDs)
		if err != nil && transient(err) {
			return nil, err
		}
		c.stores, c.storesErr = stores, err
	}
	return context.WithValue(ctx, confirmedKey{}, c), nil
}

// askStores asks the catalog about storeIDs (uncached), within
// confirmTimeout for each call the client makes.
func (s *svc) askStores(ctx context.Context, storeIDs []string) (map[string]catalog.StoreContact, error) {
	calls := max(1, (len(storeIDs)+catalog.MaxStoreContacts-1)/catalog.MaxStoreContacts)
	ctx, cancel := context.WithTimeout(ctx, time.Duration(calls)*confirmTimeout)
	defer cancel()
	stores, err := s.contacts(ctx, storeIDs)
	if err != nil {
		return nil, fmt.Errorf("payouts: the catalog did not confirm %d stores: %w", len(storeIDs), err)
	}
	return stores, nil
}

// storeOfCatalog is the catalog's store (nil: no such store): the one
// prepare read for the batch, else asked now. An error is the catalog's, as
// asHandlerError returns it.
func (s *svc) storeOfCatalog(ctx context.Context, storeID string) (*catalog.StoreContact, error) {
	if c, _ := ctx.Value(confirmedKey{}).(*confirmed); c != nil && c.storesAsked[storeID] {
		if c.storesErr != nil {
			return nil, c.storesErr
		}
		if st, ok := c.stores[storeID]; ok {
			return &st, nil
		}
		return nil, nil
	}
	stores, err := s.askStores(ctx, []string{storeID})
	if err != nil {
		return nil, asHandlerError(err)
	}
	if st, ok := stores[storeID]; ok {
		return &st, nil
	}
	return nil, nil
}

// onStoreEvent records the store of a store.created or store.updated as the
// catalog has it now (see the top of this file). It runs in the consumer's
// transaction.
func (s *svc) onStoreEvent(ctx context.Context, env events.Envelope, d catalog.StoreEvent) error {
	st, err := s.storeOfCatalog(ctx, d.StoreID)
	if err != nil {
		return err
	}
	if st == nil {
		countOnCommit(ctx, s.unconfirmedStores, reasonUnknownStore)
		s.env.Logger.WarnContext(ctx, "payouts: a store event for a store the catalog does not have: nothing recorded",
			"eventId", env.ID, "type", env.Type, "storeId", d.StoreID, "reason", reasonUnknownStore,
			"eventVersion", d.Version, "eventOwnerUserId", d.OwnerUserID)
		return nil
	}
	if d.EventVersion() > st.Version {
		countOnCommit(ctx, s.unconfirmedStores, reasonAheadOfCatalog)
		s.env.Logger.WarnContext(ctx, "payouts: a store event newer than the catalog's store: the catalog's recorded",
			"eventId", env.ID, "type", env.Type, "storeId", d.StoreID, "reason", reasonAheadOfCatalog,
			"eventVersion", d.Version, "version", st.Version, "eventOwnerUserId", d.OwnerUserID, "ownerUserId", st.OwnerUserID)
	}
	if err := s.openWallet(ctx, domain.StoreInfo{ID: d.StoreID, Name: st.Name, OwnerUserID: st.OwnerUserID, OwnerName: st.OwnerName,
		OwnerPhone: st.OwnerPhone, Version: max(st.Version, 1)}); err != nil {
		return err
	}
	// A handover: the former owner's open payouts (handover.go).
	return s.settleHandover(ctx, d.StoreID, st.OwnerUserID)
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
// prepare did not see). An error is the customers service's: a transient one
// is retried (events.Retry), never dead-lettered; any other is the event's.
func (s *svc) factsOf(ctx context.Context, orderID string) (*customers.OrderFacts, error) {
	if c, _ := ctx.Value(confirmedKey{}).(*confirmed); c != nil && c.asked[orderID] {
		if c.ordersErr != nil {
			return nil, c.ordersErr
		}
		if f, ok := c.facts[orderID]; ok {
			return &f, nil
		}
		return nil, nil
	}
	facts, err := s.askOrders(ctx, []string{orderID})
	if err != nil {
		return nil, asHandlerError(err)
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
			"eventId", env.ID, "orderId", d.OrderID, "reason", reason, "eventStoreId", d.StoreID, "eventStoreEarnings", domain.AEDText(d.StoreEarnings))
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
				"eventStoreEarnings", domain.AEDText(d.StoreEarnings), "storeEarnings", domain.AEDText(f.StoreEarnings))
		}
	}
	return s.creditEarnings(ctx, customers.OrderEvent{
		OrderID: d.OrderID, StoreID: f.StoreID, StoreName: f.StoreName, StoreOwnerUserID: f.StoreOwnerUserID,
		Total: f.Total, PlatformCommission: f.PlatformCommission, StoreEarnings: f.StoreEarnings, Status: f.Status, To: customers.StatusDelivered,
		AmountPaid: f.AmountPaid, Currency: f.Currency,
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
func (s *svc) unconfirmedEarnings(ctx context.Context, storeID string, txs []domain.Transaction) ([]UnconfirmedEarning, error) {
	var orderIDs []string
	seen := map[string]bool{}
	for _, t := range txs {
		if id := t.Metadata["orderId"]; t.Type == domain.TxEarning && ids.Valid("orders", id) && !seen[id] {
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
		if t.Type != domain.TxEarning {
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
		case f.StoreEarnings != t.Amount+t.ReversedBeforeCredit: // a refund before the delivery lowered the credit
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
