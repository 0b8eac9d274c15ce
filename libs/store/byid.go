package store

// Reads by a unique key without a scan. lungo answers every find by matching
// its whole collection (its indexes only enforce uniqueness), so a FindOne by
// _id, or by a payment intent or a user id held unique by an index, over
// 10,000 documents took about a millisecond, and every request, webhook and
// consumer that reads a record by its key paid that, once or more. The store
// sees every commit and what it changed (filestore.go), so it keeps, per
// collection, a map from each unique index's key to its document, for the
// catalog of the last commit, updated by what each commit changed. A FindOne
// or Find whose filter names a unique key (an equality on each of its fields,
// a string or an ObjectID each, or $in a list of them for a key of one field)
// takes the documents the index allows from the map and runs lungo's own
// matcher, sort, skip, limit and projection over them.
//
// A map describes exactly one version of a collection: the one of the last
// commit, whose pointer it records. A read first takes the catalog it would
// have read (the transaction's, inside DB.Tx; the engine's current one
// otherwise). When that catalog's collection is the maps' version, the maps
// answer; when it is another (inside a transaction that wrote to it, as a
// consumer's batch does event after event), its documents that the maps'
// version does not have are those the transaction wrote, which lungo tells
// (Transaction.Change), and are looked at first (see find); a read that took
// the catalog just before a commit is left to lungo. Partial indexes (unique among some documents only), fields with
// dots, numbers (1 and 1.0 are equal, their keys are not), and an index while
// any document holds an array in its fields (which an equality would match
// element by element) are left to lungo. So the answer is always lungo's own,
// only without the scan.

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// keyedReads holds the maps of every collection.
type keyedReads struct {
	mu   sync.RWMutex
	col  map[lungo.Handle]*collKeys
	hits atomic.Int64 // reads answered from the maps (tests)
}

// collKeys are one collection's maps, for one version of it.
type collKeys struct {
	ns   *mongokit.Collection // the version the maps describe
	sig  string               // the index definitions they follow
	keys []*uniqueKey
}

// uniqueKey maps one unique index's key values to documents.
type uniqueKey struct {
	fields []string
	docs   map[string]bsonkit.Doc
	arrays int // documents with an array in one of the fields
}

func newKeyedReads() *keyedReads { return &keyedReads{col: map[lungo.Handle]*collKeys{}} }

// indexSig names a collection's index definitions, and lists the unique ones
// the maps can serve.
func indexSig(ns *mongokit.Collection) (string, [][]string) {
	names := make([]string, 0, len(ns.Indexes))
	for name := range ns.Indexes {
		names = append(names, name)
	}
	slices.Sort(names)
	var sig strings.Builder
	var served [][]string
	for _, name := range names {
		c := ns.Indexes[name].Config()
		fields := make([]string, 0, len(*c.Key))
		ok := c.Unique && c.Partial == nil
		for _, e := range *c.Key {
			fields = append(fields, e.Key)
			ok = ok && !strings.Contains(e.Key, ".")
		}
		sig.WriteString(name)
		sig.WriteByte(0)
		sig.WriteString(strings.Join(fields, ","))
		if c.Unique {
			sig.WriteString(" unique")
		}
		if c.Partial != nil {
			sig.WriteString(" partial")
		}
		sig.WriteByte(0)
		if ok {
			served = append(served, fields)
		}
	}
	return sig.String(), served
}

// newCollKeys maps every document of ns.
func newCollKeys(ns *mongokit.Collection) *collKeys {
	sig, served := indexSig(ns)
	m := &collKeys{ns: ns, sig: sig}
	for _, fields := range served {
		uk := &uniqueKey{fields: fields, docs: make(map[string]bsonkit.Doc, ns.Documents.Len())}
		ns.Documents.Scan(func(doc bsonkit.Doc) bool {
			uk.put(doc)
			return true
		})
		// The _id first: most reads name it.
		if len(fields) == 1 && fields[0] == "_id" {
			m.keys = append([]*uniqueKey{uk}, m.keys...)
		} else {
			m.keys = append(m.keys, uk)
		}
	}
	return m
}

// keyOf is doc's key in the map: each field's BSON type and value. ok is
// false when a field is not a string or an ObjectID (such a document cannot
// equal a looked-up key); array reports an array in a field.
func (uk *uniqueKey) keyOf(doc bsonkit.Doc) (key string, ok, array bool) {
	var b []byte
	for _, f := range uk.fields {
		v := bsonkit.Get(doc, f)
		if _, isArray := v.(bson.A); isArray {
			return "", false, true
		}
		var good bool
		if b, good = appendKey(b, v); !good {
			return "", false, false
		}
	}
	return string(b), true, false
}

