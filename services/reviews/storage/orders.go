package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// Orders is the repository of the orders' verification slots
// (verifiedOrders: domain.OrderSlot).
type Orders struct{ db *store.DB }

// NewOrders is the repository of order slots on db.
func NewOrders(db *store.DB) *Orders { return &Orders{db: db} }

// Slot is the order's slot, nil when it has none.
func (o *Orders) Slot(ctx context.Context, orderID string) (*domain.OrderSlot, error) {
	return store.FindOne[domain.OrderSlot](ctx, o.db.Collection(verifiedOrdersColl), bson.M{"_id": orderID})
}

// Cancelled reports whether the order is known cancelled.
func (o *Orders) Cancelled(ctx context.Context, orderID string) (bool, error) {
	return exists(ctx, o.db, verifiedOrdersColl, bson.M{"_id": orderID, "cancelled": true})
}

// Take records, in the transaction of review reviewID, the order that
// verifies it (v.By; nothing for an unverified review), and moves the review
// that used it without citing it to its new order (v.Move). Each write names
// the order's document, so a concurrent writer of the same order conflicts:
// an insert of a document that appeared meanwhile is a duplicate, a move whose
// review no longer holds its order is store.ErrConflict.
func (o *Orders) Take(ctx context.Context, reviewID string, v domain.Verdict, now int64) error {
	if !v.Verified() {
		return nil
	}
	orders := o.db.Collection(verifiedOrdersColl)
	if m := v.Move; m != nil {
		res, err := orders.UpdateOne(ctx, bson.M{"_id": m.From, "reviewId": m.ReviewID},
			bson.M{"$set": bson.M{"reviewId": reviewID, "updatedAt": now}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			return store.ErrConflict
		}
		if _, err := orders.InsertOne(ctx, domain.OrderSlot{OrderID: m.To, ReviewID: m.ReviewID, UpdatedAt: now}); err != nil {
			return err
		}
		res, err = o.db.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": m.ReviewID, "verifiedBy": m.From},
			bson.M{"$set": bson.M{"verifiedBy": m.To}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			return store.ErrConflict
		}
		return nil
	}
	_, err := orders.InsertOne(ctx, domain.OrderSlot{OrderID: v.By, ReviewID: reviewID, UpdatedAt: now})
	return err
}

// Cancel records that the order is cancelled: it names no review and never
// verifies one.
func (o *Orders) Cancel(ctx context.Context, orderID string, now int64) error {
	_, err := o.db.Collection(verifiedOrdersColl).UpdateOne(ctx, bson.M{"_id": orderID},
		bson.M{"$set": bson.M{"cancelled": true, "updatedAt": now}, "$unset": bson.M{"reviewId": ""}}, options.Update().SetUpsert(true))
	return err
}
