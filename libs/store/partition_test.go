package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// A partitioned collection on the embedded engine: documents go to the
// partition of their key, unique indexes hold within it, and the documents
// an older version left in the unsplit collection are moved into their
// partitions at the next EnsureIndexes, across a reopen of the file.
func TestPartitionedCollection(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, Options{Name: "p", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// An older version's data: 2,500 documents in the unsplit collection.
	old := db.Collection("things")
	docs := make([]any, 0, 2500)
	for i := range 2500 {
		docs = append(docs, bson.M{"_id": fmt.Sprintf("t%04d", i), "ev": fmt.Sprintf("e%d", i%1250), "n": i})
	}
	if _, err := old.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)

	db, err = Open(ctx, Options{Name: "p", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	idx := []Index{
		{Collection: "things", Keys: bson.D{{Key: "ev", Value: 1}, {Key: "n", Value: 1}}, Unique: true, Name: "ev_n", PartitionBy: "ev"},
		{Collection: "things", Keys: bson.D{{Key: "n", Value: 1}}, Name: "n", PartitionBy: "ev"},
	}
	if err := db.EnsureIndexes(ctx, idx...); err != nil {
		t.Fatal(err)
	}
	if n, _ := old.CountDocuments(ctx, bson.M{}); n != 0 {
		t.Fatalf("the unsplit collection still holds %d documents", n)
	}
	p := db.Partitioned("things")
	total, used := int64(0), 0
	for i, c := range p.All() {
		n, err := c.CountDocuments(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		total += n
		if n > 0 {
			used++
		}
		// Every document is in the partition of its key.
		cur, err := c.Find(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		var in []struct{ Ev string }
		if err := cur.All(ctx, &in); err != nil {
			t.Fatal(err)
		}
		for _, d := range in {
			if p.index(d.Ev) != i {
				t.Fatalf("a document of key %s is in partition %d, not %d", d.Ev, i, p.index(d.Ev))
			}
		}
	}
	if total != 2500 || used < EmbeddedPartitions/2 {
		t.Fatalf("partitions hold %d documents in %d partitions, want 2500 spread over most of %d", total, used, EmbeddedPartitions)
	}
	// Found by key; the unique index holds in the key's partition.
	if err := p.For("e7").FindOne(ctx, bson.M{"_id": "t0007"}).Err(); err != nil {
		t.Fatalf("t0007 not in the partition of e7: %v", err)
	}
	if _, err := p.For("e7").InsertOne(ctx, bson.M{"_id": "x", "ev": "e7", "n": 7}); !IsDuplicate(err) {
		t.Fatalf("a second (e7, 7) was taken: %v", err)
	}
	// Group puts each key with its partition.
	keys := []string{"e1", "e2", "e1", "e900"}
	seen := 0
	for _, g := range p.Group(keys) {
		for _, at := range g.At {
			seen++
			if err := g.Coll.FindOne(ctx, bson.M{"ev": keys[at]}).Err(); err != nil {
				t.Fatalf("key %s not found in its group's partition: %v", keys[at], err)
			}
		}
	}
	if seen != len(keys) {
		t.Fatalf("groups cover %d keys of %d", seen, len(keys))
	}
	// The moved documents stay moved across a reopen, and a second adoption
	// finds nothing to move.
	db.Close(ctx)
	db, err = Open(ctx, Options{Name: "p", DataDir: filepath.Clean(dir)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if err := db.EnsureIndexes(ctx, idx...); err != nil {
		t.Fatal(err)
	}
	total = 0
	for _, c := range db.Partitioned("things").All() {
		n, _ := c.CountDocuments(ctx, bson.M{})
		total += n
	}
	if total != 2500 {
		t.Fatalf("after a reopen the partitions hold %d documents, want 2500", total)
	}
}

// Declarations that cannot work are refused: a unique index without the
// partition key (equal keys could land in two partitions), two partition keys,
// or an index that forgets the collection is partitioned.
func TestPartitionedIndexRules(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "r", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for _, tc := range []struct {
		idx  []Index
		want string
	}{
		{[]Index{{Collection: "a", Keys: bson.D{{Key: "x", Value: 1}}, Unique: true, Name: "x", PartitionBy: "k"}}, "must include its partition key"},
		{[]Index{{Collection: "b", Keys: bson.D{{Key: "x", Value: 1}}, Name: "x", PartitionBy: "k"},
			{Collection: "b", Keys: bson.D{{Key: "y", Value: 1}}, Name: "y", PartitionBy: "j"}}, "two partition keys"},
		{[]Index{{Collection: "c", Keys: bson.D{{Key: "x", Value: 1}}, Name: "x", PartitionBy: "k"},
			{Collection: "c", Keys: bson.D{{Key: "y", Value: 1}}, Name: "y"}}, "does not name its partition key"},
	} {
		err := db.EnsureIndexes(ctx, tc.idx...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.idx[0].Collection, err, tc.want)
		}
	}
	// Partitioned by _id, a plain index is fine and a unique one on another
	// field is refused as well.
	if err := db.EnsureIndexes(ctx, Index{Collection: "d", Keys: bson.D{{Key: "at", Value: 1}}, Name: "at", PartitionBy: "_id"}); err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureIndexes(ctx, Index{Collection: "e", Keys: bson.D{{Key: "at", Value: 1}}, Unique: true, Name: "at", PartitionBy: "_id"}); err == nil {
		t.Fatal("a unique index without the _id partition key was taken")
	}
}

func TestPartitionBase(t *testing.T) {
	for name, want := range map[string]string{
		"notifications.p07": "notifications", "a.b.p31": "a.b", "orders": "orders",
		"x.p7": "x.p7", "x.pab": "x.pab", "x.p123": "x.p123", ".p00": "",
	} {
		if got := partitionBase(name); got != want {
			t.Errorf("partitionBase(%q) = %q, want %q", name, got, want)
		}
	}
}

// A document found both in the unsplit collection and in its partition (a
// move run twice, or an older binary run again after the split) is dropped
// from the source when it is the same document, and stops the start with a
// clear error when it is not.
func TestPartitionAdoptionOfDocumentsAlreadyMoved(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "d", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	idx := Index{Collection: "ev", Keys: bson.D{{Key: "at", Value: 1}}, Name: "at", PartitionBy: "_id"}
	p := db.Partitioned("ev")
	same := bson.D{{Key: "_id", Value: "e1"}, {Key: "at", Value: 1}}
	if _, err := db.Collection("ev").InsertOne(ctx, same); err != nil {
		t.Fatal(err)
	}
	if _, err := p.For("e1").InsertOne(ctx, same); err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureIndexes(ctx, idx); err != nil {
		t.Fatalf("the same document in both places: %v", err)
	}
	if n, _ := db.Collection("ev").CountDocuments(ctx, bson.M{}); n != 0 {
		t.Fatalf("the source keeps %d documents", n)
	}
	if n, _ := p.For("e1").CountDocuments(ctx, bson.M{"_id": "e1"}); n != 1 {
		t.Fatalf("%d copies of e1 in its partition", n)
	}
	if _, err := db.Collection("ev").InsertOne(ctx, bson.D{{Key: "_id", Value: "e1"}, {Key: "at", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if err := db.EnsureIndexes(ctx, idx); err == nil || !strings.Contains(err.Error(), "other contents") {
		t.Fatalf("two versions of e1 were not reported: %v", err)
	}
	if n, _ := db.Collection("ev").CountDocuments(ctx, bson.M{}); n != 1 {
		t.Fatal("the refused move changed the source")
	}
}
