package payouts

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/money"
	"marketplace/libs/store"
)

// Running totals of the payouts, kept in the same transaction as every
// payout's request and move, so getPayoutStatistics without a date range
// reads a handful of records however many payouts are stored (the embedded
// engine has no aggregation pipeline, and decoding thousands of payouts on
// every call would make the administrators' dashboard the slowest operation
// of the service). With a date range the statistics are computed from the
// payouts requested in it; both give the same figures (stats_test.go).

const (
	totalsColl = "payoutTotals" // one per status: count and requested amount; completed also the processing time
	daysColl   = "payoutDays"   // completions per Dubai day and store
)

type totalDoc struct {
	ID           string     `bson:"_id"` // the status
	Count        int64      `bson:"count"`
	Amount       money.Fils `bson:"amount"`
	ProcessingMs int64      `bson:"processingMs"`
}

type dayDoc struct {
	ID        string     `bson:"_id"` // day + "|" + storeId
	Day       string     `bson:"day"`
	Month     string     `bson:"month"`
	StoreID   string     `bson:"storeId"`
	StoreName string     `bson:"storeName"`
	Count     int64      `bson:"count"`
	Amount    money.Fils `bson:"amount"`
}

// countMove records in the running totals that p (as it is after the move)
// left status from ("" for a new request) for its status. It must run in the
// move's transaction.
func (s *svc) countMove(ctx context.Context, p *payoutDoc, from string) error {
	c := s.env.DB.Collection(totalsColl)
	upsert := options.Update().SetUpsert(true)
	if from != "" {
		if _, err := c.UpdateOne(ctx, bson.M{"_id": from}, bson.M{"$inc": bson.M{"count": int64(-1), "amount": -p.RequestedAmount}}, upsert); err != nil {
			return err
		}
	}
	inc := bson.M{"count": int64(1), "amount": p.RequestedAmount}
	if p.Status == StatusCompleted && p.CompletedDate != nil {
		inc["processingMs"] = max(0, *p.CompletedDate-p.RequestDate)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": p.Status}, bson.M{"$inc": inc}, upsert); err != nil {
		return err
	}
	if p.Status != StatusCompleted || p.CompletedDate == nil {
		return nil
	}
	day := DubaiDay(*p.CompletedDate)
	_, err := s.env.DB.Collection(daysColl).UpdateOne(ctx, bson.M{"_id": day + "|" + p.StoreID}, bson.M{
		"$inc": bson.M{"count": int64(1), "amount": p.RequestedAmount},
		"$set": bson.M{"day": day, "month": DubaiMonth(*p.CompletedDate), "storeId": p.StoreID, "storeName": p.StoreName},
	}, upsert)
	return err
}

// summaryFromTotals is the summary of every payout at now, from the running
// totals.
func (s *svc) summaryFromTotals(ctx context.Context, now time.Time) (summary, error) {
	var sm summary
	cur, err := s.env.DB.Collection(totalsColl).Find(store.Scan(ctx, "one running total per payout status: a handful, read whole"), bson.M{})
	if err != nil {
		return sm, err
	}
	var totals []totalDoc
	if err := cur.All(ctx, &totals); err != nil {
		return sm, err
	}
	for _, t := range totals {
		switch t.ID {
		case StatusRequested, StatusApproved:
			sm.pendingCount += int(t.Count)
			sm.pendingAmount += t.Amount
		case StatusProcessing:
			sm.processingCount += int(t.Count)
			sm.processingAmount += t.Amount
		case StatusCompleted:
			sm.completedCount, sm.processingMs = t.Count, t.ProcessingMs
		}
	}
	ms := now.UnixMilli()
	cur, err = s.env.DB.Collection(daysColl).Find(ctx, bson.M{"month": DubaiMonth(ms)})
	if err != nil {
		return sm, err
	}
	var days []dayDoc
	if err := cur.All(ctx, &days); err != nil {
		return sm, err
	}
	today := DubaiDay(ms)
	for _, d := range days {
		if d.Day == today {
			sm.todayCount += int(d.Count)
			sm.todayAmount += d.Amount
		}
		sm.monthCount += int(d.Count)
		sm.monthAmount += d.Amount
		a := sm.store(d.StoreID)
		a.count += int(d.Count)
		a.amount += d.Amount
		if d.StoreName != "" {
			a.name = d.StoreName
		}
	}
	return sm, nil
}
