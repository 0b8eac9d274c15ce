package domain

import (
	"strings"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/money"
)

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

// OrderItem is one line of an order, priced when the order was made.
type OrderItem struct {
	ProductID string     `bson:"productId"`
	Name      string     `bson:"name"`
	UnitPrice money.Fils `bson:"unitPrice"`
	Quantity  int        `bson:"quantity"`
	LineTotal money.Fils `bson:"lineTotal"`
}

// DeliveryAddress is where an order goes, as the payment carried it.
type DeliveryAddress struct {
	// Limits are generous: a paid order must not be refused for a long field the
	// payment processor already accepted.
	FullAddress string `bson:"fullAddress" json:"fullAddress" op:"required,nonblank,max=2000"`
	City        string `bson:"city" json:"city" op:"required,nonblank,max=500"`
	Area        string `bson:"area" json:"area" op:"required,nonblank,max=500"`
	PhoneNumber string `bson:"phoneNumber" json:"phoneNumber" op:"required,nonblank,max=100"`
}

// StatusChange is one entry of an order's status history.
type StatusChange struct {
	Status string `bson:"status"`
	At     int64  `bson:"at"`
	By     string `bson:"by"`
	// ByName is By's name as their token stated it, recorded for the moves
	// of administrators and store owners ("" when the token stated none, and
	// on older entries: docs/adr/0168).
	ByName string `bson:"byName,omitempty"`
	// Role is who By was (RoleCustomer, RoleStore, RoleAdministrator,
	// RoleSystem); entries older than it get it from By (Order.RoleOf).
	Role string `bson:"role,omitempty"`
}

// PaymentReview records why a paid order is held, and who settled it.
type PaymentReview struct {
	Reason         string     `bson:"reason"`
	ExpectedAmount money.Fils `bson:"expectedAmount"` // the order's total, AED
	AmountPaid     money.Fils `bson:"amountPaid"`     // in the minor units of Currency
	Currency       string     `bson:"currency"`
	ResolvedBy     string     `bson:"resolvedBy,omitempty"`
	// ResolvedByName is the resolving administrator's name as their token
	// stated it (omitted when it had none, and on older records:
	// docs/adr/0168).
	ResolvedByName string `bson:"resolvedByName,omitempty"`
	ResolvedAt     int64  `bson:"resolvedAt,omitempty"`
}

// Order is an order as stored.
type Order struct {
	ID string `bson:"_id"`
	// Number is the order's short number (OrderNumber of its id), stored to
	// be found; orders older than it get it from a background backfill.
	Number             string          `bson:"number,omitempty"`
	CustomerID         string          `bson:"customerId"`
	CustomerUserID     string          `bson:"customerUserId"`
	StoreID            string          `bson:"storeId"`
	StoreName          string          `bson:"storeName"`
	StoreOwnerUserID   string          `bson:"storeOwnerUserId"`
	Items              []OrderItem     `bson:"items"`
	Subtotal           money.Fils      `bson:"subtotal"`
	DeliveryFee        money.Fils      `bson:"deliveryFee"`
	Total              money.Fils      `bson:"total"`
	PlatformCommission money.Fils      `bson:"platformCommission"`
	StoreEarnings      money.Fils      `bson:"storeEarnings"`
	CommissionRate     float64         `bson:"commissionRate"`
	CommissionFixedFee money.Fils      `bson:"commissionFixedFee"`
	AmountPaid         *money.Fils     `bson:"amountPaid,omitempty"`
	DeliveryAddress    DeliveryAddress `bson:"deliveryAddress"`
	DeliveryType       string          `bson:"deliveryType"`
	PaymentMethod      string          `bson:"paymentMethod"`
	PaymentStatus      string          `bson:"paymentStatus"`
	PaymentIntentID    string          `bson:"paymentIntentId"`
	PaymentCurrency    string          `bson:"paymentCurrency,omitempty"`
	PaymentReview      *PaymentReview  `bson:"paymentReview,omitempty"`
	Status             string          `bson:"status"`
	StatusHistory      []StatusChange  `bson:"statusHistory"`
	// Refunds asked of the order and their outcome; RefundedAmount sums the
	// succeeded ones (minor units of the payment currency); Disputes are its
	// payment's disputes as the payments service reported them (refund.go).
	Refunds        []Refund       `bson:"refunds,omitempty"`
	RefundedAmount money.Fils     `bson:"refundedAmount,omitempty"`
	Disputes       []OrderDispute `bson:"disputes,omitempty"`
	CreationTime   int64          `bson:"creationTime"`
	UpdatedAt      int64          `bson:"updatedAt"`
}

