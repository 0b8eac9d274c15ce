package liveset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
)

// testDB is a store.DB with its live-query layer installed, as libs/service
// installs it.
type testDB struct {
	*store.DB
	tr *Tracking
}

func (d *testDB) SetLivePublisher(p *Publisher)  { d.tr.SetPublisher(p) }
func (d *testDB) KeyFields(coll string) []string { return d.tr.KeyFields(coll) }

func openTracked(ctx context.Context, opts store.Options) (*testDB, error) {
	db, err := store.Open(ctx, opts)
	if err != nil {
		return nil, err
	}
	tr := Track(db)
	db.Use(tr)
	return &testDB{db, tr}, nil
}

// liveDB is an in-memory database with a reviews collection keyed by
// storeId and customerId, and a publisher that keeps what it was given.
type published struct {
	mu     sync.Mutex
	writes []Writes
	after  int
	fail   error
}

func liveDB(t *testing.T) (*testDB, *published) {
	t.Helper()
	ctx := context.Background()
	db, err := openTracked(ctx, store.Options{Name: "live", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	if err := db.EnsureIndexes(ctx,
		store.Index{Collection: "reviews", Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "createdAt", Value: -1}}},
		store.Index{Collection: "reviews", Keys: bson.D{{Key: "customerId", Value: 1}}},
	); err != nil {
		t.Fatal(err)
	}
	p := &published{}
	db.SetLivePublisher(&Publisher{
		Publish: func(ctx context.Context, w *Writes) (string, error) {
			p.mu.Lock()
			defer p.mu.Unlock()
			if p.fail != nil {
				return "", p.fail
			}
			var c Writes
			c.Merge(w)
			p.writes = append(p.writes, c)
			return fmt.Sprint("evt-", len(p.writes)), nil
		},
		After: func() { p.mu.Lock(); p.after++; p.mu.Unlock() },
	})
	return db, p
}

func (p *published) last(t *testing.T) Writes {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.writes) == 0 {
		t.Fatal("nothing published")
	}
	return p.writes[len(p.writes)-1]
}

func (p *published) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.writes)
}

func storeRead(ids ...string) Read {
	return Read{Coll: "reviews", Field: "storeId", Values: ids}
}

