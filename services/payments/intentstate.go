package payments

// What the webhook knows of a payment intent's lifecycle, so that an event
// arriving after its intent settled changes nothing.
//
// The processor's rules (the simulator enforces the same): a declined
// confirmation (payment_intent.payment_failed) leaves the intent payable, so
// any number of failures may precede one success or one cancellation; a
// succeeded or canceled intent is final (it is never confirmed or canceled
// again). The processor does not deliver events in order, nor only once, so
// the webhook judges each event against what it already heard of the intent:
//
//	event \ intent   open (nothing, or failures)   succeeded        canceled
//	succeeded        make the order                 (the order is     make the order (never sent
//	                                                 made once)       by the processor; the charge
//	                                                                  is its word: warned)
//	payment_failed   notify the customer            ignored          ignored
//	canceled         record, keep the cart          ignored          ignored
//
// "Ignored" is a 200 "Payment intent already settled": nothing is written or
// published. A failure delivered before the success it preceded was true when
// it happened, so its notice stands and the order follows.

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
)

// intentsColl holds one document per payment intent the webhook acted on.
const intentsColl = "paymentIntentStates"

// Statuses of an intent as the webhook heard of it; "" is open.
const (
	intentSucceeded = "succeeded"
	intentCanceled  = "canceled"
)

// textIntentSettled answers an event of an intent already settled.
const textIntentSettled = "Payment intent already settled"

// intentState is an intent's document. Status is set by the event that
// settled it; Failures counts the failure notices sent while it was open.
type intentState struct {
	ID        string    `bson:"_id"` // the payment intent's id
	Status    string    `bson:"status,omitempty"`
	EventID   string    `bson:"eventId,omitempty"` // the event that set Status
	SettledAt time.Time `bson:"settledAt,omitempty"`
	Failures  int       `bson:"failures,omitempty"`
}

// eventVerdict is what an event does to an intent in a given status.
type eventVerdict int

const (
	actOnEvent  eventVerdict = iota // handle it as its type says
	ignoreEvent                     // acknowledge it; change nothing
	actAndWarn                      // handle it, though the processor never sends it so
)

// verdictFor is the table at the top of this file: the event type's verdict
// for an intent whose status is status ("" open, succeeded, canceled).
func verdictFor(status, eventType string) eventVerdict {
	switch eventType {
	case typeSucceeded:
		if status == intentCanceled {
			return actAndWarn
		}
		return actOnEvent
	case typeFailed, typeCanceled:
		if status == intentSucceeded || status == intentCanceled {
			return ignoreEvent
		}
	}
	return actOnEvent
}

// intentStatus is the intent's status as recorded here: its document, or,
// for an intent settled before the documents existed, a recorded succeeded
// or canceled event of it.
func (s *svc) intentStatus(ctx context.Context, intentID string) (string, error) {
	var st intentState
	err := s.env.DB.Collection(intentsColl).FindOne(ctx, bson.M{"_id": intentID}).Decode(&st)
	switch {
	case err == nil && st.Status != "":
		return st.Status, nil
	case err != nil && !store.IsNotFound(err):
		return "", apperr.Wrap(err, apperr.Internal, "could not read the payment intent's state")
	}
	var ev processedEvent
	err = s.env.DB.Collection(processedColl).FindOne(ctx, bson.M{
		"paymentIntentId": intentID, "type": bson.M{"$in": bson.A{typeSucceeded, typeCanceled}},
	}).Decode(&ev)
	switch {
	case err == nil && ev.Type == typeSucceeded:
		return intentSucceeded, nil
	case err == nil:
		return intentCanceled, nil
	case store.IsNotFound(err):
		return "", nil
	}
	return "", apperr.Wrap(err, apperr.Internal, "could not read the payment intent's events")
}

// settle records that the intent succeeded or was canceled, by ev, and
// returns the status it had. Writing the document is what makes a concurrent
// failure's transaction (which writes it too while the intent is open) run
// again and see the new status.
func (s *svc) settle(ctx context.Context, intentID, status, eventID string) (before string, err error) {
	coll := s.env.DB.Collection(intentsColl)
	opts := options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.Before)
	update := bson.M{"$set": bson.M{"status": status, "eventId": eventID, "settledAt": time.Now().UTC()}}
	var prev intentState
	for attempt := 0; ; attempt++ {
		err = coll.FindOneAndUpdate(ctx, bson.M{"_id": intentID}, update, opts).Decode(&prev)
		// Two upserts of a new intent may meet on _id: the second finds the
		// first's document when it runs again.
		if store.IsDuplicate(err) && attempt == 0 {
			continue
		}
		break
	}
	switch {
	case err == nil:
		return prev.Status, nil
	case store.IsNotFound(err): // inserted: it had no document
		return "", nil
	}
	return "", apperr.Wrap(err, apperr.Internal, "could not record the payment intent's state")
}