// StoreRef is the store an order is of, as the catalog has it.
type StoreRef struct{ ID, Name, OwnerUserID string }

// Payment is what the payment's webhook reports of a payment.
type Payment struct {
	IntentID        string
	DeliveryAddress DeliveryAddress
	DeliveryType    string
	DeliveryFee     money.Fils
	// What the processor charged, in the minor units of Currency / 100 (AED
	// for aed): compared with the order's total.
	AmountPaid money.Fils
	Currency   string
}

// Commission is the platform's commission on an order, frozen on it with the
// rules in force when it is made.
type Commission struct {
	Platform, StoreEarnings, FixedFee money.Fils
	Rate                              float64
}

// NewPaidOrder is the order a payment makes of a customer's cart lines of a
// store (lines as PriceLines prices them; commission computed on their
// subtotal and pay's fee). It is confirmed and paid only when what was paid is
// its total in AED; otherwise it is held (pending, payment under review) for
// an administrator to settle: a payment above the total (the cart shrank
// after its payment intent was made) as surely as one below it. A payment
// that finds no lines is never refused (the customer was charged): it makes
// an order that holds nothing (no items, no fee, total 0, no commission),
// held with reason cart_empty, that can only be cancelled (and refunded).
func NewPaidOrder(id string, customer *Profile, st StoreRef, lines []CartItem, pay Payment, c Commission, now int64) Order {
	amountPaid, currency := pay.AmountPaid, strings.ToLower(strings.TrimSpace(pay.Currency))
	o := Order{
		ID: id, Number: OrderNumber(id), CustomerID: customer.ID, CustomerUserID: customer.UserID, StoreID: st.ID, StoreName: st.Name,
		StoreOwnerUserID: st.OwnerUserID, DeliveryFee: pay.DeliveryFee, AmountPaid: &amountPaid, PaymentCurrency: currency,
		DeliveryAddress: pay.DeliveryAddress, DeliveryType: pay.DeliveryType, PaymentMethod: "card", PaymentStatus: PaymentPaid,
		PaymentIntentID: pay.IntentID, Status: StatusConfirmed, CreationTime: now, UpdatedAt: now,
	}
	if len(lines) == 0 {
		// A second payment of the same cart, or a cart emptied before paying.
		o.Items, o.DeliveryFee = []OrderItem{}, 0
		o.hold(ReviewCartEmpty, 0, amountPaid, currency)
	} else {
		// Priced as checkout quoted the payment intent's amount.
		pr := PriceLines(lines, pay.DeliveryFee)
		o.Items, o.Subtotal, o.Total = pr.Items, pr.Subtotal, pr.Total
		if reason := ReviewReason(currency, amountPaid, o.Total); reason != "" {
			o.hold(reason, o.Total, amountPaid, currency)
		}
		o.PlatformCommission, o.StoreEarnings, o.CommissionFixedFee, o.CommissionRate = c.Platform, c.StoreEarnings, c.FixedFee, c.Rate
	}
	o.StatusHistory = []StatusChange{{Status: o.Status, At: now, By: BySystemPayments, Role: RoleSystem}}
	return o
}

// hold makes the order pending with its payment under review; the store sees
// it only once an administrator confirmed it.
func (o *Order) hold(reason string, expected, paid money.Fils, currency string) {
	o.Status, o.PaymentStatus = StatusPending, PaymentUnderReview
	o.PaymentReview = &PaymentReview{Reason: reason, ExpectedAmount: expected, AmountPaid: paid, Currency: currency}
}

