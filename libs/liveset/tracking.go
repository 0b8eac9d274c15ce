package liveset

// Tracking: what queries read and writes changed, recorded by a layer around
// a database's collections and transactions (store.DB.Use: libs/service
// installs it). The collections the database hands out record, on either
// engine:
//
//   - the reads of a context made by TrackReads (a query's request): for each
//     find, count or aggregation, the collection and, when the filter pins
//     one of the collection's key fields by equality ($eq, $in, or a plain
//     value; inside $and, or in every branch of an $or), that field and its
//     values; else the whole collection. A collection's key fields are _id
//     and the first field of each of its declared indexes (store.DB.EnsureIndexes, which tells Indexed):
//     the fields queries are served by.
//   - every write to a collection of the service (not the internal ones:
//     Internal): the key fields' values of each document it changed, before
//     (read with the write's filter, in the same transaction, before it) and
//     after (the inserted or replacing document; for an update that can
//     change a key field, read again after it). A write that changed nothing
//     (no match, no modification) records nothing.
//
// A transaction's writes are handed to the publisher (SetPublisher: the
// service's outbox, so they leave on its live topic if and only if the
// transaction commits) inside it, before it commits; a write outside a
// transaction is made in one of its own for that. Once committed they are
// added to the request's WriteTracker (TrackWrites: what a mutation's answer
// reports), and the publisher's after hook runs (the outbox relay's kick).

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// maxTrackedDocs bounds the documents a write's before-image reads; a write
// that matches more says its collection changed in unknown places.
const maxTrackedDocs = 100

// Publisher publishes a transaction's writes in it (publish), and is told
// once it committed (after).
type Publisher struct {
	// Publish records w in the transaction of ctx and returns the id of the
	// event that carries it.
	Publish func(ctx context.Context, w *Writes) (string, error)
	After   func()
}

// Database is what tracking needs of the database it is installed on
// (a *store.DB).
type Database interface {
	Name() string
	Embedded() bool
	// Tx runs fn in one transaction (joined to an enclosing one).
	Tx(ctx context.Context, fn func(ctx context.Context) error) error
}

// Tracking is a database's layer for live queries.
type Tracking struct {
	db   Database
	mu   sync.RWMutex
	keys map[string][]string // collection -> key fields, "_id" first
	pub  *Publisher
	// fromChanges: a transaction's writes are read from the engine's own
	// record of what it changed (lungo.Transaction.Changes) at its end,
	// instead of each write reading its documents' keys before and after it
	// (the embedded engine; MongoDB has no such record).
	fromChanges bool
}

// Track returns the live-query layer of db, to install with db.Use.
func Track(db Database) *Tracking {
	return &Tracking{db: db, fromChanges: db.Embedded() && !perWriteTracking}
}

// SetPublisher makes every committed write publish its Writes
// through p (libs/service: the outbox, on the service's live topic).
func (d *Tracking) SetPublisher(p *Publisher) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.pub = p
}

func (d *Tracking) publisher() *Publisher {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.pub
}

// Indexed records an index's first field as a key field of coll
// (store.DB.EnsureIndexes tells it each declared index).
func (d *Tracking) Indexed(coll string, keys bson.D) {
	if len(keys) == 0 {
		return
	}
	f := keys[0].Key
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.keys == nil {
		d.keys = map[string][]string{}
	}
	have := d.keys[coll]
	if len(have) == 0 {
		have = []string{"_id"}
	}
	if !slices.Contains(have, f) {
		have = append(have, f)
	}
	d.keys[coll] = have
}

// KeyFields are coll's key fields: _id, then its indexes' first fields.
func (d *Tracking) KeyFields(coll string) []string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if k := d.keys[coll]; len(k) > 0 {
		return k
	}
	return []string{"_id"}
}

// txWrites are the writes of one attempt of a transaction.
type txWrites struct {
	mu sync.Mutex
	w  Writes
}

type txWritesKey struct{}

