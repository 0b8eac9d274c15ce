package payments

// POST /processor/webhook: which status answers what.
//
// The processor retries every delivery that is not answered 2xx, so the status
// tells it (and whoever reads its dashboard) whether a retry can help:
//
//	200  the event was handled, or had been handled before (a redelivery, a
//	     concurrent copy, or another event of the same payment intent: the body
//	     says "... already processed"), or its type is not one this service acts
//	     on (JSON { message: "Unhandled event type", eventType }), or it is a
//	     failure or cancellation of a payment intent already settled (succeeded
//	     or canceled: "Payment intent already settled", nothing written or
//	     published; intentstate.go has the rules), or a payout event
//	     (payout.paid, payout.failed: transfers.go) that settled its transfer,
//	     found it settled, or names no transfer of ours. Refunds and disputes
//	     (refunds.go, disputes.go; rules in domain/refund.go and
//	     domain/dispute.go): charge.refunded ("Refunds recorded: <n>", each
//	     succeeded refund of the charge once), refund.failed ("Refund failure
//	     recorded"), charge.dispute.created ("Dispute opened"),
//	     charge.dispute.closed ("Dispute closed: won|lost"; a status other
//	     than won or lost: "Dispute status not acted on: <status>"); news
//	     already heard, late, or contradicting a final status: "Nothing new",
//	     nothing written but the event's record. Text bodies are
//	     text/plain, JSON bodies application/json. A payment that does not fit
//	     its cart is handled too: the order is created held for review (a paid
//	     amount or currency that does not match it, or no cart lines of the store
//	     at all: a second payment of the same cart, or a cart emptied before
//	     paying), since a retry could not change what was charged.
//	400  what the processor sent is wrong, and sending it again will not help:
//	     no webhook secret configured here, a missing, malformed, stale (older
//	     than 300 s), future-dated (more than 300 s ahead) or non-matching
//	     processor-signature, a body that is not an
//	     event, a payment intent without id or with a bad amount (or a
//	     charge, refund or dispute object that is not one), metadata that
//	     cannot become an order (which field is named), and the customers
//	     service's INVALID_ARGUMENT or NOT_FOUND (the customer or store of the
//	     metadata does not exist). JSON { error }. Nothing is written (but, for
//	     a succeeded event with valid metadata, that its intent succeeded).
//	413  the body is over the server's limit (HTTP_BODY_LIMIT), answered
//	     before this handler by the server (libs/httpserver, ops.BodyTooLarge)
//	     and by the gateway in front of it: JSON { error }. Nothing is read.
//	500  processing failed in a way a later retry may fix: the customers
//	     service's FAILED_PRECONDITION (no platform configuration is in force to
//	     price the order's commission), any other error of it, a refund or
//	     dispute of a payment intent whose order is not recorded yet
//	     (FAILED_PRECONDITION: its success may still be on its way), and
//	     failures of this service's own database. JSON { error, eventId }. Malformed input is
//	     never a 500, nor is a paid cart that holds nothing of the store (200,
//	     held for review, above).
//	503  a dependency is down: the customers service cannot be resolved or
//	     reached, did not answer in time, or answered UNAVAILABLE; or the
//	     processor, asked for the store of a disputed intent whose order was
//	     made before stores were recorded with it, cannot answer. JSON { error,
//	     retryAfter } and a Retry-After header, both in seconds.
//
// An event id is recorded (collection processedWebhookEvents) only once its
// work is done, so a failed delivery leaves nothing behind and its retry runs
// in full; one order per payment intent is the customers service's guarantee
// (a unique index), which answers created=false to every copy but the first.

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/stripe/stripe-go/v86/webhook"

	"marketplace/libs/apperr"
	"marketplace/services/payments/domain"
)

const (
	// SignatureHeader carries the processor's signature.
	SignatureHeader = "processor-signature"
	// RetryAfterSeconds is the retry delay suggested with a 503.
	RetryAfterSeconds = 5
	// SignatureTolerance bounds a signature's age, and how far ahead of our
	// clock its timestamp may be: a leaked body signed for the future would
	// otherwise stay replayable until then.
	SignatureTolerance = 300 * time.Second
)

