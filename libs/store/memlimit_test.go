package store

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
)

// wantRefused checks err is the refusal at the limit: UNAVAILABLE with the
// reason and a message naming the setting, the figures and what to do.
func wantRefused(t *testing.T, what string, err error) {
	t.Helper()
	if !IsMemoryLimit(err) {
		t.Fatalf("%s: want the memory-limit refusal, got %v", what, err)
	}
	e := apperr.From(err)
	if e.Code != apperr.Unavailable || e.Code.Status() != 503 {
		t.Fatalf("%s: code %s (%d), want UNAVAILABLE 503", what, e.Code, e.Code.Status())
	}
	if e.Details["reason"] != ReasonMemoryLimit {
		t.Fatalf("%s: details %v, want reason %s", what, e.Details, ReasonMemoryLimit)
	}
	for _, s := range []string{"DB_MEMORY_LIMIT=64MiB", "100MiB of live data", "Delete data", "raise DB_MEMORY_LIMIT", "MongoDB", "nothing was written"} {
		if !strings.Contains(e.Message, s) {
			t.Fatalf("%s: message %q does not say %q", what, e.Message, s)
		}
	}
}

func TestMemoryLimitRefusesWritesThatAddData(t *testing.T) {
	ctx := context.Background()
	lim := NewMemoryLimit(64 << 20)
	var heap atomic.Uint64
	heap.Store(10 << 20)
	lim.SetHeapReader(heap.Load)
	db, err := Open(ctx, Options{Name: "t", Memory: true, MemoryLimit: lim})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	c := db.Collection("things")
	counters := db.Collection("counters")
	for i, id := range []string{"a", "b", "c", "d"} {
		if _, err := c.InsertOne(ctx, bson.M{"_id": id, "n": i}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := counters.InsertOne(ctx, bson.M{"_id": "things", "n": 4}); err != nil {
		t.Fatal(err)
	}

	heap.Store(100 << 20) // over the limit
	wantRefused(t, "InsertOne", func() error { _, err := c.InsertOne(ctx, bson.M{"_id": "x"}); return err }())
	wantRefused(t, "InsertMany", func() error { _, err := c.InsertMany(ctx, []any{bson.M{"_id": "x"}}); return err }())
	wantRefused(t, "InsertOne on a clone", func() error {
		cl, err := c.Clone()
		if err != nil {
			return err
		}
		_, err = cl.InsertOne(ctx, bson.M{"_id": "x"})
		return err
	}())
	wantRefused(t, "UpdateOne", func() error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{"big": strings.Repeat("x", 100)}})
		return err
	}())
	wantRefused(t, "upsert", func() error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": "y"}, bson.M{"$set": bson.M{"n": 1}}, options.Update().SetUpsert(true))
		return err
	}())
	wantRefused(t, "UpdateMany", func() error { _, err := c.UpdateMany(ctx, bson.M{}, bson.M{"$set": bson.M{"m": 1}}); return err }())
	wantRefused(t, "ReplaceOne", func() error { _, err := c.ReplaceOne(ctx, bson.M{"_id": "a"}, bson.M{"n": 9}); return err }())
	wantRefused(t, "FindOneAndUpdate", c.FindOneAndUpdate(ctx, bson.M{"_id": "a"}, bson.M{"$set": bson.M{"m": 1}}).Err())
	wantRefused(t, "BulkWrite with an insert", func() error {
		_, err := c.BulkWrite(ctx, []mongo.WriteModel{mongo.NewDeleteOneModel().SetFilter(bson.M{"_id": "d"}), mongo.NewInsertOneModel().SetDocument(bson.M{"_id": "z"})})
		return err
	}())
	wantRefused(t, "index creation", func() error {
		_, err := c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "n", Value: 1}}})
		return err
	}())
	// A transaction that adds is refused whole: the write before the refused
	// one is rolled back with it.
	err = db.Tx(ctx, func(ctx context.Context) error {
		if _, err := counters.UpdateOne(ctx, bson.M{"_id": "things"}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
			return err
		}
		_, err := c.InsertOne(ctx, bson.M{"_id": "x"})
		return err
	})
	wantRefused(t, "Tx", err)
	// Nothing was half-written.
	var ctr struct{ N int }
	if err := counters.FindOne(ctx, bson.M{"_id": "things"}).Decode(&ctr); err != nil || ctr.N != 4 {
		t.Fatalf("counter after the refused writes: %d (%v), want 4", ctr.N, err)
	}
	if n, err := c.CountDocuments(ctx, bson.M{}); err != nil || n != 4 {
		t.Fatalf("after the refused writes: %d documents (%v), want 4", n, err)
	}
	if n, _ := c.CountDocuments(ctx, bson.M{"m": 1}); n != 0 {
		t.Fatalf("a refused update changed %d documents", n)
	}

	// Reads and deletes go on.
	var doc bson.M
	if err := c.FindOne(ctx, bson.M{"_id": "a"}).Decode(&doc); err != nil {
		t.Fatalf("FindOne over the limit: %v", err)
	}
	cur, err := c.Find(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var all []bson.M
	if err := cur.All(ctx, &all); err != nil || len(all) != 4 {
		t.Fatalf("Find over the limit: %d (%v)", len(all), err)
	}
	if res, err := c.DeleteOne(ctx, bson.M{"_id": "d"}); err != nil || res.DeletedCount != 1 {
		t.Fatalf("DeleteOne over the limit: %v %v", res, err)
	}
	// A transaction that deletes may do its bookkeeping (a counter down).
	if err := db.Tx(ctx, func(ctx context.Context) error {
		if err := c.FindOneAndDelete(ctx, bson.M{"_id": "c"}).Err(); err != nil {
			return err
		}
		_, err := counters.UpdateOne(ctx, bson.M{"_id": "things"}, bson.M{"$inc": bson.M{"n": -2}})
		return err
	}); err != nil {
		t.Fatalf("a deleting transaction over the limit: %v", err)
	}
	// One that deleted nothing may not.
	err = db.Tx(ctx, func(ctx context.Context) error {
		if _, err := c.DeleteOne(ctx, bson.M{"_id": "gone"}); err != nil {
			return err
		}
		_, err := counters.UpdateOne(ctx, bson.M{"_id": "things"}, bson.M{"$inc": bson.M{"n": 5}})
		return err
	})
	wantRefused(t, "Tx that deleted nothing", err)
	// The writes the system needs, marked, go through.
	if _, err := counters.InsertOne(AllowOverMemoryLimit(ctx, "test"), bson.M{"_id": "marked"}); err != nil {
		t.Fatalf("a marked write over the limit: %v", err)
	}
	if err := counters.FindOne(ctx, bson.M{"_id": "things"}).Decode(&ctr); err != nil || ctr.N != 2 {
		t.Fatalf("counter: %d (%v), want 2", ctr.N, err)
	}

	// Freed (the heap below the limit) or raised: writes go through again.
	heap.Store(10 << 20)
	if _, err := c.InsertOne(ctx, bson.M{"_id": "e"}); err != nil {
		t.Fatalf("insert below the limit: %v", err)
	}
	heap.Store(100 << 20)
	lim.SetBytes(128 << 20)
	if err := db.Tx(ctx, func(ctx context.Context) error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": "e"}, bson.M{"$set": bson.M{"n": 5}})
		return err
	}); err != nil {
		t.Fatalf("update after the limit was raised: %v", err)
	}
	lim.SetBytes(0) // off
	heap.Store(1 << 40)
	if _, err := c.InsertOne(ctx, bson.M{"_id": "f"}); err != nil {
		t.Fatalf("insert with the limit off: %v", err)
	}
}

