package customers

import (
	"context"

	"marketplace/libs/ops"
	"marketplace/services/customers/domain"
)

// Settings are the customers service's own, from the environment.
type Settings struct {
	// SalesMaxOrders bounds getSalesSummary's read: a period with more of
	// the store's orders is FAILED_PRECONDITION too_many_orders (a shorter
	// period answers). Lowered by tests.
	SalesMaxOrders int `env:"SALES_SUMMARY_MAX_ORDERS" default:"20000"`
}

// salesMaxOrders is the bound of getSalesSummary's read.
func (s *svc) salesMaxOrders() int {
	if st, ok := s.env.Settings.(*Settings); ok && st.SalesMaxOrders > 0 {
		return st.SalesMaxOrders
	}
	return 20000
}

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
	limit := s.salesMaxOrders()
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
