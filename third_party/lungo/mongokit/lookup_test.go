package mongokit

import (
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

// scanDocs is selectDocs without indexes: the whole set, stable-sorted when
// a sort is given, filtered, skipped and limited (the reference the index
// path must agree with).
func scanDocs(c *Collection, query, sort bsonkit.Doc, skip, limit int) (bsonkit.List, error) {
	if limit > 0 {
		limit += skip
	}
	list := c.Documents.List()
	if sort != nil && len(*sort) > 0 {
		columns, err := Columns(sort)
		if err != nil {
			return nil, err
		}
		bsonkit.Sort(list, columns)
	}
	list, err := Filter(list, query, limit)
	if err != nil {
		return nil, err
	}
	if skip > len(list) {
		return nil, nil
	}
	return list[skip:], nil
}

// lookupTestValues are the values of the random documents and queries: equal
// numbers of three types, strings of the same digits, null, booleans, arrays
// (empty, of numbers, nested), an embedded document.
var lookupTestValues = []interface{}{
	int32(1), int64(1), 1.0, int32(2), int64(3), 2.0, 2.5, "1", "2", "3", nil, true, false,
	bson.A{}, bson.A{int32(1), int32(2)}, bson.A{"2", nil}, bson.A{bson.A{int32(1)}}, bson.D{{Key: "x", Value: int32(1)}},
}

func lookupRandomValue(r *rand.Rand) interface{} {
	return lookupTestValues[r.Intn(len(lookupTestValues))]
}

// lookupRandomDoc is a document with each field present or missing at random
// (the _id always present, unique per collection by retry).
func lookupRandomDoc(r *rand.Rand, id interface{}) bsonkit.Doc {
	doc := bson.D{{Key: "_id", Value: id}}
	for _, f := range []string{"u", "a", "b", "p", "n"} {
		if r.Intn(4) > 0 {
			doc = append(doc, bson.E{Key: f, Value: lookupRandomValue(r)})
		}
	}
	return &doc
}

// lookupRandomCond is a condition on a field: mostly ones an index serves
// (a value, $eq, $in), some it does not ($ne, $gt, $not, $exists, regex).
func lookupRandomCond(r *rand.Rand) interface{} {
	switch r.Intn(10) {
	case 0, 1, 2, 3:
		return lookupRandomValue(r)
	case 4:
		return bson.D{{Key: "$eq", Value: lookupRandomValue(r)}}
	case 5, 6:
		var in bson.A
		for i := r.Intn(4); i > 0; i-- {
			in = append(in, lookupRandomValue(r))
		}
		if in == nil {
			in = bson.A{}
		}
		return bson.D{{Key: "$in", Value: in}}
	case 7:
		return bson.D{{Key: "$ne", Value: lookupRandomValue(r)}}
	case 8:
		return bson.D{{Key: "$gt", Value: lookupRandomValue(r)}}
	default:
		return bson.D{{Key: "$exists", Value: r.Intn(2) == 0}}
	}
}

func lookupRandomQuery(r *rand.Rand) bsonkit.Doc {
	var query bson.D
	for _, f := range []string{"_id", "u", "a", "b", "p", "n"} {
		if r.Intn(3) == 0 || f != "_id" && f != "p" && r.Intn(2) == 0 {
			query = append(query, bson.E{Key: f, Value: lookupRandomCond(r)})
		}
	}
	r.Shuffle(len(query), func(i, j int) { query[i], query[j] = query[j], query[i] })
	if r.Intn(10) == 0 {
		query = append(query, bson.E{Key: "$or", Value: bson.A{
			bson.D{{Key: "n", Value: lookupRandomCond(r)}},
			bson.D{{Key: "a", Value: lookupRandomCond(r)}},
		}})
	}
	return &query
}

// lookupTestCollection is a collection with the _id index, a unique index on
// u, a unique compound index on a and b, a partial unique index on p and a
// non-unique one on n, filled with random documents and changed by random
// updates and deletes (so that natural order and insertion order differ).
func lookupTestCollection(t *testing.T, r *rand.Rand, n int) *Collection {
	c := NewCollection(true)
	for name, config := range map[string]IndexConfig{
		"u":   {Key: bsonkit.MustConvert(bson.M{"u": 1}), Unique: true},
		"a_b": {Key: &bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(-1)}}, Unique: true},
		"p":   {Key: bsonkit.MustConvert(bson.M{"p": 1}), Unique: true, Partial: bsonkit.MustConvert(bson.M{"n": bson.M{"$exists": true}})},
		"n":   {Key: bsonkit.MustConvert(bson.M{"n": 1})},
	} {
		_, err := c.CreateIndex(name, config)
		require.NoError(t, err)
	}
	ids := []interface{}{int32(7), int64(8), 9.0, 9.5, "7", "x", true} // no document _id: Update compares _ids with != (upstream), which panics on them
	for i := 0; c.Documents.Len() < n && i < n*20; i++ {
		var id interface{} = int32(100 + i)
		if r.Intn(4) == 0 {
			id = ids[r.Intn(len(ids))]
		}
		_, _ = c.Clone().Insert(lookupRandomDoc(r, id)) // a duplicate fails on the clone only
		if _, err := c.Clone().Insert(lookupRandomDoc(r, id)); err == nil {
			_, err = c.Insert(lookupRandomDoc(r, id))
			_ = err
		}
	}
	for i := 0; i < n/3; i++ {
		clone := c.Clone()
		var err error
		if r.Intn(3) == 0 {
			_, err = clone.Delete(lookupRandomQuery(r), nil, 0, 1)
		} else {
			_, err = clone.Update(lookupRandomQuery(r), bsonkit.MustConvert(bson.M{"$set": bson.M{"n": lookupRandomValue(r), "u": lookupRandomValue(r)}}), nil, 0, 1, nil)
		}
		if err == nil {
			require.NoError(t, c.Check())
			require.NoError(t, clone.Check())
			c = clone
		}
	}
	return c
}

