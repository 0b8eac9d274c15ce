package boltstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"go.etcd.io/bbolt"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// testDB is the database "svc" of an engine on a Store (dir/svc.lungo), used
// as a program uses it: its collections answer a write once it is durable
// (Durable), its transactions once their commit is (WaitDurable).
type testDB struct {
	lungo.IDatabase
	st     *Store
	client lungo.IClient
	engine *lungo.Engine
}

// tryOpen opens dir/svc.lungo as a program does.
func tryOpen(dir string) (*testDB, error) {
	st, err := Open(filepath.Join(dir, "svc.lungo"), slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, err
	}
	client, engine, err := lungo.Open(context.Background(), lungo.Options{Store: st, NoOplog: true})
	if err != nil {
		st.Close()
		return nil, err
	}
	return &testDB{IDatabase: client.Database("svc"), st: st, client: client, engine: engine}, nil
}

func openDir(t testing.TB, dir string) *testDB {
	t.Helper()
	db, err := tryOpen(dir)
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func (d *testDB) Collection(name string) lungo.ICollection {
	return Durable(d.IDatabase.Collection(name), d.st)
}

// Tx runs fn in a transaction and answers once its commit is durable.
func (d *testDB) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	sess, err := d.client.StartSession()
	if err != nil {
		return err
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc lungo.ISessionContext) (any, error) { return nil, fn(sc) })
	if werr := d.st.WaitDurable(ctx); werr != nil {
		return werr
	}
	return err
}

func (d *testDB) Close(context.Context) error {
	d.engine.Close()
	return d.st.Close()
}

// Index is an index to create.
type Index struct {
	Collection string
	Keys       bson.D
	Unique     bool
	Partial    bson.M
	Name       string
}

func (d *testDB) EnsureIndexes(ctx context.Context, idx ...Index) error {
	for _, ix := range idx {
		o := options.Index().SetUnique(ix.Unique)
		if ix.Name != "" {
			o.SetName(ix.Name)
		}
		if ix.Partial != nil {
			o.SetPartialFilterExpression(ix.Partial)
		}
		if _, err := d.Collection(ix.Collection).Indexes().CreateOne(ctx, mongo.IndexModel{Keys: ix.Keys, Options: o}); err != nil {
			return err
		}
	}
	return nil
}

func isDuplicate(err error) bool { return lungo.IsUniquenessError(err) }

// dump is every collection's documents in natural (unsorted find) order, and
// its index definitions.
func dump(t *testing.T, db *testDB) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	names, err := db.ListCollectionNames(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		cur, err := db.Collection(name).Find(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		var docs []bson.D
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		ic, err := db.Collection(name).Indexes().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var idx []bson.D
		if err := ic.All(ctx, &idx); err != nil {
			t.Fatal(err)
		}
		out[name] = map[string]any{"docs": docs, "indexes": idx}
	}
	return out
}

func sameDump(t *testing.T, before, after map[string]any) {
	t.Helper()
	if !reflect.DeepEqual(before, after) {
		for name := range before {
			if !reflect.DeepEqual(before[name], after[name]) {
				t.Errorf("collection %s differs after reopening:\nbefore %v\nafter  %v", name, before[name], after[name])
			}
		}
		for name := range after {
			if _, ok := before[name]; !ok {
				t.Errorf("collection %s appeared after reopening", name)
			}
		}
		t.FailNow()
	}
}

