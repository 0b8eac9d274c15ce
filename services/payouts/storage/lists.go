package storage

// The administrators' lists (docs/adr/0161, 0163): every payout by status,
// store and request date, sorted by date or amount; every wallet sorted by
// a balance or its last change; a wallet's statement entries newest first.
// Each filter and sort they allow has its index (Indexes).

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// PayoutFilter narrows ListPayouts: each field when set.
type PayoutFilter struct {
	Status, StoreID *string
	From, To        *int64 // requestDate, inclusive
	// OwnStore: StoreID is the caller's store (the list's scope), not a
	// filter an administrator chose (a cursor is bound to the filters only).
	OwnStore bool
}

func (f PayoutFilter) filter() bson.M {
	filter := bson.M{}
	switch {
	case f.Status != nil && *f.Status == domain.StatusOpen:
		// The three open statuses: each an index range (open_oldest,
		// status_by_amount and the store's), merged in order by MongoDB
		// (an $in on an index's first keys is read per value, "explode for
		// sort", as Open's).
		filter["status"] = bson.M{"$in": domain.OpenStatuses}
	case f.Status != nil:
		filter["status"] = *f.Status
	}
	if f.StoreID != nil {
		filter["storeId"] = *f.StoreID
	}
	if r := (page.Period{From: f.From, To: f.To}).Range(); r != nil {
		filter["requestDate"] = bson.M(r)
	}
	return filter
}

// ListPayouts pages the payouts matching f, by field (requestDate or
// requestedAmount), descending when desc.
func (r *Payouts) ListPayouts(ctx context.Context, f PayoutFilter, field string, desc bool, o page.Opts) (page.Result[domain.Payout], error) {
	filter := f.filter()
	store := f.StoreID
	if f.OwnStore {
		store = nil
	}
	// A cursor is of its order and filters (docs/adr/0172): newest first is
	// the default, whose cursors the previous release made on creationTime
	// (the owner's list): a payout's requestDate is its creationTime
	// (domain.NewPayout), so they go on along requestDate.
	s := page.Sort{Field: field, Desc: desc, Query: []any{!desc, f.Status, f.From, f.To, store}}
	if field == "requestDate" {
		s.Was = "creationTime"
	}
	return page.Find(ctx, r.db.Collection(PayoutsColl), filter, s, o, func(p *domain.Payout) (any, string) {
		if field == "requestedAmount" {
			return int64(p.RequestedAmount), p.ID
		}
		return p.RequestDate, p.ID
	})
}

// ListWallets pages the wallets by field (availableBalance,
// pendingBalance, disputedBalance or updatedAt), descending when desc; only
// those in debt (available below zero) when inDebt (then field is
// availableBalance).
func (r *Wallets) ListWallets(ctx context.Context, inDebt bool, field string, desc bool, o page.Opts) (page.Result[domain.Wallet], error) {
	filter := bson.M{}
	if inDebt {
		filter["availableBalance"] = bson.M{"$lt": 0}
	}
	s := page.Sort{Field: field, Desc: desc, Query: []any{!desc, inDebt}} // descending is the default
	return page.Find(ctx, r.db.Collection(WalletsColl), filter, s, o, func(w *domain.Wallet) (any, string) {
		switch field {
		case "availableBalance":
			return int64(w.AvailableBalance), w.ID
		case "pendingBalance":
			return int64(w.PendingBalance), w.ID
		case "disputedBalance":
			return int64(w.DisputedBalance), w.ID
		}
		return w.UpdatedAt, w.ID
	})
}

// ListWalletsByID pages every wallet in the order of its id: an order no
// balance change moves (the wallets export).
func (r *Wallets) ListWalletsByID(ctx context.Context, o page.Opts) (page.Result[domain.Wallet], error) {
	return page.Find(ctx, r.db.Collection(WalletsColl), bson.M{}, page.Sort{Field: "_id"}, o, func(w *domain.Wallet) (any, string) { return w.ID, w.ID })
}

// EachWithTotals runs fn on every wallet, with its balances and totals.
func (r *Wallets) EachWithTotals(ctx context.Context, fn func(*domain.Wallet)) error {
	return each(ctx, r.db, WalletsColl, bson.M{}, bson.M{"availableBalance": 1, "pendingBalance": 1, "disputedBalance": 1,
		"totalEarnings": 1, "totalPayouts": 1, "totalOrders": 1}, fn)
}

// EntryFilter narrows Statement.Page: each field when set (From and To on
// the entry's time, inclusive).
type EntryFilter struct {
	Kind, OrderID *string
	From, To      *int64
}

// Page pages the wallet's statement entries by their number (seq), newest
// first when desc, of one kind, one order and made from..to when given. A
// wallet's entries are numbered in the order they are made, at a time that
// does not go back, so a period is a range of numbers: its first and last
// entries are found along by_time, and the page is read along by_change
// (or kind_by_change, order_by_change) within them, never walking the
// wallet's whole statement for a period.
func (r *Statement) Page(ctx context.Context, walletID string, f EntryFilter, desc bool, o page.Opts) (page.Result[domain.StatementEntry], error) {
	filter := bson.M{"walletId": walletID}
	if f.Kind != nil {
		filter["kind"] = *f.Kind
	}
	if f.OrderID != nil {
		filter["refs.orderId"] = *f.OrderID
	}
	if f.From != nil || f.To != nil {
		seqs := bson.M{}
		if f.From != nil {
			first, err := r.edge(ctx, walletID, bson.M{"$gte": *f.From}, 1)
			if err != nil || first == nil {
				return page.Result[domain.StatementEntry]{IsDone: true}, err
			}
			seqs["$gte"] = first.Seq
		}
		if f.To != nil {
			last, err := r.edge(ctx, walletID, bson.M{"$lte": *f.To}, -1)
			if err != nil || last == nil {
				return page.Result[domain.StatementEntry]{IsDone: true}, err
			}
			seqs["$lte"] = last.Seq
		}
		filter["seq"] = seqs
	}
	return page.Find(ctx, r.db.Collection(StatementColl), filter,
		page.Sort{Field: "seq", Desc: desc, Query: []any{!desc, f.Kind, f.OrderID, f.From, f.To}}, o,
		func(e *domain.StatementEntry) (any, string) { return e.Seq, e.ID })
}

