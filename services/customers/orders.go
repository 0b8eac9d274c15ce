package customers

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
)

// TopicOrders carries order.created and order.status_changed, keyed by order id.
const TopicOrders = contract.TopicOrders

type orderItem struct {
	ProductID string     `bson:"productId"`
	Name      string     `bson:"name"`
	UnitPrice money.Fils `bson:"unitPrice"`
	Quantity  int        `bson:"quantity"`
	LineTotal money.Fils `bson:"lineTotal"`
}

type deliveryAddress struct {
	// Limits are generous: a paid order must not be refused for a long field the
	// payment processor already accepted.
	FullAddress string `bson:"fullAddress" json:"fullAddress" op:"required,nonblank,max=2000"`
	City        string `bson:"city" json:"city" op:"required,nonblank,max=500"`
	Area        string `bson:"area" json:"area" op:"required,nonblank,max=500"`
	PhoneNumber string `bson:"phoneNumber" json:"phoneNumber" op:"required,nonblank,max=100"`
}

type statusChange struct {
	Status string `bson:"status"`
	At     int64  `bson:"at"`
	By     string `bson:"by"`
}

// Payment statuses of an order.
const (
	PaymentPaid        = contract.PaymentPaid
	PaymentUnderReview = contract.PaymentUnderReview
)

// Reasons an order's payment is held for review.
const (
	ReviewAmountMismatch   = contract.ReviewAmountMismatch
	ReviewCurrencyMismatch = contract.ReviewCurrencyMismatch
	ReviewCartEmpty        = contract.ReviewCartEmpty
)

// paymentReview records why a paid order is held, and who settled it.
type paymentReview struct {
	Reason         string     `bson:"reason"`
	ExpectedAmount money.Fils `bson:"expectedAmount"` // the order's total, AED
	AmountPaid     money.Fils `bson:"amountPaid"`     // in the minor units of Currency
	Currency       string     `bson:"currency"`
	ResolvedBy     string     `bson:"resolvedBy,omitempty"`
	ResolvedAt     int64      `bson:"resolvedAt,omitempty"`
}

// PaymentReviewView is a held payment as clients see it.
type PaymentReviewView struct {
	Reason         string  `json:"reason"`
	ExpectedAmount float64 `json:"expectedAmount"`
	AmountPaid     float64 `json:"amountPaid"` // in Currency's major unit
	Currency       string  `json:"currency"`
	ResolvedBy     string  `json:"resolvedBy,omitempty"`
	ResolvedAt     int64   `json:"resolvedAt,omitempty"`
}

type orderDoc struct {
	ID                 string          `bson:"_id"`
	CustomerID         string          `bson:"customerId"`
	CustomerUserID     string          `bson:"customerUserId"`
	StoreID            string          `bson:"storeId"`
	StoreName          string          `bson:"storeName"`
	StoreOwnerUserID   string          `bson:"storeOwnerUserId"`
	Items              []orderItem     `bson:"items"`
	Subtotal           money.Fils      `bson:"subtotal"`
	DeliveryFee        money.Fils      `bson:"deliveryFee"`
	Total              money.Fils      `bson:"total"`
	PlatformCommission money.Fils      `bson:"platformCommission"`
	StoreEarnings      money.Fils      `bson:"storeEarnings"`
	CommissionRate     float64         `bson:"commissionRate"`
	CommissionFixedFee money.Fils      `bson:"commissionFixedFee"`
	AmountPaid         *money.Fils     `bson:"amountPaid,omitempty"`
	DeliveryAddress    deliveryAddress `bson:"deliveryAddress"`
	DeliveryType       string          `bson:"deliveryType"`
	PaymentMethod      string          `bson:"paymentMethod"`
	PaymentStatus      string          `bson:"paymentStatus"`
	PaymentIntentID    string          `bson:"paymentIntentId"`
	PaymentCurrency    string          `bson:"paymentCurrency,omitempty"`
	PaymentReview      *paymentReview  `bson:"paymentReview,omitempty"`
	Status             string          `bson:"status"`
	StatusHistory      []statusChange  `bson:"statusHistory"`
	CreationTime       int64           `bson:"creationTime"`
	UpdatedAt          int64           `bson:"updatedAt"`
}

// OrderItemView and OrderView are orders as clients see them (AED numbers).
type OrderItemView struct {
	ProductID string  `json:"productId"`
	Name      string  `json:"name"`
	UnitPrice float64 `json:"unitPrice"`
	Quantity  int     `json:"quantity"`
	LineTotal float64 `json:"lineTotal"`
}