// Every kind of write, many of them at random over a few collections, reads
// back after a restart exactly as it was: documents, their values and types,
// their natural order, and the indexes.
func TestFileStoreReadsBackWhatWasWritten(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	if err := db.EnsureIndexes(ctx,
		Index{Collection: "a", Keys: bson.D{{Key: "k", Value: 1}}, Unique: true, Name: "k"},
		Index{Collection: "b", Keys: bson.D{{Key: "owner", Value: 1}, {Key: "_id", Value: -1}}, Name: "by_owner"},
		Index{Collection: "b", Keys: bson.D{{Key: "owner", Value: 1}}, Unique: true, Partial: bson.M{"default": true}, Name: "one_default"},
	); err != nil {
		t.Fatal(err)
	}
	ttl := mongo.IndexModel{Keys: bson.D{{Key: "expires", Value: 1}}, Options: options.Index().SetExpireAfterSeconds(3600)}
	if _, err := db.Collection("c").Indexes().CreateOne(ctx, ttl); err != nil {
		t.Fatal(err)
	}
	// Values of many types, _ids of several.
	oid := primitive.NewObjectID()
	when := time.UnixMilli(1_700_000_000_123).UTC()
	if _, err := db.Collection("c").InsertMany(ctx, []any{
		bson.M{"_id": oid, "s": "text", "i32": int32(7), "i64": int64(1) << 40, "f": 1.5, "b": true, "n": nil, "t": when,
			"bin": primitive.Binary{Subtype: 0, Data: []byte{0, 1, 2}}, "arr": bson.A{"x", int32(1), bson.D{{Key: "y", Value: "z"}}},
			"doc": bson.D{{Key: "z", Value: int32(1)}, {Key: "a", Value: bson.A{}}}, "dec": primitive.NewDecimal128(1, 2), "expires": when},
		bson.M{"_id": int32(42), "v": "int id"},
		bson.M{"_id": int64(43), "v": "long id"},
		bson.M{"_id": bson.D{{Key: "store", Value: "s1"}, {Key: "n", Value: int32(1)}}, "v": "document id"},
	}); err != nil {
		t.Fatal(err)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	ids := map[string][]string{}
	next := 0
	for step := 0; step < 400; step++ {
		coll := []string{"a", "b"}[rng.IntN(2)]
		c := db.Collection(coll)
		live := ids[coll]
		switch op := rng.IntN(10); {
		case op < 4 || len(live) == 0:
			next++
			id := fmt.Sprintf("%s-%04d", coll, next)
			doc := bson.M{"_id": id, "k": next, "owner": fmt.Sprintf("o%d", next%7), "v": rng.IntN(100)}
			if coll == "b" && rng.IntN(5) == 0 {
				doc["default"] = true
			}
			if _, err := c.InsertOne(ctx, doc); err != nil && !isDuplicate(err) {
				t.Fatal(err)
			} else if err == nil {
				ids[coll] = append(live, id)
			}
		case op < 6:
			id := live[rng.IntN(len(live))]
			if _, err := c.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$inc": bson.M{"v": 1}, "$push": bson.M{"h": step}}); err != nil {
				t.Fatal(err)
			}
		case op < 7:
			id := live[rng.IntN(len(live))]
			if _, err := c.ReplaceOne(ctx, bson.M{"_id": id}, bson.M{"k": -step, "replaced": true}); err != nil {
				t.Fatal(err)
			}
		case op < 8:
			i := rng.IntN(len(live))
			if _, err := c.DeleteOne(ctx, bson.M{"_id": live[i]}); err != nil {
				t.Fatal(err)
			}
			ids[coll] = append(live[:i:i], live[i+1:]...)
		case op < 9:
			// A transaction over both collections, one update of many documents.
			if err := db.Tx(ctx, func(ctx context.Context) error {
				next++
				if _, err := db.Collection("a").InsertOne(ctx, bson.M{"_id": fmt.Sprintf("a-%04d", next), "k": next}); err != nil {
					return err
				}
				ids["a"] = append(ids["a"], fmt.Sprintf("a-%04d", next))
				_, err := db.Collection("b").UpdateMany(ctx, bson.M{"owner": "o3"}, bson.M{"$set": bson.M{"touched": step}})
				return err
			}); err != nil {
				t.Fatal(err)
			}
		default:
			// An aborted transaction writes nothing.
			_ = db.Tx(ctx, func(ctx context.Context) error {
				if _, err := c.DeleteMany(ctx, bson.M{}); err != nil {
					return err
				}
				return errors.New("abort")
			})
		}
	}
	// A collection made and dropped, one made and left empty.
	if _, err := db.Collection("gone").InsertOne(ctx, bson.M{"_id": 1}); err != nil {
		t.Fatal(err)
	}
	if err := db.Collection("gone").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateCollection(ctx, "empty"); err != nil {
		t.Fatal(err)
	}
	before := dump(t, db)
	if _, ok := before["gone"]; ok {
		t.Fatal("dropped collection still listed")
	}
	db.Close(ctx)

	db = openDir(t, dir)
	sameDump(t, before, dump(t, db))
	// The indexes work after the restart.
	var some struct{ K int }
	if err := db.Collection("a").FindOne(ctx, bson.M{"k": bson.M{"$gt": 0}}).Decode(&some); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("a").InsertOne(ctx, bson.M{"_id": "dup", "k": some.K}); !isDuplicate(err) {
		t.Fatalf("unique index after reopening: %v", err)
	}
	db.Close(ctx)
}

