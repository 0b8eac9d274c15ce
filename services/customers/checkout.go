package customers

// Checkout's side of the customers service: what a cart of one store costs
// (the rules: domain/pricing.go).

import (
	"context"

	contract "marketplace/libs/contracts/customers"
	"marketplace/services/customers/domain"
)

// getCheckoutQuote is for the payments service: the customer's cart lines of
// the store priced with the delivery type's fee, refused (FAILED_PRECONDITION)
// when there is nothing to pay for, when a product can no longer be bought,
// or when the profile has no phone for the delivery.
func (s *svc) getCheckoutQuote(ctx context.Context, a *contract.CheckoutQuoteArgs) (contract.CheckoutQuote, error) {
	p, err := s.profiles.Get(ctx, a.CustomerID)
	if err != nil {
		return contract.CheckoutQuote{}, err
	}
	lines, err := s.cart.Lines(ctx, p.ID, &a.StoreID)
	if err != nil {
		return contract.CheckoutQuote{}, err
	}
	if err := domain.CheckQuotable(a.StoreID, lines); err != nil {
		return contract.CheckoutQuote{}, err
	}
	ids := make([]string, len(lines))
	for i, l := range lines {
		ids[i] = l.ProductID
	}
	products, err := s.catalog.Products(ctx, ids)
	if err != nil {
		return contract.CheckoutQuote{}, err
	}
	available := make(map[string]bool, len(products))
	for id, p := range products {
		available[id] = p.IsAvailable
	}
	return domain.Quote(p, a.StoreID, a.DeliveryType, lines, available)
}
