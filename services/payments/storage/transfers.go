package storage

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
	"marketplace/services/payments/domain"
)

// TransfersCollection holds one document per payout sent through the
// processor (domain.Transfer), by payout id.
const TransfersCollection = "transfers"

// Transfers keeps the payouts' transfers, one per payout id (its _id).
type Transfers struct{ db *store.DB }

func NewTransfers(db *store.DB) *Transfers { return &Transfers{db: db} }

// Claim records t, the transfer of its payout, unless the payout has one:
// then it returns that one (and records nothing).
func (r *Transfers) Claim(ctx context.Context, t domain.Transfer) (existing *domain.Transfer, err error) {
	_, err = r.db.Collection(TransfersCollection).InsertOne(ctx, t)
	switch {
	case err == nil:
		return nil, nil
	case store.IsDuplicate(err):
		existing, err = r.Get(ctx, t.PayoutID)
		if err == nil && existing == nil { // removed meanwhile (a refusal): try once more
			if _, err = r.db.Collection(TransfersCollection).InsertOne(ctx, t); err == nil {
				return nil, nil
			}
			if store.IsDuplicate(err) {
				return r.Get(ctx, t.PayoutID)
			}
		}
		if err != nil {
			return nil, apperr.Wrap(err, apperr.Internal, "could not read the transfer")
		}
		return existing, nil
	}
	return nil, apperr.Wrap(err, apperr.Internal, "could not record the transfer")
}

// Void records the payout's transfer voided at at unless the payout has one:
// then it returns that one (voided or not) and records nothing. Its record
// and Claim's are the same document (_id the payout id), inserted by
// whichever comes first: a transfer is either claimed to be sent or voided,
// never both.
func (r *Transfers) Void(ctx context.Context, payoutID string, at time.Time) (existing *domain.Transfer, err error) {
	t := domain.Transfer{PayoutID: payoutID, Status: domain.TransferVoided, CreatedAt: at, VoidedAt: &at}
	for range 2 {
		_, err = r.db.Collection(TransfersCollection).InsertOne(ctx, t)
		if err == nil {
			return nil, nil
		}
		if !store.IsDuplicate(err) {
			return nil, apperr.Wrap(err, apperr.Internal, "could not void the transfer")
		}
		if existing, err = r.Get(ctx, payoutID); err != nil || existing != nil {
			return existing, err
		}
		// removed meanwhile (the processor refused it): try once more
	}
	return nil, apperr.New(apperr.Unavailable, "the transfer of payout %s is changing; try again", payoutID)
}

// Get is the payout's transfer, nil when it has none.
func (r *Transfers) Get(ctx context.Context, payoutID string) (*domain.Transfer, error) {
	t, err := store.FindOne[domain.Transfer](ctx, r.db.Collection(TransfersCollection), bson.M{"_id": payoutID})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the transfer")
	}
	return t, nil
}

// Of are the transfers of payoutIDs that exist.
func (r *Transfers) Of(ctx context.Context, payoutIDs []string) ([]domain.Transfer, error) {
	ts, err := store.FindAll[domain.Transfer](ctx, r.db.Collection(TransfersCollection), bson.M{"_id": bson.M{"$in": payoutIDs}})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not read the transfers")
	}
	return ts, nil
}

// SetProcessorID records the processor's id of the payout's transfer, once
// (a webhook may have recorded it first); it returns the transfer as stored.
func (r *Transfers) SetProcessorID(ctx context.Context, payoutID, transferID string) (*domain.Transfer, error) {
	_, err := r.db.Collection(TransfersCollection).UpdateOne(ctx,
		bson.M{"_id": payoutID, "transferId": bson.M{"$exists": false}}, bson.M{"$set": bson.M{"transferId": transferID}})
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Internal, "could not record the transfer")
	}
	return r.Get(ctx, payoutID)
}

// Forget removes the payout's transfer the processor refused: one it never
// answered with an id, still pending.
func (r *Transfers) Forget(ctx context.Context, payoutID string) error {
	_, err := r.db.Collection(TransfersCollection).DeleteOne(ctx,
		bson.M{"_id": payoutID, "transferId": bson.M{"$exists": false}, "status": domain.TransferPending})
	if err != nil {
		return apperr.Wrap(err, apperr.Internal, "could not remove the refused transfer")
	}
	return nil
}

// Settle moves the payout's pending transfer to status (paid or failed), by
// the processor's transfer transferID and event eventID, at at; settled is
// false when it was not pending any more (a concurrent copy settled it).
func (r *Transfers) Settle(ctx context.Context, payoutID, transferID, status, failureCode, failureMessage, eventID string, at time.Time) (settled bool, err error) {
	set := bson.M{"status": status, "transferId": transferID, "eventId": eventID, "settledAt": at}
	if failureCode != "" {
		set["failureCode"] = failureCode
	}
	if failureMessage != "" {
		set["failureMessage"] = failureMessage
	}
	res, err := r.db.Collection(TransfersCollection).UpdateOne(ctx, bson.M{"_id": payoutID, "status": domain.TransferPending}, bson.M{"$set": set})
	if err != nil {
		return false, apperr.Wrap(err, apperr.Internal, "could not record the transfer's outcome")
	}
	return res.MatchedCount == 1, nil
}
