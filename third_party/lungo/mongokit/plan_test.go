package mongokit

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
)

// planScalars are the scalar values of the random documents and queries:
// equal numbers of three types (ties), strings, dates, booleans, null.
var planScalars = []interface{}{
	int32(1), int64(1), 1.0, int32(2), int64(2), 2.5, int32(3), int64(4), 4.0, int32(5),
	"a", "b", "c", "1",
	primitive.DateTime(1000), primitive.DateTime(2000),
	true, false, nil,
}

func planRandomScalar(r *rand.Rand) interface{} {
	return planScalars[r.Intn(len(planScalars))]
}

// planRandomValue is mostly a scalar, sometimes an array (multikey), an
// empty array, a nested array or a document.
func planRandomValue(r *rand.Rand, arrays bool) interface{} {
	if arrays {
		switch r.Intn(12) {
		case 0:
			return bson.A{planRandomScalar(r), planRandomScalar(r)}
		case 1:
			return bson.A{}
		case 2:
			return bson.A{bson.A{planRandomScalar(r)}}
		case 3:
			return bson.D{{Key: "v", Value: planRandomScalar(r)}}
		}
	}
	return planRandomScalar(r)
}

// planFields are the fields of the random documents; s, x, y hold arrays
// only rarely (an index on them becomes multikey when they do), m often.
var planFields = []string{"s", "x", "y", "p", "k", "m", "u"}

func planRandomDoc(r *rand.Rand, id interface{}, arrays bool) bsonkit.Doc {
	doc := bson.D{{Key: "_id", Value: id}}
	for _, f := range planFields {
		if r.Intn(5) == 0 {
			continue // missing
		}
		var v interface{}
		switch f {
		case "s":
			v = []interface{}{"s1", "s2", "s3", int32(1), 1.0, nil}[r.Intn(6)]
			if arrays && r.Intn(30) == 0 {
				v = bson.A{"s1", "s2"}
			}
		case "k":
			v = []interface{}{"on", "off", true}[r.Intn(3)]
		case "m":
			v = planRandomValue(r, true)
		default:
			v = planRandomValue(r, arrays && r.Intn(8) == 0)
		}
		doc = append(doc, bson.E{Key: f, Value: v})
	}
	return &doc
}

// planRandomCond is a condition on a field: the values, $eq and $in an
// index serves, ranges (one or two bounds, sometimes of two classes), and
// conditions it leaves to the match ($ne, $exists, $not, null, arrays).
func planRandomCond(r *rand.Rand) interface{} {
	rangeOp := func() string { return []string{"$gt", "$gte", "$lt", "$lte"}[r.Intn(4)] }
	switch r.Intn(14) {
	case 0, 1, 2:
		return planRandomScalar(r)
	case 3:
		return bson.D{{Key: "$eq", Value: planRandomScalar(r)}}
	case 4, 5:
		in := bson.A{}
		for i := r.Intn(4); i > 0; i-- {
			in = append(in, planRandomScalar(r))
		}
		return bson.D{{Key: "$in", Value: in}}
	case 6, 7:
		return bson.D{{Key: rangeOp(), Value: planRandomScalar(r)}}
	case 8, 9:
		low := []string{"$gt", "$gte"}[r.Intn(2)]
		high := []string{"$lt", "$lte"}[r.Intn(2)]
		a, b := planRandomScalar(r), planRandomScalar(r)
		if r.Intn(3) > 0 {
			// same class, ordered
			a = planScalars[r.Intn(10)]
			b = planScalars[r.Intn(10)]
			if bsonkit.Compare(a, b) > 0 {
				a, b = b, a
			}
		}
		return bson.D{{Key: low, Value: a}, {Key: high, Value: b}}
	case 10:
		return bson.D{{Key: "$ne", Value: planRandomScalar(r)}}
	case 11:
		return bson.D{{Key: "$exists", Value: r.Intn(2) == 0}}
	case 12:
		return bson.D{{Key: "$not", Value: bson.D{{Key: rangeOp(), Value: planRandomScalar(r)}}}}
	default:
		return planRandomValue(r, true)
	}
}

