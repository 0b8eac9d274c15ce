package boltstore

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// openBenchFile builds (once per process) a closed file holding n
// order-shaped documents (about 2 KB of BSON each, a unique and two plain
// indexes) by writing a few through the store and copying them with
// Replicate, and returns its directory.
func openBenchFile(b *testing.B, n int) string {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "store-open-bench-"+strconv.Itoa(n))
	if _, err := os.Stat(filepath.Join(dir, "svc.lungo")); err == nil {
		return dir
	}
	os.RemoveAll(dir)
	ctx := context.Background()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		b.Fatal(err)
	}
	db := openDir(b, dir)
	if err := db.EnsureIndexes(ctx,
		Index{Collection: "orders", Keys: bson.D{{Key: "ref", Value: 1}}, Unique: true, Name: "one_per_ref"},
		Index{Collection: "orders", Keys: bson.D{{Key: "status", Value: 1}, {Key: "created_at", Value: -1}}, Name: "by_status"},
		Index{Collection: "orders", Keys: bson.D{{Key: "buyer.id", Value: 1}}, Name: "by_buyer"},
	); err != nil {
		b.Fatal(err)
	}
	const seeds = 10
	for i := 0; i < seeds; i++ {
		var lines bson.A
		for j := 0; j < 6; j++ {
			lines = append(lines, bson.M{"sku": "SKU-" + strconv.Itoa(j), "title": "A product with a fairly long title " + strconv.Itoa(j),
				"qty": j + 1, "unit_price": bson.M{"amount": int64(1999 + j), "currency": "EUR"}, "tax": bson.M{"rate": "0.19", "amount": int64(379)}})
		}
		doc := bson.D{{Key: "_id", Value: primitive.NewObjectID()}, {Key: "ref", Value: "ord-" + strconv.Itoa(i)},
			{Key: "status", Value: []string{"paid", "shipped", "pending"}[i%3]}, {Key: "created_at", Value: time.Now().UTC()},
			{Key: "buyer", Value: bson.M{"id": "buyer-" + strconv.Itoa(i%7), "email": "someone@example.com", "name": "Some Buyer",
				"address": bson.M{"street": "Long Street 12", "city": "Berlin", "zip": "10115", "country": "DE"}}},
			{Key: "lines", Value: lines}, {Key: "total", Value: bson.M{"amount": int64(12345), "currency": "EUR"}},
			{Key: "history", Value: bson.A{bson.M{"at": time.Now().UTC(), "status": "pending"}, bson.M{"at": time.Now().UTC(), "status": "paid"}}},
			{Key: "version", Value: int64(3)}}
		if _, err := db.Collection("orders").InsertOne(ctx, doc); err != nil {
			b.Fatal(err)
		}
	}
	if err := db.Close(ctx); err != nil {
		b.Fatal(err)
	}
	st, err := Replicate(filepath.Join(dir, "svc.lungo"), nil, nil, n/seeds-1, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("file with %d documents, %d bytes of BSON", st.StoredDocs, st.StoredBytes)
	return dir
}

// BenchmarkOpen100k is the restart of a service with 100,000 orders stored:
// opening its file (every record's CRC checked, documents decoded, indexes
// rebuilt and verified), and collecting the garbage it left.
func BenchmarkOpen100k(b *testing.B) {
	dir := openBenchFile(b, 100_000)
	ctx := context.Background()
	cpu := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	var used time.Duration
	runtime.GC()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := cpu()
		db, err := tryOpen(dir)
		if err != nil {
			b.Fatal(err)
		}
		// The collection of what the open left (its garbage, and the first
		// marking of the documents it read) is part of its cost, whenever
		// the collector runs it.
		runtime.GC()
		used += cpu() - start
		b.StopTimer()
		if err := db.Close(ctx); err != nil {
			b.Fatal(err)
		}
		runtime.GC()
		b.StartTimer()
	}
	// CPU seconds (every thread, the GC's too): what the open costs on a
	// machine shared with other work, where ns/op is noisy.
	b.ReportMetric(used.Seconds()/float64(b.N), "cpu-s/op")
}
