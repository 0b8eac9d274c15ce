package store

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

type changed struct {
	ID    string   `bson:"_id"`
	N     int64    `bson:"n"`
	Note  *string  `bson:"note,omitempty"`
	Tags  []string `bson:"tags"`
	Inner struct {
		A int `bson:"a"`
	} `bson:"inner"`
}

func TestChangesWritesOnlyWhatChanged(t *testing.T) {
	note := "x"
	before := changed{ID: "a", N: 1, Note: &note, Tags: []string{"p"}}
	if u, err := Changes(before, before); err != nil || u != nil {
		t.Fatalf("unchanged: %v, %v; want nil", u, err)
	}
	after := before
	after.N = 2
	after.Note = nil
	after.Inner.A = 3
	u, err := Changes(before, after)
	if err != nil {
		t.Fatal(err)
	}
	set, _ := u["$set"].(bson.M)
	unset, _ := u["$unset"].(bson.M)
	if len(set) != 2 || set["n"] == nil || set["inner"] == nil || len(unset) != 1 || unset["note"] == nil {
		t.Fatalf("update %v: want $set n and inner, $unset note", u)
	}
	// An int32 and an int64 of the same value differ in type: the stored
	// encoding is what counts.
	if u, _ := Changes(bson.M{"n": int32(1)}, bson.M{"n": int64(1)}); u == nil {
		t.Fatal("a changed BSON type is a change")
	}

	// Applied to a stored document, the update leaves fields the type does
	// not know as they are.
	db, err := Open(context.Background(), Options{Name: "t", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(context.Background())
	ctx := context.Background()
	c := db.Collection("changes")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "a", "n": 1, "note": "x", "tags": bson.A{"p"}, "inner": bson.M{"a": 0}, "other": "kept"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "a"}, u2(t, before, after)); err != nil {
		t.Fatal(err)
	}
	var got bson.M
	if err := c.FindOne(ctx, bson.M{"_id": "a"}).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got["n"] != int64(2) || got["other"] != "kept" || got["note"] != nil || got["inner"].(bson.M)["a"] != int32(3) {
		t.Fatalf("stored %v", got)
	}
}

func u2(t *testing.T, before, after any) bson.M {
	t.Helper()
	u, err := Changes(before, after)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
