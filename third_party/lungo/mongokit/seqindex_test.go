package mongokit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

// seqTestCollection has a plain, a unique, a compound and a partial index
// over ten documents.
func seqTestCollection(t *testing.T) *Collection {
	c := NewCollection(true)
	for name, config := range map[string]IndexConfig{
		"s":      {Key: bsonkit.MustConvert(bson.M{"s": 1})},
		"u":      {Key: bsonkit.MustConvert(bson.M{"u": 1}), Unique: true},
		"s_n":    {Key: &bson.D{{Key: "s", Value: int32(1)}, {Key: "n", Value: int32(-1)}}},
		"p_when": {Key: bsonkit.MustConvert(bson.M{"n": 1}), Partial: bsonkit.MustConvert(bson.M{"on": true})},
	} {
		_, err := c.CreateIndex(name, config)
		require.NoError(t, err)
	}
	for i := 0; i < 10; i++ {
		_, err := c.Insert(bsonkit.MustConvert(bson.M{"_id": i, "s": []string{"a", "b"}[i%2], "u": i, "n": i, "on": i < 5, "v": 0}))
		require.NoError(t, err)
	}
	require.NoError(t, c.Check())
	return c
}

func writes(c *Collection) map[string]int {
	out := map[string]int{}
	for name, index := range c.Indexes {
		out[name] = index.writes
	}
	return out
}

// An update (or replacement) writes only the indexes whose entries of the
// document change: its keys, or whether a partial index holds it. The others
// are not written at all (their entries name the document by its sequence
// number, which the new version keeps).
func TestUpdateWritesOnlyChangedIndexes(t *testing.T) {
	c := seqTestCollection(t)
	before := writes(c)

	// a field no index holds: no index written
	res, err := c.Update(bsonkit.MustConvert(bson.M{"_id": 3}), bsonkit.MustConvert(bson.M{"$set": bson.M{"v": 1}}), nil, 0, 0, nil)
	require.NoError(t, err)
	require.Len(t, res.Modified, 1)
	assert.Equal(t, before, writes(c))
	require.NoError(t, c.Check())

	// an equal key of another type (1 and 1.0 are one key): none either
	_, err = c.Update(bsonkit.MustConvert(bson.M{"_id": 1}), bsonkit.MustConvert(bson.M{"$set": bson.M{"n": 1.0}}), nil, 0, 0, nil)
	require.NoError(t, err)
	assert.Equal(t, before, writes(c))
	require.NoError(t, c.Check())

	// n: the two indexes on it take a remove and an add, the others none
	_, err = c.Update(bsonkit.MustConvert(bson.M{"_id": 3}), bsonkit.MustConvert(bson.M{"$set": bson.M{"n": 30}}), nil, 0, 0, nil)
	require.NoError(t, err)
	after := writes(c)
	assert.Equal(t, before["_id_"], after["_id_"])
	assert.Equal(t, before["s"], after["s"])
	assert.Equal(t, before["u"], after["u"])
	assert.Equal(t, before["s_n"]+2, after["s_n"])
	assert.Equal(t, before["p_when"]+2, after["p_when"])
	require.NoError(t, c.Check())

	// leaving the partial index: it is written, the others are not
	before = after
	_, err = c.Replace(bsonkit.MustConvert(bson.M{"_id": 3}), bsonkit.MustConvert(bson.M{"s": "b", "u": 3, "n": 30, "on": false, "v": 1}), nil)
	require.NoError(t, err)
	after = writes(c)
	assert.Equal(t, before["s"], after["s"])
	assert.Equal(t, before["s_n"], after["s_n"])
	assert.Equal(t, before["p_when"]+1, after["p_when"]) // the remove (the filter skips the add)
	require.NoError(t, c.Check())

	// the finds the indexes serve give the current versions
	res, err = c.Find(bsonkit.MustConvert(bson.M{"s": "b", "n": 30}), nil, 0, 0)
	require.NoError(t, err)
	require.Len(t, res.Matched, 1)
	assert.Equal(t, int64(1), bsonkit.Get(res.Matched[0], "v"))
	assert.Equal(t, false, bsonkit.Get(res.Matched[0], "on"))
	doc, ok := c.LookupID(int64(3))
	require.True(t, ok)
	assert.True(t, doc == res.Matched[0])
}

