package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/money"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// Cart keeps the customers' cart lines, one per product per cart (unique
// index).
type Cart struct{ db *store.DB }

func NewCart(db *store.DB) *Cart { return &Cart{db: db} }

// AddToLine adds add to the customer's line of the product, refreshing its
// name and price, in one conditional update that holds domain.CanTake against
// concurrent adds: the line takes the quantity only while it holds at most
// MaxQuantity-add. It answers the line as changed, or nil when no line took
// the quantity (there is none, or it would pass the maximum).
func (r *Cart) AddToLine(ctx context.Context, customerID, productID string, add int, price money.Fils, name string) (*domain.CartItem, error) {
	var line domain.CartItem
	err := r.db.Collection(cartItems).FindOneAndUpdate(ctx,
		bson.M{"customerId": customerID, "productId": productID, "quantity": bson.M{"$lte": domain.MaxQuantity - add}},
		bson.M{"$inc": bson.M{"quantity": add}, "$set": bson.M{"unitPrice": price, "name": name}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&line)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &line, nil
}

// Line is the customer's line of the product, or nil.
func (r *Cart) Line(ctx context.Context, customerID, productID string) (*domain.CartItem, error) {
	return store.FindOne[domain.CartItem](ctx, r.db.Collection(cartItems), bson.M{"customerId": customerID, "productId": productID})
}

// InsertFirst inserts the first line of a product in a customer's cart after
// check accepts the number of lines the cart holds. The count and the insert
// are one transaction, with a write to the customer's cart guard first:
// concurrent first adds of different products write that one document, so
// they conflict and run again one after the other (else each counts the same
// lines and inserts a line of its own, and together they pass the cap: write
// skew, on MongoDB as on the embedded engine). A duplicate-key error means a
// concurrent first add of the same product created the line.
func (r *Cart) InsertFirst(ctx context.Context, line domain.CartItem, check func(lines int64) error) error {
	return r.db.Tx(ctx, func(ctx context.Context) error {
		if _, err := r.db.Collection(cartGuards).UpdateOne(ctx, bson.M{"_id": line.CustomerID}, bson.M{"$inc": bson.M{"firstAdds": 1}},
			options.Update().SetUpsert(true)); err != nil {
			return err
		}
		n, err := r.db.Collection(cartItems).CountDocuments(ctx, bson.M{"customerId": line.CustomerID})
		if err != nil {
			return err
		}
		if err := check(n); err != nil {
			return err
		}
		_, err = r.db.Collection(cartItems).InsertOne(ctx, line)
		return err
	})
}

// Lines are the customer's cart lines, of one store when storeID is given, in
// the order they were added.
func (r *Cart) Lines(ctx context.Context, customerID string, storeID *string) ([]domain.CartItem, error) {
	filter := bson.M{"customerId": customerID}
	if storeID != nil {
		filter["storeId"] = *storeID
	}
	return store.FindAll[domain.CartItem](ctx, r.db.Collection(cartItems), filter,
		options.Find().SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}))
}

// Get is the line with id, or nil.
func (r *Cart) Get(ctx context.Context, id string) (*domain.CartItem, error) {
	return store.FindOne[domain.CartItem](ctx, r.db.Collection(cartItems), bson.M{"_id": id})
}

// Delete removes the customer's lines with these ids (lines of another
// customer stay).
func (r *Cart) Delete(ctx context.Context, customerID string, ids ...string) error {
	if len(ids) == 0 {
		return nil
	}
	var filter bson.M
	if len(ids) == 1 {
		filter = bson.M{"_id": ids[0], "customerId": customerID}
	} else {
		filter = bson.M{"_id": bson.M{"$in": ids}, "customerId": customerID}
	}
	_, err := r.db.Collection(cartItems).DeleteMany(ctx, filter)
	return err
}
