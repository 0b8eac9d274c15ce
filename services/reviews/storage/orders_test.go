package storage

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// memDB is an in-memory database with the service's indexes, and its
// reviews and orders repositories.
func memDB(t *testing.T) (*store.DB, *Reviews, *Orders) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "reviews_storage", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(ctx) })
	if err := db.EnsureIndexes(ctx, Indexes()...); err != nil {
		t.Fatal(err)
	}
	return db, NewReviews(db), NewOrders(db)
}

// TestVerifiedUses: what addReview reads of the author's verified reviews of
// a store: the order each uses (cited or taken without orderId), and the
// reviews verified before reviews named their order (one citing an order
// uses it; one without counts as unnamed). Unverified reviews, other stores
// and other customers use nothing.
func TestVerifiedUses(t *testing.T) {
	ctx := context.Background()
	db, reviews, _ := memDB(t)
	for _, r := range []domain.Review{
		{ID: "rev_cited", OrderID: "ord_1", Verified: true, VerifiedBy: "ord_1"},
		{ID: "rev_taken", Verified: true, VerifiedBy: "ord_2"},
		{ID: "rev_old_cited", OrderID: "ord_3", Verified: true},
		{ID: "rev_old_1", Verified: true},
		{ID: "rev_old_2", Verified: true},
		{ID: "rev_unverified", OrderID: "ord_4"},
		{ID: "rev_other_store", StoreID: "sto_2", Verified: true, VerifiedBy: "ord_5"},
		{ID: "rev_other_customer", CustomerID: "cus_2", Verified: true, VerifiedBy: "ord_6"},
	} {
		if r.StoreID == "" {
			r.StoreID = "sto_1"
		}
		if r.CustomerID == "" {
			r.CustomerID = "cus_1"
		}
		r.PhotoIDs = []string{}
		if _, err := db.Collection(reviewsColl).InsertOne(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	uses, unnamed, err := reviews.VerifiedUses(ctx, "cus_1", "sto_1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]domain.Use{"ord_1": {ReviewID: "rev_cited", Cited: true}, "ord_2": {ReviewID: "rev_taken"}, "ord_3": {ReviewID: "rev_old_cited", Cited: true}}
	if !mapsEqual(uses, want) || unnamed != 2 {
		t.Fatalf("uses %v, %d unnamed; want %v, 2", uses, unnamed, want)
	}
}

func mapsEqual[K, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestOrderVerifiesOneReview: the order's document is what holds "each order
// verifies at most one review" on the database: a second review taking the
// same order is a duplicate (addReview then decides again), a move of a
// review that no longer holds its order is a conflict, and an order whose
// cancellation was recorded first cannot be taken.
func TestOrderVerifiesOneReview(t *testing.T) {
	ctx := context.Background()
	db, reviews, orders := memDB(t)
	take := func(reviewID string, v domain.Verdict) error {
		return db.Tx(ctx, func(ctx context.Context) error { return orders.Take(ctx, reviewID, v, 1) })
	}
	if err := take("rev_1", domain.Verdict{By: "ord_1"}); err != nil {
		t.Fatal(err)
	}
	if err := take("rev_2", domain.Verdict{By: "ord_1"}); !store.IsDuplicate(err) {
		t.Fatalf("a second review took ord_1: %v", err)
	}
	if err := take("rev_2", domain.Verdict{}); err != nil {
		t.Fatalf("an unverified review takes nothing: %v", err)
	}
	// rev_1 holds ord_1 without citing it; rev_9 does not hold it.
	if _, err := db.Collection(reviewsColl).InsertOne(ctx, domain.Review{ID: "rev_1", CustomerID: "cus_1", StoreID: "sto_1", Verified: true,
		VerifiedBy: "ord_1", PhotoIDs: []string{}}); err != nil {
		t.Fatal(err)
	}
	if err := take("rev_3", domain.Verdict{By: "ord_1", Move: &domain.Move{ReviewID: "rev_9", From: "ord_1", To: "ord_2"}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("moved a review that does not hold the order: %v", err)
	}
	if err := take("rev_3", domain.Verdict{By: "ord_1", Move: &domain.Move{ReviewID: "rev_1", From: "ord_1", To: "ord_2"}}); err != nil {
		t.Fatal(err)
	}
	var slots []domain.OrderSlot
	cur, err := db.Collection(verifiedOrdersColl).Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cur.All(ctx, &slots); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, d := range slots {
		got[d.OrderID] = d.ReviewID
	}
	if !mapsEqual(got, map[string]string{"ord_1": "rev_3", "ord_2": "rev_1"}) {
		t.Fatalf("orders' documents %v after the move", got)
	}
	if r, err := reviews.Find(ctx, "rev_1"); err != nil || r.VerifiedBy != "ord_2" || !r.Verified {
		t.Fatalf("moved review %+v, %v", r, err)
	}
	// A cancellation recorded first (no review used the order): taking it
	// afterwards is a duplicate, so a review decided on the order's status
	// from before its cancellation is decided again.
	if err := db.Tx(ctx, func(ctx context.Context) error { return orders.Cancel(ctx, "ord_7", 1) }); err != nil {
		t.Fatal(err)
	}
	if err := take("rev_4", domain.Verdict{By: "ord_7"}); !store.IsDuplicate(err) {
		t.Fatalf("took a cancelled order: %v", err)
	}
}
