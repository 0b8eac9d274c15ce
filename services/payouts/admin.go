package payouts

// The administrators' overviews (docs/adr/0161, 0163): every payout with
// filters and sorts, every wallet with its store's name, the wallets'
// totals; and a store's statement entries, paged, for the console's
// movements.

import (
	"context"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

type adminPayoutsArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	Status         *string   `json:"status" op:"enum=open|requested|approved|processing|completed|cancelled|failed"`
	StoreID        *string   `json:"storeId" op:"id=stores"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=newest|oldest|amount_desc|amount_asc"`
}

// payoutSort is the field and direction of a listPayouts sort (default
// newest first).
func payoutSort(sort *string) (field string, desc bool) {
	switch {
	case sort == nil || *sort == "newest":
		return "requestDate", true
	case *sort == "oldest":
		return "requestDate", false
	case *sort == "amount_desc":
		return "requestedAmount", true
	}
	return "requestedAmount", false
}

// checkRange refuses a reversed range and, with a sort by amount, a date
// range (no index serves a range on one field sorted by another: the list
// would read every payout of the range before its first page).
func checkRange(from, to *int64, field string) error {
	if from != nil && to != nil && *from > *to {
		return apperr.Invalid("to", "must not be before from (%d > %d)", *from, *to)
	}
	if field == "requestedAmount" && (from != nil || to != nil) {
		return apperr.Invalid("sort", "a date range lists by date (newest or oldest); sort by amount lists every date").
			WithDetails(map[string]any{"field": "sort", "reason": "sort_with_range"})
	}
	return nil
}

// listAllPayouts pages every payout (the admin list), with the store's
// owner and wallet figures.
func (s *svc) listAllPayouts(ctx context.Context, a *adminPayoutsArgs) (page.Result[Payout], error) {
	field, desc := payoutSort(a.Sort)
	if err := checkRange(a.From, a.To, field); err != nil {
		return page.Result[Payout]{}, err
	}
	r, err := s.payouts.ListPayouts(ctx, storage.PayoutFilter{Status: a.Status, StoreID: a.StoreID, From: a.From, To: a.To}, field, desc, a.PaginationOpts)
	if err != nil {
		return page.Result[Payout]{}, err
	}
	wallets, err := s.walletsOf(ctx, r.Page)
	if err != nil {
		return page.Result[Payout]{}, err
	}
	out := page.Map(r, func(p *domain.Payout) Payout { return payoutDetail(p, wallets[p.WalletID], true) })
	if err := s.nameStoresOf(ctx, out.Page, false); err != nil {
		return page.Result[Payout]{}, err
	}
	return out, nil
}

type countAdminPayoutsArgs struct {
	Status  *string `json:"status" op:"enum=open|requested|approved|processing|completed|cancelled|failed"`
	StoreID *string `json:"storeId" op:"id=stores"`
	From    *int64  `json:"from" op:"min=0"`
	To      *int64  `json:"to" op:"min=0"`
}

// countAllPayouts counts what listAllPayouts lists with the same filters
// (status, store, request date), up to maxListCount (then capped), from
// the index that serves the list: the queue's "Page n of m".
func (s *svc) countAllPayouts(ctx context.Context, a *countAdminPayoutsArgs) (ListCount, error) {
	if err := listPeriod(a.From, a.To); err != nil {
		return ListCount{}, err
	}
	f := storage.PayoutFilter{Status: a.Status, StoreID: a.StoreID, From: a.From, To: a.To}
	if f.Status == nil && f.StoreID == nil && f.From == nil && f.To == nil {
		zero := int64(0)
		f.From = &zero // every payout: a range of by_request_date, not a scan
	}
	n, err := s.payouts.CountPayouts(ctx, f, maxListCount+1)
	if err != nil {
		return ListCount{}, err
	}
	return cappedCount(n, maxListCount), nil
}

type listWalletsArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	Sort           *string   `json:"sort" op:"enum=available_desc|available_asc|pending_desc|pending_asc|disputed_desc|disputed_asc|updated_desc|updated_asc"`
	InDebt         *bool     `json:"inDebt"`
}