// Plain-text bodies of the 200 answers.
const (
	textOrderAlreadyProcessed = "Order already processed"
	textEventAlreadyProcessed = "Event already processed"
	textOrderCreated          = "Order created: "
	textFailureRecorded       = "Payment failure recorded"
	textCancelRecorded        = "Payment cancellation recorded"
)

// answer is one webhook response: a plain-text body or a JSON body.
type answer struct {
	status int
	text   string
	json   fiber.Map
}

func textAnswer(text string) answer { return answer{status: http.StatusOK, text: text} }

// statusOf is the status of a failed delivery: see the table at the top of
// this file. err carries an apperr code: the customers service's own, or
// INVALID_ARGUMENT for what this service refused, or none (INTERNAL).
func statusOf(err error) int {
	switch apperr.CodeOf(err) {
	case apperr.InvalidArgument, apperr.NotFound:
		return http.StatusBadRequest
	case apperr.Unavailable:
		return http.StatusServiceUnavailable
	default: // FAILED_PRECONDITION, INTERNAL and everything unexpected: retry later
		return http.StatusInternalServerError
	}
}

// failure renders err with the body its status calls for.
func failure(err error, eventID string) answer {
	status, msg := statusOf(err), apperr.From(err).Message
	switch status {
	case http.StatusServiceUnavailable:
		return answer{status: status, json: fiber.Map{"error": msg, "retryAfter": RetryAfterSeconds}}
	case http.StatusInternalServerError:
		return answer{status: status, json: fiber.Map{"error": msg, "eventId": eventID}}
	default:
		return answer{status: status, json: fiber.Map{"error": msg}}
	}
}

func badRequest(msg string) answer {
	return answer{status: http.StatusBadRequest, json: fiber.Map{"error": msg}}
}

// signatureError is the client-facing text of a signature check failure.
func signatureError(err error) string {
	switch {
	case errors.Is(err, webhook.ErrNotSigned):
		return "missing " + SignatureHeader + " header"
	case errors.Is(err, webhook.ErrInvalidHeader):
		return "malformed " + SignatureHeader + " header"
	case errors.Is(err, webhook.ErrTooOld):
		return "signature timestamp is older than the 300 s tolerance"
	case errors.Is(err, webhook.ErrNoValidSignature):
		return "no valid signature in the " + SignatureHeader + " header"
	}
	return "invalid signature"
}

// signedAt is the latest t= timestamp of a header that verified: the one the
// signature library checks is one of them (the last), and a header that adds
// another t= must not hide a future-dated signature behind a current one.
func signedAt(header string) time.Time {
	var latest time.Time
	for _, part := range strings.Split(header, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(part), "="); ok && k == "t" {
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return time.Unix(1<<40, 0) // unreadable: refused as not verifiable
			}
			if t := time.Unix(sec, 0); t.After(latest) {
				latest = t
			}
		}
	}
	return latest
}

// webhook answers POST /processor/webhook.
func (s *svc) webhook(c *fiber.Ctx) error {
	// Fiber's buffers are reused after the handler returns: work on copies. The
	// signature covers the raw bytes as received.
	body := bytes.Clone(c.BodyRaw())
	header := strings.Clone(c.Get(SignatureHeader))
	a := s.process(c.UserContext(), body, header)
	if a.status == http.StatusServiceUnavailable {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(RetryAfterSeconds))
	}
	c.Status(a.status)
	if a.json != nil {
		return c.JSON(a.json)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextPlainCharsetUTF8)
	return c.SendString(a.text)
}

