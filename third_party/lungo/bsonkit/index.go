package bsonkit

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/bson"
)

// indexEntry is one (key tuple, document) pair stored in the index btree. A
// document with array values at indexed paths produces multiple entries — one
// per element combination — to mirror MongoDB's multikey indexing.
//
// An entry names its document by the sequence number the collection's set
// gave it (Set.Seq), not by its address: an update keeps the number, so an
// updated document whose keys did not change keeps its entries, and the index
// is not written at all. A reader gets the document from the set of its own
// snapshot (Set.Doc), never from the index, so an entry cannot show a
// version of another snapshot.
//
// A pivot is an entry that only positions a walk (Walk): its keys may be
// fewer than the columns, the last one may be a keyBound, and where its keys
// run out it orders before (after false) or after (after true) every entry
// that shares them. A pivot is never stored.
type indexEntry struct {
	keys  []interface{}
	seq   uint64
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

// Index is a basic btree based index for documents, each named by its
// sequence number in the collection's set (see indexEntry). The index is not
// safe from concurrent changes (reads are).
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
// does: by keys, each column in its direction, then by sequence number.
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
	// tiebreak by sequence number so multiple non-unique entries with equal
	// keys can coexist (in natural order); for unique indexes the conflict
	// is detected before insert (number 0, as in a probe, orders first)
	return cmp.Compare(a.seq, b.seq)
}