// An older snapshot (a collection cloned before a write) reads, through
// every index, its own versions of the documents, and the newer its own: an
// index entry never shows a version of another snapshot, whether the write
// left that index alone or not.
func TestIndexesReadTheirSnapshot(t *testing.T) {
	old := seqTestCollection(t)
	cur := old.Clone()
	_, err := cur.Update(bsonkit.MustConvert(bson.M{"s": "a"}), bsonkit.MustConvert(bson.M{"$inc": bson.M{"v": 1}}), nil, 0, 0, nil)
	require.NoError(t, err)
	_, err = cur.Update(bsonkit.MustConvert(bson.M{"_id": 2}), bsonkit.MustConvert(bson.M{"$set": bson.M{"n": 20}}), nil, 0, 0, nil)
	require.NoError(t, err)
	_, err = cur.Delete(bsonkit.MustConvert(bson.M{"_id": 4}), nil, 0, 0)
	require.NoError(t, err)
	_, err = cur.Insert(bsonkit.MustConvert(bson.M{"_id": 10, "s": "a", "u": 10, "n": 10, "on": true, "v": 1}))
	require.NoError(t, err)
	require.NoError(t, old.Check())
	require.NoError(t, cur.Check())

	for _, q := range []struct {
		query, sort bson.M
	}{
		{bson.M{"s": "a"}, nil},                            // s
		{bson.M{"s": "a"}, bson.M{"n": -1}},                // s_n, in its order
		{bson.M{"s": "a", "n": bson.M{"$gte": 0}}, nil},    // s_n with a range
		{bson.M{"u": bson.M{"$in": bson.A{0, 2, 4}}}, nil}, // u
		{bson.M{"on": true, "n": bson.M{"$gte": 0}}, nil},  // p_when
		{bson.M{"_id": bson.M{"$in": bson.A{0, 2, 4, 10}}}, nil},
	} {
		query := bsonkit.MustConvert(q.query)
		var sort bsonkit.Doc
		var columns []bsonkit.Column
		if q.sort != nil {
			sort = bsonkit.MustConvert(q.sort)
			columns, err = Columns(sort)
			require.NoError(t, err)
		}
		for name, c := range map[string]*Collection{"old": old, "cur": cur} {
			require.NotNil(t, c.planQuery(query, columns), "%v is served by an index", q.query)
			got, err := c.Find(query, sort, 0, 0)
			require.NoError(t, err)
			want, err := scanDocs(c, query, sort, 0, 0)
			require.NoError(t, err)
			require.Equal(t, len(want), len(got.Matched), "%s %v", name, q.query)
			for i := range want {
				assert.True(t, want[i] == got.Matched[i], "%s %v: document %d", name, q.query, i)
				if name == "old" {
					assert.Equal(t, int64(0), bsonkit.Get(got.Matched[i], "v"), "%s %v: the old version", name, q.query)
				}
			}
		}
	}
}

// A unique index still refuses a duplicate an update makes, and accepts an
// update that keeps a document's own key, or moves keys between documents of
// one update.
func TestUpdateKeepsUniqueIndexes(t *testing.T) {
	c := seqTestCollection(t)

	_, err := c.Clone().Update(bsonkit.MustConvert(bson.M{"_id": 1}), bsonkit.MustConvert(bson.M{"$set": bson.M{"u": 2}}), nil, 0, 0, nil)
	assert.Error(t, err)
	_, err = c.Clone().Replace(bsonkit.MustConvert(bson.M{"_id": 1}), bsonkit.MustConvert(bson.M{"u": 2}), nil)
	assert.Error(t, err)

	_, err = c.Update(bsonkit.MustConvert(bson.M{"_id": 1}), bsonkit.MustConvert(bson.M{"$set": bson.M{"u": 1, "v": 5}}), nil, 0, 0, nil)
	require.NoError(t, err)
	require.NoError(t, c.Check())

	// every u moves up by one: 9 → 10 first or not, no collision remains
	_, err = c.Update(bsonkit.MustConvert(bson.M{}), bsonkit.MustConvert(bson.M{"$inc": bson.M{"u": 1}}), nil, 0, 0, nil)
	require.NoError(t, err)
	require.NoError(t, c.Check())
	res, err := c.Find(bsonkit.MustConvert(bson.M{"u": 1}), nil, 0, 0)
	require.NoError(t, err)
	require.Len(t, res.Matched, 1)
	assert.Equal(t, int64(0), bsonkit.Get(res.Matched[0], "_id"))
}

// An insert that an index refuses (a duplicate key) leaves every index as it
// was: an entry left in the others would name the next document inserted,
// which takes the same sequence number, under the refused one's keys.
func TestFailedInsertLeavesNoEntry(t *testing.T) {
	c := seqTestCollection(t)
	for i := 0; i < 20; i++ { // the indexes are tried in random order
		_, err := c.Insert(bsonkit.MustConvert(bson.M{"_id": 100 + i, "s": "z", "u": 2, "n": 99, "on": true}))
		require.Error(t, err)
		require.NoError(t, c.Check())
	}
	_, err := c.Insert(bsonkit.MustConvert(bson.M{"_id": 200, "s": "y", "u": 200, "n": 1, "on": true}))
	require.NoError(t, err)
	require.NoError(t, c.Check())
	res, err := c.Find(bsonkit.MustConvert(bson.M{"s": "z"}), nil, 0, 0)
	require.NoError(t, err)
	assert.Empty(t, res.Matched)

	_, err = c.Upsert(bsonkit.MustConvert(bson.M{"_id": 300}), nil, bsonkit.MustConvert(bson.M{"$set": bson.M{"s": "z", "u": 2}}), nil)
	require.Error(t, err)
	require.NoError(t, c.Check())
}
