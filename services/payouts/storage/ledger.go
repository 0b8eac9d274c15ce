package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/money"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// Ledger is the wallet transactions. Each is recorded once: its source key
// (what caused it) is unique. Its methods run in the caller's transaction.
type Ledger struct{ db *store.DB }

// Insert records t.
func (r *Ledger) Insert(ctx context.Context, t *domain.Transaction) error {
	_, err := r.db.Collection(TxColl).InsertOne(ctx, t)
	return err
}

// HasSource reports whether a transaction of source key is recorded. (Looked
// for first rather than caught as a duplicate: on MongoDB a failed insert
// aborts the whole transaction.)
func (r *Ledger) HasSource(ctx context.Context, key string) (bool, error) {
	err := r.db.Collection(TxColl).FindOne(ctx, bson.M{"sourceKey": key}).Err()
	if store.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// heldFilter is the wallet's earnings still held (part of them at least).
func heldFilter(walletID string) bson.M {
	return bson.M{"walletId": walletID, "type": domain.TxEarning, "status": domain.TxPending, "heldRemaining": bson.M{"$gt": 0}}
}

var oldestFirst = bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}

// OldestHeld is the wallet's oldest earning still held, nil when none is.
func (r *Ledger) OldestHeld(ctx context.Context, walletID string) (*domain.Transaction, error) {
	return store.FindOne[domain.Transaction](ctx, r.db.Collection(TxColl), heldFilter(walletID), options.FindOne().SetSort(oldestFirst))
}

// Held are the wallet's earnings still held, oldest first (ids and what
// they hold).
func (r *Ledger) Held(ctx context.Context, walletID string) ([]domain.Transaction, error) {
	return store.FindAll[domain.Transaction](ctx, r.db.Collection(TxColl), heldFilter(walletID),
		options.Find().SetSort(oldestFirst).SetProjection(bson.M{"_id": 1, "heldRemaining": 1}))
}

// HeldWithRelease are at most limit of the wallet's earnings still held,
// oldest first, with what they hold and when they are released.
func (r *Ledger) HeldWithRelease(ctx context.Context, walletID string, limit int64) ([]domain.Transaction, error) {
	return store.FindAll[domain.Transaction](ctx, r.db.Collection(TxColl), heldFilter(walletID),
		options.Find().SetSort(oldestFirst).SetLimit(limit).SetProjection(bson.M{"_id": 1, "heldRemaining": 1, "releaseAt": 1}))
}

// Take records what the adjustment adjID takes from a held earning at now,
// on the condition that the earning still holds what was read
// (store.ErrConflict otherwise: the transaction runs again).
func (r *Ledger) Take(ctx context.Context, t domain.Take, adjID string, now int64) error {
	res, err := r.db.Collection(TxColl).UpdateOne(ctx, bson.M{"_id": t.EarningID, "status": domain.TxPending, "heldRemaining": t.Held}, bson.M{
		"$inc":  bson.M{"heldRemaining": -t.Amount},
		"$push": bson.M{"heldTaken": domain.HeldTake{AdjustmentID: adjID, Amount: t.Amount, At: now}},
		"$set":  bson.M{"updatedAt": now},
	})
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 { // released or taken meanwhile
		return store.ErrConflict
	}
	return nil
}

// Return gives back to a held earning amount its take takeID took (a won
// dispute's share, docs/adr/0147) at now: recorded on the earning as a take
// of -amount, so held + taken + released still adds up to its amount. It is
// conditional on the earning still pending and holding held (store.ErrConflict
// otherwise: released or taken meanwhile, the transaction runs again).
func (r *Ledger) Return(ctx context.Context, earningID string, held, amount money.Fils, takeID string, now int64) error {
	res, err := r.db.Collection(TxColl).UpdateOne(ctx, bson.M{"_id": earningID, "status": domain.TxPending, "heldRemaining": held}, bson.M{
		"$inc":  bson.M{"heldRemaining": amount},
		"$push": bson.M{"heldTaken": domain.HeldTake{AdjustmentID: takeID, Amount: -amount, At: now}},
		"$set":  bson.M{"updatedAt": now},
	})
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 {
		return store.ErrConflict
	}
	return nil
}

