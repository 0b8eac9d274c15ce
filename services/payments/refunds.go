package payments

// Refunds at the processor (docs/adr/0149-refunds-and-disputes-at-the-processor.md).
//
//  1. The customers service reserves a refund on an order and publishes
//     order.refund_requested. This service's consumer asks the processor for
//     it (prepare, outside the transaction: POST /v1/refunds, Idempotency-Key
//     = the refundId, no amount when the refund is of all that is left,
//     metadata refundId and orderId), then records it (handler, in the
//     consumer's transaction): submitted, or failed when the processor
//     refused it (4xx), which publishes payment.refund_failed. The processor
//     unreachable, failing (5xx), limiting us or refusing our key: the event
//     waits and is asked again (events.Retry), never dead-lettered.
//  2. The processor's outcome comes by webhook: charge.refunded lists every
//     refund of the charge, and each succeeded one not yet known as such is
//     recorded and published once (payment.refunded); a refund without a
//     refundId was made at the processor (origin processor, its re_ id as
//     refundId). refund.failed publishes payment.refund_failed. The rules are
//     domain/refund.go's table; the event id is recorded in the same
//     transaction. News whose refundId names a recorded refund of another
//     payment intent or processor refund is not that refund's: it is a
//     refund made at the processor (applyMisnamed).

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/stripe/stripe-go/v86"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/services/payments/domain"
)

// GroupID is the consumer group of the service's event consumer.
const GroupID = "payments"

// refundReason is the reason every refund is asked with: the processor takes
// one of a few words; the marketplace's own reason stays with the order.
const refundReason = "requested_by_customer"

// consumed are the events the consumer follows, in the versions onEvent reads.
var consumed = events.Versions{customers.EventRefundRequested: {1}}

// consume follows the orders' refund requests until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: GroupID, Topics: []string{customers.TopicOrders},
		DB: s.env.DB, Handler: s.onEvent, Handles: consumed, Prepare: s.prepare, Publisher: s.env.Publisher, Logger: s.env.Logger,
		Status: s.status, AfterCommit: s.env.Relay.Kick,
	})
}

// submission is what the processor answered to one refund request.
type submission struct {
	refund    *stripe.Refund // taken (pending, usually)
	refusal   *stripe.Error  // refused: the refund fails
	transient error          // could not be asked: the event waits
	// unconfirmed: the customers service does not have this refund as
	// requested (a forged or stale event): nothing is asked.
	unconfirmed string
}

// refundFacts asks the customers service, the refunds' owner, about the
// orders of a batch's refund requests (nothing moves money on an event's
// word alone).
func (s *svc) refundFacts(ctx context.Context, envs []events.Envelope) (map[string]customers.OrderFacts, error) {
	var orderIDs []string
	for _, env := range envs {
		if env.Type != customers.EventRefundRequested {
			continue
		}
		if d, err := refundRequest(env); err == nil {
			orderIDs = append(orderIDs, d.OrderID)
		}
	}
	if len(orderIDs) == 0 {
		return nil, nil
	}
	return s.orderFacts(ctx, orderIDs)
}

// unconfirmed is why the order's owner does not confirm a refund request,
// or "": the refund must be on the order, still requested, of the amount
// asked, and the order paid with the intent the request names.
func unconfirmed(d customers.RefundRequested, f customers.OrderFacts) string {
	if f.OrderID == "" {
		return "no such order"
	}
	if f.PaymentIntentID != d.PaymentIntentID {
		return "the order was paid with another payment intent"
	}
	for _, r := range f.Refunds {
		if r.RefundID != d.RefundID {
			continue
		}
		if r.Status != customers.RefundStatusRequested {
			return "the refund is " + r.Status
		}
		if r.Amount != d.Amount {
			return "the refund is of another amount"
		}
		return ""
	}
	return "the order has no such refund"
}

type submittedKey struct{}

// refundRequest reads and checks an order.refund_requested.
func refundRequest(env events.Envelope) (customers.RefundRequested, error) {
	var d customers.RefundRequested
	if err := events.DecodeData(env, &d); err != nil {
		return d, err
	}
	switch {
	case strings.TrimSpace(d.RefundID) == "" || len(d.RefundID) > 255:
		return d, fmt.Errorf("%s %s: data.refundId %q is not a refund id", env.Type, env.ID, d.RefundID)
	case !ids.Valid("orders", d.OrderID):
		return d, fmt.Errorf("%s %s: data.orderId %q is not an order id", env.Type, env.ID, d.OrderID)
	case strings.TrimSpace(d.PaymentIntentID) == "":
		return d, fmt.Errorf("%s %s: data.paymentIntentId is empty", env.Type, env.ID)
	case !d.Full && (d.Amount <= 0 || d.Amount > MaxCharge):
		return d, fmt.Errorf("%s %s: data.amountFils %d is not an amount to refund", env.Type, env.ID, d.Amount)
	}
	return d, nil
}