// A commit writes what it changed: one document of a thousand, and nothing of
// the namespaces it did not touch.
func TestFileStoreWritesOnlyWhatChanged(t *testing.T) {
	ctx := context.Background()
	db := openDir(t, t.TempDir())
	defer db.Close(ctx)
	docs := make([]any, 1000)
	for i := range docs {
		docs[i] = bson.M{"_id": i, "v": i}
	}
	if _, err := db.Collection("big").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("other").InsertMany(ctx, docs[:100]); err != nil {
		t.Fatal(err)
	}
	want := func(what string, w commitStats) {
		t.Helper()
		if got := db.st.last; got != w {
			t.Fatalf("%s wrote %+v, want %+v", what, got, w)
		}
	}
	want("inserting 100", commitStats{namespaces: 1, put: 100})
	if _, err := db.Collection("big").UpdateOne(ctx, bson.M{"_id": 500}, bson.M{"$set": bson.M{"v": -1}}); err != nil {
		t.Fatal(err)
	}
	want("updating one", commitStats{namespaces: 1, put: 1, del: 1}) // the old version out, the new in: one record
	if _, err := db.Collection("big").DeleteOne(ctx, bson.M{"_id": 3}); err != nil {
		t.Fatal(err)
	}
	want("deleting one", commitStats{namespaces: 1, del: 1})
	if _, err := db.Collection("big").InsertOne(ctx, bson.M{"_id": "new"}); err != nil {
		t.Fatal(err)
	}
	want("inserting one", commitStats{namespaces: 1, put: 1})
	if _, err := db.Collection("big").UpdateMany(ctx, bson.M{"v": bson.M{"$lt": 10}}, bson.M{"$set": bson.M{"small": true}}); err != nil {
		t.Fatal(err)
	}
	want("updating ten", commitStats{namespaces: 1, put: 10, del: 10}) // 0-9 but 3, and 500
	if _, err := db.Collection("big").UpdateOne(ctx, bson.M{"_id": 500}, bson.M{"$set": bson.M{"v": -1}}); err != nil {
		t.Fatal(err)
	}
	want("an update that changes nothing", commitStats{namespaces: 1, put: 10, del: 10}) // no commit at all
}