// planRandomQuery is conditions on random fields, sometimes in a $and,
// sometimes with a $or beside them, sometimes led by an invalid condition
// (an error for every document).
func planRandomQuery(r *rand.Rand) bsonkit.Doc {
	var query bson.D
	for _, f := range append([]string{"_id", "a", "b"}, planFields...) {
		if r.Intn(3) == 0 || (f == "s" || f == "x") && r.Intn(2) == 0 {
			query = append(query, bson.E{Key: f, Value: planRandomCond(r)})
		}
	}
	r.Shuffle(len(query), func(i, j int) { query[i], query[j] = query[j], query[i] })
	if r.Intn(8) == 0 && len(query) > 1 {
		var and bson.A
		for _, e := range query[1:] {
			and = append(and, bson.D{e})
		}
		query = bson.D{query[0], {Key: "$and", Value: and}}
	}
	if r.Intn(8) == 0 {
		query = append(query, bson.E{Key: "$or", Value: bson.A{
			bson.D{{Key: "y", Value: planRandomCond(r)}},
			bson.D{{Key: "x", Value: planRandomCond(r)}},
		}})
	}
	if r.Intn(6) == 0 {
		query = append(query, planCursorOr(r))
	}
	if r.Intn(6) == 0 {
		// branches that all bound one field (sometimes with others)
		f := []string{"x", "y", "m"}[r.Intn(3)]
		var or bson.A
		for i := 1 + r.Intn(3); i > 0; i-- {
			branch := bson.D{{Key: f, Value: planRandomCond(r)}}
			if r.Intn(3) == 0 {
				branch = append(branch, bson.E{Key: "s", Value: planRandomCond(r)})
			}
			or = append(or, branch)
		}
		query = append(query, bson.E{Key: "$or", Value: or})
	}
	if r.Intn(40) == 0 {
		query = append(bson.D{{Key: "x", Value: bson.D{{Key: "$bogus", Value: int32(1)}}}}, query...)
	}
	return &query
}

// planCursorOr is a cursor's condition (the documents after a position in
// a sort): {$or: [{k0: {$gt: v0}}, {k0: v0, k1: {$gt: v1}}, ...]}, $lt for
// descending keys, on a random sort's keys.
func planCursorOr(r *rand.Rand) bson.E {
	sort := planSorts[r.Intn(len(planSorts))]
	values := make([]interface{}, len(sort))
	for i := range values {
		values[i] = planRandomScalar(r)
		if r.Intn(2) == 0 && i > 0 {
			values[i] = values[0]
		}
	}
	var or bson.A
	for i, k := range sort {
		var cond bson.D
		for j := 0; j < i; j++ {
			cond = append(cond, bson.E{Key: sort[j].Key, Value: values[j]})
		}
		op := "$gt"
		if k.Value == int32(-1) {
			op = "$lt"
		}
		cond = append(cond, bson.E{Key: k.Key, Value: bson.D{{Key: op, Value: values[i]}}})
		or = append(or, cond)
	}
	return bson.E{Key: "$or", Value: or}
}

// planSorts are the sorts of the random queries: covered by an index in
// its direction or against it, or not.
var planSorts = []bson.D{
	{{Key: "x", Value: int32(1)}},
	{{Key: "x", Value: int32(-1)}},
	{{Key: "x", Value: int32(-1)}, {Key: "y", Value: int32(1)}},
	{{Key: "x", Value: int32(1)}, {Key: "y", Value: int32(-1)}},
	{{Key: "x", Value: int32(1)}, {Key: "y", Value: int32(1)}},
	{{Key: "y", Value: int32(1)}},
	{{Key: "y", Value: int32(-1)}},
	{{Key: "y", Value: int32(-1)}, {Key: "_id", Value: int32(1)}},
	{{Key: "m", Value: int32(1)}},
	{{Key: "_id", Value: int32(-1)}},
	{{Key: "s", Value: int32(1)}, {Key: "x", Value: int32(-1)}},
}

