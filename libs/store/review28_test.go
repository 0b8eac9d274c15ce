package store

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/liveset"
)

// A commit the file could not write or read back is refused, that commit
// only: a document nested deeper than the file's reader goes (it was
// accepted, and the database then refused to start: "file is damaged"), or a
// field name with a null byte ($rename's new name is a string value, which
// may hold one: the write failed the file, and the database took no more
// writes). Later writes go on, and the file opens again with them.
func TestReview28FileRefusesWhatItCannotReadBack(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	c := db.Collection("things")

	nested := func(levels int) any {
		var v any = "leaf"
		for i := 0; i < levels; i++ {
			if i%2 == 0 {
				v = bson.M{"a": v}
			} else {
				v = bson.A{v}
			}
		}
		return v
	}
	// MongoDB's limit, 100 levels (each document or array one), is kept
	if _, err := c.InsertOne(ctx, bson.M{"_id": "deep-ok", "v": nested(maxStoredDepth - 1)}); err != nil {
		t.Fatalf("a document of %d levels: %v", maxStoredDepth, err)
	}
	if _, err := c.InsertOne(ctx, bson.M{"_id": "deep", "v": nested(250)}); apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("a document nested 250 levels deep: %v, want the refusal (the request's fault)", err)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "deep-ok"}, bson.M{"$set": bson.M{"w": nested(maxStoredDepth)}}); err == nil {
		t.Fatal("an update nesting a document past the limit was accepted")
	}
	if err := db.Tx(ctx, func(ctx context.Context) error {
		_, err := c.InsertOne(ctx, bson.M{"_id": "deep-tx", "v": nested(250)})
		return err
	}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("a transaction writing a document nested 250 levels deep: %v, want the refusal", err)
	}
	if _, err := c.InsertOne(ctx, bson.M{"_id": "r", "a": 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "r"}, bson.M{"$rename": bson.M{"a": "b\x00c"}}); apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), "null byte") {
		t.Fatalf("$rename to a name with a null byte: %v, want the refusal (the request's fault)", err)
	}
	if _, err := c.InsertOne(ctx, bson.M{"_id": "after"}); err != nil {
		t.Fatalf("a write after the refusals: %v", err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("not ready after a refused commit: %v", err)
	}
	db.Close(ctx)

	db = openDir(t, dir)
	defer db.Close(ctx)
	var ids []string
	cur, err := db.Collection("things").Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		ids = append(ids, d["_id"].(string))
	}
	if strings.Join(ids, ",") != "deep-ok,r,after" {
		t.Fatalf("after the restart: %v", ids)
	}
}

// Dropping a service's collection says it changed in unknown places, to the
// publisher and to the request's tracker, on both write paths. The drop was
// made in a transaction of its own whenever its record had somewhere to go,
// and neither engine drops in a transaction: with a publisher (every
// service has one), or a WriteTracker on the embedded engine, it failed.
func TestReview28DropIsPublished(t *testing.T) {
	ctx := context.Background()
	for _, fromChanges := range []bool{true, false} {
		db, p := liveDB(t)
		db.live.fromChanges = fromChanges
		c := db.Collection("reviews")
		if _, err := c.InsertOne(ctx, bson.M{"_id": "r1", "storeId": "A"}); err != nil {
			t.Fatal(err)
		}
		n := p.count()
		wctx, wt := liveset.TrackWrites(ctx)
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
		wctx, wt = liveset.TrackWrites(ctx)
		if err := c.Drop(wctx); err != nil {
			t.Fatalf("fromChanges %v: drop with a tracker: %v", fromChanges, err)
		}
		if w := wt.Writes(); !w.Touches(storeRead("any")) {
			t.Fatalf("fromChanges %v: the drop's tracker holds %s", fromChanges, w.Encode())
		}
	}
}
