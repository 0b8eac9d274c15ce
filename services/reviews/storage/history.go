package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// RatingsOf reads the rating and time of a store's visible reviews written
// from from to to (epoch ms, inclusive), newest first, at most limit: a range
// of the index store_newest.
func (r *Reviews) RatingsOf(ctx context.Context, storeID string, from, to int64, limit int) ([]domain.Review, error) {
	return store.FindAll[domain.Review](ctx, r.db.Collection(reviewsColl),
		bson.M{"storeId": storeID, "hidden": false, "createdAt": bson.M{"$gte": from, "$lte": to}},
		options.Find().SetSort(bson.D{{Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)).
			SetProjection(bson.M{"rating": 1, "createdAt": 1, "hidden": 1}))
}
