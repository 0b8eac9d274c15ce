package lungo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// Fork: writing transactions run concurrently (optimistic concurrency);
// these tests check what MongoDB guarantees: two writes to one document
// conflict (WriteConflict, retried by WithTransaction and inside single
// writes), writes to different documents do not wait for each other, and a
// rebased commit leaves the same catalog a serial one would.

// openTest opens an engine on the store (a memory store if nil) and returns
// a client and the collection db.c of it.
func openTest(t *testing.T, store Store) (IClient, *Engine, ICollection) {
	t.Helper()
	if store == nil {
		store = NewMemoryStore()
	}
	client, engine, err := Open(nil, Options{Store: store})
	require.NoError(t, err)
	t.Cleanup(engine.Close)
	return client, engine, client.Database("db").Collection("c")
}

// startTxn starts a session's transaction and returns a context that runs
// operations in it.
func startTxn(t *testing.T, client IClient) (ISession, context.Context) {
	t.Helper()
	sess, err := client.StartSession()
	require.NoError(t, err)
	require.NoError(t, sess.StartTransaction())
	return sess, &SessionContext{Context: context.WithValue(context.Background(), sessionKey{}, sess.(*Session)), Session: sess.(*Session)}
}

func counter(t *testing.T, c ICollection, id interface{}) int64 {
	t.Helper()
	var doc struct {
		N int64 `bson:"n"`
	}
	require.NoError(t, c.FindOne(nil, bson.M{"_id": id}).Decode(&doc))
	return doc.N
}

func TestWriteConflictOnOneDocument(t *testing.T) {
	client, _, c := openTest(t, nil)
	_, err := c.InsertOne(nil, bson.M{"_id": 1, "n": 0})
	require.NoError(t, err)

	inc := bson.M{"$inc": bson.M{"n": 1}}
	s1, ctx1 := startTxn(t, client)
	s2, ctx2 := startTxn(t, client)
	_, err = c.UpdateOne(ctx1, bson.M{"_id": 1}, inc)
	require.NoError(t, err)
	_, err = c.UpdateOne(ctx2, bson.M{"_id": 1}, inc)
	require.NoError(t, err)
	require.NoError(t, s1.CommitTransaction(nil))
	err = s2.CommitTransaction(nil)
	require.Error(t, err)

	// as MongoDB returns it
	assert.True(t, IsWriteConflict(err))
	var ce mongo.CommandError
	require.True(t, errors.As(err, &ce))
	assert.Equal(t, int32(112), ce.Code)
	assert.Equal(t, "WriteConflict", ce.Name)
	assert.True(t, ce.HasErrorLabel("TransientTransactionError"))
	wrapped := fmt.Errorf("store: %w", err)
	assert.True(t, IsWriteConflict(wrapped))
	assert.True(t, hasErrorLabel(wrapped, TransientTransactionError))
	var le mongo.LabeledError
	require.True(t, errors.As(wrapped, &le))
	assert.True(t, le.HasErrorLabel("TransientTransactionError"))
	assert.False(t, IsWriteConflict(errors.New("other")))

	// the first commit's increment only; the failed transaction is gone
	assert.EqualValues(t, 1, counter(t, c, 1))
	assert.Error(t, s2.CommitTransaction(nil))
	s1.EndSession(nil)
	s2.EndSession(nil)
}

