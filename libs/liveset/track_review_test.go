package liveset

// Review of issue 23's write sets: writes whose changes must reach the live
// queries that read them.

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
)

// A FindOneAndUpdate that upserts (returning the document before, the
// driver's default) inserts a review of store A: a live query on store A's
// reviews must be told.
func TestReviewFindOneAndUpdateUpsertBeforeIsReported(t *testing.T) {
	db, p := liveDB(t)
	ctx := context.Background()
	c := db.Collection("reviews")
	n := p.count()
	err := c.FindOneAndUpdate(ctx, bson.M{"storeId": "A", "customerId": "C"}, bson.M{"$set": bson.M{"rating": 5}},
		options.FindOneAndUpdate().SetUpsert(true)).Err()
	if err != nil && !store.IsNotFound(err) {
		t.Fatal(err)
	}
	if got, _ := c.CountDocuments(ctx, bson.M{"storeId": "A"}); got != 1 {
		t.Fatalf("the upsert made %d documents", got)
	}
	if p.count() == n {
		t.Fatal("the upsert inserted a review of store A but published nothing")
	}
	if w := p.last(t); !w.Touches(storeRead("A")) {
		t.Fatalf("the upsert's writes do not touch store A's reviews: %s", w.Encode())
	}
}

// The same upsert returning the document after, with an update that names no
// key field: the new document's keys come from the filter.
func TestReviewFindOneAndUpdateUpsertAfterIsReported(t *testing.T) {
	db, p := liveDB(t)
	ctx := context.Background()
	c := db.Collection("reviews")
	err := c.FindOneAndUpdate(ctx, bson.M{"storeId": "A", "customerId": "C"}, bson.M{"$inc": bson.M{"helpful": 1}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Err()
	if err != nil {
		t.Fatal(err)
	}
	if w := p.last(t); !w.Touches(storeRead("A")) {
		t.Fatalf("the upsert's writes do not touch store A's reviews: %s", w.Encode())
	}
}

// An unordered InsertMany in a transaction that meets a duplicate inserts
// the others; a caller that accepts the duplicate commits them, and their
// keys must be reported.
func TestReviewInsertManyPartialIsReported(t *testing.T) {
	db, p := liveDB(t)
	ctx := context.Background()
	c := db.Collection("reviews")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "r1", "storeId": "A"}); err != nil {
		t.Fatal(err)
	}
	n := p.count()
	err := db.Tx(ctx, func(ctx context.Context) error {
		_, err := c.InsertMany(ctx, []any{bson.M{"_id": "r1", "storeId": "A"}, bson.M{"_id": "r2", "storeId": "B"}}, options.InsertMany().SetOrdered(false))
		if err != nil && !store.IsDuplicate(err) {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.CountDocuments(ctx, bson.M{"storeId": "B"}); got != 1 {
		t.Skipf("the engine inserted %d of store B (no partial insert: nothing to report)", got)
	}
	if p.count() == n {
		t.Fatal("a review of store B was inserted and committed but nothing was published")
	}
	if w := p.last(t); !w.Touches(storeRead("B")) {
		t.Fatalf("the insert's writes do not touch store B's reviews: %s", w.Encode())
	}
}

// MongoDB finds {k: NumberLong(1e17)} and {k: 1e17} equal; their key forms
// must meet.
func TestReviewLargeNumbersAreOneKey(t *testing.T) {
	asDouble, _ := bson.Marshal(bson.M{"storeId": float64(1e17)})
	asLong, _ := bson.Marshal(bson.M{"storeId": int64(1e17)})
	w := Writes{}
	cw := w.Coll("reviews", []string{"storeId"})
	vals, ok := keyValues(asDouble, "storeId")
	if !ok {
		t.Fatal("no key values")
	}
	for _, v := range vals {
		cw.Add("storeId", v)
	}
	rs := readsOf("reviews", asLong, []string{"storeId"})
	if !w.TouchesAny(rs) {
		t.Fatalf("a write of storeId 1e17 (double) %s does not touch a read of NumberLong(1e17) %v", w.Encode(), rs)
	}
}

// The cost of tracking on a single update by _id outside a transaction (a
// vote): without a publisher, and with one that inserts an outbox row as
// events.Outbox.AddWrites does.
func BenchmarkReviewUpdateByID(b *testing.B) {
	for _, withPub := range []bool{false, true} {
		b.Run(map[bool]string{false: "untracked", true: "published"}[withPub], func(b *testing.B) {
			ctx := context.Background()
			db, err := openTracked(ctx, store.Options{Name: "bench", Memory: true})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close(ctx)
			if err := db.EnsureIndexes(ctx,
				store.Index{Collection: "reviews", Keys: bson.D{{Key: "storeId", Value: 1}}},
				store.Index{Collection: "reviews", Keys: bson.D{{Key: "customerId", Value: 1}}}); err != nil {
				b.Fatal(err)
			}
			outbox := Internal("bench_outbox")
			if withPub {
				db.SetLivePublisher(&Publisher{Publish: func(ctx context.Context, w *Writes) (string, error) {
					_, err := db.Collection(outbox).InsertOne(ctx, bson.M{"env": w.Encode()})
					return "id", err
				}})
			}
			c := db.Collection("reviews")
			for i := 0; i < 1000; i++ {
				if _, err := c.InsertOne(ctx, bson.M{"_id": i, "storeId": i % 10, "customerId": i}); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := c.UpdateByID(ctx, i%1000, bson.M{"$inc": bson.M{"helpful": 1}}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A request that commits many transactions (a batch, a backfill behind a
// mutation) names every one's live event in its answer's X-Live-Writes: the
// header must stay bounded (values are: MaxValues), else the gateway cannot
// read the answer of a mutation that committed.
func TestReviewARequestsWriteSetStaysBounded(t *testing.T) {
	db, _ := liveDB(t)
	ctx, wt := TrackWrites(context.Background())
	c := db.Collection("reviews")
	for i := 0; i < 2000; i++ {
		if _, err := c.UpdateOne(ctx, bson.M{"_id": "r1"}, bson.M{"$set": bson.M{"storeId": "A", "n": i}}, options.Update().SetUpsert(true)); err != nil {
			t.Fatal(err)
		}
	}
	w := wt.Writes()
	if n := len(w.Encode()); n > 16<<10 {
		t.Fatalf("2000 transactions' write set encodes to %d bytes (%d event ids)", n, len(w.IDs))
	}
}