// lungo's own file format, written before this store, is migrated on first
// open: the data is all there, the old file is kept beside it.
func TestOldFormatFileIsMigrated(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "svc.lungo")
	client, engine, err := lungo.Open(ctx, lungo.Options{Store: lungo.NewFileStore(file, 0o600)})
	if err != nil {
		t.Fatal(err)
	}
	old := client.Database("svc")
	if _, err := old.Collection("orders").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "intent", Value: 1}}, Options: options.Index().SetUnique(true).SetName("one")}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		if _, err := old.Collection("orders").InsertOne(ctx, bson.M{"_id": fmt.Sprintf("o%02d", i), "intent": fmt.Sprintf("pi_%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.Collection("carts").InsertOne(ctx, bson.M{"_id": "c1", "items": bson.A{"x"}}); err != nil {
		t.Fatal(err)
	}
	engine.Close()
	if ok, err := oldFormat(file); err != nil || !ok {
		t.Fatalf("lungo's file not recognised: %v %v", ok, err)
	}
	oldBytes, _ := os.ReadFile(file)

	db := openDir(t, dir)
	if ok, _ := oldFormat(file); ok {
		t.Fatal("still the old format after opening")
	}
	kept, err := os.ReadFile(file + ".old-format")
	if err != nil || !bytes.Equal(kept, oldBytes) {
		t.Fatalf("the old file was not kept as it was: %v", err)
	}
	if _, err := os.Stat(file + ".migrating"); err == nil {
		t.Fatal("migration left its temporary file")
	}
	before := dump(t, db)
	if n := len(before["orders"].(map[string]any)["docs"].([]bson.D)); n != 50 {
		t.Fatalf("%d orders after migration", n)
	}
	if _, err := db.Collection("orders").InsertOne(ctx, bson.M{"_id": "x", "intent": "pi_3"}); !isDuplicate(err) {
		t.Fatalf("the unique index did not come along: %v", err)
	}
	db.Close(ctx)
	db = openDir(t, dir) // the new file reopens as it is
	sameDump(t, before, dump(t, db))
	db.Close(ctx)
}

// writeSome makes a database with a recognisable document and closes it.
func writeSome(t *testing.T, dir string) string {
	t.Helper()
	ctx := context.Background()
	db := openDir(t, dir)
	docs := make([]any, 300)
	for i := range docs {
		docs[i] = bson.M{"_id": fmt.Sprintf("t%03d", i), "pad": strings.Repeat("p", 200)}
	}
	for range 3 { // a few commits, so the file has freed pages too
		if _, err := db.Collection("things").InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Collection("things").DeleteMany(ctx, bson.M{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := db.Collection("things").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("things").InsertOne(ctx, bson.M{"_id": "marked", "v": "MARKER-VALUE"}); err != nil {
		t.Fatal(err)
	}
	db.Close(ctx)
	return filepath.Join(dir, "svc.lungo")
}

func wantCorrupt(t *testing.T, dir string, says ...string) {
	t.Helper()
	_, err := tryOpen(dir)
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("want ErrCorrupt, got %v", err)
	}
	t.Log(err)
	for _, s := range says {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("the error does not say %q: %v", s, err)
		}
	}
}

// A damaged file is refused at start with an error that says what is wrong,
// never a crash and never an open with documents missing.
func TestDamagedFileIsRefused(t *testing.T) {
	t.Run("truncated", func(t *testing.T) {
		dir := t.TempDir()
		file := writeSome(t, dir)
		info, _ := os.Stat(file)
		for _, size := range []int64{info.Size() / 2, info.Size() - 4096, 3 * 4096} {
			if err := os.Truncate(file, size); err != nil {
				t.Fatal(err)
			}
			wantCorrupt(t, dir, "svc.lungo")
		}
		if err := os.Truncate(file, 100); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, dir)
	})
	t.Run("corrupt record", func(t *testing.T) {
		dir := t.TempDir()
		file := writeSome(t, dir)
		b, _ := os.ReadFile(file)
		if bytes.Count(b, []byte("MARKER-VALUE")) == 0 {
			t.Fatal("marker not found in the file")
		}
		if err := os.WriteFile(file, bytes.ReplaceAll(b, []byte("MARKER-VALUE"), []byte("MARKER-VALUF")), 0o600); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, dir, "svc.things", `"marked"`, "checksum mismatch")
	})
	t.Run("meta pages", func(t *testing.T) {
		dir := t.TempDir()
		file := writeSome(t, dir)
		b, _ := os.ReadFile(file)
		for i := 16; i < 2*4096; i++ {
			b[i] = 0xff
		}
		if err := os.WriteFile(file, b, 0o600); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, dir, "svc.lungo")
	})
	t.Run("count", func(t *testing.T) {
		dir := t.TempDir()
		file := writeSome(t, dir)
		// A record gone with the count left as it was.
		db, err := openBolt(file)
		if err != nil {
			t.Fatal(err)
		}
		key, _ := idKey(&bson.D{{Key: "_id", Value: "t007"}})
		if err := db.Update(func(tx *bbolt.Tx) error {
			return tx.Bucket(bucketNamespaces).Bucket([]byte("svc.things")).Bucket(bucketDocuments).Delete(key)
		}); err != nil {
			t.Fatal(err)
		}
		db.Close()
		wantCorrupt(t, dir, "svc.things holds 300 documents, its count says 301")
	})
	t.Run("unique index", func(t *testing.T) {
		dir := t.TempDir()
		db := openDir(t, dir)
		ctx := context.Background()
		if err := db.EnsureIndexes(ctx, Index{Collection: "things", Keys: bson.D{{Key: "ref", Value: 1}}, Unique: true, Name: "one_per_ref"}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Collection("things").InsertMany(ctx, []any{bson.M{"_id": "a", "ref": "x"}, bson.M{"_id": "b", "ref": "y"}}); err != nil {
			t.Fatal(err)
		}
		db.Close(ctx)
		// b's record rewritten (a valid record, checksum included) with a's ref.
		file := filepath.Join(dir, "svc.lungo")
		bdb, err := openBolt(file)
		if err != nil {
			t.Fatal(err)
		}
		key, _ := idKey(&bson.D{{Key: "_id", Value: "b"}})
		if err := bdb.Update(func(tx *bbolt.Tx) error {
			docs := tx.Bucket(bucketNamespaces).Bucket([]byte("svc.things")).Bucket(bucketDocuments)
			seq := binary.BigEndian.Uint64(docs.Get(key))
			v, err := encodeRecord(key, seq, &bson.D{{Key: "_id", Value: "b"}, {Key: "ref", Value: "x"}})
			if err != nil {
				return err
			}
			return docs.Put(key, v)
		}); err != nil {
			t.Fatal(err)
		}
		bdb.Close()
		wantCorrupt(t, dir, "svc.things: index one_per_ref: does not hold over the documents read")
	})
	t.Run("not a database", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "svc.lungo"), bytes.Repeat([]byte("not a database "), 1000), 0o600); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, dir, "svc.lungo")
	})
	t.Run("old format unreadable", func(t *testing.T) {
		dir := t.TempDir()
		// Looks like one BSON document (length first, zero last) but is not.
		b := make([]byte, 64)
		b[0] = 64
		if err := os.WriteFile(filepath.Join(dir, "svc.lungo"), b, 0o600); err != nil {
			t.Fatal(err)
		}
		wantCorrupt(t, dir, "lungo's own file format")
	})
}