func TestMemoryLimitReadsTheLiveHeap(t *testing.T) {
	runtime.GC()
	if h := LiveHeap(); h == 0 {
		t.Fatal("no live heap read after a collection")
	}
	lim := NewMemoryLimit(MinMemoryLimit)
	lim.SetBytes(1) // below any real heap
	if err := lim.Check(); !IsMemoryLimit(err) {
		t.Fatalf("a 1-byte limit on the real heap: %v", err)
	}
	lim.SetBytes(1 << 50)
	if err := lim.Check(); err != nil {
		t.Fatalf("a 1PiB limit: %v", err)
	}
	var nilLimit *MemoryLimit
	if err := nilLimit.Check(); err != nil {
		t.Fatal(err)
	}
}

func TestDataHeldIsNeverMoreThanWhatIsResident(t *testing.T) {
	const gib = 1 << 30
	for _, c := range []struct {
		name     string
		live     uint64
		resident int64
		known    bool
		want     uint64
	}{
		{"documents held are resident: the live heap counts", 3 * gib, 5 * gib, true, 3 * gib},
		{"allocated, never touched: the resident memory counts", 27 * gib, 2 * gib, true, 2 * gib},
		{"resident unknown (not Linux): the live heap counts", 27 * gib, 0, false, 27 * gib},
		{"equal", gib, gib, true, gib},
	} {
		if got := DataHeld(c.live, c.resident, c.known); got != c.want {
			t.Errorf("%s: DataHeld(%d, %d, %t) = %d, want %d", c.name, c.live, c.resident, c.known, got, c.want)
		}
	}
	if runtime.GOOS == "linux" {
		if n, ok := ResidentMemory(); !ok || n <= 0 {
			t.Fatalf("ResidentMemory on Linux: %d %t", n, ok)
		}
	}
}

