package mongokit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

func mustHas(ok bool, err error) bool {
	if err != nil {
		panic(err.Error())
	}

	return ok
}

// testIndex is an Index whose documents are named by sequence numbers given
// at first sight of each (a collection's set gives them), so that these
// tests add, find and remove documents.
type testIndex struct {
	*Index
	seqs map[bsonkit.Doc]uint64
}

func createTestIndex(config IndexConfig) (*testIndex, error) {
	index, err := CreateIndex(config)
	if err != nil {
		return nil, err
	}
	return &testIndex{Index: index, seqs: map[bsonkit.Doc]uint64{}}, nil
}

func (i *testIndex) seq(doc bsonkit.Doc) uint64 {
	seq, ok := i.seqs[doc]
	if !ok {
		seq = uint64(len(i.seqs) + 1)
		i.seqs[doc] = seq
	}
	return seq
}

func (i *testIndex) Add(doc bsonkit.Doc) (bool, error)    { return i.Index.Add(doc, i.seq(doc)) }
func (i *testIndex) Has(doc bsonkit.Doc) (bool, error)    { return i.Index.Has(doc, i.seq(doc)) }
func (i *testIndex) Remove(doc bsonkit.Doc) (bool, error) { return i.Index.Remove(doc, i.seq(doc)) }

func (i *testIndex) Clone() *testIndex {
	return &testIndex{Index: i.Index.Clone(), seqs: i.seqs}
}

func TestIndex(t *testing.T) {
	index, err := createTestIndex(IndexConfig{
		Key: bsonkit.NewDoc(),
	})
	assert.Error(t, err)
	assert.Nil(t, index)

	d1 := bsonkit.MustConvert(bson.M{"a": "1"})
	d2 := bsonkit.MustConvert(bson.M{"a": "1"})

	index, err = createTestIndex(IndexConfig{
		Key: bsonkit.MustConvert(bson.M{
			"a": int32(1),
		}),
	})
	assert.NoError(t, err)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err := index.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Add(d1)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Add(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
}

func TestIndexCompound(t *testing.T) {
	d1 := bsonkit.MustConvert(bson.M{"a": "1", "b": true})
	d2 := bsonkit.MustConvert(bson.M{"a": "1", "b": false})

	index, err := createTestIndex(IndexConfig{
		Key: bsonkit.MustConvert(bson.M{
			"a": int32(1),
			"b": int32(1),
		}),
	})
	assert.NoError(t, err)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err := index.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Add(d1)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Add(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
}

func TestIndexUnique(t *testing.T) {
	d1 := bsonkit.MustConvert(bson.M{"a": "1"})
	d2 := bsonkit.MustConvert(bson.M{"a": "2"})
	d3 := bsonkit.MustConvert(bson.M{"a": "2"})

	index, err := createTestIndex(IndexConfig{
		Key: bsonkit.MustConvert(bson.M{
			"a": int32(1),
		}),
		Unique: true,
	})
	assert.NoError(t, err)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err := index.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err = index.Add(d1)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err = index.Add(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))
	assert.True(t, mustHas(index.Has(d3)))

	ok, err = index.Remove(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))
	assert.True(t, mustHas(index.Has(d3)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))
}

func TestIndexCompoundUnique(t *testing.T) {
	d1 := bsonkit.MustConvert(bson.M{"a": "1", "b": true})
	d2 := bsonkit.MustConvert(bson.M{"a": "2", "b": true})
	d3 := bsonkit.MustConvert(bson.M{"a": "2", "b": true})

	index, err := createTestIndex(IndexConfig{
		Key: bsonkit.MustConvert(bson.M{
			"a": int32(1),
			"b": int32(1),
		}),
		Unique: true,
	})
	assert.NoError(t, err)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err := index.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err = index.Add(d1)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err = index.Add(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.True(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))
	assert.True(t, mustHas(index.Has(d3)))

	ok, err = index.Remove(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))
	assert.True(t, mustHas(index.Has(d3)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
	assert.False(t, mustHas(index.Has(d3)))
}

func TestIndexClone(t *testing.T) {
	d1 := bsonkit.MustConvert(bson.M{"a": "1"})
	d2 := bsonkit.MustConvert(bson.M{"a": "2"})
	d3 := bsonkit.MustConvert(bson.M{"a": "2"})

	index1, err := createTestIndex(IndexConfig{
		Key: bsonkit.MustConvert(bson.M{
			"a": int32(1),
		}),
	})
	assert.NoError(t, err)

	ok, err := index1.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)

	ok, err = index1.Add(d2)
	assert.NoError(t, err)
	assert.True(t, ok)

	index2 := index1.Clone()

	ok, err = index2.Add(d3)
	assert.NoError(t, err)
	assert.True(t, ok)

	ok, err = index2.Remove(d1)
	assert.NoError(t, err)
	assert.True(t, ok)

	assert.True(t, mustHas(index1.Has(d1)))
	assert.True(t, mustHas(index1.Has(d2)))
	assert.False(t, mustHas(index1.Has(d3)))

	assert.False(t, mustHas(index2.Has(d1)))
	assert.True(t, mustHas(index2.Has(d2)))
	assert.True(t, mustHas(index2.Has(d3)))
}

func TestIndexMultiKeyUnique(t *testing.T) {
	d1 := bsonkit.MustConvert(bson.M{"tags": bson.A{"x"}})
	d2 := bsonkit.MustConvert(bson.M{"tags": bson.A{"x", "y"}})

	index, err := createTestIndex(IndexConfig{
		Key: bsonkit.MustConvert(bson.M{
			"tags": int32(1),
		}),
		Unique: true,
	})
	assert.NoError(t, err)

	ok, err := index.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)

	// d2 overlaps on "x" with d1 — must be rejected
	ok, err = index.Add(d2)
	assert.NoError(t, err)
	assert.False(t, ok)

	ok, err = index.Remove(d1)
	assert.NoError(t, err)
	assert.True(t, ok)

	ok, err = index.Add(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
}

func TestIndexPartial(t *testing.T) {
	d1 := bsonkit.MustConvert(bson.M{"a": "1", "b": 2.0})
	d2 := bsonkit.MustConvert(bson.M{"a": "1", "b": 42.0})

	index, err := createTestIndex(IndexConfig{
		Key: bsonkit.MustConvert(bson.M{
			"a": int32(1),
		}),
		Partial: bsonkit.MustConvert(bson.M{
			"b": bson.M{
				"$gt": 7.0,
			},
		}),
	})
	assert.NoError(t, err)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err := index.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Add(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Add(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d1)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.True(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.True(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))

	ok, err = index.Remove(d2)
	assert.NoError(t, err)
	assert.False(t, ok)
	assert.False(t, mustHas(index.Has(d1)))
	assert.False(t, mustHas(index.Has(d2)))
}

func TestIndexSameOrigin(t *testing.T) {
	config := IndexConfig{Key: bsonkit.MustConvert(bson.M{"a": int32(1)})}
	i1, err := CreateIndex(config)
	assert.NoError(t, err)
	i2, err := CreateIndex(config) // the same configuration, another index
	assert.NoError(t, err)
	assert.True(t, i1.SameOrigin(i1))
	assert.True(t, i1.SameOrigin(i1.Clone().Clone()))
	assert.True(t, i1.Clone().SameOrigin(i1))
	assert.False(t, i1.SameOrigin(i2))
	assert.False(t, i1.Clone().SameOrigin(i2.Clone()))
}