func appendKey(b []byte, v any) ([]byte, bool) {
	// The BSON type byte and value, as bson.MarshalValue gives them, written
	// directly (this runs for every document of a keyed collection at open).
	switch v := v.(type) {
	case string:
		b = append(b, byte(bson.TypeString))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(v)+1))
		return append(append(b, v...), 0), true
	case primitive.ObjectID:
		return append(append(b, byte(bson.TypeObjectID)), v[:]...), true
	default:
		return b, false
	}
}

func (uk *uniqueKey) put(doc bsonkit.Doc) {
	k, ok, array := uk.keyOf(doc)
	if array {
		uk.arrays++
	}
	if ok {
		uk.docs[k] = doc
	}
}

func (uk *uniqueKey) del(doc bsonkit.Doc) {
	k, ok, array := uk.keyOf(doc)
	if array {
		uk.arrays--
	}
	if ok && uk.docs[k] == doc {
		delete(uk.docs, k)
	}
}

// build maps a whole catalog (at load).
func (r *keyedReads) build(c *lungo.Catalog) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for h, ns := range c.Namespaces {
		if h != lungo.Oplog {
			r.col[h] = newCollKeys(ns)
		}
	}
}

// apply records a commit's changes (once it was stored).
func (r *keyedReads) apply(changes []nsChange) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range changes {
		if ch.drop {
			delete(r.col, ch.handle)
			continue
		}
		m := r.col[ch.handle]
		if sig, _ := indexSig(ch.ns); m == nil || sig != m.sig {
			r.col[ch.handle] = newCollKeys(ch.ns) // new, or its indexes changed
			continue
		}
		for _, uk := range m.keys {
			for _, doc := range ch.del {
				uk.del(doc)
			}
			for _, doc := range ch.put {
				uk.put(doc)
			}
		}
		m.ns = ch.ns
	}
}

// find answers the documents of ns that can match query by a unique key,
// and whether that answer is exact: query names one of the unique keys fully
// (an equality on each field, or, for a key of one field, $in a list). The
// documents are candidates: the caller matches them against the whole query.
//
// The maps describe one version of the collection (m.ns, the last commit's);
// ns may be a transaction's (the committed one with its writes on it). A
// document of ns with a key is then in the maps if it is in m.ns too (the
// same pointer), and otherwise among the documents the transaction put
// (txn.Change); so those are looked at first, and a document of the maps
// counts only while ns holds it. Any other version (a read that took the
// catalog just before a commit) is left to lungo.
func (r *keyedReads) find(h lungo.Handle, ns *mongokit.Collection, txn *lungo.Transaction, query bsonkit.Doc) (bsonkit.List, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m := r.col[h]
	if m == nil {
		return nil, false
	}
	if m.ns != ns {
		if sig, _ := indexSig(ns); sig != m.sig {
			return nil, false // other indexes: the keys may not be unique in ns
		}
		// Only a transaction that began from the maps' version says what
		// it wrote (a read that took the catalog just before a commit is
		// left to lungo).
		if txn == nil || txn.Base().Namespaces[h] != m.ns {
			return nil, false
		}
	}
	for _, uk := range m.keys {
		if uk.arrays > 0 {
			continue
		}
		keys, ok := uk.keysIn(query)
		if !ok {
			continue
		}
		// The documents of ns that m.ns does not have; neither version
		// changes once made.
		var written bsonkit.List
		if m.ns != ns {
			ch, _ := txn.Change(h)
			written = ch.Put
		}
		found := make(map[string]bsonkit.Doc, len(keys))
		for _, doc := range written {
			k, ok, array := uk.keyOf(doc)
			if array {
				return nil, false // an element of it may equal a key
			}
			if ok {
				found[k] = doc
			}
		}
		var out bsonkit.List
		for _, k := range keys {
			doc := found[k]
			if doc == nil {
				// The committed document, unless the transaction replaced
				// or deleted it.
				if d := uk.docs[k]; d != nil {
					if ns.Documents.Has(d) {
						doc = d
					}
				}
			}
			if doc != nil && !slices.Contains(out, doc) {
				out = append(out, doc)
			}
		}
		r.hits.Add(1)
		return out, true
	}
	return nil, false
}

