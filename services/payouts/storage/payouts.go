package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// Payouts are the payout requests.
type Payouts struct{ db *store.DB }

// Get is the payout id, nil when there is none.
func (r *Payouts) Get(ctx context.Context, id string) (*domain.Payout, error) {
	return store.FindOne[domain.Payout](ctx, r.db.Collection(PayoutsColl), bson.M{"_id": id})
}

// StoreOf is the store of the payout id ("" when there is no such payout).
func (r *Payouts) StoreOf(ctx context.Context, id string) (string, error) {
	p, err := store.FindOne[domain.Payout](ctx, r.db.Collection(PayoutsColl), bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{"storeId": 1}))
	if p == nil {
		return "", err
	}
	return p.StoreID, nil
}

// StoresOf are the stores of the payouts ids that exist, by payout id.
func (r *Payouts) StoresOf(ctx context.Context, ids []string) (map[string]string, error) {
	ps, err := store.FindAll[domain.Payout](ctx, r.db.Collection(PayoutsColl), bson.M{"_id": bson.M{"$in": ids}},
		options.Find().SetProjection(bson.M{"storeId": 1}))
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ps))
	for _, p := range ps {
		out[p.ID] = p.StoreID
	}
	return out, nil
}

// Insert records a new payout. It runs in the caller's transaction.
func (r *Payouts) Insert(ctx context.Context, p *domain.Payout) error {
	_, err := r.db.Collection(PayoutsColl).InsertOne(ctx, p)
	return err
}

// Update loads the payout id (NOT_FOUND when there is none), runs fn on it
// (a domain move) and saves what fn changed, on the condition that its
// status (and its handover flag, if fn set it) is still as read: of two
// concurrent moves of one payout one wins, the other is refused
// (domain.ChangedMeanwhile). It returns the payout as saved.
func (r *Payouts) Update(ctx context.Context, id string, fn func(*domain.Payout) error) (*domain.Payout, error) {
	var out *domain.Payout
	err := tx(ctx, r.db, "the payout", func(ctx context.Context) error {
		p := &domain.Payout{}
		stored, err := loadRaw(ctx, r.db, PayoutsColl, id, p)
		if err != nil {
			return err
		}
		if stored == nil {
			return domain.PayoutNotFound(id)
		}
		before := *p
		before.History = append([]domain.HistoryEntry(nil), p.History...)
		if err := fn(p); err != nil {
			return err
		}
		filter, update, err := casUpdate(id, stored, &before, p, "handedOverAt")
		if err != nil {
			return err
		}
		if update != nil {
			filter["status"] = before.Status
			if before.TransferAskedAt == nil {
				// A move judged on a payout not sent through the processor
				// must not land on one sent meanwhile (domain/transfer.go).
				filter["transferAskedAt"] = bson.M{"$exists": false}
			}
			res, err := r.db.Collection(PayoutsColl).UpdateOne(ctx, filter, update)
			if err != nil {
				return err
			}
			if res.MatchedCount != 1 {
				return domain.ChangedMeanwhile(id)
			}
		}
		out = p
		return nil
	})
	return out, err
}

var oldestRequestFirst = bson.D{{Key: "requestDate", Value: 1}, {Key: "_id", Value: 1}}

// Open are the open payouts (requested, approved, processing), oldest
// request first, at most limit, of one store when storeID is given, without
// their history.
func (r *Payouts) Open(ctx context.Context, storeID *string, limit int) ([]domain.Payout, error) {
	filter := bson.M{"status": bson.M{"$in": domain.OpenStatuses}}
	if storeID != nil {
		filter["storeId"] = *storeID
	}
	return store.FindAll[domain.Payout](ctx, r.db.Collection(PayoutsColl), filter,
		options.Find().SetSort(oldestRequestFirst).SetLimit(int64(limit)).SetProjection(bson.M{"history": 0}))
}

// OpenIDsOf are the ids of the store's open payouts, oldest request first.
func (r *Payouts) OpenIDsOf(ctx context.Context, storeID string) ([]string, error) {
	ps, err := store.FindAll[domain.Payout](ctx, r.db.Collection(PayoutsColl), bson.M{"storeId": storeID, "status": bson.M{"$in": domain.OpenStatuses}},
		options.Find().SetSort(oldestRequestFirst).SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(ps))
	for i, p := range ps {
		ids[i] = p.ID
	}
	return ids, nil
}

// Page pages the store's payouts, newest first.
func (r *Payouts) Page(ctx context.Context, storeID string, o page.Opts) (page.Result[domain.Payout], error) {
	return page.Find(ctx, r.db.Collection(PayoutsColl), bson.M{"storeId": storeID}, page.Sort{Field: "creationTime", Desc: true}, o,
		func(p *domain.Payout) (any, string) { return p.CreationTime, p.ID })
}

// RequestedIn are the payouts requested within [start, end] that count in
// the statistics (all but cancelled and failed), with what they read.
func (r *Payouts) RequestedIn(ctx context.Context, start, end int64) ([]domain.Payout, error) {
	filter := bson.M{"status": bson.M{"$in": bson.A{domain.StatusRequested, domain.StatusApproved, domain.StatusProcessing, domain.StatusCompleted}},
		"requestDate": bson.M{"$gte": start, "$lte": end}}
	return store.FindAll[domain.Payout](ctx, r.db.Collection(PayoutsColl), filter, options.Find().SetProjection(bson.M{
		"storeId": 1, "storeName": 1, "status": 1, "requestedAmount": 1, "requestDate": 1, "completedDate": 1}))
}

// OfStore are all the store's payouts, with what reconciling its wallet
// reads.
func (r *Payouts) OfStore(ctx context.Context, storeID string) ([]domain.Payout, error) {
	return store.FindAll[domain.Payout](ctx, r.db.Collection(PayoutsColl), bson.M{"storeId": storeID},
		options.Find().SetProjection(bson.M{"requestedAmount": 1, "status": 1, "balanceRestored": 1, "transactionId": 1}))
}
