package reviews

// A cancelled order never verifies a review (contract section 9). A review
// citing an order not yet delivered is verified at once (interface rule 2),
// and the order may be cancelled afterwards (the customers service allows it
// from any status before delivered): the review then loses its verification.
// The consumer follows the orders topic; an order.status_changed event only
// says which order may have been cancelled: the customers service (the owner
// of the orders) is asked before anything changes, and an event it does not
// confirm changes nothing (logged, and counted in
// marketplace_reviews_unconfirmed_cancellations_total{reason}).
//
// A confirmed cancellation writes the order's document in verifiedOrders
// (cancelled, naming no review) whether or not a review uses it, in one
// transaction with the withdrawal of the review's verification, the
// statistics and review.updated. addReview writes the same document when the
// order verifies a review, so a review citing the order while its
// cancellation is handled cannot slip between them: one transaction commits
// first, the other conflicts and, run again, sees what the first wrote.
// Delivered orders are final: a review verified by one keeps it.

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/services/reviews/domain"
)

// GroupID is the consumer group of the orders the reviews service follows.
const GroupID = "reviews"

// consumed are the events the consumer follows, in the versions it reads.
var consumed = events.Versions{customers.EventOrderStatusChanged: {1}}

// confirmTimeout bounds one question to the customers service.
const confirmTimeout = 5 * time.Second

// Why a cancellation event changed nothing (the metric's reason).
const (
	reasonUnknownOrder = "unknown_order" // no such order (or ids that name none)
	reasonNotCancelled = "not_cancelled" // the order is not cancelled
)

// unconfirmedMetric counts order.status_changed events (to cancelled) the
// customers service did not confirm, by reason.
const unconfirmedMetric = "marketplace.reviews.unconfirmed_cancellations"

func newUnconfirmedCounter() metric.Int64Counter {
	c, err := otel.GetMeterProvider().Meter("marketplace/reviews").Int64Counter(unconfirmedMetric,
		metric.WithDescription("Cancelled-order events whose cancellation the customers service did not confirm, by reason: nothing changed."))
	if err != nil {
		otel.Handle(err)
		return nil
	}
	for _, r := range []string{reasonUnknownOrder, reasonNotCancelled} { // every reason from 0
		c.Add(context.Background(), 0, metric.WithAttributes(attribute.String("reason", r)))
	}
	return c
}

// consume follows the orders until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: GroupID, Topics: []string{customers.TopicOrders},
		DB: s.env.DB, Handler: s.onEvent, Handles: consumed, Prepare: s.prepare, Publisher: s.env.Publisher, Logger: s.env.Logger,
		Status: s.status, AfterCommit: s.env.Relay.Kick,
	})
}

// consumerCheck reports a consumer that is stuck, for readiness.
func (s *svc) consumerCheck() httpserver.Check {
	return httpserver.Check{Name: "consumer:" + GroupID, Fn: s.status.Check}
}

// cancellationOf is the event's claimed cancellation (nil: not one, or not
// readable: the handler decides what to do with it).
func cancellationOf(env events.Envelope) *customers.OrderEvent {
	if env.Type != customers.EventOrderStatusChanged {
		return nil
	}
	var d customers.OrderEvent
	if events.DecodeData(env, &d) != nil || d.To != customers.StatusCancelled {
		return nil
	}
	return &d
}

// askable reports whether the customers service can be asked about the
// event's order (its ids are ids of their kinds).
func askable(d *customers.OrderEvent) bool {
	return ids.Valid("orders", d.OrderID) && ids.Valid("customers", d.CustomerID) && ids.Valid("stores", d.StoreID)
}

// confirmedKey carries prepare's answers to the handler.
type confirmedKey struct{}

// confirmed are the customers service's answers for the batch's claimed
// cancellations, by order id; errs holds a refusal that is the event's (a
// transient failure never gets here: prepare waits it out).
type confirmed struct {
	facts map[string]*customers.PurchaseFacts
	errs  map[string]error
}

// prepare asks the customers service, outside the consumer's transaction,
// about every order the batch claims was cancelled.
func (s *svc) prepare(ctx context.Context, envs []events.Envelope) (context.Context, error) {
	c := &confirmed{facts: map[string]*customers.PurchaseFacts{}, errs: map[string]error{}}
	for _, env := range envs {
		d := cancellationOf(env)
		if d == nil || !askable(d) {
			continue
		}
		if _, asked := c.facts[d.OrderID]; asked {
			continue
		}
		if _, asked := c.errs[d.OrderID]; asked {
			continue
		}
		f, err := s.ask(ctx, d)
		switch {
		case err != nil && transient(err):
			return nil, err
		case err != nil:
			c.errs[d.OrderID] = err
		default:
			c.facts[d.OrderID] = f
		}
	}
	return context.WithValue(ctx, confirmedKey{}, c), nil
}