// ReviewReason is why a payment cannot mark an order of total paid, or "":
// the safety net behind checkout.
func ReviewReason(currency string, paid, total money.Fils) string {
	switch {
	case currency != "aed":
		return ReviewCurrencyMismatch
	case paid != total:
		return ReviewAmountMismatch
	}
	return ""
}

// Held reports an order whose payment is held for review.
func (o *Order) Held() bool { return o.PaymentStatus == PaymentUnderReview }

// ToSettle reports a held order not yet settled. A held order is made
// pending with its payment under review; an administrator settles it by
// confirming it (the payment becomes paid) or cancelling it (the payment
// stays under review, for the refund), and the status machine allows nothing
// else from pending. So pending and under review is exactly "still to
// settle" (the storage's held filter selects the same).
func (o *Order) ToSettle() bool { return o.Held() && o.Status == StatusPending }

// VisibleToStore: an order whose payment is held is the platform's to settle;
// the store sees it only once an administrator confirmed it (the storage's
// store filter selects the same).
func (o *Order) VisibleToStore() bool { return !o.Held() }

// VisibleTo: a customer sees their own order, an administrator any; another
// customer's order reads as no order at all (no existence oracle).
func (o *Order) VisibleTo(userID string, admin bool) bool { return admin || userID == o.CustomerUserID }

// NothingToDeliver reports a held order whose payment found no cart lines.
func (o *Order) NothingToDeliver() bool {
	return o.PaymentReview != nil && o.PaymentReview.Reason == ReviewCartEmpty
}

// Move takes the order to status to, by user by (admin: an administrator;
// otherwise the store's owner, checked before), at now, and returns its
// order.status_changed event. The move must be one the status machine allows
// (CanMove). A held payment is the platform's to settle: only an
// administrator moves a held order, confirming it (the payment is accepted as
// paid) or cancelling it, and an order whose payment found the cart empty
// holds nothing to deliver: it can only be cancelled.
func (o *Order) Move(to, by string, admin bool, now int64) (contract.OrderEvent, error) {
	return o.MoveNamed(to, by, "", admin, now)
}

// MoveNamed is Move recording the mover's name (byName, "" for none) beside
// their id in the status history (docs/adr/0168).
func (o *Order) MoveNamed(to, by, byName string, admin bool, now int64) (contract.OrderEvent, error) {
	role := RoleStore
	if admin {
		role = RoleAdministrator
	}
	return o.move(to, StatusChange{By: by, ByName: byName, Role: role}, admin, now)
}

// CancelAsCustomer cancels the order for its customer (CancelByCustomer
// checked it before): the history says the customer did.
func (o *Order) CancelAsCustomer(by string, now int64) (contract.OrderEvent, error) {
	return o.move(StatusCancelled, StatusChange{By: by, Role: RoleCustomer}, true, now)
}

func (o *Order) move(to string, who StatusChange, admin bool, now int64) (contract.OrderEvent, error) {
	by := who.By
	if !CanMove(o.Status, to) {
		return contract.OrderEvent{}, IllegalMove(o.Status, to)
	}
	if o.Held() {
		if !admin {
			if o.NothingToDeliver() {
				return contract.OrderEvent{}, apperr.New(apperr.FailedPrecondition, "the order's payment is under review by the platform; an administrator cancels it")
			}
			return contract.OrderEvent{}, apperr.New(apperr.FailedPrecondition, "the order's payment is under review by the platform; an administrator confirms or cancels it")
		}
		if to == StatusConfirmed {
			if o.NothingToDeliver() {
				return contract.OrderEvent{}, apperr.New(apperr.FailedPrecondition, "order %s holds no items (its payment found the cart without items of the store): there is nothing to deliver; cancel it and refund the payment", o.ID)
			}
			o.PaymentStatus = PaymentPaid
		}
		// A fresh value: the review as loaded stays as it was.
		r := PaymentReview{}
		if o.PaymentReview != nil {
			r = *o.PaymentReview
		}
		r.ResolvedBy, r.ResolvedByName, r.ResolvedAt = by, who.ByName, now
		o.PaymentReview = &r
	}
	from := o.Status
	o.Status, o.UpdatedAt = to, now
	o.StatusHistory = append(o.StatusHistory[:len(o.StatusHistory):len(o.StatusHistory)], StatusChange{Status: to, At: now, By: by, ByName: who.ByName, Role: who.Role})
	ev := o.Event()
	ev.From, ev.To, ev.ChangedBy = from, to, by
	return ev, nil
}

