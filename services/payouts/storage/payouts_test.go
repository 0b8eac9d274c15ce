package storage

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/services/payouts/domain"
)

// A move judged on a payout not sent through the processor does not land
// on one sent meanwhile: the ask committed between the load and the save
// makes the save miss (the filter on transferAskedAt, or the engine's
// conflict), the move is judged again on the payout as it is now, which
// refuses it, and the payout keeps its ask.
func TestPayoutSaveMissesAnAskMadeMeanwhile(t *testing.T) {
	ctx := context.Background()
	db := memoryDB(t)
	payouts := New(db).Payouts
	c := db.Collection(PayoutsColl)
	if err := payouts.Insert(ctx, &domain.Payout{ID: "p1", Status: domain.StatusApproved, History: []domain.HistoryEntry{}}); err != nil {
		t.Fatal(err)
	}
	runs := 0
	_, err := payouts.Update(ctx, "p1", func(p *domain.Payout) error {
		runs++
		if p.TransferAskedAt != nil { // as Payout.Apply judges a move by hand not asked about the transfer
			return domain.ChangedMeanwhile(p.ID)
		}
		if runs == 1 {
			// sendPayoutThroughProcessor's ask commits between this load and its save.
			if _, err := c.UpdateOne(context.Background(), bson.M{"_id": "p1"}, bson.M{"$set": bson.M{"transferAskedAt": int64(5)}}); err != nil {
				t.Fatal(err)
			}
		}
		p.Status, p.BalanceRestored = domain.StatusFailed, true
		return nil
	})
	if apperr.From(err).Details["reason"] != "payout_status" || runs != 2 {
		t.Fatalf("the move landed on a payout sent meanwhile: %v after %d runs", err, runs)
	}
	var stored domain.Payout
	if err := c.FindOne(ctx, bson.M{"_id": "p1"}).Decode(&stored); err != nil || stored.Status != domain.StatusApproved || stored.TransferAskedAt == nil {
		t.Fatalf("stored %+v, %v", stored, err)
	}
}
