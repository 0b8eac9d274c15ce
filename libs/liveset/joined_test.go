package liveset

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
)

// DB.Joined: the transactions begun inside its function (DB.Tx, and writes
// outside a Tx, which a live publisher gives a transaction of their own) are
// its transaction: they commit together, once, with one live record of all
// their writes, on both write paths (the engine's changes, and write by
// write as on MongoDB); an error aborts all of them; a Tx reporting a
// conflict starts the whole function again.
func TestJoinedTransactionsCommitTogether(t *testing.T) {
	for _, fromChanges := range []bool{true, false} {
		t.Run(fmt.Sprintf("fromChanges=%v", fromChanges), func(t *testing.T) {
			ctx := context.Background()
			db, pub := liveDB(t)
			db.tr.fromChanges = fromChanges
			coll := db.Collection("reviews")
			count := func() int64 {
				n, err := coll.CountDocuments(ctx, bson.M{})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			before := pub.count()
			err := db.Joined(ctx, func(ctx context.Context) error {
				if !db.InJoined(ctx) {
					t.Error("InJoined is false inside Joined's function")
				}
				for _, store := range []string{"s1", "s2"} {
					if err := db.Tx(ctx, func(ctx context.Context) error {
						_, err := coll.InsertOne(ctx, bson.M{"storeId": store})
						return err
					}); err != nil {
						return err
					}
				}
				_, err := coll.InsertOne(ctx, bson.M{"storeId": "s3"}) // outside any Tx
				if err != nil {
					return err
				}
				// Not committed yet: another reader does not see them.
				if n, err := coll.CountDocuments(context.Background(), bson.M{}); err != nil || n != 0 {
					t.Errorf("inside Joined, another reader counts %d (%v), want 0", n, err)
				}
				return nil
			})
			if err != nil || count() != 3 {
				t.Fatalf("Joined: %v, %d documents", err, count())
			}
			if got := pub.count() - before; got != 1 {
				t.Fatalf("%d live records of one joined transaction, want 1", got)
			}
			w := pub.last(t)
			if cw := w.Colls["reviews"]; cw == nil || cw.All || len(cw.Values["storeId"]) != 3 {
				t.Fatalf("live record %+v, want the three stores", cw)
			}

			refused := apperr.New(apperr.FailedPrecondition, "no")
			err = db.Joined(ctx, func(ctx context.Context) error {
				if err := db.Tx(ctx, func(ctx context.Context) error {
					_, err := coll.InsertOne(ctx, bson.M{"storeId": "s4"})
					return err
				}); err != nil {
					return err
				}
				return refused
			})
			if !errors.Is(err, refused) || count() != 3 {
				t.Fatalf("an error after a joined Tx: %v, %d documents (want the Tx's write aborted)", err, count())
			}

			runs, conflicts := 0, 2
			err = db.Joined(ctx, func(ctx context.Context) error {
				runs++
				_, err := store.Retry(ctx, "the review", func(ctx context.Context) (struct{}, error) {
					return struct{}{}, db.Tx(ctx, func(ctx context.Context) error {
						if _, err := coll.InsertOne(ctx, bson.M{"storeId": "s5"}); err != nil {
							return err
						}
						if conflicts > 0 {
							conflicts--
							return store.ErrConflict
						}
						return nil
					})
				})
				return err
			})
			if err != nil || runs != 3 || count() != 4 {
				t.Fatalf("conflicts: %v after %d runs, %d documents (want 3 runs, one write kept)", err, runs, count())
			}
			err = db.Joined(ctx, func(ctx context.Context) error {
				return db.Tx(ctx, func(context.Context) error { return store.ErrConflict })
			})
			if apperr.CodeOf(err) != apperr.Unavailable || apperr.From(err).Details["reason"] != store.ReasonContention {
				t.Fatalf("always conflicting: %v", err)
			}
		})
	}
}
