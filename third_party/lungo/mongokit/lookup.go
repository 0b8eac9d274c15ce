package mongokit

import (
	"errors"
	"math"
	"slices"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
)

// Finds served by indexes: a query whose conditions, at the top level (or
// in a top-level $and), require an index's leading fields to equal scalars
// and, optionally, the next field to be in a range of scalars of one type
// bracket (also one that every branch of a top-level $or implies), reads that part of the index instead of every document. When the
// index's next fields are the sort's keys (all in the index's direction or
// all in the opposite one), the documents come in the sort's order and the
// walk stops once skip+limit of them match. Every candidate is matched with
// the whole query: the index only narrows the documents, so a condition the
// planner does not understand ($nor, $ne, $not, regular expressions, dotted
// paths, null, arrays...) is simply matched on the candidates, and a query
// with no usable condition scans. The answer is the scan's: the same
// documents in the same order (ties of a sort in natural order), or the
// scan's error (an error on the index path reruns the query as a scan).

// maxLookupKeys bounds the key tuples one query may look up in an index
// (the product of the values of a compound key's fields); above it, the
// index is not used.
const maxLookupKeys = 1000

// errPlanFallback makes a planned query run as a scan.
var errPlanFallback = errors.New("index and documents disagree")

// lookupValue reports whether an equality on v may be served by an index: a
// scalar whose index key is the value itself. Null (matches missing fields
// too), arrays (match as a whole or by element), documents, regular
// expressions, NaN and the other types are left to the scan.
func lookupValue(v interface{}) bool {
	switch v := v.(type) {
	case string, int32, int64, bool, primitive.ObjectID, primitive.DateTime, primitive.Timestamp:
		return true
	case float64:
		return !math.IsNaN(v)
	default:
		return false
	}
}

// fieldConds is what a query requires of one top-level field: to equal one
// of values (eq, from a value, $eq or $in) and to be within bounds (low,
// high, from $gt, $gte, $lt and $lte on scalars of one class).
type fieldConds struct {
	eq        []interface{}
	hasEq     bool
	class     bsonkit.Class
	low, high *bsonkit.Bound
}

// queryConds is what a query requires at the top level.
type queryConds struct {
	fields    map[string]*fieldConds
	conjuncts []bson.E // the top-level conditions on fields, $and flattened
}