// keysIn are the keys of uk that query names: one for equalities on all its
// fields; for a key of one field, one per value of an $in.
func (uk *uniqueKey) keysIn(query bsonkit.Doc) ([]string, bool) {
	var key []byte
	for _, f := range uk.fields {
		v, ok := condition(query, f)
		if !ok {
			return nil, false
		}
		if in, isIn := v.(bson.A); isIn {
			if len(uk.fields) != 1 {
				return nil, false
			}
			keys := make([]string, 0, len(in))
			for _, x := range in {
				k, ok := appendKey(nil, x)
				if !ok {
					return nil, false
				}
				keys = append(keys, string(k))
			}
			return keys, true
		}
		if key, ok = appendKey(key, v); !ok {
			return nil, false
		}
	}
	return []string{string(key)}, true
}

// condition is what a top-level field of query must be, if query says so
// plainly: a value it equals (field: value), or the list of an $in (field:
// {$in: [...]}) as a bson.A.
func condition(query bsonkit.Doc, field string) (any, bool) {
	for _, e := range *query {
		if e.Key != field {
			continue
		}
		switch v := e.Value.(type) {
		case string, primitive.ObjectID:
			return v, true
		case bson.D:
			if len(v) == 1 && v[0].Key == "$in" {
				if in, ok := v[0].Value.(bson.A); ok {
					return in, true
				}
			}
		}
		return nil, false
	}
	return nil, false
}

// txKey carries the embedded engine's session into DB.Tx's function.
type txKey struct{}

// collection is the engine's collection; on the embedded engine, with reads
// by a unique key served from the maps (DB.Collection hands it out).
func (d *DB) collection(name string, opts ...*options.CollectionOptions) lungo.ICollection {
	c := d.IDatabase.Collection(name, opts...)
	if d.keyed == nil || name == "" {
		return c
	}
	return &keyedCollection{ICollection: c, db: d, handle: lungo.Handle{d.Name(), name}}
}

// keyedCollection is a collection of the embedded engine whose FindOne uses
// the maps where it can.
type keyedCollection struct {
	lungo.ICollection
	db     *DB
	handle lungo.Handle
}

// FindOne is lungo's, answered from the maps where the filter names a unique key.
func (c *keyedCollection) FindOne(ctx context.Context, filter any, opts ...*options.FindOneOptions) lungo.ISingleResult {
	o := options.MergeFindOneOptions(opts...)
	rest := *o
	// The options lungo supports, or ignores; with any other, lungo decides.
	rest.Projection, rest.Sort, rest.Skip, rest.Comment, rest.Hint, rest.MaxTime = nil, nil, nil, nil, nil, nil
	rest.AllowPartialResults, rest.BatchSize, rest.MaxAwaitTime, rest.NoCursorTimeout = nil, nil, nil, nil
	if reflect.ValueOf(rest).IsZero() {
		skip := 0
		if o.Skip != nil {
			skip = int(*o.Skip)
		}
		if list, ok := c.selectByKey(ctx, filter, o.Sort, o.Projection, skip, 1); ok {
			if len(list) == 0 {
				return &lungo.SingleResult{}
			}
			return &keyedResult{doc: list[0]}
		}
	}
	return c.ICollection.FindOne(ctx, filter, opts...)
}

// Find is lungo's, answered from the maps where the filter names a unique key.
func (c *keyedCollection) Find(ctx context.Context, filter any, opts ...*options.FindOptions) (lungo.ICursor, error) {
	o := options.MergeFindOptions(opts...)
	rest := *o
	rest.Projection, rest.Sort, rest.Skip, rest.Limit, rest.Comment, rest.Hint, rest.MaxTime = nil, nil, nil, nil, nil, nil, nil
	rest.AllowDiskUse, rest.AllowPartialResults, rest.BatchSize, rest.MaxAwaitTime, rest.NoCursorTimeout, rest.Snapshot = nil, nil, nil, nil, nil, nil
	if reflect.ValueOf(rest).IsZero() && (o.Limit == nil || *o.Limit >= 0) && (o.Skip == nil || *o.Skip >= 0) {
		skip, limit := 0, 0
		if o.Skip != nil {
			skip = int(*o.Skip)
		}
		if o.Limit != nil {
			limit = int(*o.Limit)
		}
		if list, ok := c.selectByKey(ctx, filter, o.Sort, o.Projection, skip, limit); ok {
			return &keyedCursor{list: list}, nil
		}
	}
	return c.ICollection.Find(ctx, filter, opts...)
}

