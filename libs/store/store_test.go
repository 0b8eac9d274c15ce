package store

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

func TestTxCommitsAndAborts(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "t", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("things")
	if err := db.EnsureIndexes(ctx, Index{Collection: "things", Keys: bson.D{{Key: "k", Value: 1}}, Unique: true, Name: "k"}); err != nil {
		t.Fatal(err)
	}
	if err := db.Tx(ctx, func(ctx context.Context) error {
		_, err := c.InsertOne(ctx, bson.M{"_id": "a", "k": 1})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err = db.Tx(ctx, func(ctx context.Context) error {
		if _, err := c.InsertOne(ctx, bson.M{"_id": "b", "k": 2}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("want boom, got %v", err)
	}
	if n, _ := c.CountDocuments(ctx, bson.M{}); n != 1 {
		t.Fatalf("aborted transaction left %d documents, want 1", n)
	}
	_, err = c.InsertOne(ctx, bson.M{"_id": "c", "k": 1})
	if !IsDuplicate(err) {
		t.Fatalf("want duplicate, got %v", err)
	}
	if err := c.FindOne(ctx, bson.M{"_id": "zz"}).Err(); !IsNotFound(err) {
		t.Fatalf("want not found, got %v", err)
	}
	if err := db.Ping(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestFileStoreSurvivesReopen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, Options{Name: "svc", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("x").InsertOne(ctx, bson.M{"_id": "1"}); err != nil {
		t.Fatal(err)
	}
	_ = db.Close(ctx)
	db, err = Open(ctx, Options{Name: "svc", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if n, _ := db.Collection("x").CountDocuments(ctx, bson.M{}); n != 1 {
		t.Fatalf("reopened store has %d documents, want 1", n)
	}
}