func TestConcurrentIncrementsAllLand(t *testing.T) {
	const goroutines, rounds = 8, 50

	// a read, then a write of what was read plus one: without conflicts,
	// increments would be lost
	t.Run("WithTransaction", func(t *testing.T) {
		client, _, c := openTest(t, nil)
		_, err := c.InsertOne(nil, bson.M{"_id": 1, "n": 0})
		require.NoError(t, err)

		var attempts atomic.Int64
		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sess, err := client.StartSession()
				if !assert.NoError(t, err) {
					return
				}
				defer sess.EndSession(nil)
				for i := 0; i < rounds; i++ {
					_, err := sess.WithTransaction(nil, func(sc ISessionContext) (interface{}, error) {
						attempts.Add(1)
						var doc struct {
							N int64 `bson:"n"`
						}
						if err := c.FindOne(sc, bson.M{"_id": 1}).Decode(&doc); err != nil {
							return nil, err
						}
						return c.UpdateOne(sc, bson.M{"_id": 1}, bson.M{"$set": bson.M{"n": doc.N + 1}})
					})
					if !assert.NoError(t, err) {
						return
					}
				}
			}()
		}
		wg.Wait()
		assert.EqualValues(t, goroutines*rounds, counter(t, c, 1))
		t.Logf("%d transactions, %d attempts", goroutines*rounds, attempts.Load())
	})

	// single writes outside transactions retry inside
	t.Run("SingleWrites", func(t *testing.T) {
		_, _, c := openTest(t, nil)
		_, err := c.InsertOne(nil, bson.M{"_id": 1, "n": 0})
		require.NoError(t, err)

		var wg sync.WaitGroup
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < rounds; i++ {
					_, err := c.UpdateOne(nil, bson.M{"_id": 1}, bson.M{"$inc": bson.M{"n": 1}})
					if !assert.NoError(t, err) {
						return
					}
				}
			}()
		}
		wg.Wait()
		assert.EqualValues(t, goroutines*rounds, counter(t, c, 1))
	})
}

func TestWritersToDifferentDocumentsDoNotWait(t *testing.T) {
	client, _, c := openTest(t, nil)
	_, err := c.InsertMany(nil, []interface{}{bson.M{"_id": 1, "n": 0}, bson.M{"_id": 2, "n": 0}, bson.M{"_id": 3, "n": 0}})
	require.NoError(t, err)

	// A writes document 1 and stays open
	sa, ctxA := startTxn(t, client)
	_, err = c.UpdateOne(ctxA, bson.M{"_id": 1}, bson.M{"$set": bson.M{"n": 1}})
	require.NoError(t, err)

	// meanwhile B begins, writes document 2 and commits, and a single write
	// changes document 3 (upstream: both waited for A's token)
	done := make(chan error, 1)
	go func() {
		sb, ctxB := startTxn(t, client)
		defer sb.EndSession(nil)
		if _, err := c.UpdateOne(ctxB, bson.M{"_id": 2}, bson.M{"$set": bson.M{"n": 2}}); err != nil {
			done <- err
			return
		}
		if err := sb.CommitTransaction(nil); err != nil {
			done <- err
			return
		}
		_, err := c.UpdateOne(context.Background(), bson.M{"_id": 3}, bson.M{"$set": bson.M{"n": 3}})
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a writer of another document waited for the open transaction")
	}

	// A does not see B's commit, then commits on top of it
	assert.EqualValues(t, 2, counter(t, c, 2))
	var doc bson.M
	require.NoError(t, c.FindOne(ctxA, bson.M{"_id": 2}).Decode(&doc))
	assert.EqualValues(t, 0, doc["n"])
	require.NoError(t, sa.CommitTransaction(nil))
	sa.EndSession(nil)
	assert.EqualValues(t, 1, counter(t, c, 1))
	assert.EqualValues(t, 2, counter(t, c, 2))
	assert.EqualValues(t, 3, counter(t, c, 3))
}

func TestConcurrentUniqueInsertsOneWins(t *testing.T) {
	const n = 8
	for _, field := range []string{"key", "_id"} {
		t.Run(field, func(t *testing.T) {
			client, _, c := openTest(t, nil)
			_, err := c.Indexes().CreateOne(nil, mongo.IndexModel{Keys: bson.D{{Key: "key", Value: 1}}, Options: options.Index().SetUnique(true)})
			require.NoError(t, err)

			// every transaction inserts before any commits (a barrier on
			// the first attempt), so all but one conflict at commit and
			// then find the winner's document on their retry
			var inserted sync.WaitGroup
			inserted.Add(n)
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i := 0; i < n; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					sess, err := client.StartSession()
					if !assert.NoError(t, err) {
						return
					}
					defer sess.EndSession(nil)
					first := true
					_, errs[i] = sess.WithTransaction(nil, func(sc ISessionContext) (interface{}, error) {
						doc := bson.M{"key": "k", "by": i}
						if field == "_id" {
							doc = bson.M{"_id": "k", "by": i}
						}
						_, err := c.InsertOne(sc, doc)
						if first {
							first = false
							inserted.Done()
							inserted.Wait()
						}
						return nil, err
					})
				}()
			}
			wg.Wait()

			won := 0
			for _, err := range errs {
				if err == nil {
					won++
				} else {
					assert.True(t, IsUniquenessError(err), "%v", err)
					assert.False(t, IsWriteConflict(err))
				}
			}
			assert.Equal(t, 1, won)
			count, err := c.CountDocuments(nil, bson.M{})
			require.NoError(t, err)
			assert.EqualValues(t, 1, count)
		})
	}
}

