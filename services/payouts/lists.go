package payouts

// The store's money lists with filters and sorts (docs/adr/0170): the
// owner's payouts by status and request date, sorted by date or amount,
// and the movements (statement entries) by kind and date, newest or oldest
// first. Every filter is the server's (a page of a filtered list is a page
// of what matches), and each is served by an index (storage.Indexes).

import (
	"context"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// maxListDays is the longest date range a list takes (from..to,
// inclusive), as the statement and the exports.
const maxListDays = maxStatementDays

// listPeriod checks a list's optional date range (epoch ms, inclusive):
// to not before from, and at most maxListDays between them
// (INVALID_ARGUMENT, details.reason range_too_large). One bound alone is
// an open range.
func listPeriod(from, to *int64) error {
	if from == nil || to == nil {
		return nil
	}
	if *from > *to {
		return apperr.Invalid("to", "must not be before from (%d > %d)", *from, *to)
	}
	if *to-*from > maxListDays*dayMs {
		return apperr.Invalid("to", "a list's date range covers at most %d days", maxListDays).
			WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": maxListDays})
	}
	return nil
}

type storePayoutsArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	Status         *string   `json:"status" op:"enum=requested|approved|processing|completed|cancelled|failed"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=newest|oldest|amount_desc|amount_asc"`
}

// listPayouts pages the store's payouts (newest request first unless sort
// says otherwise), of one status and requested from..to when given; admin
// notes are for administrators only.
func (s *svc) listPayouts(ctx context.Context, a *storePayoutsArgs) (page.Result[Payout], error) {
	st := ops.StoreOf(ctx)
	field, desc := payoutSort(a.Sort)
	if err := listPeriod(a.From, a.To); err != nil {
		return page.Result[Payout]{}, err
	}
	if err := checkRange(a.From, a.To, field); err != nil {
		return page.Result[Payout]{}, err
	}
	r, err := s.payouts.ListPayouts(ctx, storage.PayoutFilter{Status: a.Status, StoreID: &st.ID, OwnStore: true, From: a.From, To: a.To}, field, desc, a.PaginationOpts)
	if err != nil {
		return page.Result[Payout]{}, err
	}
	w, err := s.wallet(ctx, st.ID)
	if err != nil {
		return page.Result[Payout]{}, err
	}
	admin := ops.Caller(ctx).IsAdmin()
	out := page.Map(r, func(p *domain.Payout) Payout { return payoutDetail(p, w, admin) })
	if err := s.nameStoresOf(ctx, out.Page, true); err != nil {
		return page.Result[Payout]{}, err
	}
	return out, nil
}

// maxListCount caps a list's count (the pager's "Page n of m"): past it
// the count says capped.
const maxListCount = 10_000

// ListCount is a capped count: Count items, or at least Count when Capped.
type ListCount struct {
	Count  int64 `json:"count"`
	Capped bool  `json:"capped"`
}

// cappedCount turns a count asked with limit max+1 into a ListCount.
func cappedCount(n, max int64) ListCount {
	if n > max {
		return ListCount{Count: max, Capped: true}
	}
	return ListCount{Count: n}
}

type countStorePayoutsArgs struct {
	StoreID string  `json:"storeId" op:"required,id=stores"`
	Status  *string `json:"status" op:"enum=requested|approved|processing|completed|cancelled|failed"`
	From    *int64  `json:"from" op:"min=0"`
	To      *int64  `json:"to" op:"min=0"`
}

// countPayouts counts what listPayouts lists with the same filters, up to
// maxListCount (then capped), from the index alone.
func (s *svc) countPayouts(ctx context.Context, a *countStorePayoutsArgs) (ListCount, error) {
	if err := listPeriod(a.From, a.To); err != nil {
		return ListCount{}, err
	}
	id := ops.StoreOf(ctx).ID
	n, err := s.payouts.CountPayouts(ctx, storage.PayoutFilter{Status: a.Status, StoreID: &id, From: a.From, To: a.To}, maxListCount+1)
	if err != nil {
		return ListCount{}, err
	}
	return cappedCount(n, maxListCount), nil
}