// Tx is the layer around a transaction's function (store.DB.Tx): run
// records and publishes each attempt's writes, committed hands the last
// attempt's on once the transaction committed.
func (d *Tracking) Tx(fn func(ctx context.Context) error) (run func(ctx context.Context) error, committed func(ctx context.Context)) {
	var tw *txWrites
	return d.liveTx(fn, &tw), func(ctx context.Context) { d.liveCommitted(ctx, tw) }
}

// liveTx wraps a transaction's function: each attempt records its writes
// into a fresh txWrites (last points at it), and publishes them in the
// transaction at its end.
func (d *Tracking) liveTx(fn func(ctx context.Context) error, last **txWrites) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		tw := &txWrites{}
		*last = tw
		if err := fn(context.WithValue(ctx, txWritesKey{}, tw)); err != nil {
			return err
		}
		if d.fromChanges {
			if err := d.recordChanges(ctx, tw); err != nil {
				return err
			}
		}
		if p := d.publisher(); p != nil && !tw.w.Empty() {
			id, err := p.Publish(ctx, &tw.w)
			if err != nil {
				return fmt.Errorf("liveset: publish the transaction's writes: %w", err)
			}
			tw.w.IDs = append(tw.w.IDs, id)
		}
		return nil
	}
}

// recordChanges records what the embedded engine's transaction in ctx
// changed in the service's collections: the key values of every document
// version it removed (deleted, or replaced by a new version) and put
// (inserted, or the new version), so every kind of write is covered and a
// write that changed nothing records nothing. More than maxTrackedDocs
// documents of a collection, or a dropped one, say the values are not known.
func (d *Tracking) recordChanges(ctx context.Context, tw *txWrites) error {
	txn := lungo.TransactionOf(ctx)
	if txn == nil {
		return errors.New("liveset: a transaction's writes: no transaction in its context")
	}
	db := d.db.Name()
	for _, ch := range txn.Changes() {
		if ch.Handle[0] != db || IsInternal(ch.Handle[1]) {
			continue
		}
		if ch.Collection != nil && len(ch.Put) == 0 && len(ch.Del) == 0 {
			continue // created, or its indexes changed: no document
		}
		name := ch.Handle[1]
		fields := d.KeyFields(name)
		var w Writes
		cw := w.Coll(name, fields)
		if ch.Collection == nil || len(ch.Put) > maxTrackedDocs || len(ch.Del) > maxTrackedDocs {
			cw.SetAll()
		} else {
		docs:
			for _, list := range []bsonkit.List{ch.Del, ch.Put} {
				for _, doc := range list {
					for _, f := range fields {
						vals, ok := docKeyValues(*doc, f)
						if !ok {
							cw.SetAll()
							break docs
						}
						for _, v := range vals {
							cw.Add(f, v)
						}
					}
				}
			}
		}
		tw.record(&w)
	}
	return nil
}

// liveCommitted hands a committed transaction's writes on.
func (d *Tracking) liveCommitted(ctx context.Context, tw *txWrites) {
	if tw == nil || tw.w.Empty() {
		return
	}
	if t := WriteTrackerOf(ctx); t != nil {
		t.Merge(&tw.w)
	}
	if outer, _ := ctx.Value(txWritesKey{}).(*txWrites); outer != nil {
		outer.record(&tw.w) // a transaction begun inside another's function
	}
	if p := d.publisher(); p != nil && p.After != nil {
		p.After()
	}
}

func (tw *txWrites) record(w *Writes) {
	tw.mu.Lock()
	defer tw.mu.Unlock()
	tw.w.Merge(w)
}

// trackedCollection records reads and writes (see the top of the file).
type trackedCollection struct {
	lungo.ICollection
	d *Tracking
}

// Collection is name's layer: c, recording (internal collections: c itself).
func (d *Tracking) Collection(name string, c lungo.ICollection) lungo.ICollection {
	if IsInternal(name) {
		return c
	}
	return trackedCollection{c, d}
}

