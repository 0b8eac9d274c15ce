package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// Reads by a key are served by the engine's indexes (third_party/lungo's
// point lookups); the tests here check them through the store, inside and
// outside transactions, against the engine's own scan: the same filter under
// a top-level $and, which no index serves.
func scanned(filter any) bson.D { return bson.D{{Key: "$and", Value: bson.A{filter}}} }

// Reads by _id answer what a scan answers: found, missing, projected, after
// updates and deletes, inside transactions (which see their own writes), in
// memory and on file, and after a restart.
func TestFindByIDAnswersAsAScan(t *testing.T) {
	ctx := context.Background()
	for _, kind := range []string{"memory", "file"} {
		t.Run(kind, func(t *testing.T) {
			dir := t.TempDir()
			open := func() *DB {
				o := Options{Name: "svc", DataDir: dir}
				if kind == "memory" {
					o = Options{Name: "svc", Memory: true}
				}
				db, err := Open(ctx, o)
				if err != nil {
					t.Fatal(err)
				}
				return db
			}
			db := open()
			c := db.Collection("things")
			oid := primitive.NewObjectID()
			if _, err := c.InsertMany(ctx, []any{bson.M{"_id": "a", "v": 1, "w": "x"}, bson.M{"_id": oid, "v": 2}, bson.M{"_id": 7, "v": 3}}); err != nil {
				t.Fatal(err)
			}
			type doc struct {
				ID any    `bson:"_id"`
				V  int    `bson:"v"`
				W  string `bson:"w"`
			}
			read := func(ctx context.Context, filter any, opts ...*options.FindOneOptions) (doc, error) {
				t.Helper()
				var d doc
				err := db.Collection("things").FindOne(ctx, filter, opts...).Decode(&d)
				// The same read by a scan.
				var l doc
				lerr := db.Collection("things").FindOne(ctx, scanned(filter), opts...).Decode(&l)
				if (err == nil) != (lerr == nil) || fmt.Sprint(d) != fmt.Sprint(l) {
					t.Fatalf("%v: lookup answered %v %v, scan %v %v", filter, d, err, l, lerr)
				}
				return d, err
			}
			if d, err := read(ctx, bson.M{"_id": "a"}); err != nil || d.V != 1 || d.W != "x" {
				t.Fatalf("a: %v %v", d, err)
			}
			if d, err := read(ctx, bson.D{{Key: "_id", Value: oid}}); err != nil || d.V != 2 {
				t.Fatalf("oid: %v %v", d, err)
			}
			if _, err := read(ctx, bson.M{"_id": "missing"}); !IsNotFound(err) {
				t.Fatalf("missing: %v", err)
			}
			if d, err := read(ctx, bson.M{"_id": "a"}, options.FindOne().SetProjection(bson.M{"v": 1})); err != nil || d.V != 1 || d.W != "" {
				t.Fatalf("projected: %v %v", d, err)
			}
			if _, err := db.Collection("nothing").FindOne(ctx, bson.M{"_id": "a"}).DecodeBytes(); !IsNotFound(err) {
				t.Fatalf("no collection: %v", err)
			}
			// Numbers are lungo's to compare (7 and 7.0 are one _id).
			if d, err := read(ctx, bson.M{"_id": 7.0}); err != nil || d.V != 3 {
				t.Fatalf("number: %v %v", d, err)
			}

			if _, err := c.UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{"v": 10}}); err != nil {
				t.Fatal(err)
			}
			if d, _ := read(ctx, bson.M{"_id": "a"}); d.V != 10 {
				t.Fatalf("after update: %v", d)
			}
			if _, err := c.DeleteOne(ctx, bson.M{"_id": oid}); err != nil {
				t.Fatal(err)
			}
			if _, err := read(ctx, bson.M{"_id": oid}); !IsNotFound(err) {
				t.Fatalf("after delete: %v", err)
			}

			// A transaction sees its own writes, and nothing of them remains
			// when it rolls back.
			boom := errors.New("boom")
			err := db.Tx(ctx, func(ctx context.Context) error {
				if d, err := read(ctx, bson.M{"_id": "a"}); err != nil || d.V != 10 {
					t.Fatalf("in tx before writing: %v %v", d, err)
				}
				if _, err := db.Collection("things").UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{"v": 11}}); err != nil {
					return err
				}
				if _, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "b", "v": 5}); err != nil {
					return err
				}
				if d, err := read(ctx, bson.M{"_id": "a"}); err != nil || d.V != 11 {
					t.Fatalf("in tx after its update: %v %v", d, err)
				}
				if d, err := read(ctx, bson.M{"_id": "b"}); err != nil || d.V != 5 {
					t.Fatalf("in tx after its insert: %v %v", d, err)
				}
				// Outside the transaction, nothing of it yet.
				if d, _ := read(context.Background(), bson.M{"_id": "a"}); d.V != 10 {
					t.Fatalf("outside the tx: %v", d)
				}
				return boom
			})
			if !errors.Is(err, boom) {
				t.Fatal(err)
			}
			if d, _ := read(ctx, bson.M{"_id": "a"}); d.V != 10 {
				t.Fatalf("after rollback: %v", d)
			}
			if _, err := read(ctx, bson.M{"_id": "b"}); !IsNotFound(err) {
				t.Fatalf("rolled back insert: %v", err)
			}
			if err := db.Tx(ctx, func(ctx context.Context) error {
				_, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "b", "v": 6})
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if d, _ := read(ctx, bson.M{"_id": "b"}); d.V != 6 {
				t.Fatalf("committed insert: %v", d)
			}
			if err := c.Drop(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := read(ctx, bson.M{"_id": "b"}); !IsNotFound(err) {
				t.Fatalf("dropped: %v", err)
			}
			if _, err := c.InsertOne(ctx, bson.M{"_id": "c", "v": 1}); err != nil {
				t.Fatal(err)
			}
			db.Close(ctx)
			if kind == "file" {
				db = open()
				if d, _ := read(ctx, bson.M{"_id": "c"}); d.V != 1 {
					t.Fatalf("after restart: %v", d)
				}
				db.Close(ctx)
			}
		})
	}
}

