package customers

import (
	"context"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
	"marketplace/services/customers/domain"
)

type heldOrdersArgs struct {
	StoreID        *string   `json:"storeId" op:"id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listHeldOrders pages the orders still held for review (domain.Order.ToSettle),
// newest first, optionally of one store, for administrators (the registry
// checked), with the store's terms as listStoreOrders shows them. A store that
// does not exist is NOT_FOUND, as every filter naming a missing record.
func (s *svc) listHeldOrders(ctx context.Context, a *heldOrdersArgs) (page.Result[domain.OrderView], error) {
	if a.StoreID != nil {
		st, err := s.catalog.Store(ctx, *a.StoreID)
		if err != nil {
			return page.Result[domain.OrderView]{}, err
		}
		if st == nil {
			return page.Result[domain.OrderView]{}, apperr.New(apperr.NotFound, "store %s does not exist", *a.StoreID)
		}
	}
	r, err := s.orders.PageToSettle(ctx, a.StoreID, a.PaginationOpts)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	return s.named(ctx, r, true)
}
