package customers

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/store"
)

// cartItem is one line of a cart. Name and price are copied from the catalog
// when the line is added (never from the client) and refreshed when it is added again.
type cartItem struct {
	ID           string     `bson:"_id"`
	CustomerID   string     `bson:"customerId"`
	ProductID    string     `bson:"productId"`
	StoreID      string     `bson:"storeId"`
	Name         string     `bson:"name"`
	UnitPrice    money.Fils `bson:"unitPrice"`
	Quantity     int        `bson:"quantity"`
	CreationTime int64      `bson:"creationTime"`
}

// CartItemView is a cart line as clients see it.
type CartItemView struct {
	ID        string  `json:"_id"`
	ProductID string  `json:"productId"`
	StoreID   string  `json:"storeId"`
	Name      string  `json:"name"`
	UnitPrice float64 `json:"unitPrice"`
	Quantity  int     `json:"quantity"`
}

// Cart is getMyCart's answer.
type Cart struct {
	Items    []CartItemView `json:"items"`
	Subtotal float64        `json:"subtotal"`
}

// cartGuards holds one document per customer ({_id: customer id, firstAdds})
// that every first add of a product to the cart writes, so that two such adds
// conflict (addItem).
const cartGuards = "cartGuards"

type addItemArgs struct {
	ProductID string `json:"productId" op:"required,id=products"`
	Quantity  int    `json:"quantity" op:"required,min=1,max=99"`
}

func (s *svc) addItem(ctx context.Context, a *addItemArgs) (string, error) {
	p := ops.CustomerOf(ctx)
	products, err := s.catalog.Products(ctx, []string{a.ProductID})
	if err != nil {
		return "", err
	}
	prod, ok := products[a.ProductID]
	if !ok {
		return "", apperr.New(apperr.NotFound, "product %s does not exist", a.ProductID)
	}
	if !prod.IsAvailable {
		return "", apperr.New(apperr.FailedPrecondition, "product %s is not available", a.ProductID)
	}
	price, err := money.FromAED(prod.Price)
	if err != nil {
		return "", err
	}
	items := s.env.DB.Collection("cartItems")
	return store.Retry(ctx, "the cart", func(ctx context.Context) (string, error) {
		// Adding again: one conditional update, so concurrent adds never push a
		// line past the maximum quantity.
		var line cartItem
		err = items.FindOneAndUpdate(ctx,
			bson.M{"customerId": p.ID, "productId": a.ProductID, "quantity": bson.M{"$lte": MaxQuantity - a.Quantity}},
			bson.M{"$inc": bson.M{"quantity": a.Quantity}, "$set": bson.M{"unitPrice": price, "name": prod.Name}},
			options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&line)
		if err == nil {
			return line.ID, nil
		}
		if !store.IsNotFound(err) {
			return "", err
		}
		// No line took the quantity: either there is none, or it would pass the
		// maximum, or a concurrent first add created it since (then add to it).
		var existing cartItem
		err = items.FindOne(ctx, bson.M{"customerId": p.ID, "productId": a.ProductID}).Decode(&existing)
		switch {
		case err == nil && existing.Quantity > MaxQuantity-a.Quantity:
			return "", apperr.New(apperr.FailedPrecondition, "a cart holds at most %d of one product", MaxQuantity)
		case err == nil:
			return "", store.ErrConflict
		case !store.IsNotFound(err):
			return "", err
		}
		line = cartItem{ID: ids.New("carts"), CustomerID: p.ID, ProductID: a.ProductID, StoreID: prod.StoreID, Name: prod.Name, UnitPrice: price, Quantity: a.Quantity, CreationTime: now()}
		// The line count and the insert in one transaction, with a write to the
		// customer's cart guard first: concurrent first adds of different
		// products write that one document, so they conflict and run again one
		// after the other (else each counts the same lines and inserts a line of
		// its own, and together they pass the cap: write skew, on MongoDB as on
		// the embedded engine).
		err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
			if _, err := s.env.DB.Collection(cartGuards).UpdateOne(ctx, bson.M{"_id": p.ID}, bson.M{"$inc": bson.M{"firstAdds": 1}},
				options.Update().SetUpsert(true)); err != nil {
				return err
			}
			n, err := items.CountDocuments(ctx, bson.M{"customerId": p.ID})
			if err != nil {
				return err
			}
			if n >= MaxCartLines {
				return apperr.New(apperr.FailedPrecondition, "a cart holds at most %d different products", MaxCartLines)
			}
			_, err = items.InsertOne(ctx, line)
			return err
		})
		if store.IsDuplicate(err) {
			// A concurrent first add of the same product created the line: add to it.
			return "", store.ErrConflict
		}
		if err != nil {
			return "", err
		}
		return line.ID, nil
	})
}

type getCartArgs struct {
	StoreID *string `json:"storeId" op:"id=stores"`
}

func (s *svc) getMyCart(ctx context.Context, a *getCartArgs) (*Cart, error) {
	cart := &Cart{Items: []CartItemView{}}
	p := ops.CustomerOf(ctx)
	var lines []cartItem
	if p != nil { // no profile yet: an empty cart
		filter := bson.M{"customerId": p.ID}
		if a.StoreID != nil {
			filter["storeId"] = *a.StoreID
		}
		cur, err := s.env.DB.Collection("cartItems").Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}))
		if err != nil {
			return nil, err
		}
		if err := cur.All(ctx, &lines); err != nil {
			return nil, err
		}
	}
	if a.StoreID != nil && len(lines) == 0 {
		// No line proves the store exists: a filter naming a missing store is
		// NOT_FOUND (platform contract, section 2), not an empty cart.
		st, err := s.catalog.Store(ctx, *a.StoreID)
		if err != nil {
			return nil, err
		}
		if st == nil {
			return nil, apperr.New(apperr.NotFound, "store %s does not exist", *a.StoreID)
		}
	}
	var subtotal money.Fils
	for _, l := range lines {
		cart.Items = append(cart.Items, CartItemView{ID: l.ID, ProductID: l.ProductID, StoreID: l.StoreID, Name: l.Name, UnitPrice: l.UnitPrice.AED(), Quantity: l.Quantity})
		subtotal += l.UnitPrice * money.Fils(l.Quantity)
	}
	cart.Subtotal = subtotal.AED()
	return cart, nil
}

type removeItemArgs struct {
	ItemID string `json:"itemId" op:"required,id=carts"`
}

func (s *svc) removeItem(ctx context.Context, a *removeItemArgs) (ops.Null, error) {
	p := ops.CustomerOf(ctx)
	var line cartItem
	err := s.env.DB.Collection("cartItems").FindOne(ctx, bson.M{"_id": a.ItemID}).Decode(&line)
	if store.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "cart item %s does not exist", a.ItemID)
	}
	if err != nil {
		return nil, err
	}
	if line.CustomerID != p.ID {
		return nil, apperr.New(apperr.PermissionDenied, "cart item %s is in another customer's cart", a.ItemID)
	}
	_, err = s.env.DB.Collection("cartItems").DeleteOne(ctx, bson.M{"_id": a.ItemID, "customerId": p.ID})
	return nil, err
}