func (c trackedCollection) Clone(opts ...*options.CollectionOptions) (lungo.ICollection, error) {
	cl, err := c.ICollection.Clone(opts...)
	if err != nil {
		return nil, err
	}
	return trackedCollection{cl, c.d}, nil
}

// read records a read with filter.
func (c trackedCollection) read(ctx context.Context, filter any) {
	t := ReadTrackerOf(ctx)
	if t == nil {
		return
	}
	raw, err := marshalDoc(filter)
	if err != nil {
		t.Add(Reads{{Coll: c.Name()}})
		return
	}
	t.Add(readsOf(c.Name(), raw, c.d.KeyFields(c.Name())))
}

func (c trackedCollection) Find(ctx context.Context, filter any, opts ...*options.FindOptions) (lungo.ICursor, error) {
	c.read(ctx, filter)
	return c.ICollection.Find(ctx, filter, opts...)
}

func (c trackedCollection) FindOne(ctx context.Context, filter any, opts ...*options.FindOneOptions) lungo.ISingleResult {
	c.read(ctx, filter)
	return c.ICollection.FindOne(ctx, filter, opts...)
}

func (c trackedCollection) CountDocuments(ctx context.Context, filter any, opts ...*options.CountOptions) (int64, error) {
	c.read(ctx, filter)
	return c.ICollection.CountDocuments(ctx, filter, opts...)
}

func (c trackedCollection) Distinct(ctx context.Context, field string, filter any, opts ...*options.DistinctOptions) ([]any, error) {
	c.read(ctx, filter)
	return c.ICollection.Distinct(ctx, field, filter, opts...)
}

func (c trackedCollection) EstimatedDocumentCount(ctx context.Context, opts ...*options.EstimatedDocumentCountOptions) (int64, error) {
	c.read(ctx, nil)
	return c.ICollection.EstimatedDocumentCount(ctx, opts...)
}

func (c trackedCollection) Aggregate(ctx context.Context, pipeline any, opts ...*options.AggregateOptions) (lungo.ICursor, error) {
	filter, _ := PipelineStart(pipeline)
	c.read(ctx, filter)
	if TracksReads(ctx) && pipelineReadsOthers(pipeline) {
		ReadsUnknown(ctx, "an aggregation that reads other collections")
	}
	return c.ICollection.Aggregate(ctx, pipeline, opts...)
}

func (c trackedCollection) Watch(ctx context.Context, pipeline any, opts ...*options.ChangeStreamOptions) (lungo.IChangeStream, error) {
	ReadsUnknown(ctx, "a change stream")
	return c.ICollection.Watch(ctx, pipeline, opts...)
}

// pipelineReadsOthers reports a stage that reads another collection.
func pipelineReadsOthers(pipeline any) bool {
	raw, err := bson.Marshal(bson.M{"p": pipeline})
	if err != nil {
		return true
	}
	s := string(raw)
	return strings.Contains(s, "$lookup") || strings.Contains(s, "$unionWith") || strings.Contains(s, "$graphLookup")
}

// tracking is where a write's changes go: the transaction's, or none.
// own: the write needs a transaction of its own to publish them in.
func (c trackedCollection) tracking(ctx context.Context) (tw *txWrites, own bool) {
	if tw, _ := ctx.Value(txWritesKey{}).(*txWrites); tw != nil {
		if c.d.fromChanges {
			return nil, false // read from the transaction's changes at its end
		}
		return tw, false
	}
	if c.d.publisher() != nil || (c.d.fromChanges && WriteTrackerOf(ctx) != nil) {
		return nil, true
	}
	if WriteTrackerOf(ctx) != nil {
		return &txWrites{}, false
	}
	return nil, false
}

// done hands the changes of a write outside a transaction (and without a
// publisher) to the request's tracker.
func (c trackedCollection) done(ctx context.Context, tw *txWrites) {
	if ctx.Value(txWritesKey{}) == nil {
		if t := WriteTrackerOf(ctx); t != nil {
			t.Merge(&tw.w)
		}
	}
}

