package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// SalesOf reads a store's orders placed from from to to (epoch ms, inclusive)
// that the store sees (payment not held), newest first, with only the fields
// domain.SummarizeSales reads, and at most limit of them: a range of the index
// by_store_newest.
func (r *Orders) SalesOf(ctx context.Context, storeID string, from, to int64, limit int) ([]domain.Order, error) {
	filter := bson.M{"storeId": storeID, "creationTime": bson.M{"$gte": from, "$lte": to},
		"paymentStatus": bson.M{"$ne": domain.PaymentUnderReview}}
	return store.FindAll[domain.Order](ctx, r.db.Collection(orders), filter, options.Find().
		SetSort(bson.D{{Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)).
		SetProjection(bson.M{"status": 1, "paymentStatus": 1, "creationTime": 1, "total": 1, "storeEarnings": 1,
			"platformCommission": 1, "refundedAmount": 1, "paymentCurrency": 1, "amountPaid": 1, "items": 1}))
}
