package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/catalog/domain"
)

// Settings is the repository of the search settings' copy.
type Settings struct{ db *store.DB }

// NewSettings is the repository on db.
func NewSettings(db *store.DB) *Settings { return &Settings{db: db} }

// Apply stores s if it supersedes the copy kept (domain's rule). It reads
// then writes: it runs in ctx's transaction (the consumer's).
func (r *Settings) Apply(ctx context.Context, s domain.SearchSettings) error {
	coll := r.db.Collection(settingsColl)
	kept, err := store.FindOne[domain.SearchSettings](ctx, coll, bson.M{"_id": s.ConfigID})
	if err != nil {
		return err
	}
	if !s.Supersedes(kept) {
		return nil
	}
	_, err = coll.ReplaceOne(ctx, bson.M{"_id": s.ConfigID}, s, options.Replace().SetUpsert(true))
	return err
}

// InForce is the candidate for the configuration in force at now (millis):
// the most recent active one effective by then (none: empty), for
// domain.InForce to decide.
func (r *Settings) InForce(ctx context.Context, now int64) ([]domain.SearchSettings, error) {
	return store.FindAll[domain.SearchSettings](ctx, r.db.Collection(settingsColl),
		bson.M{"isActive": true, "effectiveDate": bson.M{"$lte": now}},
		options.Find().SetSort(bson.D{{Key: "effectiveDate", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(1))
}
