package querylog

// The index coverage check: would a production MongoDB serve each recorded
// query (querylog.go) from the indexes created on its collection?
//
// The rules are MongoDB's query planner's, reduced to what decides between an
// index scan and a collection scan, and to the ESR rule (equality, sort,
// range) for the order of an index's keys:
//   - An equality on _id finds one document through the _id index.
//   - An index can serve a filter only through its first key: the filter
//     must constrain it by an equality ($eq, $in, null, $exists: false) or a
//     bounded range ($gt, $lte..., an anchored regex, $elemMatch). $ne, $nin,
//     $exists: true and an unanchored regex select nothing by themselves;
//     $expr, $where and the like no index serves.
//   - A partial index serves only a filter that implies its partial filter.
//   - A sort comes from an index whose keys are the sort's, in order and all
//     in the same or all in the opposite direction, with only equality-bound
//     keys before or between them (a range key before them breaks it).
//     Otherwise the matching documents are sorted in memory: refused too.
//     Sort keys bound by a single equality are constants and drop out.
//   - An index that gives the order but not the filter answers an
//     unfiltered sorted listing with a limit (walked in order, cut by the
//     limit), and nothing else: without a limit, or with a filter it does not
//     serve, it reads every document.
//   - An equality on every key of a unique index finds at most one document
//     (an $in, as many as its values), whatever the sort.
//   - $or is served when each branch (with the conditions around it) is.
// A query meant to scan says so with store.Scan and its reason.

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
)

// PredKind says what an index can do with a condition on a field.
type PredKind int

// The kinds, from the most useful to an index to the least.
const (
	PredEq    PredKind = iota // equality: one point, or a few ($in)
	PredRange                 // a bounded range
	PredOpen                  // index-eligible, but selects nothing by itself ($ne, $exists: true...)
	PredNone                  // no index serves it ($expr, $where, $size...)
)

func (k PredKind) String() string {
	return [...]string{"eq", "range", "open", "none"}[k]
}

// Pred is the condition on one field of a filter.
type Pred struct {
	Field string
	Kind  PredKind
	Multi bool // an $in of several values (not a constant for a sort)
	// Cond is the condition as extended JSON, to compare with a partial
	// index's filter.
	Cond    string
	NonNull bool // it matches no missing or null value
}

// Filter is a filter's shape: a conjunction of field conditions and of
// disjunctions ($or).
type Filter struct {
	Preds []Pred
	Ors   [][]Filter
}

// String is the shape's canonical form (field names and kinds, no values).
func (f Filter) String() string {
	if len(f.Preds) == 0 && len(f.Ors) == 0 {
		return "{}"
	}
	var parts []string
	for _, p := range f.Preds {
		s := p.Field + ":" + p.Kind.String()
		if p.Multi {
			s += "*"
		}
		parts = append(parts, s)
	}
	slices.Sort(parts)
	for _, group := range f.Ors {
		var bs []string
		for _, b := range group {
			bs = append(bs, b.String())
		}
		parts = append(parts, "$or["+strings.Join(bs, "|")+"]")
	}
	return "{" + strings.Join(parts, ",") + "}"
}

// ParseFilter reads a filter's shape.
func ParseFilter(filter any) (Filter, error) {
	if filter == nil {
		return Filter{}, nil
	}
	var raw bson.Raw
	switch v := filter.(type) {
	case bson.Raw:
		raw = v
	case []byte:
		raw = v
	default:
		b, err := bson.Marshal(filter)
		if err != nil {
			return Filter{}, err
		}
		raw = b
	}
	var f Filter
	if err := f.add(raw); err != nil {
		return Filter{}, err
	}
	return f, nil
}