// prepare asks the processor for the refunds a batch requests that are not
// recorded yet (events.Prepare: outside the transaction). Each answer
// reaches the handler; after a transient failure the rest are not asked
// (their events wait with it).
func (s *svc) prepare(ctx context.Context, envs []events.Envelope) (context.Context, error) {
	subs := map[string]*submission{}
	facts, err := s.refundFacts(ctx, envs)
	if err != nil {
		return nil, events.Retry(err)
	}
	for _, env := range envs {
		if env.Type != customers.EventRefundRequested {
			continue
		}
		d, err := refundRequest(env)
		if err != nil || subs[d.RefundID] != nil {
			continue // the handler refuses it
		}
		cur, err := s.refunds.Get(ctx, d.RefundID)
		if err != nil {
			return nil, err
		}
		if cur != nil {
			continue // asked before: the record says what came of it
		}
		if why := unconfirmed(d, facts[d.OrderID]); why != "" {
			subs[d.RefundID] = &submission{unconfirmed: why}
			continue
		}
		sub := s.submit(ctx, d)
		subs[d.RefundID] = sub
		if sub.transient != nil {
			break
		}
	}
	return context.WithValue(ctx, submittedKey{}, subs), nil
}

// submit asks the processor for one refund.
func (s *svc) submit(ctx context.Context, d customers.RefundRequested) *submission {
	if s.processor == nil {
		return &submission{transient: errors.New("payments: " + EnvSecretKey + " is not set: refunds cannot be asked of the processor")}
	}
	params := &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(d.PaymentIntentID),
		Reason:        stripe.String(refundReason),
		Metadata:      map[string]string{"refundId": d.RefundID, "orderId": d.OrderID},
	}
	if !d.Full {
		params.Amount = stripe.Int64(int64(d.Amount))
	}
	params.SetIdempotencyKey(d.RefundID)
	pctx, cancel := context.WithTimeout(ctx, processorDeadline)
	defer cancel()
	re, err := s.processor.V1Refunds.Create(pctx, params)
	if err == nil {
		if re.ID == "" {
			return &submission{transient: fmt.Errorf("payments: the processor answered refund %s without an id", d.RefundID)}
		}
		return &submission{refund: re}
	}
	var se *stripe.Error
	// An idempotency error (the key reused with other parameters, or still
	// in use) says nothing of whether the refund exists: not a refusal.
	if errors.As(err, &se) && refused(se.HTTPStatusCode) && se.Type != stripe.ErrorTypeIdempotency {
		return &submission{refusal: se}
	}
	return &submission{transient: fmt.Errorf("payments: the processor did not take refund %s: %w", d.RefundID, err)}
}

// refused tells a processor's refusal of the request (the refund fails) from
// a failure a later attempt may not meet: 4xx but a bad key (401, 403), a
// concurrent use of the idempotency key (409) and a rate limit (429).
func refused(status int) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusConflict, http.StatusTooManyRequests:
		return false
	}
	return status >= 400 && status < 500
}

// refusalReason is a refusal as payment.refund_failed says it.
func refusalReason(se *stripe.Error) string {
	reason := string(se.Code)
	if se.Msg != "" {
		if reason != "" {
			reason += ": "
		}
		reason += se.Msg
	}
	if reason == "" {
		reason = fmt.Sprintf("refused by the processor (status %d)", se.HTTPStatusCode)
	}
	return cleanText(reason)
}