// inOwnTx runs a write outside a transaction in one of its own, so that its
// changes are published with it.
func inOwnTx[R any](c trackedCollection, ctx context.Context, write func(ctx context.Context) (R, error)) (R, error) {
	var res R
	err := c.d.db.Tx(ctx, func(ctx context.Context) error {
		var err error
		res, err = write(ctx)
		return err
	})
	return res, err
}

// keyRecorder records documents' key values into a transaction's writes.
type keyRecorder struct {
	coll   string
	fields []string
	w      Writes
}

func (c trackedCollection) recorder() *keyRecorder {
	r := &keyRecorder{coll: c.Name(), fields: c.d.KeyFields(c.Name())}
	r.w.Coll(r.coll, r.fields)
	return r
}

func (r *keyRecorder) all() { r.w.Colls[r.coll].SetAll() }

// doc records the key values of one document (a before or after image).
func (r *keyRecorder) doc(raw bson.Raw) {
	cw := r.w.Colls[r.coll]
	for _, f := range r.fields {
		vals, ok := keyValues(raw, f)
		if !ok {
			cw.SetAll()
			return
		}
		for _, v := range vals {
			cw.Add(f, v)
		}
	}
}

func (r *keyRecorder) into(tw *txWrites) {
	if tw != nil {
		tw.record(&r.w)
	}
}

// before reads the key fields of the documents filter matches (at most
// maxTrackedDocs, else the values are not known), recording them; it
// returns their ids.
func (c trackedCollection) before(ctx context.Context, r *keyRecorder, filter any, sort any, one bool) ([]any, error) {
	raw, err := marshalDoc(filter)
	if err != nil {
		return nil, err
	}
	if ids, ok := idsPinned(raw); ok && len(r.fields) == 1 {
		for _, id := range ids {
			r.doc(idDoc(id))
		}
		return ids, nil // _id is the only key field, and the filter names it
	}
	proj := bson.D{}
	for _, f := range r.fields {
		proj = append(proj, bson.E{Key: f, Value: 1})
	}
	o := options.Find().SetProjection(proj).SetLimit(maxTrackedDocs + 1)
	if one && sort != nil {
		o.SetSort(sort).SetLimit(1)
	}
	cur, err := c.ICollection.Find(ctx, raw, o)
	if err != nil {
		return nil, err
	}
	defer cur.Close(ctx)
	var ids []any
	for cur.Next(ctx) {
		if len(ids) == maxTrackedDocs {
			r.all()
			break
		}
		var doc bson.Raw
		if err := cur.Decode(&doc); err != nil {
			return nil, err
		}
		r.doc(doc)
		ids = append(ids, doc.Lookup("_id"))
	}
	return ids, cur.Err()
}

// after reads the key fields of the documents with ids again (an update
// that may have changed them).
func (c trackedCollection) after(ctx context.Context, r *keyRecorder, ids []any) error {
	if len(ids) == 0 {
		return nil
	}
	proj := bson.D{}
	for _, f := range r.fields {
		proj = append(proj, bson.E{Key: f, Value: 1})
	}
	// One lookup by _id each: an equality on _id is served by its index on
	// either engine ($in may not be, and would read the whole collection).
	for _, id := range ids {
		raw, err := c.ICollection.FindOne(ctx, bson.D{{Key: "_id", Value: id}}, options.FindOne().SetProjection(proj)).Raw()
		if errors.Is(err, mongo.ErrNoDocuments) {
			continue
		}
		if err != nil {
			return err
		}
		r.doc(raw)
	}
	return nil
}

func idDoc(id any) bson.Raw {
	b, err := bson.Marshal(bson.D{{Key: "_id", Value: id}})
	if err != nil {
		return bson.Raw{}
	}
	return b
}

