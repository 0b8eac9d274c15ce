package customers

import (
	"context"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
	"marketplace/services/customers/domain"
	"marketplace/services/customers/storage"
)

type heldOrdersArgs struct {
	StoreID        *string   `json:"storeId" op:"id=stores"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=newest|oldest"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listHeldOrders pages the orders still held for review (domain.Order.ToSettle),
// newest first (or oldest), optionally of one store and placed from..to
// (domain.CheckHeldPeriod), for administrators (the registry
// checked), with the store's terms as listStoreOrders shows them. A store that
// does not exist is NOT_FOUND, as every filter naming a missing record.
func (s *svc) listHeldOrders(ctx context.Context, a *heldOrdersArgs) (page.Result[domain.OrderView], error) {
	f, err := s.heldFilter(ctx, a.StoreID, a.From, a.To)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	r, err := s.orders.PageToSettle(ctx, f, a.Sort != nil && *a.Sort == domain.SortOldest, a.PaginationOpts)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	return s.named(ctx, r, true)
}

// heldFilter checks a listing's period and store (a store that does not
// exist is NOT_FOUND).
func (s *svc) heldFilter(ctx context.Context, storeID *string, from, to *int64) (storage.HeldFilter, error) {
	if err := domain.CheckHeldPeriod(from, to); err != nil {
		return storage.HeldFilter{}, err
	}
	if storeID != nil {
		st, err := s.catalog.Store(ctx, *storeID)
		if err != nil {
			return storage.HeldFilter{}, err
		}
		if st == nil {
			return storage.HeldFilter{}, apperr.New(apperr.NotFound, "store %s does not exist", *storeID)
		}
	}
	return storage.HeldFilter{StoreID: storeID, From: from, To: to}, nil
}

type countHeldArgs struct {
	StoreID *string `json:"storeId" op:"id=stores"`
	From    *int64  `json:"from" op:"min=0"`
	To      *int64  `json:"to" op:"min=0"`
}

// countHeldOrders counts what listHeldOrders lists with the same filters,
// up to ORDERS_COUNT_MAX (then capped), along the same partial index: the
// console's "Page n of m".
func (s *svc) countHeldOrders(ctx context.Context, a *countHeldArgs) (domain.Count, error) {
	f, err := s.heldFilter(ctx, a.StoreID, a.From, a.To)
	if err != nil {
		return domain.Count{}, err
	}
	n, err := s.orders.CountToSettle(ctx, f, s.set.OrdersCountMax)
	if err != nil {
		return domain.Count{}, err
	}
	return domain.CountOf(n, s.set.OrdersCountMax), nil
}
