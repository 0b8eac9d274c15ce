package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
	"marketplace/services/payments/domain"
)

// RefundsCollection holds one document per refund (domain.Refund), by the
// marketplace's refundId (or the processor's id of a refund made there).
const RefundsCollection = "refunds"

// Refunds keeps the refunds asked of the processor and heard from it.
type Refunds struct{ db *store.DB }

func NewRefunds(db *store.DB) *Refunds { return &Refunds{db: db} }

// Get is the refund, nil when there is none.
func (r *Refunds) Get(ctx context.Context, id string) (*domain.Refund, error) {
	ref, err := store.FindOne[domain.Refund](ctx, r.db.Collection(RefundsCollection), bson.M{"_id": id})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the refunds")
	}
	return ref, nil
}

// Apply loads the refund id (nil: none) in a transaction (the caller's, when
// ctx is one), hands it to fn, and writes what fn returns: inserted when
// there was none, else only the fields that changed; nil writes nothing. A
// refund inserted concurrently is store.ErrConflict: the enclosing
// transaction runs again and fn sees it.
func (r *Refunds) Apply(ctx context.Context, id string, fn func(cur *domain.Refund) (*domain.Refund, error)) error {
	return r.db.Tx(ctx, func(ctx context.Context) error {
		cur, err := r.Get(ctx, id)
		if err != nil {
			return err
		}
		var before domain.Refund
		if cur != nil {
			before = *cur
		}
		next, err := fn(cur)
		if err != nil || next == nil {
			return err
		}
		coll := r.db.Collection(RefundsCollection)
		if cur == nil {
			_, err := coll.InsertOne(ctx, next)
			if store.IsDuplicate(err) {
				return store.ErrConflict
			}
			if err != nil {
				return apperr.Wrap(err, apperr.Internal, "could not record the refund")
			}
			return nil
		}
		update, err := store.Changes(before, *next)
		if err != nil || update == nil {
			return err
		}
		if _, err := coll.UpdateOne(ctx, bson.M{"_id": id}, update); err != nil {
			return apperr.Wrap(err, apperr.Internal, "could not record the refund")
		}
		return nil
	})
}