// ask is what the customers service says of the event's order now.
func (s *svc) ask(ctx context.Context, d *customers.OrderEvent) (*customers.PurchaseFacts, error) {
	ctx, cancel := context.WithTimeout(ctx, confirmTimeout)
	defer cancel()
	f, err := s.customers.PurchaseFacts(ctx, d.CustomerID, d.StoreID, d.OrderID)
	if err != nil {
		return nil, fmt.Errorf("reviews: the customers service did not confirm order %s: %w", d.OrderID, err)
	}
	return f, nil
}

func transient(err error) bool {
	switch apperr.CodeOf(err) {
	case apperr.Unavailable, apperr.RateLimited:
		return true
	}
	return false
}

// factsOf are the customers service's facts about the event's order: those
// prepare read for the batch, else asked now.
func (s *svc) factsOf(ctx context.Context, d *customers.OrderEvent) (*customers.PurchaseFacts, error) {
	if c, _ := ctx.Value(confirmedKey{}).(*confirmed); c != nil {
		if err, ok := c.errs[d.OrderID]; ok {
			return nil, err
		}
		if f, ok := c.facts[d.OrderID]; ok {
			return f, nil
		}
	}
	f, err := s.ask(ctx, d)
	if err != nil && transient(err) {
		return nil, events.Retry(err)
	}
	return f, err
}

// onEvent is the consumer's handler: ctx is its transaction, which also
// records the event id as processed. Only cancellations are ours.
func (s *svc) onEvent(ctx context.Context, env events.Envelope) error {
	if env.Type != customers.EventOrderStatusChanged {
		return nil
	}
	var d customers.OrderEvent
	if err := events.DecodeData(env, &d); err != nil {
		return err
	}
	if d.To != customers.StatusCancelled {
		return nil
	}
	skip := func(reason string) error {
		if s.unconfirmed != nil {
			events.OnCommit(ctx, func() {
				s.unconfirmed.Add(context.WithoutCancel(ctx), 1, metric.WithAttributes(attribute.String("reason", reason)))
			})
		}
		s.env.Logger.WarnContext(ctx, "reviews: a cancelled-order event the customers service does not confirm: nothing changed",
			"eventId", env.ID, "orderId", d.OrderID, "reason", reason)
		return nil
	}
	if !askable(&d) {
		return skip(reasonUnknownOrder)
	}
	f, err := s.factsOf(ctx, &d)
	switch {
	case err != nil:
		return err
	case !f.OrderExists:
		return skip(reasonUnknownOrder)
	case f.OrderStatus != customers.StatusCancelled:
		return skip(reasonNotCancelled)
	}
	return s.withdraw(ctx, d.OrderID)
}

// withdraw records that order orderID is cancelled (confirmed by the
// customers service) and withdraws the verification of the review it
// verified, if any (domain.Review.Unverify), with the statistics and
// review.updated (changedFields isVerifiedPurchase). Run again, it changes
// nothing.
func (s *svc) withdraw(ctx context.Context, orderID string) error {
	slot, err := s.orders.Slot(ctx, orderID)
	if err != nil {
		return err
	}
	if slot != nil && slot.Cancelled {
		return nil
	}
	now := s.now()
	if slot != nil && slot.ReviewID != "" {
		if err := s.unverify(ctx, slot.ReviewID, orderID, now); err != nil {
			return err
		}
	}
	return s.orders.Cancel(ctx, orderID, now)
}

// unverify withdraws review reviewID's verification while order orderID
// gives it, in the consumer's transaction (the order's slot and the review
// are written together, so a review that no longer uses it is gone or moved:
// nothing to do).
func (s *svc) unverify(ctx context.Context, reviewID, orderID string, now int64) error {
	var d domain.Delta
	var r *domain.Review
	err := s.reviews.Modify(ctx, reviewID, func(rev *domain.Review) error {
		if rev.VerifiedBy == orderID {
			d, r = rev.Unverify(), rev
		}
		return nil
	})
	if apperr.Is(err, apperr.NotFound) || (err == nil && r == nil) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := s.stats.Change(ctx, r.StoreID, d, now); err != nil {
		return err
	}
	ev := r.Event()
	ev.ChangedFields = []string{"isVerifiedPurchase"}
	return s.publish(ctx, contract.EventUpdated, r.ID, ev)
}