// process verifies, parses and dispatches one delivery.
func (s *svc) process(ctx context.Context, body []byte, header string) answer {
	if s.webhookSecret == "" {
		s.env.Logger.WarnContext(ctx, "webhook refused: "+EnvWebhookSecret+" is not set")
		return badRequest("webhook secret not configured")
	}
	if strings.TrimSpace(header) == "" {
		return badRequest("missing " + SignatureHeader + " header")
	}
	if err := webhook.ValidatePayloadWithTolerance(body, header, s.webhookSecret, SignatureTolerance); err != nil {
		s.env.Logger.WarnContext(ctx, "webhook signature refused", "err", err)
		return badRequest(signatureError(err))
	}
	// The signature's freshness is judged on the wall clock, as its age is
	// (ValidatePayloadWithTolerance): it is about the processor's clock, not
	// the service's business time (env.Now, which tests may set).
	if t := signedAt(header); t.After(time.Now().Add(SignatureTolerance)) {
		s.env.Logger.WarnContext(ctx, "webhook signature refused: timestamp in the future", "signedAt", t)
		return badRequest("signature timestamp is more than 300 s in the future")
	}
	ev, err := parseEvent(body)
	if err != nil {
		s.env.Logger.WarnContext(ctx, "webhook body refused", "err", err)
		return failure(err, "")
	}
	if domain.TransferOutcome(ev.Type) != "" { // a payout's transfer: not a payment intent
		return s.payoutEvent(ctx, ev)
	}
	// Refunds and disputes carry other objects than a payment intent: they
	// branch here (refunds.go, disputes.go).
	switch ev.Type {
	case typeChargeRefunded:
		return s.chargeRefunded(ctx, ev)
	case typeRefundFailed:
		return s.refundFailed(ctx, ev)
	case typeDisputeCreated, typeDisputeClosed:
		return s.dispute(ctx, ev)
	}
	var handle func(context.Context, *event, *paymentIntent) answer
	already := textEventAlreadyProcessed
	switch ev.Type {
	case typeSucceeded:
		handle, already = s.succeeded, textOrderAlreadyProcessed
	case typeFailed:
		handle = s.failed
	case typeCanceled:
		handle = s.canceled
	default:
		s.env.Logger.InfoContext(ctx, "webhook event type ignored", "eventId", ev.ID, "eventType", ev.Type)
		return answer{status: http.StatusOK, json: fiber.Map{"message": "Unhandled event type", "eventType": ev.Type}}
	}
	p, err := parseIntent(ev.Data.Object)
	if err != nil {
		return s.refuse(ctx, ev, err)
	}
	done, err := s.processed.Has(ctx, ev.ID)
	if err != nil {
		return s.fail(ctx, ev, p, err)
	}
	if done {
		// The record may belong to a delivery whose commit is not on disk
		// yet (the embedded engine's group commit): answer once it is, or
		// the processor would stop retrying an event a crash could undo.
		if err := s.env.DB.WaitDurable(ctx); err != nil {
			return s.fail(ctx, ev, p, err)
		}
		s.env.Logger.InfoContext(ctx, "webhook redelivery", "eventId", ev.ID, "eventType", ev.Type, "paymentIntentId", p.ID)
		return textAnswer(already)
	}
	return handle(ctx, ev, p)
}

// refuse answers input the processor sent wrong (400), logged with the event.
func (s *svc) refuse(ctx context.Context, ev *event, err error) answer {
	s.env.Logger.WarnContext(ctx, "webhook event refused", "eventId", ev.ID, "eventType", ev.Type, "err", err)
	return failure(err, ev.ID)
}

// fail answers a failed processing step with the status of its error.
func (s *svc) fail(ctx context.Context, ev *event, p *paymentIntent, err error) answer {
	a := failure(err, ev.ID)
	level := s.env.Logger.ErrorContext
	if a.status != http.StatusInternalServerError {
		level = s.env.Logger.WarnContext
	}
	level(ctx, "webhook event failed", "eventId", ev.ID, "eventType", ev.Type, "paymentIntentId", p.ID, "status", a.status, "err", err)
	return a
}

// record marks an event done, with the order and store a succeeded payment
// made (the refunds and disputes of the intent find them there); duplicate
// reports it already was.
func (s *svc) record(ctx context.Context, ev *event, p *paymentIntent, orderID, storeID string) (duplicate bool, err error) {
	return s.processed.Record(ctx, domain.ProcessedEvent{
		ID: ev.ID, Type: ev.Type, PaymentIntentID: p.ID, OrderID: orderID, StoreID: storeID, ProcessedAt: s.env.Now().UTC(),
	})
}

