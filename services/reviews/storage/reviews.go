package storage

import (
	"context"
	"strconv"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// Reviews is the repository of reviews (with their votes and flags when a
// review goes).
type Reviews struct{ db *store.DB }

// NewReviews is the repository of reviews on db.
func NewReviews(db *store.DB) *Reviews { return &Reviews{db: db} }

// Find is review id, nil when there is none.
func (r *Reviews) Find(ctx context.Context, id string) (*domain.Review, error) {
	return store.FindOne[domain.Review](ctx, r.db.Collection(reviewsColl), bson.M{"_id": id})
}

// Get is review id, NOT_FOUND when there is none.
func (r *Reviews) Get(ctx context.Context, id string) (*domain.Review, error) {
	rev, err := r.Find(ctx, id)
	if err == nil && rev == nil {
		err = domain.ErrNoReview(id)
	}
	return rev, err
}

// Visibility is review id with only what decides who sees it (its store,
// author and hidden), nil when there is none.
func (r *Reviews) Visibility(ctx context.Context, id string) (*domain.Review, error) {
	return store.FindOne[domain.Review](ctx, r.db.Collection(reviewsColl), bson.M{"_id": id},
		options.FindOne().SetProjection(bson.M{"storeId": 1, "hidden": 1, "userId": 1}))
}

// Update loads review id (NOT_FOUND when there is none) in a transaction (the
// enclosing DB.Joined's, if any), runs fn on it and saves what fn changed. On
// a write conflict the transaction runs again and fn with it, on a fresh
// load: fn must change only the review it is handed.
func (r *Reviews) Update(ctx context.Context, id string, fn func(*domain.Review) error) error {
	return r.db.Tx(ctx, func(ctx context.Context) error { return r.Modify(ctx, id, fn) })
}

// Modify is Update in the transaction ctx already is (an event consumer's):
// load, fn, save what fn changed.
func (r *Reviews) Modify(ctx context.Context, id string, fn func(*domain.Review) error) error {
	rev, err := r.Get(ctx, id)
	if err != nil {
		return err
	}
	before := rev.Clone()
	if err := fn(rev); err != nil {
		return err
	}
	return r.save(ctx, before, rev)
}

// save writes the fields of after that differ from before (as loaded).
func (r *Reviews) save(ctx context.Context, before, after *domain.Review) error {
	upd, err := store.Changes(before, after)
	if err != nil || upd == nil {
		return err
	}
	res, err := r.db.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": before.ID}, upd)
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 { // deleted since it was loaded
		return store.ErrConflict
	}
	return nil
}

// Insert stores a new review (a duplicate: the author already reviewed its
// order).
func (r *Reviews) Insert(ctx context.Context, rev *domain.Review) error {
	_, err := r.db.Collection(reviewsColl).InsertOne(ctx, *rev)
	return err
}

// Delete removes rev with its votes and flags, and frees the order it used
// (the author's next review may use it).
func (r *Reviews) Delete(ctx context.Context, rev *domain.Review) error {
	if _, err := r.db.Collection(reviewsColl).DeleteOne(ctx, bson.M{"_id": rev.ID}); err != nil {
		return err
	}
	if _, err := r.db.Collection(votesColl).DeleteMany(ctx, bson.M{"reviewId": rev.ID}); err != nil {
		return err
	}
	if _, err := r.db.Collection(flagsColl).DeleteMany(ctx, bson.M{"reviewId": rev.ID}); err != nil {
		return err
	}
	if rev.VerifiedBy != "" {
		if _, err := r.db.Collection(verifiedOrdersColl).DeleteOne(ctx, bson.M{"_id": rev.VerifiedBy, "reviewId": rev.ID}); err != nil {
			return err
		}
	}
	return nil
}

// SetResponse writes the store's response on review id as one conditional
// update: the first response only while there is none, a change only while
// there is one (of two concurrent first responses one is stored). false: the
// condition did not hold.
func (r *Reviews) SetResponse(ctx context.Context, id string, resp domain.StoreResponse, update bool) (bool, error) {
	var filter, set bson.M
	if update {
		filter = bson.M{"_id": id, "storeResponse": bson.M{"$exists": true}}
		set = bson.M{"storeResponse.comment": resp.Comment, "storeResponse.updatedAt": resp.UpdatedAt, "storeResponse.byUserId": resp.ByUserID}
	} else {
		filter = bson.M{"_id": id, "storeResponse": bson.M{"$exists": false}}
		set = bson.M{"storeResponse": resp}
	}
	res, err := r.db.Collection(reviewsColl).UpdateOne(ctx, filter, bson.M{"$set": set})
	if err != nil {
		return false, err
	}
	return res.MatchedCount == 1, nil
}

// MarkFlagged counts a flag on review id while it is shown, so that a flag
// racing a delete or a hide of it conflicts with them on MongoDB. false: it
// is hidden or gone.
func (r *Reviews) MarkFlagged(ctx context.Context, id string) (bool, error) {
	res, err := r.db.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": id, "hidden": false}, bson.M{"$inc": bson.M{"flagCount": 1}})
	if err != nil {
		return false, err
	}
	return res.MatchedCount == 1, nil
}

// ByIDs are the reviews of the ids, by id.
func (r *Reviews) ByIDs(ctx context.Context, ids []string) (map[string]*domain.Review, error) {
	byID := map[string]*domain.Review{}
	if len(ids) == 0 {
		return byID, nil
	}
	rs, err := store.FindAll[domain.Review](ctx, r.db.Collection(reviewsColl), bson.M{"_id": bson.M{"$in": ids}})
	if err != nil {
		return nil, err
	}
	for i := range rs {
		byID[rs[i].ID] = &rs[i]
	}
	return byID, nil
}

// OrderReviewed reports whether the customer has a review citing the order.
func (r *Reviews) OrderReviewed(ctx context.Context, customerID, orderID string) (bool, error) {
	return exists(ctx, r.db, reviewsColl, bson.M{"customerId": customerID, "orderId": orderID})
}

// VerifiedUses are the orders the customer's verified reviews of the store
// use, and how many of those reviews were verified before reviews named the
// order they use (a review of that time citing an order uses it).
func (r *Reviews) VerifiedUses(ctx context.Context, customerID, storeID string) (map[string]domain.Use, int, error) {
	rs, err := store.FindAll[domain.Review](ctx, r.db.Collection(reviewsColl), bson.M{"customerId": customerID, "storeId": storeID, "isVerifiedPurchase": true},
		options.Find().SetProjection(bson.M{"orderId": 1, "verifiedBy": 1}))
	if err != nil {
		return nil, 0, err
	}
	uses, unnamed := make(map[string]domain.Use, len(rs)), 0
	for _, r := range rs {
		switch {
		case r.VerifiedBy != "":
			uses[r.VerifiedBy] = domain.Use{ReviewID: r.ID, Cited: r.VerifiedBy == r.OrderID}
		case r.OrderID != "":
			uses[r.OrderID] = domain.Use{ReviewID: r.ID, Cited: true}
		default:
			unnamed++
		}
	}
	return uses, unnamed, nil
}

// StoreList is a list of a store's visible reviews (getStoreReviews).
type StoreList struct {
	StoreID      string
	SortBy       string // one of the Sort values; "" is DefaultSort
	Rating       *int   // only reviews of this rating
	VerifiedOnly bool
	Period       page.Period // written in it (createdAt); only with newest or oldest (domain.CheckListSort)
}

func (l StoreList) order() ordering {
	if l.SortBy == "" {
		return reviewOrders[DefaultSort]
	}
	return reviewOrders[l.SortBy]
}

// Query names the list (its store, order and filters): its cursors are
// valid for it only, and a page of it may be kept under this name.
func (l StoreList) Query() string {
	rating, verified := "", ""
	if l.Rating != nil {
		rating = strconv.Itoa(*l.Rating)
	}
	if l.VerifiedOnly {
		verified = "verified"
	}
	return fingerprint(l.order(), append([]string{l.StoreID, rating, verified}, periodParts(l.Period)...)...)
}

// PageOfStore is a page of the list after the cursor of opts.
func (r *Reviews) PageOfStore(ctx context.Context, l StoreList, opts page.Opts) (page.Result[domain.Review], error) {
	filter := bson.M{"storeId": l.StoreID, "hidden": false}
	if l.Rating != nil {
		filter["rating"] = *l.Rating
	}
	if l.VerifiedOnly {
		filter["isVerifiedPurchase"] = true
	}
	if r := l.Period.Range(); r != nil {
		filter["createdAt"] = bson.M(r) // a range of store_newest, or of store_rating after its rating
	}
	return findPage(ctx, r.db.Collection(reviewsColl), filter, l.order(), l.Query(), opts, reviewKeys)
}

// PageOfCustomer is a page of the customer's reviews, newest first, hidden
// ones included.
func (r *Reviews) PageOfCustomer(ctx context.Context, customerID string, opts page.Opts) (page.Result[domain.Review], error) {
	return findPage(ctx, r.db.Collection(reviewsColl), bson.M{"customerId": customerID},
		customerOrder, fingerprint(customerOrder, customerID), opts, reviewKeys)
}

// Newest are the newest reviews of every store, hidden ones too, at most
// limit, with what a search reads and answers (docs/adr/0169).
func (r *Reviews) Newest(ctx context.Context, limit int) ([]domain.Review, error) {
	return store.FindAll[domain.Review](ctx, r.db.Collection(reviewsColl), bson.M{}, options.Find().
		SetSort(bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)).
		SetProjection(bson.M{"storeId": 1, "storeName": 1, "customerId": 1, "customerName": 1, "rating": 1, "title": 1, "comment": 1, "hidden": 1, "createdAt": 1}))
}
