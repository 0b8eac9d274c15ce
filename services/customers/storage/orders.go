package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// Orders keeps the orders, at most one per payment intent (unique index).
type Orders struct{ db *store.DB }

func NewOrders(db *store.DB) *Orders { return &Orders{db: db} }

// ByIntent is the order paid with the payment intent, or nil.
func (r *Orders) ByIntent(ctx context.Context, intent string) (*domain.Order, error) {
	return store.FindOne[domain.Order](ctx, r.db.Collection(orders), bson.M{"paymentIntentId": intent})
}

// Insert stores a new order; a second order of the same payment intent is a
// duplicate-key error (store.IsDuplicate).
func (r *Orders) Insert(ctx context.Context, o *domain.Order) error {
	_, err := r.db.Collection(orders).InsertOne(ctx, o)
	return err
}

func notFound(id string) error { return apperr.New(apperr.NotFound, "order %s does not exist", id) }

// StoreOf is the store of the order; NOT_FOUND when there is no such order.
func (r *Orders) StoreOf(ctx context.Context, id string) (string, error) {
	o, err := store.FindOne[domain.Order](ctx, r.db.Collection(orders), bson.M{"_id": id}, options.FindOne().SetProjection(bson.M{"storeId": 1}))
	if err != nil {
		return "", err
	}
	if o == nil {
		return "", notFound(id)
	}
	return o.StoreID, nil
}

// Update loads the order inside a transaction (it joins an enclosing
// DB.Joined), runs fn on it and saves the top-level fields fn changed; NOT_FOUND
// when there is no such order. The save is conditional on the order as loaded
// (its status, payment status and updatedAt, which every save moves forward):
// when another change committed meanwhile, it is refused
// (domain.OrderChangedMeanwhile). On a write conflict fn runs again on a fresh
// load, so fn changes only the order it is handed.
func (r *Orders) Update(ctx context.Context, id string, fn func(*domain.Order) error) error {
	return r.update(ctx, id, fn, domain.OrderChangedMeanwhile())
}

// UpdateMoney is Update for changes of the order's money (refunds, disputes):
// a change committed meanwhile is store.ErrConflict, for store.Retry to run fn
// again on the order as it is now (a refund is then judged against the
// refunds that committed first).
func (r *Orders) UpdateMoney(ctx context.Context, id string, fn func(*domain.Order) error) error {
	return r.update(ctx, id, fn, store.ErrConflict)
}

func (r *Orders) update(ctx context.Context, id string, fn func(*domain.Order) error, changed error) error {
	return r.db.Tx(ctx, func(ctx context.Context) error {
		raw, err := r.db.Collection(orders).FindOne(ctx, bson.M{"_id": id}).Raw()
		if store.IsNotFound(err) {
			return notFound(id)
		}
		if err != nil {
			return err
		}
		// Two decodings of the same document: fn cannot reach the one kept
		// as loaded through a shared slice or pointer.
		var before, o domain.Order
		if err := bson.Unmarshal(raw, &before); err != nil {
			return err
		}
		if err := bson.Unmarshal(raw, &o); err != nil {
			return err
		}
		if err := fn(&o); err != nil {
			return err
		}
		if update, err := store.Changes(&before, &o); err != nil || update == nil {
			return err
		}
		// updatedAt is the order's version: strictly later at every save.
		o.UpdatedAt = max(o.UpdatedAt, before.UpdatedAt+1)
		update, err := store.Changes(&before, &o)
		if err != nil {
			return err
		}
		res, err := r.db.Collection(orders).UpdateOne(ctx, bson.M{"_id": id, "status": before.Status, "paymentStatus": before.PaymentStatus,
			"updatedAt": before.UpdatedAt}, update)
		if err != nil {
			return err
		}
		if res.ModifiedCount != 1 {
			return changed
		}
		return nil
	})
}

// newest pages a filter's orders, newest first.
func (r *Orders) newest(ctx context.Context, filter bson.M, o page.Opts) (page.Result[domain.Order], error) {
	return page.Find(ctx, r.db.Collection(orders), filter, page.Sort{Field: "creationTime", Desc: true}, o,
		func(o *domain.Order) (any, string) { return o.CreationTime, o.ID })
}

// PageOfCustomer pages the orders of a customer's user, newest first.
func (r *Orders) PageOfCustomer(ctx context.Context, userID string, o page.Opts) (page.Result[domain.Order], error) {
	return r.newest(ctx, bson.M{"customerUserId": userID}, o)
}

// HeldFilter selects held orders still to settle: of one store, created
// from From to To (inclusive) when given.
type HeldFilter struct {
	StoreID  *string
	From, To *int64
}

