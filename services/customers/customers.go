// Package customers owns customer profiles and carts (and, next, orders).
package customers

import (
	"context"
	"net/mail"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// Module is the customers service.
var Module = service.Module{Name: "customers", Build: build}

// Limits of a cart.
const (
	MaxQuantity  = 99  // of one product
	MaxCartLines = 100 // distinct products
)

type svc struct {
	env service.Env
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env}
	return &service.Built{
		Registry: ops.NewRegistry("customers",
			ops.NewMutation("customers.profile.upsertMyProfile", ops.Authenticated, "Create or update the caller's customer profile.", s.upsertMyProfile),
			ops.NewQuery("customers.profile.getMyProfile", ops.Authenticated, "The caller's customer profile, or null.", s.getMyProfile),
			ops.NewMutation("customers.cart.addItem", ops.Customer, "Add a product to the caller's cart (again: more of it).", s.addItem),
			ops.NewQuery("customers.cart.getMyCart", ops.Customer, "The caller's cart, optionally one store's part, with its subtotal.", s.getMyCart),
			ops.NewMutation("customers.cart.removeItem", ops.Customer, "Remove a line from the caller's cart.", s.removeItem),
			ops.NewQuery("customers.profile.getProfiles", ops.Internal, "Profiles by id, in one call.", s.getProfiles),
			ops.NewMutation("customers.cartToOrder.createOrderFromCart", ops.Internal, "Turn the customer's cart lines of a store into a paid order (once per payment intent).", s.createOrderFromCart),
			ops.NewQuery("customers.orders.getOrderByPaymentIntent", ops.Authenticated, "The caller's order paid with a payment intent (administrators: anyone's), or null.", s.getOrderByPaymentIntent),
			ops.NewQuery("customers.orders.getMyOrders", ops.Customer, "The caller's orders, newest first.", s.getMyOrders),
			ops.NewMutation("stores.orders.updateOrderStatus", ops.StoreOwner, "Move an order along its status machine (store owner or administrator).", s.updateOrderStatus),
		),
		Indexes: []store.Index{
			// One profile per user, held by the database.
			{Collection: "customers", Keys: bson.D{{Key: "userId", Value: 1}}, Unique: true, Name: "one_profile_per_user"},
			// One line per product per cart: adding a product again adds to its line.
			{Collection: "cartItems", Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "productId", Value: 1}}, Unique: true, Name: "one_line_per_product"},
			// At most one order per payment intent: the webhook's idempotency rests on it.
			{Collection: "orders", Keys: bson.D{{Key: "paymentIntentId", Value: 1}}, Unique: true, Name: "one_order_per_payment"},
			{Collection: "orders", Keys: bson.D{{Key: "customerUserId", Value: 1}, {Key: "_id", Value: -1}}, Name: "by_customer"},
		},
	}, nil
}

func now() int64 { return time.Now().UnixMilli() }

// Profile is a customer profile.
type Profile struct {
	ID           string  `bson:"_id" json:"_id"`
	UserID       string  `bson:"userId" json:"userId"`
	Name         string  `bson:"name" json:"name"`
	Phone        *string `bson:"phone,omitempty" json:"phone,omitempty"`
	Email        *string `bson:"email,omitempty" json:"email,omitempty"`
	CreationTime int64   `bson:"creationTime" json:"_creationTime"`
	UpdatedAt    int64   `bson:"updatedAt" json:"updatedAt"`
}

type upsertProfileArgs struct {
	Name  string  `json:"name" op:"required,nonblank,max=200"`
	Phone *string `json:"phone" op:"nonblank,max=32"`
	Email *string `json:"email" op:"nonblank,max=254"`
}

func (s *svc) upsertMyProfile(ctx context.Context, a *upsertProfileArgs) (string, error) {
	if a.Email != nil {
		if addr, err := mail.ParseAddress(*a.Email); err != nil || addr.Address != strings.TrimSpace(*a.Email) {
			return "", apperr.Invalid("email", "is not an email address")
		}
	}
	set := bson.M{"name": strings.TrimSpace(a.Name), "updatedAt": now()}
	if a.Phone != nil {
		set["phone"] = strings.TrimSpace(*a.Phone)
	}
	if a.Email != nil {
		set["email"] = strings.TrimSpace(*a.Email)
	}
	sub := ops.Caller(ctx).Sub
	upsert := func() (string, error) {
		var p Profile
		err := s.env.DB.Collection("customers").FindOneAndUpdate(ctx, bson.M{"userId": sub},
			bson.M{"$set": set, "$setOnInsert": bson.M{"_id": ids.New("customers"), "userId": sub, "creationTime": now()}},
			options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&p)
		return p.ID, err
	}
	id, err := upsert()
	if store.IsDuplicate(err) {
		// Two first calls raced; the unique index let one insert win. Ours updates it.
		id, err = upsert()
	}
	return id, err
}

// profileOf is the caller's profile, or nil.
func (s *svc) profileOf(ctx context.Context) (*Profile, error) {
	var p Profile
	err := s.env.DB.Collection("customers").FindOne(ctx, bson.M{"userId": ops.Caller(ctx).Sub}).Decode(&p)
	if store.IsNotFound(err) {
		return nil, nil
	}
	return &p, err
}

func (s *svc) getMyProfile(ctx context.Context, _ *ops.NoArgs) (*Profile, error) {
	return s.profileOf(ctx)
}

// mustProfile is the caller's profile; operations of a customer need one.
func (s *svc) mustProfile(ctx context.Context) (*Profile, error) {
	p, err := s.profileOf(ctx)
	if err == nil && p == nil {
		err = apperr.New(apperr.FailedPrecondition, "the caller has no customer profile yet: call customers.profile.upsertMyProfile first")
	}
	return p, err
}
