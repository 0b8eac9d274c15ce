// Package storage holds the addresses service's repositories: the only code
// that knows its collections, filters and indexes.
package storage

import (
	"context"
	"errors"
	"slices"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/addresses/domain"
)

const (
	addressesColl = "customerAddresses"
	countsColl    = "addressCounts"
	placesColl    = "places"
)

// Indexes are the indexes the repositories' queries and guards need.
func Indexes() []store.Index {
	return []store.Index{
		// At most one default per customer, whatever the interleaving of writes.
		{Collection: addressesColl, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "isDefault", Value: 1}}, Unique: true,
			Partial: bson.M{"isDefault": true}, Name: "one_default_per_customer"},
		// A customer's active addresses, default first, newest first (list).
		// (Ids are random: newest is creationTime's, the id breaks ties.)
		{Collection: addressesColl, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "isActive", Value: 1}, {Key: "isDefault", Value: -1},
			{Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "active_default_first_newest"},
	}
}

// Addresses is the repository of customers' addresses and address books.
type Addresses struct{ db *store.DB }

// NewAddresses is the repository on db.
func NewAddresses(db *store.DB) *Addresses { return &Addresses{db: db} }

// Get loads one address; NOT_FOUND when missing.
func (r *Addresses) Get(ctx context.Context, id string) (*domain.Address, error) {
	a, err := store.FindOne[domain.Address](ctx, r.db.Collection(addressesColl), bson.M{"_id": id})
	if err == nil && a == nil {
		return nil, domain.NotFound(id)
	}
	return a, err
}

// ListActive is a customer's active addresses, default first, newest first.
func (r *Addresses) ListActive(ctx context.Context, customer string) ([]domain.Address, error) {
	return store.FindAll[domain.Address](ctx, r.db.Collection(addressesColl), bson.M{"customerId": customer, "isActive": true},
		options.Find().SetSort(bson.D{{Key: "isDefault", Value: -1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}))
}

// UpdateBook loads the customer's address book inside a transaction, runs fn
// on it and saves what fn changed: the addresses added, removed and changed,
// and the count. A write conflict (domain.ErrStale too) runs fn again on a
// fresh load, so fn must only change the book it is handed.
func (r *Addresses) UpdateBook(ctx context.Context, customer string, fn func(*domain.Book) error) error {
	return r.db.Tx(ctx, func(ctx context.Context) error {
		b, err := r.loadBook(ctx, customer)
		if err != nil {
			return err
		}
		before := *b
		before.Addresses = slices.Clone(b.Addresses)
		if err := fn(b); err != nil {
			if errors.Is(err, domain.ErrStale) {
				return store.ErrConflict
			}
			return err
		}
		return r.saveBook(ctx, &before, b)
	})
}

func (r *Addresses) loadBook(ctx context.Context, customer string) (*domain.Book, error) {
	as, err := store.FindAll[domain.Address](ctx, r.db.Collection(addressesColl), bson.M{"customerId": customer})
	if err != nil {
		return nil, err
	}
	b := &domain.Book{CustomerID: customer, Addresses: as}
	var c struct {
		Count int `bson:"count"`
	}
	err = r.db.Collection(countsColl).FindOne(ctx, bson.M{"_id": customer}).Decode(&c)
	if err != nil && !store.IsNotFound(err) {
		return nil, err
	}
	b.Count = c.Count
	return b, nil
}

// saveBook writes the difference between two states of a book. The removed
// addresses first (a delete is let through at the memory limit, and so are
// the writes after it in its transaction), then the count: one more is a
// conditional upsert that misses past the cap (the upsert then collides with
// the count kept), so concurrent creates never pass it. Then the changes that
// clear a default, the rest, and the new addresses: the unique index never
// sees two defaults.
func (r *Addresses) saveBook(ctx context.Context, before, after *domain.Book) error {
	c := r.db.Collection(addressesColl)
	was := map[string]*domain.Address{}
	for i := range before.Addresses {
		was[before.Addresses[i].ID] = &before.Addresses[i]
	}
	kept := map[string]bool{}
	var changed, added []*domain.Address
	for i := range after.Addresses {
		a := &after.Addresses[i]
		kept[a.ID] = true
		if was[a.ID] == nil {
			added = append(added, a)
		} else {
			changed = append(changed, a)
		}
	}
	for id := range was {
		if !kept[id] {
			if _, err := c.DeleteOne(ctx, bson.M{"_id": id}); err != nil {
				return err
			}
		}
	}
	counts := r.db.Collection(countsColl)
	switch d := after.Count - before.Count; {
	case d > 0:
		_, err := counts.UpdateOne(ctx, bson.M{"_id": after.CustomerID, "count": bson.M{"$lt": domain.MaxAddresses - d + 1}},
			bson.M{"$inc": bson.M{"count": d}}, options.Update().SetUpsert(true))
		if store.IsDuplicate(err) {
			return domain.TooManyAddresses()
		}
		if err != nil {
			return err
		}
	case d < 0:
		if _, err := counts.UpdateOne(ctx, bson.M{"_id": after.CustomerID}, bson.M{"$inc": bson.M{"count": d}}); err != nil {
			return err
		}
	}
	// Cleared defaults before the new one.
	slices.SortStableFunc(changed, func(x, y *domain.Address) int {
		switch {
		case !x.IsDefault && y.IsDefault:
			return -1
		case x.IsDefault && !y.IsDefault:
			return 1
		}
		return 0
	})
	for _, a := range changed {
		u, err := store.Changes(was[a.ID], a)
		if err != nil {
			return err
		}
		if u == nil {
			continue
		}
		if _, err := c.UpdateOne(ctx, bson.M{"_id": a.ID}, u); err != nil {
			return err
		}
	}
	for _, a := range added {
		if _, err := c.InsertOne(ctx, a); err != nil {
			return err
		}
	}
	return nil
}
