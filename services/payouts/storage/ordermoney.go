package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// Orders are the orders' money states (domain.OrderMoney): what refunds and
// disputes moved on each order. Its methods run in the caller's transaction.
type Orders struct{ db *store.DB }

// Get is the order's money state, nil when nothing was recorded of it.
func (r *Orders) Get(ctx context.Context, orderID string) (*domain.OrderMoney, error) {
	return store.FindOne[domain.OrderMoney](ctx, r.db.Collection(OrdersColl), bson.M{"_id": orderID})
}

// Save records o on the condition that it is still at the version it was
// read at (o.Version; 0: new), and moves it to the next version; a
// concurrent save makes it store.ErrConflict (the transaction runs again).
func (r *Orders) Save(ctx context.Context, o *domain.OrderMoney) error {
	read := o.Version
	o.Version++
	if read == 0 {
		_, err := r.db.Collection(OrdersColl).InsertOne(ctx, o)
		if store.IsDuplicate(err) {
			return store.ErrConflict
		}
		return err
	}
	res, err := r.db.Collection(OrdersColl).ReplaceOne(ctx, bson.M{"_id": o.ID, "version": read}, o)
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 {
		return store.ErrConflict
	}
	return nil
}

// Statement is the wallets' statement journal: one entry per change of a
// wallet's balances (domain.StatementEntry), written in the change's
// transaction. Its methods run in the caller's transaction.
type Statement struct{ db *store.DB }

// Insert records the entries.
func (r *Statement) Insert(ctx context.Context, es []domain.StatementEntry) error {
	for i := range es {
		if _, err := r.db.Collection(StatementColl).InsertOne(ctx, &es[i]); err != nil {
			return err
		}
	}
	return nil
}

// Before is the wallet's last entry before from (epoch ms), nil when none.
func (r *Statement) Before(ctx context.Context, walletID string, from int64) (*domain.StatementEntry, error) {
	return store.FindOne[domain.StatementEntry](ctx, r.db.Collection(StatementColl), bson.M{"walletId": walletID, "at": bson.M{"$lt": from}},
		options.FindOne().SetSort(bson.D{{Key: "at", Value: -1}, {Key: "seq", Value: -1}}))
}

// Between are at most limit of the wallet's entries from from to to
// (inclusive, epoch ms), in the order of the changes.
func (r *Statement) Between(ctx context.Context, walletID string, from, to int64, limit int64) ([]domain.StatementEntry, error) {
	return store.FindAll[domain.StatementEntry](ctx, r.db.Collection(StatementColl), bson.M{"walletId": walletID, "at": bson.M{"$gte": from, "$lte": to}},
		options.Find().SetSort(bson.D{{Key: "seq", Value: 1}}).SetLimit(limit))
}

// Last is the wallet's last entry, nil when none.
func (r *Statement) Last(ctx context.Context, walletID string) (*domain.StatementEntry, error) {
	return store.FindOne[domain.StatementEntry](ctx, r.db.Collection(StatementColl), bson.M{"walletId": walletID},
		options.FindOne().SetSort(bson.D{{Key: "seq", Value: -1}}))
}

// PlatformFees are the dispute fees the platform bore (a lost dispute's fee
// under disputeFeeChargedTo platform), one per dispute, for the platform's
// reconciliation to sum.
type PlatformFees struct{ db *store.DB }

// Insert records f unless its dispute's fee is recorded already.
func (r *PlatformFees) Insert(ctx context.Context, f *domain.PlatformFee) error {
	if err := r.db.Collection(PlatformFeesColl).FindOne(ctx, bson.M{"_id": f.ID}).Err(); err == nil {
		return nil
	} else if !store.IsNotFound(err) {
		return err
	}
	_, err := r.db.Collection(PlatformFeesColl).InsertOne(ctx, f)
	return err
}

// All are every fee the platform bore.
func (r *PlatformFees) All(ctx context.Context) ([]domain.PlatformFee, error) {
	return store.FindAll[domain.PlatformFee](ctx, r.db.Collection(PlatformFeesColl), bson.M{})
}
