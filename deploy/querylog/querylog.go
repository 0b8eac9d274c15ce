// Package querylog records the queries the services issue and checks that an
// index serves each (coverage.go): development tooling for the black-box
// tests (deploy/e2e), kept out of libs/store. While a
// QueryLog is installed (RecordQueries, tests only), every collection handed
// out by store.DB.Collection is wrapped: each query's operation, filter shape and
// sort is recorded, and so is each index created, per database and
// collection. The wrapper sits at the collection, so it is the same whatever
// engine or file store serves the database; without a log installed
// DB.Collection hands out the engine's collection itself.
package querylog

import (
	"context"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/liveset"
	"marketplace/libs/store"
)

// RecordQueries installs a new query log: the databases' collections handed
// out from now on record into it, until StopRecording. For tests.
func RecordQueries() *QueryLog {
	l := &QueryLog{queries: map[string]*Query{}, indexes: map[string]map[string]IndexSpec{}}
	store.WrapCollections(func(db string, c lungo.ICollection) lungo.ICollection {
		return &recordingCollection{ICollection: c, log: l, db: db}
	})
	return l
}

// StopRecording uninstalls the query log; collections handed out before keep
// recording into it.
func StopRecording() { store.WrapCollections(nil) }

// Query is one recorded query shape.
type Query struct {
	Database   string
	Collection string
	Op         string // find, findOne, count, distinct, update, replace, delete, findOneAndUpdate, ...
	Filter     Filter
	Sort       []SortKey
	// Limited is a find with a limit (or a single-document operation).
	Limited bool
	// Scan is the reason given with store.Scan, if any.
	Scan string
	// Count is how often the shape was issued.
	Count int
	// Example is the first filter seen, as extended JSON (shortened).
	Example string
	// Callers are where the queries of this shape were issued (the frames
	// outside libs/store, the driver and the engine), first seen first.
	Callers []string
}

// SortKey is one key of a sort or an index.
type SortKey struct {
	Field string
	Dir   int // 1 or -1
}

// IndexSpec is an index created on a collection.
type IndexSpec struct {
	Name    string
	Keys    []SortKey
	Unique  bool
	Partial *Filter // nil when not partial
}

// QueryLog holds what was recorded.
type QueryLog struct {
	mu      sync.Mutex
	queries map[string]*Query               // by shape
	indexes map[string]map[string]IndexSpec // by "db/collection", then by key signature
	bad     []string                        // what could not be understood
}

// Queries returns the recorded query shapes, sorted.
func (l *QueryLog) Queries() []Query {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Query, 0, len(l.queries))
	for _, k := range slices.Sorted(maps.Keys(l.queries)) {
		q := *l.queries[k]
		q.Callers = slices.Clone(q.Callers)
		out = append(out, q)
	}
	return out
}