// A second process opening the same file is refused, not left hanging.
func TestFileInUseIsRefused(t *testing.T) {
	defer func(d time.Duration) { lockTimeout = d }(lockTimeout)
	lockTimeout = 200 * time.Millisecond
	dir := t.TempDir()
	db := openDir(t, dir)
	defer db.Close(context.Background())
	_, err := tryOpen(dir)
	if err == nil || !strings.Contains(err.Error(), "in use by another process") {
		t.Fatalf("second open: %v", err)
	}
}

// Concurrent transactions each commit whole: every counter equals the number
// of items written with it, before and after a restart. The embedded engine
// runs them at once: the items are inserts a later commit rebases (with new
// sequence numbers), the shared counter a write that conflicts and runs
// again; the file read back equals memory, natural order included.
func TestFileStoreConcurrentTransactions(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	const workers, each = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				err := db.Tx(ctx, func(ctx context.Context) error {
					if _, err := db.Collection("items").InsertOne(ctx, bson.M{"_id": fmt.Sprintf("w%d-%d", w, i), "w": w}); err != nil {
						return err
					}
					_, err := db.Collection("counters").UpdateOne(ctx, bson.M{"_id": w}, bson.M{"$inc": bson.M{"n": 1}}, options.Update().SetUpsert(true))
					if err == nil {
						_, err = db.Collection("counters").UpdateOne(ctx, bson.M{"_id": "shared"}, bson.M{"$inc": bson.M{"n": 1}}, options.Update().SetUpsert(true))
					}
					if err == nil && i%5 == 4 {
						return errors.New("abort") // every fifth rolls back
					}
					return err
				})
				if err != nil && err.Error() != "abort" {
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
	check := func(db *testDB) {
		t.Helper()
		for w := range workers {
			var c struct{ N int }
			if err := db.Collection("counters").FindOne(ctx, bson.M{"_id": w}).Decode(&c); err != nil {
				t.Fatal(err)
			}
			n, _ := db.Collection("items").CountDocuments(ctx, bson.M{"w": w})
			if c.N != each*4/5 || n != int64(c.N) {
				t.Fatalf("worker %d: counter %d, items %d, want %d", w, c.N, n, each*4/5)
			}
		}
		var c struct{ N int }
		if err := db.Collection("counters").FindOne(ctx, bson.M{"_id": "shared"}).Decode(&c); err != nil {
			t.Fatal(err)
		}
		if c.N != workers*each*4/5 {
			t.Fatalf("shared counter %d, want %d", c.N, workers*each*4/5)
		}
	}
	check(db)
	// Group commit: concurrent commits shared the file's transactions.
	db.st.w.mu.Lock()
	flushes, commits := db.st.w.flushes, db.st.w.enqueued
	db.st.w.mu.Unlock()
	if flushes >= int(commits) {
		t.Errorf("%d commits took %d file transactions: none were grouped", commits, flushes)
	}
	t.Logf("%d commits in %d file transactions", commits, flushes)
	before := dump(t, db)
	db.Close(ctx)
	db = openDir(t, dir)
	check(db)
	sameDump(t, before, dump(t, db))
	db.Close(ctx)
}

// A commit that cannot be written is not acknowledged, and the database takes
// no more writes (none could be acknowledged either), in or outside a
// transaction; what was acknowledged before is on disk.
func TestFileStoreFailedWriteIsNotAcknowledged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	if _, err := db.Collection("a").InsertOne(ctx, bson.M{"_id": "kept"}); err != nil {
		t.Fatal(err)
	}
	st := db.st
	// The file goes away under the writer (as a failed disk would).
	st.closeOnce.Do(func() { close(st.w.stop); <-st.w.stopped })
	if err := st.db.Close(); err != nil {
		t.Fatal(err)
	}
	st.w = newGroupWriter()
	go st.run()
	err := db.Tx(ctx, func(ctx context.Context) error {
		_, err := db.Collection("a").InsertOne(ctx, bson.M{"_id": "lost"})
		return err
	})
	if err == nil || !strings.Contains(err.Error(), "commit to") {
		t.Fatalf("a commit the file did not take was acknowledged: %v", err)
	}
	if _, err := db.Collection("a").InsertOne(ctx, bson.M{"_id": "later"}); err == nil {
		t.Fatal("a write after the failure was acknowledged")
	}
	if _, err := db.Collection("a").UpdateOne(ctx, bson.M{"_id": "kept"}, bson.M{"$set": bson.M{"x": 1}}); err == nil {
		t.Fatal("an update after the failure was acknowledged")
	}
	if err := st.Err(); err == nil || !strings.Contains(err.Error(), "commit to") {
		t.Fatalf("Err after the failed write: %v (a program reports itself ready)", err)
	}
	st.closeOnce.Do(func() { close(st.w.stop); <-st.w.stopped })
	db.client.Disconnect(ctx)
	db = openDir(t, dir)
	defer db.Close(ctx)
	if err := db.Collection("a").FindOne(ctx, bson.M{"_id": "kept"}).Err(); err != nil {
		t.Fatalf("the acknowledged write is gone: %v", err)
	}
	if n, _ := db.Collection("a").CountDocuments(ctx, bson.M{}); n != 1 {
		t.Fatalf("%d documents after the failure, want the one acknowledged", n)
	}
}

