package bsonkit

import (
	"cmp"
	"slices"
	"unsafe"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/bson"
)

// indexEntry is one (key tuple, doc) pair stored in the index btree. A document
// with array values at indexed paths produces multiple entries — one per
// element combination — to mirror MongoDB's multikey indexing.
//
// A pivot is an entry that only positions a walk (Walk): its keys may be
// fewer than the columns, the last one may be a keyBound, and where its keys
// run out it orders before (after false) or after (after true) every entry
// that shares them. A pivot is never stored.
type indexEntry struct {
	keys  []interface{}
	doc   Doc
	pivot bool
	after bool
}

// keyBound is a pivot's key that orders just before or just after a value
// (hasValue) or all the values of a class, in Compare's order. It never
// equals a key.
type keyBound struct {
	value    interface{}
	hasValue bool
	class    Class
	after    bool
}

// compare orders the bound with the key x.
func (b keyBound) compare(x interface{}) int {
	var res int
	if b.hasValue {
		res = Compare(b.value, x)
	} else {
		xc, _ := Inspect(x)
		res = cmp.Compare(b.class, xc)
	}
	if res != 0 {
		return res
	}
	if b.after {
		return 1
	}
	return -1
}

// compareKey is Compare, with keyBound on either side.
func compareKey(a, b interface{}) int {
	if ab, ok := a.(keyBound); ok {
		return ab.compare(b)
	}
	if bb, ok := b.(keyBound); ok {
		return -bb.compare(a)
	}
	return Compare(a, b)
}

// Index is a basic btree based index for documents. The index is not safe from
// concurrent access.
type Index struct {
	unique  bool
	columns []Column
	btree   *btree.BTreeG[indexEntry]

	// multikey counts the documents with an array at an indexed path (one
	// entry per element): while there is one, a document may have several
	// entries and the index's order is not a sort's order.
	multikey int
}

// indexDegree is the degree of an index's B-tree: tidwall/btree's default,
// 32 (nodes of up to 63 entries). Degree 8 copies about 30% fewer bytes per
// update in an index-heavy collection (BenchmarkEngineUpdateIndexed: 15% less
// time) but made the open of a database file 10-25% slower and left the
// vote row of make bench-engine where it was, so the default stays.
const indexDegree = 32

// NewIndex creates and returns a new index.
func NewIndex(unique bool, columns []Column) *Index {
	// prepare less function
	less := func(a, b indexEntry) bool {
		return compareEntries(columns, a, b) < 0
	}

	return &Index{
		btree:   btree.NewBTreeGOptions[indexEntry](less, btree.Options{Degree: indexDegree}),
		columns: columns,
		unique:  unique,
	}
}

// compareEntries orders two entries (or an entry and a pivot) as the btree
// does: by keys, each column in its direction, then by document identity.
func compareEntries(columns []Column, a, b indexEntry) int {
	for i, col := range columns {
		if i == len(a.keys) || i == len(b.keys) {
			break
		}
		var res int
		if a.pivot || b.pivot {
			res = compareKey(a.keys[i], b.keys[i])
		} else {
			res = Compare(a.keys[i], b.keys[i])
		}
		if col.Reverse {
			res = -res
		}
		if res != 0 {
			return res
		}
	}
	// a pivot orders before or after every entry that shares its keys
	if a.pivot {
		if a.after {
			return 1
		}
		return -1
	}
	if b.pivot {
		if b.after {
			return -1
		}
		return 1
	}
	// tiebreak by document identity so multiple non-unique entries with
	// equal keys can coexist; for unique indexes the conflict is detected
	// before insert (a nil document, as in a probe, orders first)
	return cmp.Compare(uintptr(unsafe.Pointer(a.doc)), uintptr(unsafe.Pointer(b.doc)))
}

// Build will build the index from the specified list. It may return false if
// there was a unique constraint error when building the index, or if the list
// holds a document twice. If false is returned the index only has some
// documents added.
//
// An empty index is built in bulk: every entry is computed, sorted once and
// appended to the btree in order (a unique collision is then two neighbours
// with equal keys), which costs one sort instead of the lookups and inserts
// of one Add per document.
func (i *Index) Build(list List) bool {
	if i.btree.Len() > 0 || len(list) < 2 {
		for _, doc := range list {
			if !i.Add(doc) {
				return false
			}
		}
		return true
	}

	// reject a document listed twice (Add would): neighbours once sorted
	ptrs := make([]uintptr, len(list))
	for j, doc := range list {
		ptrs[j] = uintptr(unsafe.Pointer(doc))
	}
	slices.Sort(ptrs)
	for j := 1; j < len(ptrs); j++ {
		if ptrs[j] == ptrs[j-1] {
			return false
		}
	}

	// compute entries
	entries := make([]indexEntry, 0, len(list))
	multikey := 0
	for _, doc := range list {
		tuples, multi := i.tuples(doc)
		if multi {
			multikey++
		}
		for _, t := range tuples {
			entries = append(entries, indexEntry{keys: t, doc: doc})
		}
	}

	// sort by keys, then document identity (the btree's order)
	slices.SortFunc(entries, func(a, b indexEntry) int {
		if res := i.compareKeys(a.keys, b.keys); res != 0 {
			return res
		}
		return cmp.Compare(uintptr(unsafe.Pointer(a.doc)), uintptr(unsafe.Pointer(b.doc)))
	})

	// load in order; equal neighbours are one document's repeated key (kept
	// once, as Add does) or, in a unique index, a collision
	for j, e := range entries {
		if j > 0 && i.compareKeys(entries[j-1].keys, e.keys) == 0 {
			if entries[j-1].doc == e.doc {
				continue
			}
			if i.unique {
				return false
			}
		}
		i.btree.Load(e)
	}
	i.multikey = multikey

	return true
}