// Due are the ids of at most limit earnings whose hold is over at now,
// oldest release first.
func (r *Ledger) Due(ctx context.Context, now int64, limit int64) ([]string, error) {
	due, err := store.FindAll[domain.Transaction](ctx, r.db.Collection(TxColl),
		bson.M{"type": domain.TxEarning, "status": domain.TxPending, "releaseAt": bson.M{"$lte": now}},
		options.Find().SetSort(bson.D{{Key: "releaseAt", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(limit).SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(due))
	for i, d := range due {
		ids[i] = d.ID
	}
	return ids, nil
}

// MarkReleased marks the earning released at now if it is due and still
// held (one conditional update: of two releases one wins), and returns it
// as it was before (its HeldRemaining is what to move); nil when it was not
// due or already released.
func (r *Ledger) MarkReleased(ctx context.Context, earningID string, now int64) (*domain.Transaction, error) {
	var e domain.Transaction
	err := r.db.Collection(TxColl).FindOneAndUpdate(ctx,
		bson.M{"_id": earningID, "type": domain.TxEarning, "status": domain.TxPending, "releaseAt": bson.M{"$lte": now}},
		bson.M{"$set": bson.M{"status": domain.TxCompleted, "releasedAt": now, "updatedAt": now}},
		options.FindOneAndUpdate().SetReturnDocument(options.Before)).Decode(&e)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// Unhold lowers what the earning holds by moved (its release).
func (r *Ledger) Unhold(ctx context.Context, earningID string, moved money.Fils) error {
	_, err := r.db.Collection(TxColl).UpdateOne(ctx, bson.M{"_id": earningID}, bson.M{"$inc": bson.M{"heldRemaining": -moved}})
	return err
}

// SettlePayout gives a payout's wallet transaction the status a move leads
// to, if it is a payout transaction still open (pending or completed); false
// when it is not (the ledger and the payout disagree).
func (r *Ledger) SettlePayout(ctx context.Context, txID, status string, now int64) (bool, error) {
	res, err := r.db.Collection(TxColl).UpdateOne(ctx,
		bson.M{"_id": txID, "type": domain.TxPayout, "status": bson.M{"$in": bson.A{domain.TxPending, domain.TxCompleted}}},
		bson.M{"$set": bson.M{"status": status, "updatedAt": now}})
	if err != nil {
		return false, err
	}
	return res.MatchedCount == 1, nil
}

// Page pages the store's transactions, newest first.
func (r *Ledger) Page(ctx context.Context, storeID string, o page.Opts) (page.Result[domain.Transaction], error) {
	return page.Find(ctx, r.db.Collection(TxColl), bson.M{"storeId": storeID}, page.Sort{Field: "creationTime", Desc: true}, o,
		func(t *domain.Transaction) (any, string) { return t.CreatedAt, t.ID })
}

// OfWallet is every transaction of the wallet, with what reconciling it
// reads.
func (r *Ledger) OfWallet(ctx context.Context, walletID string) ([]domain.Transaction, error) {
	return store.FindAll[domain.Transaction](ctx, r.db.Collection(TxColl), bson.M{"walletId": walletID},
		options.Find().SetProjection(bson.M{"type": 1, "status": 1, "amount": 1, "metadata": 1, "heldRemaining": 1, "heldTaken": 1, "reversedBeforeCredit": 1}))
}

// Adjustments are the journal of move_pending_to_available adjustments
// (which record no wallet transaction).
type Adjustments struct{ db *store.DB }

// Insert records a.
func (r *Adjustments) Insert(ctx context.Context, a *domain.Adjustment) error {
	_, err := r.db.Collection(AdjustmentsColl).InsertOne(ctx, a)
	return err
}

// MovesOf are the wallet's move_pending_to_available entries.
func (r *Adjustments) MovesOf(ctx context.Context, walletID string, kind string) ([]domain.Adjustment, error) {
	return store.FindAll[domain.Adjustment](ctx, r.db.Collection(AdjustmentsColl), bson.M{"walletId": walletID, "adjustmentType": kind})
}

// BySource is the transaction of source key, nil when none.
func (r *Ledger) BySource(ctx context.Context, key string) (*domain.Transaction, error) {
	return store.FindOne[domain.Transaction](ctx, r.db.Collection(TxColl), bson.M{"sourceKey": key})
}

// Get is the transaction id, nil when none.
func (r *Ledger) Get(ctx context.Context, id string) (*domain.Transaction, error) {
	return store.FindOne[domain.Transaction](ctx, r.db.Collection(TxColl), bson.M{"_id": id})
}