// OrderChangedMeanwhile is the refusal of a move whose order another move
// changed between reading and writing it.
func OrderChangedMeanwhile() error {
	return apperr.New(apperr.FailedPrecondition, "the order's status changed meanwhile; read it again")
}

// Event is the order's event payload (order.created, order.status_changed).
func (o *Order) Event() contract.OrderEvent {
	return contract.OrderEvent{
		OrderID: o.ID, CustomerID: o.CustomerID, CustomerUserID: o.CustomerUserID, StoreID: o.StoreID,
		StoreName: o.StoreName, StoreOwnerUserID: o.StoreOwnerUserID, Subtotal: o.Subtotal,
		DeliveryFee: o.DeliveryFee, Total: o.Total, PlatformCommission: o.PlatformCommission,
		StoreEarnings: o.StoreEarnings, PaymentIntentID: o.PaymentIntentID, PaymentStatus: o.PaymentStatus, Status: o.Status,
	}
}

// CreatedEvent is order.created: held orders also say what was paid and why
// they are held.
func (o *Order) CreatedEvent() contract.OrderEvent {
	ev := o.Event()
	if r := o.PaymentReview; r != nil {
		ev.AmountPaid, ev.Currency, ev.ReviewReason = r.AmountPaid, r.Currency, r.Reason
	}
	return ev
}

// Facts is the order as the services that move money on it see it: the
// delivery time is that of the last delivered entry of its history.
func (o *Order) Facts() contract.OrderFacts {
	f := contract.OrderFacts{OrderID: o.ID, StoreID: o.StoreID, StoreName: o.StoreName, StoreOwnerUserID: o.StoreOwnerUserID, Status: o.Status,
		Total: o.Total, PlatformCommission: o.PlatformCommission, StoreEarnings: o.StoreEarnings,
		PaymentStatus: o.PaymentStatus, PaymentIntentID: o.PaymentIntentID, AmountPaid: o.Paid(), Currency: o.Currency(), RefundedAmount: o.RefundedAmount, Refunds: o.refundFacts()}
	for _, h := range o.StatusHistory {
		if h.Status == StatusDelivered {
			at := h.At
			f.DeliveredAt = &at
		}
	}
	return f
}

// PurchaseFacts is what the reviews service decides a verified purchase on:
// the order named (nil: none, or no such order) as it relates to the customer
// and the store, and the customer's delivered orders of the store (how many,
// and the first of them, oldest first).
func PurchaseFacts(o *Order, customerID, storeID string, delivered int64, deliveredIDs []string) contract.PurchaseFacts {
	var out contract.PurchaseFacts
	if o != nil {
		out.OrderExists, out.OrderStatus = true, o.Status
		out.OrderOfCustomer, out.OrderOfStore = o.CustomerID == customerID, o.StoreID == storeID
	}
	out.DeliveredOrders, out.HasDeliveredOrder = int(delivered), delivered > 0
	out.DeliveredOrderIDs = append([]string{}, deliveredIDs...)
	return out
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
	// Who moved it, to administrators and the store: By is the user (or
	// "payments"), Role what they were.
	By   string `json:"by,omitempty"`
	Role string `json:"role,omitempty" enum:"customer|store|administrator|system"`
	// ByName is By's name when their token stated one as they moved it
	// (docs/adr/0168): omitted otherwise and on older entries.
	ByName string `json:"byName,omitempty"`
}

// DeliveryAddressView is the delivery address with its places' names: City
// and Area are as the payment carried them (ids of the catalog's places, or
// text from older payments); the names are the catalog's for ids it knows,
// absent otherwise.
type DeliveryAddressView struct {
	FullAddress    string `json:"fullAddress"`
	City           string `json:"city"`
	Area           string `json:"area"`
	PhoneNumber    string `json:"phoneNumber"`
	CityName       string `json:"cityName,omitempty"`
	CityNameArabic string `json:"cityNameArabic,omitempty"`
	AreaName       string `json:"areaName,omitempty"`
}