// onEvent is the consumer's handler: ctx is its transaction, which also
// records the event id as processed.
func (s *svc) onEvent(ctx context.Context, env events.Envelope) error {
	if env.Type != customers.EventRefundRequested {
		return nil
	}
	d, err := refundRequest(env)
	if err != nil {
		return err
	}
	subs, _ := ctx.Value(submittedKey{}).(map[string]*submission)
	sub := subs[d.RefundID]
	fact := domain.RefundFact{News: domain.NewsSubmitted, RefundID: d.RefundID, OrderID: d.OrderID, PaymentIntentID: d.PaymentIntentID,
		Requested: d.Amount, Full: d.Full, Currency: strings.ToLower(d.Currency), Origin: domain.OriginMarketplace}
	switch {
	case sub == nil:
		// Not asked by this run's prepare: asked before (the record says what
		// came of it), or prepared by no one: then wait and prepare again.
		cur, err := s.refunds.Get(ctx, d.RefundID)
		if err != nil {
			return err
		}
		if cur == nil {
			return events.Retry(fmt.Errorf("payments: refund %s was not asked of the processor yet", d.RefundID))
		}
		return nil
	case sub.unconfirmed != "":
		// Not the customers service's refund: acknowledged, nothing asked.
		s.env.Logger.WarnContext(ctx, "payments: a refund request the customers service does not confirm, ignored", "refundId", d.RefundID,
			"orderId", d.OrderID, "event", env.ID, "why", sub.unconfirmed)
		return nil
	case sub.transient != nil:
		s.env.Logger.WarnContext(ctx, "payments: refund not asked of the processor, will retry", "refundId", d.RefundID, "err", sub.transient)
		return events.Retry(sub.transient)
	case sub.refusal != nil:
		fact.News, fact.FailureReason = domain.NewsRefused, refusalReason(sub.refusal)
	default:
		fact.ProcessorRefundID = sub.refund.ID
		if fact.Currency == "" {
			fact.Currency = string(sub.refund.Currency)
		}
	}
	_, err = s.applyRefund(ctx, env.ID, fact, nil)
	return err
}

// applyRefund applies one piece of news to its refund in ctx's transaction,
// publishing what the table says (told). Logs go to notes, run once the
// transaction committed (nil: logged now), so that a transaction run again
// does not log twice.
func (s *svc) applyRefund(ctx context.Context, eventID string, f domain.RefundFact, notes *[]func()) (told bool, err error) {
	note := func(fn func()) {
		if notes != nil {
			*notes = append(*notes, fn)
		} else {
			fn()
		}
	}
	misnamed := false
	err = s.refunds.Apply(ctx, f.RefundID, func(cur *domain.Refund) (*domain.Refund, error) {
		v, next := domain.Apply(cur, f, s.env.Now().UTC())
		told, misnamed = false, v == domain.RefundMisnamed
		if misnamed {
			named := *cur
			note(func() {
				s.env.Logger.WarnContext(ctx, "payments: a refund's metadata names a recorded refund it is not of: recorded as a refund made at the processor",
					"eventId", eventID, "metadataRefundId", f.RefundID, "namedPaymentIntentId", named.PaymentIntentID,
					"namedProcessorRefundId", named.ProcessorRefundID, "paymentIntentId", f.PaymentIntentID, "processorRefundId", f.ProcessorRefundID)
			})
			return nil, nil
		}
		if v == domain.RefundContradict {
			status := cur.Status
			note(func() {
				s.env.Logger.ErrorContext(ctx, "payments: news contradicting a refund's final status ignored", "refundId", f.RefundID,
					"status", status, "news", f.News, "eventId", eventID, "processorRefundId", f.ProcessorRefundID)
			})
		}
		if next == nil || !f.Tells(v) {
			return next, nil
		}
		told = true
		var err error
		if next.Status == domain.RefundSucceeded {
			_, err = s.env.Outbox.Add(ctx, Topic, contract.EventPaymentRefunded, next.PaymentIntentID, contract.PaymentRefunded{
				RefundID: next.ID, ProcessorRefundID: next.ProcessorRefundID, OrderID: next.OrderID, PaymentIntentID: next.PaymentIntentID,
				Amount: next.Amount, Currency: next.Currency, Origin: next.Origin})
		} else {
			_, err = s.env.Outbox.Add(ctx, Topic, contract.EventPaymentRefundFailed, next.PaymentIntentID, contract.PaymentRefundFailed{
				RefundID: next.ID, ProcessorRefundID: next.ProcessorRefundID, OrderID: next.OrderID, PaymentIntentID: next.PaymentIntentID,
				Amount: next.Amount, Currency: next.Currency, FailureReason: next.FailureReason})
		}
		if err == nil {
			r := *next
			note(func() {
				s.env.Logger.InfoContext(ctx, "payments: refund "+r.Status, "refundId", r.ID, "orderId", r.OrderID, "paymentIntentId", r.PaymentIntentID,
					"eventId", eventID, "amount", r.Amount.AED(), "origin", r.Origin, "failureReason", r.FailureReason)
			})
		}
		return next, err
	})
	if err != nil || !misnamed {
		return told && err == nil, err
	}
	return s.applyMisnamed(ctx, eventID, f, notes)
}

