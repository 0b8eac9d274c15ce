// Package customers is the customers context's contract: order events (topic
// "orders"), the profile and order-creation operations other services call,
// and a typed client.
package customers

import (
	"context"
	"time"

	"marketplace/libs/cache"
	"marketplace/libs/money"
	"marketplace/libs/ops"
)

// Service is the customers module name.
const Service = "customers"

// TopicOrders carries order events, keyed by order id.
const TopicOrders = "orders"

// Event types on TopicOrders; both carry OrderEvent.
const (
	EventOrderCreated       = "order.created"
	EventOrderStatusChanged = "order.status_changed"
)

// Payment statuses of an order.
const (
	PaymentPaid        = "paid"
	PaymentUnderReview = "under_review" // what was paid differs from the order's total: held for review
)

// Reasons an order's payment is held for review (OrderEvent.ReviewReason, the
// order's paymentReview.reason).
const (
	ReviewAmountMismatch   = "amount_mismatch"   // paid in AED, not the order's total
	ReviewCurrencyMismatch = "currency_mismatch" // paid in another currency
	// The payment found no cart lines of its store (a second payment of the
	// same cart, or a cart emptied before paying): the order holds no items,
	// its total is 0, and it can only be cancelled (the payment refunded).
	ReviewCartEmpty = "cart_empty"
)

// Order statuses.
const (
	StatusPending        = "pending"
	StatusConfirmed      = "confirmed"
	StatusPreparing      = "preparing"
	StatusOutForDelivery = "out_for_delivery"
	StatusDelivered      = "delivered"
	StatusCancelled      = "cancelled"
)

