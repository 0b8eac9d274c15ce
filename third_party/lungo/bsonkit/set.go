package bsonkit

import (
	"sync/atomic"
	"unsafe"

	"github.com/tidwall/btree"
)

// setEntry is one document of a set with its sequence number.
type setEntry struct {
	seq uint64
	doc Doc
}

// Set is a set of unique documents kept in insertion order (the natural
// order of a collection). It is a persistent structure: Clone is O(1) and
// shares everything with the original until either is changed, and a change
// costs O(log n), so a transaction may clone a collection on every write.
//
// Documents are held in two B-trees: one ordered by a sequence number given
// at insertion (the natural order), one ordered by the document's address
// (identity: lungo finds a document's place by its pointer). Replace keeps
// the replaced document's sequence number, so a replaced or updated document
// keeps its place.
//
// A set may be read from many goroutines at once, and cloned while it is
// read: the trees keep their own locks, which Clone needs as it marks the
// original's nodes as shared. Changing one set from two goroutines at once is
// not safe; lungo only changes sets that no other goroutine has seen yet.
type Set struct {
	bySeq  *btree.BTreeG[setEntry]
	byDoc  *btree.BTreeG[setEntry]
	next   uint64 // the sequence number the next added document gets
	origin uint64 // the set this one was cloned from, directly or not
}

// origins numbers the sets made by NewSet.
var origins atomic.Uint64

func lessSeq(a, b setEntry) bool {
	return a.seq < b.seq
}

func lessDoc(a, b setEntry) bool {
	return uintptr(unsafe.Pointer(a.doc)) < uintptr(unsafe.Pointer(b.doc))
}

// NewSet returns a new set from the specified list, in the list's order.
func NewSet(list List) *Set {
	// create set
	set := &Set{
		bySeq:  btree.NewBTreeG[setEntry](lessSeq),
		byDoc:  btree.NewBTreeG[setEntry](lessDoc),
		next:   1,
		origin: origins.Add(1),
	}

	// add documents
	for _, doc := range list {
		set.Add(doc)
	}

	return set
}

// Len returns the number of documents in the set.
func (s *Set) Len() int {
	return s.bySeq.Len()
}

// Has returns whether the document has been added to the set.
func (s *Set) Has(doc Doc) bool {
	_, ok := s.byDoc.Get(setEntry{doc: doc})
	return ok
}

// Seq returns the sequence number of the document, which orders it in the
// set, and whether it has been added.
func (s *Set) Seq(doc Doc) (uint64, bool) {
	e, ok := s.byDoc.Get(setEntry{doc: doc})
	return e.seq, ok
}

// Doc returns the document with the sequence number, and whether there is
// one (an index names its documents by sequence number: this gives the
// set's version of one).
func (s *Set) Doc(seq uint64) (Doc, bool) {
	e, ok := s.bySeq.Get(setEntry{seq: seq})
	return e.doc, ok
}

// Next returns the sequence number the next added document will get: every
// document of the set has a lower one.
func (s *Set) Next() uint64 {
	return s.next
}

// Add will add the document to set, if has not already been added. It may return
// false if the document has already been added.
func (s *Set) Add(doc Doc) bool {
	return s.AddAt(doc, s.next)
}

// AddAt will add the document with the specified sequence number (as read
// back from a file that kept the order). It returns false if the document
// has already been added or the sequence number is taken. Later added
// documents get higher numbers.
func (s *Set) AddAt(doc Doc, seq uint64) bool {
	// check if already added or the place is taken
	if s.Has(doc) {
		return false
	}
	if _, ok := s.bySeq.Get(setEntry{seq: seq}); ok {
		return false
	}

	// add document
	e := setEntry{seq: seq, doc: doc}
	if seq >= s.next {
		s.bySeq.Load(e) // an append: the fast path of the tree
		s.next = seq + 1
	} else {
		s.bySeq.Set(e)
	}
	s.byDoc.Set(e)

	return true
}

// Replace will replace the first document with the second, which takes its
// place in the order. It may return false if the first document has not been
// added or the second already has been added.
func (s *Set) Replace(d1, d2 Doc) bool {
	// get entry
	e, ok := s.byDoc.Get(setEntry{doc: d1})
	if !ok {
		return false
	}

	// check existence
	if s.Has(d2) {
		return false
	}

	// replace document
	s.byDoc.Delete(e)
	e.doc = d2
	s.byDoc.Set(e)
	s.bySeq.Set(e)

	return true
}

// Remove will remove the document from the set. It may return false if the
// document has not been added to the set.
func (s *Set) Remove(doc Doc) bool {
	// get entry
	e, ok := s.byDoc.Delete(setEntry{doc: doc})
	if !ok {
		return false
	}

	// remove document
	s.bySeq.Delete(e)

	return true
}

// List returns the documents in order. The list is new: changing it does not
// change the set.
func (s *Set) List() List {
	list := make(List, 0, s.bySeq.Len())
	s.bySeq.Scan(func(e setEntry) bool {
		list = append(list, e.doc)
		return true
	})
	return list
}

// scanChunk is how many entries a scan takes from a tree at a time: the
// tree's read lock is held for one chunk, not for the whole scan, so that a
// Clone of a set being scanned (which takes the tree's write lock) waits for
// at most one chunk, and fn may use the set.
const scanChunk = 128

// Scan calls fn with every document in order until it returns false.
func (s *Set) Scan(fn func(doc Doc) bool) {
	s.Ascend(0, func(_ uint64, doc Doc) bool {
		return fn(doc)
	})
}

// Ascend calls fn with every document whose sequence number is at least seq,
// in order, until it returns false.
func (s *Set) Ascend(seq uint64, fn func(seq uint64, doc Doc) bool) {
	var buf [scanChunk]setEntry
	for {
		// take a chunk
		n := 0
		s.bySeq.Ascend(setEntry{seq: seq}, func(e setEntry) bool {
			buf[n] = e
			n++
			return n < len(buf)
		})

		// yield it
		for _, e := range buf[:n] {
			if !fn(e.seq, e.doc) {
				return
			}
		}
		if n < len(buf) {
			return
		}
		seq = buf[n-1].seq + 1
	}
}

// First returns the first document in order, or nil.
func (s *Set) First() Doc {
	e, _ := s.bySeq.Min()
	return e.doc
}

// Last returns the last document in order, or nil.
func (s *Set) Last() Doc {
	e, _ := s.bySeq.Max()
	return e.doc
}

// After returns the document that follows doc in order, or nil if doc is the
// last. ok is false if doc is not in the set. A nil doc stands for the start:
// After(nil) is the first document.
func (s *Set) After(doc Doc) (next Doc, ok bool) {
	var seq uint64
	if doc != nil {
		if seq, ok = s.Seq(doc); !ok {
			return nil, false
		}
	}
	s.bySeq.Ascend(setEntry{seq: seq + 1}, func(e setEntry) bool {
		next = e.doc
		return false
	})
	return next, true
}

// Clone will clone the set in O(1). Mutating the new set will not mutate the
// original set, nor the other way round.
func (s *Set) Clone() *Set {
	return &Set{
		bySeq:  s.bySeq.Copy(),
		byDoc:  s.byDoc.Copy(),
		next:   s.next,
		origin: s.origin,
	}
}

// SameOrigin reports whether the two sets are clones of one set made by
// NewSet (directly or through other clones): every difference between them
// was made by Add, Replace or Remove on one of them.
func (s *Set) SameOrigin(o *Set) bool {
	return s.origin == o.origin
}