type StatusChangeView struct {
	Status string `json:"status"`
	At     int64  `json:"at"`
}

type OrderView struct {
	ID                 string             `json:"_id"`
	CreationTime       int64              `json:"_creationTime"`
	CustomerID         string             `json:"customerId"`
	StoreID            string             `json:"storeId"`
	StoreName          string             `json:"storeName"`
	Items              []OrderItemView    `json:"items"`
	Subtotal           float64            `json:"subtotal"`
	DeliveryFee        float64            `json:"deliveryFee"`
	Total              float64            `json:"total"`
	PlatformCommission *float64           `json:"platformCommission,omitempty"` // administrators only
	StoreEarnings      *float64           `json:"storeEarnings,omitempty"`      // administrators only
	AmountPaid         *float64           `json:"amountPaid,omitempty"`
	DeliveryAddress    deliveryAddress    `json:"deliveryAddress"`
	DeliveryType       string             `json:"deliveryType"`
	PaymentMethod      string             `json:"paymentMethod"`
	PaymentStatus      string             `json:"paymentStatus"`
	PaymentIntentID    string             `json:"paymentIntentId"`
	PaymentReview      *PaymentReviewView `json:"paymentReview,omitempty"`
	Status             string             `json:"status"`
	StatusHistory      []StatusChangeView `json:"statusHistory"`
	UpdatedAt          int64              `json:"updatedAt"`
}

// view is the order for its customer; the platform's commission and the store's
// earnings are business terms between the platform and the store, shown to
// administrators only (withTerms).
func (o *orderDoc) view(withTerms bool) OrderView {
	v := OrderView{
		ID: o.ID, CreationTime: o.CreationTime, CustomerID: o.CustomerID, StoreID: o.StoreID, StoreName: o.StoreName,
		Subtotal: o.Subtotal.AED(), DeliveryFee: o.DeliveryFee.AED(), Total: o.Total.AED(),
		DeliveryAddress: o.DeliveryAddress, DeliveryType: o.DeliveryType, PaymentMethod: o.PaymentMethod,
		PaymentStatus: o.PaymentStatus, PaymentIntentID: o.PaymentIntentID, Status: o.Status, UpdatedAt: o.UpdatedAt,
		Items: make([]OrderItemView, len(o.Items)), StatusHistory: make([]StatusChangeView, len(o.StatusHistory)),
	}
	if o.AmountPaid != nil && (o.PaymentCurrency == "" || o.PaymentCurrency == "aed") {
		a := o.AmountPaid.AED()
		v.AmountPaid = &a
	}
	if r := o.PaymentReview; r != nil {
		v.PaymentReview = &PaymentReviewView{Reason: r.Reason, ExpectedAmount: r.ExpectedAmount.AED(), AmountPaid: money.Major(int64(r.AmountPaid), r.Currency),
			Currency: r.Currency, ResolvedBy: r.ResolvedBy, ResolvedAt: r.ResolvedAt}
	}
	if withTerms {
		c, e := o.PlatformCommission.AED(), o.StoreEarnings.AED()
		v.PlatformCommission, v.StoreEarnings = &c, &e
	}
	for i, it := range o.Items {
		v.Items[i] = OrderItemView{ProductID: it.ProductID, Name: it.Name, UnitPrice: it.UnitPrice.AED(), Quantity: it.Quantity, LineTotal: it.LineTotal.AED()}
	}
	for i, h := range o.StatusHistory {
		v.StatusHistory[i] = StatusChangeView{Status: h.Status, At: h.At}
	}
	return v
}

func (o *orderDoc) event() contract.OrderEvent {
	return contract.OrderEvent{
		OrderID: o.ID, CustomerID: o.CustomerID, CustomerUserID: o.CustomerUserID, StoreID: o.StoreID,
		StoreName: o.StoreName, StoreOwnerUserID: o.StoreOwnerUserID, Subtotal: o.Subtotal,
		DeliveryFee: o.DeliveryFee, Total: o.Total, PlatformCommission: o.PlatformCommission,
		StoreEarnings: o.StoreEarnings, PaymentIntentID: o.PaymentIntentID, PaymentStatus: o.PaymentStatus, Status: o.Status,
	}
}

