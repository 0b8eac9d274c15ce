package storage

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
	"marketplace/services/payouts/domain"
)

func memoryDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{Name: "payouts", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	return db
}

// The save compares the fields it changes with the document as stored: a
// field an older wallet lacks is compared as absent (not as zero), and a
// change committed between the load and the save runs fn again on a fresh
// load, so both changes hold.
func TestWalletSaveComparesWithTheStoredDocument(t *testing.T) {
	ctx := context.Background()
	db := memoryDB(t)
	wallets := New(db).Wallets
	c := db.Collection(WalletsColl)
	// An older wallet: no totalOrders, no updatedAt.
	if _, err := c.InsertOne(ctx, bson.M{"_id": "w1", "storeId": "s1", "availableBalance": int64(500), "pendingBalance": int64(0),
		"totalEarnings": int64(500), "totalPayouts": int64(0), "lastPayoutDate": nil}); err != nil {
		t.Fatal(err)
	}
	w, err := wallets.Update(ctx, "w1", func(w *domain.Wallet) error {
		w.TotalOrders++
		w.UpdatedAt = 7
		return nil
	})
	if err != nil || w.TotalOrders != 1 {
		t.Fatalf("a wallet without totalOrders: %v, %+v", err, w)
	}

	runs := 0
	w, err = wallets.Update(ctx, "w1", func(w *domain.Wallet) error {
		runs++
		if runs == 1 {
			// Another writer commits between this load and its save.
			if _, err := c.UpdateOne(context.Background(), bson.M{"_id": "w1"}, bson.M{"$inc": bson.M{"availableBalance": int64(-200)}}); err != nil {
				t.Fatal(err)
			}
		}
		w.AvailableBalance -= 100
		return nil
	})
	if err != nil || runs != 2 || w.AvailableBalance != 200 {
		t.Fatalf("err %v, %d runs, available %d: want nil, 2 runs, 200 (500 - 200 - 100)", err, runs, w.AvailableBalance)
	}
	var stored domain.Wallet
	if err := c.FindOne(ctx, bson.M{"_id": "w1"}).Decode(&stored); err != nil || stored.AvailableBalance != 200 {
		t.Fatalf("stored %+v, %v", stored, err)
	}
}
