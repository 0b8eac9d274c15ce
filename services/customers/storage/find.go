package storage

import (
	"context"
	"math"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// orderQuery is the filter f selects (domain.OrderFilter.Matches). The
// creation time is always bounded (0 to the largest time when no period is
// given): a listing of every order is then an index range, not a scan.
func orderQuery(f domain.OrderFilter) bson.M {
	from, to := int64(0), int64(math.MaxInt64)
	if f.From != nil {
		from = *f.From
	}
	if f.To != nil {
		to = *f.To
	}
	q := bson.M{"creationTime": bson.M{"$gte": from, "$lte": to}}
	if f.StoreID != "" {
		q["storeId"] = f.StoreID
	}
	if f.Status != "" {
		q["status"] = f.Status
	}
	if f.Number != "" {
		q["number"] = f.Number
	}
	if f.CustomerID != "" {
		q["customerId"] = f.CustomerID
	}
	if !f.WithHeld {
		q["paymentStatus"] = bson.M{"$ne": domain.PaymentUnderReview}
	}
	return q
}

// Find pages the orders f selects in order s. The cursors of a sort other
// than newest carry its tag ("tag.cursor"), so a cursor is refused by any
// other sort than its own (page.Find refuses another field's).
func (r *Orders) Find(ctx context.Context, f domain.OrderFilter, s domain.OrderSort, o page.Opts) (page.Result[domain.Order], error) {
	if o.Cursor != nil && *o.Cursor != "" {
		c, err := untag(*o.Cursor, s.Tag)
		if err != nil {
			return page.Result[domain.Order]{}, err
		}
		o.Cursor = &c
	}
	res, err := page.Find(ctx, r.db.Collection(orders), orderQuery(f),
		page.Sort{Field: s.Field, Desc: s.Desc, Query: []any{f.Status, f.From, f.To, f.Number}}, o,
		func(o *domain.Order) (any, string) {
			if s.Field == "total" {
				return int64(o.Total), o.ID
			}
			return o.CreationTime, o.ID
		})
	if err == nil && res.ContinueCursor != "" && s.Tag != "" {
		res.ContinueCursor = s.Tag + "." + res.ContinueCursor
	}
	return res, err
}

func untag(cursor, tag string) (string, error) {
	t, c, tagged := strings.Cut(cursor, ".")
	switch {
	case tag == "" && !tagged:
		return cursor, nil
	case tag != "" && tagged && t == tag:
		return c, nil
	}
	return "", apperr.Invalid("paginationOpts.cursor", "is not a cursor of this query (a cursor of another sort)")
}

// Count counts the orders f selects, up to limit+1 (domain.CountOf reads it).
func (r *Orders) Count(ctx context.Context, f domain.OrderFilter, limit int64) (int64, error) {
	return r.db.Collection(orders).CountDocuments(ctx, orderQuery(f), options.Count().SetLimit(limit+1))
}

// Each runs fn on the orders f selects, newest first, reading them by keyset
// in pages (at most page.MaxItems each); fn's error stops it.
func (r *Orders) Each(ctx context.Context, f domain.OrderFilter, fn func([]domain.Order) error) error {
	return page.Each(func(o page.Opts) (page.Result[domain.Order], error) { return r.Find(ctx, f, domain.SortOf(nil), o) }, fn)
}

// Get is the order with id, or nil.
func (r *Orders) Get(ctx context.Context, id string) (*domain.Order, error) {
	return store.FindOne[domain.Order](ctx, r.db.Collection(orders), bson.M{"_id": id})
}

// BackfillNumbers gives the orders made before orders kept their number
// (domain.Order.Number) the number, a batch at a time; it answers how many it
// numbered.
func (r *Orders) BackfillNumbers(ctx context.Context, batch int64) (int, error) {
	c := r.db.Collection(orders)
	total := 0
	for {
		legacy, err := store.FindAll[domain.Order](ctx, c, bson.M{"number": bson.M{"$exists": false}},
			options.Find().SetProjection(bson.M{"_id": 1}).SetLimit(batch))
		if err != nil || len(legacy) == 0 {
			return total, err
		}
		for _, o := range legacy {
			if _, err := c.UpdateOne(ctx, bson.M{"_id": o.ID, "number": bson.M{"$exists": false}},
				bson.M{"$set": bson.M{"number": domain.OrderNumber(o.ID)}}); err != nil {
				return total, err
			}
			total++
		}
	}
}

// Search finds profiles as q asks (domain.CustomerQuery), at most
// domain.MaxSearchHits, by name then id; each profile once.
func (r *Profiles) Search(ctx context.Context, q domain.CustomerQuery) ([]domain.Profile, error) {
	c := r.db.Collection(profiles)
	limit := int64(domain.MaxSearchHits)
	var filters []bson.M
	switch {
	case q.ProfileID != "":
		filters = append(filters, bson.M{"_id": q.ProfileID})
	case q.Email != "":
		filters = append(filters, bson.M{"email": q.Email})
		if low := strings.ToLower(q.Email); low != q.Email {
			filters = append(filters, bson.M{"email": low})
		}
	default:
		lo, hi := domain.PrefixRange(q.NamePrefix)
		filters = append(filters, bson.M{"nameKey": bson.M{"$gte": lo, "$lt": hi}}, bson.M{"userId": q.UserID})
		if q.Phone != "" {
			filters = append(filters, bson.M{"phone": q.Phone})
		}
	}
	seen := map[string]bool{}
	var out []domain.Profile
	for _, f := range filters {
		ps, err := store.FindAll[domain.Profile](ctx, c, f, options.Find().SetSort(bson.D{{Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(limit))
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if !seen[p.ID] && len(out) < domain.MaxSearchHits {
				seen[p.ID] = true
				out = append(out, p)
			}
		}
	}
	return out, nil
}

// BackfillNameKeys gives the profiles made before profiles kept their name
// key (domain.Profile.NameKey) the key; it answers how many it keyed.
func (r *Profiles) BackfillNameKeys(ctx context.Context, batch int64) (int, error) {
	c := r.db.Collection(profiles)
	total := 0
	for {
		legacy, err := store.FindAll[domain.Profile](ctx, c, bson.M{"nameKey": bson.M{"$exists": false}},
			options.Find().SetProjection(bson.M{"name": 1}).SetLimit(batch))
		if err != nil || len(legacy) == 0 {
			return total, err
		}
		for _, p := range legacy {
			if _, err := c.UpdateOne(ctx, bson.M{"_id": p.ID, "nameKey": bson.M{"$exists": false}},
				bson.M{"$set": bson.M{"nameKey": domain.NameKey(p.Name)}}); err != nil {
				return total, err
			}
			total++
		}
	}
}