func (c trackedCollection) InsertOne(ctx context.Context, doc any, opts ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	tw, own := c.tracking(ctx)
	if own {
		return inOwnTx(c, ctx, func(ctx context.Context) (*mongo.InsertOneResult, error) { return c.InsertOne(ctx, doc, opts...) })
	}
	res, err := c.ICollection.InsertOne(ctx, doc, opts...)
	if err != nil || tw == nil {
		return res, err
	}
	r := c.recorder()
	r.inserted(doc, res.InsertedID)
	r.into(tw)
	c.done(ctx, tw)
	return res, nil
}

func (c trackedCollection) InsertMany(ctx context.Context, docs []any, opts ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	tw, own := c.tracking(ctx)
	if own {
		return inOwnTx(c, ctx, func(ctx context.Context) (*mongo.InsertManyResult, error) { return c.InsertMany(ctx, docs, opts...) })
	}
	res, err := c.ICollection.InsertMany(ctx, docs, opts...)
	if tw == nil || (err == nil && res == nil) {
		return res, err
	}
	r := c.recorder()
	if err != nil || res == nil || len(res.InsertedIDs) != len(docs) {
		// Some may have gone in (an unordered insert goes on past a
		// failure; ids are not paired with documents then): every
		// document given, whose ids the caller chose or the collection.
		for _, d := range docs {
			r.inserted(d, nil)
		}
	} else {
		for i, id := range res.InsertedIDs {
			r.inserted(docs[i], id)
		}
	}
	r.into(tw)
	c.done(ctx, tw)
	return res, err
}

// inserted records an inserted document (its _id as the engine gave it;
// nil: not known, and then a document without one says All).
func (r *keyRecorder) inserted(doc any, id any) {
	raw, err := marshalDoc(doc)
	if err != nil {
		r.all()
		return
	}
	if _, err := raw.LookupErr("_id"); err != nil && id == nil {
		r.all()
		return
	}
	if _, err := raw.LookupErr("_id"); err != nil && id != nil {
		d := bson.D{{Key: "_id", Value: id}}
		elems, _ := raw.Elements()
		for _, e := range elems {
			d = append(d, bson.E{Key: e.Key(), Value: e.Value()})
		}
		if raw, err = bson.Marshal(d); err != nil {
			r.all()
			return
		}
	}
	r.doc(raw)
}

// update runs an update or replace with filter, recording the changed
// documents' key values before and, when it may change them, after.
func (c trackedCollection) update(ctx context.Context, filter, change any, one bool, write func(ctx context.Context) (*mongo.UpdateResult, error)) (*mongo.UpdateResult, error) {
	tw, own := c.tracking(ctx)
	if own {
		return inOwnTx(c, ctx, func(ctx context.Context) (*mongo.UpdateResult, error) {
			return c.update(ctx, filter, change, one, write)
		})
	}
	if tw == nil {
		return write(ctx)
	}
	r := c.recorder()
	ids, err := c.before(ctx, r, filter, nil, one)
	if err != nil {
		return nil, err
	}
	res, err := write(ctx)
	if err != nil || res == nil {
		return res, err
	}
	if res.ModifiedCount == 0 && res.UpsertedID == nil {
		return res, nil // nothing changed
	}
	if res.UpsertedID != nil {
		ids = append(ids, res.UpsertedID)
	}
	if res.UpsertedID != nil || changesKeys(change, r.fields) {
		if err := c.after(ctx, r, ids); err != nil {
			return nil, err
		}
	}
	r.into(tw)
	c.done(ctx, tw)
	return res, nil
}

func (c trackedCollection) UpdateOne(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return c.update(ctx, filter, update, true, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateOne(ctx, filter, update, opts...)
	})
}

func (c trackedCollection) UpdateByID(ctx context.Context, id, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return c.update(ctx, bson.D{{Key: "_id", Value: id}}, update, true, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateByID(ctx, id, update, opts...)
	})
}

