package storage

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

// Totals are the running totals of the payouts, kept in the same
// transaction as every payout's request and move, so getPayoutStatistics
// without a date range reads a handful of records however many payouts are
// stored (the embedded engine has no aggregation pipeline). Both ways give
// the same figures (stats_test.go).
type Totals struct{ db *store.DB }

// Count records that p (as it is after the move) left status from ("" for a
// new request) for its status. It runs in the move's transaction.
func (r *Totals) Count(ctx context.Context, p *domain.Payout, from string) error {
	c := r.db.Collection(TotalsColl)
	upsert := options.Update().SetUpsert(true)
	if from != "" {
		if _, err := c.UpdateOne(ctx, bson.M{"_id": from}, bson.M{"$inc": bson.M{"count": int64(-1), "amount": -p.RequestedAmount}}, upsert); err != nil {
			return err
		}
	}
	inc := bson.M{"count": int64(1), "amount": p.RequestedAmount}
	if p.Status == domain.StatusCompleted && p.CompletedDate != nil {
		inc["processingMs"] = max(0, *p.CompletedDate-p.RequestDate)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": p.Status}, bson.M{"$inc": inc}, upsert); err != nil {
		return err
	}
	if p.Status != domain.StatusCompleted || p.CompletedDate == nil {
		return nil
	}
	day := domain.DubaiDay(*p.CompletedDate)
	_, err := r.db.Collection(DaysColl).UpdateOne(ctx, bson.M{"_id": day + "|" + p.StoreID}, bson.M{
		"$inc": bson.M{"count": int64(1), "amount": p.RequestedAmount},
		"$set": bson.M{"day": day, "month": domain.DubaiMonth(*p.CompletedDate), "storeId": p.StoreID, "storeName": p.StoreName},
	}, upsert)
	return err
}

// Summary is the summary of every payout at now, from the running totals.
func (r *Totals) Summary(ctx context.Context, now time.Time) (domain.Summary, error) {
	totals, err := store.FindAll[domain.Total](store.Scan(ctx, "one running total per payout status: a handful, read whole"), r.db.Collection(TotalsColl), bson.M{})
	if err != nil {
		return domain.Summary{}, err
	}
	days, err := store.FindAll[domain.Day](ctx, r.db.Collection(DaysColl), bson.M{"month": domain.DubaiMonth(now.UnixMilli())})
	if err != nil {
		return domain.Summary{}, err
	}
	return domain.SummaryOfTotals(totals, days, now), nil
}