// selectByKey does what lungo's find does (sort, filter, skip, limit,
// project) over the documents the maps say can match, in the collection's
// natural order; ok is false where the maps cannot answer.
func (c *keyedCollection) selectByKey(ctx context.Context, filter, sort, projection any, skip, limit int) (bsonkit.List, bool) {
	if filter == nil {
		return nil, false
	}
	query, err := bsonkit.Transform(filter)
	if err != nil {
		return nil, false
	}
	// The catalog lungo would read: the transaction's, or the current one.
	catalog := c.db.engine.Catalog()
	var txn *lungo.Transaction
	if sess, ok := ctx.Value(txKey{}).(*lungo.Session); ok {
		if txn = sess.Transaction(); txn != nil {
			catalog = txn.Catalog()
		}
	}
	ns := catalog.Namespaces[c.handle]
	if ns == nil {
		return nil, false
	}
	docs, exact := c.db.keyed.find(c.handle, ns, txn, query)
	if !exact {
		return nil, false
	}
	seq := func(d bsonkit.Doc) uint64 { n, _ := ns.Documents.Seq(d); return n }
	slices.SortFunc(docs, func(a, b bsonkit.Doc) int { return cmp.Compare(seq(a), seq(b)) })
	if sort != nil {
		s, err := bsonkit.Transform(sort)
		if err != nil {
			return nil, false
		}
		if len(*s) > 0 {
			if docs, err = mongokit.Sort(docs, s); err != nil {
				return nil, false
			}
		}
	}
	// The candidates must match the whole filter; with none, the filter is
	// still checked as lungo would check it against a document.
	if len(docs) == 0 {
		if _, err := mongokit.Match(&bson.D{}, query); err != nil {
			return nil, false // lungo reports the bad filter itself
		}
	}
	list := make(bsonkit.List, 0, len(docs))
	for _, doc := range docs {
		ok, err := mongokit.Match(doc, query)
		if err != nil {
			return nil, false
		}
		if ok {
			list = append(list, doc)
		}
	}
	if limit > 0 && len(list) > skip+limit {
		list = list[:skip+limit]
	}
	if skip >= len(list) {
		list = nil
	} else {
		list = list[skip:]
	}
	if projection != nil && len(list) > 0 {
		p, err := bsonkit.Transform(projection)
		if err != nil {
			return nil, false
		}
		if list, err = mongokit.ProjectList(list, p); err != nil {
			return nil, false
		}
	}
	return list, true
}

// keyedResult is a found document, as lungo's SingleResult would hold it.
type keyedResult struct{ doc bsonkit.Doc }

func (r *keyedResult) Decode(out any) error           { return bsonkit.Decode(r.doc, out) }
func (r *keyedResult) DecodeBytes() (bson.Raw, error) { return bson.Marshal(r.doc) }
func (r *keyedResult) Raw() (bson.Raw, error)         { return r.DecodeBytes() }
func (r *keyedResult) Err() error                     { return nil }

// keyedCursor is found documents, as lungo's Cursor would hold them.
type keyedCursor struct {
	mu     sync.Mutex
	list   bsonkit.List
	pos    int
	closed bool
}

func (c *keyedCursor) All(_ context.Context, out any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errors.New("cursor closed")
	}
	c.closed = true
	return bsonkit.DecodeList(c.list, out)
}

func (c *keyedCursor) Close(context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	return nil
}

func (c *keyedCursor) Decode(out any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.pos == 0 || c.pos > len(c.list) {
		return io.EOF
	}
	return bsonkit.Decode(c.list[c.pos-1], out)
}

func (c *keyedCursor) Next(context.Context) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.pos >= len(c.list) {
		return false
	}
	c.pos++
	return true
}

func (c *keyedCursor) RemainingBatchLength() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.list) - c.pos
}

func (c *keyedCursor) TryNext(ctx context.Context) bool { return c.Next(ctx) }
func (c *keyedCursor) Err() error                       { return nil }
func (c *keyedCursor) ID() int64                        { return 0 }
func (c *keyedCursor) SetBatchSize(int32)               {}
func (c *keyedCursor) SetComment(any)                   {}
func (c *keyedCursor) SetMaxTime(time.Duration)         {}
