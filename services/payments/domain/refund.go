package domain

// What the payments service knows of a refund, and what each piece of news
// about it does (docs/adr/0149-refunds-and-disputes-at-the-processor.md).
//
// A refund is asked of the processor by the consumer of order.refund_requested
// (submitted: the processor answered it pending, or refused it at once:
// refused). Its outcome comes later, by webhook: charge.refunded lists it
// succeeded, refund.failed says it failed. The processor delivers events in
// any order and more than once, and the webhook may hear of a refund before
// the consumer has recorded it, so each piece of news is judged against the
// refund's recorded status ("" when there is no record yet):
//
//	news \ status   none                submitted           succeeded          failed
//	submitted       record submitted    ignore (duplicate)  fill the processor's id (the webhook was first)
//	refused         record failed, tell ignore (late)       ignore (late)      ignore (duplicate)
//	succeeded       record, tell        settle, tell        ignore (duplicate) ignore, warn
//	failed          record, tell        settle, tell        ignore, warn       ignore (duplicate)
//
// "tell" publishes payment.refunded or payment.refund_failed in the same
// transaction. succeeded and failed are final: news contradicting a final
// status (the processor never sends it) changes nothing and is logged as an
// error for an operator. Ignored news is acknowledged (a webhook's 200).
//
// The webhook's news names its refund by metadata.refundId, which anyone at
// the processor's dashboard can type: news of a recorded refund is of it only
// when it is of the refund's payment intent and, once the refund's processor
// id is known, of that id. Other news is misnamed: the recorded refund is not
// touched, and the news is of a refund made at the processor (its re_ id).

import (
	"time"

	"marketplace/libs/money"
)

