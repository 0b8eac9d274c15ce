package store

import (
	"context"
	"errors"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
)

// A Tx (or Joined) called with a transaction's context joins it: its writes
// commit or abort with the enclosing transaction's, and its missed
// compare-and-set starts the outermost transaction again.
func TestNestedTransactionsJoin(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "t", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("nested")
	count := func() int64 {
		n, err := c.CountDocuments(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	for _, inner := range []struct {
		name string
		tx   func(context.Context, func(context.Context) error) error
	}{{"Tx", db.Tx}, {"Joined", db.Joined}} {
		t.Run(inner.name, func(t *testing.T) {
			if _, err := c.DeleteMany(ctx, bson.M{}); err != nil {
				t.Fatal(err)
			}
			// The outer transaction fails after the inner one returned:
			// nothing of either is kept.
			boom := errors.New("boom")
			err := db.Tx(ctx, func(ctx context.Context) error {
				if _, err := c.InsertOne(ctx, bson.M{"_id": "outer"}); err != nil {
					return err
				}
				if err := inner.tx(ctx, func(ctx context.Context) error {
					_, err := c.InsertOne(ctx, bson.M{"_id": "inner"})
					return err
				}); err != nil {
					return err
				}
				return boom
			})
			if !errors.Is(err, boom) || count() != 0 {
				t.Fatalf("err %v, %d documents: want boom and none", err, count())
			}

			// A conflict inside starts the whole transaction again, on a
			// fresh one; then both writes commit together.
			runs := 0
			err = db.Tx(ctx, func(ctx context.Context) error {
				runs++
				if _, err := c.InsertOne(ctx, bson.M{"_id": "outer"}); err != nil {
					return err
				}
				return inner.tx(ctx, func(ctx context.Context) error {
					if runs == 1 {
						return ErrConflict
					}
					_, err := c.InsertOne(ctx, bson.M{"_id": "inner"})
					return err
				})
			})
			if err != nil || runs != 2 || count() != 2 {
				t.Fatalf("err %v, %d runs, %d documents: want nil, 2, 2", err, runs, count())
			}

			// A conflict that never clears ends in contention, nothing written.
			if _, err := c.DeleteMany(ctx, bson.M{}); err != nil {
				t.Fatal(err)
			}
			runs = 0
			err = db.Tx(ctx, func(ctx context.Context) error {
				runs++
				if _, err := c.InsertOne(ctx, bson.M{"_id": "outer"}); err != nil {
					return err
				}
				return inner.tx(ctx, func(context.Context) error { return ErrConflict })
			})
			if runs != ContentionAttempts || count() != 0 || err == nil || errors.Is(err, ErrConflict) {
				t.Fatalf("err %v, %d runs, %d documents: want contention after %d runs, none", err, runs, count(), ContentionAttempts)
			}
		})
	}
}
