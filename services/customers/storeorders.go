package customers

import (
	"context"

	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/customers/domain"
)

type storeOrdersArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	Status         *string   `json:"status" op:"enum=pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listStoreOrders pages a store's orders, newest first, optionally of one
// status, for its owner or an administrator (the registry checked). The
// commission and the store's earnings are shown: they are the terms between
// the platform and this store. An order whose payment is held for review is
// the platform's to settle: the store sees it only once an administrator
// confirmed it (domain.Order.VisibleToStore; administrators see every order).
func (s *svc) listStoreOrders(ctx context.Context, a *storeOrdersArgs) (page.Result[domain.OrderView], error) {
	r, err := s.orders.PageOfStore(ctx, ops.StoreOf(ctx).ID, a.Status, ops.Caller(ctx).IsAdmin(), a.PaginationOpts)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	return page.Map(r, func(o *domain.Order) domain.OrderView { return o.View(true) }), nil
}