// planTestCollection is a collection with compound, descending, unique,
// partial and multikey indexes over random documents, changed by random
// updates and deletes (so that natural order and insertion order differ).
func planTestCollection(t *testing.T, r *rand.Rand, n int, arrays bool) *Collection {
	c := NewCollection(true)
	for name, config := range map[string]IndexConfig{
		"u":       {Key: bsonkit.MustConvert(bson.M{"u": 1}), Unique: true},
		"s_x_y":   {Key: &bson.D{{Key: "s", Value: int32(1)}, {Key: "x", Value: int32(-1)}, {Key: "y", Value: int32(1)}}},
		"s_y":     {Key: &bson.D{{Key: "s", Value: int32(1)}, {Key: "y", Value: int32(1)}}},
		"x":       {Key: &bson.D{{Key: "x", Value: int32(1)}}, Partial: bsonkit.MustConvert(bson.M{"s": bson.M{"$exists": true}})},
		"p_y":     {Key: &bson.D{{Key: "p", Value: int32(1)}, {Key: "y", Value: int32(-1)}}, Partial: bsonkit.MustConvert(bson.M{"k": "on"})},
		"s_m":     {Key: &bson.D{{Key: "s", Value: int32(1)}, {Key: "m", Value: int32(1)}}},
		"k_x_id":  {Key: &bson.D{{Key: "k", Value: int32(1)}, {Key: "x", Value: int32(-1)}, {Key: "_id", Value: int32(-1)}}},
		"y_u_uni": {Key: &bson.D{{Key: "y", Value: int32(1)}, {Key: "u", Value: int32(-1)}}, Unique: true, Partial: bsonkit.MustConvert(bson.M{"k": "off"})},
	} {
		_, err := c.CreateIndex(name, config)
		require.NoError(t, err)
	}
	for i := 0; c.Documents.Len() < n && i < n*20; i++ {
		doc := planRandomDoc(r, int32(1000+i), arrays)
		if _, err := c.Clone().Insert(doc); err == nil {
			_, err = c.Insert(doc)
			require.NoError(t, err)
		}
	}
	for i := 0; i < n/3; i++ {
		clone := c.Clone()
		var err error
		if r.Intn(3) == 0 {
			_, err = clone.Delete(planRandomQuery(r), nil, 0, 1)
		} else {
			set := bson.D{{Key: "x", Value: planRandomValue(r, arrays && r.Intn(8) == 0)}, {Key: "y", Value: planRandomScalar(r)}}
			_, err = clone.Update(planRandomQuery(r), &bson.D{{Key: "$set", Value: set}}, nil, 0, 1+r.Intn(2), nil)
		}
		if err == nil {
			// the indexes of both versions still hold their documents
			// under their current keys (an update leaves an index whose
			// keys it kept untouched, shared by both)
			require.NoError(t, c.Check())
			require.NoError(t, clone.Check())
			c = clone
		}
	}
	return c
}