// DisputeView is a dispute of the order's payment, as the payments service
// reported it (amount in its currency's major unit).
type DisputeView struct {
	ID       string  `json:"disputeId"`
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
	Status   string  `json:"status"`
}

// PaymentReviewView is a held payment as clients see it.
type PaymentReviewView struct {
	Reason         string  `json:"reason"`
	ExpectedAmount float64 `json:"expectedAmount"`
	AmountPaid     float64 `json:"amountPaid"` // in Currency's major unit
	Currency       string  `json:"currency"`
	ResolvedBy     string  `json:"resolvedBy,omitempty"`
	// ResolvedByName is the resolving administrator's name: administrators
	// only (UnnameStaff).
	ResolvedByName string `json:"resolvedByName,omitempty"`
	ResolvedAt     int64  `json:"resolvedAt,omitempty"`
}

type OrderView struct {
	ID           string `json:"_id"`
	CreationTime int64  `json:"_creationTime"`
	// Number is the order's short number (OrderNumber).
	Number     string `json:"number"`
	CustomerID string `json:"customerId"`
	// CustomerName is the customer's profile name now (absent when the
	// profile is gone).
	CustomerName       string              `json:"customerName,omitempty"`
	StoreID            string              `json:"storeId"`
	StoreName          string              `json:"storeName"`
	Items              []OrderItemView     `json:"items"`
	Subtotal           float64             `json:"subtotal"`
	DeliveryFee        float64             `json:"deliveryFee"`
	Total              float64             `json:"total"`
	PlatformCommission *float64            `json:"platformCommission,omitempty"` // administrators only
	StoreEarnings      *float64            `json:"storeEarnings,omitempty"`      // administrators only
	AmountPaid         *float64            `json:"amountPaid,omitempty"`
	DeliveryAddress    DeliveryAddressView `json:"deliveryAddress"`
	DeliveryType       string              `json:"deliveryType"`
	PaymentMethod      string              `json:"paymentMethod"`
	PaymentStatus      string              `json:"paymentStatus"`
	PaymentIntentID    string              `json:"paymentIntentId"`
	PaymentReview      *PaymentReviewView  `json:"paymentReview,omitempty"`
	Status             string              `json:"status"`
	StatusHistory      []StatusChangeView  `json:"statusHistory"`
	UpdatedAt          int64               `json:"updatedAt"`
	// What the processor refunded (AED; the payment currency's major unit for
	// an order paid in another), and the refund status once anything was.
	RefundedAmount float64      `json:"refundedAmount"`
	RefundStatus   string       `json:"refundStatus,omitempty" enum:"partially_refunded|refunded"`
	Refunds        []RefundView `json:"refunds"`
	// What may still be refunded: administrators and the store only.
	RefundableAmount *float64 `json:"refundableAmount,omitempty"`
	// The terms of the commission (administrators and the store only): the
	// rate and the fixed fee (AED) in force when the order was made.
	CommissionRate     *float64 `json:"commissionRate,omitempty"`
	CommissionFixedFee *float64 `json:"commissionFixedFee,omitempty"`
	// The disputes of its payment (administrators and the store only).
	Disputes []DisputeView `json:"disputes,omitempty"`
}

// PlaceName is a city's or an area's names as the catalog has them.
type PlaceName struct{ Name, NameArabic string }

// Names are what order views show by name: customers' profile names by
// profile id, places by id. Missing entries leave the names out.
type Names struct {
	Customers map[string]string
	Places    map[string]PlaceName
}

// NamedView is View with the names: the customer's, and the delivery
// address's city and area where they are ids the catalog knows (a city or
// area given as text stays as it is, without names).
func (o *Order) NamedView(withTerms bool, n Names) OrderView {
	v := o.View(withTerms)
	v.CustomerName = n.Customers[o.CustomerID]
	if p, ok := n.Places[o.DeliveryAddress.City]; ok {
		v.DeliveryAddress.CityName, v.DeliveryAddress.CityNameArabic = p.Name, p.NameArabic
	}
	if p, ok := n.Places[o.DeliveryAddress.Area]; ok {
		v.DeliveryAddress.AreaName = p.Name
	}
	return v
}

