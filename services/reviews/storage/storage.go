// Package storage holds the reviews service's repositories: the only code
// that knows its collections, filters, updates, sorts and indexes. Each
// method runs in the transaction of the context it is handed (a DB.Tx or
// DB.Joined of the operation), so what one operation writes through several
// repositories commits together.
package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/events"
	"marketplace/libs/store"
)

// Collections of the reviews service's own database.
const (
	reviewsColl = "storeReviews"
	votesColl   = "reviewVotes"
	flagsColl   = "reviewFlags"
	statsColl   = "storeReviewStats"
	// verifiedOrdersColl holds one document per order (its id) that verifies
	// a review of its customer (the order's slot: the review's id), or that
	// the customers service confirmed cancelled (domain.OrderSlot).
	verifiedOrdersColl = "verifiedOrders"
)

// Indexes are the reviews service's indexes, with the event consumer's.
func Indexes() []store.Index {
	return append([]store.Index{
		// One review per order per customer (rule 5), held by the database.
		{Collection: reviewsColl, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "orderId", Value: 1}}, Unique: true,
			Partial: bson.M{"orderId": bson.M{"$exists": true}}, Name: "one_review_per_order"},
		// The lists (on MongoDB: the store's visible reviews in each order, the caller's reviews).
		{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_newest"},
		{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "rating", Value: -1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_rating"},
		// lowest_rating: the lowest first, the newest first among equals (the
		// mixed directions are not store_rating walked backwards).
		{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "rating", Value: 1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_rating_lowest"},
		{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "wilson", Value: -1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_helpful"},
		{Collection: reviewsColl, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_customer"},
		// Every review newest first: the bound of the administrators' search
		// (Newest, docs/adr/0169).
		{Collection: reviewsColl, Keys: bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "newest"},
		// One vote and one flag per customer per review.
		{Collection: votesColl, Keys: bson.D{{Key: "reviewId", Value: 1}, {Key: "customerId", Value: 1}}, Unique: true, Name: "one_vote_per_customer"},
		{Collection: votesColl, Keys: bson.D{{Key: "userId", Value: 1}, {Key: "reviewId", Value: 1}}, Name: "by_user"},
		{Collection: votesColl, Keys: bson.D{{Key: "userId", Value: 1}, {Key: "storeId", Value: 1}}, Name: "by_user_store"},
		{Collection: flagsColl, Keys: bson.D{{Key: "reviewId", Value: 1}, {Key: "customerId", Value: 1}}, Unique: true, Name: "one_flag_per_customer"},
		{Collection: flagsColl, Keys: bson.D{{Key: "status", Value: 1}, {Key: "createdAt", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_status"},
		// The decisions of one status by decision time (listFlags by decision).
		{Collection: flagsColl, Keys: bson.D{{Key: "status", Value: 1}, {Key: "resolution.resolvedAt", Value: 1}, {Key: "_id", Value: 1}}, Name: "decided_by_status"},
		// Every flag, oldest first (listFlags without a status).
		{Collection: flagsColl, Keys: bson.D{{Key: "createdAt", Value: 1}, {Key: "_id", Value: 1}}, Name: "oldest"},
		// (verifiedOrders is read and written by _id only.)
	}, events.ConsumerIndexes()...)
}

// exists reports whether coll has a document matching filter.
func exists(ctx context.Context, db *store.DB, coll string, filter bson.M) (bool, error) {
	err := db.Collection(coll).FindOne(ctx, filter, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if store.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}