// add adds the conditions of doc to the conjunction f.
func (f *Filter) add(doc bson.Raw) error {
	elems, err := doc.Elements()
	if err != nil {
		return err
	}
	for _, e := range elems {
		key, v := e.Key(), e.Value()
		switch key {
		case "$and":
			docs, err := docsOf(v)
			if err != nil {
				return fmt.Errorf("$and: %w", err)
			}
			for _, d := range docs {
				if err := f.add(d); err != nil {
					return err
				}
			}
		case "$or":
			docs, err := docsOf(v)
			if err != nil {
				return fmt.Errorf("$or: %w", err)
			}
			var group []Filter
			for _, d := range docs {
				var b Filter
				if err := b.add(d); err != nil {
					return err
				}
				group = append(group, b)
			}
			f.Ors = append(f.Ors, group)
		case "$comment":
		default:
			if strings.HasPrefix(key, "$") { // $nor, $expr, $where, $text...
				f.merge(Pred{Field: key, Kind: PredNone, Cond: v.String()})
				continue
			}
			f.merge(classify(key, v))
		}
	}
	return nil
}

func docsOf(v bson.RawValue) ([]bson.Raw, error) {
	arr, ok := v.ArrayOK()
	if !ok {
		return nil, errors.New("not an array")
	}
	vals, err := arr.Values()
	if err != nil {
		return nil, err
	}
	out := make([]bson.Raw, len(vals))
	for i, x := range vals {
		d, ok := x.DocumentOK()
		if !ok {
			return nil, errors.New("not an array of documents")
		}
		out[i] = d
	}
	return out, nil
}

// merge adds p to the conjunction: two conditions on one field keep the
// more useful kind.
func (f *Filter) merge(p Pred) {
	for i, q := range f.Preds {
		if q.Field != p.Field {
			continue
		}
		if p.Kind < q.Kind || (p.Kind == q.Kind && q.Multi && !p.Multi) {
			p.NonNull = p.NonNull || q.NonNull
			f.Preds[i] = p
		} else {
			f.Preds[i].NonNull = p.NonNull || q.NonNull
		}
		return
	}
	f.Preds = append(f.Preds, p)
}

// classify reads the condition v on field.
func classify(field string, v bson.RawValue) Pred {
	p := Pred{Field: field, Cond: v.String()}
	doc, isDoc := v.DocumentOK()
	if !isDoc || !operatorDoc(doc) {
		switch {
		case v.Type == bsontype.Regex:
			pattern, _ := v.Regex()
			p.Kind = regexKind(pattern)
			p.NonNull = true
		default:
			p.Kind = PredEq
			p.NonNull = v.Type != bsontype.Null && v.Type != bsontype.Undefined
		}
		return p
	}
	p.Kind = PredNone
	better := func(k PredKind) {
		if k < p.Kind {
			p.Kind = k
		}
	}
	elems, _ := doc.Elements()
	for _, e := range elems {
		ov := e.Value()
		switch e.Key() {
		case "$eq":
			better(PredEq)
			p.NonNull = p.NonNull || (ov.Type != bsontype.Null && ov.Type != bsontype.Undefined)
		case "$in":
			better(PredEq)
			if arr, ok := ov.ArrayOK(); ok {
				vals, _ := arr.Values()
				p.Multi = len(vals) > 1
				nonNull := true
				for _, x := range vals {
					nonNull = nonNull && x.Type != bsontype.Null
				}
				p.NonNull = p.NonNull || nonNull
			}
		case "$gt", "$gte", "$lt", "$lte", "$elemMatch", "$all":
			better(PredRange)
			p.NonNull = true
		case "$regex":
			pattern := ""
			if s, ok := ov.StringValueOK(); ok {
				pattern = s
			} else if r, _, ok := ov.RegexOK(); ok {
				pattern = r
			}
			better(regexKind(pattern))
			p.NonNull = true
		case "$exists":
			if exists(ov) {
				better(PredOpen)
				p.NonNull = true
			} else {
				better(PredEq) // the index's null entries
			}
		case "$ne", "$nin", "$not":
			better(PredOpen)
		case "$options":
		default: // $size, $type, $mod, geo operators...
		}
	}
	return p
}

// exists reads the value of $exists (true, 1...).
func exists(v bson.RawValue) bool {
	if b, ok := v.BooleanOK(); ok {
		return b
	}
	if n, ok := v.AsInt64OK(); ok {
		return n != 0
	}
	return true
}