func TestReadsOfFilters(t *testing.T) {
	keys := []string{"_id", "storeId", "customerId"}
	for _, c := range []struct {
		name   string
		filter any
		want   Reads
	}{
		{"a store's reviews", bson.M{"storeId": "A", "hidden": false}, Reads{storeRead("A")}},
		{"_id first", bson.D{{Key: "storeId", Value: "A"}, {Key: "_id", Value: "r1"}}, Reads{{Coll: "reviews", Field: "_id", Values: []string{"r1"}}}},
		{"$eq", bson.M{"storeId": bson.M{"$eq": "A"}}, Reads{storeRead("A")}},
		{"$in", bson.M{"storeId": bson.M{"$in": bson.A{"A", "B"}}}, Reads{storeRead("A", "B")}},
		{"in $and", bson.M{"$and": bson.A{bson.M{"rating": 5}, bson.M{"storeId": "A"}}}, Reads{storeRead("A")}},
		{"every $or branch keyed", bson.M{"$or": bson.A{bson.M{"storeId": "A"}, bson.M{"customerId": "C"}}},
			Reads{storeRead("A"), {Coll: "reviews", Field: "customerId", Values: []string{"C"}}}},
		{"an $or branch not keyed", bson.M{"$or": bson.A{bson.M{"storeId": "A"}, bson.M{"rating": 1}}}, Reads{{Coll: "reviews"}}},
		{"a cursor's $or beside the key", bson.M{"storeId": "A", "$or": bson.A{bson.M{"rating": 1}, bson.M{"rating": 2}}}, Reads{storeRead("A")}},
		{"a range is not a key", bson.M{"storeId": bson.M{"$gt": "A"}}, Reads{{Coll: "reviews"}}},
		{"not a key field", bson.M{"rating": 5}, Reads{{Coll: "reviews"}}},
		{"the empty filter", nil, Reads{{Coll: "reviews"}}},
		{"numbers of any type are one key", bson.M{"storeId": int32(5)}, Reads{storeRead("n:5")}},
	} {
		raw, err := marshalDoc(c.filter)
		if err != nil {
			t.Fatal(err)
		}
		got := readsOf("reviews", raw, keys)
		if !slices.EqualFunc(got, c.want, func(a, b Read) bool {
			return a.Coll == b.Coll && a.Field == b.Field && slices.Equal(a.Values, b.Values)
		}) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestQueryReadsAreTracked(t *testing.T) {
	db, _ := liveDB(t)
	ctx, rt := TrackReads(context.Background())
	c := db.Collection("reviews")
	cur, err := c.Find(ctx, bson.M{"storeId": "A", "hidden": false}, options.Find().SetLimit(5))
	if err != nil {
		t.Fatal(err)
	}
	cur.Close(ctx)
	_ = c.FindOne(ctx, bson.M{"storeId": "B"}).Err()
	_ = db.Collection("reviewStats").FindOne(ctx, bson.M{"_id": "A"}).Err()
	rs, ok := rt.Reads()
	if !ok || len(rs) != 2 || !slices.Equal(rs[0].Values, []string{"A", "B"}) || rs[1].Coll != "reviewStats" || rs[1].Values[0] != "A" {
		t.Fatalf("reads %v %v", rs, ok)
	}
	_, _ = c.CountDocuments(ctx, bson.M{"rating": 3})
	if rs, _ := rt.Reads(); len(rs) != 2 || rs[1].Coll != "reviews" || rs[1].Field != "" {
		t.Fatalf("a whole-collection read replaces the keyed ones: %v", rs)
	}
	ReadsUnknown(ctx, "it asked the clock")
	if _, ok := rt.Reads(); ok || rt.Unknown() != "it asked the clock" {
		t.Fatal("ReadsUnknown must make the reads unknown")
	}
}

func TestWritesArePublishedInTheirTransaction(t *testing.T) {
	db, p := liveDB(t)
	ctx := context.Background()
	c := db.Collection("reviews")
	// A single write gets a transaction of its own, and its keys.
	if _, err := c.InsertOne(ctx, bson.M{"_id": "r1", "storeId": "A", "customerId": "C", "rating": 4}); err != nil {
		t.Fatal(err)
	}
	w := p.last(t)
	if !w.Touches(storeRead("A")) || w.Touches(storeRead("B")) || !w.Touches(Read{Coll: "reviews", Field: "customerId", Values: []string{"C"}}) {
		t.Fatalf("insert: %s", w.Encode())
	}
	// An update by _id reads the document's store before it.
	wctx, wt := TrackWrites(ctx)
	if err := db.Tx(wctx, func(ctx context.Context) error {
		_, err := c.UpdateOne(ctx, bson.M{"_id": "r1"}, bson.M{"$inc": bson.M{"helpful": 1}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	w = p.last(t)
	if !w.Touches(storeRead("A")) || w.Touches(storeRead("B")) {
		t.Fatalf("vote: %s", w.Encode())
	}
	if got := wt.Writes(); !got.Touches(storeRead("A")) || got.Touches(storeRead("B")) || !slices.Equal(got.IDs, []string{fmt.Sprint("evt-", p.count())}) {
		t.Fatalf("the request's tracker: %s (it names the event that published it)", got.Encode())
	}
	// Moving a document to another store reports both.
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "r1"}, bson.M{"$set": bson.M{"storeId": "B"}}); err != nil {
		t.Fatal(err)
	}
	if w = p.last(t); !w.Touches(storeRead("A")) || !w.Touches(storeRead("B")) || w.Touches(storeRead("Z")) {
		t.Fatalf("move: %s", w.Encode())
	}
	// A write that changes nothing publishes nothing.
	n := p.count()
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "nobody"}, bson.M{"$set": bson.M{"rating": 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DeleteMany(ctx, bson.M{"storeId": "Q"}); err != nil {
		t.Fatal(err)
	}
	if p.count() != n {
		t.Fatalf("no-op writes published %d times", p.count()-n)
	}
	// An upsert reports the document it made.
	if _, err := c.UpdateOne(ctx, bson.M{"_id": "r2"}, bson.M{"$set": bson.M{"storeId": "D", "customerId": "E"}}, options.Update().SetUpsert(true)); err != nil {
		t.Fatal(err)
	}
	if w = p.last(t); !w.Touches(storeRead("D")) {
		t.Fatalf("upsert: %s", w.Encode())
	}
	// A delete reports what it removed.
	if _, err := c.DeleteOne(ctx, bson.M{"_id": "r2"}); err != nil {
		t.Fatal(err)
	}
	if w = p.last(t); !w.Touches(storeRead("D")) || w.Touches(storeRead("B")) {
		t.Fatalf("delete: %s", w.Encode())
	}
	// Internal collections say nothing.
	n = p.count()
	if _, err := db.Collection(Internal("bookkeeping")).InsertOne(ctx, bson.M{"storeId": "A"}); err != nil {
		t.Fatal(err)
	}
	if p.count() != n {
		t.Fatal("an internal collection's write was published")
	}
	if p.after == 0 {
		t.Fatal("the publisher's After hook never ran")
	}
}

// A failed publication fails the transaction: nothing is left written
// without its writes published.
func TestAFailedPublicationRollsTheWriteBack(t *testing.T) {
	db, p := liveDB(t)
	ctx := context.Background()
	p.fail = errors.New("outbox full")
	c := db.Collection("reviews")
	if _, err := c.InsertOne(ctx, bson.M{"_id": "r1", "storeId": "A"}); err == nil {
		t.Fatal("the insert succeeded though its writes could not be published")
	}
	if err := c.FindOne(ctx, bson.M{"_id": "r1"}).Err(); !store.IsNotFound(err) {
		t.Fatalf("the document is there: %v", err)
	}
}

// A rolled-back attempt's writes are not reported: only the committed ones.
func TestOnlyCommittedWritesAreReported(t *testing.T) {
	db, p := liveDB(t)
	ctx, wt := TrackWrites(context.Background())
	c := db.Collection("reviews")
	boom := errors.New("boom")
	err := db.Tx(ctx, func(ctx context.Context) error {
		if _, err := c.InsertOne(ctx, bson.M{"_id": "r1", "storeId": "A"}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if w := wt.Writes(); !w.Empty() || p.count() != 0 {
		t.Fatalf("a rolled-back write was reported: %s, %d published", w.Encode(), p.count())
	}
}

func TestManyDocumentsMeanUnknownValues(t *testing.T) {
	db, p := liveDB(t)
	ctx := context.Background()
	c := db.Collection("reviews")
	docs := make([]any, maxTrackedDocs+5)
	for i := range docs {
		docs[i] = bson.M{"storeId": "S", "customerId": "C", "n": i}
	}
	if _, err := c.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateMany(ctx, bson.M{"customerId": "C"}, bson.M{"$set": bson.M{"seen": true}}); err != nil {
		t.Fatal(err)
	}
	if w := p.last(t); !w.Touches(storeRead("anything")) {
		t.Fatalf("an update of more than %d documents must touch every read of the collection: %s", maxTrackedDocs, w.Encode())
	}
}

func TestChangesKeys(t *testing.T) {
	keys := []string{"_id", "storeId", "a.b"}
	for _, c := range []struct {
		change any
		want   bool
	}{
		{bson.M{"$inc": bson.M{"helpful": 1}}, false},
		{bson.M{"$set": bson.M{"storeId": "B"}}, true},
		{bson.M{"$set": bson.M{"a": bson.M{"b": 1}}}, true},
		{bson.M{"$set": bson.M{"a.b.c": 1}}, true},
		{bson.M{"$rename": bson.M{"x": "storeId"}}, true},
		{bson.M{"$unset": bson.M{"storeId": ""}}, true},
		{bson.M{"rating": 1}, true}, // a replacement
		{bson.A{bson.M{"$set": bson.M{"x": 1}}}, true},
	} {
		if got := changesKeys(c.change, keys); got != c.want {
			t.Errorf("changesKeys(%v) = %v, want %v", c.change, got, c.want)
		}
	}
}