// TestLookupAgreesWithScan is the randomized differential test of the index
// path: for random documents (numbers of three types, null, missing fields,
// arrays, documents) and random queries on indexed fields, selectDocs gives
// the documents a scan of all gives, in the same order, with and without
// sort, skip and limit, and fails when the scan fails.
func TestLookupAgreesWithScan(t *testing.T) {
	served := 0
	total := 0
	for seed := int64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewSource(seed))
		c := lookupTestCollection(t, r, 20+r.Intn(80))
		for q := 0; q < 300; q++ {
			query := lookupRandomQuery(r)
			var sort bsonkit.Doc
			switch r.Intn(4) {
			case 0:
				sort = bsonkit.MustConvert(bson.M{"n": -1})
			case 1:
				sort = &bson.D{{Key: "a", Value: int32(1)}, {Key: "_id", Value: int32(-1)}}
			}
			skip, limit := 0, 0
			if r.Intn(3) == 0 {
				skip = r.Intn(3)
			}
			if r.Intn(3) == 0 {
				limit = 1 + r.Intn(3)
			}

			want, wantErr := scanDocs(c, query, sort, skip, limit)
			got, gotErr := c.selectDocs(query, sort, skip, limit)
			if wantErr != nil || gotErr != nil {
				require.Equal(t, wantErr != nil, gotErr != nil, "seed %d query %v: scan error %v, index path error %v", seed, *query, wantErr, gotErr)
				continue
			}
			require.Equal(t, len(want), len(got), "seed %d query %v sort %v skip %d limit %d", seed, *query, sort, skip, limit)
			for i := range want {
				require.True(t, want[i] == got[i], "seed %d query %v: document %d: want %v, got %v", seed, *query, i, *want[i], *got[i])
			}

			total++
			if c.planQuery(query, nil) != nil {
				served++
			}
		}
	}

	// the index path must have been taken often, or the test compares the
	// scan with itself
	t.Logf("%d of %d queries served by an index", served, total)
	assert.Greater(t, served, total/4)
}

