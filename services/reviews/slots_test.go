package reviews

import (
	"context"
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
	"marketplace/services/reviews/domain"
	"marketplace/services/reviews/storage"
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
	s := &svc{env: env, reviews: storage.NewReviews(db), votes: storage.NewVotes(db), flags: storage.NewFlags(db),
		stats: storage.NewStats(db), orders: storage.NewOrders(db)}
	if err := s.stats.Ensure(ctx, "sto_1", 1); err != nil {
		t.Fatal(err)
	}
	return s, db
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
			r := domain.Review{ID: id, CustomerID: "cus_1", StoreID: "sto_1", OrderID: order, Rating: 4, Verified: true, VerifiedBy: order,
				Hidden: hidden, PhotoIDs: []string{}}
			if _, err := db.Collection("storeReviews").InsertOne(ctx, r); err != nil {
				return err
			}
			if err := s.orders.Take(ctx, id, domain.Verdict{By: order}, 1); err != nil {
				return err
			}
			if hidden {
				return nil
			}
			return s.stats.Change(ctx, "sto_1", domain.Add(4, true), 1)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	add("rev_1", "ord_1", false)
	add("rev_2", "ord_2", true)
	add("rev_3", "ord_3", false)
	stats := func() domain.Stats {
		var d domain.StoreStats
		if err := db.Collection("storeReviewStats").FindOne(ctx, bson.M{"_id": "sto_1"}).Decode(&d); err != nil {
			t.Fatal(err)
		}
		return d.Stats()
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
			r, err := s.reviews.Find(ctx, id)
			if err != nil || r.Verified != verified || (r.VerifiedBy != "") != verified {
				t.Fatalf("%s: %+v, %v", id, r, err)
			}
		}
		for o, cancelled := range map[string]bool{"ord_1": true, "ord_2": true, "ord_3": false} {
			var d domain.OrderSlot
			if err := db.Collection("verifiedOrders").FindOne(ctx, bson.M{"_id": o}).Decode(&d); err != nil {
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