// OrderEvent is the data of order.created and order.status_changed. Money is
// integer fils. From, To and ChangedBy are set on status changes; AmountPaid
// and Currency on held orders (PaymentStatus under_review), in the minor units
// of Currency, and ReviewReason on order.created of a held order.
type OrderEvent struct {
	OrderID            string     `json:"orderId"`
	CustomerID         string     `json:"customerId"`
	CustomerUserID     string     `json:"customerUserId"`
	StoreID            string     `json:"storeId"`
	StoreName          string     `json:"storeName"`
	StoreOwnerUserID   string     `json:"storeOwnerUserId"`
	Subtotal           money.Fils `json:"subtotalFils"`
	DeliveryFee        money.Fils `json:"deliveryFeeFils"`
	Total              money.Fils `json:"totalFils"`
	PlatformCommission money.Fils `json:"platformCommissionFils"`
	StoreEarnings      money.Fils `json:"storeEarningsFils"`
	PaymentIntentID    string     `json:"paymentIntentId"`
	PaymentStatus      string     `json:"paymentStatus" enum:"paid|under_review"`
	AmountPaid         money.Fils `json:"amountPaidFils,omitempty"`
	Currency           string     `json:"currency,omitempty"`
	ReviewReason       string     `json:"reviewReason,omitempty"`
	Status             string     `json:"status" enum:"pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
	From               string     `json:"from,omitempty" enum:"pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
	To                 string     `json:"to,omitempty" enum:"pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
	ChangedBy          string     `json:"changedBy,omitempty"`
}

// Profile is a customer profile.
type Profile struct {
	ID           string  `json:"_id"`
	UserID       string  `json:"userId"`
	Name         string  `json:"name"`
	Phone        *string `json:"phone,omitempty"`
	Email        *string `json:"email,omitempty"`
	CreationTime int64   `json:"_creationTime"`
	UpdatedAt    int64   `json:"updatedAt"`
}

// DeliveryAddress is where a paid order goes.
type DeliveryAddress struct {
	FullAddress string `json:"fullAddress"`
	City        string `json:"city"`
	Area        string `json:"area"`
	PhoneNumber string `json:"phoneNumber"`
}

// CreateOrder is the request of customers.cartToOrder.createOrderFromCart.
// AmountPaid is what the processor charged, in the minor units of Currency
// divided by 100 (AED for aed), as an interface number.
type CreateOrder struct {
	CustomerID      string          `json:"customerId"`
	StoreID         string          `json:"storeId"`
	PaymentIntentID string          `json:"paymentIntentId"`
	DeliveryAddress DeliveryAddress `json:"deliveryAddress"`
	DeliveryType    string          `json:"deliveryType"`
	DeliveryFee     float64         `json:"deliveryFee"`
	AmountPaid      float64         `json:"amountPaid"`
	Currency        string          `json:"currency"`
}

// CreatedOrder is createOrderFromCart's answer; Created is false when an order
// for the payment intent already existed. A created order held for review says
// why (ReviewReason, one of the Review* reasons).
type CreatedOrder struct {
	OrderID       string `json:"orderId"`
	Created       bool   `json:"created"`
	HeldForReview bool   `json:"heldForReview,omitempty"`
	ReviewReason  string `json:"reviewReason,omitempty"`
}

// Operations other services call.
const (
	OpGetMyProfile = "customers.profile.getMyProfile"
	OpGetProfiles  = "customers.profile.getProfiles"
	OpCreateOrder  = "customers.cartToOrder.createOrderFromCart"
)

// ProfileCacheTTL is how long a user's profile found through MyProfile is
// reused (a profile's id never changes; its name may lag this long).
const ProfileCacheTTL = 10 * time.Second

// Client calls the customers service.
type Client struct {
	calls *ops.Client
	mine  *cache.TTL[string, Profile]
}

// NewClient makes a client over calls.
func NewClient(calls *ops.Client) *Client {
	return &Client{calls: calls, mine: cache.New[string, Profile](ProfileCacheTTL, 100_000)}
}

// MyProfile is the calling user's profile (the caller's token travels with the
// call), nil when they have none yet (not cached: it may be created any moment).
func (c *Client) MyProfile(ctx context.Context, userID string) (*Profile, error) {
	return c.mine.Lookup(userID, func() (*Profile, error) {
		var p *Profile
		err := c.calls.Query(ctx, Service, OpGetMyProfile, nil, &p)
		return p, err
	})
}

// Profiles are profiles by id; missing ids are absent.
func (c *Client) Profiles(ctx context.Context, ids []string) (map[string]Profile, error) {
	var out map[string]Profile
	err := c.calls.Query(ctx, Service, OpGetProfiles, map[string]any{"customerIds": ids}, &out)
	return out, err
}

// CreateOrderFromCart turns the customer's cart lines of a store into an order,
// once per payment intent.
func (c *Client) CreateOrderFromCart(ctx context.Context, req CreateOrder) (*CreatedOrder, error) {
	var out CreatedOrder
	if err := c.calls.Mutation(ctx, Service, OpCreateOrder, req, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// OpGetPurchaseFacts (internal query) says what the reviews service needs to
// decide a review's verified purchase: PurchaseFactsArgs in, PurchaseFacts out.
const OpGetPurchaseFacts = "customers.orders.getPurchaseFacts"

// PurchaseFactsArgs are the arguments of OpGetPurchaseFacts.
type PurchaseFactsArgs struct {
	CustomerID string  `json:"customerId" op:"required,id=customers"`
	StoreID    string  `json:"storeId" op:"required,id=stores"`
	OrderID    *string `json:"orderId" op:"id=orders"`
}

// PurchaseFacts is OpGetPurchaseFacts's answer, read from the orders as they
// are committed (a status change is seen as soon as it has returned). The
// Order* fields are about the order asked for (all false without one).
type PurchaseFacts struct {
	OrderExists       bool   `json:"orderExists"`
	OrderOfCustomer   bool   `json:"orderOfCustomer"`
	OrderOfStore      bool   `json:"orderOfStore"`
	OrderStatus       string `json:"orderStatus,omitempty"`
	HasDeliveredOrder bool   `json:"hasDeliveredOrder"` // the customer has a delivered order of the store
	DeliveredOrders   int    `json:"deliveredOrders"`   // how many
	// DeliveredOrderIDs are the customer's delivered orders of the store,
	// oldest first, at most MaxDeliveredOrderIDs of them (the reviews
	// service verifies one review without orderId per delivered order no
	// verified review uses). Always present (an empty list for none) from
	// this release on: nil means an older customers service, which does not
	// name them.
	DeliveredOrderIDs []string `json:"deliveredOrderIds"`
}

// MaxDeliveredOrderIDs is the most delivered orders PurchaseFacts names.
const MaxDeliveredOrderIDs = 1000

// PurchaseFacts asks whether orderID (optional: "") exists, is customerID's
// and is of storeID, and whether the customer has a delivered order of the store.
func (c *Client) PurchaseFacts(ctx context.Context, customerID, storeID, orderID string) (*PurchaseFacts, error) {
	args := PurchaseFactsArgs{CustomerID: customerID, StoreID: storeID}
	if orderID != "" {
		args.OrderID = &orderID
	}
	var out PurchaseFacts
	if err := c.calls.Query(ctx, Service, OpGetPurchaseFacts, args, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// CustomerRef resolves the caller's profile for the access levels of ops
// (Resolvers.Customer).
func (c *Client) CustomerRef(ctx context.Context, userID string) (*ops.CustomerRef, error) {
	p, err := c.MyProfile(ctx, userID)
	if err != nil || p == nil {
		return nil, err
	}
	return &ops.CustomerRef{ID: p.ID, UserID: p.UserID, Name: p.Name}, nil
}

// Delivery types a checkout offers: the deliveryType of
// customers.checkout.createPaymentIntent and of OpGetCheckoutQuote. The fee of
// each is the customers service's rule (services/customers/checkout.go).
const (
	DeliveryStandard = "standard"
	DeliveryExpress  = "express"
)

// DeliveryTypes are the delivery types, in the order the API lists them.
var DeliveryTypes = []string{DeliveryStandard, DeliveryExpress}

// OpGetCheckoutQuote (internal query) prices a customer's cart lines of one
// store for checkout: the lines, the delivery fee of the delivery type and the
// total, computed by the same function that prices the order the payment's
// webhook creates, and the phone of the customer's profile.
const OpGetCheckoutQuote = "customers.checkout.getCheckoutQuote"

// CheckoutQuoteArgs are the arguments of OpGetCheckoutQuote.
type CheckoutQuoteArgs struct {
	CustomerID   string `json:"customerId" op:"required,id=customers"`
	StoreID      string `json:"storeId" op:"required,id=stores"`
	DeliveryType string `json:"deliveryType" op:"required,enum=standard|express"`
}

// QuoteLine is a priced cart line (AED numbers).
type QuoteLine struct {
	CartItemID string  `json:"cartItemId"`
	ProductID  string  `json:"productId"`
	Name       string  `json:"name"`
	UnitPrice  float64 `json:"unitPrice"`
	Quantity   int     `json:"quantity"`
	LineTotal  float64 `json:"lineTotal"`
}

// CheckoutQuote is OpGetCheckoutQuote's answer (AED numbers). Total is
// Subtotal + DeliveryFee, what the order will cost if the cart is unchanged
// when the payment arrives.
type CheckoutQuote struct {
	CustomerID   string      `json:"customerId"`
	StoreID      string      `json:"storeId"`
	Phone        string      `json:"phone"`
	Lines        []QuoteLine `json:"lines"`
	Subtotal     float64     `json:"subtotal"`
	DeliveryType string      `json:"deliveryType"`
	DeliveryFee  float64     `json:"deliveryFee"`
	Total        float64     `json:"total"`
}

// CheckoutQuote prices the customer's cart lines of storeID with the fee of
// deliveryType. An empty cart for that store, a product no longer available
// and a profile without a phone are FAILED_PRECONDITION.
func (c *Client) CheckoutQuote(ctx context.Context, customerID, storeID, deliveryType string) (*CheckoutQuote, error) {
	var out CheckoutQuote
	args := CheckoutQuoteArgs{CustomerID: customerID, StoreID: storeID, DeliveryType: deliveryType}
	if err := c.calls.Query(ctx, Service, OpGetCheckoutQuote, args, &out); err != nil {
		return nil, err
	}
	return &out, nil
}