// Reads by _id while others write never see a document go back in time or a
// half-done transaction: a counter read outside transactions only grows, and
// two documents changed together are read together inside one.
func TestFindByIDUnderConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "svc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("pairs")
	if _, err := c.InsertMany(ctx, []any{bson.M{"_id": "x", "n": 0}, bson.M{"_id": "y", "n": 0}}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 150; i++ {
				err := db.Tx(ctx, func(ctx context.Context) error {
					for _, id := range []string{"x", "y"} {
						if _, err := db.Collection("pairs").UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
							return err
						}
					}
					_, err := db.Collection("noise").InsertOne(ctx, bson.M{"i": i})
					return err
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			last := -1
			for {
				select {
				case <-stop:
					return
				default:
				}
				var x, y struct{ N int }
				if err := db.Tx(ctx, func(ctx context.Context) error {
					if err := db.Collection("pairs").FindOne(ctx, bson.M{"_id": "x"}).Decode(&x); err != nil {
						return err
					}
					return db.Collection("pairs").FindOne(ctx, bson.M{"_id": "y"}).Decode(&y)
				}); err != nil {
					errs <- err
					return
				}
				if x.N != y.N {
					errs <- fmt.Errorf("a transaction read x=%d y=%d", x.N, y.N)
					return
				}
				if err := db.Collection("pairs").FindOne(ctx, bson.M{"_id": "x"}).Decode(&x); err != nil {
					errs <- err
					return
				}
				if x.N < last {
					errs <- fmt.Errorf("x went back from %d to %d", last, x.N)
					return
				}
				last = x.N
			}
		}()
	}
	// Wait for the writers, then stop the readers.
	for {
		var x struct{ N int }
		if err := db.Collection("pairs").FindOne(ctx, bson.M{"_id": "x"}).Decode(&x); err != nil {
			t.Fatal(err)
		}
		if x.N == 300 {
			break
		}
		select {
		case err := <-errs:
			t.Fatal(err)
		default:
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// Random documents, writes and FindOne filters over unique, compound,
// partial and plain indexes, inside transactions (reads see the
// transaction's own writes) and out: every find answers what a scan answers.
func TestFindByKeyMatchesAScanAtRandom(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "svc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if err := db.EnsureIndexes(ctx,
		Index{Collection: "r", Keys: bson.D{{Key: "u", Value: 1}}, Unique: true, Name: "u"},
		Index{Collection: "r", Keys: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}, Unique: true, Name: "ab"},
		Index{Collection: "r", Keys: bson.D{{Key: "p", Value: 1}}, Unique: true, Partial: bson.M{"flag": true}, Name: "p"},
		Index{Collection: "r", Keys: bson.D{{Key: "n", Value: 1}}, Name: "n"},
	); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	str := func() string { return fmt.Sprintf("v%d", rng.IntN(12)) }
	value := func() any {
		switch rng.IntN(10) {
		case 0:
			return rng.IntN(3)
		case 1:
			return bson.A{str(), str()}
		default:
			return str()
		}
	}
	randomDoc := func(id string) bson.M {
		d := bson.M{"_id": id}
		for _, f := range []string{"u", "a", "b", "p", "n", "x"} {
			if rng.IntN(6) > 0 {
				d[f] = value()
			}
		}
		d["flag"] = rng.IntN(2) == 0
		return d
	}
	filters := []func() any{
		func() any { return bson.M{"_id": fmt.Sprintf("d%d", rng.IntN(40))} },
		func() any { return bson.M{"u": str()} },
		func() any { return bson.D{{Key: "a", Value: str()}, {Key: "b", Value: str()}} },
		func() any { return bson.M{"a": str()} },
		func() any { return bson.M{"u": str(), "x": str()} },
		func() any { return bson.M{"_id": fmt.Sprintf("d%d", rng.IntN(40)), "u": str()} },
		func() any { return bson.M{"p": str()} },
		func() any { return bson.M{"p": str(), "flag": true} },
		func() any { return bson.M{"u": rng.IntN(3)} },
		func() any { return bson.M{"u": bson.M{"$in": bson.A{str(), str()}}} },
		func() any {
			return bson.M{"u": str(), "$or": bson.A{bson.M{"n": str()}, bson.M{"x": bson.M{"$exists": false}}}}
		},
		func() any { return bson.M{"n": str()} },
		// A bad operator (in a fixed order: with a map, lungo's own answer
		// depends on which field it happens to check first).
		func() any {
			return bson.D{{Key: "_id", Value: fmt.Sprintf("d%d", rng.IntN(40))}, {Key: "n", Value: bson.M{"$bad": 1}}}
		},
	}
	filters = append(filters,
		func() any {
			return bson.M{"_id": bson.M{"$in": bson.A{fmt.Sprintf("d%d", rng.IntN(40)), fmt.Sprintf("d%d", rng.IntN(40)), "none"}}}
		},
		func() any { return bson.M{"u": bson.M{"$in": bson.A{str(), str(), str()}}, "n": bson.M{"$ne": str()}} },
		func() any { return bson.M{"_id": bson.M{"$in": bson.A{"d1", 5}}} },
		func() any { return bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{}}}}} },
		func() any { return bson.M{"a": bson.M{"$in": bson.A{str(), str(), str()}}, "b": str()} },
	)
	findOpts := []func() *options.FindOptions{
		func() *options.FindOptions { return nil },
		func() *options.FindOptions {
			return options.Find().SetSort(bson.D{{Key: "n", Value: -1}, {Key: "u", Value: 1}})
		},
		func() *options.FindOptions { return options.Find().SetSkip(1).SetLimit(1) },
		func() *options.FindOptions { return options.Find().SetLimit(2).SetProjection(bson.M{"u": 1}) },
		func() *options.FindOptions { return options.Find().SetSort(bson.M{"u": 2}) }, // refused by lungo
	}
	compareMany := func(ctx context.Context) {
		t.Helper()
		f := filters[rng.IntN(len(filters))]()
		o := findOpts[rng.IntN(len(findOpts))]()
		all := func(f any) ([]bson.D, error) {
			cur, err := db.Collection("r").Find(ctx, f, o)
			if err != nil {
				return nil, err
			}
			var out []bson.D
			err = cur.All(ctx, &out)
			return out, err
		}
		got, err := all(f)
		want, lerr := all(scanned(f))
		if (err == nil) != (lerr == nil) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("find %v %v: lookup %v %v, scan %v %v", f, o, got, err, want, lerr)
		}
	}
	compare := func(ctx context.Context) {
		t.Helper()
		compareMany(ctx)
		f := filters[rng.IntN(len(filters))]()
		var got, want bson.M
		err := db.Collection("r").FindOne(ctx, f).Decode(&got)
		lerr := db.Collection("r").FindOne(ctx, scanned(f)).Decode(&want)
		if (err == nil) != (lerr == nil) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%v: lookup %v %v, scan %v %v", f, got, err, want, lerr)
		}
	}
	c := db.Collection("r")
	for step := 0; step < 1200; step++ {
		id := fmt.Sprintf("d%d", rng.IntN(40))
		switch rng.IntN(6) {
		case 0, 1:
			_, _ = c.InsertOne(ctx, randomDoc(id)) // duplicates refused, as they should be
		case 2:
			set := randomDoc(id)
			delete(set, "_id")
			_, _ = c.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": set})
		case 3:
			_, _ = c.DeleteOne(ctx, bson.M{"_id": id})
		case 4:
			// Reads inside a transaction see its writes: inserts, updates,
			// replacements and deletes, several before the commit (or the
			// rollback).
			_ = db.Tx(ctx, func(ctx context.Context) error {
				c := db.Collection("r")
				compare(ctx)
				for range 1 + rng.IntN(4) {
					id := fmt.Sprintf("d%d", rng.IntN(40))
					switch rng.IntN(4) {
					case 0:
						_, _ = c.InsertOne(ctx, randomDoc(id))
					case 1:
						_, _ = c.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"u": str(), "a": value()}})
					case 2:
						_, _ = c.ReplaceOne(ctx, bson.M{"_id": id}, bson.M{"u": str(), "b": str()})
					default:
						_, _ = c.DeleteOne(ctx, bson.M{"_id": id})
					}
					compare(ctx)
					compare(ctx)
				}
				if rng.IntN(3) == 0 {
					return errors.New("roll back")
				}
				return nil
			})
		}
		compare(ctx)
		compare(ctx)
	}
}