// succeeded turns a paid cart into an order.
func (s *svc) succeeded(ctx context.Context, ev *event, p *paymentIntent) answer {
	o, err := orderFrom(p)
	if err != nil {
		return s.refuse(ctx, ev, err)
	}
	// The processor's word that the intent succeeded is recorded first, so a
	// failure or cancellation of it delivered from now on changes nothing
	// (intentstate.go), whatever becomes of the order below.
	before, err := s.intents.Settle(ctx, p.ID, domain.IntentSucceeded, ev.ID, s.env.Now().UTC())
	if err != nil {
		return s.fail(ctx, ev, p, err)
	}
	if domain.VerdictFor(before, ev.Type) == domain.ActAndWarn {
		s.env.Logger.WarnContext(ctx, "payment succeeded after its intent was canceled: making the order", "eventId", ev.ID, "paymentIntentId", p.ID)
	}
	res, err := s.customers.CreateOrderFromCart(ctx, o.request())
	if err != nil {
		return s.fail(ctx, ev, p, err)
	}
	// The order exists (now or from an earlier delivery): remember the event. A
	// concurrent copy may have recorded it first; either way it is done.
	if _, err := s.record(ctx, ev, p, res.OrderID, o.StoreID); err != nil {
		return s.fail(ctx, ev, p, err)
	}
	if !res.Created {
		s.env.Logger.InfoContext(ctx, "order already existed for the payment", "eventId", ev.ID, "paymentIntentId", p.ID, "orderId", res.OrderID)
		return textAnswer(textOrderAlreadyProcessed)
	}
	if res.HeldForReview {
		s.env.Logger.WarnContext(ctx, "order held for payment review", "eventId", ev.ID, "paymentIntentId", p.ID, "orderId", res.OrderID,
			"reason", res.ReviewReason, "amount", p.Amount, "currency", p.Currency)
	}
	s.env.Logger.InfoContext(ctx, "order created from payment", "eventId", ev.ID, "paymentIntentId", p.ID, "orderId", res.OrderID,
		"customerId", o.CustomerID, "storeId", o.StoreID, "amountPaid", o.AmountPaid.AED())
	return textAnswer(textOrderCreated + res.OrderID)
}

// errAlreadyRecorded stops the transaction of a redelivered event;
// errIntentSettled that of an event of an intent already settled.
var (
	errAlreadyRecorded = errors.New("event already recorded")
	errIntentSettled   = errors.New("payment intent already settled")
)

// ignoreSettled answers an event of an intent already settled: acknowledged,
// nothing changed.
func (s *svc) ignoreSettled(ctx context.Context, ev *event, p *paymentIntent, status string) answer {
	s.env.Logger.InfoContext(ctx, "webhook event of a settled payment intent ignored", "eventId", ev.ID, "eventType", ev.Type,
		"paymentIntentId", p.ID, "intentStatus", status)
	return textAnswer(textIntentSettled)
}