func (c trackedCollection) UpdateMany(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	return c.update(ctx, filter, update, false, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.UpdateMany(ctx, filter, update, opts...)
	})
}

func (c trackedCollection) ReplaceOne(ctx context.Context, filter, replacement any, opts ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	return c.update(ctx, filter, replacement, true, func(ctx context.Context) (*mongo.UpdateResult, error) {
		return c.ICollection.ReplaceOne(ctx, filter, replacement, opts...)
	})
}

func (c trackedCollection) delete(ctx context.Context, filter any, one bool, write func(ctx context.Context) (*mongo.DeleteResult, error)) (*mongo.DeleteResult, error) {
	tw, own := c.tracking(ctx)
	if own {
		return inOwnTx(c, ctx, func(ctx context.Context) (*mongo.DeleteResult, error) { return c.delete(ctx, filter, one, write) })
	}
	if tw == nil {
		return write(ctx)
	}
	r := c.recorder()
	if _, err := c.before(ctx, r, filter, nil, one); err != nil {
		return nil, err
	}
	res, err := write(ctx)
	if err != nil || res == nil || res.DeletedCount == 0 {
		return res, err
	}
	r.into(tw)
	c.done(ctx, tw)
	return res, nil
}

func (c trackedCollection) DeleteOne(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	return c.delete(ctx, filter, true, func(ctx context.Context) (*mongo.DeleteResult, error) {
		return c.ICollection.DeleteOne(ctx, filter, opts...)
	})
}

func (c trackedCollection) DeleteMany(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	return c.delete(ctx, filter, false, func(ctx context.Context) (*mongo.DeleteResult, error) {
		return c.ICollection.DeleteMany(ctx, filter, opts...)
	})
}

// findAndModify runs a FindOneAnd* write: the matched document's key values
// before (with the write's sort), and after when it may change them.
func (c trackedCollection) findAndModify(ctx context.Context, filter, change, sort any, upsert bool, write func(ctx context.Context) lungo.ISingleResult) lungo.ISingleResult {
	tw, own := c.tracking(ctx)
	if own {
		var res lungo.ISingleResult
		err := c.d.db.Tx(ctx, func(ctx context.Context) error {
			res = c.findAndModify(ctx, filter, change, sort, upsert, write)
			if err := res.Err(); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
				return err
			}
			return nil
		})
		if err != nil {
			return failedResult{err}
		}
		return res
	}
	if tw == nil {
		return write(ctx)
	}
	r := c.recorder()
	ids, err := c.before(ctx, r, filter, sort, true)
	if err != nil {
		return failedResult{err}
	}
	res := write(ctx)
	err = res.Err()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		if change != nil && upsert {
			// It may have inserted (returning the document before: none):
			// the new document's keys are not known here.
			r.all()
			break
		}
		return res // nothing matched, nothing changed
	case err != nil:
		return res
	default:
		raw, rerr := res.Raw()
		id, ierr := raw.LookupErr("_id")
		if rerr != nil || ierr != nil || !slices.ContainsFunc(ids, func(x any) bool { return sameValue(x, id) }) {
			// The document changed is not the one read before (an upsert's
			// new one, a tie the engine broke otherwise, a projection
			// without _id): its keys are not known here.
			r.all()
			break
		}
		if change != nil && changesKeys(change, r.fields) {
			if err := c.after(ctx, r, ids); err != nil {
				return failedResult{err}
			}
		}
	}
	r.into(tw)
	c.done(ctx, tw)
	return res
}

// sameValue reports whether x (an id read before) and v are one value.
func sameValue(x any, v bson.RawValue) bool {
	xv, ok := x.(bson.RawValue)
	return ok && xv.Equal(v)
}

func sortOf[T any](opts []*T, get func(*T) any) any {
	var s any
	for _, o := range opts {
		if o != nil {
			if v := get(o); v != nil {
				s = v
			}
		}
	}
	return s
}

