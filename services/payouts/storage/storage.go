// Package storage holds the payouts service's repositories: the only code
// that knows its collections, filters, updates and indexes. Each
// repository's Update loads one aggregate in a transaction (db.Tx, which
// joins a DB.Joined one: a keyed mutation's), runs the caller's domain
// function on it and saves what the function changed (store.Changes) with a
// compare-and-set on what it read, so that of two concurrent writers one
// wins and the other runs again on a fresh load, or is refused.
package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
)

// Collections of the service's own database.
const (
	WalletsColl      = "storeWallets"
	TxColl           = "walletTransactions"
	PayoutsColl      = "payouts"
	AdjustmentsColl  = "walletAdjustments"
	TotalsColl       = "payoutTotals"        // one per status: count and requested amount; completed also the processing time
	DaysColl         = "payoutDays"          // completions per Dubai day and store
	OrdersColl       = "orderMoney"          // per order: what refunds and disputes moved (domain.OrderMoney)
	StatementColl    = "walletStatement"     // one entry per balance change of a wallet (statement.go)
	PlatformFeesColl = "platformDisputeFees" // lost disputes' fees the platform bore
)

// Indexes are the service's indexes.
func Indexes() []store.Index {
	return []store.Index{
		// One wallet per store (its id is derived from the store's, too).
		{Collection: WalletsColl, Keys: bson.D{{Key: "storeId", Value: 1}}, Unique: true, Name: "one_wallet_per_store"},
		// What caused a transaction records it once: an order's earnings, a
		// release, a payout, an adjustment.
		{Collection: TxColl, Keys: bson.D{{Key: "sourceKey", Value: 1}}, Unique: true, Name: "one_per_source"},
		// A store's transactions and payouts newest first (ids are random: by
		// creation time, the id breaking ties).
		{Collection: TxColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_store_by_creation"},
		// A wallet's transactions (reconcileWallet), and its held earnings
		// oldest first (Held).
		{Collection: TxColl, Keys: bson.D{{Key: "walletId", Value: 1}, {Key: "type", Value: 1}, {Key: "status", Value: 1},
			{Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "held_oldest"},
		// The earnings due, oldest first (Due).
		{Collection: TxColl, Keys: bson.D{{Key: "type", Value: 1}, {Key: "status", Value: 1}, {Key: "releaseAt", Value: 1}, {Key: "_id", Value: 1}}, Name: "due_oldest"},
		// The open payouts, oldest request first, of all stores or of one
		// (getPendingPayouts).
		{Collection: PayoutsColl, Keys: bson.D{{Key: "status", Value: 1}, {Key: "requestDate", Value: 1}, {Key: "_id", Value: 1}}, Name: "open_oldest"},
		{Collection: PayoutsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "status", Value: 1}, {Key: "requestDate", Value: 1}, {Key: "_id", Value: 1}}, Name: "store_open_oldest"},
		{Collection: PayoutsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_store_by_creation"},
		// Every payout (admins.payoutOperations.listPayouts) by request date
		// or amount, of all stores or one, of any status or one.
		{Collection: PayoutsColl, Keys: bson.D{{Key: "requestDate", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_request_date"},
		{Collection: PayoutsColl, Keys: bson.D{{Key: "requestedAmount", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_amount"},
		{Collection: PayoutsColl, Keys: bson.D{{Key: "status", Value: 1}, {Key: "requestedAmount", Value: 1}, {Key: "_id", Value: 1}}, Name: "status_by_amount"},
		{Collection: PayoutsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "requestDate", Value: 1}, {Key: "_id", Value: 1}}, Name: "store_by_request_date"},
		{Collection: PayoutsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "requestedAmount", Value: 1}, {Key: "_id", Value: 1}}, Name: "store_by_amount"},
		{Collection: PayoutsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "status", Value: 1}, {Key: "requestedAmount", Value: 1}, {Key: "_id", Value: 1}}, Name: "store_status_by_amount"},
		// Every wallet (listWallets) by a balance or its last change.
		{Collection: WalletsColl, Keys: bson.D{{Key: "availableBalance", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_available"},
		{Collection: WalletsColl, Keys: bson.D{{Key: "pendingBalance", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_pending"},
		{Collection: WalletsColl, Keys: bson.D{{Key: "disputedBalance", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_disputed"},
		{Collection: WalletsColl, Keys: bson.D{{Key: "updatedAt", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_updated"},
		{Collection: DaysColl, Keys: bson.D{{Key: "month", Value: 1}}, Name: "by_month"},
		{Collection: AdjustmentsColl, Keys: bson.D{{Key: "walletId", Value: 1}, {Key: "adjustmentType", Value: 1}}, Name: "by_wallet"},
		// A move_pending_to_available (journal only) is recorded once per
		// source, as the transactions are (adjustmentSource).
		{Collection: AdjustmentsColl, Keys: bson.D{{Key: "sourceKey", Value: 1}}, Unique: true, Name: "one_per_source"},
		// A wallet's statement in the order of its changes (the entry's id is
		// walletId:seq, so one entry per change), and by time.
		{Collection: StatementColl, Keys: bson.D{{Key: "walletId", Value: 1}, {Key: "seq", Value: 1}}, Unique: true, Name: "one_per_change"},
		{Collection: StatementColl, Keys: bson.D{{Key: "walletId", Value: 1}, {Key: "at", Value: 1}, {Key: "seq", Value: 1}}, Name: "by_time"},
		// A wallet's entries of one kind, or of one order, newest first
		// (listStatementEntries; page.Find breaks ties by _id).
		{Collection: StatementColl, Keys: bson.D{{Key: "walletId", Value: 1}, {Key: "kind", Value: 1}, {Key: "seq", Value: 1}, {Key: "_id", Value: 1}}, Name: "kind_by_change"},
		{Collection: StatementColl, Keys: bson.D{{Key: "walletId", Value: 1}, {Key: "refs.orderId", Value: 1}, {Key: "seq", Value: 1}, {Key: "_id", Value: 1}}, Name: "order_by_change"},
		{Collection: StatementColl, Keys: bson.D{{Key: "walletId", Value: 1}, {Key: "seq", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_change"},
	}
}

// Repos are the service's repositories over one database.
type Repos struct {
	Wallets     *Wallets
	Ledger      *Ledger
	Payouts     *Payouts
	Adjustments *Adjustments
	Totals      *Totals
	Orders      *Orders
	Statement   *Statement
	Fees        *PlatformFees
	Accounts    *Accounts
}

// New opens the repositories on db.
func New(db *store.DB) Repos {
	return Repos{Wallets: &Wallets{db}, Ledger: &Ledger{db}, Payouts: &Payouts{db}, Adjustments: &Adjustments{db}, Totals: &Totals{db},
		Orders: &Orders{db}, Statement: &Statement{db}, Fees: &PlatformFees{db}, Accounts: &Accounts{db}}
}

// tx runs fn in the caller's transaction when ctx is one (DB.Tx joins it,
// and a missed compare-and-set starts that transaction again), or in a new
// one, run again on a fresh transaction when a compare-and-set missed
// (store.ErrConflict).
func tx(ctx context.Context, db *store.DB, what string, fn func(ctx context.Context) error) error {
	_, err := store.Retry(ctx, what, func(ctx context.Context) (struct{}, error) {
		return struct{}{}, db.Tx(ctx, fn)
	})
	return err
}

// casUpdate is the update that turns before into after (store.Changes) and
// its filter: the document's id and, for each field in cas that the update
// sets, its value in stored (the document as read; absent there: the field
// must still be absent). nil update: nothing changed.
func casUpdate(id string, stored bson.Raw, before, after any, cas ...string) (filter, update bson.M, err error) {
	update, err = store.Changes(before, after)
	if err != nil || update == nil {
		return nil, nil, err
	}
	filter = bson.M{"_id": id}
	set, _ := update["$set"].(bson.M)
	for _, k := range cas {
		if _, changed := set[k]; !changed {
			continue
		}
		if v, err := stored.LookupErr(k); err == nil {
			filter[k] = v
		} else {
			filter[k] = bson.M{"$exists": false}
		}
	}
	return filter, update, nil
}

// loadRaw reads the document id of coll into out and returns it as stored
// (nil, nil when there is none).
func loadRaw(ctx context.Context, db *store.DB, coll, id string, out any) (bson.Raw, error) {
	raw, err := db.Collection(coll).FindOne(ctx, bson.M{"_id": id}).Raw()
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return raw, bson.Unmarshal(raw, out)
}
