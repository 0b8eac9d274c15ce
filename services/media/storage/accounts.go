package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/media/domain"
)

// Accounts is the repository of established accounts.
type Accounts struct{ db *store.DB }

func NewAccounts(db *store.DB) *Accounts { return &Accounts{db: db} }

// Establish records a as established, once: the first record stays (an
// account once established stays so; redeliveries change nothing).
func (r *Accounts) Establish(ctx context.Context, a domain.EstablishedAccount) error {
	_, err := r.db.Collection(establishedColl).UpdateOne(ctx, bson.M{"_id": a.UserID},
		bson.M{"$setOnInsert": a}, options.Update().SetUpsert(true))
	return err
}

// Established says whether userID's account is established.
func (r *Accounts) Established(ctx context.Context, userID string) (bool, error) {
	err := r.db.Collection(establishedColl).FindOne(ctx, bson.M{"_id": userID}).Err()
	switch {
	case err == nil:
		return true, nil
	case store.IsNotFound(err):
		return false, nil
	}
	return false, err
}
