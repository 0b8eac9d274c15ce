package bsonkit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"
)

// testIndex is an Index whose documents are named by sequence numbers given
// at first sight of each (a collection's set gives them in lungo), so that
// these tests add, find and remove documents.
type testIndex struct {
	*Index
	seqs map[Doc]uint64
	docs map[uint64]Doc
}

func newTestIndex(unique bool, columns []Column) *testIndex {
	return &testIndex{Index: NewIndex(unique, columns), seqs: map[Doc]uint64{}, docs: map[uint64]Doc{}}
}

func (i *testIndex) seq(doc Doc) uint64 {
	seq, ok := i.seqs[doc]
	if !ok {
		seq = uint64(len(i.seqs) + 1)
		i.seqs[doc] = seq
		i.docs[seq] = doc
	}
	return seq
}

func (i *testIndex) Add(doc Doc) bool    { return i.Index.Add(doc, i.seq(doc)) }
func (i *testIndex) Has(doc Doc) bool    { return i.Index.Has(doc, i.seq(doc)) }
func (i *testIndex) Remove(doc Doc) bool { return i.Index.Remove(doc, i.seq(doc)) }

func (i *testIndex) Clone() *testIndex {
	return &testIndex{Index: i.Index.Clone(), seqs: i.seqs, docs: i.docs}
}

// List gives the documents in the index's order.
func (i *testIndex) List() List {
	list := List{}
	for _, seq := range i.Seqs() {
		list = append(list, i.docs[seq])
	}
	return list
}

func TestIndex(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1"})
	d2 := MustConvert(bson.M{"a": "1"})

	index := newTestIndex(false, []Column{
		{Path: "a"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d1, d2}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())
}

func TestIndexCompound(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1", "b": true})
	d2 := MustConvert(bson.M{"a": "1", "b": false})

	index := newTestIndex(false, []Column{
		{Path: "a"},
		{Path: "b"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2, d1}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.Equal(t, List{}, index.List())
}

func TestIndexUnique(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1"})
	d2 := MustConvert(bson.M{"a": "2"})
	d3 := MustConvert(bson.M{"a": "2"})

	index := newTestIndex(true, []Column{
		{Path: "a"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d1, d2}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())
}

func TestIndexCompoundUnique(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1", "b": true})
	d2 := MustConvert(bson.M{"a": "2", "b": true})
	d3 := MustConvert(bson.M{"a": "2", "b": true})

	index := newTestIndex(true, []Column{
		{Path: "a"},
		{Path: "b"},
	})
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok := index.Add(d1)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d1)
	assert.False(t, ok)
	assert.True(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{d1}, index.List())

	ok = index.Add(d2)
	assert.True(t, ok)
	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d1, d2}, index.List())

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.True(t, index.Has(d3))
	assert.Equal(t, List{d2}, index.List())

	ok = index.Remove(d2)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())

	ok = index.Remove(d2)
	assert.False(t, ok)
	assert.False(t, index.Has(d1))
	assert.False(t, index.Has(d2))
	assert.False(t, index.Has(d3))
	assert.Equal(t, List{}, index.List())
}

func TestIndexClone(t *testing.T) {
	d1 := MustConvert(bson.M{"a": "1"})
	d2 := MustConvert(bson.M{"a": "2"})
	d3 := MustConvert(bson.M{"a": "2"})

	index1 := newTestIndex(false, []Column{
		{Path: "a"},
	})

	ok := index1.Add(d1)
	assert.True(t, ok)

	ok = index1.Add(d2)
	assert.True(t, ok)

	index2 := index1.Clone()

	ok = index2.Add(d3)
	assert.True(t, ok)

	ok = index2.Remove(d1)
	assert.True(t, ok)

	assert.True(t, index1.Has(d1))
	assert.True(t, index1.Has(d2))
	assert.False(t, index1.Has(d3))
	assert.Equal(t, List{d1, d2}, index1.List())

	assert.False(t, index2.Has(d1))
	assert.True(t, index2.Has(d2))
	assert.True(t, index2.Has(d3))
	assert.Equal(t, List{d2, d3}, index2.List())
}

