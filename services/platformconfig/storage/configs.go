// Package storage holds the platform configuration's repositories: the only
// code that knows its collections, filters and indexes.
package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/platformconfig/domain"
)

const (
	configColl  = "platformConfig"
	historyColl = "platformConfigHistory"
)

// Indexes are the service's indexes.
func Indexes() []store.Index {
	return []store.Index{
		// At most one active configuration: createInitialPlatformConfig's rule,
		// held by the database even under concurrent calls.
		{Collection: configColl, Keys: bson.D{{Key: "isActive", Value: 1}}, Unique: true, Partial: bson.M{"isActive": true}, Name: "one_active"},
		{Collection: configColl, Keys: bson.D{{Key: "effectiveDate", Value: -1}}, Name: "effective"},
		// History serves getConfigHistory (one configuration's entries by seq)
		// and holds the numbering: one entry per change number of a configuration.
		{Collection: historyColl, Keys: bson.D{{Key: "configId", Value: 1}, {Key: "seq", Value: -1}}, Unique: true, Name: "history_by_config"},
		// The pages (libs/page breaks ties by _id, which MongoDB cannot know
		// never happen here).
		{Collection: historyColl, Keys: bson.D{{Key: "configId", Value: 1}, {Key: "seq", Value: -1}, {Key: "_id", Value: -1}}, Name: "history_pages"},
		// A period of a configuration's history (getConfigHistory's from/to):
		// one range by the time of the change, in either direction.
		{Collection: historyColl, Keys: bson.D{{Key: "configId", Value: 1}, {Key: "changedAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "history_by_time"},
	}
}

// Configs is the repository of platform configurations.
type Configs struct{ db *store.DB }

func NewConfigs(db *store.DB) *Configs { return &Configs{db: db} }

// Insert stores a new configuration. A second active one is refused by the
// one_active index: a duplicate error (store.IsDuplicate), possibly only at
// the commit of the enclosing transaction.
func (r *Configs) Insert(ctx context.Context, c *domain.Config) error {
	_, err := r.db.Collection(configColl).InsertOne(ctx, c)
	return err
}

// Active is the configuration in force at now (millis), or nil: the same
// choice as domain.Latest, made by the database.
func (r *Configs) Active(ctx context.Context, now int64) (*domain.Config, error) {
	return store.FindOne[domain.Config](ctx, r.db.Collection(configColl),
		bson.M{"isActive": true, "effectiveDate": bson.M{"$lte": now}},
		options.FindOne().SetSort(bson.D{{Key: "effectiveDate", Value: -1}, {Key: "_id", Value: -1}}))
}

// Exists returns domain.NotFound when id names no configuration.
func (r *Configs) Exists(ctx context.Context, id string) error {
	err := r.db.Collection(configColl).FindOne(ctx, bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if store.IsNotFound(err) {
		return domain.NotFound(id)
	}
	return err
}

// Update loads configuration id inside a transaction (it joins the enclosing
// one inside DB.Joined), runs fn on it and saves the fields fn changed. On a
// write conflict fn runs again on a fresh load. domain.NotFound when id names
// none.
func (r *Configs) Update(ctx context.Context, id string, fn func(*domain.Config) error) error {
	return r.db.Tx(ctx, func(ctx context.Context) error {
		c, err := store.FindOne[domain.Config](ctx, r.db.Collection(configColl), bson.M{"_id": id})
		if err != nil {
			return err
		}
		if c == nil {
			return domain.NotFound(id)
		}
		before := c.Clone()
		if err := fn(c); err != nil {
			return err
		}
		update, err := store.Changes(before, *c)
		if err != nil || update == nil {
			return err
		}
		_, err = r.db.Collection(configColl).UpdateOne(ctx, bson.M{"_id": id}, update)
		return err
	})
}
