package customers

// Checkout's side of the customers service: what a cart of one store costs.
//
// The payments service creates the payment intent
// (customers.checkout.createPaymentIntent) with the amount this service
// quotes, and the payment's webhook later turns the same cart lines into an
// order priced by the same function (priceLines), so the intent's amount is
// the order's total to the fils when the cart is unchanged. When it changed
// in between, the order is held for review (orders.go, reviewReason).

import (
	"context"
	"strings"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/money"
	"marketplace/libs/store"
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

// priced is a store's cart lines priced as an order.
type priced struct {
	Items       []orderItem
	Subtotal    money.Fils
	DeliveryFee money.Fils
	Total       money.Fils
}

// priceLines prices cart lines as an order with a delivery fee: each line is
// its unit price times its quantity, the total is the lines plus the fee. The
// checkout's quote and the order made from the payment both use it.
func priceLines(lines []cartItem, fee money.Fils) priced {
	p := priced{Items: make([]orderItem, 0, len(lines)), DeliveryFee: fee}
	for _, l := range lines {
		total := l.UnitPrice * money.Fils(l.Quantity)
		p.Items = append(p.Items, orderItem{ProductID: l.ProductID, Name: l.Name, UnitPrice: l.UnitPrice, Quantity: l.Quantity, LineTotal: total})
		p.Subtotal += total
	}
	p.Total = p.Subtotal + fee
	return p
}

// getCheckoutQuote is for the payments service: the customer's cart lines of
// the store priced with the delivery type's fee, refused (FAILED_PRECONDITION)
// when there is nothing to pay for, when a product can no longer be bought,
// or when the profile has no phone for the delivery.
func (s *svc) getCheckoutQuote(ctx context.Context, a *contract.CheckoutQuoteArgs) (contract.CheckoutQuote, error) {
	var p Profile
	if err := s.env.DB.Collection("customers").FindOne(ctx, bson.M{"_id": a.CustomerID}).Decode(&p); err != nil {
		if store.IsNotFound(err) {
			return contract.CheckoutQuote{}, apperr.New(apperr.NotFound, "customer %s does not exist", a.CustomerID)
		}
		return contract.CheckoutQuote{}, err
	}
	lines, err := s.cartLines(ctx, p.ID, a.StoreID)
	if err != nil {
		return contract.CheckoutQuote{}, err
	}
	if len(lines) == 0 {
		return contract.CheckoutQuote{}, apperr.New(apperr.FailedPrecondition, "the cart has no items of store %s: add some with customers.cart.addItem", a.StoreID).
			WithDetails(map[string]any{"reason": "empty_cart"})
	}
	if err := s.checkAvailable(ctx, lines); err != nil {
		return contract.CheckoutQuote{}, err
	}
	if p.Phone == nil || strings.TrimSpace(*p.Phone) == "" {
		return contract.CheckoutQuote{}, apperr.New(apperr.FailedPrecondition,
			"the profile has no phone number for the delivery: set one with customers.profile.upsertMyProfile").
			WithDetails(map[string]any{"reason": "no_phone"})
	}
	fee, err := DeliveryFee(a.DeliveryType, priceLines(lines, 0).Subtotal)
	if err != nil {
		return contract.CheckoutQuote{}, err
	}
	pr := priceLines(lines, fee)
	q := contract.CheckoutQuote{
		CustomerID: p.ID, StoreID: a.StoreID, Phone: strings.TrimSpace(*p.Phone), Lines: make([]contract.QuoteLine, len(lines)),
		Subtotal: pr.Subtotal.AED(), DeliveryType: a.DeliveryType, DeliveryFee: pr.DeliveryFee.AED(), Total: pr.Total.AED(),
	}
	for i, it := range pr.Items {
		q.Lines[i] = contract.QuoteLine{CartItemID: lines[i].ID, ProductID: it.ProductID, Name: it.Name, UnitPrice: it.UnitPrice.AED(),
			Quantity: it.Quantity, LineTotal: it.LineTotal.AED()}
	}
	return q, nil
}

// checkAvailable refuses lines whose product is gone or no longer available:
// the customer is told which, before paying for something the store will not
// deliver. Prices stay as the cart holds them (a line keeps the price it was
// added at until it is added again).
func (s *svc) checkAvailable(ctx context.Context, lines []cartItem) error {
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.ProductID
	}
	products, err := s.catalog.Products(ctx, ids)
	if err != nil {
		return err
	}
	var names, gone []string
	for _, l := range lines {
		if p, ok := products[l.ProductID]; !ok || !p.IsAvailable {
			names, gone = append(names, l.Name), append(gone, l.ProductID)
		}
	}
	if len(gone) > 0 {
		return apperr.New(apperr.FailedPrecondition, "no longer available: %s; remove them from the cart with customers.cart.removeItem",
			strings.Join(names, ", ")).WithDetails(map[string]any{"reason": "unavailable_products", "productIds": gone})
	}
	return nil
}
