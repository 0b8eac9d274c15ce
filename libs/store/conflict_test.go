package store

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
)

// TestTxThatKeepsConflictingAnswersContention: a transaction that loses a
// write conflict on every attempt until its context ends (a request whose
// caller gave up, or a deadline, while the document stayed hot) answers
// UNAVAILABLE with details.reason "contention", as Retry does, not the
// engine's WriteConflict, which reached the client as INTERNAL.
func TestTxThatKeepsConflictingAnswersContention(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "t", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("hot")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "x", "n": 0}); err != nil {
		t.Fatal(err)
	}
	tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	attempts := 0
	err = db.Tx(tctx, func(tx context.Context) error {
		attempts++
		if _, err := c.UpdateOne(tx, bson.M{"_id": "x"}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
			return err
		}
		// Another writer changes the same document before this one commits.
		_, err := c.UpdateOne(ctx, bson.M{"_id": "x"}, bson.M{"$inc": bson.M{"n": 100}})
		return err
	})
	if attempts < 2 {
		t.Fatalf("the transaction ran %d times: it did not conflict", attempts)
	}
	e := apperr.From(err)
	if e.Code != apperr.Unavailable || e.Details["reason"] != ReasonContention {
		t.Fatalf("after %d conflicting attempts: %v (code %s, details %v), want UNAVAILABLE reason %s", attempts, err, e.Code, e.Details, ReasonContention)
	}
	var doc struct{ N int }
	if err := c.FindOne(ctx, bson.M{"_id": "x"}).Decode(&doc); err != nil || doc.N != 100*attempts {
		t.Fatalf("n = %d (%v), want %d: only the other writer's increments", doc.N, err, 100*attempts)
	}
}