// The file keeps each document's place in lungo's set (its sequence number),
// so the natural order after a restart is the one before it, also where a
// transaction deleted a document and inserted one with the same _id (which
// goes to the end) and where an update matched documents it left unchanged
// (which keep their place and are not written).
func TestFileStoreKeepsTheNaturalOrder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	c := db.Collection("o")
	for _, id := range []string{"a", "b", "c", "d"} {
		if _, err := c.InsertOne(ctx, bson.M{"_id": id, "v": 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Tx(ctx, func(ctx context.Context) error {
		if _, err := c.DeleteOne(ctx, bson.M{"_id": "a"}); err != nil {
			return err
		}
		_, err := c.InsertOne(ctx, bson.M{"_id": "a", "v": 1})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := db.st.last; got != (commitStats{namespaces: 1, put: 1, del: 1}) {
		t.Fatalf("delete and insert again wrote %+v", got)
	}
	// b, c and d change; a (already 1) matches and stays as it is
	if _, err := c.UpdateMany(ctx, bson.M{"_id": bson.M{"$in": bson.A{"a", "b", "c", "d"}}}, bson.M{"$set": bson.M{"v": 1}}); err != nil {
		t.Fatal(err)
	}
	if got := db.st.last; got != (commitStats{namespaces: 1, put: 3, del: 3}) {
		t.Fatalf("an update of three of four wrote %+v", got)
	}
	before := dump(t, db)
	if err := db.Close(ctx); err != nil {
		t.Fatal(err)
	}
	order := func(d map[string]any) []any {
		var ids []any
		for _, doc := range d["o"].(map[string]any)["docs"].([]bson.D) {
			// by name: a bson.M inserted keeps no field order, so _id need not come first
			for _, e := range doc {
				if e.Key == "_id" {
					ids = append(ids, e.Value)
				}
			}
		}
		return ids
	}
	if got, want := order(before), []any{"b", "c", "d", "a"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("natural order %v, want %v", got, want)
	}
	db = openDir(t, dir)
	defer db.Close(ctx)
	sameDump(t, before, dump(t, db))

	// and new documents go after every document read back
	if _, err := db.Collection("o").InsertOne(ctx, bson.M{"_id": "e"}); err != nil {
		t.Fatal(err)
	}
	if got, want := order(dump(t, db)), []any{"b", "c", "d", "a", "e"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("natural order %v, want %v", got, want)
	}
}

// A commit encodes a namespace's index definitions only when its indexes are
// not those last stored (clones of them): every index created, dropped, or
// dropped and made again under its name with other keys, between writes of
// documents, reads back after a restart as it was.
func TestFileStoreWritesIndexChanges(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	n := 0
	write := func() {
		t.Helper()
		for i := 0; i < 3; i++ {
			n++
			if _, err := db.Collection("c").InsertOne(ctx, bson.M{"_id": n, "a": n, "b": -n}); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Collection("c").UpdateOne(ctx, bson.M{"_id": n}, bson.M{"$inc": bson.M{"v": 1}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	reopen := func() {
		t.Helper()
		before := dump(t, db)
		db.Close(ctx)
		db = openDir(t, dir)
		sameDump(t, before, dump(t, db))
	}
	indexes := db.Collection("c")
	write()
	if _, err := indexes.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}, Options: options.Index().SetName("x")}); err != nil {
		t.Fatal(err)
	}
	write()
	reopen()
	write()
	if _, err := db.Collection("c").Indexes().DropOne(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("c").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "b", Value: -1}}, Options: options.Index().SetName("x")}); err != nil {
		t.Fatal(err)
	}
	write()
	reopen()
	if _, err := db.Collection("c").Indexes().DropOne(ctx, "x"); err != nil {
		t.Fatal(err)
	}
	write()
	reopen()
	d := dump(t, db)["c"].(map[string]any)
	if idx := d["indexes"].([]bson.D); len(idx) != 1 {
		t.Fatalf("indexes after the drop: %v", idx)
	}
	db.Close(ctx)
}

// A commit with a document the file could not write or read back is refused,
// that commit only, with an UnstorableError naming the namespace, the
// document and the reason; later writes go on and the file opens again.
func TestUnstorableDocumentIsRefused(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := openDir(t, dir)
	nested := func(levels int) any {
		var v any = "leaf"
		for i := 0; i < levels; i++ {
			if i%2 == 0 {
				v = bson.M{"a": v}
			} else {
				v = bson.A{v}
			}
		}
		return v
	}
	c := db.Collection("things")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "deep-ok", "v": nested(MaxDepth - 1)}); err != nil {
		t.Fatalf("a document of %d levels: %v", MaxDepth, err)
	}
	var u *UnstorableError
	_, err := c.InsertOne(ctx, bson.M{"_id": "deep", "v": nested(250)})
	if !errors.As(err, &u) || *u != (UnstorableError{Namespace: "svc.things", Document: `"deep"`, Reason: "a document nested deeper than 100 levels cannot be stored"}) {
		t.Fatalf("a document nested 250 levels deep: %v", err)
	}
	if err.Error() != `store: svc.things: document "deep": a document nested deeper than 100 levels cannot be stored` {
		t.Fatalf("message %q", err)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "deep-ok"}, bson.M{"$set": bson.M{"w": nested(MaxDepth)}}); !errors.As(err, &u) {
		t.Fatalf("an update nesting a document past the limit: %v", err)
	}
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "deep-ok"}, bson.M{"$rename": bson.M{"v": "b\x00c"}}); !errors.As(err, &u) || u.Reason != `a field name cannot hold a null byte ("b\x00c")` {
		t.Fatalf("$rename to a name with a null byte: %v", err)
	}
	if _, err := c.InsertOne(ctx, bson.M{"_id": "after"}); err != nil {
		t.Fatalf("a write after the refusals: %v", err)
	}
	if err := db.st.Err(); err != nil {
		t.Fatalf("the file failed after a refused commit: %v", err)
	}
	db.Close(ctx)
	db = openDir(t, dir)
	defer db.Close(ctx)
	if n, err := db.Collection("things").CountDocuments(ctx, bson.M{}); err != nil || n != 2 {
		t.Fatalf("after the restart: %d documents, %v; want deep-ok and after", n, err)
	}
}