func (c trackedCollection) FindOneAndUpdate(ctx context.Context, filter, update any, opts ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	sort := sortOf(opts, func(o *options.FindOneAndUpdateOptions) any { return o.Sort })
	upsert := slices.ContainsFunc(opts, func(o *options.FindOneAndUpdateOptions) bool { return o != nil && o.Upsert != nil && *o.Upsert })
	return c.findAndModify(ctx, filter, update, sort, upsert, func(ctx context.Context) lungo.ISingleResult {
		return c.ICollection.FindOneAndUpdate(ctx, filter, update, opts...)
	})
}

func (c trackedCollection) FindOneAndReplace(ctx context.Context, filter, replacement any, opts ...*options.FindOneAndReplaceOptions) lungo.ISingleResult {
	sort := sortOf(opts, func(o *options.FindOneAndReplaceOptions) any { return o.Sort })
	upsert := slices.ContainsFunc(opts, func(o *options.FindOneAndReplaceOptions) bool { return o != nil && o.Upsert != nil && *o.Upsert })
	return c.findAndModify(ctx, filter, replacement, sort, upsert, func(ctx context.Context) lungo.ISingleResult {
		return c.ICollection.FindOneAndReplace(ctx, filter, replacement, opts...)
	})
}

func (c trackedCollection) FindOneAndDelete(ctx context.Context, filter any, opts ...*options.FindOneAndDeleteOptions) lungo.ISingleResult {
	sort := sortOf(opts, func(o *options.FindOneAndDeleteOptions) any { return o.Sort })
	return c.findAndModify(ctx, filter, nil, sort, false, func(ctx context.Context) lungo.ISingleResult {
		return c.ICollection.FindOneAndDelete(ctx, filter, opts...)
	})
}

// BulkWrite says the collection changed in unknown places (the per-write
// path; the embedded engine's changes say which documents).
func (c trackedCollection) BulkWrite(ctx context.Context, models []mongo.WriteModel, opts ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	tw, own := c.tracking(ctx)
	if own {
		return inOwnTx(c, ctx, func(ctx context.Context) (*mongo.BulkWriteResult, error) { return c.BulkWrite(ctx, models, opts...) })
	}
	res, err := c.ICollection.BulkWrite(ctx, models, opts...)
	if tw != nil && res != nil {
		r := c.recorder()
		r.all()
		r.into(tw)
		c.done(ctx, tw)
	}
	return res, err
}

// Drop says the collection changed in unknown places.
//
// Neither engine drops a collection in a transaction (MongoDB refuses it,
// the embedded engine sees a nested transaction), so a drop outside one is
// made first and its record then published in a transaction of its own (a
// live query that re-runs in between reads the collection dropped, and is
// re-run again); were the drop made in the transaction that publishes, as
// the other writes are, it would always fail.
func (c trackedCollection) Drop(ctx context.Context) error {
	var w Writes
	w.Coll(c.Name(), c.d.KeyFields(c.Name())).SetAll()
	if tw, _ := ctx.Value(txWritesKey{}).(*txWrites); tw != nil {
		err := c.ICollection.Drop(ctx)
		if err == nil && !c.d.fromChanges {
			tw.record(&w)
		}
		return err
	}
	if err := c.ICollection.Drop(ctx); err != nil {
		return err
	}
	if c.d.publisher() == nil {
		if t := WriteTrackerOf(ctx); t != nil {
			t.Merge(&w)
		}
		return nil
	}
	return c.d.db.Tx(ctx, func(ctx context.Context) error {
		if tw, _ := ctx.Value(txWritesKey{}).(*txWrites); tw != nil {
			tw.record(&w)
		}
		return nil
	})
}

// failedResult is a single-document result that failed with err.
type failedResult struct{ err error }

func (r failedResult) Decode(any) error               { return r.err }
func (r failedResult) DecodeBytes() (bson.Raw, error) { return nil, r.err }
func (r failedResult) Err() error                     { return r.err }
func (r failedResult) Raw() (bson.Raw, error)         { return nil, r.err }