// TestPlanAgreesWithScan is the randomized differential test of the finds
// served by indexes: for random documents (numbers of three types, dates,
// strings, null, missing fields, arrays) in a collection with compound,
// descending, partial and multikey indexes, and random queries (equalities,
// $in, ranges, conditions the planner leaves to the match, $and, $or,
// invalid ones) with random sorts, skips and limits, selectDocs gives the
// documents a scan of all gives, in the same order, or fails when the scan
// fails.
func TestPlanAgreesWithScan(t *testing.T) {
	total, served, covered, ranged := 0, 0, 0, 0
	for seed := int64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		arrays := seed%3 != 0 // a third of the collections hold no array: covered sorts
		c := planTestCollection(t, r, 30+r.Intn(150), arrays)
		for q := 0; q < 250; q++ {
			query := planRandomQuery(r)
			var sort bsonkit.Doc
			if r.Intn(3) > 0 {
				s := planSorts[r.Intn(len(planSorts))]
				sort = &s
			}
			skip, limit := 0, 0
			if r.Intn(3) == 0 {
				skip = r.Intn(4)
			}
			if r.Intn(2) == 0 {
				limit = 1 + r.Intn(5)
			}

			msg := fmt.Sprintf("seed %d query %v sort %v skip %d limit %d", seed, *query, sort, skip, limit)
			want, wantErr := scanDocs(c, query, sort, skip, limit)
			got, gotErr := c.selectDocs(query, sort, skip, limit)
			require.Equal(t, wantErr != nil, gotErr != nil, "%s: scan error %v, index path error %v", msg, wantErr, gotErr)
			require.Equal(t, len(want), len(got), msg)
			for i := range want {
				require.True(t, want[i] == got[i], "%s: document %d: want %v, got %v", msg, i, *want[i], *got[i])
			}

			total++
			var columns []bsonkit.Column
			if sort != nil {
				columns, _ = Columns(sort)
			}
			if p := c.planQuery(query, columns); p != nil {
				served++
				if p.covers {
					covered++
				}
				if p.rng != nil {
					ranged++
				}
			}
		}
	}

	// each path must have been taken often, or the test compares the scan
	// with itself
	t.Logf("%d queries: %d served by an index, %d in the index's order, %d with a range", total, served, covered, ranged)
	assert.Greater(t, served, total/2)
	assert.Greater(t, covered, total/20)
	assert.Greater(t, ranged, total/20)
}

// TestPlanMultikey: on an index that holds arrays, the two bounds of a range
// may hold for two elements of one array, and a document's sort key is its
// least (or greatest) element wherever the range starts: the index serves a
// range by one bound and no sort.
func TestPlanMultikey(t *testing.T) {
	c := NewCollection(true)
	_, err := c.CreateIndex("s_x", IndexConfig{Key: &bson.D{{Key: "s", Value: int32(1)}, {Key: "x", Value: int32(1)}}})
	require.NoError(t, err)
	for _, doc := range []bson.M{
		{"_id": int32(1), "s": "a", "x": int32(4)},
		{"_id": int32(2), "s": "a", "x": bson.A{int32(1), int32(10)}},
		{"_id": int32(3), "s": "a", "x": int32(7)},
	} {
		_, err := c.Insert(bsonkit.MustConvert(doc))
		require.NoError(t, err)
	}
	for _, item := range []struct {
		query bson.D
		sort  bson.D
		ids   bson.A
	}{
		{bson.D{{Key: "s", Value: "a"}, {Key: "x", Value: bson.D{{Key: "$gt", Value: int32(4)}, {Key: "$lt", Value: int32(5)}}}}, nil, bson.A{int32(2)}},
		{bson.D{{Key: "s", Value: "a"}, {Key: "x", Value: bson.D{{Key: "$gt", Value: int32(3)}}}}, bson.D{{Key: "x", Value: int32(1)}}, bson.A{int32(2), int32(1), int32(3)}},
		{bson.D{{Key: "s", Value: "a"}}, bson.D{{Key: "x", Value: int32(-1)}}, bson.A{int32(2), int32(3), int32(1)}},
	} {
		query := bsonkit.MustConvert(item.query)
		var sort bsonkit.Doc
		var columns []bsonkit.Column
		if item.sort != nil {
			sort = &item.sort
			columns, err = Columns(sort)
			require.NoError(t, err)
		}
		p := c.planQuery(query, columns)
		require.NotNil(t, p, "%v", item.query)
		assert.False(t, p.covers, "%v", item.query)
		list, err := c.selectDocs(query, sort, 0, 0)
		require.NoError(t, err)
		ids := bson.A{}
		for _, doc := range list {
			ids = append(ids, bsonkit.Get(doc, "_id"))
		}
		assert.Equal(t, item.ids, ids, "%v", item.query)
	}
}

