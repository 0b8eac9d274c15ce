package store

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// partitionsLeft lists the collections of db named as partitions.
func partitionsLeft(t *testing.T, db *DB) []string {
	t.Helper()
	names, err := db.ListCollectionNames(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		if partitionBase(n) != "" {
			out = append(out, n)
		}
	}
	return out
}

// A database file written by an older version, with a collection split into
// partitions (<base>.pNN, each with its indexes, a unique one among them), is
// merged back at the next open: every document in <base> with its contents,
// no partition left, and <base>'s unique index holding across documents that
// were in different partitions. What a crash during an older merge can leave
// (a partition emptied but not dropped, a document already copied into
// <base>) is finished cleanly, and a second open finds nothing to do.
func TestOpenMergesPartitions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	open := func() *DB {
		t.Helper()
		db, err := Open(ctx, Options{Name: "p", DataDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	unique := Index{Collection: "things", Keys: bson.D{{Key: "ev", Value: 1}, {Key: "n", Value: 1}}, Unique: true, Name: "ev_n"}
	plain := Index{Collection: "things", Keys: bson.D{{Key: "n", Value: 1}}, Name: "n"}

	// An older version's file: 600 documents over three partitions (their
	// keys spread so that ev values repeat across partitions), one emptied
	// partition, one document of p17 also in the base already, and a
	// collection whose name only looks like a partition.
	db := open()
	want := map[string]bson.M{}
	for i, part := range []string{"p03", "p17", "p31"} {
		coll := "things." + part
		for _, ix := range []Index{unique, plain} {
			ix.Collection = coll
			if err := db.EnsureIndexes(ctx, ix); err != nil {
				t.Fatal(err)
			}
		}
		docs := make([]any, 0, 200)
		for j := range 200 {
			d := bson.M{"_id": fmt.Sprintf("t%d-%03d", i, j), "ev": fmt.Sprintf("e%d", j), "n": i, "part": part}
			docs = append(docs, d)
			want[d["_id"].(string)] = d
		}
		if _, err := db.Collection(coll).InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.EnsureIndexes(ctx, Index{Collection: "things.p09", Keys: plain.Keys, Name: "n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("things").InsertOne(ctx, want["t1-005"]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("things.pax").InsertOne(ctx, bson.M{"_id": "kept"}); err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)

	check := func(db *DB) {
		t.Helper()
		if left := partitionsLeft(t, db); len(left) != 0 {
			t.Fatalf("partitions left: %v", left)
		}
		cur, err := db.Collection("things").Find(ctx, bson.D{})
		if err != nil {
			t.Fatal(err)
		}
		var got []bson.M
		if err := cur.All(ctx, &got); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("things holds %d documents, want %d", len(got), len(want))
		}
		for _, d := range got {
			w := want[d["_id"].(string)]
			if w == nil || fmt.Sprint(d["ev"], d["n"], d["part"]) != fmt.Sprint(w["ev"], w["n"], w["part"]) {
				t.Fatalf("document %v, want %v", d, w)
			}
		}
		if n, _ := db.Collection("things.pax").CountDocuments(ctx, bson.D{}); n != 1 {
			t.Fatal("a collection that is not a partition was touched")
		}
	}
	db = open()
	check(db)
	if err := db.EnsureIndexes(ctx, unique, plain); err != nil {
		t.Fatal(err)
	}
	// (e5, 1) was in p17; the same key is refused now whatever _id it has.
	if _, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "new", "ev": "e5", "n": 1}); !IsDuplicate(err) {
		t.Fatalf("a second (e5, 1) was taken: %v", err)
	}
	if _, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "t2-007", "ev": "other"}); !IsDuplicate(err) {
		t.Fatalf("a second t2-007 was taken: %v", err)
	}
	db.Close(ctx)
	db = open()
	defer db.Close(ctx)
	check(db)
}

// A document in both a partition and its base with other contents is two
// versions of one document: the base's copy stays, the partition's is set
// aside in <base>.merge-conflicts under {partition, id}, an error in the log
// names them, and the open goes on; nothing is lost.
func TestOpenSetsAsideAConflictingPartitionDocument(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, Options{Name: "c", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		coll string
		docs []any
	}{
		{"ev.p00", []any{bson.M{"_id": "a", "v": 1}}},
		{"ev.p01", []any{bson.M{"_id": "b", "v": 1}, bson.M{"_id": "c", "v": 1}}},
		{"ev", []any{bson.M{"_id": "b", "v": 2}}},
	} {
		if _, err := db.Collection(c.coll).InsertMany(ctx, c.docs); err != nil {
			t.Fatal(err)
		}
	}
	db.Close(ctx)
	var logged bytes.Buffer
	db, err = Open(ctx, Options{Name: "c", DataDir: dir, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if left := partitionsLeft(t, db); len(left) != 0 {
		t.Fatalf("partitions left: %v", left)
	}
	cur, err := db.Collection("ev").Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var got []struct {
		ID string `bson:"_id"`
		V  int    `bson:"v"`
	}
	if err := cur.All(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[{a 1} {b 2} {c 1}]" {
		t.Fatalf("ev holds %v, want a, b (the base's copy) and c", got)
	}
	var aside struct {
		ID  struct{ Partition, ID string } `bson:"_id"`
		Doc struct{ V int }                `bson:"doc"`
	}
	if err := db.Collection("ev.merge-conflicts").FindOne(ctx, bson.D{}).Decode(&aside); err != nil {
		t.Fatal(err)
	}
	if aside.ID.Partition != "ev.p01" || aside.ID.ID != "b" || aside.Doc.V != 1 {
		t.Fatalf("set aside: %+v", aside)
	}
	if !strings.Contains(logged.String(), "level=ERROR") || !strings.Contains(logged.String(), "ev.merge-conflicts") {
		t.Fatalf("log: %s", logged.String())
	}
}

func TestPartitionBase(t *testing.T) {
	for name, want := range map[string]string{
		"notifications.p07": "notifications", "a.b.p31": "a.b", "orders": "",
		"x.p7": "", "x.pab": "", "x.p123": "", ".p00": "", "p00": "",
	} {
		if got := partitionBase(name); got != want {
			t.Errorf("partitionBase(%q) = %q, want %q", name, got, want)
		}
	}
}
