package customers

import (
	"context"

	"marketplace/libs/ops"
	"marketplace/services/customers/domain"
)

type salesSummaryArgs struct {
	StoreID     string  `json:"storeId" op:"required,id=stores"`
	From        int64   `json:"from" op:"required,min=0"`
	To          int64   `json:"to" op:"required,min=0"`
	Granularity *string `json:"granularity" op:"enum=day|week"`
}

// getSalesSummary sums the store's orders placed in a period by Dubai day or
// week (domain.SummarizeSales), computed on read from the orders (no running
// totals: docs/adr/0164). The read is one bounded range of the index
// by_store_newest: more than salesMaxOrders orders in the period is refused,
// never summed in part.
func (s *svc) getSalesSummary(ctx context.Context, a *salesSummaryArgs) (*domain.SalesSummary, error) {
	g := domain.GranularityDay
	if a.Granularity != nil {
		g = *a.Granularity
	}
	if err := domain.CheckSalesPeriod(a.From, a.To, g); err != nil {
		return nil, err
	}
	limit := s.set.SalesMaxOrders
	os, err := s.orders.SalesOf(ctx, ops.StoreOf(ctx).ID, a.From, a.To, limit+1)
	if err != nil {
		return nil, err
	}
	if len(os) > limit {
		return nil, domain.TooManyOrders(limit)
	}
	sum := domain.SummarizeSales(os, a.From, a.To, g)
	return &sum, nil
}