// applyMisnamed applies news whose metadata named a recorded refund it is not
// of (domain.Refund.Misnamed) as what the processor says it is: a refund made
// at the processor, of its own payment intent's order (none recorded yet:
// FAILED_PRECONDITION, the processor retries), recorded under its re_ id. The
// refund named is not touched. A refund made at the processor whose re_ id is
// itself a misnamed record's id is not guessed at: FAILED_PRECONDITION for
// an operator (a 500, retried).
func (s *svc) applyMisnamed(ctx context.Context, eventID string, f domain.RefundFact, notes *[]func()) (bool, error) {
	if f.Origin == domain.OriginProcessor && f.RefundID == f.ProcessorRefundID || f.ProcessorRefundID == "" {
		return false, apperr.New(apperr.FailedPrecondition, "refund %s of payment intent %s cannot be recorded: its id is another refund's record, for an operator",
			f.ProcessorRefundID, f.PaymentIntentID)
	}
	orderID, _, err := s.orderOfIntent(ctx, f.PaymentIntentID)
	if err != nil {
		return false, err
	}
	f.RefundID, f.Origin, f.OrderID = f.ProcessorRefundID, domain.OriginProcessor, orderID
	return s.applyRefund(ctx, eventID, f, notes)
}

// Plain-text bodies of the refund and dispute events' 200 answers.
const (
	textRefundsRecorded = "Refunds recorded: "
	textNothingNew      = "Nothing new"
	textRefundFailed    = "Refund failure recorded"
)

// orderOfIntent is the order (and store) a payment intent paid for, as
// recorded with its succeeded event. None recorded yet (the processor told of
// the refund or dispute before the payment's success was handled) is
// FAILED_PRECONDITION: a 500, and the processor retries.
func (s *svc) orderOfIntent(ctx context.Context, intentID string) (orderID, storeID string, err error) {
	orderID, storeID, err = s.intents.OrderOf(ctx, intentID)
	if err == nil && orderID == "" {
		err = apperr.New(apperr.FailedPrecondition, "no order is recorded for payment intent %s yet", intentID)
	}
	return orderID, storeID, err
}

// ordersOfRefunds sets the order of each refund of a payment intent to the
// order that intent paid for, as recorded with its success. A refund's
// metadata is the processor's text, which anyone at its dashboard can write:
// its orderId is never trusted over the intent's order (a difference is
// logged and the intent's order refunded). Only a refund asked by this service
// (a refundId) whose intent has no order recorded keeps the order it was
// asked for; a refund made at the processor then waits (FAILED_PRECONDITION:
// a 500, and the processor retries).
func (s *svc) ordersOfRefunds(ctx context.Context, ev *event, intentID string, facts []domain.RefundFact) error {
	if len(facts) == 0 {
		return nil
	}
	intentOrder, _, err := s.intents.OrderOf(ctx, intentID)
	if err != nil {
		return err
	}
	for i := range facts {
		f := &facts[i]
		named := f.OrderID
		switch {
		case intentOrder != "":
			f.OrderID = intentOrder
		case f.Origin == domain.OriginProcessor || named == "":
			return apperr.New(apperr.FailedPrecondition, "no order is recorded for payment intent %s yet", intentID)
		}
		if named != "" && named != f.OrderID {
			s.env.Logger.WarnContext(ctx, "payments: a refund's metadata names another order than its payment intent's: the intent's order is refunded",
				"eventId", ev.ID, "type", ev.Type, "refundId", f.RefundID, "processorRefundId", f.ProcessorRefundID, "paymentIntentId", intentID,
				"metadataOrderId", named, "orderId", f.OrderID)
		}
	}
	return nil
}