// createdEvent is order.created: held orders also say what was paid and why
// they are held.
func (o *orderDoc) createdEvent() contract.OrderEvent {
	ev := o.event()
	if r := o.PaymentReview; r != nil {
		ev.AmountPaid, ev.Currency, ev.ReviewReason = r.AmountPaid, r.Currency, r.Reason
	}
	return ev
}

// nothingToDeliver reports a held order whose payment found no cart lines.
func (o *orderDoc) nothingToDeliver() bool {
	return o.PaymentReview != nil && o.PaymentReview.Reason == ReviewCartEmpty
}

func (s *svc) orderByIntent(ctx context.Context, intent string) (*orderDoc, error) {
	var o orderDoc
	err := s.env.DB.Collection("orders").FindOne(ctx, bson.M{"paymentIntentId": intent}).Decode(&o)
	if store.IsNotFound(err) {
		return nil, nil
	}
	return &o, err
}

type createOrderArgs struct {
	CustomerID      string          `json:"customerId" op:"required,id=customers"`
	StoreID         string          `json:"storeId" op:"required,id=stores"`
	PaymentIntentID string          `json:"paymentIntentId" op:"required,nonblank,max=255"`
	DeliveryAddress deliveryAddress `json:"deliveryAddress" op:"required"`
	DeliveryType    string          `json:"deliveryType" op:"required,nonblank,max=200"`
	DeliveryFee     money.Fils      `json:"deliveryFee" op:"required,min=0"`
	// What the processor charged, in the minor units of currency / 100 (AED for
	// aed): compared with the order's total.
	AmountPaid money.Fils `json:"amountPaid" op:"required,min=0"`
	Currency   string     `json:"currency" op:"required,nonblank,max=3"`
}

// CreatedOrder is createOrderFromCart's answer (the contract's).
type CreatedOrder = contract.CreatedOrder

// createOrderFromCart turns the customer's cart lines of one store into a paid
// order. At most one order exists per payment intent (unique index); the order,
// the removal of those cart lines and the order.created event commit together.
// A payment that finds no lines of the store is never refused (the customer was
// charged): it makes an order held for review with reason cart_empty.
func (s *svc) createOrderFromCart(ctx context.Context, a *createOrderArgs) (*CreatedOrder, error) {
	if o, err := s.orderByIntent(ctx, a.PaymentIntentID); err != nil || o != nil {
		if o != nil {
			return &CreatedOrder{OrderID: o.ID}, nil
		}
		return nil, err
	}
	var p Profile
	if err := s.env.DB.Collection("customers").FindOne(ctx, bson.M{"_id": a.CustomerID}).Decode(&p); err != nil {
		if store.IsNotFound(err) {
			return nil, apperr.New(apperr.NotFound, "customer %s does not exist", a.CustomerID)
		}
		return nil, err
	}
	st, err := s.catalog.Store(ctx, a.StoreID)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, apperr.New(apperr.NotFound, "store %s does not exist", a.StoreID)
	}
	// The cart may change between reading it and committing (the customer adds an
	// item): the transaction re-reads it and starts over if it did.
	return store.Retry(ctx, "the cart", func(ctx context.Context) (*CreatedOrder, error) {
		return s.tryCreateOrder(ctx, a, &p, st)
	})
}

func (s *svc) cartLines(ctx context.Context, customerID, storeID string) ([]cartItem, error) {
	cur, err := s.env.DB.Collection("cartItems").Find(ctx, bson.M{"customerId": customerID, "storeId": storeID},
		options.Find().SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}))
	if err != nil {
		return nil, err
	}
	var lines []cartItem
	return lines, cur.All(ctx, &lines)
}

func sameLines(a, b []cartItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Quantity != b[i].Quantity || a[i].UnitPrice != b[i].UnitPrice {
			return false
		}
	}
	return true
}