func (f HeldFilter) query() bson.M {
	q := bson.M{"paymentStatus": domain.PaymentUnderReview, "status": domain.StatusPending}
	if f.StoreID != nil {
		q["storeId"] = *f.StoreID
	}
	if r := (page.Period{From: f.From, To: f.To}).Range(); r != nil {
		q["creationTime"] = bson.M(r)
	}
	return q
}

// PageToSettle pages the held orders still to settle (domain.Order.ToSettle:
// pending, payment under review) f selects, newest first (oldest when
// oldest), along held_by_status_newest or, of a store,
// by_store_status_newest. The oldest-first cursors carry a tag ("o."), so
// a cursor is refused by the other order.
func (r *Orders) PageToSettle(ctx context.Context, f HeldFilter, oldest bool, o page.Opts) (page.Result[domain.Order], error) {
	s := domain.SortOf(nil)
	if oldest {
		old := domain.SortOldest
		s = domain.SortOf(&old)
	}
	if o.Cursor != nil && *o.Cursor != "" {
		c, err := untag(*o.Cursor, s.Tag)
		if err != nil {
			return page.Result[domain.Order]{}, err
		}
		o.Cursor = &c
	}
	// A cursor is of its filters too (docs/adr/0172).
	res, err := page.Find(ctx, r.db.Collection(orders), f.query(), page.Sort{Field: s.Field, Desc: s.Desc, Query: []any{f.StoreID, f.From, f.To}}, o,
		func(o *domain.Order) (any, string) { return o.CreationTime, o.ID })
	if err == nil && res.ContinueCursor != "" && s.Tag != "" {
		res.ContinueCursor = s.Tag + "." + res.ContinueCursor
	}
	return res, err
}

// CountToSettle counts the held orders f selects, up to limit+1
// (domain.CountOf reads it).
func (r *Orders) CountToSettle(ctx context.Context, f HeldFilter, limit int64) (int64, error) {
	return r.db.Collection(orders).CountDocuments(ctx, f.query(), options.Count().SetLimit(limit+1))
}

// Brief is the order's customer, store and status only, or nil.
func (r *Orders) Brief(ctx context.Context, id string) (*domain.Order, error) {
	return store.FindOne[domain.Order](ctx, r.db.Collection(orders), bson.M{"_id": id},
		options.FindOne().SetProjection(bson.M{"customerId": 1, "storeId": 1, "status": 1}))
}

// Delivered counts a customer's delivered orders of a store and lists the
// ids of the first contract.MaxDeliveredOrderIDs of them, oldest first.
func (r *Orders) Delivered(ctx context.Context, customerID, storeID string) (int64, []string, error) {
	delivered := bson.M{"customerId": customerID, "storeId": storeID, "status": domain.StatusDelivered}
	n, err := r.db.Collection(orders).CountDocuments(ctx, delivered)
	if err != nil || n == 0 {
		return n, nil, err
	}
	os, err := store.FindAll[domain.Order](ctx, r.db.Collection(orders), delivered, options.Find().SetProjection(bson.M{"_id": 1}).
		SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(contract.MaxDeliveredOrderIDs))
	if err != nil {
		return 0, nil, err
	}
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.ID
	}
	return n, out, nil
}

// Facts are the orders with these ids with the fields domain.Order.Facts
// reads; missing ids are absent.
func (r *Orders) Facts(ctx context.Context, ids []string) ([]domain.Order, error) {
	return store.FindAll[domain.Order](ctx, r.db.Collection(orders), bson.M{"_id": bson.M{"$in": ids}}, options.Find().SetProjection(bson.M{
		"storeId": 1, "storeName": 1, "storeOwnerUserId": 1, "status": 1, "total": 1, "platformCommission": 1, "storeEarnings": 1, "statusHistory": 1,
		"paymentStatus": 1, "paymentIntentId": 1, "amountPaid": 1, "paymentCurrency": 1, "refundedAmount": 1, "refunds": 1,
	}))
}

// EachMoney runs fn on every order with the fields of its money
// (domain.Order.AddToTotals): a full scan, for the platform's reconciliation.
func (r *Orders) EachMoney(ctx context.Context, fn func(*domain.Order)) error {
	ctx = store.Scan(ctx, "the platform's reconciliation sums every order's money (an administrator's check, not a client's read)")
	cur, err := r.db.Collection(orders).Find(ctx, bson.M{}, options.Find().SetProjection(bson.M{
		"status": 1, "total": 1, "platformCommission": 1, "storeEarnings": 1, "amountPaid": 1, "paymentCurrency": 1,
		"refundedAmount": 1, "disputes": 1,
	}))
	if err != nil {
		return err
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var o domain.Order
		if err := cur.Decode(&o); err != nil {
			return err
		}
		fn(&o)
	}
	return cur.Err()
}
