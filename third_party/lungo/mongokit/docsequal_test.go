package mongokit

import (
	"bytes"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
)

// marshalEqual is what docsEqual answered before it compared values: the
// two documents serialized and compared byte for byte.
func marshalEqual(a, b bsonkit.Doc) bool {
	x, errA := bson.Marshal(a)
	y, errB := bson.Marshal(b)
	return errA == nil && errB == nil && bytes.Equal(x, y)
}

// deepCopy copies documents and arrays (bsonkit.Clone refuses the types the
// test uses to reach the fallback).
func deepCopy(v interface{}) interface{} {
	switch x := v.(type) {
	case bson.D:
		d := make(bson.D, len(x))
		for i, e := range x {
			d[i] = bson.E{Key: e.Key, Value: deepCopy(e.Value)}
		}
		return d
	case bson.A:
		a := make(bson.A, len(x))
		for i, e := range x {
			a[i] = deepCopy(e)
		}
		return a
	}
	return v
}

// docsEqual gives the answer of serializing both documents, over random
// documents and random small changes of them: a value of another number type
// (1, 1 and 1.0), null and nil, 0.0 and -0.0, NaNs of other bits, a binary's
// subtype, keys swapped or renamed, nested documents and arrays, and types
// the comparison does not know (a JavaScript value, a symbol).
func TestDocsEqualAgreesWithMarshal(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	var scalar func(depth int) interface{}
	scalar = func(depth int) interface{} {
		switch r.Intn(17) {
		case 0:
			return int32(r.Intn(3))
		case 1:
			return int64(r.Intn(3))
		case 2:
			return float64(r.Intn(3))
		case 3:
			return []float64{0, math.Copysign(0, -1), math.NaN(), math.Float64frombits(0x7ff8000000000001)}[r.Intn(4)]
		case 4:
			return []string{"", "a", "b"}[r.Intn(3)]
		case 5:
			return r.Intn(2) == 0
		case 6:
			return nil
		case 7:
			return primitive.Null{}
		case 8:
			return primitive.Binary{Subtype: byte(r.Intn(2)), Data: []byte{byte(r.Intn(2))}}
		case 9:
			return primitive.DateTime(r.Intn(3))
		case 10:
			return primitive.Timestamp{T: uint32(r.Intn(2)), I: 1}
		case 11:
			return primitive.Regex{Pattern: "a", Options: []string{"", "i"}[r.Intn(2)]}
		case 12:
			return primitive.JavaScript("x") // unknown to the comparison
		case 13:
			return primitive.Symbol([]string{"a", "b"}[r.Intn(2)]) // unknown too
		case 14:
			if depth < 2 {
				d := bson.D{}
				for i := r.Intn(3); i > 0; i-- {
					d = append(d, bson.E{Key: []string{"x", "y", "z"}[r.Intn(3)], Value: scalar(depth + 1)})
				}
				return d
			}
			return "d"
		case 15:
			if depth < 2 {
				a := bson.A{}
				for i := r.Intn(3); i > 0; i-- {
					a = append(a, scalar(depth+1))
				}
				return a
			}
			return "a"
		default:
			return primitive.ObjectID{byte(r.Intn(2))}
		}
	}
	mutate := func(d bson.D) bson.D {
		d = append(bson.D(nil), d...)
		if len(d) == 0 {
			return append(d, bson.E{Key: "n", Value: scalar(0)})
		}
		i := r.Intn(len(d))
		switch r.Intn(4) {
		case 0:
			d[i].Value = scalar(0)
		case 1:
			j := r.Intn(len(d))
			d[i], d[j] = d[j], d[i]
		case 2:
			d[i].Key += "_"
		default:
			// a copy, deep: equal
			d = deepCopy(d).(bson.D)
		}
		return d
	}

	equal, differ, fallback := 0, 0, 0
	for n := 0; n < 20000; n++ {
		a := bson.D{{Key: "_id", Value: int32(n)}}
		for i := r.Intn(5); i > 0; i-- {
			a = append(a, bson.E{Key: []string{"p", "q", "r", "s"}[r.Intn(4)], Value: scalar(0)})
		}
		b := mutate(a)
		if r.Intn(4) == 0 {
			b = mutate(b)
		}
		want := marshalEqual(&a, &b)
		got := docsEqual(&a, &b)
		require.Equal(t, want, got, "%v and %v", a, b)
		if _, ok := identical(a, b); !ok {
			fallback++
		} else if want {
			equal++
		} else {
			differ++
		}
	}
	t.Logf("%d equal, %d different, %d serialized", equal, differ, fallback)
	assert.Greater(t, equal, 2000)
	assert.Greater(t, differ, 2000)
	assert.Greater(t, fallback, 200)
}