// Indexes returns the indexes created on database db's collection coll.
func (l *QueryLog) Indexes(db, coll string) []IndexSpec {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.indexes[db+"/"+coll]
	out := make([]IndexSpec, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}

const maxCallers = 4

func (l *QueryLog) record(ctx context.Context, db, coll, op string, filter, sort any, limited bool) {
	f, err := ParseFilter(filter)
	if err != nil {
		l.note(fmt.Sprintf("%s %s.%s: unreadable filter: %v", op, db, coll, err))
		return
	}
	s, err := parseKeys(sort)
	if err != nil {
		l.note(fmt.Sprintf("%s %s.%s: unreadable sort: %v", op, db, coll, err))
		return
	}
	q := Query{Database: db, Collection: coll, Op: op, Filter: f, Sort: s, Limited: limited, Scan: store.ScanReason(ctx)}
	key := q.shape()
	caller := callerOutsideStore()
	l.mu.Lock()
	defer l.mu.Unlock()
	if have := l.queries[key]; have != nil {
		have.Count++
		if len(have.Callers) < maxCallers && !slices.Contains(have.Callers, caller) {
			have.Callers = append(have.Callers, caller)
		}
		return
	}
	q.Count = 1
	q.Example = example(filter)
	q.Callers = []string{caller}
	l.queries[key] = &q
}

func (l *QueryLog) note(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !slices.Contains(l.bad, msg) {
		l.bad = append(l.bad, msg)
	}
}

func (l *QueryLog) recordIndex(db, coll string, m mongo.IndexModel) {
	keys, err := parseKeys(m.Keys)
	if err != nil {
		l.note(fmt.Sprintf("index on %s.%s: unreadable keys: %v", db, coll, err))
		return
	}
	spec := IndexSpec{Keys: keys}
	if o := m.Options; o != nil {
		if o.Name != nil {
			spec.Name = *o.Name
		}
		if o.Unique != nil {
			spec.Unique = *o.Unique
		}
		if o.PartialFilterExpression != nil {
			pf, err := ParseFilter(o.PartialFilterExpression)
			if err != nil {
				l.note(fmt.Sprintf("index on %s.%s: unreadable partial filter: %v", db, coll, err))
				return
			}
			spec.Partial = &pf
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	k := db + "/" + coll
	if l.indexes[k] == nil {
		l.indexes[k] = map[string]IndexSpec{}
	}
	sig := keySignature(spec.Keys)
	if spec.Partial != nil {
		sig += " partial " + spec.Partial.String()
	}
	l.indexes[k][sig] = spec
}

// shape is the query's identity in the log.
func (q *Query) shape() string {
	return fmt.Sprintf("%s/%s %s %s sort %s limited %t scan %q", q.Database, q.Collection, q.Op, q.Filter.String(), keySignature(q.Sort), q.Limited, q.Scan)
}

func keySignature(keys []SortKey) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s:%d", k.Field, k.Dir)
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// example renders a filter as extended JSON, shortened.
func example(filter any) string {
	if filter == nil {
		return "{}"
	}
	b, err := bson.MarshalExtJSON(filter, false, false)
	if err != nil {
		return fmt.Sprint(filter)
	}
	const max = 300
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}

// callerOutsideStore is the first frame of the caller's stack outside this
// package, the drivers and the engine, with the first one in a service when
// a library (paging, events, idempotency) issued the query.
func callerOutsideStore() string {
	pcs := make([]uintptr, 32)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var chain []string
	for {
		f, more := frames.Next()
		switch {
		case (strings.Contains(f.File, "/libs/store/") || strings.Contains(f.File, "/deploy/querylog/")) && !strings.HasSuffix(f.File, "_test.go"), strings.Contains(f.File, "256dpi/lungo"),
			strings.Contains(f.File, "go.mongodb.org/"), strings.HasPrefix(f.Function, "runtime."):
		default:
			loc := shortPath(f.File) + ":" + fmt.Sprint(f.Line)
			chain = append(chain, loc)
			if strings.Contains(f.File, "/services/") || !strings.Contains(f.File, "/libs/") || len(chain) == 3 {
				return strings.Join(chain, " <- ")
			}
		}
		if !more {
			return strings.Join(chain, " <- ")
		}
	}
}

// shortPath keeps a source path from its module's directory on.
func shortPath(file string) string {
	for _, dir := range []string{"/services/", "/libs/", "/deploy/", "/gateway/"} {
		if i := strings.LastIndex(file, dir); i >= 0 {
			return file[i+1:]
		}
	}
	return file
}

// recordingCollection records the queries issued on a collection.
type recordingCollection struct {
	lungo.ICollection
	log *QueryLog
	db  string
}

func (c *recordingCollection) rec(ctx context.Context, op string, filter, sort any) {
	limited := strings.HasPrefix(op, "findOne")
	c.log.record(ctx, c.db, c.Name(), op, filter, sort, limited)
}

func (c *recordingCollection) Aggregate(ctx context.Context, pipeline any, opts ...*options.AggregateOptions) (lungo.ICursor, error) {
	filter, sort := liveset.PipelineStart(pipeline)
	c.rec(ctx, "aggregate", filter, sort)
	return c.ICollection.Aggregate(ctx, pipeline, opts...)
}

func (c *recordingCollection) BulkWrite(ctx context.Context, models []mongo.WriteModel, opts ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	for _, m := range models {
		switch m := m.(type) {
		case *mongo.UpdateOneModel:
			c.rec(ctx, "update", m.Filter, nil)
		case *mongo.UpdateManyModel:
			c.rec(ctx, "update", m.Filter, nil)
		case *mongo.ReplaceOneModel:
			c.rec(ctx, "replace", m.Filter, nil)
		case *mongo.DeleteOneModel:
			c.rec(ctx, "delete", m.Filter, nil)
		case *mongo.DeleteManyModel:
			c.rec(ctx, "delete", m.Filter, nil)
		}
	}
	return c.ICollection.BulkWrite(ctx, models, opts...)
}

func (c *recordingCollection) Clone(opts ...*options.CollectionOptions) (lungo.ICollection, error) {
	cl, err := c.ICollection.Clone(opts...)
	if err != nil {
		return nil, err
	}
	return &recordingCollection{ICollection: cl, log: c.log, db: c.db}, nil
}

func (c *recordingCollection) CountDocuments(ctx context.Context, filter any, opts ...*options.CountOptions) (int64, error) {
	c.rec(ctx, "count", filter, nil)
	return c.ICollection.CountDocuments(ctx, filter, opts...)
}

func (c *recordingCollection) DeleteMany(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	c.rec(ctx, "delete", filter, nil)
	return c.ICollection.DeleteMany(ctx, filter, opts...)
}

func (c *recordingCollection) DeleteOne(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	c.rec(ctx, "delete", filter, nil)
	return c.ICollection.DeleteOne(ctx, filter, opts...)
}

func (c *recordingCollection) Distinct(ctx context.Context, field string, filter any, opts ...*options.DistinctOptions) ([]any, error) {
	c.rec(ctx, "distinct", filter, nil)
	return c.ICollection.Distinct(ctx, field, filter, opts...)
}

func (c *recordingCollection) Find(ctx context.Context, filter any, opts ...*options.FindOptions) (lungo.ICursor, error) {
	var sort any
	for _, o := range opts {
		if o != nil && o.Sort != nil {
			sort = o.Sort
		}
	}
	limited := false
	for _, o := range opts {
		if o != nil && o.Limit != nil && *o.Limit != 0 {
			limited = true
		}
	}
	c.log.record(ctx, c.db, c.Name(), "find", filter, sort, limited)
	return c.ICollection.Find(ctx, filter, opts...)
}

func (c *recordingCollection) FindOne(ctx context.Context, filter any, opts ...*options.FindOneOptions) lungo.ISingleResult {
	var sort any
	for _, o := range opts {
		if o != nil && o.Sort != nil {
			sort = o.Sort
		}
	}
	c.rec(ctx, "findOne", filter, sort)
	return c.ICollection.FindOne(ctx, filter, opts...)
}

func (c *recordingCollection) FindOneAndDelete(ctx context.Context, filter any, opts ...*options.FindOneAndDeleteOptions) lungo.ISingleResult {
	var sort any
	for _, o := range opts {
		if o != nil && o.Sort != nil {
			sort = o.Sort
		}
	}
	c.rec(ctx, "findOneAndDelete", filter, sort)
	return c.ICollection.FindOneAndDelete(ctx, filter, opts...)
}

func (c *recordingCollection) FindOneAndReplace(ctx context.Context, filter, replacement any, opts ...*options.FindOneAndReplaceOptions) lungo.ISingleResult {
	var sort any
	for _, o := range opts {
		if o != nil && o.Sort != nil {
			sort = o.Sort
		}
	}
	c.rec(ctx, "findOneAndReplace", filter, sort)
	return c.ICollection.FindOneAndReplace(ctx, filter, replacement, opts...)
}

func (c *recordingCollection) FindOneAndUpdate(ctx context.Context, filter, update any, opts ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	var sort any
	for _, o := range opts {
		if o != nil && o.Sort != nil {
			sort = o.Sort
		}
	}
	c.rec(ctx, "findOneAndUpdate", filter, sort)
	return c.ICollection.FindOneAndUpdate(ctx, filter, update, opts...)
}

func (c *recordingCollection) Indexes() lungo.IIndexView {
	return &recordingIndexView{IIndexView: c.ICollection.Indexes(), coll: c}
}

func (c *recordingCollection) ReplaceOne(ctx context.Context, filter, replacement any, opts ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	c.rec(ctx, "replace", filter, nil)
	return c.ICollection.ReplaceOne(ctx, filter, replacement, opts...)
}

func (c *recordingCollection) UpdateByID(ctx context.Context, id, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	c.rec(ctx, "update", bson.D{{Key: "_id", Value: id}}, nil)
	return c.ICollection.UpdateByID(ctx, id, update, opts...)
}

func (c *recordingCollection) UpdateMany(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	c.rec(ctx, "update", filter, nil)
	return c.ICollection.UpdateMany(ctx, filter, update, opts...)
}

func (c *recordingCollection) UpdateOne(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	c.rec(ctx, "update", filter, nil)
	return c.ICollection.UpdateOne(ctx, filter, update, opts...)
}

// recordingIndexView records the indexes created.
type recordingIndexView struct {
	lungo.IIndexView
	coll *recordingCollection
}

func (v *recordingIndexView) CreateMany(ctx context.Context, models []mongo.IndexModel, opts ...*options.CreateIndexesOptions) ([]string, error) {
	names, err := v.IIndexView.CreateMany(ctx, models, opts...)
	if err == nil {
		for _, m := range models {
			v.coll.log.recordIndex(v.coll.db, v.coll.Name(), m)
		}
	}
	return names, err
}

func (v *recordingIndexView) CreateOne(ctx context.Context, model mongo.IndexModel, opts ...*options.CreateIndexesOptions) (string, error) {
	name, err := v.IIndexView.CreateOne(ctx, model, opts...)
	if err == nil {
		v.coll.log.recordIndex(v.coll.db, v.coll.Name(), model)
	}
	return name, err
}
