package reviews

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	contractevents "marketplace/libs/contracts/events"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
	"marketplace/libs/liveset"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// slotsSvc is the service on an in-memory database with its indexes, an
// outbox and a statistics document for store sto_1.
func slotsSvc(t *testing.T) (*svc, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "reviews_slots", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(ctx) })
	logger := slog.New(slog.DiscardHandler)
	env := service.Env{Name: "reviews", DB: db, Logger: logger, Settings: &Settings{PublicBaseURL: DefaultPublicBaseURL},
		Outbox: events.NewOutbox(db, "reviews", contractevents.Versions()), Relay: events.NewRelay(db, &eventstest.Recorder{}, logger),
		Now: func() time.Time { return time.UnixMilli(1_800_000_000_000) }}
	built, err := build(ctx, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureIndexes(ctx, built.Indexes...); err != nil {
		t.Fatal(err)
	}
	s := &svc{env: env}
	if err := s.ensureStats(ctx, "sto_1"); err != nil {
		t.Fatal(err)
	}
	return s, db
}

// TestVerifiedUses: what addReview reads of the author's verified reviews of
// a store: the order each uses (cited or taken without orderId), and the
// reviews verified before reviews named their order (one citing an order
// uses it; one without counts as unnamed). Unverified reviews, other stores
// and other customers use nothing.
func TestVerifiedUses(t *testing.T) {
	ctx := context.Background()
	s, db := slotsSvc(t)
	for _, r := range []reviewDoc{
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
	uses, unnamed, err := s.verifiedUses(ctx, "cus_1", "sto_1")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Use{"ord_1": {"rev_cited", true}, "ord_2": {"rev_taken", false}, "ord_3": {"rev_old_cited", true}}
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
	s, db := slotsSvc(t)
	take := func(reviewID string, v Verdict) error {
		return db.Tx(ctx, func(ctx context.Context) error { return s.takeOrder(ctx, reviewID, v, 1) })
	}
	if err := take("rev_1", Verdict{By: "ord_1"}); err != nil {
		t.Fatal(err)
	}
	if err := take("rev_2", Verdict{By: "ord_1"}); !store.IsDuplicate(err) {
		t.Fatalf("a second review took ord_1: %v", err)
	}
	if err := take("rev_2", Verdict{}); err != nil {
		t.Fatalf("an unverified review takes nothing: %v", err)
	}
	// rev_1 holds ord_1 without citing it; rev_9 does not hold it.
	if _, err := db.Collection(reviewsColl).InsertOne(ctx, reviewDoc{ID: "rev_1", CustomerID: "cus_1", StoreID: "sto_1", Verified: true,
		VerifiedBy: "ord_1", PhotoIDs: []string{}}); err != nil {
		t.Fatal(err)
	}
	if err := take("rev_3", Verdict{By: "ord_1", Move: &Move{ReviewID: "rev_9", From: "ord_1", To: "ord_2"}}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("moved a review that does not hold the order: %v", err)
	}
	if err := take("rev_3", Verdict{By: "ord_1", Move: &Move{ReviewID: "rev_1", From: "ord_1", To: "ord_2"}}); err != nil {
		t.Fatal(err)
	}
	var slots []orderSlotDoc
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
	if r, err := s.review(ctx, "rev_1"); err != nil || r.VerifiedBy != "ord_2" || !r.Verified {
		t.Fatalf("moved review %+v, %v", r, err)
	}
	// A cancellation recorded first (no review used the order): taking it
	// afterwards is a duplicate, so a review decided on the order's status
	// from before its cancellation is decided again.
	if err := db.Tx(ctx, func(ctx context.Context) error { return s.withdraw(ctx, "ord_7") }); err != nil {
		t.Fatal(err)
	}
	if err := take("rev_4", Verdict{By: "ord_7"}); !store.IsDuplicate(err) {
		t.Fatalf("took a cancelled order: %v", err)
	}
}

// TestWithdrawVerification: the customers service confirmed the cancellation
// of the order a visible verified review cites: the review is unverified, no
// longer uses it, the statistics count one verified review less, and the
// order's document says it was cancelled. Run again (the event delivered
// twice), it changes nothing. A hidden review's verification goes too, with
// the statistics (which do not count it) unchanged.
func TestWithdrawVerification(t *testing.T) {
	ctx := context.Background()
	s, db := slotsSvc(t)
	add := func(id, order string, hidden bool) {
		t.Helper()
		err := db.Tx(ctx, func(ctx context.Context) error {
			r := reviewDoc{ID: id, CustomerID: "cus_1", StoreID: "sto_1", OrderID: order, Rating: 4, Verified: true, VerifiedBy: order,
				Hidden: hidden, PhotoIDs: []string{}}
			if _, err := db.Collection(reviewsColl).InsertOne(ctx, r); err != nil {
				return err
			}
			if err := s.takeOrder(ctx, id, Verdict{By: order}, 1); err != nil {
				return err
			}
			if hidden {
				return nil
			}
			return s.changeStats(ctx, "sto_1", Add(4, true), 1)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("rev_1", "ord_1", false)
	add("rev_2", "ord_2", true)
	add("rev_3", "ord_3", false)
	stats := func() Stats {
		var d statsDoc
		if err := db.Collection(statsColl).FindOne(ctx, bson.M{"_id": "sto_1"}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		return d.stats()
	}
	if st := stats(); st.Count != 2 || st.Verified != 2 {
		t.Fatalf("stats %+v", st)
	}
	for range 2 {
		for _, o := range []string{"ord_1", "ord_2"} {
			if err := db.Tx(ctx, func(ctx context.Context) error { return s.withdraw(ctx, o) }); err != nil {
				t.Fatal(err)
			}
		}
		if st := stats(); st.Count != 2 || st.Verified != 1 || st.Sum != 8 {
			t.Fatalf("stats %+v after the withdrawals", st)
		}
		for id, verified := range map[string]bool{"rev_1": false, "rev_2": false, "rev_3": true} {
			r, err := s.review(ctx, id)
			if err != nil || r.Verified != verified || (r.VerifiedBy != "") != verified {
				t.Fatalf("%s: %+v, %v", id, r, err)
			}
		}
		for o, cancelled := range map[string]bool{"ord_1": true, "ord_2": true, "ord_3": false} {
			var d orderSlotDoc
			if err := db.Collection(verifiedOrdersColl).FindOne(ctx, bson.M{"_id": o}).Decode(&d); err != nil {
				t.Fatal(err)
			}
			if d.Cancelled != cancelled || (d.ReviewID == "") != cancelled {
				t.Fatalf("%s: %+v", o, d)
			}
		}
	}
	// One review.updated per withdrawal, not per run.
	cur, err := db.Collection(liveset.Internal("outbox")).Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var queued []struct {
		Envelope string `bson:"envelope"`
	}
	if err := cur.All(ctx, &queued); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, q := range queued {
		if strings.Contains(q.Envelope, `"type":"review.updated"`) && strings.Contains(q.Envelope, `"changedFields":["isVerifiedPurchase"]`) {
			n++
		}
	}
	if n != 2 {
		t.Fatalf("%d review.updated events of %d queued", n, len(queued))
	}
}
