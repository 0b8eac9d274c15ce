package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// AccountsColl are the stores' saved payout bank accounts, one per wallet.
const AccountsColl = "payoutAccounts"

// Accounts is the saved payout bank accounts. Its methods run in the
// caller's transaction.
type Accounts struct{ db *store.DB }

// Get is the wallet's saved account, nil when none.
func (r *Accounts) Get(ctx context.Context, walletID string) (*domain.BankAccount, error) {
	return store.FindOne[domain.BankAccount](ctx, r.db.Collection(AccountsColl), bson.M{"_id": walletID})
}

// Save replaces the wallet's saved account with a.
func (r *Accounts) Save(ctx context.Context, a *domain.BankAccount) error {
	_, err := r.db.Collection(AccountsColl).ReplaceOne(ctx, bson.M{"_id": a.ID}, a, options.Replace().SetUpsert(true))
	return err
}
