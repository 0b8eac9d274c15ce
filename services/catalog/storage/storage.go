// Package storage holds the catalog's repositories: the only code that
// knows its collections, filters, updates and indexes.
package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
	"marketplace/services/catalog/domain"
)

const (
	citiesColl     = "cities"
	areasColl      = "areas"
	categoriesColl = "categories"
	storesColl     = "stores"
	productsColl   = "products"
	settingsColl   = "searchSettings"
	// productGuards holds one document per store ({_id: store id, adds})
	// that every product creation of the store writes before it counts:
	// concurrent creations then conflict and run again one after the other
	// (count, then insert, in one transaction is write skew otherwise: each
	// would count the same products and insert its own, and together they
	// would pass the cap).
	productGuards = "productGuards"
)

// Indexes are the indexes the repositories' queries and guards need.
func Indexes() []store.Index {
	return []store.Index{
		{Collection: citiesColl, Keys: bson.D{{Key: "nameKey", Value: 1}}, Unique: true, Name: "name_unique"},
		{Collection: areasColl, Keys: bson.D{{Key: "city", Value: 1}, {Key: "nameKey", Value: 1}}, Unique: true, Name: "city_name_unique"},
		{Collection: categoriesColl, Keys: bson.D{{Key: "nameKey", Value: 1}}, Unique: true, Name: "name_unique"},
		{Collection: storesColl, Keys: bson.D{{Key: "ownerUserId", Value: 1}}, Name: "owner"},
		// listMyStores: an owner's stores by name (then id).
		{Collection: storesColl, Keys: bson.D{{Key: "ownerUserId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "owner_by_name"},
		// searchNearby's bounding box (domain/geo.go).
		{Collection: storesColl, Keys: bson.D{{Key: "isOpen", Value: 1}, {Key: "latitude", Value: 1}, {Key: "longitude", Value: 1}}, Name: "open_by_position"},
		// listStores: each filter it takes, in its order (name, then id).
		{Collection: storesColl, Keys: bson.D{{Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_name"},
		{Collection: storesColl, Keys: bson.D{{Key: "primaryCategoryId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "category_by_name"},
		{Collection: storesColl, Keys: bson.D{{Key: "city", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "city_by_name"},
		{Collection: storesColl, Keys: bson.D{{Key: "city", Value: 1}, {Key: "primaryCategoryId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "city_category_by_name"},
		{Collection: storesColl, Keys: bson.D{{Key: "area", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "area_by_name"},
		{Collection: storesColl, Keys: bson.D{{Key: "area", Value: 1}, {Key: "primaryCategoryId", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "area_category_by_name"},
		// A store's products in the order they were added (ids are random).
		{Collection: productsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "store_by_creation"},
		// listProductsPaginated by price (either direction).
		{Collection: productsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "price", Value: 1}, {Key: "_id", Value: 1}}, Name: "store_by_price"},
		{Collection: settingsColl, Keys: bson.D{{Key: "isActive", Value: 1}, {Key: "effectiveDate", Value: -1}, {Key: "_id", Value: -1}}, Name: "in_force"},
	}
}

// insert inserts doc; a duplicate name is ALREADY_EXISTS naming what.
func insert(ctx context.Context, db *store.DB, coll string, doc any, what string) error {
	if _, err := db.Collection(coll).InsertOne(ctx, doc); err != nil {
		if store.IsDuplicate(err) {
			return apperr.New(apperr.AlreadyExists, "%s already exists", what)
		}
		return err
	}
	return nil
}

// find loads one record; nil when it does not exist.
func find[T any](ctx context.Context, db *store.DB, coll, id string) (*T, error) {
	return store.FindOne[T](ctx, db.Collection(coll), bson.M{"_id": id})
}

// mustFind loads one record or answers NOT_FOUND naming it (what).
func mustFind[T any](ctx context.Context, db *store.DB, coll, id, what string) (*T, error) {
	v, err := find[T](ctx, db, coll, id)
	if err == nil && v == nil {
		err = domain.NotFound(what, id)
	}
	return v, err
}

func findAll[T any](ctx context.Context, db *store.DB, coll string, filter bson.M, sort bson.D) ([]T, error) {
	return store.FindAll[T](ctx, db.Collection(coll), filter, options.Find().SetSort(sort))
}

// byIDs loads the records of ids.
func byIDs[T any](ctx context.Context, db *store.DB, coll string, ids []string) ([]T, error) {
	return findAll[T](ctx, db, coll, bson.M{"_id": bson.M{"$in": ids}}, bson.D{{Key: "_id", Value: 1}})
}

// update loads a record, runs fn on it and saves what fn changed, in ctx's
// transaction (the caller's: it commits the record with its event).
// NOT_FOUND (what) when missing; a duplicate name is ALREADY_EXISTS
// ("another <what> has that name").
func update[T any](ctx context.Context, db *store.DB, coll, id, what string, fn func(*T) error) (*T, error) {
	v, err := mustFind[T](ctx, db, coll, id, what)
	if err != nil {
		return nil, err
	}
	before := *v
	if err := fn(v); err != nil {
		return nil, err
	}
	u, err := store.Changes(&before, v)
	if err != nil || u == nil {
		return v, err
	}
	_, err = db.Collection(coll).UpdateOne(ctx, bson.M{"_id": id}, u)
	if store.IsDuplicate(err) {
		return nil, apperr.New(apperr.AlreadyExists, "another %s has that name", what)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}