// collectConds reads the conditions of a query (and of the documents of its
// top-level $and, recursively). A condition it does not understand is left
// out: the candidates are matched with the whole query anyway.
func collectConds(query bson.D, qc *queryConds) {
	for _, e := range query {
		if e.Key == "$and" {
			if list, ok := e.Value.(bson.A); ok {
				for _, item := range list {
					if doc, ok := item.(bson.D); ok {
						collectConds(doc, qc)
					}
				}
			}
			continue
		}
		if e.Key == "$or" {
			if list, ok := e.Value.(bson.A); ok {
				collectOr(list, qc)
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			continue
		}
		qc.conjuncts = append(qc.conjuncts, e)
		if strings.Contains(e.Key, ".") {
			continue
		}
		f := qc.fields[e.Key]
		if f == nil {
			f = &fieldConds{}
		}
		if lookupValue(e.Value) {
			f.addEq([]interface{}{e.Value})
		} else if doc, ok := e.Value.(bson.D); ok && isOperatorDoc(doc) {
			for _, op := range doc {
				switch op.Key {
				case "$eq":
					if lookupValue(op.Value) {
						f.addEq([]interface{}{op.Value})
					}
				case "$in":
					if list, ok := op.Value.(bson.A); ok && allLookupValues(list) {
						f.addEq(list)
					}
				case "$gt", "$gte":
					f.addBound(op.Value, op.Key == "$gte", true)
				case "$lt", "$lte":
					f.addBound(op.Value, op.Key == "$lte", false)
				}
			}
		}
		qc.fields[e.Key] = f
	}
}

// collectOr reads the bounds a top-level $or implies: a field that every
// branch requires to equal scalars or to be in a range, all of one class,
// lies between the least and the greatest of them (as a cursor's "after
// this position" condition bounds the sort's first key).
func collectOr(branches bson.A, qc *queryConds) {
	if len(branches) == 0 {
		return
	}
	var subs []*queryConds
	for _, item := range branches {
		doc, ok := item.(bson.D)
		if !ok {
			return
		}
		sub := &queryConds{fields: map[string]*fieldConds{}}
		collectConds(doc, sub)
		subs = append(subs, sub)
	}
	for name := range subs[0].fields {
		var class bsonkit.Class
		var low, high *bsonkit.Bound
		ok := true
		for i, sub := range subs {
			c, l, h, bounded := sub.fields[name].interval()
			if !bounded || i > 0 && c != class {
				ok = false
				break
			}
			if i == 0 {
				class, low, high = c, l, h
				continue
			}
			low = outerBound(low, l, true)
			high = outerBound(high, h, false)
		}
		if !ok {
			continue
		}
		f := qc.fields[name]
		if f == nil {
			f = &fieldConds{}
			qc.fields[name] = f
		}
		if low != nil {
			f.addBound(low.Value, low.Inclusive, true)
		}
		if high != nil {
			f.addBound(high.Value, high.Inclusive, false)
		}
	}
}

// interval returns the class and the bounds (nil: open) within which the
// conditions require the field: its equality's values (of one class) or its
// range. bounded is false when they do not bound it.
func (f *fieldConds) interval() (class bsonkit.Class, low, high *bsonkit.Bound, bounded bool) {
	switch {
	case f == nil:
		return 0, nil, nil, false
	case f.hasEq:
		if len(f.eq) == 0 {
			return 0, nil, nil, false // matches nothing: leave the field
		}
		class, _ = bsonkit.Inspect(f.eq[0])
		for _, v := range f.eq[1:] {
			if c, _ := bsonkit.Inspect(v); c != class {
				return 0, nil, nil, false
			}
		}
		// eq is sorted
		return class, &bsonkit.Bound{Value: f.eq[0], Inclusive: true}, &bsonkit.Bound{Value: f.eq[len(f.eq)-1], Inclusive: true}, true
	case f.low != nil || f.high != nil:
		return f.class, f.low, f.high, true
	}
	return 0, nil, nil, false
}

// outerBound is the looser of two bounds on one side (nil: open).
func outerBound(a, b *bsonkit.Bound, low bool) *bsonkit.Bound {
	if a == nil || b == nil {
		return nil
	}
	res := bsonkit.Compare(a.Value, b.Value)
	if !low {
		res = -res
	}
	switch {
	case res < 0:
		return a
	case res > 0:
		return b
	case b.Inclusive:
		return b
	}
	return a
}

// isOperatorDoc reports whether a field's condition is a document of
// operators (as opposed to an embedded document to equal).
func isOperatorDoc(doc bson.D) bool {
	if len(doc) == 0 {
		return false
	}
	for _, e := range doc {
		if !strings.HasPrefix(e.Key, "$") {
			return false
		}
	}
	return true
}

func allLookupValues(list bson.A) bool {
	for _, v := range list {
		if !lookupValue(v) {
			return false
		}
	}
	return true
}

// addEq keeps the first equality required of the field (all must hold: one
// suffices to narrow), its values sorted and each once (1 and 1.0 are one
// key).
func (f *fieldConds) addEq(values []interface{}) {
	if f.hasEq {
		return
	}
	eq := make([]interface{}, 0, len(values))
	eq = append(eq, values...)
	sort.SliceStable(eq, func(i, j int) bool {
		return bsonkit.Compare(eq[i], eq[j]) < 0
	})
	n := 0
	for i, v := range eq {
		if i == 0 || bsonkit.Compare(eq[n-1], v) != 0 {
			eq[n] = v
			n++
		}
	}
	f.eq, f.hasEq = eq[:n], true
}

// addBound keeps the tightest bound on each side among those of the class
// of the first scalar bound (a bound of another class is left to the match).
func (f *fieldConds) addBound(v interface{}, inclusive, low bool) {
	if !lookupValue(v) {
		return
	}
	class, _ := bsonkit.Inspect(v)
	if f.low == nil && f.high == nil {
		f.class = class
	} else if class != f.class {
		return
	}
	b := &bsonkit.Bound{Value: v, Inclusive: inclusive}
	if low {
		if f.low == nil {
			f.low = b
		} else if res := bsonkit.Compare(v, f.low.Value); res > 0 || res == 0 && !inclusive {
			f.low = b
		}
	} else {
		if f.high == nil {
			f.high = b
		} else if res := bsonkit.Compare(v, f.high.Value); res < 0 || res == 0 && !inclusive {
			f.high = b
		}
	}
}

// plan is how an index serves a query.
type plan struct {
	name     string
	index    *Index
	eq       int             // the leading columns bound by equalities
	prefixes [][]interface{} // the key tuples of those columns
	rng      *bsonkit.Range  // on the next column, if any
	covers   bool            // the walk's order is the sort's
	backward bool            // the walk goes against the index's order
	point    bool            // a unique index, every column bound
}

// better reports whether p serves better than q: a point lookup on a unique
// index (the fewest keys first), then the most equality-bound columns, one
// that covers the sort, one with a range, the fewest columns, the name (the
// _id index first).
func (p *plan) better(q *plan) bool {
	if p.point != q.point {
		return p.point
	}
	if p.point && len(p.prefixes) != len(q.prefixes) {
		return len(p.prefixes) < len(q.prefixes)
	}
	if p.eq != q.eq {
		return p.eq > q.eq
	}
	if p.covers != q.covers {
		return p.covers
	}
	if (p.rng != nil) != (q.rng != nil) {
		return p.rng != nil
	}
	if len(p.index.columns) != len(q.index.columns) {
		return len(p.index.columns) < len(q.index.columns)
	}
	if p.name == "_id_" || q.name == "_id_" {
		return p.name == "_id_"
	}
	return p.name < q.name
}

// planQuery returns how the best index serves the query with the sort (nil
// columns: none), or nil when none does and the query scans.
func (c *Collection) planQuery(query bsonkit.Doc, columns []bsonkit.Column) *plan {
	if query == nil || len(c.Indexes) == 0 {
		return nil
	}
	qc := &queryConds{fields: map[string]*fieldConds{}}
	collectConds(*query, qc)
	if len(qc.fields) == 0 && len(columns) == 0 {
		return nil
	}

	var best *plan
	for name, index := range c.Indexes {
		p := planIndex(name, index, qc, columns)
		if p != nil && (best == nil || p.better(best)) {
			best = p
		}
	}

	return best
}

// planIndex returns how one index serves the query, or nil.
func planIndex(name string, index *Index, qc *queryConds, sort []bsonkit.Column) *plan {
	// a partial index holds only some documents: usable when the query
	// implies its filter
	if index.config.Partial != nil && !implies(index.config.Partial, qc) {
		return nil
	}
	cols := index.columns

	// the equality-bound leading columns and their key tuples
	p := &plan{name: name, index: index, prefixes: [][]interface{}{{}}}
	for _, col := range cols {
		f := qc.fields[col.Path]
		if f == nil || !f.hasEq {
			break
		}
		if len(p.prefixes)*len(f.eq) > maxLookupKeys {
			break
		}
		next := make([][]interface{}, 0, len(p.prefixes)*len(f.eq))
		for _, t := range p.prefixes {
			for _, v := range f.eq {
				next = append(next, append(t[:len(t):len(t)], v))
			}
		}
		p.prefixes = next
		p.eq++
	}
	p.point = index.config.Unique && p.eq == len(cols)

	// a range on the next column (one side only on a multikey index: the
	// two bounds may hold for two elements of an array)
	multikey := index.base.Multikey()
	if p.eq < len(cols) {
		if f := qc.fields[cols[p.eq].Path]; f != nil && !f.hasEq && (f.low != nil || f.high != nil) {
			p.rng = &bsonkit.Range{Class: f.class, Low: f.low, High: f.high}
			if multikey && f.low != nil {
				p.rng.High = nil
			}
		}
	}

	// the sort is covered when its keys are the columns after the
	// equality-bound ones, all in their direction or all against it, with
	// one key tuple and no array in the index (a document's sort key of an
	// array is its least or greatest element, its entries are one per
	// element)
	if len(sort) > 0 && len(p.prefixes) == 1 && !multikey && len(sort) <= len(cols)-p.eq {
		p.covers = true
		p.backward = sort[0].Reverse != cols[p.eq].Reverse
		for j, s := range sort {
			col := cols[p.eq+j]
			if s.Path != col.Path || strings.Contains(s.Path, ".") || (s.Reverse != col.Reverse) != p.backward {
				p.covers = false
				break
			}
		}
		if !p.covers {
			p.backward = false
		}
	}

	if p.eq == 0 && p.rng == nil && !p.covers {
		return nil
	}

	return p
}

// implies reports whether every document the query matches matches the
// partial filter: each condition of the filter is one of the query's
// top-level conditions, or {$exists: true} on a field the query requires to
// equal a scalar or to be in a range of scalars.
func implies(partial bsonkit.Doc, qc *queryConds) bool {
	for _, p := range *partial {
		if strings.HasPrefix(p.Key, "$") {
			return false
		}
		ok := false
		for _, q := range qc.conjuncts {
			if q.Key == p.Key && bsonkit.Compare(q.Value, p.Value) == 0 {
				ok = true
				break
			}
		}
		if !ok {
			if doc, isDoc := p.Value.(bson.D); isDoc && len(doc) == 1 && doc[0].Key == "$exists" && doc[0].Value == true {
				f := qc.fields[p.Key]
				ok = f != nil && (f.hasEq || f.low != nil || f.high != nil)
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// runPlan returns the documents the query matches as the plan reads them:
// sorted when columns are given, otherwise in natural order, and limited
// (limit counts the skipped ones too). An error means: scan instead.
func (c *Collection) runPlan(p *plan, query bsonkit.Doc, columns []bsonkit.Column, limit int) (bsonkit.List, error) {
	if p.covers {
		return c.runCovered(p, query, columns, limit)
	}

	// the candidates of every key tuple, by sequence number
	var seqs []uint64
	var seen map[uint64]struct{}
	if len(p.prefixes) > 1 && p.index.base.Multikey() {
		seen = map[uint64]struct{}{}
	}
	for _, prefix := range p.prefixes {
		p.index.base.Walk(prefix, p.rng, false, func(seq uint64) bool {
			if seen != nil {
				if _, ok := seen[seq]; ok {
					return true
				}
				seen[seq] = struct{}{}
			}
			seqs = append(seqs, seq)
			return true
		})
	}
	if len(seqs) == 0 {
		return nil, c.checkQuery(query)
	}

	// in natural order, as this snapshot's set holds them; then a stable
	// sort and the filter give what they give over all documents
	slices.Sort(seqs)
	list := make(bsonkit.List, len(seqs))
	for i, seq := range seqs {
		doc, ok := c.Documents.Doc(seq)
		if !ok {
			return nil, errPlanFallback
		}
		list[i] = doc
	}
	if len(columns) > 0 {
		bsonkit.Sort(list, columns)
	}

	return Filter(list, query, limit)
}

// runCovered walks the index in the sort's order, matching each document,
// until limit documents match and the next one sorts after the last; the
// documents that sort equal (ties) are then put in natural order, as the
// scan's stable sort leaves them.
func (c *Collection) runCovered(p *plan, query bsonkit.Doc, columns []bsonkit.Column, limit int) (bsonkit.List, error) {
	var list bsonkit.List
	var seqs []uint64
	var err error
	var last bsonkit.Doc // the limit-th match
	visited := 0
	p.index.base.Walk(p.prefixes[0], p.rng, p.backward, func(seq uint64) bool {
		// this snapshot's version of the document
		doc, ok := c.Documents.Doc(seq)
		if !ok {
			err = errPlanFallback
			return false
		}
		if last != nil && bsonkit.Order(doc, last, columns, false) != 0 {
			return false
		}
		visited++
		ok, e := Match(doc, query)
		if e != nil {
			err = e
			return false
		}
		if ok {
			list = append(list, doc)
			seqs = append(seqs, seq)
			if limit > 0 && len(list) == limit {
				last = doc
			}
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if visited == 0 {
		return nil, c.checkQuery(query)
	}

	// ties in natural order
	for i := 0; i < len(list); {
		j := i + 1
		for j < len(list) && bsonkit.Order(list[j], list[i], columns, false) == 0 {
			j++
		}
		if j-i > 1 {
			sort.Sort(bySeq{list[i:j], seqs[i:j]})
		}
		i = j
	}
	if limit > 0 && len(list) > limit {
		list = list[:limit]
	}

	return list, nil
}

// bySeq sorts documents by their sequence numbers (natural order).
type bySeq struct {
	list bsonkit.List
	seqs []uint64
}

func (s bySeq) Len() int           { return len(s.list) }
func (s bySeq) Less(i, j int) bool { return s.seqs[i] < s.seqs[j] }
func (s bySeq) Swap(i, j int) {
	s.list[i], s.list[j] = s.list[j], s.list[i]
	s.seqs[i], s.seqs[j] = s.seqs[j], s.seqs[i]
}

// LookupID returns the document whose _id equals id (compared as the _id
// index compares), or nil if there is none. ok is false if the collection
// has no unique _id index without a partial filter to look it up in.
func (c *Collection) LookupID(id interface{}) (doc bsonkit.Doc, ok bool) {
	index := c.Indexes["_id_"]
	if index == nil || !index.config.Unique || index.config.Partial != nil {
		return nil, false
	}
	if len(index.columns) != 1 || index.columns[0].Path != "_id" {
		return nil, false
	}
	index.base.Lookup([]interface{}{id}, func(seq uint64) bool {
		doc, _ = c.Documents.Doc(seq)
		return false
	})
	return doc, true
}

// SameIndexes reports whether the two collections have the same indexes:
// the same names with equal configurations.
func (c *Collection) SameIndexes(o *Collection) bool {
	if len(c.Indexes) != len(o.Indexes) {
		return false
	}
	for name, index := range c.Indexes {
		other, ok := o.Indexes[name]
		if !ok || !index.config.Equal(other.config) {
			return false
		}
	}
	return true
}