// engineCase runs a against a transaction that began before b, which
// commits first; it returns a's commit error and the engine.
func engineCase(t *testing.T, seed func(txn *Transaction), a, b func(txn *Transaction)) (error, *Engine) {
	t.Helper()
	engine, err := CreateEngine(Options{Store: NewMemoryStore()})
	require.NoError(t, err)
	t.Cleanup(engine.Close)
	txn, err := engine.Begin(nil, true)
	require.NoError(t, err)
	seed(txn)
	require.NoError(t, engine.Commit(txn))

	ta, err := engine.Begin(nil, true)
	require.NoError(t, err)
	tb, err := engine.Begin(nil, true)
	require.NoError(t, err)
	a(ta)
	b(tb)
	require.NoError(t, engine.Commit(tb))
	return engine.Commit(ta), engine
}

var testNS = Handle{"db", "c"}

func doc(m bson.M) bsonkit.Doc { return bsonkit.MustConvert(m) }

func seedThree(t *testing.T) func(txn *Transaction) {
	return func(txn *Transaction) {
		_, err := txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": 1, "v": 0}), doc(bson.M{"_id": 2, "v": 0}), doc(bson.M{"_id": 3, "v": 0})}, true)
		require.NoError(t, err)
	}
}

func TestRebaseConflicts(t *testing.T) {
	set := func(id, v int) func(txn *Transaction) {
		return func(txn *Transaction) {
			res, err := txn.Update(testNS, doc(bson.M{"_id": id}), nil, doc(bson.M{"$set": bson.M{"v": v}}), 0, 1, false, nil)
			require.NoError(t, err)
			require.Len(t, res.Matched, 1)
		}
	}
	del := func(id int) func(txn *Transaction) {
		return func(txn *Transaction) {
			res, err := txn.Delete(testNS, doc(bson.M{"_id": id}), nil, 0, 1)
			require.NoError(t, err)
			require.Len(t, res.Matched, 1)
		}
	}
	ins := func(id, v int) func(txn *Transaction) {
		return func(txn *Transaction) {
			res, err := txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": id, "v": v})}, true)
			require.NoError(t, err)
			require.NoError(t, res.Error)
		}
	}
	both := func(fns ...func(txn *Transaction)) func(txn *Transaction) {
		return func(txn *Transaction) {
			for _, fn := range fns {
				fn(txn)
			}
		}
	}

	for _, c := range []struct {
		name     string
		a, b     func(txn *Transaction)
		conflict bool
		want     map[int64]int64 // _id → v after both, when no conflict
	}{
		{"update/update", set(1, 5), set(1, 6), true, nil},
		{"update/delete", set(1, 5), del(1), true, nil},
		{"delete/update", del(1), set(1, 6), true, nil},
		{"delete/delete", del(1), del(1), true, nil},
		{"insert/insert", ins(9, 5), ins(9, 6), true, nil},
		{"delete+insert/update", both(del(1), ins(1, 5)), set(1, 6), true, nil},
		{"update/delete+insert", set(1, 5), both(del(1), ins(1, 6)), true, nil},
		{"insert/delete+insert", ins(9, 5), both(del(1), ins(9, 6)), true, nil},
		{"update/update others", set(1, 5), set(2, 6), false, map[int64]int64{1: 5, 2: 6, 3: 0}},
		{"insert/insert others", ins(9, 5), ins(10, 6), false, map[int64]int64{1: 0, 2: 0, 3: 0, 9: 5, 10: 6}},
		{"delete/delete others", del(1), del(2), false, map[int64]int64{3: 0}},
		{"update/delete other", set(1, 5), del(2), false, map[int64]int64{1: 5, 3: 0}},
		{"no-op update/update", set(1, 0), set(1, 6), false, map[int64]int64{1: 6, 2: 0, 3: 0}},
		{"delete+insert/update other", both(del(1), ins(1, 5)), set(2, 6), false, map[int64]int64{1: 5, 2: 6, 3: 0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err, engine := engineCase(t, seedThree(t), c.a, c.b)
			if c.conflict {
				assert.True(t, IsWriteConflict(err), "%v", err)
				return
			}
			require.NoError(t, err)
			got := map[int64]int64{}
			ns := engine.Catalog().Namespaces[testNS]
			ns.Documents.Scan(func(d bsonkit.Doc) bool {
				got[bsonkit.Get(d, "_id").(int64)] = bsonkit.Get(d, "v").(int64)
				return true
			})
			assert.Equal(t, c.want, got)
			checkNamespace(t, ns)
		})
	}
}