// compareKeys orders two key tuples as the btree does.
func (i *Index) compareKeys(a, b []interface{}) int {
	for j, col := range i.columns {
		res := Compare(a[j], b[j])
		if col.Reverse {
			res = -res
		}
		if res != 0 {
			return res
		}
	}
	return 0
}

// Add will add the document to index. May return false if the document has
// already been added or, for unique indexes, conflicts with another document.
func (i *Index) Add(doc Doc) bool {
	// get tuples
	tuples, multi := i.tuples(doc)

	// already added?
	if _, ok := i.btree.Get(indexEntry{keys: tuples[0], doc: doc}); ok {
		return false
	}

	// for unique, ensure no key collides with another doc
	if i.unique {
		for _, t := range tuples {
			if i.hasKey(t) {
				return false
			}
		}
	}

	// add tuples
	for _, t := range tuples {
		i.btree.Set(indexEntry{keys: t, doc: doc})
	}
	if multi {
		i.multikey++
	}

	return true
}

// Has returns whether the specified document has been added to the index. For
// unique indexes it returns true when any document with matching key values is
// indexed, mirroring uniqueness semantics.
func (i *Index) Has(doc Doc) bool {
	// get tuples
	tuples, _ := i.tuples(doc)

	// for unique, check by key only
	if i.unique {
		return i.hasKey(tuples[0])
	}

	// otherwise check by identity
	_, ok := i.btree.Get(indexEntry{keys: tuples[0], doc: doc})

	return ok
}

// Remove will remove a document from the index. May return false if the
// document has not yet been added to the index.
func (i *Index) Remove(doc Doc) bool {
	// get tuples
	tuples, multi := i.tuples(doc)

	// one entry: delete it and tell whether it was there (one search, not a
	// Get and then a Delete)
	if !multi && len(tuples) == 1 {
		_, ok := i.btree.Delete(indexEntry{keys: tuples[0], doc: doc})
		return ok
	}

	// check if added
	if _, ok := i.btree.Get(indexEntry{keys: tuples[0], doc: doc}); !ok {
		return false
	}

	// remove all entries
	for _, t := range tuples {
		i.btree.Delete(indexEntry{keys: t, doc: doc})
	}
	if multi {
		i.multikey--
	}

	return true
}

// List will return an ascending list of all documents in the index. Documents
// with array values appear once even though they are stored under multiple
// entries.
func (i *Index) List() List {
	// prepare list and dedup set
	seen := make(map[Doc]struct{}, i.btree.Len())
	list := make(List, 0, i.btree.Len())

	// walk index, dedup by doc
	i.btree.Scan(func(e indexEntry) bool {
		if _, ok := seen[e.doc]; !ok {
			seen[e.doc] = struct{}{}
			list = append(list, e.doc)
		}
		return true
	})

	return list
}

// Clone will clone the index. Mutating the new index will not mutate the original
// index.
func (i *Index) Clone() *Index {
	// create clone
	clone := &Index{
		btree:    i.btree.Copy(),
		columns:  i.columns,
		unique:   i.unique,
		multikey: i.multikey,
	}

	return clone
}

// tuples generates the index keys for a document. Array values at indexed
// paths are expanded one element per tuple, taking the Cartesian product
// across columns to mirror MongoDB's multikey indexing. Always returns at
// least one tuple. multi is whether an indexed path holds an array.
//
// TODO: Reject parallel arrays — MongoDB errors when a compound index would
// need to be multikey on more than one field of the same document.
func (i *Index) tuples(doc Doc) (tuples [][]interface{}, multi bool) {
	// no array at any indexed path (the common case): one tuple, allocated
	// once (an open builds every index of every document through here)
	keys := make([]interface{}, len(i.columns))
	for j, col := range i.columns {
		v, _ := All(doc, col.Path, true, true)
		if _, ok := v.(bson.A); ok {
			return i.expand(doc)
		}
		keys[j] = v
	}
	return [][]interface{}{keys}, false
}