// Build will build the index from the specified documents, seqs[j] being the
// sequence number of docs[j]. It may return false if there was a unique
// constraint error when building the index, or if a sequence number is
// given twice. If false is returned the index only has some documents added.
//
// An empty index is built in bulk: every entry is computed, sorted once and
// appended to the btree in order (a unique collision is then two neighbours
// with equal keys), which costs one sort instead of the lookups and inserts
// of one Add per document.
func (i *Index) Build(docs List, seqs []uint64) bool {
	if len(docs) != len(seqs) {
		return false
	}
	if i.btree.Len() > 0 || len(docs) < 2 {
		for j, doc := range docs {
			if !i.Add(doc, seqs[j]) {
				return false
			}
		}
		return true
	}

	// reject a number given twice (Add would): neighbours once sorted
	sorted := slices.Clone(seqs)
	slices.Sort(sorted)
	for j := 1; j < len(sorted); j++ {
		if sorted[j] == sorted[j-1] {
			return false
		}
	}

	// compute entries
	entries := make([]indexEntry, 0, len(docs))
	multikey := 0
	for j, doc := range docs {
		tuples, multi := i.tuples(doc)
		if multi {
			multikey++
		}
		for _, t := range tuples {
			entries = append(entries, indexEntry{keys: t, seq: seqs[j]})
		}
	}

	// sort by keys, then sequence number (the btree's order)
	slices.SortFunc(entries, func(a, b indexEntry) int {
		if res := i.compareKeys(a.keys, b.keys); res != 0 {
			return res
		}
		return cmp.Compare(a.seq, b.seq)
	})

	// load in order; equal neighbours are one document's repeated key (kept
	// once, as Add does) or, in a unique index, a collision
	for j, e := range entries {
		if j > 0 && i.compareKeys(entries[j-1].keys, e.keys) == 0 {
			if entries[j-1].seq == e.seq {
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

// Add will add the document, whose sequence number is seq, to the index. May
// return false if the document has already been added or, for unique
// indexes, conflicts with another document.
func (i *Index) Add(doc Doc, seq uint64) bool {
	// get tuples
	tuples, multi := i.tuples(doc)

	// already added?
	if _, ok := i.btree.Get(indexEntry{keys: tuples[0], seq: seq}); ok {
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
		i.btree.Set(indexEntry{keys: t, seq: seq})
	}
	if multi {
		i.multikey++
	}

	return true
}

// Has returns whether the specified document, whose sequence number is seq,
// has been added to the index with its keys. For unique indexes it returns
// true when any document with matching key values is indexed, mirroring
// uniqueness semantics.
func (i *Index) Has(doc Doc, seq uint64) bool {
	// get tuples
	tuples, _ := i.tuples(doc)

	// for unique, check by key only
	if i.unique {
		return i.hasKey(tuples[0])
	}

	// otherwise check by sequence number
	_, ok := i.btree.Get(indexEntry{keys: tuples[0], seq: seq})

	return ok
}

// Remove will remove a document, whose sequence number is seq, from the
// index. May return false if the document has not yet been added to the index
// with its keys.
func (i *Index) Remove(doc Doc, seq uint64) bool {
	// get tuples
	tuples, multi := i.tuples(doc)

	// one entry: delete it and tell whether it was there (one search, not a
	// Get and then a Delete)
	if !multi && len(tuples) == 1 {
		_, ok := i.btree.Delete(indexEntry{keys: tuples[0], seq: seq})
		return ok
	}

	// check if added
	if _, ok := i.btree.Get(indexEntry{keys: tuples[0], seq: seq}); !ok {
		return false
	}

	// remove all entries
	for _, t := range tuples {
		i.btree.Delete(indexEntry{keys: t, seq: seq})
	}
	if multi {
		i.multikey--
	}

	return true
}

// SameKeys reports whether the two documents (two versions of one) have the
// same entries: the same key tuples, compared with Compare. An update that
// keeps a document's keys need not change the index (its entries name the
// document by its sequence number, which an update keeps).
func (i *Index) SameKeys(a, b Doc) bool {
	// no array at an indexed path of either (the common case): compare
	// column by column, without building the tuples
	for _, col := range i.columns {
		va, _ := All(a, col.Path, true, true)
		vb, _ := All(b, col.Path, true, true)
		_, arrayA := va.(bson.A)
		_, arrayB := vb.(bson.A)
		if arrayA || arrayB {
			return i.sameTuples(a, b)
		}
		if Compare(va, vb) != 0 {
			return false
		}
	}
	return true
}

// sameTuples is SameKeys for documents with an array at an indexed path.
func (i *Index) sameTuples(a, b Doc) bool {
	ta, ma := i.tuples(a)
	tb, mb := i.tuples(b)
	if ma != mb || len(ta) != len(tb) {
		return false
	}
	for j := range ta {
		for k := range ta[j] {
			if Compare(ta[j][k], tb[j][k]) != 0 {
				return false
			}
		}
	}
	return true
}

// Seqs will return the sequence numbers of all documents in the index, in
// the index's order. Documents with array values appear once even though
// they are stored under multiple entries.
func (i *Index) Seqs() []uint64 {
	// prepare list and dedup set
	seen := make(map[uint64]struct{}, i.btree.Len())
	list := make([]uint64, 0, i.btree.Len())

	// walk index, dedup by sequence number
	i.btree.Scan(func(e indexEntry) bool {
		if _, ok := seen[e.seq]; !ok {
			seen[e.seq] = struct{}{}
			list = append(list, e.seq)
		}
		return true
	})

	return list
}

// Entries calls fn with every entry's keys (not to be changed) and sequence
// number, in the index's order, until it returns false (for checks: every
// entry of a document whose keys are current, none of another).
func (i *Index) Entries(fn func(keys []interface{}, seq uint64) bool) {
	i.btree.Scan(func(e indexEntry) bool {
		return fn(e.keys, e.seq)
	})
}

// Len returns the number of entries (a document with an array at an indexed
// path has one per element).
func (i *Index) Len() int {
	return i.btree.Len()
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

// Lookup calls fn with the sequence number of every document that has an
// entry whose keys equal the specified keys (one value per column, compared
// with Compare), in natural order, until fn returns false. A document appears
// at most once per key tuple.
func (i *Index) Lookup(keys []interface{}, fn func(seq uint64) bool) {
	// number 0 orders before every other entry with equal keys
	probe := indexEntry{keys: keys}
	i.btree.Ascend(probe, func(e indexEntry) bool {
		for j := range i.columns {
			if Compare(e.keys[j], keys[j]) != 0 {
				return false
			}
		}
		return fn(e.seq)
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

// firstWalkChunk is the size of a walk's first chunk.
const firstWalkChunk = 8

// Walk calls fn, until it returns false, with the sequence numbers of the
// documents of the entries whose first keys equal prefix (one value per
// column, compared with Compare) and, with a range, whose next key is in it:
// in the index's order (each column in its direction, equal keys in natural
// order), or in the reverse order when backward is set. A document is given
// once even if several of its entries qualify (an array at an indexed path),
// at its first entry in the walk's order.
func (i *Index) Walk(prefix []interface{}, r *Range, backward bool, fn func(seq uint64) bool) {
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
	var seen map[uint64]struct{}
	if i.multikey > 0 {
		seen = map[uint64]struct{}{}
	}

	// walk chunk by chunk, each from the last entry taken; the first chunk
	// is small (most walks are lookups of a few entries: the buffer is on
	// the heap, as the callback holds it)
	buf := make([]indexEntry, firstWalkChunk)
	pivot := start
	if backward {
		pivot = end
	}
	for first := true; ; first = false {
		if !first && len(buf) < walkChunk {
			buf = make([]indexEntry, walkChunk)
		}
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
				if _, ok := seen[e.seq]; ok {
					continue
				}
				seen[e.seq] = struct{}{}
			}
			if !fn(e.seq) {
				return
			}
		}
		if n < len(buf) {
			return
		}
		pivot = buf[n-1]
	}
}

// Check verifies the index against the set of its collection (for tests and
// diagnostics): every entry names a document of the set by its sequence
// number and has one of that document's key tuples, every document that
// member accepts (nil: all; a partial index's filter) has an entry for each
// of its key tuples and no other document has one, and the multikey count
// is right. It returns the first disagreement found.
func (i *Index) Check(set *Set, member func(doc Doc) (bool, error)) error {
	// every entry is a current key of a member
	var err error
	i.btree.Scan(func(e indexEntry) bool {
		doc, ok := set.Doc(e.seq)
		if !ok {
			err = fmt.Errorf("entry %v names sequence number %d, which the set does not hold", e.keys, e.seq)
			return false
		}
		if member != nil {
			if in, merr := member(doc); merr != nil || !in {
				err = fmt.Errorf("entry %v names document %d, which the index must not hold (%v)", e.keys, e.seq, merr)
				return false
			}
		}
		tuples, _ := i.tuples(doc)
		for _, t := range tuples {
			if i.compareKeys(t, e.keys) == 0 {
				return true
			}
		}
		err = fmt.Errorf("entry %v of document %d is not one of its keys %v", e.keys, e.seq, tuples)
		return false
	})
	if err != nil {
		return err
	}

	// every member has its entries
	multikey := 0
	set.Ascend(0, func(seq uint64, doc Doc) bool {
		if member != nil {
			in, merr := member(doc)
			if merr != nil {
				err = merr
				return false
			} else if !in {
				return true
			}
		}
		tuples, multi := i.tuples(doc)
		if multi {
			multikey++
		}
		for _, t := range tuples {
			if _, ok := i.btree.Get(indexEntry{keys: t, seq: seq}); !ok {
				err = fmt.Errorf("document %d has no entry for its keys %v", seq, t)
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if multikey != i.multikey {
		return fmt.Errorf("%d documents hold an array at an indexed path, the index counts %d", multikey, i.multikey)
	}

	return nil
}
