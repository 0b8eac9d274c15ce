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
	if r.Intn(40) == 0 {
		query = append(bson.D{{Key: "x", Value: bson.D{{Key: "$bogus", Value: int32(1)}}}}, query...)
	}
	return &query
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
