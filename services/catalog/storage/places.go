package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
	"marketplace/services/catalog/domain"
)

// Places is the repository of the reference data: cities, areas and
// categories.
type Places struct{ db *store.DB }

// NewPlaces is the repository on db.
func NewPlaces(db *store.DB) *Places { return &Places{db: db} }

// InsertCity inserts a city; ALREADY_EXISTS when its name is taken.
func (r *Places) InsertCity(ctx context.Context, c domain.City) error {
	return insert(ctx, r.db, citiesColl, c, "a city named "+c.Name)
}

// InsertArea inserts an area; ALREADY_EXISTS when its city has that name.
func (r *Places) InsertArea(ctx context.Context, a domain.Area) error {
	return insert(ctx, r.db, areasColl, a, "an area named "+a.Name+" in this city")
}

// InsertCategory inserts a category; ALREADY_EXISTS when its name is taken.
func (r *Places) InsertCategory(ctx context.Context, c domain.Category) error {
	return insert(ctx, r.db, categoriesColl, c, "a category named "+c.Name)
}

// UpdateCity changes a city in ctx's transaction and answers it as saved.
func (r *Places) UpdateCity(ctx context.Context, id string, fn func(*domain.City) error) (*domain.City, error) {
	return update(ctx, r.db, citiesColl, id, "city", fn)
}

// UpdateArea changes an area in ctx's transaction and answers it as saved.
func (r *Places) UpdateArea(ctx context.Context, id string, fn func(*domain.Area) error) (*domain.Area, error) {
	return update(ctx, r.db, areasColl, id, "area", fn)
}

// City loads a city; NOT_FOUND when missing.
func (r *Places) City(ctx context.Context, id string) (*domain.City, error) {
	return mustFind[domain.City](ctx, r.db, citiesColl, id, "city")
}

// Area loads an area; NOT_FOUND when missing.
func (r *Places) Area(ctx context.Context, id string) (*domain.Area, error) {
	return mustFind[domain.Area](ctx, r.db, areasColl, id, "area")
}

// Category loads a category; NOT_FOUND when missing.
func (r *Places) Category(ctx context.Context, id string) (*domain.Category, error) {
	return mustFind[domain.Category](ctx, r.db, categoriesColl, id, "category")
}

// Cities are all the cities by name.
func (r *Places) Cities(ctx context.Context) ([]domain.City, error) {
	return findAll[domain.City](store.Scan(ctx, "the cities: a short list kept by administrators, read whole"), r.db, citiesColl, bson.M{}, bson.D{{Key: "nameKey", Value: 1}})
}

// Areas are a city's areas by name.
func (r *Places) Areas(ctx context.Context, city string) ([]domain.Area, error) {
	return findAll[domain.Area](ctx, r.db, areasColl, bson.M{"city": city}, bson.D{{Key: "nameKey", Value: 1}})
}

// Categories are all the categories by name.
func (r *Places) Categories(ctx context.Context) ([]domain.Category, error) {
	return findAll[domain.Category](store.Scan(ctx, "the categories: a short list kept by administrators, read whole"), r.db, categoriesColl, bson.M{}, bson.D{{Key: "nameKey", Value: 1}})
}

// CitiesByID, AreasByID and CategoriesByID load records by id (those that exist).
func (r *Places) CitiesByID(ctx context.Context, ids []string) ([]domain.City, error) {
	return byIDs[domain.City](ctx, r.db, citiesColl, ids)
}

func (r *Places) AreasByID(ctx context.Context, ids []string) ([]domain.Area, error) {
	return byIDs[domain.Area](ctx, r.db, areasColl, ids)
}

func (r *Places) CategoriesByID(ctx context.Context, ids []string) ([]domain.Category, error) {
	return byIDs[domain.Category](ctx, r.db, categoriesColl, ids)
}

// EnsureCategory finds the category named as c (by name key) or inserts c;
// concurrent callers agree on one record per name because the name key is
// unique.
func (r *Places) EnsureCategory(ctx context.Context, c domain.Category) (string, error) {
	coll := r.db.Collection(categoriesColl)
	var have domain.Category
	err := coll.FindOne(ctx, bson.M{"nameKey": c.NameKey}).Decode(&have)
	if store.IsNotFound(err) {
		have = c
		_, err = coll.InsertOne(ctx, c)
		if store.IsDuplicate(err) {
			err = coll.FindOne(ctx, bson.M{"nameKey": c.NameKey}).Decode(&have)
		}
	}
	return have.ID, err
}
