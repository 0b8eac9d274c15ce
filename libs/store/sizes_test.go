package store

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

func TestCollectionSizes(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "sizes", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	for i := range 3 {
		if _, err := db.Collection("orders").InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Collection("carts").InsertOne(ctx, bson.D{{Key: "_id", Value: "c"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("carts").DeleteOne(ctx, bson.D{{Key: "_id", Value: "c"}}); err != nil {
		t.Fatal(err)
	}
	var s Sizer = db
	got, err := s.CollectionSizes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["orders"] != 3 || got["carts"] != 0 {
		t.Fatalf("sizes %v, want orders 3, carts 0", got)
	}
}