func (s *svc) tryCreateOrder(ctx context.Context, a *createOrderArgs, p *Profile, st *catalog.Store) (*CreatedOrder, error) {
	lines, err := s.cartLines(ctx, p.ID, a.StoreID)
	if err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		// A concurrent delivery of the same payment may have just turned these
		// lines into the order.
		if o, err := s.orderByIntent(ctx, a.PaymentIntentID); err != nil || o != nil {
			if o != nil {
				return &CreatedOrder{OrderID: o.ID}, nil
			}
			return nil, err
		}
	}
	now := time.Now().UnixMilli()
	amountPaid, currency := a.AmountPaid, strings.ToLower(strings.TrimSpace(a.Currency))
	o := orderDoc{
		ID: ids.New("orders"), CustomerID: p.ID, CustomerUserID: p.UserID, StoreID: st.ID, StoreName: st.Name,
		StoreOwnerUserID: st.OwnerUserID, DeliveryFee: a.DeliveryFee, AmountPaid: &amountPaid, PaymentCurrency: currency,
		DeliveryAddress: a.DeliveryAddress, DeliveryType: a.DeliveryType, PaymentMethod: "card", PaymentStatus: PaymentPaid,
		PaymentIntentID: a.PaymentIntentID, Status: StatusConfirmed, CreationTime: now, UpdatedAt: now,
	}
	lineIDs := make([]string, len(lines))
	for i, l := range lines {
		lineIDs[i] = l.ID
	}
	if len(lines) == 0 {
		// Paid, but nothing of the store is in the cart: a second payment of the
		// same cart, or a cart emptied before paying. The payment is kept on an
		// order that holds nothing (no items, no fee, total 0, no commission),
		// held for review like a mismatched payment so that an administrator
		// cancels it and the payment is refunded; it can never be confirmed.
		o.Items, o.DeliveryFee = []orderItem{}, 0
		o.Status, o.PaymentStatus = StatusPending, PaymentUnderReview
		o.PaymentReview = &paymentReview{Reason: ReviewCartEmpty, ExpectedAmount: 0, AmountPaid: amountPaid, Currency: currency}
	} else {
		// Priced as checkout quoted the payment intent's amount (checkout.go).
		pr := priceLines(lines, a.DeliveryFee)
		o.Items, o.Subtotal, o.Total = pr.Items, pr.Subtotal, pr.Total
		// The safety net behind checkout: an order is paid only when what was paid
		// is its total in AED. Otherwise it is held (pending, payment under review)
		// for an administrator to settle; the store sees it only once confirmed.
		if reason := reviewReason(currency, amountPaid, o.Total); reason != "" {
			o.Status, o.PaymentStatus = StatusPending, PaymentUnderReview
			o.PaymentReview = &paymentReview{Reason: reason, ExpectedAmount: o.Total, AmountPaid: amountPaid, Currency: currency}
		}
		// The commission is frozen on the order with the rules in force now.
		c, err := s.commissions.Commission(ctx, a.StoreID, o.Subtotal, o.DeliveryFee)
		if err != nil {
			return nil, err
		}
		for _, f := range []struct {
			dst *money.Fils
			v   float64
		}{{&o.PlatformCommission, c.PlatformCommission}, {&o.StoreEarnings, c.StoreEarnings}, {&o.CommissionFixedFee, c.FixedFee}} {
			if *f.dst, err = money.FromAED(f.v); err != nil {
				return nil, err
			}
		}
		o.CommissionRate = c.CommissionRate
	}
	o.StatusHistory = []statusChange{{Status: o.Status, At: now, By: "payments"}}

	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		now, err := s.cartLines(ctx, p.ID, a.StoreID)
		if err != nil {
			return err
		}
		if !sameLines(lines, now) {
			return store.ErrConflict // (also when a concurrent delivery ordered them, or a line arrived)
		}
		if _, err := s.env.DB.Collection("orders").InsertOne(ctx, o); err != nil {
			return err
		}
		if len(lineIDs) > 0 {
			if _, err := s.env.DB.Collection("cartItems").DeleteMany(ctx, bson.M{"_id": bson.M{"$in": lineIDs}, "customerId": p.ID}); err != nil {
				return err
			}
		}
		_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventOrderCreated, o.ID, o.createdEvent())
		return err
	})
	if store.IsDuplicate(err) {
		// A concurrent delivery of the same payment created the order first.
		existing, ferr := s.orderByIntent(ctx, a.PaymentIntentID)
		if ferr != nil || existing == nil {
			return nil, errors.Join(err, ferr)
		}
		return &CreatedOrder{OrderID: existing.ID}, nil
	}
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	res := &CreatedOrder{OrderID: o.ID, Created: true}
	if r := o.PaymentReview; r != nil {
		msg := "paid order held for review: the payment does not match the order's total"
		if o.nothingToDeliver() {
			msg = "paid order held for review: the cart holds nothing of the store (a second payment of the cart, or a cart emptied before paying); to be cancelled and refunded"
		}
		s.env.Logger.WarnContext(ctx, msg, "orderId", o.ID, "paymentIntentId", o.PaymentIntentID, "customerId", o.CustomerID,
			"storeId", o.StoreID, "reason", r.Reason, "total", o.Total.AED(), "amountPaid", amountPaid.AED(), "currency", currency)
		res.HeldForReview, res.ReviewReason = true, r.Reason
	}
	return res, nil
}