// A transaction that writes an array into a unique field: an equality on one
// of its elements finds that document (lungo matches arrays element by
// element), inside the transaction as after it.
func TestFindByKeyInTxWithAnArray(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "svc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if err := db.EnsureIndexes(ctx, Index{Collection: "r", Keys: bson.D{{Key: "u", Value: 1}}, Unique: true, Name: "u"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("r").InsertOne(ctx, bson.M{"_id": "a", "u": "x"}); err != nil {
		t.Fatal(err)
	}
	err = db.Tx(ctx, func(ctx context.Context) error {
		if _, err := db.Collection("r").InsertOne(ctx, bson.M{"_id": "b", "u": bson.A{"y", "z"}}); err != nil {
			return err
		}
		var got struct {
			ID string `bson:"_id"`
		}
		if err := db.Collection("r").FindOne(ctx, bson.M{"u": "z"}).Decode(&got); err != nil || got.ID != "b" {
			t.Fatalf("an element of an array written in the transaction: %v %v", got, err)
		}
		if err := db.Collection("r").FindOne(ctx, bson.M{"u": "x"}).Decode(&got); err != nil || got.ID != "a" {
			t.Fatalf("committed: %v %v", got, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ID string `bson:"_id"`
	}
	if err := db.Collection("r").FindOne(ctx, bson.M{"u": "y"}).Decode(&got); err != nil || got.ID != "b" {
		t.Fatalf("an element of an array, committed: %v %v", got, err)
	}
}

// Find by keys: the documents in the collection's natural order, then
// sorted, skipped, limited and projected.
func TestFindManyByKey(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Name: "svc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("r")
	if _, err := c.InsertMany(ctx, []any{bson.M{"_id": "a", "v": 2}, bson.M{"_id": "b", "v": 3}, bson.M{"_id": "c", "v": 1}, bson.M{"_id": "d", "v": 0}}); err != nil {
		t.Fatal(err)
	}
	ids := func(o *options.FindOptions) string {
		t.Helper()
		cur, err := c.Find(ctx, bson.M{"_id": bson.M{"$in": bson.A{"c", "a", "x", "b", "a"}}}, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []struct {
			ID string `bson:"_id"`
			V  int    `bson:"v"`
		}
		if err := cur.All(ctx, &out); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(out)
	}
	for _, tc := range []struct {
		o    *options.FindOptions
		want string
	}{
		{nil, "[{a 2} {b 3} {c 1}]"},
		{options.Find().SetSort(bson.M{"v": -1}), "[{b 3} {a 2} {c 1}]"},
		{options.Find().SetSort(bson.M{"v": 1}).SetSkip(1).SetLimit(1), "[{a 2}]"},
		{options.Find().SetSkip(1), "[{b 3} {c 1}]"},
		{options.Find().SetLimit(2).SetProjection(bson.M{"v": 0}), "[{a 0} {b 0}]"},
		{options.Find().SetSkip(5), "[]"},
	} {
		if got := ids(tc.o); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.o, got, tc.want)
		}
	}
}
