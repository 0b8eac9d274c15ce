package lungo

import (
	"fmt"
	"math/rand"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// The engine's cost per operation as the collection grows: insert, update by
// _id and find by _id with 1,000, 10,000 and 50,000 documents stored, in
// memory (the fork's README quotes these, before and after the persistent
// document sets). Run: go test -run '^$' -bench BenchmarkEngine -benchtime 300x

var engineBenchSizes = []int{1_000, 10_000, 50_000}

// engineBenchCatalogs are the catalogs with n documents, built once per size
// (straight into the collection, not through the engine, whose inserts are
// what is measured) and shared: the engine never changes a catalog it was
// given, it makes new ones.
var engineBenchCatalogs = map[int]*Catalog{}

// engineBenchCollection opens an engine in memory with n documents stored.
func engineBenchCollection(b *testing.B, n int) ICollection {
	b.Helper()
	catalog := engineBenchCatalogs[n]
	if catalog == nil {
		catalog = NewCatalog()
		coll := mongokit.NewCollection(true)
		for i := 0; i < n; i++ {
			if _, err := coll.Insert(bsonkit.MustConvert(engineBenchDoc(i))); err != nil {
				b.Fatal(err)
			}
		}
		catalog.Namespaces[Handle{"bench", "docs"}] = coll
		engineBenchCatalogs[n] = catalog
	}
	store := NewMemoryStore()
	if err := store.Store(catalog); err != nil {
		b.Fatal(err)
	}
	client, engine, err := Open(nil, Options{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(engine.Close)
	return client.Database("bench").Collection("docs")
}

func engineBenchDoc(i int) bson.M {
	return bson.M{
		"_id":    fmt.Sprintf("doc-%08d", i),
		"n":      i,
		"owner":  fmt.Sprintf("user-%d", i%97),
		"title":  "a document of the benchmark, long enough to look like a record",
		"tags":   bson.A{"a", "b", "c"},
		"nested": bson.M{"x": i, "y": "z"},
	}
}

func BenchmarkEngineInsertOne(b *testing.B) {
	for _, n := range engineBenchSizes {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			coll := engineBenchCollection(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := coll.InsertOne(nil, engineBenchDoc(n+i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEngineUpdateOneByID(b *testing.B) {
	for _, n := range engineBenchSizes {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			coll := engineBenchCollection(b, n)
			r := rand.New(rand.NewSource(1))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := fmt.Sprintf("doc-%08d", r.Intn(n))
				res, err := coll.UpdateOne(nil, bson.M{"_id": id}, bson.M{"$inc": bson.M{"n": 1}})
				if err != nil || res.ModifiedCount != 1 {
					b.Fatal(err, res)
				}
			}
		})
	}
}

func BenchmarkEngineFindOneByID(b *testing.B) {
	for _, n := range engineBenchSizes {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			coll := engineBenchCollection(b, n)
			r := rand.New(rand.NewSource(1))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				id := fmt.Sprintf("doc-%08d", r.Intn(n))
				var out bson.M
				if err := coll.FindOne(nil, bson.M{"_id": id}).Decode(&out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEngineTxnUpdates is a transaction of ten updates by _id (a
// consumer's batch): every write clones the collection it touches.
func BenchmarkEngineTxnUpdates(b *testing.B) {
	for _, n := range engineBenchSizes {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			coll := engineBenchCollection(b, n)
			client := coll.Database().Client()
			r := rand.New(rand.NewSource(1))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				err := client.UseSession(nil, func(sc ISessionContext) error {
					_, err := sc.WithTransaction(sc, func(sc ISessionContext) (interface{}, error) {
						for k := 0; k < 10; k++ {
							id := fmt.Sprintf("doc-%08d", r.Intn(n))
							if _, err := coll.UpdateOne(sc, bson.M{"_id": id}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
								return nil, err
							}
						}
						return nil, nil
					})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEngineParallelTransactions runs transactions (read a document,
// optionally wait, then $inc it) from GOMAXPROCS×4 goroutines at once, in
// memory with 1,000 documents stored: each goroutine on its own document
// ("own": writers that do not conflict, which the fork no longer queues
// behind one token) or all on one ("one": commits conflict and run again).
// "hold" waits 1 ms between the read and the write, as a transaction does
// that waits for a disk or another service: upstream, the token was held
// through it. Reported: transactions per second and attempts per
// transaction. Run: go test -run '^$' -bench BenchmarkEngineParallelTransactions -benchtime 2000x
func BenchmarkEngineParallelTransactions(b *testing.B) {
	for _, hold := range []time.Duration{0, time.Millisecond} {
		for _, mode := range []string{"own", "one"} {
			name := mode
			if hold > 0 {
				name += "-hold"
			}
			b.Run(name, func(b *testing.B) {
				benchParallelTransactions(b, mode == "own", hold)
			})
		}
	}
}

func benchParallelTransactions(b *testing.B, own bool, hold time.Duration) {
	c := engineBenchCollection(b, 1_000)
	client := c.Database().Client()
	var goroutine, attempts atomic.Int64
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		id := engineBenchDoc(0)["_id"]
		if own {
			id = engineBenchDoc(int(goroutine.Add(1)))["_id"]
		}
		sess, err := client.StartSession()
		if err != nil {
			b.Error(err)
			return
		}
		defer sess.EndSession(nil)
		for pb.Next() {
			_, err := sess.WithTransaction(nil, func(sc ISessionContext) (interface{}, error) {
				attempts.Add(1)
				if err := c.FindOne(sc, bson.M{"_id": id}).Err(); err != nil {
					return nil, err
				}
				if hold > 0 {
					time.Sleep(hold)
				}
				return c.UpdateOne(sc, bson.M{"_id": id}, bson.M{"$inc": bson.M{"n": 1}})
			})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "txn/s")
	b.ReportMetric(float64(attempts.Load())/float64(b.N), "attempts/txn")
}

// engineBenchReviews is a catalog of 20,000 review-like documents with the
// reviews service's seven compound indexes, built once and shared.
var engineBenchReviews *Catalog

// BenchmarkEngineUpdateIndexed is the vote's update: UpdateOne by _id of a
// review changing two counters and the score one index holds, in a collection
// of 20,000 documents with seven compound indexes (issue 22, the cost of an
// update in an index-heavy collection). Run: go test -run '^$' -bench
// BenchmarkEngineUpdateIndexed -benchtime 3000x -count 3
func BenchmarkEngineUpdateIndexed(b *testing.B) {
	const n = 20_000
	if engineBenchReviews == nil {
		client, engine, err := Open(nil, Options{Store: NewMemoryStore()})
		if err != nil {
			b.Fatal(err)
		}
		coll := client.Database("bench").Collection("reviews")
		asc, desc := 1, -1
		keys := [][]string{
			{"customerId", "orderId"},
			{"customerId", "storeId", "verifiedSlot"},
			{"storeId", "hidden", "-createdAt", "-_id"},
			{"storeId", "hidden", "-rating", "-createdAt", "-_id"},
			{"storeId", "hidden", "rating", "-createdAt", "-_id"},
			{"storeId", "hidden", "-wilson", "-createdAt", "-_id"},
			{"customerId", "-createdAt", "-_id"},
		}
		var models []mongo.IndexModel
		for _, k := range keys {
			var d bson.D
			for _, f := range k {
				if f[0] == '-' {
					d = append(d, bson.E{Key: f[1:], Value: desc})
				} else {
					d = append(d, bson.E{Key: f, Value: asc})
				}
			}
			models = append(models, mongo.IndexModel{Keys: d})
		}
		if _, err := coll.Indexes().CreateMany(nil, models); err != nil {
			b.Fatal(err)
		}
		docs := make([]interface{}, n)
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range docs {
			docs[i] = bson.M{
				"_id":             fmt.Sprintf("rev-%08d", i),
				"customerId":      fmt.Sprintf("cus-%d", i%1_000),
				"orderId":         fmt.Sprintf("ord-%08d", i),
				"verifiedSlot":    i,
				"storeId":         fmt.Sprintf("sto-%d", i%50),
				"hidden":          false,
				"rating":          1 + i%5,
				"createdAt":       start.Add(time.Duration(i) * time.Minute),
				"title":           "a review of the benchmark",
				"body":            "a body long enough to look like a review someone wrote about a store",
				"helpfulCount":    0,
				"notHelpfulCount": 0,
				"wilson":          0.0,
			}
		}
		if _, err := coll.InsertMany(nil, docs); err != nil {
			b.Fatal(err)
		}
		engineBenchReviews = engine.Catalog()
		engine.Close()
	}
	store := NewMemoryStore()
	if err := store.Store(engineBenchReviews); err != nil {
		b.Fatal(err)
	}
	client, engine, err := Open(nil, Options{Store: store})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(engine.Close)
	coll := client.Database("bench").Collection("reviews")
	r := rand.New(rand.NewSource(1))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		id := fmt.Sprintf("rev-%08d", r.Intn(n))
		res, err := coll.UpdateOne(nil, bson.M{"_id": id}, bson.M{
			"$inc": bson.M{"helpfulCount": 1},
			"$set": bson.M{"wilson": r.Float64()},
		})
		if err != nil || res.ModifiedCount != 1 {
			b.Fatal(err, res)
		}
	}
}
