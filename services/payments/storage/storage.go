// Package storage holds the payments service's repositories: the only code
// that knows its collections, filters, updates and indexes.
package storage

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
	"marketplace/services/payments/domain"
)

// Collections of the service.
const (
	// IntentsCollection holds one document per payment intent the webhook
	// acted on (domain.IntentState).
	IntentsCollection = "paymentIntentStates"
	// ProcessedCollection holds the events whose work is done
	// (domain.ProcessedEvent).
	ProcessedCollection = "processedWebhookEvents"
)

// Indexes are the processed events' indexes, the refunds' and the
// disputes'. The webhook finds events by _id; the index on the payment intent
// serves an operator asking what the processor sent about one, and the
// webhook asking which order a payment intent paid for (Intents.OrderOf).
// The disputes' serve their lists (Disputes.Page): open ones by deadline,
// others newest first, of every store or of one.
func Indexes() []store.Index {
	return []store.Index{
		{Collection: ProcessedCollection, Keys: bson.D{{Key: "paymentIntentId", Value: 1}}, Name: "by_payment_intent"},
		{Collection: RefundsCollection, Keys: bson.D{{Key: "orderId", Value: 1}}, Name: "by_order"},
		{Collection: DisputesCollection, Keys: bson.D{{Key: "status", Value: 1}, {Key: "dueBy", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_status_due"},
		{Collection: DisputesCollection, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "status", Value: 1}, {Key: "dueBy", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_store_status_due"},
		{Collection: DisputesCollection, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "openedAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_newest"},
		{Collection: DisputesCollection, Keys: bson.D{{Key: "openedAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "newest"},
		{Collection: DisputesCollection, Keys: bson.D{{Key: "status", Value: 1}, {Key: "openedAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_status_newest"},
		{Collection: DisputesCollection, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "status", Value: 1}, {Key: "openedAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_status_newest"},
	}
}

// Intents keeps what the webhook heard of each payment intent.
type Intents struct{ db *store.DB }

func NewIntents(db *store.DB) *Intents { return &Intents{db: db} }

// Status is the intent's status as recorded here: its document, or, for an
// intent settled before the documents existed, a recorded succeeded or
// canceled event of it (domain.SettledBy).
func (r *Intents) Status(ctx context.Context, intentID string) (string, error) {
	st, err := store.FindOne[domain.IntentState](ctx, r.db.Collection(IntentsCollection), bson.M{"_id": intentID})
	switch {
	case err != nil:
		return "", apperr.Wrap(err, apperr.Internal, "could not read the payment intent's state")
	case st != nil && st.Status != "":
		return st.Status, nil
	}
	ev, err := store.FindOne[domain.ProcessedEvent](ctx, r.db.Collection(ProcessedCollection), bson.M{
		"paymentIntentId": intentID, "type": bson.M{"$in": bson.A{domain.TypeSucceeded, domain.TypeCanceled}},
	})
	switch {
	case err != nil:
		return "", apperr.Wrap(err, apperr.Internal, "could not read the payment intent's events")
	case ev != nil:
		return domain.SettledBy(ev.Type), nil
	}
	return domain.IntentOpen, nil
}

// OrderOf is the order a payment intent paid for and its store, as recorded
// with its succeeded event once the order existed (the store since this
// version: "" for an order made before); orderID "" when none is recorded.
func (r *Intents) OrderOf(ctx context.Context, intentID string) (orderID, storeID string, err error) {
	ev, err := store.FindOne[domain.ProcessedEvent](ctx, r.db.Collection(ProcessedCollection), bson.M{
		"paymentIntentId": intentID, "type": domain.TypeSucceeded, "orderId": bson.M{"$exists": true},
	})
	switch {
	case err != nil:
		return "", "", apperr.Wrap(err, apperr.Internal, "could not read the payment intent's events")
	case ev == nil:
		return "", "", nil
	}
	return ev.OrderID, ev.StoreID, nil
}

// Settle records that the intent succeeded or was canceled, by event eventID
// at at, and returns the status it had. Writing the document is what makes a
// concurrent failure's transaction (which writes it too while the intent is
// open: AddFailure) run again and see the new status.
func (r *Intents) Settle(ctx context.Context, intentID, status, eventID string, at time.Time) (before string, err error) {
	coll := r.db.Collection(IntentsCollection)
	opts := options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.Before)
	update := bson.M{"$set": bson.M{"status": status, "eventId": eventID, "settledAt": at}}
	var prev domain.IntentState
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
		return domain.IntentOpen, nil
	}
	return "", apperr.Wrap(err, apperr.Internal, "could not record the payment intent's state")
}

// AddFailure counts a failure notice sent while the intent is open.
func (r *Intents) AddFailure(ctx context.Context, intentID string) error {
	if _, err := r.db.Collection(IntentsCollection).UpdateOne(ctx, bson.M{"_id": intentID},
		bson.M{"$inc": bson.M{"failures": 1}}, options.Update().SetUpsert(true)); err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not record the payment intent's state")
	}
	return nil
}

// Processed keeps the webhook events whose work is done, by event id.
type Processed struct{ db *store.DB }

func NewProcessed(db *store.DB) *Processed { return &Processed{db: db} }

// Has reports whether the event's work is done.
func (r *Processed) Has(ctx context.Context, eventID string) (bool, error) {
	err := r.db.Collection(ProcessedCollection).FindOne(ctx, bson.M{"_id": eventID}).Err()
	switch {
	case err == nil:
		return true, nil
	case store.IsNotFound(err):
		return false, nil
	}
	return false, apperr.Wrap(err, apperr.Internal, "could not read the processed events")
}

// Record marks an event done; duplicate reports it already was.
func (r *Processed) Record(ctx context.Context, ev domain.ProcessedEvent) (duplicate bool, err error) {
	_, err = r.db.Collection(ProcessedCollection).InsertOne(ctx, ev)
	if store.IsDuplicate(err) {
		return true, nil
	}
	if err != nil {
		return false, apperr.Wrap(err, apperr.Internal, "could not record the event")
	}
	return false, nil
}