// TestPlanServesReviewShapes: the reviews service's queries (a store's
// visible reviews, first page and after a cursor, with and without the
// sort) are served by its indexes: the store and visibility bound, the
// cursor's $or read as a range on the sort's first key, the sort covered.
func TestPlanServesReviewShapes(t *testing.T) {
	c := NewCollection(true)
	for name, key := range map[string]bson.D{
		"store_newest":  {{Key: "storeId", Value: int32(1)}, {Key: "hidden", Value: int32(1)}, {Key: "createdAt", Value: int32(-1)}, {Key: "_id", Value: int32(-1)}},
		"store_helpful": {{Key: "storeId", Value: int32(1)}, {Key: "hidden", Value: int32(1)}, {Key: "wilson", Value: int32(-1)}, {Key: "createdAt", Value: int32(-1)}, {Key: "_id", Value: int32(-1)}},
	} {
		key := key
		_, err := c.CreateIndex(name, IndexConfig{Key: &key})
		require.NoError(t, err)
	}
	for i := 0; i < 300; i++ {
		_, err := c.Insert(bsonkit.MustConvert(bson.M{
			"_id": fmt.Sprintf("r%03d", i), "storeId": fmt.Sprintf("s%d", i%3), "hidden": i%7 == 0,
			"wilson": float64(i%11) / 10, "createdAt": primitive.DateTime(1000 + i%50),
		}))
		require.NoError(t, err)
	}
	helpful := &bson.D{{Key: "wilson", Value: int32(-1)}, {Key: "createdAt", Value: int32(-1)}, {Key: "_id", Value: int32(-1)}}
	columns, err := Columns(helpful)
	require.NoError(t, err)
	first := bson.D{{Key: "storeId", Value: "s1"}, {Key: "hidden", Value: false}}
	after := bson.D{{Key: "$and", Value: bson.A{first, bson.D{{Key: "$or", Value: bson.A{
		bson.D{{Key: "wilson", Value: bson.D{{Key: "$lt", Value: 0.5}}}},
		bson.D{{Key: "wilson", Value: 0.5}, {Key: "createdAt", Value: bson.D{{Key: "$lt", Value: primitive.DateTime(1020)}}}},
		bson.D{{Key: "wilson", Value: 0.5}, {Key: "createdAt", Value: primitive.DateTime(1020)}, {Key: "_id", Value: bson.D{{Key: "$lt", Value: "r100"}}}},
	}}}}}}

	for _, item := range []struct {
		query   bson.D
		sorted  bool
		name    string
		covers  bool
		ranged  bool
		results int
	}{
		{first, false, "", false, false, 86},
		{first, true, "store_helpful", true, false, 86},
		{after, false, "store_helpful", false, true, 44},
		{after, true, "store_helpful", true, true, 44},
	} {
		query := bsonkit.MustConvert(item.query)
		var sort bsonkit.Doc
		var cols []bsonkit.Column
		if item.sorted {
			sort, cols = helpful, columns
		}
		p := c.planQuery(query, cols)
		require.NotNil(t, p)
		assert.Equal(t, 2, p.eq)
		if item.name != "" {
			assert.Equal(t, item.name, p.name)
		}
		assert.Equal(t, item.covers, p.covers)
		assert.Equal(t, item.ranged, p.rng != nil)
		if item.ranged {
			assert.Nil(t, p.rng.Low)
			assert.Equal(t, &bsonkit.Bound{Value: 0.5, Inclusive: true}, p.rng.High)
		}
		want, err := scanDocs(c, query, sort, 0, 0)
		require.NoError(t, err)
		got, err := c.selectDocs(query, sort, 0, 0)
		require.NoError(t, err)
		assert.Equal(t, item.results, len(got))
		assert.Equal(t, want, got)
	}
}