func TestIndexMultiKey(t *testing.T) {
	d1 := MustConvert(bson.M{"tags": bson.A{"x", "y"}})
	d2 := MustConvert(bson.M{"tags": bson.A{"y", "z"}})

	index := newTestIndex(false, []Column{
		{Path: "tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)
	ok = index.Add(d2)
	assert.True(t, ok)

	assert.True(t, index.Has(d1))
	assert.True(t, index.Has(d2))

	// list returns each document once even though d1 and d2 share key "y"
	list := index.List()
	assert.Len(t, list, 2)

	ok = index.Remove(d1)
	assert.True(t, ok)
	assert.False(t, index.Has(d1))
	assert.True(t, index.Has(d2))
	assert.Equal(t, List{d2}, index.List())
}

func TestIndexMultiKeyNested(t *testing.T) {
	// path traverses an array of embedded docs — MongoDB multikey expands
	// each pet's name into a separate index entry
	d1 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"name": "fido"},
		bson.M{"name": "rex"},
	}})
	d2 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"name": "rex"},
	}})

	index := newTestIndex(true, []Column{
		{Path: "pets.name"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	// d2's "rex" collides with d1's "rex" — must be rejected
	ok = index.Add(d2)
	assert.False(t, ok)

	// remove d1 frees both names
	ok = index.Remove(d1)
	assert.True(t, ok)

	ok = index.Add(d2)
	assert.True(t, ok)
}

func TestIndexMultiKeyNestedFlatten(t *testing.T) {
	// path traverses an array of embedded docs whose field is itself an
	// array — MongoDB flattens to a single set of keys
	d1 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"tags": bson.A{"a", "b"}},
		bson.M{"tags": bson.A{"c"}},
	}})
	d2 := MustConvert(bson.M{"pets": bson.A{
		bson.M{"tags": bson.A{"b"}},
	}})

	index := newTestIndex(true, []Column{
		{Path: "pets.tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	// d2's "b" collides with d1's flattened "b" — must be rejected
	ok = index.Add(d2)
	assert.False(t, ok)
}

func TestIndexEmptyArrayDistinctFromMissing(t *testing.T) {
	// {tags: []} and {} must occupy distinct unique-index slots — MongoDB
	// indexes empty arrays under the array sentinel, not under null/missing
	d1 := MustConvert(bson.M{"tags": bson.A{}})
	d2 := MustConvert(bson.M{})

	index := newTestIndex(true, []Column{
		{Path: "tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	ok = index.Add(d2)
	assert.True(t, ok)

	// a second empty-array doc still collides with d1
	d3 := MustConvert(bson.M{"tags": bson.A{}})
	ok = index.Add(d3)
	assert.False(t, ok)
}

func TestIndexMultiKeyUnique(t *testing.T) {
	d1 := MustConvert(bson.M{"tags": bson.A{"x"}})
	d2 := MustConvert(bson.M{"tags": bson.A{"x", "y"}})
	d3 := MustConvert(bson.M{"tags": bson.A{"y", "x"}})
	d4 := MustConvert(bson.M{"tags": bson.A{"z"}})

	index := newTestIndex(true, []Column{
		{Path: "tags"},
	})

	ok := index.Add(d1)
	assert.True(t, ok)

	// d2 overlaps on "x" with d1 — must be rejected
	ok = index.Add(d2)
	assert.False(t, ok)

	// d3 overlaps on "x" with d1 — order doesn't matter
	ok = index.Add(d3)
	assert.False(t, ok)

	// d4 has no overlap — admitted
	ok = index.Add(d4)
	assert.True(t, ok)

	// remove d1, then d2 fits
	ok = index.Remove(d1)
	assert.True(t, ok)

	ok = index.Add(d2)
	assert.True(t, ok)
}

// SameKeys: two versions of a document have the same entries when their key
// tuples compare equal (whatever else changed, whatever the number type),
// and not when a key, an array's elements or multikeyness changed.
func TestIndexSameKeys(t *testing.T) {
	index := NewIndex(false, []Column{{Path: "a"}, {Path: "b", Reverse: true}})
	same := func(x, y bson.M) bool {
		return index.SameKeys(MustConvert(x), MustConvert(y))
	}
	assert.True(t, same(bson.M{"a": 1, "b": "x", "c": 1}, bson.M{"a": 1, "b": "x", "c": 2}))
	assert.True(t, same(bson.M{"a": int32(1)}, bson.M{"a": 1.0}))
	assert.True(t, same(bson.M{"a": bson.A{1, 2}}, bson.M{"a": bson.A{1, 2}, "c": true}))
	assert.False(t, same(bson.M{"a": 1, "b": "x"}, bson.M{"a": 1, "b": "y"}))
	assert.False(t, same(bson.M{"a": 1}, bson.M{"a": 1, "b": "y"}))
	assert.False(t, same(bson.M{"a": bson.A{1, 2}}, bson.M{"a": bson.A{1, 3}}))
	assert.False(t, same(bson.M{"a": bson.A{1}}, bson.M{"a": bson.A{1, 1}}))
	assert.False(t, same(bson.M{"a": bson.A{1}}, bson.M{"a": 1}))
}

// Check finds an entry that does not name a current document or its current
// keys, and a document without its entries.
func TestIndexCheck(t *testing.T) {
	d1 := MustConvert(bson.M{"a": 1})
	d2 := MustConvert(bson.M{"a": 2})
	set := NewSet(List{d1, d2})
	index := NewIndex(false, []Column{{Path: "a"}})
	assert.True(t, index.Build(List{d1, d2}, []uint64{1, 2}))
	assert.NoError(t, index.Check(set, nil))

	// a new version of d2 with another key, the index not told
	d2b := MustConvert(bson.M{"a": 3})
	set2 := set.Clone()
	assert.True(t, set2.Replace(d2, d2b))
	assert.Error(t, index.Check(set2, nil))

	// an entry of a number the set does not hold
	index3 := index.Clone()
	assert.True(t, index3.Add(MustConvert(bson.M{"a": 4}), 9))
	assert.Error(t, index3.Check(set, nil))

	// a member without its entry
	assert.True(t, index.Remove(d1, 1))
	assert.Error(t, index.Check(set, nil))
	assert.NoError(t, index.Check(set, func(doc Doc) (bool, error) { return doc != d1, nil }))
}