// checkNamespace checks that every document is in every index (once, under
// its current keys and sequence number) and that sequence numbers are unique
// and ascend in natural order.
func checkNamespace(t *testing.T, ns *mongokit.Collection) {
	t.Helper()
	var last uint64
	ns.Documents.Scan(func(d bsonkit.Doc) bool {
		seq, ok := ns.Documents.Seq(d)
		assert.True(t, ok)
		assert.Greater(t, seq, last, "sequence numbers ascend")
		last = seq
		found, ok := ns.LookupID(bsonkit.Get(d, "_id"))
		assert.True(t, ok)
		assert.True(t, found == d, "the _id index gives the current version")
		for name, index := range ns.Indexes {
			if index.Config().Partial != nil {
				continue
			}
			has, err := index.Has(d, seq)
			assert.NoError(t, err)
			assert.True(t, has, "index %s", name)
		}
		return true
	})
	assert.Less(t, last, ns.Documents.Next())
	for name, index := range ns.Indexes {
		if index.Config().Partial == nil {
			assert.Len(t, index.Seqs(), ns.Documents.Len(), "index %s", name)
		}
	}
	assert.NoError(t, ns.Check(), "every index names the documents by their numbers, under their current keys")
}

func TestRebaseKeepsNaturalOrder(t *testing.T) {
	err, engine := engineCase(t, seedThree(t), func(txn *Transaction) {
		_, err := txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": "a1"}), doc(bson.M{"_id": "a2"})}, true)
		require.NoError(t, err)
		_, err = txn.Update(testNS, doc(bson.M{"_id": 1}), nil, doc(bson.M{"$set": bson.M{"v": 1}}), 0, 1, false, nil)
		require.NoError(t, err)
	}, func(txn *Transaction) {
		_, err := txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": "b1"}), doc(bson.M{"_id": "b2"})}, true)
		require.NoError(t, err)
		_, err = txn.Update(testNS, doc(bson.M{"_id": 3}), nil, doc(bson.M{"$set": bson.M{"v": 3}}), 0, 1, false, nil)
		require.NoError(t, err)
	})
	require.NoError(t, err)

	// updated documents keep their place; the later commit's inserts follow
	// the earlier's, each in its transaction's order
	ns := engine.Catalog().Namespaces[testNS]
	var ids []interface{}
	for _, d := range ns.Documents.List() {
		ids = append(ids, bsonkit.Get(d, "_id"))
	}
	assert.Equal(t, []interface{}{int64(1), int64(2), int64(3), "b1", "b2", "a1", "a2"}, ids)
	checkNamespace(t, ns)

	// a later insert comes last
	txn, err := engine.Begin(nil, true)
	require.NoError(t, err)
	_, err = txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": "c"})}, true)
	require.NoError(t, err)
	require.NoError(t, engine.Commit(txn))
	ns = engine.Catalog().Namespaces[testNS]
	assert.Equal(t, "c", bsonkit.Get(ns.Documents.Last(), "_id"))
	checkNamespace(t, ns)
}