// A write outside a transaction answers once its commit is on disk, on a
// collection Durable wrapped and on its clones; a write inside a transaction
// answers at once (its caller waits at the transaction's end).
func TestDurableWaitsOutsideTransactions(t *testing.T) {
	db := openDir(t, t.TempDir())
	st := db.st
	defer func() { db.engine.Close(); st.db.Close() }()
	// The writer stopped: nothing queued from now on reaches the file.
	st.closeOnce.Do(func() { close(st.w.stop); <-st.w.stopped })
	st.w = newGroupWriter()

	clone, err := db.Collection("a").Clone()
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]lungo.ICollection{"collection": db.Collection("a"), "clone": clone} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_, err := c.InsertOne(ctx, bson.M{"_id": name})
		cancel()
		if err == nil || !strings.Contains(err.Error(), "not yet known to be on disk") {
			t.Fatalf("%s: a write outside a transaction answered before it was on disk: %v", name, err)
		}
	}

	// Those commits are still not on disk; a write inside a transaction
	// does not wait for them.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	sess, err := db.client.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	defer sess.EndSession(ctx)
	if _, err := sess.WithTransaction(ctx, func(sc lungo.ISessionContext) (any, error) {
		_, err := db.Collection("a").InsertOne(sc, bson.M{"_id": "in-tx"})
		return nil, err
	}); err != nil {
		t.Fatalf("a write inside a transaction waited for the file: %v", err)
	}
}