// chargeRefunded handles charge.refunded: each succeeded refund it lists,
// once (domain/refund.go).
func (s *svc) chargeRefunded(ctx context.Context, ev *event) answer {
	c, err := parseCharge(ev.Data.Object)
	if err != nil {
		return s.refuse(ctx, ev, err)
	}
	p := &paymentIntent{ID: c.PaymentIntent}
	if a, done := s.alreadyProcessed(ctx, ev, p); done {
		return a
	}
	var facts []domain.RefundFact
	for _, r := range c.Refunds {
		if r.Status != domain.RefundSucceeded {
			continue // pending, or failed (refund.failed tells that)
		}
		f := domain.RefundFact{News: domain.NewsSucceeded, RefundID: r.RefundID, OrderID: r.OrderID, PaymentIntentID: c.PaymentIntent,
			Amount: r.Amount, Currency: r.Currency, ProcessorRefundID: r.ID, Origin: domain.OriginMarketplace, EventID: ev.ID}
		if f.RefundID == "" {
			f.RefundID, f.Origin = r.ID, domain.OriginProcessor
		}
		facts = append(facts, f)
	}
	if err := s.ordersOfRefunds(ctx, ev, c.PaymentIntent, facts); err != nil {
		return s.fail(ctx, ev, p, err)
	}
	var notes []func()
	told := 0
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		notes, told = notes[:0], 0
		for _, f := range facts {
			t, err := s.applyRefund(ctx, ev.ID, f, &notes)
			if err != nil {
				return err
			}
			if t {
				told++
			}
		}
		return s.recordOnce(ctx, ev, p)
	})
	text := textNothingNew
	if told > 0 {
		text = textRefundsRecorded + strconv.Itoa(told)
	}
	return s.settled(ctx, ev, p, err, notes, text)
}

// refundFailed handles refund.failed (domain/refund.go). A refund made at
// the processor that failed before any success was heard changes nothing
// anyone was told: it is recorded, not published.
func (s *svc) refundFailed(ctx context.Context, ev *event) answer {
	r, err := parseRefund(ev.Data.Object)
	if err != nil {
		return s.refuse(ctx, ev, err)
	}
	if r.Status != domain.RefundFailed {
		return s.refuse(ctx, ev, apperr.Invalid("data.object.status", "is %q: a refund.failed event carries a failed refund", r.Status))
	}
	p := &paymentIntent{ID: r.PaymentIntent}
	if a, done := s.alreadyProcessed(ctx, ev, p); done {
		return a
	}
	f := domain.RefundFact{News: domain.NewsFailed, RefundID: r.RefundID, OrderID: r.OrderID, PaymentIntentID: r.PaymentIntent,
		Amount: r.Amount, Currency: r.Currency, ProcessorRefundID: r.ID, Origin: domain.OriginMarketplace, FailureReason: r.FailureReason, EventID: ev.ID}
	if f.FailureReason == "" {
		f.FailureReason = "failed at the processor"
	}
	if f.RefundID == "" {
		f.RefundID, f.Origin = r.ID, domain.OriginProcessor
	}
	one := []domain.RefundFact{f}
	if err := s.ordersOfRefunds(ctx, ev, r.PaymentIntent, one); err != nil {
		return s.fail(ctx, ev, p, err)
	}
	f = one[0]
	var notes []func()
	told := false
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		notes = notes[:0]
		var err error
		if told, err = s.applyRefund(ctx, ev.ID, f, &notes); err != nil {
			return err
		}
		return s.recordOnce(ctx, ev, p)
	})
	text := textNothingNew
	if told {
		text = textRefundFailed
	}
	return s.settled(ctx, ev, p, err, notes, text)
}

// recordOnce records the event in ctx's transaction; errAlreadyRecorded
// when a concurrent copy recorded it first (the transaction is undone).
func (s *svc) recordOnce(ctx context.Context, ev *event, p *paymentIntent) error {
	dup, err := s.record(ctx, ev, p, "", "")
	if err == nil && dup {
		err = errAlreadyRecorded
	}
	return err
}

// alreadyProcessed answers an event whose work is done (a redelivery), once
// its record is durable.
func (s *svc) alreadyProcessed(ctx context.Context, ev *event, p *paymentIntent) (answer, bool) {
	done, err := s.processed.Has(ctx, ev.ID)
	if err == nil && done {
		err = s.env.DB.WaitDurable(ctx)
	}
	if err != nil {
		return s.fail(ctx, ev, p, err), true
	}
	if done {
		s.env.Logger.InfoContext(ctx, "webhook redelivery", "eventId", ev.ID, "eventType", ev.Type, "paymentIntentId", p.ID)
		return textAnswer(textEventAlreadyProcessed), true
	}
	return answer{}, false
}

// settled answers a refund or dispute event's transaction, and runs its
// notes once it committed.
func (s *svc) settled(ctx context.Context, ev *event, p *paymentIntent, err error, notes []func(), text string) answer {
	switch {
	case errors.Is(err, errAlreadyRecorded):
		return textAnswer(textEventAlreadyProcessed)
	case err != nil:
		if apperr.CodeOf(err) == apperr.Internal {
			err = apperr.Wrap(err, apperr.Internal, "could not record the processor's event")
		}
		return s.fail(ctx, ev, p, err)
	}
	s.env.Relay.Kick()
	for _, n := range notes {
		n()
	}
	return textAnswer(text)
}