func TestRebaseKeepsUniqueIndexes(t *testing.T) {
	seed := func(txn *Transaction) {
		seedThree(t)(txn)
		_, err := txn.CreateIndex(testNS, "", mongokit.IndexConfig{Key: doc(bson.M{"k": 1}), Unique: true, Partial: doc(bson.M{"k": bson.M{"$exists": true}})})
		require.NoError(t, err)
	}
	setK := func(id int, k string) func(txn *Transaction) {
		return func(txn *Transaction) {
			_, err := txn.Update(testNS, doc(bson.M{"_id": id}), nil, doc(bson.M{"$set": bson.M{"k": k}}), 0, 1, false, nil)
			require.NoError(t, err)
		}
	}

	// two documents given one unique key: a conflict
	err, _ := engineCase(t, seed, setK(1, "x"), setK(2, "x"))
	assert.True(t, IsWriteConflict(err), "%v", err)

	// distinct keys: both, and the indexes hold them
	err, engine := engineCase(t, seed, setK(1, "x"), setK(2, "y"))
	require.NoError(t, err)
	checkNamespace(t, engine.Catalog().Namespaces[testNS])
	txn, err := engine.Begin(nil, false)
	require.NoError(t, err)
	res, err := txn.Find(testNS, doc(bson.M{"k": "x"}), nil, 0, 0)
	require.NoError(t, err)
	require.Len(t, res.Matched, 1)
	assert.EqualValues(t, 1, bsonkit.Get(res.Matched[0], "_id"))
}

func TestRebaseDDLConflicts(t *testing.T) {
	set := func(txn *Transaction) {
		_, err := txn.Update(testNS, doc(bson.M{"_id": 1}), nil, doc(bson.M{"$set": bson.M{"v": 1}}), 0, 1, false, nil)
		require.NoError(t, err)
	}
	createIndex := func(txn *Transaction) {
		_, err := txn.CreateIndex(testNS, "", mongokit.IndexConfig{Key: doc(bson.M{"v": 1})})
		require.NoError(t, err)
	}
	drop := func(txn *Transaction) {
		require.NoError(t, txn.Drop(testNS))
	}
	recreate := func(txn *Transaction) {
		require.NoError(t, txn.Drop(testNS))
		_, err := txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": 1, "v": 0})}, true)
		require.NoError(t, err)
	}
	other := Handle{"db", "new"}
	createOther := func(v int) func(txn *Transaction) {
		return func(txn *Transaction) {
			_, err := txn.Insert(other, bsonkit.List{doc(bson.M{"_id": v})}, true)
			require.NoError(t, err)
		}
	}
	for _, c := range []struct {
		name string
		a, b func(txn *Transaction)
	}{
		{"write/create index", set, createIndex},
		{"create index/write", createIndex, set},
		{"write/drop", set, drop},
		{"drop/write", drop, set},
		{"write/drop and create", set, recreate},
		{"create namespace/create namespace", createOther(1), createOther(2)},
	} {
		t.Run(c.name, func(t *testing.T) {
			err, _ := engineCase(t, seedThree(t), c.a, c.b)
			assert.True(t, IsWriteConflict(err), "%v", err)
		})
	}

	// an index created in another namespace is no conflict
	err, _ := engineCase(t, func(txn *Transaction) {
		seedThree(t)(txn)
		createOther(1)(txn)
	}, set, func(txn *Transaction) {
		_, err := txn.CreateIndex(other, "", mongokit.IndexConfig{Key: doc(bson.M{"v": 1})})
		require.NoError(t, err)
	})
	assert.NoError(t, err)
}

func TestRebaseAppendsOplog(t *testing.T) {
	err, engine := engineCase(t, seedThree(t), func(txn *Transaction) {
		_, err := txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": "a"})}, true)
		require.NoError(t, err)
	}, func(txn *Transaction) {
		_, err := txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": "b"})}, true)
		require.NoError(t, err)
	})
	require.NoError(t, err)

	// the seed's three inserts, then b's, then a's, in time order
	var ids []interface{}
	var last interface{}
	oplog := engine.Catalog().Namespaces[Oplog].Documents
	oplog.Scan(func(event bsonkit.Doc) bool {
		ids = append(ids, bsonkit.Get(event, "documentKey._id"))
		ts := bsonkit.Get(event, "clusterTime")
		assert.Equal(t, ts, bsonkit.Get(event, "_id.ts"))
		if last != nil {
			assert.Equal(t, 1, bsonkit.Compare(ts, last), "events in time order")
		}
		last = ts
		return true
	})
	assert.Equal(t, []interface{}{int64(1), int64(2), int64(3), "b", "a"}, ids)
}