// failed publishes payment.failed for the notifications service. Its metadata
// is checked as a successful payment's is (the same checkout wrote it), and the
// customer and store must exist: a failure for nobody is refused, not
// published with an empty recipient.
func (s *svc) failed(ctx context.Context, ev *event, p *paymentIntent) answer {
	// A failure delivered after its intent succeeded or was canceled is
	// stale: no notice for a paid (or abandoned) order. Checked here to spare
	// the lookups, and again in the transaction, which decides.
	status, err := s.intents.Status(ctx, p.ID)
	if err != nil {
		return s.fail(ctx, ev, p, err)
	}
	if domain.VerdictFor(status, ev.Type) == domain.IgnoreEvent {
		return s.ignoreSettled(ctx, ev, p, status)
	}
	o, err := orderFrom(p)
	if err != nil {
		return s.refuse(ctx, ev, err)
	}
	profiles, err := s.customers.Profiles(ctx, []string{o.CustomerID})
	if err != nil {
		return s.fail(ctx, ev, p, err)
	}
	profile, ok := profiles[o.CustomerID]
	if !ok {
		return s.refuse(ctx, ev, apperr.New(apperr.NotFound, "customer %s does not exist", o.CustomerID))
	}
	store, err := s.catalog.Store(ctx, o.StoreID)
	if err != nil {
		return s.fail(ctx, ev, p, err)
	}
	if store == nil {
		return s.refuse(ctx, ev, apperr.New(apperr.NotFound, "store %s does not exist", o.StoreID))
	}
	customerID, storeID := o.CustomerID, o.StoreID
	data := PaymentFailed{
		PaymentIntentID: p.ID,
		CustomerID:      customerID,
		CustomerUserID:  profile.UserID,
		StoreID:         storeID,
		Amount:          p.Amount,
		Currency:        p.Currency,
		FailureMessage:  cleanText(p.FailureMessage),
	}
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		status, err = s.intents.Status(ctx, p.ID)
		if err != nil {
			return err
		}
		if domain.VerdictFor(status, ev.Type) == domain.IgnoreEvent {
			return errIntentSettled
		}
		if s.failureRead != nil {
			s.failureRead()
		}
		// Written while the intent is open: a success or cancellation
		// settling it concurrently writes the same document, so one of the
		// two transactions runs again and this one then sees it settled.
		if err := s.intents.AddFailure(ctx, p.ID); err != nil {
			return err
		}
		dup, err := s.record(ctx, ev, p, "", "")
		if err != nil {
			return err
		}
		if dup {
			return errAlreadyRecorded
		}
		_, err = s.env.Outbox.Add(ctx, Topic, EventPaymentFailed, p.ID, data)
		return err
	})
	if errors.Is(err, errAlreadyRecorded) {
		return textAnswer(textEventAlreadyProcessed)
	}
	if errors.Is(err, errIntentSettled) {
		return s.ignoreSettled(ctx, ev, p, status)
	}
	if err != nil {
		if apperr.CodeOf(err) == apperr.Internal {
			err = apperr.Wrap(err, apperr.Internal, "could not record the payment failure")
		}
		return s.fail(ctx, ev, p, err)
	}
	s.env.Relay.Kick()
	s.env.Logger.WarnContext(ctx, "payment failed", "eventId", ev.ID, "paymentIntentId", p.ID, "customerId", customerID,
		"storeId", storeID, "amount", data.Amount.AED(), "failureMessage", p.FailureMessage)
	return textAnswer(textFailureRecorded)
}

// canceled records the cancellation. The cart is deliberately left as it is:
// the customer may pay again. A cancellation of an intent already settled
// changes nothing.
func (s *svc) canceled(ctx context.Context, ev *event, p *paymentIntent) answer {
	var status string
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		var err error
		if status, err = s.intents.Status(ctx, p.ID); err != nil {
			return err
		}
		if domain.VerdictFor(status, ev.Type) == domain.IgnoreEvent {
			return errIntentSettled
		}
		if _, err := s.intents.Settle(ctx, p.ID, domain.IntentCanceled, ev.ID, s.env.Now().UTC()); err != nil {
			return err
		}
		dup, err := s.record(ctx, ev, p, "", "")
		if err != nil {
			return err
		}
		if dup {
			return errAlreadyRecorded
		}
		return nil
	})
	switch {
	case errors.Is(err, errAlreadyRecorded):
		return textAnswer(textEventAlreadyProcessed)
	case errors.Is(err, errIntentSettled):
		return s.ignoreSettled(ctx, ev, p, status)
	case err != nil:
		if apperr.CodeOf(err) == apperr.Internal {
			err = apperr.Wrap(err, apperr.Internal, "could not record the payment cancellation")
		}
		return s.fail(ctx, ev, p, err)
	}
	customerID, _ := p.meta("customerId")
	s.env.Logger.InfoContext(ctx, "payment canceled; cart kept", "eventId", ev.ID, "paymentIntentId", p.ID, "customerId", customerID)
	return textAnswer(textCancelRecorded)
}