// reviewReason is why a payment cannot mark an order paid, or "".
func reviewReason(currency string, paid, total money.Fils) string {
	switch {
	case currency != "aed":
		return ReviewCurrencyMismatch
	case paid != total:
		return ReviewAmountMismatch
	}
	return ""
}

type intentArgs struct {
	PaymentIntentID string `json:"paymentIntentId" op:"required,nonblank,max=255"`
}

// getOrderByPaymentIntent: the caller's own order; administrators see any.
// Another customer's payment answers null, exactly as a payment of no order
// (no existence oracle).
func (s *svc) getOrderByPaymentIntent(ctx context.Context, a *intentArgs) (*OrderView, error) {
	o, err := s.orderByIntent(ctx, a.PaymentIntentID)
	if err != nil || o == nil {
		return nil, err
	}
	id := ops.Caller(ctx)
	if id.Sub != o.CustomerUserID && !id.IsAdmin() {
		return nil, nil // another customer's payment: as for one that made no order
	}
	v := o.view(id.IsAdmin())
	return &v, nil
}

type myOrdersArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

func (s *svc) getMyOrders(ctx context.Context, a *myOrdersArgs) (page.Result[OrderView], error) {
	// Orders are the caller's by user id (copied from the profile), so no profile
	// lookup is needed: a user without one simply has none.
	r, err := page.Find(ctx, s.env.DB.Collection("orders"), bson.M{"customerUserId": ops.Caller(ctx).Sub},
		page.Sort{Field: "creationTime", Desc: true}, a.PaginationOpts, func(o *orderDoc) (any, string) { return o.CreationTime, o.ID })
	if err != nil {
		return page.Result[OrderView]{}, err
	}
	return page.Map(r, func(o *orderDoc) OrderView { return o.view(false) }), nil
}

