package storage

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/money"
	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// Wallets are the stores' wallets.
type Wallets struct{ db *store.DB }

// Get is the wallet id, nil when it is not open.
func (r *Wallets) Get(ctx context.Context, id string) (*domain.Wallet, error) {
	return store.FindOne[domain.Wallet](ctx, r.db.Collection(WalletsColl), bson.M{"_id": id})
}

// GetMany reads the wallets ids in one find, by id.
func (r *Wallets) GetMany(ctx context.Context, ids []string) (map[string]*domain.Wallet, error) {
	out := map[string]*domain.Wallet{}
	if len(ids) == 0 {
		return out, nil
	}
	ws, err := store.FindAll[domain.Wallet](store.Scan(ctx, "payouts: once at startup, the wallets older than the statement journal"), r.db.Collection(WalletsColl), bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, err
	}
	for i := range ws {
		out[ws[i].ID] = &ws[i]
	}
	return out, nil
}

// Open opens the store's wallet at now with zero balances unless it is open,
// and records what info tells of the store. Opening is idempotent (the id is
// the store's, and a unique index holds one wallet per store), so the
// store.created event, its redeliveries and an earning that arrives first
// all end with one wallet. Info with a version is what the catalog answered
// when a store event arrived, and replaces the wallet's copy whenever its
// version differs from the one the wallet holds (storeVersion): not only
// when newer, so a copy pinned by a forged event of an earlier version of
// this service (a version the catalog never had) is put right by the
// store's next event; a redelivered store.created finds the catalog's
// current store and undoes nothing. Info without a version only fills in a
// wallet it opens. It runs in the caller's transaction.
func (r *Wallets) Open(ctx context.Context, info domain.StoreInfo, now int64) error {
	id := domain.WalletIDOf(info.ID)
	if id == "" {
		return fmt.Errorf("payouts: %q is not a store id", info.ID)
	}
	onInsert := bson.M{
		"storeId": info.ID, "availableBalance": money.Fils(0), "pendingBalance": money.Fils(0), "totalEarnings": money.Fils(0),
		"totalPayouts": money.Fils(0), "lastPayoutDate": nil, "totalOrders": int64(0), "creationTime": now, "updatedAt": now,
	}
	set := bson.M{}
	for k, v := range map[string]string{"storeName": info.Name, "ownerUserId": info.OwnerUserID, "ownerName": info.OwnerName, "ownerPhone": info.OwnerPhone} {
		if v != "" {
			set[k] = v
		}
	}
	if info.Version == 0 {
		for k, v := range set {
			onInsert[k] = v
		}
	}
	wallets := r.db.Collection(WalletsColl)
	if _, err := wallets.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$setOnInsert": onInsert}, options.Update().SetUpsert(true)); err != nil {
		return err
	}
	if info.Version == 0 {
		return nil
	}
	set["storeVersion"] = info.Version
	_, err := wallets.UpdateOne(ctx, bson.M{"_id": id, "$or": bson.A{
		bson.M{"storeVersion": bson.M{"$ne": info.Version}}, bson.M{"storeVersion": bson.M{"$exists": false}},
	}}, bson.M{"$set": set})
	return err
}

// walletCAS are the fields a wallet's save compares with what it read.
var walletCAS = []string{"availableBalance", "pendingBalance", "disputedBalance", "moveSeq", "journaled", "journaledAt", "totalEarnings", "totalPayouts", "totalOrders", "lastPayoutDate", "updatedAt"}

// Update loads the wallet id (domain.ErrNoWallet when it is not open), runs
// fn on it and saves what fn changed, on the condition that the fields it
// changes are still as read (a concurrent change makes the transaction run
// again, fn on a fresh load: fn must change only the wallet it is handed).
// The balances' rules (no overdraft) are the domain's (Wallet.Change); the
// condition keeps them true under any interleaving. It returns the wallet
// as saved.
func (r *Wallets) Update(ctx context.Context, id string, fn func(*domain.Wallet) error) (*domain.Wallet, error) {
	var out *domain.Wallet
	err := tx(ctx, r.db, "the wallet", func(ctx context.Context) error {
		w := &domain.Wallet{}
		stored, err := loadRaw(ctx, r.db, WalletsColl, id, w)
		if err != nil {
			return err
		}
		if stored == nil {
			return domain.ErrNoWallet
		}
		before := *w
		if err := fn(w); err != nil {
			return err
		}
		filter, update, err := casUpdate(id, stored, &before, w, walletCAS...)
		if err != nil {
			return err
		}
		if update != nil {
			res, err := r.db.Collection(WalletsColl).UpdateOne(ctx, filter, update)
			if err != nil {
				return err
			}
			if res.MatchedCount != 1 {
				return store.ErrConflict
			}
		}
		out = w
		return nil
	})
	return out, err
}

// Unjournaled are the ids of the wallets with no statement entry yet
// (moveSeq absent or 0), opened before the statement journal.
func (r *Wallets) Unjournaled(ctx context.Context) ([]string, error) {
	ws, err := store.FindAll[domain.Wallet](store.Scan(ctx, "payouts: once at startup, the wallets older than the statement journal"), r.db.Collection(WalletsColl),
		bson.M{"$or": bson.A{bson.M{"moveSeq": bson.M{"$exists": false}}, bson.M{"moveSeq": 0}}}, options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out, nil
}
