package convex

import (
	"slices"

	"marketplace/libs/liveset"
)

// readIndex finds, for a write, the holders of reads it touches (live queries):
// the cost of a write is in the reads it touches, not in those it does not.
// Not safe for concurrent use.
type readIndex[T comparable] struct {
	// collection -> field ("" for whole-collection reads) -> value ("" for
	// those) -> holders
	byColl map[string]map[string]map[string]map[T]struct{}
	of     map[T]liveset.Reads
}

// newReadIndex returns an empty index.
func newReadIndex[T comparable]() *readIndex[T] {
	return &readIndex[T]{byColl: map[string]map[string]map[string]map[T]struct{}{}, of: map[T]liveset.Reads{}}
}

// Len is the number of holders indexed.
func (x *readIndex[T]) Len() int { return len(x.of) }

// Reads are what t is indexed by, and whether it is.
func (x *readIndex[T]) Reads(t T) (liveset.Reads, bool) {
	rs, ok := x.of[t]
	return rs, ok
}

// Set indexes t by rs, in place of what it was indexed by.
func (x *readIndex[T]) Set(t T, rs liveset.Reads) {
	if old, ok := x.of[t]; ok {
		if slices.EqualFunc(old, rs, func(a, b liveset.Read) bool {
			return a.Coll == b.Coll && a.Field == b.Field && slices.Equal(a.Values, b.Values)
		}) {
			return
		}
		x.Remove(t)
	}
	x.of[t] = rs
	for _, r := range rs {
		fields := x.byColl[r.Coll]
		if fields == nil {
			fields = map[string]map[string]map[T]struct{}{}
			x.byColl[r.Coll] = fields
		}
		values := fields[r.Field]
		if values == nil {
			values = map[string]map[T]struct{}{}
			fields[r.Field] = values
		}
		vs := r.Values
		if r.Field == "" {
			vs = []string{""}
		}
		for _, v := range vs {
			set := values[v]
			if set == nil {
				set = map[T]struct{}{}
				values[v] = set
			}
			set[t] = struct{}{}
		}
	}
}

// Remove forgets t.
func (x *readIndex[T]) Remove(t T) {
	rs, ok := x.of[t]
	if !ok {
		return
	}
	delete(x.of, t)
	for _, r := range rs {
		fields := x.byColl[r.Coll]
		values := fields[r.Field]
		vs := r.Values
		if r.Field == "" {
			vs = []string{""}
		}
		for _, v := range vs {
			delete(values[v], t)
			if len(values[v]) == 0 {
				delete(values, v)
			}
		}
		if len(values) == 0 {
			delete(fields, r.Field)
		}
		if len(fields) == 0 {
			delete(x.byColl, r.Coll)
		}
	}
}

// Touched calls fn once for each holder whose reads w touches (every holder
// when w is Unknown).
func (x *readIndex[T]) Touched(w *liveset.Writes, fn func(T)) {
	if w.Unknown {
		for t := range x.of {
			fn(t)
		}
		return
	}
	seen := map[T]struct{}{}
	each := func(set map[T]struct{}) {
		for t := range set {
			if _, ok := seen[t]; !ok {
				seen[t] = struct{}{}
				fn(t)
			}
		}
	}
	for coll, cw := range w.Colls {
		for field, values := range x.byColl[coll] {
			if cw.All || field == "" || !slices.Contains(cw.Fields, field) {
				for _, set := range values {
					each(set)
				}
				continue
			}
			for _, v := range cw.Values[field] {
				each(values[v])
			}
		}
	}
}