// A buffer allocated and never touched raises the live heap, not the
// resident memory, and refuses nothing. It is allocated in a process of its
// own, since the runtime may touch it: in a process whose heap grew and gave
// memory back, the runtime zeroes reused address space when it hands it out
// (a CI run's buffer became resident that way and was refused, rightly), and
// under the race detector about one fresh process in three makes the whole
// buffer resident too (seen here: 3 of 8). A process that finds its buffer
// resident says so, and another is started, up to six.
func TestMemoryLimitIgnoresMemoryNeverTouched(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("resident memory is read on Linux only")
	}
	const pass, resident = "--- PASS: TestMemoryLimitIgnoresMemoryNeverTouched", "the buffer is resident"
	if os.Getenv(untouchedChild) == "" {
		for range 6 {
			cmd := exec.Command(os.Args[0], "-test.run=^TestMemoryLimitIgnoresMemoryNeverTouched$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), untouchedChild+"=1")
			out, err := cmd.CombinedOutput()
			switch {
			case err == nil && strings.Contains(string(out), pass) && !strings.Contains(string(out), resident):
				return
			case err != nil || !strings.Contains(string(out), resident):
				t.Fatalf("in a process of its own: %v\n%s", err, out)
			}
		}
		t.Fatalf("the buffer was resident in six processes in a row: nothing was shown")
	}
	runtime.GC()
	untouched := make([]byte, 1<<30)
	runtime.GC()
	live := LiveHeap()
	if live < 1<<30 {
		t.Fatalf("live heap %d with a 1GiB buffer held", live)
	}
	rss, ok := ResidentMemory()
	if !ok || uint64(rss)+512<<20 > live {
		t.Skipf("%s (%d bytes resident, %d live): the runtime touched it", resident, rss, live)
	}
	// Below the live heap, above what is resident: a limit on the live heap
	// would refuse.
	lim := NewMemoryLimit(rss + 256<<20)
	if err := lim.Check(); err != nil {
		t.Fatalf("a 1GiB buffer never touched refused writes: %v", err)
	}
	runtime.KeepAlive(untouched)
}

// untouchedChild marks the process TestMemoryLimitIgnoresMemoryNeverTouched
// starts to hold its buffer.
const untouchedChild = "STORE_TEST_UNTOUCHED_CHILD"