func operatorDoc(doc bson.Raw) bool {
	e, err := doc.IndexErr(0)
	return err == nil && strings.HasPrefix(e.Key(), "$")
}

// regexKind: an anchored prefix (^abc) bounds an index scan; anything else
// reads the whole index.
func regexKind(pattern string) PredKind {
	if len(pattern) > 1 && pattern[0] == '^' && !strings.ContainsAny(pattern[1:2], `.*+?()[]{}|\^$`) {
		return PredRange
	}
	return PredOpen
}

// parseKeys reads a sort or an index's keys (a document of field: 1 or -1).
func parseKeys(keys any) ([]SortKey, error) {
	if keys == nil {
		return nil, nil
	}
	b, err := bson.Marshal(keys)
	if err != nil {
		return nil, err
	}
	elems, err := bson.Raw(b).Elements()
	if err != nil {
		return nil, err
	}
	out := make([]SortKey, 0, len(elems))
	for _, e := range elems {
		dir := 0
		switch v := e.Value(); v.Type {
		case bsontype.Int32:
			dir = int(v.Int32())
		case bsontype.Int64:
			dir = int(v.Int64())
		case bsontype.Double:
			dir = int(v.Double())
		default: // "text", "2dsphere", a $meta sort...: not an ordering
			return nil, fmt.Errorf("key %s: %s is not 1 or -1", e.Key(), v)
		}
		if dir >= 0 {
			dir = 1
		} else {
			dir = -1
		}
		out = append(out, SortKey{Field: e.Key(), Dir: dir})
	}
	return out, nil
}

// Problem is a query a production MongoDB would not serve from an index.
type Problem struct {
	Query  Query
	Reason string
}

func (p Problem) String() string {
	q := p.Query
	s := fmt.Sprintf("%s.%s %s %s", q.Database, q.Collection, q.Op, q.Filter)
	if len(q.Sort) > 0 {
		s += " sort " + keySignature(q.Sort)
	}
	return fmt.Sprintf("%s: %s\n    e.g. %s (%d×)\n    at %s", s, p.Reason, q.Example, q.Count, strings.Join(q.Callers, "; "))
}

// Check returns the recorded queries a production MongoDB would answer with
// a collection scan or an in-memory sort, except those declared meant to
// scan (store.Scan), and what could not be read.
func (l *QueryLog) Check() []Problem {
	var out []Problem
	for _, q := range l.Queries() {
		if q.Scan != "" {
			continue
		}
		if reason := Serve(q.Filter, q.Sort, q.Limited, l.Indexes(q.Database, q.Collection)); reason != "" {
			out = append(out, Problem{Query: q, Reason: reason})
		}
	}
	l.mu.Lock()
	for _, b := range l.bad {
		out = append(out, Problem{Reason: b})
	}
	l.mu.Unlock()
	return out
}

// idIndex is the index every collection has.
var idIndex = IndexSpec{Name: "_id_", Keys: []SortKey{{Field: "_id", Dir: 1}}, Unique: true}

// Serve returns "" when the indexes (besides _id's) serve filter sorted by
// sort (limited: with a limit), or why not.
func Serve(f Filter, sort []SortKey, limited bool, indexes []IndexSpec) string {
	idx := append([]IndexSpec{idIndex}, indexes...)
	reason := serveConj(f.Preds, sort, limited, idx)
	if reason == "" {
		return ""
	}
	for gi, group := range f.Ors {
		served := true
		for _, b := range group {
			branch := Filter{Preds: slices.Clone(f.Preds)}
			for _, p := range b.Preds {
				branch.merge(p)
			}
			branch.Ors = append(slices.Clone(f.Ors[:gi]), f.Ors[gi+1:]...)
			branch.Ors = append(branch.Ors, b.Ors...)
			if Serve(branch, sort, limited, indexes) != "" {
				served = false
				break
			}
		}
		if served {
			return ""
		}
	}
	return reason
}