// WalletItem is an item of listWallets: the wallet, its store's name and
// owner (the catalog's now, else the wallet's copy) and when it last
// changed.
type WalletItem struct {
	WalletView
	StoreName   string `json:"storeName"`
	OwnerUserID string `json:"ownerUserId"`
	OwnerName   string `json:"ownerName"`
	UpdatedAt   int64  `json:"updatedAt"`
}

var walletSortFields = map[string]string{"available": "availableBalance", "pending": "pendingBalance", "disputed": "disputedBalance", "updated": "updatedAt"}

func (s *svc) listWallets(ctx context.Context, a *listWalletsArgs) (page.Result[WalletItem], error) {
	sort := "available_desc"
	if a.Sort != nil {
		sort = *a.Sort
	}
	key, dir, _ := strings.Cut(sort, "_")
	field := walletSortFields[key]
	inDebt := a.InDebt != nil && *a.InDebt
	if inDebt && field != "availableBalance" {
		return page.Result[WalletItem]{}, apperr.Invalid("sort", "the wallets in debt are listed by available balance (available_asc or available_desc)").
			WithDetails(map[string]any{"field": "sort", "reason": "sort_with_in_debt"})
	}
	r, err := s.wallets.ListWallets(ctx, inDebt, field, dir == "desc", a.PaginationOpts)
	if err != nil {
		return page.Result[WalletItem]{}, err
	}
	out := page.Map(r, func(w *domain.Wallet) WalletItem {
		return WalletItem{WalletView: walletView(w), StoreName: w.StoreName, OwnerUserID: w.OwnerUserID, OwnerName: w.OwnerName, UpdatedAt: w.UpdatedAt}
	})
	if len(out.Page) > 0 {
		storeIDs := make([]string, len(out.Page))
		for i, it := range out.Page {
			storeIDs[i] = it.StoreID
		}
		cctx, cancel := context.WithTimeout(ctx, contactsTimeout)
		defer cancel()
		if contacts, err := s.contacts(cctx, storeIDs); err != nil {
			s.env.Logger.WarnContext(ctx, "payouts: the catalog did not name the wallets' stores; showing the wallets' copies", "err", err)
		} else {
			for i := range out.Page {
				if c, ok := contacts[out.Page[i].StoreID]; ok {
					out.Page[i].StoreName, out.Page[i].OwnerUserID, out.Page[i].OwnerName = c.Name, c.OwnerUserID, c.OwnerName
				}
			}
		}
	}
	return out, nil
}

// WalletTotals are every wallet's figures summed (AED): the overview's
// totals line. Debt is the sum of the wallets' debts, InDebt how many are.
type WalletTotals struct {
	Wallets          int     `json:"wallets"`
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	DisputedBalance  float64 `json:"disputedBalance"`
	Debt             float64 `json:"debt"`
	InDebt           int     `json:"inDebt"`
	TotalEarnings    float64 `json:"totalEarnings"`
	TotalPayouts     float64 `json:"totalPayouts"`
	TotalOrders      int64   `json:"totalOrders"`
}

// WalletSum adds wallets' figures up in fils, one wallet at a time (no
// wallet held): the zero value is an empty sum.
type WalletSum struct {
	wallets, inDebt                     int
	avail, pend, disp, debt, earn, paid money.Fils
	orders                              int64
}

// Add adds w's figures.
func (s *WalletSum) Add(w *domain.Wallet) {
	s.wallets++
	s.avail += w.AvailableBalance
	s.pend += w.PendingBalance
	s.disp += w.DisputedBalance
	s.earn += w.TotalEarnings
	s.paid += w.TotalPayouts
	s.orders += w.TotalOrders
	if d := w.Debt(); d > 0 {
		s.debt += d
		s.inDebt++
	}
}

// Totals are the sum so far, in AED.
func (s *WalletSum) Totals() WalletTotals {
	return WalletTotals{Wallets: s.wallets, AvailableBalance: s.avail.AED(), PendingBalance: s.pend.AED(), DisputedBalance: s.disp.AED(),
		Debt: s.debt.AED(), InDebt: s.inDebt, TotalEarnings: s.earn.AED(), TotalPayouts: s.paid.AED(), TotalOrders: s.orders}
}

type walletTotalsArgs struct{}

