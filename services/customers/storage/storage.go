// Package storage holds the customers service's repositories: the only code
// that knows its collections, filters, updates and indexes. It keeps the
// domain package's values in their stored shape (their bson tags).
package storage

import (
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// Collections of the service.
const (
	profiles   = "customers"
	cartItems  = "cartItems"
	cartGuards = "cartGuards" // {_id: customer id, firstAdds}: see Cart.InsertFirst
	orders     = "orders"
)

// Indexes are the service's indexes; build declares them.
func Indexes() []store.Index {
	return []store.Index{
		// One profile per user, held by the database.
		{Collection: profiles, Keys: bson.D{{Key: "userId", Value: 1}}, Unique: true, Name: "one_profile_per_user"},
		// The searches of customers (searchCustomers): a name's prefix, an
		// exact phone or email; nameKey also finds the profiles its backfill
		// has not reached yet (nameKey absent).
		{Collection: profiles, Keys: bson.D{{Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_name_key"},
		{Collection: profiles, Keys: bson.D{{Key: "phone", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_phone"},
		{Collection: profiles, Keys: bson.D{{Key: "email", Value: 1}, {Key: "nameKey", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_email"},
		// One line per product per cart: adding a product again adds to its line.
		{Collection: cartItems, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "productId", Value: 1}}, Unique: true, Name: "one_line_per_product"},
		// A cart's lines in the order they were added, whole or of one store.
		// (Ids are random: creation order is creationTime's, the id breaks ties.)
		{Collection: cartItems, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "cart_by_creation"},
		{Collection: cartItems, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "storeId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "cart_of_store_by_creation"},
		// At most one order per payment intent: the webhook's idempotency rests on it.
		{Collection: orders, Keys: bson.D{{Key: "paymentIntentId", Value: 1}}, Unique: true, Name: "one_order_per_payment"},
		{Collection: orders, Keys: bson.D{{Key: "customerUserId", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_customer_newest"},
		// A store's orders, newest first, and those of one status (listStoreOrders).
		{Collection: orders, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_newest"},
		{Collection: orders, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "status", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_status_newest"},
		// The orders still held for review, newest first (listHeldOrders; of one
		// store: by_store_status_newest). Only held orders enter it.
		{Collection: orders, Keys: bson.D{{Key: "status", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}},
			Partial: bson.M{"paymentStatus": domain.PaymentUnderReview}, Name: "held_by_status_newest"},
		// Every order by creation time, of one status, of one number, of one
		// customer (listOrders, countOrders, the admin's export); by number of a
		// store (listStoreOrders' number); by total (the total sorts, of a store:
		// listOrders' total sorts need storeId). number also finds the orders
		// its backfill has not reached yet (number absent).
		{Collection: orders, Keys: bson.D{{Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "newest"},
		// (Ascending: held_by_status_newest has the descending keys, partial.)
		{Collection: orders, Keys: bson.D{{Key: "status", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_status_oldest"},
		{Collection: orders, Keys: bson.D{{Key: "number", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_number_newest"},
		{Collection: orders, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_customer_profile_newest"},
		{Collection: orders, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "number", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_number_newest"},
		{Collection: orders, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "total", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_total"},
		// A customer's delivered orders of a store, oldest first (getPurchaseFacts:
		// verified reviews). Replaces by_customer_store_status (its prefix), which
		// keeps its name on existing databases.
		{Collection: orders, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "storeId", Value: 1}, {Key: "status", Value: 1},
			{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_customer_store_status_oldest"},
	}
}
