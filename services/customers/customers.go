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
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/platformconfig"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// Module is the customers service.
var Module = service.Module{Name: contract.Service, Build: build, Publishes: []string{contract.TopicOrders},
	Calls: []string{catalog.Service, platformconfig.Service}}

// Limits of a cart.
const (
	MaxQuantity  = 99  // of one product
	MaxCartLines = 100 // distinct products
)

type svc struct {
	env         service.Env
	catalog     *catalog.Client
	commissions *platformconfig.Client
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, catalog: catalog.NewClient(env.Calls), commissions: platformconfig.NewClient(env.Calls)}
	return &service.Built{
		Registry: ops.NewRegistry("customers",
			ops.NewMutation("customers.profile.upsertMyProfile", ops.Authenticated, "Create or update the caller's customer profile.", s.upsertMyProfile),
			ops.NewQuery("customers.profile.getMyProfile", ops.Authenticated, "The caller's customer profile, or null.", s.getMyProfile),
			ops.NewMutation("customers.cart.addItem", ops.Customer, "Add a product to the caller's cart (again: more of it).", s.addItem),
			ops.NewQuery("customers.cart.getMyCart", ops.Customer, "The caller's cart, optionally one store's part, with its subtotal.", s.getMyCart),
			ops.NewMutation("customers.cart.removeItem", ops.Customer, "Remove a line from the caller's cart.", s.removeItem),
			ops.NewQuery("customers.profile.getProfiles", ops.Internal, "Profiles by id, in one call.", s.getProfiles, ops.CalledBy("payments")),
			ops.NewMutation("customers.cartToOrder.createOrderFromCart", ops.Internal, "Turn the customer's cart lines of a store into a paid order (once per payment intent); a payment that finds no lines of the store makes an order held for review (cart_empty).", s.createOrderFromCart, ops.CalledBy("payments")),
			ops.NewQuery("customers.orders.getOrderByPaymentIntent", ops.Authenticated, "The caller's order paid with a payment intent (administrators: anyone's), or null.", s.getOrderByPaymentIntent),
			ops.NewQuery("customers.orders.getMyOrders", ops.Customer, "The caller's orders, newest first.", s.getMyOrders),
			ops.NewQuery(contract.OpGetCheckoutQuote, ops.Internal, "The customer's cart lines of a store priced for checkout, with the delivery fee and the profile's phone (the payments service's payment intent).", s.getCheckoutQuote, ops.CalledBy("payments")),
			ops.NewQuery(contract.OpGetPurchaseFacts, ops.Internal, "Whether an order exists, is the customer's and of the store, and its status; and the customer's delivered orders of the store (how many, and the first 1,000, oldest first): the reviews service's verified purchase.", s.getPurchaseFacts, ops.CalledBy("reviews")),
			ops.NewQuery(contract.OpGetOrderFacts, ops.Internal, "Orders by id as their owner has them: store, status, total, commission, store earnings (fils) and delivery time; unknown ids absent (the payouts service credits earnings only as confirmed here).", s.getOrderFacts, ops.CalledBy("payouts")),
			ops.NewMutation("stores.orders.updateOrderStatus", ops.StoreOwnerOrAdmin, "Move an order along its status machine (store owner or administrator): one step at a time along pending, confirmed, preparing, out_for_delivery, delivered, or to cancelled from any status before delivered. Any other move is FAILED_PRECONDITION (details.reason status_not_allowed) naming the statuses allowed from the current one (details.current, details.requested, details.allowed).", s.updateOrderStatus,
				ops.StoreVia("orderId", s.storeOfOrder)),
			ops.NewQuery("stores.orders.listStoreOrders", ops.StoreOwnerOrAdmin, "A store's orders, newest first, optionally of one status (store owner or administrator).", s.listStoreOrders,
				ops.StoreArg("storeId")),
			ops.NewQuery("admins.orders.listHeldOrders", ops.Admin, "Orders whose payment is held for review and not yet confirmed or cancelled, newest first, optionally of one store (administrators).", s.listHeldOrders),
		).WithResolvers(ops.Resolvers{Customer: s.customerRef, Store: s.catalog.StoreRef}),
		Indexes: []store.Index{
			// One profile per user, held by the database.
			{Collection: "customers", Keys: bson.D{{Key: "userId", Value: 1}}, Unique: true, Name: "one_profile_per_user"},
			// One line per product per cart: adding a product again adds to its line.
			{Collection: "cartItems", Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "productId", Value: 1}}, Unique: true, Name: "one_line_per_product"},
			// A cart's lines in the order they were added, whole or of one store.
			// (Ids are random: creation order is creationTime's, the id breaks ties.)
			{Collection: "cartItems", Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "cart_by_creation"},
			{Collection: "cartItems", Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "storeId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "cart_of_store_by_creation"},
			// At most one order per payment intent: the webhook's idempotency rests on it.
			{Collection: "orders", Keys: bson.D{{Key: "paymentIntentId", Value: 1}}, Unique: true, Name: "one_order_per_payment"},
			{Collection: "orders", Keys: bson.D{{Key: "customerUserId", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_customer_newest"},
			// A store's orders, newest first, and those of one status (listStoreOrders).
			{Collection: "orders", Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_newest"},
			{Collection: "orders", Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "status", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_store_status_newest"},
			// The orders still held for review, newest first (listHeldOrders; of one
			// store: by_store_status_newest). Only held orders enter it.
			{Collection: "orders", Keys: bson.D{{Key: "status", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}},
				Partial: bson.M{"paymentStatus": PaymentUnderReview}, Name: "held_by_status_newest"},
			// A customer's delivered orders of a store, oldest first (getPurchaseFacts:
			// verified reviews). Replaces by_customer_store_status (its prefix), which
			// keeps its name on existing databases.
			{Collection: "orders", Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "storeId", Value: 1}, {Key: "status", Value: 1},
				{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_customer_store_status_oldest"},
		},
	}, nil
}

func now() int64 { return time.Now().UnixMilli() }

// Profile is a customer profile as stored; clients and other services see
// view(), the contract's shape.
type Profile struct {
	ID           string  `bson:"_id"`
	UserID       string  `bson:"userId"`
	Name         string  `bson:"name"`
	Phone        *string `bson:"phone,omitempty"`
	Email        *string `bson:"email,omitempty"`
	CreationTime int64   `bson:"creationTime"`
	UpdatedAt    int64   `bson:"updatedAt"`
}

func (p *Profile) view() contract.Profile {
	return contract.Profile{ID: p.ID, UserID: p.UserID, Name: p.Name, Phone: p.Phone, Email: p.Email, CreationTime: p.CreationTime, UpdatedAt: p.UpdatedAt}
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

func (s *svc) getMyProfile(ctx context.Context, _ *ops.NoArgs) (*contract.Profile, error) {
	p, err := s.profileOf(ctx)
	if p == nil {
		return nil, err
	}
	v := p.view()
	return &v, nil
}

// customerRef resolves the caller's profile for the access level Customer from
// this service's own records.
func (s *svc) customerRef(ctx context.Context, userID string) (*ops.CustomerRef, error) {
	var p Profile
	err := s.env.DB.Collection("customers").FindOne(ctx, bson.M{"userId": userID}).Decode(&p)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &ops.CustomerRef{ID: p.ID, UserID: p.UserID, Name: p.Name}, nil
}
