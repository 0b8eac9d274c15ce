package liveset

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// Dropping a service's collection says it changed in unknown places, to the
// publisher and to the request's tracker, on both write paths. The drop was
// made in a transaction of its own whenever its record had somewhere to go,
// and neither engine drops in a transaction: with a publisher (every
// service has one), or a WriteTracker on the embedded engine, it failed.
func TestReview28DropIsPublished(t *testing.T) {
	ctx := context.Background()
	for _, fromChanges := range []bool{true, false} {
		db, p := liveDB(t)
		db.tr.fromChanges = fromChanges
		c := db.Collection("reviews")
		if _, err := c.InsertOne(ctx, bson.M{"_id": "r1", "storeId": "A"}); err != nil {
			t.Fatal(err)
		}
		n := p.count()
		wctx, wt := TrackWrites(ctx)
		if err := c.Drop(wctx); err != nil {
			t.Fatalf("fromChanges %v: drop with a publisher: %v", fromChanges, err)
		}
		if p.count() != n+1 {
			t.Fatalf("fromChanges %v: the drop published %d write sets, want 1", fromChanges, p.count()-n)
		}
		if w := p.last(t); !w.Touches(storeRead("any")) {
			t.Fatalf("fromChanges %v: the drop published %s, want the whole collection", fromChanges, w.Encode())
		}
		if w := wt.Writes(); !w.Touches(storeRead("any")) {
			t.Fatalf("fromChanges %v: the drop's tracker holds %s", fromChanges, w.Encode())
		}
		if n, err := c.CountDocuments(ctx, bson.M{}); err != nil || n != 0 {
			t.Fatalf("fromChanges %v: %d documents after the drop (%v)", fromChanges, n, err)
		}

		// without a publisher: the request's tracker alone
		db.SetLivePublisher(nil)
		if _, err := c.InsertOne(ctx, bson.M{"_id": "r2", "storeId": "B"}); err != nil {
			t.Fatal(err)
		}
		wctx, wt = TrackWrites(ctx)
		if err := c.Drop(wctx); err != nil {
			t.Fatalf("fromChanges %v: drop with a tracker: %v", fromChanges, err)
		}
		if w := wt.Writes(); !w.Touches(storeRead("any")) {
			t.Fatalf("fromChanges %v: the drop's tracker holds %s", fromChanges, w.Encode())
		}
	}
}