// changeModel is a ChangeStore that keeps what it is told as documents by
// namespace and _id, and checks that each commit starts from the catalog it
// took last.
type changeModel struct {
	mutex   sync.Mutex
	last    *Catalog
	docs    map[Handle]map[string]bsonkit.Doc
	commits int
	errs    []string
}

func (m *changeModel) Load() (*Catalog, error) {
	m.last = NewCatalog()
	m.docs = map[Handle]map[string]bsonkit.Doc{}
	return m.last, nil
}

func (m *changeModel) Store(*Catalog) error {
	m.errs = append(m.errs, "Store called instead of StoreChanges")
	return nil
}

func (m *changeModel) StoreChanges(base, catalog *Catalog, changes []Change) error {
	m.mutex.Lock()
	defer m.mutex.Unlock()
	m.commits++
	if base != m.last {
		m.errs = append(m.errs, fmt.Sprintf("commit %d: not from the catalog stored last", m.commits))
	}
	for _, ch := range changes {
		if ch.Collection != catalog.Namespaces[ch.Handle] {
			m.errs = append(m.errs, fmt.Sprintf("commit %d: %s: not the catalog's namespace", m.commits, ch.Handle))
		}
		if ch.Collection == nil {
			delete(m.docs, ch.Handle)
			continue
		}
		docs := m.docs[ch.Handle]
		if docs == nil {
			docs = map[string]bsonkit.Doc{}
			m.docs[ch.Handle] = docs
		}
		for _, d := range ch.Del {
			key := idString(d)
			if docs[key] != d {
				m.errs = append(m.errs, fmt.Sprintf("commit %d: deleted %s is not the stored version", m.commits, key))
			}
			delete(docs, key)
		}
		for _, d := range ch.Put {
			docs[idString(d)] = d
		}
	}
	m.last = catalog
	return nil
}

func TestChangeStoreGetsChangesFromWhatItTookLast(t *testing.T) {
	model := &changeModel{}
	client, engine, c := openTest(t, model)
	ids := []interface{}{}
	for i := 0; i < 8; i++ {
		ids = append(ids, bson.M{"_id": i, "n": 0})
	}
	_, err := c.InsertMany(nil, ids)
	require.NoError(t, err)

	// concurrent transactions: increments of shared and own documents,
	// inserts and deletes, so that commits rebase and conflict
	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess, err := client.StartSession()
			if !assert.NoError(t, err) {
				return
			}
			defer sess.EndSession(nil)
			for i := 0; i < 30; i++ {
				_, err := sess.WithTransaction(nil, func(sc ISessionContext) (interface{}, error) {
					if _, err := c.UpdateOne(sc, bson.M{"_id": g}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
						return nil, err
					}
					if _, err := c.UpdateOne(sc, bson.M{"_id": 7}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
						return nil, err
					}
					key := fmt.Sprintf("%d-%d", g, i)
					if _, err := c.InsertOne(sc, bson.M{"_id": key}); err != nil {
						return nil, err
					}
					if i%2 == 1 {
						_, err := c.DeleteOne(sc, bson.M{"_id": fmt.Sprintf("%d-%d", g, i-1)})
						return nil, err
					}
					return nil, nil
				})
				if !assert.NoError(t, err) {
					return
				}
			}
		}()
	}
	wg.Wait()

	model.mutex.Lock()
	defer model.mutex.Unlock()
	assert.Empty(t, model.errs)
	assert.True(t, model.last == engine.Catalog())

	// what the store was told is the catalog
	ns := engine.Catalog().Namespaces[testNS]
	assert.Len(t, model.docs[testNS], ns.Documents.Len())
	ns.Documents.Scan(func(d bsonkit.Doc) bool {
		assert.True(t, model.docs[testNS][idString(d)] == d, "%s", idString(d))
		return true
	})
	assert.EqualValues(t, 6*30, counter(t, c, 7))
	checkNamespace(t, ns)
}

