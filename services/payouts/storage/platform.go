package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// The platform's reconciliation (admins.finance.reconcilePlatform,
// docs/adr/0151) sums this service's records whole: the embedded engine has
// no aggregation, so each sum is a full scan, declared as such, streamed one
// document at a time (nothing is held but the sums).

const scanReason = "the platform's reconciliation sums every record of its kind (an administrator's check, not a client's read)"

// each runs fn on every document of coll matching filter, decoded as T.
func each[T any](ctx context.Context, db *store.DB, coll string, filter bson.M, projection bson.M, fn func(*T)) error {
	cur, err := db.Collection(coll).Find(store.Scan(ctx, scanReason), filter, options.Find().SetProjection(projection))
	if err != nil {
		return err
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var v T
		if err := cur.Decode(&v); err != nil {
			return err
		}
		fn(&v)
	}
	return cur.Err()
}

// EachCredited runs fn on the money state of every order whose earning was
// credited.
func (r *Orders) EachCredited(ctx context.Context, fn func(*domain.OrderMoney)) error {
	return each(ctx, r.db, OrdersColl, bson.M{"credited": true}, bson.M{
		"credited": 1, "platformCommission": 1, "commissionReversed": 1, "refunds": 1, "disputes": 1, "currency": 1, "amountPaid": 1,
	}, fn)
}

// Each runs fn on every wallet, with its balances.
func (r *Wallets) Each(ctx context.Context, fn func(*domain.Wallet)) error {
	return each(ctx, r.db, WalletsColl, bson.M{}, bson.M{"availableBalance": 1, "pendingBalance": 1, "disputedBalance": 1}, fn)
}

// Each runs fn on every payout, with its amounts and status.
func (r *Payouts) Each(ctx context.Context, fn func(*domain.Payout)) error {
	return each(ctx, r.db, PayoutsColl, bson.M{}, bson.M{
		"requestedAmount": 1, "processingFee": 1, "netAmount": 1, "status": 1, "balanceRestored": 1,
	}, fn)
}

// EachOfTypes runs fn on every wallet transaction of these types.
func (r *Ledger) EachOfTypes(ctx context.Context, types []string, fn func(*domain.Transaction)) error {
	return each(ctx, r.db, TxColl, bson.M{"type": bson.M{"$in": types}}, bson.M{"type": 1, "status": 1, "amount": 1}, fn)
}

// Each runs fn on every dispute fee the platform bore.
func (r *PlatformFees) Each(ctx context.Context, fn func(*domain.PlatformFee)) error {
	return each(ctx, r.db, PlatformFeesColl, bson.M{}, bson.M{"amount": 1}, fn)
}
