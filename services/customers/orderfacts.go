package customers

import (
	"context"

	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/ops"
	"marketplace/services/customers/domain"
)

// getOrderFacts is for the services that move money on orders (the payouts
// service): each existing order's store, status, figures and delivery time,
// from the orders as committed. Ids that name no order are absent: the
// caller tells "unknown" from "not delivered" by it.
func (s *svc) getOrderFacts(ctx context.Context, a *contract.OrderFactsArgs) (*contract.OrderFactsResult, error) {
	os, err := s.orders.Facts(ctx, a.OrderIDs)
	if err != nil {
		return nil, err
	}
	out := &contract.OrderFactsResult{Orders: make(map[string]contract.OrderFacts, len(os))}
	for _, o := range os {
		out.Orders[o.ID] = o.Facts()
	}
	return out, nil
}

// getMoneyTotals is for the payouts service's reconciliation of the whole
// platform: sums over every order, read as committed.
func (s *svc) getMoneyTotals(ctx context.Context, _ *ops.NoArgs) (*contract.MoneyTotals, error) {
	var t contract.MoneyTotals
	if err := s.orders.EachMoney(ctx, func(o *domain.Order) { o.AddToTotals(&t) }); err != nil {
		return nil, err
	}
	return &t, nil
}