// TestLookupServesOnlyWhatItMay: which queries an index serves, and what it
// gives them.
func TestLookupServesOnlyWhatItMay(t *testing.T) {
	c := NewCollection(true)
	_, err := c.CreateIndex("", IndexConfig{Key: &bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: int32(1)}}, Unique: true})
	require.NoError(t, err)
	_, err = c.CreateIndex("", IndexConfig{Key: bsonkit.MustConvert(bson.M{"p": 1}), Unique: true, Partial: bsonkit.MustConvert(bson.M{"q": true})})
	require.NoError(t, err)
	_, err = c.CreateIndex("", IndexConfig{Key: bsonkit.MustConvert(bson.M{"n": 1})})
	require.NoError(t, err)
	docs := bsonkit.MustConvertList(bson.A{
		bson.M{"_id": int32(1), "a": "x", "b": int32(1), "p": int32(1), "q": true, "n": int32(1)},
		bson.M{"_id": int64(2), "a": "x", "b": int32(2), "n": int32(1)},
		bson.M{"_id": "3", "a": bson.A{"y", "z"}, "b": 2.0},
		bson.M{"_id": 4.0, "a": nil},
	})
	for _, doc := range docs {
		_, err := c.Insert(doc)
		require.NoError(t, err)
	}
	// an update keeps the document's place in the natural order
	_, err = c.Update(bsonkit.MustConvert(bson.M{"_id": int32(1)}), bsonkit.MustConvert(bson.M{"$set": bson.M{"n": int32(5)}}), nil, 0, 0, nil)
	require.NoError(t, err)

	for _, item := range []struct {
		query  bson.D
		served bool
		ids    bson.A // the _ids found, in order
	}{
		// _id: numbers equal across types, in natural order
		{bson.D{{Key: "_id", Value: 2.0}}, true, bson.A{int64(2)}},
		{bson.D{{Key: "_id", Value: bson.M{"$in": bson.A{4.0, int32(1), "3", "nope"}}}}, true, bson.A{int32(1), "3", 4.0}},
		{bson.D{{Key: "_id", Value: bson.M{"$eq": int64(1)}}, {Key: "n", Value: int32(1)}}, true, bson.A{}},
		{bson.D{{Key: "_id", Value: bson.M{"$in": bson.A{}}}}, true, bson.A{}},
		// all fields of a unique compound index; multikey arrays
		{bson.D{{Key: "a", Value: "x"}, {Key: "b", Value: bson.M{"$in": bson.A{int32(2), int32(1)}}}}, true, bson.A{int32(1), int64(2)}},
		{bson.D{{Key: "a", Value: "z"}, {Key: "b", Value: int32(2)}}, true, bson.A{"3"}},
		// a prefix of a compound key, a non-unique index, a range, a
		// partial index whose filter the query implies; a top-level $or
		// is matched on the candidates
		{bson.D{{Key: "a", Value: "x"}}, true, bson.A{int32(1), int64(2)}},
		{bson.D{{Key: "n", Value: int32(1)}}, true, bson.A{int64(2)}},
		{bson.D{{Key: "_id", Value: bson.M{"$gte": int32(2)}}}, true, bson.A{int64(2), 4.0}},
		{bson.D{{Key: "p", Value: int32(1)}, {Key: "q", Value: true}}, true, bson.A{int32(1)}},
		{bson.D{{Key: "_id", Value: int32(1)}, {Key: "$or", Value: bson.A{bson.M{"n": int32(5)}}}}, true, bson.A{int32(1)}},
		// the scan: null, arrays, a partial index whose filter the query
		// does not imply, operators other than $eq, $in and the ranges,
		// dotted paths
		{bson.D{{Key: "a", Value: nil}, {Key: "b", Value: nil}}, false, bson.A{4.0}},
		{bson.D{{Key: "a", Value: bson.A{"y", "z"}}, {Key: "b", Value: 2.0}}, false, bson.A{"3"}},
		{bson.D{{Key: "p", Value: int32(1)}}, false, bson.A{int32(1)}},
		{bson.D{{Key: "_id", Value: bson.M{"$ne": int32(1)}}}, false, bson.A{int64(2), "3", 4.0}},
		{bson.D{{Key: "a.x", Value: "x"}}, false, bson.A{}},
	} {
		query := bsonkit.MustConvert(item.query)
		served := c.planQuery(query, nil) != nil
		assert.Equal(t, item.served, served, "%v", item.query)
		list, err := c.selectDocs(query, nil, 0, 0)
		require.NoError(t, err)
		ids := bson.A{}
		for _, doc := range list {
			ids = append(ids, bsonkit.Get(doc, "_id"))
		}
		assert.Equal(t, item.ids, ids, "%v", item.query)
	}

	// an invalid condition fails as in a scan, even with no candidate
	_, err = c.selectDocs(bsonkit.MustConvert(bson.D{{Key: "n", Value: bson.M{"$bogus": 1}}, {Key: "_id", Value: "none"}}), nil, 0, 0)
	assert.Error(t, err)
}