// serveConj is Serve for a conjunction.
func serveConj(preds []Pred, sort []SortKey, limited bool, idx []IndexSpec) string {
	by := map[string]Pred{}
	var indexable []string
	for _, p := range preds {
		by[p.Field] = p
		if p.Kind == PredEq || p.Kind == PredRange {
			indexable = append(indexable, p.Field)
		}
	}
	slices.Sort(indexable)
	var eff []SortKey // the sort without its constants
	for _, k := range sort {
		if p, ok := by[k.Field]; ok && p.Kind == PredEq && !p.Multi {
			continue
		}
		eff = append(eff, k)
	}
	anySelective, anyOrder := false, false
	for _, ix := range idx {
		if ix.Partial != nil && !implies(by, *ix.Partial) {
			continue
		}
		if ix.Unique && allEqual(ix, by) {
			return "" // at most one document (a few with $in): sorted in memory at no cost
		}
		lead, ok := by[ix.Keys[0].Field]
		selective := ok && (lead.Kind == PredEq || lead.Kind == PredRange)
		ordered := len(eff) == 0 || gives(ix, eff, by)
		if selective && ordered {
			return ""
		}
		anySelective = anySelective || selective
		anyOrder = anyOrder || (len(eff) > 0 && ordered)
	}
	switch {
	case len(indexable) == 0 && anyOrder && limited:
		return "" // an unfiltered sorted listing, walked along an index up to the limit
	case len(indexable) == 0 && anyOrder:
		return "reads every document (in an index's order, without a limit): declare it with store.Scan if meant"
	case len(indexable) == 0 && len(preds) == 0:
		return "collection scan: no filter (declare it with store.Scan if meant)"
	case len(indexable) == 0:
		return fmt.Sprintf("collection scan: nothing an index can select on (%s)", Filter{Preds: preds})
	case !anySelective:
		return fmt.Sprintf("collection scan: no index starts with any of %v", indexable)
	default:
		var eq []string
		for _, p := range preds {
			if p.Kind == PredEq {
				eq = append(eq, p.Field)
			}
		}
		slices.Sort(eq)
		return fmt.Sprintf("in-memory sort: no index has the equality fields %v (any order), then the sort %s", eq, keySignature(eff))
	}
}

// allEqual reports an equality (or an $in) on each of ix's keys.
func allEqual(ix IndexSpec, by map[string]Pred) bool {
	for _, k := range ix.Keys {
		if p, ok := by[k.Field]; !ok || p.Kind != PredEq {
			return false
		}
	}
	return true
}

// gives reports that walking ix yields the order sort, given the filter's
// equalities.
func gives(ix IndexSpec, sort []SortKey, by map[string]Pred) bool {
	j, sign := 0, 0
	for _, k := range ix.Keys {
		if j == len(sort) {
			break
		}
		if k.Field == sort[j].Field {
			s := k.Dir * sort[j].Dir
			if sign != 0 && s != sign {
				return false
			}
			sign = s
			j++
			continue
		}
		if p, ok := by[k.Field]; ok && p.Kind == PredEq {
			continue
		}
		return false
	}
	return j == len(sort)
}

// implies reports that conditions by imply the partial filter: each of its
// conditions is in by, or is {$exists: true} and by's condition matches no
// missing or null value.
func implies(by map[string]Pred, partial Filter) bool {
	if len(partial.Ors) > 0 {
		return false
	}
	for _, pp := range partial.Preds {
		q, ok := by[pp.Field]
		if !ok {
			return false
		}
		if sameCond(q.Cond, pp.Cond) {
			continue
		}
		if pp.Kind == PredOpen && pp.NonNull && strings.Contains(pp.Cond, "$exists") && q.NonNull {
			continue
		}
		return false
	}
	return true
}

// sameCond compares two conditions written as extended JSON, ignoring
// spaces.
func sameCond(a, b string) bool {
	strip := func(s string) []byte {
		return bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\t' {
				return -1
			}
			return r
		}, []byte(s))
	}
	return bytes.Equal(strip(a), strip(b))
}