func TestEngineCloseWithTransactionsInFlight(t *testing.T) {
	engine, err := CreateEngine(Options{Store: NewMemoryStore()})
	require.NoError(t, err)

	// open writing transactions, one of them with a write
	var txns []*Transaction
	for i := 0; i < 4; i++ {
		txn, err := engine.Begin(nil, true)
		require.NoError(t, err)
		txns = append(txns, txn)
	}
	_, err = txns[0].Insert(testNS, bsonkit.List{doc(bson.M{"_id": 1})}, true)
	require.NoError(t, err)

	runWithin(t, 2*time.Second, "Engine.Close deadlocked", engine.Close)

	// commits fail, aborts return, nothing begins
	assert.Equal(t, ErrEngineClosed, engine.Commit(txns[0]))
	engine.Abort(txns[1])
	assert.Equal(t, ErrEngineClosed, engine.Commit(txns[2]))
	_, err = engine.Begin(nil, true)
	assert.Equal(t, ErrEngineClosed, err)
	assert.Equal(t, 0, engine.Catalog().Namespaces[Oplog].Documents.Len())
}

func TestAbortForgetsTheTransaction(t *testing.T) {
	engine, err := CreateEngine(Options{Store: NewMemoryStore()})
	require.NoError(t, err)
	defer engine.Close()
	txn, err := engine.Begin(nil, true)
	require.NoError(t, err)
	_, err = txn.Insert(testNS, bsonkit.List{doc(bson.M{"_id": 1})}, true)
	require.NoError(t, err)
	engine.Abort(txn)
	assert.Error(t, engine.Commit(txn))
	assert.Nil(t, engine.Catalog().Namespaces[testNS])
	engine.mutex.Lock()
	assert.Empty(t, engine.txns)
	engine.mutex.Unlock()
}

func TestExpiryWithConcurrentWriters(t *testing.T) {
	errs := make(chan error, 100)
	client, engine, err := Open(nil, Options{Store: NewMemoryStore(), ExpireInterval: 5 * time.Millisecond, ExpireErrors: func(err error) { errs <- err }})
	require.NoError(t, err)
	defer engine.Close()
	c := client.Database("db").Collection("c")
	_, err = c.Indexes().CreateOne(nil, mongo.IndexModel{Keys: bson.M{"at": 1}, Options: options.Index().SetExpireAfterSeconds(1)})
	require.NoError(t, err)

	// expired documents go while writers change others
	old := time.Now().Add(-time.Hour)
	for i := 0; i < 20; i++ {
		_, err := c.InsertOne(nil, bson.M{"_id": fmt.Sprintf("old-%d", i), "at": old})
		require.NoError(t, err)
		_, err = c.UpdateOne(nil, bson.M{"_id": "live"}, bson.M{"$inc": bson.M{"n": 1}}, options.Update().SetUpsert(true))
		require.NoError(t, err)
	}
	assert.Eventually(t, func() bool {
		n, err := c.CountDocuments(nil, bson.M{"at": old})
		return err == nil && n == 0
	}, 5*time.Second, 5*time.Millisecond)
	assert.EqualValues(t, 20, counter(t, c, "live"))
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
}

func TestWithTransactionRetriesWithinBounds(t *testing.T) {
	client, _, c := openTest(t, nil)
	_, err := c.InsertOne(nil, bson.M{"_id": 1, "n": 0})
	require.NoError(t, err)
	sess, err := client.StartSession()
	require.NoError(t, err)
	defer sess.EndSession(nil)

	// a transaction that always loses: a single write outside it changes
	// its document before it commits
	attempts := 0
	losing := func(sc ISessionContext) (interface{}, error) {
		attempts++
		if _, err := c.UpdateOne(sc, bson.M{"_id": 1}, bson.M{"$inc": bson.M{"n": 1}}); err != nil {
			return nil, err
		}
		_, err := c.UpdateOne(context.Background(), bson.M{"_id": 1}, bson.M{"$inc": bson.M{"n": 100}})
		return nil, err
	}

	// until the context ends
	ctx, cancel := context.WithCancel(context.Background())
	_, err = sess.WithTransaction(ctx, func(sc ISessionContext) (interface{}, error) {
		if attempts == 2 {
			cancel()
		}
		return losing(sc)
	})
	assert.True(t, IsWriteConflict(err), "%v", err)
	assert.Equal(t, 3, attempts)

	// until the retry limit
	defer retryLimit.Store(retryLimit.Load())
	retryLimit.Store(int64(50 * time.Millisecond))
	attempts = 0
	start := time.Now()
	_, err = sess.WithTransaction(nil, losing)
	assert.True(t, IsWriteConflict(err), "%v", err)
	assert.Greater(t, attempts, 1)
	assert.Less(t, time.Since(start), 5*time.Second)

	// every losing attempt's own increment is gone, the outside ones stay
	assert.EqualValues(t, 100*(3+attempts), counter(t, c, 1))

	// an error without the label is returned at once
	attempts = 0
	_, err = sess.WithTransaction(nil, func(sc ISessionContext) (interface{}, error) {
		attempts++
		return nil, errors.New("plain")
	})
	assert.EqualError(t, err, "plain")
	assert.Equal(t, 1, attempts)
}

