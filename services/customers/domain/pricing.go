package domain

// Checkout's rules: what a cart of one store costs.
//
// The payments service creates the payment intent
// (customers.checkout.createPaymentIntent) with the amount this service
// quotes (Quote), and the payment's webhook later turns the same cart lines
// into an order priced by the same function (PriceLines), so the intent's
// amount is the order's total to the fils when the cart is unchanged. When it
// changed in between, the order is held for review (NewPaidOrder,
// ReviewReason).

import (
	"strings"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/money"
)

// The delivery fee rule: no platform setting configures delivery fees, so the
// fees are the platform's, here. Standard delivery costs 10 AED and is free
// for a subtotal of 100 AED or more; express costs 20 AED whatever the
// subtotal.
const (
	StandardDeliveryFee      money.Fils = 10_00
	FreeStandardDeliveryFrom money.Fils = 100_00
	ExpressDeliveryFee       money.Fils = 20_00
)

// DeliveryFee is the fee of a delivery type for a store's lines worth
// subtotal. An unknown type is INVALID_ARGUMENT naming deliveryType.
func DeliveryFee(deliveryType string, subtotal money.Fils) (money.Fils, error) {
	switch deliveryType {
	case contract.DeliveryStandard:
		if subtotal >= FreeStandardDeliveryFrom {
			return 0, nil
		}
		return StandardDeliveryFee, nil
	case contract.DeliveryExpress:
		return ExpressDeliveryFee, nil
	}
	return 0, apperr.Invalid("deliveryType", "must be one of %s, got %q", strings.Join(contract.DeliveryTypes, ", "), deliveryType)
}

// Priced is a store's cart lines priced as an order.
type Priced struct {
	Items       []OrderItem
	Subtotal    money.Fils
	DeliveryFee money.Fils
	Total       money.Fils
}

// PriceLines prices cart lines as an order with a delivery fee: each line is
// its unit price times its quantity, the total is the lines plus the fee. The
// checkout's quote and the order made from the payment both use it.
func PriceLines(lines []CartItem, fee money.Fils) Priced {
	p := Priced{Items: make([]OrderItem, 0, len(lines)), DeliveryFee: fee}
	for _, l := range lines {
		total := l.UnitPrice * money.Fils(l.Quantity)
		p.Items = append(p.Items, OrderItem{ProductID: l.ProductID, Name: l.Name, UnitPrice: l.UnitPrice, Quantity: l.Quantity, LineTotal: total})
		p.Subtotal += total
	}
	p.Total = p.Subtotal + fee
	return p
}

// CheckQuotable refuses a checkout of a store of which the cart holds nothing.
func CheckQuotable(storeID string, lines []CartItem) error {
	if len(lines) == 0 {
		return apperr.New(apperr.FailedPrecondition, "the cart has no items of store %s: add some with customers.cart.addItem", storeID).
			WithDetails(map[string]any{"reason": "empty_cart"})
	}
	return nil
}

// Quote is the checkout of a profile's cart lines of a store with a delivery
// type: refused (FAILED_PRECONDITION) when a product is gone or no longer
// available (available: the catalog's answer by product id; the customer is
// told which, before paying for something the store will not deliver) or when
// the profile has no phone for the delivery. Prices stay as the cart holds
// them (a line keeps the price it was added at until it is added again).
func Quote(p *Profile, storeID, deliveryType string, lines []CartItem, available map[string]bool) (contract.CheckoutQuote, error) {
	var names, gone []string
	for _, l := range lines {
		if !available[l.ProductID] {
			names, gone = append(names, l.Name), append(gone, l.ProductID)
		}
	}
	if len(gone) > 0 {
		return contract.CheckoutQuote{}, apperr.New(apperr.FailedPrecondition, "no longer available: %s; remove them from the cart with customers.cart.removeItem",
			strings.Join(names, ", ")).WithDetails(map[string]any{"reason": "unavailable_products", "productIds": gone})
	}
	phone := p.DeliveryPhone()
	if phone == "" {
		return contract.CheckoutQuote{}, apperr.New(apperr.FailedPrecondition,
			"the profile has no phone number for the delivery: set one with customers.profile.upsertMyProfile").
			WithDetails(map[string]any{"reason": "no_phone"})
	}
	fee, err := DeliveryFee(deliveryType, PriceLines(lines, 0).Subtotal)
	if err != nil {
		return contract.CheckoutQuote{}, err
	}
	pr := PriceLines(lines, fee)
	q := contract.CheckoutQuote{
		CustomerID: p.ID, StoreID: storeID, Phone: phone, Lines: make([]contract.QuoteLine, len(lines)),
		Subtotal: pr.Subtotal.AED(), DeliveryType: deliveryType, DeliveryFee: pr.DeliveryFee.AED(), Total: pr.Total.AED(),
	}
	for i, it := range pr.Items {
		q.Lines[i] = contract.QuoteLine{CartItemID: lines[i].ID, ProductID: it.ProductID, Name: it.Name, UnitPrice: it.UnitPrice.AED(),
			Quantity: it.Quantity, LineTotal: it.LineTotal.AED()}
	}
	return q, nil
}