// edge is the wallet's first (dir 1) or last (dir -1) entry whose time
// matches at, along by_time; nil when none does.
func (r *Statement) edge(ctx context.Context, walletID string, at bson.M, dir int) (*domain.StatementEntry, error) {
	es, err := store.FindAll[domain.StatementEntry](ctx, r.db.Collection(StatementColl), bson.M{"walletId": walletID, "at": at},
		options.Find().SetSort(bson.D{{Key: "at", Value: dir}, {Key: "seq", Value: dir}}).SetLimit(1).SetProjection(bson.M{"seq": 1}))
	if err != nil || len(es) == 0 {
		return nil, err
	}
	return &es[0], nil
}

// Earnings are the earnings ids by id, with their type, status, what they
// still hold and release time only (domain.Transaction.StillHeld).
func (r *Ledger) Earnings(ctx context.Context, ids []string) (map[string]domain.Transaction, error) {
	out := map[string]domain.Transaction{}
	if len(ids) == 0 {
		return out, nil
	}
	ts, err := store.FindAll[domain.Transaction](ctx, r.db.Collection(TxColl), bson.M{"_id": bson.M{"$in": ids}},
		options.Find().SetProjection(bson.M{"type": 1, "status": 1, "heldRemaining": 1, "releaseAt": 1}))
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		out[t.ID] = t
	}
	return out, nil
}

// CountPayouts counts the payouts matching f, up to limit: a count that
// stops at limit (an export asks its cap plus one), reading no document.
func (r *Payouts) CountPayouts(ctx context.Context, f PayoutFilter, limit int64) (int64, error) {
	return r.db.Collection(PayoutsColl).CountDocuments(ctx, f.filter(), options.Count().SetLimit(limit))
}

// CountAll counts the wallets, up to limit (their ids along by_available:
// a count without a filter would be a collection scan).
func (r *Wallets) CountAll(ctx context.Context, limit int64) (int64, error) {
	ws, err := store.FindAll[domain.Wallet](ctx, r.db.Collection(WalletsColl), bson.M{}, options.Find().
		SetSort(bson.D{{Key: "availableBalance", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(limit).SetProjection(bson.M{"_id": 1}))
	return int64(len(ws)), err
}

// searchFields are what a search of payouts reads and answers.
var searchFields = bson.M{"storeId": 1, "storeName": 1, "status": 1, "requestedAmount": 1, "requestDate": 1, "transactionReference": 1}

// Newest are the newest payouts by request date, at most limit, with what a
// search reads (searchFields): the bound of a search (docs/adr/0169).
func (r *Payouts) Newest(ctx context.Context, limit int) ([]domain.Payout, error) {
	return store.FindAll[domain.Payout](ctx, r.db.Collection(PayoutsColl), bson.M{}, options.Find().
		SetSort(bson.D{{Key: "requestDate", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)).SetProjection(searchFields))
}

// NewestOfStore are the store's newest payouts by request date, at most
// limit, with what a search reads.
func (r *Payouts) NewestOfStore(ctx context.Context, storeID string, limit int) ([]domain.Payout, error) {
	return store.FindAll[domain.Payout](ctx, r.db.Collection(PayoutsColl), bson.M{"storeId": storeID}, options.Find().
		SetSort(bson.D{{Key: "requestDate", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)).SetProjection(searchFields))
}

// Adjusters are who made the adjustments whose wallet transactions are
// txIDs and whose journal entries (moves, which record no transaction) are
// adjIDs, by adjustment id: each with the administrator's id and name as
// recorded (docs/adr/0168).
func (r *Ledger) Adjusters(ctx context.Context, txIDs, adjIDs []string) (map[string]domain.Adjuster, error) {
	out := map[string]domain.Adjuster{}
	if len(txIDs) > 0 {
		ts, err := store.FindAll[domain.Transaction](ctx, r.db.Collection(TxColl), bson.M{"_id": bson.M{"$in": txIDs}},
			options.Find().SetProjection(bson.M{"metadata": 1}))
		if err != nil {
			return nil, err
		}
		for i := range ts {
			if id := ts[i].Metadata["adjustmentId"]; id != "" {
				out[id] = domain.AdjusterOf(&ts[i])
			}
		}
	}
	if len(adjIDs) > 0 {
		as, err := store.FindAll[domain.Adjustment](ctx, r.db.Collection(AdjustmentsColl), bson.M{"_id": bson.M{"$in": adjIDs}},
			options.Find().SetProjection(bson.M{"adminUserId": 1, "adminName": 1}))
		if err != nil {
			return nil, err
		}
		for i := range as {
			out[as[i].ID] = as[i].Adjuster()
		}
	}
	return out, nil
}
