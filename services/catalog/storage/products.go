package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/catalog/domain"
)

// Products is the repository of products.
type Products struct{ db *store.DB }

// NewProducts is the repository on db.
func NewProducts(db *store.DB) *Products { return &Products{db: db} }

// Create adds the product fn makes, in one transaction: fn is handed how
// many products the store keeps (counted after the store's guard is
// written, so concurrent creations count one after the other) and decides
// (domain.NewProduct refuses past the cap); nothing is written when it
// refuses.
func (r *Products) Create(ctx context.Context, storeID string, fn func(count int64) (domain.Product, error)) (domain.Product, error) {
	var p domain.Product
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		if _, err := r.db.Collection(productGuards).UpdateOne(ctx, bson.M{"_id": storeID}, bson.M{"$inc": bson.M{"adds": 1}},
			options.Update().SetUpsert(true)); err != nil {
			return err
		}
		n, err := r.db.Collection(productsColl).CountDocuments(ctx, bson.M{"storeId": storeID})
		if err != nil {
			return err
		}
		if p, err = fn(n); err != nil {
			return err
		}
		return insert(ctx, r.db, productsColl, p, "product")
	})
	return p, err
}

// Get loads a product; NOT_FOUND when missing.
func (r *Products) Get(ctx context.Context, id string) (*domain.Product, error) {
	return mustFind[domain.Product](ctx, r.db, productsColl, id, "product")
}

// Update changes a product of the store in a transaction and answers it as
// saved; NOT_FOUND when the store has no such product.
func (r *Products) Update(ctx context.Context, id, storeID string, fn func(*domain.Product) error) (*domain.Product, error) {
	var out *domain.Product
	err := r.db.Tx(ctx, func(ctx context.Context) error {
		p, err := store.FindOne[domain.Product](ctx, r.db.Collection(productsColl), bson.M{"_id": id, "storeId": storeID})
		if err != nil {
			return err
		}
		if p == nil {
			return domain.NotFound("product", id)
		}
		before := *p
		if err := fn(p); err != nil {
			return err
		}
		u, err := store.Changes(&before, p)
		if err != nil {
			return err
		}
		if u != nil {
			if _, err := r.db.Collection(productsColl).UpdateOne(ctx, bson.M{"_id": id}, u); err != nil {
				return err
			}
		}
		out = p
		return nil
	})
	return out, err
}

// OfStore are the store's first products in the order they were added, at
// most limit.
func (r *Products) OfStore(ctx context.Context, storeID string, limit int64) ([]domain.Product, error) {
	return store.FindAll[domain.Product](ctx, r.db.Collection(productsColl), bson.M{"storeId": storeID},
		options.Find().SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(limit))
}

// ListOfStore is a page of the store's products as l lists them: a range of
// store_by_creation or store_by_price, the availability checked on its
// records and the search (a part of the name in any case, which the
// database cannot index) by page.FindWhere; a store keeps at most
// MaxProductsPerStore products, so no page reads more.
func (r *Products) ListOfStore(ctx context.Context, storeID string, l domain.ProductList, o page.Opts) (page.Result[domain.Product], error) {
	filter := bson.M{"storeId": storeID}
	if l.Available != nil {
		filter["isAvailable"] = *l.Available
	}
	srt := domain.ProductSorts[l.Sort]
	sortName := l.Sort // a cursor is of its sort, availability and search (docs/adr/0172)
	if sortName == "added" {
		sortName = "" // the default
	}
	s := page.Sort{Field: srt.Field, Desc: srt.Desc, Query: []any{sortName, l.Available, l.Search}}
	key := func(p *domain.Product) (any, string) { return p.CreationTime, p.ID }
	if srt.Field == "price" {
		key = func(p *domain.Product) (any, string) { return int64(p.Price), p.ID }
	}
	if l.Search == "" {
		return page.Find(ctx, r.db.Collection(productsColl), filter, s, o, key)
	}
	return page.FindWhere(ctx, r.db.Collection(productsColl), filter, s, o, key, l.Matches, domain.MaxProductsPerStore)
}

// ByID loads products by id (those that exist).
func (r *Products) ByID(ctx context.Context, ids []string) ([]domain.Product, error) {
	return byIDs[domain.Product](ctx, r.db, productsColl, ids)
}