// expand is tuples for a document with an array at an indexed path.
func (i *Index) expand(doc Doc) (tuples [][]interface{}, multi bool) {
	// start with one empty tuple
	tuples = [][]interface{}{
		make([]interface{}, 0, len(i.columns)),
	}

	// extend with each column
	for _, col := range i.columns {
		// get value at path, collecting through arrays of embedded documents
		// and flattening nested arrays so multikey works on paths like
		// "pets.name" or "pets.tags"
		v, _ := All(doc, col.Path, true, true)

		// expand arrays; an empty array indexes under itself, distinct from
		// Missing, matching MongoDB's empty-array key
		var values []interface{}
		if a, ok := v.(bson.A); ok {
			multi = true
			if len(a) == 0 {
				values = []interface{}{a}
			} else {
				values = a
			}
		} else {
			values = []interface{}{v}
		}

		// extend tuples with Cartesian product
		next := make([][]interface{}, 0, len(tuples)*len(values))
		for _, t := range tuples {
			for _, val := range values {
				nt := make([]interface{}, len(t)+1)
				copy(nt, t)
				nt[len(t)] = val
				next = append(next, nt)
			}
		}
		tuples = next
	}

	return tuples, multi
}

// hasKey returns whether any entry with the given key tuple exists. It is
// used to detect unique-index collisions independent of document identity.
func (i *Index) hasKey(keys []interface{}) bool {
	// probe ascending from a nil-doc entry to land on the smallest entry
	// with matching keys (any doc) or, if none match, the next greater entry
	probe := indexEntry{keys: keys}

	// check first item for key equality
	var found bool
	i.btree.Ascend(probe, func(e indexEntry) bool {
		for j := range i.columns {
			if Compare(e.keys[j], keys[j]) != 0 {
				return false
			}
		}
		found = true
		return false
	})

	return found
}

// Lookup calls fn with every document that has an entry whose keys equal the
// specified keys (one value per column, compared with Compare), until fn
// returns false. A document appears at most once per key tuple.
func (i *Index) Lookup(keys []interface{}, fn func(doc Doc) bool) {
	// a nil document orders before every other entry with equal keys
	probe := indexEntry{keys: keys}
	i.btree.Ascend(probe, func(e indexEntry) bool {
		for j := range i.columns {
			if Compare(e.keys[j], keys[j]) != 0 {
				return false
			}
		}
		return fn(e.doc)
	})
}

// Multikey reports whether a document of the index holds an array at an
// indexed path: its entries are then one per element (a document may have
// several), and a walk's order is not the order of a sort on the columns.
func (i *Index) Multikey() bool {
	return i.multikey > 0
}

// Bound is one end of a Range.
type Bound struct {
	Value     interface{}
	Inclusive bool
}

// Range is the keys of one class (Inspect) between two bounds, in Compare's
// order; a nil bound leaves that side open up to the class's end.
type Range struct {
	Class     Class
	Low, High *Bound
}

// walkChunk is how many entries a walk takes from the btree at a time (its
// read lock is held for one chunk only, and fn may use the index).
const walkChunk = 128

// Walk calls fn, until it returns false, with the documents of the entries
// whose first keys equal prefix (one value per column, compared with
// Compare) and, with a range, whose next key is in it: in the index's order
// (each column in its direction), or in the reverse order when backward is
// set. A document is given once even if several of its entries qualify (an
// array at an indexed path), at its first entry in the walk's order.
func (i *Index) Walk(prefix []interface{}, r *Range, backward bool, fn func(doc Doc) bool) {
	// the pivots before the first and after the last entry, in the btree's
	// order
	start := indexEntry{keys: prefix, pivot: true}
	end := indexEntry{keys: prefix, pivot: true, after: true}
	if r != nil && len(prefix) < len(i.columns) {
		low := keyBound{class: r.Class}
		if r.Low != nil {
			low = keyBound{value: r.Low.Value, hasValue: true, after: !r.Low.Inclusive}
		}
		high := keyBound{class: r.Class, after: true}
		if r.High != nil {
			high = keyBound{value: r.High.Value, hasValue: true, after: r.High.Inclusive}
		}
		if i.columns[len(prefix)].Reverse {
			low, high = high, low
		}
		start.keys = append(prefix[:len(prefix):len(prefix)], low)
		end.keys = append(prefix[:len(prefix):len(prefix)], high)
	}

	// documents already given (only an array makes several entries)
	var seen map[Doc]struct{}
	if i.multikey > 0 {
		seen = map[Doc]struct{}{}
	}

	// walk chunk by chunk, each from the last entry taken
	var buf [walkChunk]indexEntry
	pivot := start
	if backward {
		pivot = end
	}
	for first := true; ; first = false {
		n := 0
		take := func(e indexEntry) bool {
			if !first && n == 0 && compareEntries(i.columns, e, pivot) == 0 {
				return true // the last entry of the previous chunk
			}
			if backward && compareEntries(i.columns, e, start) < 0 || !backward && compareEntries(i.columns, e, end) > 0 {
				return false
			}
			buf[n] = e
			n++
			return n < len(buf)
		}
		if backward {
			i.btree.Descend(pivot, take)
		} else {
			i.btree.Ascend(pivot, take)
		}
		for _, e := range buf[:n] {
			if seen != nil {
				if _, ok := seen[e.doc]; ok {
					continue
				}
				seen[e.doc] = struct{}{}
			}
			if !fn(e.doc) {
				return
			}
		}
		if n < len(buf) {
			return
		}
		pivot = buf[n-1]
	}
}