// View is the order for its customer; the platform's commission and the
// store's earnings are business terms between the platform and the store,
// shown with withTerms only (administrators, the store's own lists).
func (o *Order) View(withTerms bool) OrderView {
	v := OrderView{
		ID: o.ID, CreationTime: o.CreationTime, Number: OrderNumber(o.ID), CustomerID: o.CustomerID, StoreID: o.StoreID, StoreName: o.StoreName,
		Subtotal: o.Subtotal.AED(), DeliveryFee: o.DeliveryFee.AED(), Total: o.Total.AED(),
		DeliveryAddress: DeliveryAddressView{FullAddress: o.DeliveryAddress.FullAddress, City: o.DeliveryAddress.City,
			Area: o.DeliveryAddress.Area, PhoneNumber: o.DeliveryAddress.PhoneNumber}, DeliveryType: o.DeliveryType, PaymentMethod: o.PaymentMethod,
		PaymentStatus: o.PaymentStatus, PaymentIntentID: o.PaymentIntentID, Status: o.Status, UpdatedAt: o.UpdatedAt,
		Items: make([]OrderItemView, len(o.Items)), StatusHistory: make([]StatusChangeView, len(o.StatusHistory)),
	}
	if o.AmountPaid != nil && (o.PaymentCurrency == "" || o.PaymentCurrency == "aed") {
		a := o.AmountPaid.AED()
		v.AmountPaid = &a
	}
	if r := o.PaymentReview; r != nil {
		v.PaymentReview = &PaymentReviewView{Reason: r.Reason, ExpectedAmount: r.ExpectedAmount.AED(), AmountPaid: money.Major(int64(r.AmountPaid), r.Currency),
			Currency: r.Currency, ResolvedAt: r.ResolvedAt}
		// Who resolved it, to the store and administrators only: the customer
		// learns that it was resolved, not by whom (as the status history).
		if withTerms {
			v.PaymentReview.ResolvedBy, v.PaymentReview.ResolvedByName = r.ResolvedBy, r.ResolvedByName
		}
	}
	v.RefundedAmount, v.RefundStatus, v.Refunds = o.major(o.RefundedAmount), o.RefundStatus(), o.refundViews()
	if withTerms {
		c, e, r := o.PlatformCommission.AED(), o.StoreEarnings.AED(), o.major(o.Refundable())
		v.PlatformCommission, v.StoreEarnings, v.RefundableAmount = &c, &e, &r
		rate, fee := o.CommissionRate, o.CommissionFixedFee.AED()
		v.CommissionRate, v.CommissionFixedFee = &rate, &fee
		for _, d := range o.Disputes {
			cur := d.Currency
			if cur == "" {
				cur = o.Currency()
			}
			v.Disputes = append(v.Disputes, DisputeView{ID: d.ID, Amount: money.Major(int64(d.Amount), cur), Currency: cur, Status: d.Status})
		}
	}
	for i, it := range o.Items {
		v.Items[i] = OrderItemView{ProductID: it.ProductID, Name: it.Name, UnitPrice: it.UnitPrice.AED(), Quantity: it.Quantity, LineTotal: it.LineTotal.AED()}
	}
	for i, h := range o.StatusHistory {
		v.StatusHistory[i] = StatusChangeView{Status: h.Status, At: h.At}
		if withTerms {
			v.StatusHistory[i].By, v.StatusHistory[i].Role, v.StatusHistory[i].ByName = h.By, o.RoleOf(h), h.ByName
		}
	}
	return v
}

// UnnameStaff leaves the administrators' names out of v's status history
// and its held payment's resolution: the view served to the store's owner
// (docs/adr/0168). Their id and role stay, as owners saw them before names
// were recorded; the owners' own names stay.
func (v *OrderView) UnnameStaff() {
	if v.PaymentReview != nil {
		v.PaymentReview.ResolvedByName = ""
	}
	for i := range v.StatusHistory {
		if v.StatusHistory[i].Role == RoleAdministrator {
			v.StatusHistory[i].ByName = ""
		}
	}
}