type updateStatusArgs struct {
	OrderID string `json:"orderId" op:"required,id=orders"`
	Status  string `json:"status" op:"required,enum=pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
}

// storeOfOrder leads the access check of updateOrderStatus from the order to
// its store.
func (s *svc) storeOfOrder(ctx context.Context, orderID string) (string, error) {
	var o struct {
		StoreID string `bson:"storeId"`
	}
	err := s.env.DB.Collection("orders").FindOne(ctx, bson.M{"_id": orderID}, options.FindOne().SetProjection(bson.M{"storeId": 1})).Decode(&o)
	if store.IsNotFound(err) {
		return "", apperr.New(apperr.NotFound, "order %s does not exist", orderID)
	}
	return o.StoreID, err
}

// updateOrderStatus moves an order along its status machine; the store's owner
// or an administrator may (the registry checked the caller against the store). The move and its order.status_changed event commit
// together, and a concurrent move of the same order cannot both succeed.
func (s *svc) updateOrderStatus(ctx context.Context, a *updateStatusArgs) (ops.Null, error) {
	caller := ops.Caller(ctx)
	var changed orderDoc
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		var o orderDoc
		err := s.env.DB.Collection("orders").FindOne(ctx, bson.M{"_id": a.OrderID}).Decode(&o)
		if store.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "order %s does not exist", a.OrderID)
		}
		if err != nil {
			return err
		}
		if !CanMove(o.Status, a.Status) {
			return illegalMove(o.Status, a.Status)
		}
		now := time.Now().UnixMilli()
		set := bson.M{"status": a.Status, "updatedAt": now}
		if o.PaymentStatus == PaymentUnderReview {
			// A held payment is the platform's to settle: an administrator
			// confirms the order (the payment is accepted as paid) or cancels it.
			// An order whose payment found the cart empty holds nothing to
			// deliver: it can only be cancelled.
			if !caller.IsAdmin() {
				if o.nothingToDeliver() {
					return apperr.New(apperr.FailedPrecondition, "the order's payment is under review by the platform; an administrator cancels it")
				}
				return apperr.New(apperr.FailedPrecondition, "the order's payment is under review by the platform; an administrator confirms or cancels it")
			}
			if a.Status == StatusConfirmed {
				if o.nothingToDeliver() {
					return apperr.New(apperr.FailedPrecondition, "order %s holds no items (its payment found the cart without items of the store): there is nothing to deliver; cancel it and refund the payment", o.ID)
				}
				set["paymentStatus"] = PaymentPaid
			}
			set["paymentReview.resolvedBy"], set["paymentReview.resolvedAt"] = caller.Sub, now
		}
		res, err := s.env.DB.Collection("orders").UpdateOne(ctx, bson.M{"_id": o.ID, "status": o.Status, "paymentStatus": o.PaymentStatus}, bson.M{
			"$set":  set,
			"$push": bson.M{"statusHistory": statusChange{Status: a.Status, At: now, By: caller.Sub}},
		})
		if err != nil {
			return err
		}
		if res.ModifiedCount != 1 {
			return apperr.New(apperr.FailedPrecondition, "the order's status changed meanwhile; read it again")
		}
		ev := o.event()
		ev.From, ev.To, ev.ChangedBy, ev.Status = o.Status, a.Status, caller.Sub, a.Status
		if ps, ok := set["paymentStatus"].(string); ok {
			ev.PaymentStatus = ps
		}
		changed = o
		_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventOrderStatusChanged, o.ID, ev)
		return err
	})
	if err == nil && changed.ID != "" {
		s.env.Relay.Kick()
	}
	return nil, err
}

type profilesArgs struct {
	CustomerIDs []string `json:"customerIds" op:"required,id=customers,max=500"`
}

// getProfiles is for other services: profiles by id, missing ids absent.
func (s *svc) getProfiles(ctx context.Context, a *profilesArgs) (map[string]contract.Profile, error) {
	cur, err := s.env.DB.Collection("customers").Find(ctx, bson.M{"_id": bson.M{"$in": a.CustomerIDs}})
	if err != nil {
		return nil, err
	}
	var ps []Profile
	if err := cur.All(ctx, &ps); err != nil {
		return nil, err
	}
	out := make(map[string]contract.Profile, len(ps))
	for _, p := range ps {
		out[p.ID] = p.view()
	}
	return out, nil
}

// getPurchaseFacts is for the reviews service: what it needs to decide a
// review's verified purchase, from the orders as committed, so a review sent
// right after updateOrderStatus(delivered) returned sees the delivery.
func (s *svc) getPurchaseFacts(ctx context.Context, a *contract.PurchaseFactsArgs) (*contract.PurchaseFacts, error) {
	var out contract.PurchaseFacts
	orders := s.env.DB.Collection("orders")
	if a.OrderID != nil {
		var o struct {
			CustomerID string `bson:"customerId"`
			StoreID    string `bson:"storeId"`
			Status     string `bson:"status"`
		}
		err := orders.FindOne(ctx, bson.M{"_id": *a.OrderID}, options.FindOne().SetProjection(bson.M{"customerId": 1, "storeId": 1, "status": 1})).Decode(&o)
		switch {
		case store.IsNotFound(err):
		case err != nil:
			return nil, err
		default:
			out.OrderExists, out.OrderStatus = true, o.Status
			out.OrderOfCustomer, out.OrderOfStore = o.CustomerID == a.CustomerID, o.StoreID == a.StoreID
		}
	}
	// The delivered orders (a cancelled order is never delivered), oldest
	// first: the reviews service verifies one review without orderId per
	// delivered order that no verified review of the customer uses.
	delivered := bson.M{"customerId": a.CustomerID, "storeId": a.StoreID, "status": StatusDelivered}
	n, err := orders.CountDocuments(ctx, delivered)
	if err != nil {
		return nil, err
	}
	out.DeliveredOrders, out.HasDeliveredOrder = int(n), n > 0
	out.DeliveredOrderIDs = []string{}
	if n > 0 {
		cur, err := orders.Find(ctx, delivered, options.Find().SetProjection(bson.M{"_id": 1}).
			SetSort(bson.D{{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(contract.MaxDeliveredOrderIDs))
		if err != nil {
			return nil, err
		}
		var os []struct {
			ID string `bson:"_id"`
		}
		if err := cur.All(ctx, &os); err != nil {
			return nil, err
		}
		for _, o := range os {
			out.DeliveredOrderIDs = append(out.DeliveredOrderIDs, o.ID)
		}
	}
	return &out, nil
}
