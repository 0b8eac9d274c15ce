package store

import (
	"context"
	"runtime"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// neverDone is a context that is never done but could be (a request's, a
// loop's): deriving from it takes a goroutine that waits for it, which is
// how a context the engine keeps shows up.
type neverDone struct {
	context.Context
	done chan struct{}
}

func (c neverDone) Done() <-chan struct{} { return c.done }

// Writes and transactions on the embedded engine leave nothing of their
// context behind: lungo v0.4.0 kept a child of each until it was done (fixed
// in third_party/lungo; its TestEngineBeginKeepsNothingPerContext).
func TestWritesLeaveNoContextBehind(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "ctxend", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("things")
	settle := func() int {
		runtime.GC()
		time.Sleep(50 * time.Millisecond)
		return runtime.NumGoroutine()
	}
	before := settle()
	const n = 200
	for i := range n {
		rc := neverDone{Context: context.WithValue(ctx, neverDone{}, i), done: make(chan struct{})}
		if _, err := c.InsertOne(rc, bson.M{"_id": i}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UpdateOne(rc, bson.M{"_id": i}, bson.M{"$set": bson.M{"v": 1}}); err != nil {
			t.Fatal(err)
		}
		if err := db.Tx(rc, func(tx context.Context) error {
			_, err := db.Collection("things").DeleteOne(tx, bson.M{"_id": i})
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	// One more begin (v0.4.0 dropped the children of ended contexts there).
	if _, err := c.InsertOne(ctx, bson.M{"_id": "last"}); err != nil {
		t.Fatal(err)
	}
	if grown := settle() - before; grown > n/10 {
		t.Fatalf("%d goroutines more after %d writes and transactions: the engine kept their contexts", grown, 3*n)
	}
}