func TestParseMemoryLimit(t *testing.T) {
	gib := int64(1 << 30)
	known := func() (int64, string, bool) { return 8 * gib, "the cgroup's memory.max", true }
	unknown := func() (int64, string, bool) { return 0, "", false }
	for _, c := range []struct {
		in    string
		avail func() (int64, string, bool)
		want  int64
		says  string
	}{
		{"512MiB", known, 512 << 20, "512MiB"},
		{"2GiB", known, 2 * gib, "2GiB"},
		{" 2 gib ", known, 2 * gib, "2GiB"},
		{"1.5GiB", known, 3 * gib / 2, "1.5GiB"},
		{"1GB", known, 1e9, ""},
		{"100000000", known, 1e8, ""},
		{"off", known, 0, "off"},
		{"OFF", known, 0, "off"},
		{"0", known, 0, "off"},
		{"0MiB", known, 0, "off"},
		{"auto", known, 4 * gib, "50% of 8GiB (the cgroup's memory.max)"},
		{"", known, 4 * gib, "auto"},
		{"auto", unknown, 0, "could not be read"},
		{"25%", known, 2 * gib, "25% of 8GiB"},
	} {
		got, says, err := ParseMemoryLimit(c.in, c.avail)
		if err != nil || got != c.want || !strings.Contains(says, c.says) {
			t.Errorf("%q: %d %q %v, want %d saying %q", c.in, got, says, err, c.want, c.says)
		}
	}
	for _, c := range []struct {
		in    string
		avail func() (int64, string, bool)
		says  string
	}{
		{"lots", known, "not a size"},
		{"12 parsecs", known, `unknown unit "parsecs"`},
		{"2G", known, `unknown unit "g"`},
		{"-1GiB", known, "not a size"},
		{"1.2.3MiB", known, "not a size"},
		{"512", known, "was a unit forgotten"},
		{"1MiB", known, "below the 32MiB"},
		{"0%", known, "above 0 and at most 100"},
		{"150%", known, "above 0 and at most 100"},
		{"x%", known, "above 0 and at most 100"},
		{"50%", unknown, "could not be read"},
		{"99999999TiB", known, "too large"},
	} {
		_, _, err := ParseMemoryLimit(c.in, c.avail)
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "DB_MEMORY_LIMIT=") || !strings.Contains(err.Error(), "512MiB") {
			t.Errorf("%q: error %v, want one naming DB_MEMORY_LIMIT, saying %q and giving an example", c.in, err, c.says)
		}
	}
	if _, _, ok := MemoryAvailable(); !ok {
		t.Log("the memory available cannot be read here")
	}
}

func TestMemoryLimitIgnoresMongoDB(t *testing.T) {
	// A database on a server is never wrapped (no engine memory to bound).
	d := &DB{memLimit: NewMemoryLimit(1)}
	if _, ok := d.limited(nil).(limitedCollection); ok {
		t.Fatal("a MongoDB database's collection was limited")
	}
	d.embedded = true
	if _, ok := d.limited(nil).(limitedCollection); !ok {
		t.Fatal("an embedded database's collection was not limited")
	}
}

// BenchmarkMemoryLimitCheck is the cost the check adds to each write: a
// reading of the live heap (cached heapCacheTTL) and a comparison.
func BenchmarkMemoryLimitCheck(b *testing.B) {
	ctx := context.Background()
	lim := NewMemoryLimit(1 << 50)
	c := limitedCollection{lim: lim}
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if err := c.check(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			lim.readAt.Store(-1 << 63)
			if err := c.check(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if err := c.check(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
}

// BenchmarkInsertWithMemoryLimit: an InsertOne on the embedded engine (in
// memory) without a limit and with one well above the heap: what the check
// adds to a whole write.
func BenchmarkInsertWithMemoryLimit(b *testing.B) {
	for _, c := range []struct {
		name string
		lim  *MemoryLimit
	}{{"off", nil}, {"on", NewMemoryLimit(1 << 50)}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			db, err := Open(ctx, Options{Name: "bench", Memory: true, MemoryLimit: c.lim})
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close(ctx)
			coll := db.Collection("things")
			i := 0
			for b.Loop() {
				i++
				if _, err := coll.InsertOne(ctx, bson.M{"_id": i, "name": "thing", "n": i}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
