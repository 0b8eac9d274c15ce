package store

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// The embedded engine runs transactions concurrently and rebases a commit
// onto the ones made since it began: what reaches the file must still be
// every commit, in order, with the documents' natural order. Transactions
// from several goroutines insert (rebased inserts get new sequence numbers),
// increment their own counter and one shared by all (which conflicts and
// runs again); the file read back equals what was in memory, and every
// increment landed.
func TestFileStoreTakesConcurrentTransactions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	c := db.Collection("o")
	const goroutines, rounds = 6, 25
	var wg sync.WaitGroup
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				err := db.Tx(ctx, func(ctx context.Context) error {
					if _, err := c.InsertOne(ctx, bson.M{"_id": fmt.Sprintf("%d-%d", g, i), "g": g}); err != nil {
						return err
					}
					inc := bson.M{"$inc": bson.M{"n": 1}}
					if _, err := c.UpdateOne(ctx, bson.M{"_id": fmt.Sprintf("own-%d", g)}, inc, options.Update().SetUpsert(true)); err != nil {
						return err
					}
					_, err := c.UpdateOne(ctx, bson.M{"_id": "shared"}, inc, options.Update().SetUpsert(true))
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	count := func(db *DB, id string) int32 {
		var doc struct{ N int32 }
		if err := db.Collection("o").FindOne(ctx, bson.M{"_id": id}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		return doc.N
	}
	if got := count(db, "shared"); got != goroutines*rounds {
		t.Fatalf("shared counter %d, want %d", got, goroutines*rounds)
	}
	before := dump(t, db)
	if err := db.Close(ctx); err != nil {
		t.Fatal(err)
	}
	db = openDir(t, dir)
	defer db.Close(ctx)
	sameDump(t, before, dump(t, db))
	for g := range goroutines {
		if got := count(db, fmt.Sprintf("own-%d", g)); got != rounds {
			t.Fatalf("counter of goroutine %d: %d, want %d", g, got, rounds)
		}
	}
	n, err := db.Collection("o").CountDocuments(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(goroutines*rounds + goroutines + 1); n != want {
		t.Fatalf("%d documents after reopening, want %d", n, want)
	}
}