// Refund statuses.
const (
	RefundNone      = ""
	RefundSubmitted = "submitted"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// Refund origins (payment.refunded's origin).
const (
	OriginMarketplace = "marketplace" // an order's refund, asked by this service
	OriginProcessor   = "processor"   // made at the processor without a refundId
)

// RefundNews is what was heard of a refund.
type RefundNews int

const (
	NewsSubmitted RefundNews = iota // the processor took the request (pending)
	NewsRefused                     // the processor refused the request (4xx)
	NewsSucceeded                   // charge.refunded lists it succeeded
	NewsFailed                      // refund.failed
)

// RefundVerdict is what a piece of news does to a refund.
type RefundVerdict int

const (
	RefundIgnore     RefundVerdict = iota // acknowledge; change nothing
	RefundRecord                          // no record yet: write one with the news's status
	RefundSettle                          // a submitted refund reaches its final status
	RefundFill                            // keep the status; learn the processor's refund id
	RefundContradict                      // a final status contradicted: change nothing, log an error
	RefundMisnamed                        // the news is of another refund than the recorded one it names: change nothing to it
)

// RefundVerdictFor is the table at the top of this file.
func RefundVerdictFor(status string, news RefundNews) RefundVerdict {
	switch status {
	case RefundNone:
		return RefundRecord
	case RefundSubmitted:
		switch news {
		case NewsSucceeded, NewsFailed:
			return RefundSettle
		}
		return RefundIgnore
	case RefundSucceeded, RefundFailed:
		switch {
		case news == NewsSubmitted:
			return RefundFill
		case news == NewsRefused:
			return RefundIgnore
		case (news == NewsSucceeded) == (status == RefundSucceeded):
			return RefundIgnore
		}
		return RefundContradict
	}
	return RefundIgnore
}

// StatusAfter is the status news leaves a refund in.
func StatusAfter(news RefundNews) string {
	switch news {
	case NewsSubmitted:
		return RefundSubmitted
	case NewsSucceeded:
		return RefundSucceeded
	}
	return RefundFailed
}

// Tells reports whether the verdict publishes an event: a refund that
// reaches succeeded or failed, never a mere submission.
func (v RefundVerdict) Tells(news RefundNews) bool {
	return (v == RefundRecord || v == RefundSettle) && news != NewsSubmitted
}

// Tells reports whether news judged v publishes an event: as v.Tells, but
// a refund made at the processor that failed before any success was heard
// is only recorded (nobody was told of it).
func (f RefundFact) Tells(v RefundVerdict) bool {
	if f.Origin == OriginProcessor && f.News == NewsFailed && v == RefundRecord {
		return false
	}
	return v.Tells(f.News)
}

// Refund is one refund of a payment intent (collection refunds). ID is the
// marketplace's refundId (the order's), or the processor's re_ id for a
// refund made at the processor without one.
type Refund struct {
	ID                string     `bson:"_id"`
	OrderID           string     `bson:"orderId"`
	PaymentIntentID   string     `bson:"paymentIntentId"`
	Requested         money.Fils `bson:"requested,omitempty"` // what the order asked; 0 when the webhook told us first
	Full              bool       `bson:"full,omitempty"`      // asked without an amount: all that is left
	Amount            money.Fils `bson:"amount"`              // the processor's amount once it named one, else Requested
	Currency          string     `bson:"currency"`
	ProcessorRefundID string     `bson:"processorRefundId,omitempty"`
	Status            string     `bson:"status"`
	Origin            string     `bson:"origin"`
	FailureReason     string     `bson:"failureReason,omitempty"`
	SubmittedAt       time.Time  `bson:"submittedAt,omitempty"`
	SettledAt         time.Time  `bson:"settledAt,omitempty"`
	EventID           string     `bson:"eventId,omitempty"` // the processor event that settled it
}

// RefundFact is one piece of news with what it says of the refund.
type RefundFact struct {
	News              RefundNews
	RefundID          string
	OrderID           string
	PaymentIntentID   string
	Requested         money.Fils
	Full              bool
	Amount            money.Fils // the processor's, 0 when it named none
	Currency          string
	ProcessorRefundID string
	Origin            string
	FailureReason     string
	EventID           string
}

// Misnamed reports whether news the processor's webhook tells (succeeded,
// failed) names the recorded refund r but is not of it: of another payment
// intent, or of another processor refund than the one r has recorded.
func (r *Refund) Misnamed(f RefundFact) bool {
	if f.News != NewsSucceeded && f.News != NewsFailed {
		return false // the consumer's own news of the refund it asked
	}
	return f.PaymentIntentID != r.PaymentIntentID || (r.ProcessorRefundID != "" && f.ProcessorRefundID != r.ProcessorRefundID)
}

// Apply applies news to the refund cur (nil: no record) at now: the verdict,
// and the refund to write (nil when nothing is written). News misnamed
// (Refund.Misnamed) changes nothing of cur.
func Apply(cur *Refund, f RefundFact, now time.Time) (RefundVerdict, *Refund) {
	status := RefundNone
	if cur != nil {
		if cur.Misnamed(f) {
			return RefundMisnamed, nil
		}
		status = cur.Status
	}
	v := RefundVerdictFor(status, f.News)
	switch v {
	case RefundRecord:
		r := &Refund{ID: f.RefundID, OrderID: f.OrderID, PaymentIntentID: f.PaymentIntentID, Requested: f.Requested, Full: f.Full,
			Amount: f.Amount, Currency: f.Currency, ProcessorRefundID: f.ProcessorRefundID, Status: StatusAfter(f.News), Origin: f.Origin,
			FailureReason: f.FailureReason}
		if r.Amount == 0 {
			r.Amount = f.Requested
		}
		if f.News == NewsSubmitted || f.News == NewsRefused {
			r.SubmittedAt = now
		}
		if r.Status != RefundSubmitted {
			r.SettledAt, r.EventID = now, f.EventID
		}
		return v, r
	case RefundSettle:
		r := *cur
		r.Status, r.SettledAt, r.EventID = StatusAfter(f.News), now, f.EventID
		if f.Amount > 0 {
			r.Amount = f.Amount
		}
		if r.ProcessorRefundID == "" {
			r.ProcessorRefundID = f.ProcessorRefundID
		}
		r.FailureReason = f.FailureReason
		return v, &r
	case RefundFill:
		if cur.ProcessorRefundID != "" || f.ProcessorRefundID == "" {
			return RefundIgnore, nil
		}
		r := *cur
		r.ProcessorRefundID = f.ProcessorRefundID
		if r.Requested == 0 {
			r.Requested, r.Full = f.Requested, f.Full
		}
		return v, &r
	}
	return v, nil
}