// TestConcurrentMixedWritesStayConsistent runs every kind of write, in
// transactions and alone, with index and namespace changes now and then,
// from several goroutines on two collections, and then checks that every
// namespace's indexes hold exactly its documents, that sequence numbers are
// unique, and that what the store was told is the catalog.
func TestConcurrentMixedWritesStayConsistent(t *testing.T) {
	model := &changeModel{}
	client, engine, _ := openTest(t, model)
	db := client.Database("db")
	colls := []ICollection{db.Collection("c"), db.Collection("d")}

	var wg sync.WaitGroup
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sess, err := client.StartSession()
			if !assert.NoError(t, err) {
				return
			}
			defer sess.EndSession(nil)
			for i := 0; i < 40; i++ {
				c := colls[(g+i)%2]
				id := (g*7 + i*3) % 12
				op := func(ctx context.Context) error {
					var err error
					switch (g + i) % 9 {
					case 0:
						_, err = c.InsertOne(ctx, bson.M{"_id": fmt.Sprintf("%d-%d", g, i), "k": id})
					case 1:
						_, err = c.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$inc": bson.M{"n": 1}}, options.Update().SetUpsert(true))
					case 2:
						_, err = c.DeleteOne(ctx, bson.M{"_id": id})
					case 3:
						_, err = c.ReplaceOne(ctx, bson.M{"_id": id}, bson.M{"r": i}, options.Replace().SetUpsert(true))
					case 4:
						_, err = c.UpdateMany(ctx, bson.M{"k": bson.M{"$lt": 6}}, bson.M{"$inc": bson.M{"m": 1}})
					case 5:
						_, err = c.InsertMany(ctx, []interface{}{bson.M{"_id": fmt.Sprintf("m%d-%d-a", g, i)}, bson.M{"_id": fmt.Sprintf("m%d-%d-b", g, i)}})
					case 6:
						_, err = c.DeleteMany(ctx, bson.M{"k": bson.M{"$gte": 9}})
					case 7:
						if i%2 == 0 && i%3 == 0 { // DDL: not in transactions
							_, err = c.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.M{"k": 1}})
						} else {
							_, err = c.UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"k": i % 12}})
						}
					case 8:
						if i%2 == 0 && i%4 == 0 {
							err = c.Drop(ctx)
						} else {
							_, err = c.FindOneAndUpdate(ctx, bson.M{"_id": id}, bson.M{"$inc": bson.M{"f": 1}}).Raw()
							if errors.Is(err, ErrNoDocuments) {
								err = nil
							}
						}
					}
					return err
				}
				if i%2 == 0 {
					err = op(context.Background())
				} else {
					_, err = sess.WithTransaction(nil, func(sc ISessionContext) (interface{}, error) {
						return nil, op(sc)
					})
				}
				if err != nil && !IsUniquenessError(err) {
					assert.NoError(t, err)
				}
			}
		}()
	}
	wg.Wait()

	model.mutex.Lock()
	defer model.mutex.Unlock()
	assert.Empty(t, model.errs)
	catalog := engine.Catalog()
	assert.True(t, model.last == catalog)
	for handle, ns := range catalog.Namespaces {
		if handle == Oplog {
			continue
		}
		checkNamespace(t, ns)
		assert.Len(t, model.docs[handle], ns.Documents.Len(), "%s", handle)
		ns.Documents.Scan(func(d bsonkit.Doc) bool {
			assert.True(t, model.docs[handle][idString(d)] == d, "%s %s", handle, idString(d))
			return true
		})
	}
}