// getWalletTotals reads every wallet (one scan, bounded by the number of
// stores), adding each up as it is read: none is held.
func (s *svc) getWalletTotals(ctx context.Context, _ *walletTotalsArgs) (*WalletTotals, error) {
	var sum WalletSum
	if err := s.wallets.EachWithTotals(ctx, sum.Add); err != nil {
		return nil, err
	}
	t := sum.Totals()
	return &t, nil
}

type statementEntriesArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	Kind           *string   `json:"kind" op:"nonblank,max=40"`
	OrderID        *string   `json:"orderId" op:"id=orders"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=newest|oldest"`
}

// StatementEntryItem is an item of listStatementEntries: the entry as
// getStatement gives it, and an earning's release time (ReleaseAt). An
// administrator's adjustment names, to administrators only (docs/adr/0168),
// who made it: AdjustedBy (their id) and AdjustedByName (their name, when
// their token stated one); both omitted for the store's owner.
type StatementEntryItem struct {
	StatementEntryView
	ReleaseAt      *int64  `json:"releaseAt,omitempty"`
	AdjustedBy     *string `json:"adjustedBy,omitempty"`
	AdjustedByName *string `json:"adjustedByName,omitempty"`
}

// listStatementEntries pages the store's statement entries, newest first
// (oldest with sort oldest), of one kind, one order and made from..to when
// given (storage.Statement.Page: the range becomes a range of the entries'
// numbers), read in one transaction with the payouts' statuses and the earnings'
// release times.
func (s *svc) listStatementEntries(ctx context.Context, a *statementEntriesArgs) (page.Result[StatementEntryItem], error) {
	st := ops.StoreOf(ctx)
	if err := listPeriod(a.From, a.To); err != nil {
		return page.Result[StatementEntryItem]{}, err
	}
	f := storage.EntryFilter{Kind: a.Kind, OrderID: a.OrderID, From: a.From, To: a.To}
	oldest := a.Sort != nil && *a.Sort == "oldest"
	var out page.Result[StatementEntryItem]
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		r, err := s.statement.Page(ctx, domain.WalletIDOf(st.ID), f, !oldest, a.PaginationOpts)
		if err != nil {
			return err
		}
		views, err := s.entryViews(ctx, r.Page)
		if err != nil {
			return err
		}
		var earnings []string
		for _, e := range r.Page {
			if e.Kind == domain.KindEarning && e.Refs.TransactionID != "" {
				earnings = append(earnings, e.Refs.TransactionID)
			}
		}
		release, err := s.ledger.Earnings(ctx, earnings)
		if err != nil {
			return err
		}
		adjusters, err := s.adjusters(ctx, r.Page)
		if err != nil {
			return err
		}
		out = page.Result[StatementEntryItem]{Page: make([]StatementEntryItem, len(views)), IsDone: r.IsDone, ContinueCursor: r.ContinueCursor}
		for i, v := range views {
			out.Page[i].StatementEntryView = v
			if at := release[v.TransactionID].ReleaseAt; v.Kind == domain.KindEarning && at != 0 {
				out.Page[i].ReleaseAt = &at
			}
			if by, ok := adjusters[v.AdjustmentID]; ok {
				out.Page[i].AdjustedBy, out.Page[i].AdjustedByName = strPtr(by.ID), strPtr(by.Name)
			}
		}
		return nil
	})
	return out, err
}

// adjusters are who made the administrators' adjustments among es, by
// adjustment id, for an administrator; nothing for anyone else (an
// administrator's name, and which administrator acted, are not the store's
// owner's to read: docs/adr/0168). Read in the caller's transaction.
func (s *svc) adjusters(ctx context.Context, es []domain.StatementEntry) (map[string]domain.Adjuster, error) {
	if !ops.Caller(ctx).IsAdmin() {
		return nil, nil
	}
	var txIDs, adjIDs []string
	for _, e := range es {
		switch {
		case e.Refs.AdjustmentID == "":
		case e.Refs.TransactionID != "":
			txIDs = append(txIDs, e.Refs.TransactionID)
		default: // a move between balances: its journal entry says who
			adjIDs = append(adjIDs, e.Refs.AdjustmentID)
		}
	}
	return s.ledger.Adjusters(ctx, txIDs, adjIDs)
}
