package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/addresses/domain"
)

// Places is the repository of the projection of the catalog's cities and
// areas.
type Places struct{ db *store.DB }

// NewPlaces is the repository on db.
func NewPlaces(db *store.DB) *Places { return &Places{db: db} }

// Apply stores each place that supersedes the one kept (domain.Place's
// rule). It reads then writes: it must run in a transaction (ctx's).
func (r *Places) Apply(ctx context.Context, ps ...domain.Place) error {
	c := r.db.Collection(placesColl)
	for _, p := range ps {
		kept, err := store.FindOne[domain.Place](ctx, c, bson.M{"_id": p.ID})
		if err != nil {
			return err
		}
		if !p.Supersedes(kept) {
			continue
		}
		if _, err := c.ReplaceOne(ctx, bson.M{"_id": p.ID}, p, options.Replace().SetUpsert(true)); err != nil {
			return err
		}
	}
	return nil
}

// ByID reads the places kept among ids, by id.
func (r *Places) ByID(ctx context.Context, ids []string) (map[string]domain.Place, error) {
	ps, err := store.FindAll[domain.Place](ctx, r.db.Collection(placesColl), bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, err
	}
	out := make(map[string]domain.Place, len(ps))
	for _, p := range ps {
		out[p.ID] = p
	}
	return out, nil
}
