package reviews

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"

	"marketplace/libs/service"
	"marketplace/libs/store"
)

// TestVerifiedSlotIndex: the database itself holds "one verified review per
// slot per customer and store" (the declared index, on the embedded engine as
// on MongoDB): a second review of the same slot is a duplicate, reviews
// without a slot never collide, and other stores and customers have their own
// slots. The e2e race cannot show it on the embedded engine, whose write
// transactions run one at a time, so the count read in the transaction alone
// keeps it there; on MongoDB only this index does.
func TestVerifiedSlotIndex(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "reviews_slots", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(ctx) })
	built, err := build(ctx, service.Env{Name: "reviews", DB: db, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Settings: &Settings{PublicBaseURL: DefaultPublicBaseURL}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureIndexes(ctx, built.Indexes...); err != nil {
		t.Fatal(err)
	}
	n := 0
	insert := func(customer, storeID string, verified bool, slot int) error {
		n++
		_, err := db.Collection(reviewsColl).InsertOne(ctx, reviewDoc{ID: "rev_" + string(rune('a'+n)), CustomerID: customer, StoreID: storeID,
			Rating: 4, Verified: verified, VerifiedSlot: slot, PhotoIDs: []string{}})
		return err
	}
	for _, c := range []struct {
		what      string
		customer  string
		store     string
		verified  bool
		slot      int
		duplicate bool
	}{
		{"slot 1", "cus_1", "sto_1", true, 1, false},
		{"slot 1 again", "cus_1", "sto_1", true, 1, true},
		{"slot 2", "cus_1", "sto_1", true, 2, false},
		{"unverified, no slot", "cus_1", "sto_1", false, 0, false},
		{"unverified again, no slot", "cus_1", "sto_1", false, 0, false},
		{"verified before slots existed", "cus_1", "sto_1", true, 0, false},
		{"slot 1 of another store", "cus_1", "sto_2", true, 1, false},
		{"slot 1 of another customer", "cus_2", "sto_1", true, 1, false},
	} {
		err := insert(c.customer, c.store, c.verified, c.slot)
		if store.IsDuplicate(err) != c.duplicate || (err != nil && !store.IsDuplicate(err)) {
			t.Errorf("%s: insert = %v, want a duplicate: %v", c.what, err, c.duplicate)
		}
	}
	// What addReview reads: the slots held and every verified review (the
	// one from before slots counts, holding none).
	s := &svc{env: service.Env{DB: db}}
	taken, verified, err := s.verifiedSlots(ctx, "cus_1", "sto_1")
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(taken)
	if !slices.Equal(taken, []int{1, 2}) || verified != 3 {
		t.Fatalf("slots %v, %d verified; want [1 2], 3", taken, verified)
	}
	if v, _ := Verification(Purchase{DeliveredOrders: 3, VerifiedReviews: verified}); v {
		t.Fatal("three delivered orders verified a fourth review")
	}
}
