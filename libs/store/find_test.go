package store

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

type findDoc struct {
	ID string `bson:"_id"`
	N  int    `bson:"n"`
}

func TestFindAllAndFindOne(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "svc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("docs")

	none, err := FindAll[findDoc](ctx, c, bson.M{})
	if err != nil || none == nil || len(none) != 0 {
		t.Fatalf("empty collection: %#v, %v; want a non-nil empty slice", none, err)
	}
	if _, err := c.InsertMany(ctx, []any{findDoc{"a", 3}, findDoc{"b", 1}, findDoc{"c", 2}}); err != nil {
		t.Fatal(err)
	}
	got, err := FindAll[findDoc](ctx, c, bson.M{"n": bson.M{"$gte": 2}},
		options.Find().SetSort(bson.D{{Key: "n", Value: 1}}).SetLimit(5))
	if err != nil || len(got) != 2 || got[0] != (findDoc{"c", 2}) || got[1] != (findDoc{"a", 3}) {
		t.Fatalf("FindAll = %v, %v; want c then a (sorted by n)", got, err)
	}
	if got, err := FindAll[findDoc](ctx, c, bson.M{"n": 9}); err != nil || got == nil || len(got) != 0 {
		t.Fatalf("no match: %#v, %v; want a non-nil empty slice", got, err)
	}
	if _, err := FindAll[findDoc](ctx, c, bson.M{"n": bson.M{"$nope": 1}}); err == nil {
		t.Fatal("FindAll with an invalid filter: no error")
	}
	if _, err := FindAll[struct{ N string }](ctx, c, bson.M{}); err == nil {
		t.Fatal("FindAll decoding a number into a string: no error")
	}

	one, err := FindOne[findDoc](ctx, c, bson.M{"_id": "b"})
	if err != nil || one == nil || *one != (findDoc{"b", 1}) {
		t.Fatalf("FindOne b = %v, %v", one, err)
	}
	first, err := FindOne[findDoc](ctx, c, bson.M{}, options.FindOne().SetSort(bson.D{{Key: "n", Value: -1}}))
	if err != nil || first == nil || first.ID != "a" {
		t.Fatalf("FindOne sorted by n descending = %v, %v; want a", first, err)
	}
	missing, err := FindOne[findDoc](ctx, c, bson.M{"_id": "zz"})
	if err != nil || missing != nil {
		t.Fatalf("FindOne of a missing document = %v, %v; want nil, nil", missing, err)
	}
	if _, err := FindOne[findDoc](ctx, c, bson.M{"n": bson.M{"$nope": 1}}); err == nil {
		t.Fatal("FindOne with an invalid filter: no error")
	}
	if _, err := FindOne[struct{ N string }](ctx, c, bson.M{"_id": "a"}); err == nil {
		t.Fatal("FindOne decoding a number into a string: no error")
	}
}
