package boltstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Replicate copies the documents written between two marks into a closed
// file: the copies get new _id and unique keys, the file opens again with its
// unique index holding, and documents outside the marks are not copied.
func TestReplicateCopiesTheDocumentsBetweenMarks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "svc.lungo")
	db := openDir(t, dir)
	if err := db.EnsureIndexes(ctx, Index{Collection: "orders", Keys: bson.D{{Key: "ref", Value: 1}}, Unique: true, Name: "one_per_ref"}); err != nil {
		t.Fatal(err)
	}
	insert := func(db *testDB, refs ...string) {
		for _, r := range refs {
			if _, err := db.Collection("orders").InsertOne(ctx, bson.M{"_id": primitive.NewObjectID(), "ref": r, "n": len(r)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	insert(db, "before")
	if err := db.Close(ctx); err != nil {
		t.Fatal(err)
	}
	from, err := FileMarks(file)
	if err != nil {
		t.Fatal(err)
	}
	db = openDir(t, dir)
	insert(db, "a", "bb")
	if err := db.Close(ctx); err != nil {
		t.Fatal(err)
	}
	to, err := FileMarks(file)
	if err != nil {
		t.Fatal(err)
	}
	db = openDir(t, dir)
	insert(db, "after")
	if err := db.Close(ctx); err != nil {
		t.Fatal(err)
	}

	st, err := Replicate(file, from, to, 3, func(ns string, doc bsonkit.Doc, k int) bool {
		return bsonkit.Get(doc, "ref") != "bb~k2" // one copy left out
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Copied != 5 || st.StoredDocs != 9 {
		t.Fatalf("copied %d, stored %d; want 5 copied (2 documents x 3, one left out), 9 stored", st.Copied, st.StoredDocs)
	}
	db = openDir(t, dir)
	defer db.Close(ctx)
	cur, err := db.Collection("orders").Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		ID  primitive.ObjectID `bson:"_id"`
		Ref string             `bson:"ref"`
		N   int                `bson:"n"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var refs []string
	ids := map[primitive.ObjectID]bool{}
	for _, d := range docs {
		refs = append(refs, d.Ref)
		ids[d.ID] = true
		if base, _, _ := strings.Cut(d.Ref, "~"); d.N != len(base) {
			t.Errorf("%s: n %d, the copy's other fields changed", d.Ref, d.N)
		}
	}
	if got := strings.Join(refs, " "); got != "before a bb after a~k1 bb~k1 a~k2 a~k3 bb~k3" || len(ids) != 9 {
		t.Errorf("documents in natural order %q (%d distinct _id)", got, len(ids))
	}
	// The unique index still holds after the copies: a copy's key is taken.
	if _, err := db.Collection("orders").InsertOne(ctx, bson.M{"ref": "a~k1"}); !isDuplicate(err) {
		t.Errorf("inserting a copy's unique key again: %v, want a duplicate key error", err)
	}
}
