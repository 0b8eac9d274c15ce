package storage

import (
	"context"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/catalog/domain"
)

// Stores is the repository of stores.
type Stores struct{ db *store.DB }

// NewStores is the repository on db.
func NewStores(db *store.DB) *Stores { return &Stores{db: db} }

// Find loads a store; nil when it does not exist.
func (r *Stores) Find(ctx context.Context, id string) (*domain.Store, error) {
	return find[domain.Store](ctx, r.db, storesColl, id)
}

// Get loads a store; NOT_FOUND when missing.
func (r *Stores) Get(ctx context.Context, id string) (*domain.Store, error) {
	return mustFind[domain.Store](ctx, r.db, storesColl, id, "store")
}

// Insert inserts a new store.
func (r *Stores) Insert(ctx context.Context, st domain.Store) error {
	_, err := r.db.Collection(storesColl).InsertOne(ctx, st)
	return err
}

// Replace writes st over the store as it was read (before), only if its
// version is still before's: store.ErrConflict when a concurrent change
// came first.
func (r *Stores) Replace(ctx context.Context, before, st *domain.Store) error {
	filter := bson.M{"_id": st.ID, "version": before.Version}
	if before.Version == 0 {
		filter["version"] = bson.M{"$exists": false}
	}
	res, err := r.db.Collection(storesColl).ReplaceOne(ctx, filter, st)
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 {
		return store.ErrConflict
	}
	return nil
}

// StoreFilter selects stores by primary category, city and area, and by a
// prefix of their name key (each "" for any).
type StoreFilter struct{ Category, City, Area, NamePrefix string }

// PageByName pages the stores f selects by name, then id.
func (r *Stores) PageByName(ctx context.Context, f StoreFilter, o page.Opts) (page.Result[domain.Store], error) {
	filter := bson.M{}
	if f.Category != "" {
		filter["primaryCategoryId"] = f.Category
	}
	if f.City != "" {
		filter["city"] = f.City
	}
	if f.Area != "" {
		filter["area"] = f.Area
	}
	if f.NamePrefix != "" {
		// The name keys that start with the prefix: a range of the sort key
		// itself, so every by-name index serves it.
		filter["nameKey"] = bson.M{"$gte": f.NamePrefix, "$lt": f.NamePrefix + string(utf8.MaxRune)}
	}
	return r.page(ctx, filter, o)
}

// PageOfOwner pages an owner's stores by name, then id.
func (r *Stores) PageOfOwner(ctx context.Context, owner string, o page.Opts) (page.Result[domain.Store], error) {
	return r.page(ctx, bson.M{"ownerUserId": owner}, o)
}

func (r *Stores) page(ctx context.Context, filter bson.M, o page.Opts) (page.Result[domain.Store], error) {
	return page.Find(ctx, r.db.Collection(storesColl), filter, page.Sort{Field: "nameKey"}, o,
		func(st *domain.Store) (any, string) { return st.NameKey, st.ID })
}

// OpenIn are the open stores positioned inside the box (the candidates of a
// search by distance).
func (r *Stores) OpenIn(ctx context.Context, b domain.Box) ([]domain.Store, error) {
	filter := bson.M{"isOpen": true, "latitude": bson.M{"$gte": b.Lat.Min, "$lte": b.Lat.Max}}
	if len(b.Lng) == 1 {
		filter["longitude"] = bson.M{"$gte": b.Lng[0].Min, "$lte": b.Lng[0].Max}
	} else {
		sides := bson.A{}
		for _, sp := range b.Lng {
			sides = append(sides, bson.M{"longitude": bson.M{"$gte": sp.Min, "$lte": sp.Max}})
		}
		filter["$or"] = sides
	}
	return store.FindAll[domain.Store](ctx, r.db.Collection(storesColl), filter)
}

// Contacts loads the stores of ids with their name, owner and version only.
func (r *Stores) Contacts(ctx context.Context, ids []string) ([]domain.Store, error) {
	return store.FindAll[domain.Store](ctx, r.db.Collection(storesColl), bson.M{"_id": bson.M{"$in": ids}}, options.Find().SetProjection(bson.M{
		"name": 1, "ownerUserId": 1, "ownerName": 1, "ownerPhone": 1, "version": 1,
	}))
}

// BackfillNameKeys gives the stores created before listStores existed the
// name key it sorts by.
func (r *Stores) BackfillNameKeys(ctx context.Context) error {
	stores := r.db.Collection(storesColl)
	legacy, err := store.FindAll[domain.Store](ctx, stores, bson.M{"nameKey": bson.M{"$exists": false}}, options.Find().SetProjection(bson.M{"name": 1}))
	if err != nil {
		return err
	}
	for _, st := range legacy {
		if _, err := stores.UpdateOne(ctx, bson.M{"_id": st.ID, "nameKey": bson.M{"$exists": false}},
			bson.M{"$set": bson.M{"nameKey": domain.NameKey(st.Name)}}); err != nil {
			return err
		}
	}
	return nil
}
