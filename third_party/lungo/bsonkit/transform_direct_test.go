package bsonkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

type (
	tdString  string
	tdInt     int
	tdInt64   int64
	tdUint16  uint16
	tdUint64  uint64
	tdFloat32 float32
	tdBool    bool
	tdStruct  struct {
		A int
		B string
	}
)

// tdMarshaled is a named string that marshals itself: the driver's answer
// (the string upper-cased), never its kind's.
type tdMarshaled string

func (m tdMarshaled) MarshalBSONValue() (bsontype.Type, []byte, error) {
	return bsontype.String, bsoncore.AppendString(nil, strings.ToUpper(string(m))), nil
}

// tdGen makes random values for the differential test. direct is cleared
// when it makes a value that the direct conversion leaves to the round trip.
type tdGen struct {
	rng    *rand.Rand
	direct bool
}

var tdKeys = []string{"", "a", "b", "_id", "a.b", "$set", "$inc", "ключ", "🙂", "x y", "long_key_" + strings.Repeat("k", 40), "A", "0", "10"}

func (g *tdGen) key() string {
	if g.rng.Intn(400) == 0 {
		g.direct = false
		return "bad\x00key" // the driver refuses it
	}
	return tdKeys[g.rng.Intn(len(tdKeys))]
}

func (g *tdGen) str() string {
	switch g.rng.Intn(6) {
	case 0:
		return ""
	case 1:
		return "héllo wörld ✓"
	case 2:
		return "nul\x00inside"
	case 3:
		return "\xff\xfeinvalid utf-8"
	default:
		return fmt.Sprintf("s%d", g.rng.Intn(1000))
	}
}

func (g *tdGen) float() float64 {
	switch g.rng.Intn(9) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return math.Inf(1)
	case 3:
		return math.Inf(-1)
	case 4:
		return math.SmallestNonzeroFloat64
	case 5:
		return math.MaxFloat64
	case 6:
		return math.Float64frombits(0x7ff8000000000bad) // a NaN with a payload
	default:
		return g.rng.NormFloat64() * 1e6
	}
}

var tdInts = []int64{0, 1, -1, math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MaxInt64, math.MinInt64, 1 << 40}

func (g *tdGen) int() int64 {
	if g.rng.Intn(2) == 0 {
		return tdInts[g.rng.Intn(len(tdInts))]
	}
	return g.rng.Int63n(1<<34) - 1<<33
}

func (g *tdGen) time() time.Time {
	switch g.rng.Intn(5) {
	case 0:
		return time.Time{}
	case 1:
		return time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC) // before the epoch, with ns
	case 2:
		return time.Now() // monotonic reading, local zone
	case 3:
		return time.Date(9999, 1, 1, 0, 0, 0, 1, time.FixedZone("x", 3600))
	default:
		return time.Unix(g.rng.Int63n(1<<33), g.rng.Int63n(1e9)).UTC()
	}
}

// leaf is a value that is neither a document nor an array.
func (g *tdGen) leaf() interface{} {
	switch g.rng.Intn(44) {
	case 0:
		return nil
	case 1:
		return g.str()
	case 2:
		return g.rng.Intn(2) == 0
	case 3:
		return int(g.int())
	case 4:
		return int8(g.int())
	case 5:
		return int16(g.int())
	case 6:
		return int32(g.int())
	case 7:
		return g.int()
	case 8:
		return uint8(g.int())
	case 9:
		return uint16(g.int())
	case 10:
		return uint32(g.int())
	case 11:
		return uint(g.int() & math.MaxInt64)
	case 12:
		return uint64(g.int() & math.MaxInt64)
	case 13:
		return float32(g.float())
	case 14:
		return g.float()
	case 15:
		return g.time()
	case 16:
		return primitive.NewDateTimeFromTime(g.time())
	case 17:
		return primitive.NewObjectID()
	case 18:
		return primitive.Timestamp{T: uint32(g.int()), I: uint32(g.int())}
	case 19:
		d, _ := primitive.ParseDecimal128(fmt.Sprintf("%d.%d", g.rng.Intn(1000), g.rng.Intn(100)))
		return d
	case 20:
		return []interface{}{primitive.MinKey{}, primitive.MaxKey{}, primitive.Undefined{}, primitive.Null{}}[g.rng.Intn(4)]
	case 21:
		return primitive.Symbol(g.str())
	case 22:
		return primitive.JavaScript(g.str())
	case 23:
		return primitive.DBPointer{DB: "db.c", Pointer: primitive.NewObjectID()}
	case 24:
		data := [][]byte{nil, {}, {1, 2, 3}}[g.rng.Intn(3)]
		return primitive.Binary{Subtype: []byte{0, 4, 0x80}[g.rng.Intn(3)], Data: data}
	case 25:
		return [][]byte{nil, {}, {9, 8}}[g.rng.Intn(3)]
	case 26:
		return primitive.Regex{Pattern: "^a.*b$", Options: []string{"", "i", "im", "imsx"}[g.rng.Intn(4)]}
	case 27:
		return tdString(g.str())
	case 28:
		return tdInt(g.int())
	case 29:
		return tdInt64(g.int())
	case 30:
		return tdUint16(g.int())
	case 31:
		return tdUint64(g.int() & math.MaxInt64)
	case 32:
		return tdFloat32(g.float())
	case 33:
		return tdBool(true)
	case 34:
		return time.Duration(g.int())
	}
	// values left to the round trip
	g.direct = false
	switch g.rng.Intn(11) {
	case 0:
		return uint64(math.MaxInt64) + 1 // the driver's overflow error
	case 1:
		return tdStruct{A: int(g.int()), B: g.str()}
	case 2:
		n := int(g.int())
		return &n
	case 3:
		return tdMarshaled(g.str())
	case 4:
		return json.Number("12")
	case 5:
		return primitive.Binary{Subtype: 2, Data: [][]byte{nil, {}, {1, 2}}[g.rng.Intn(3)]}
	case 6:
		return primitive.Regex{Pattern: "a", Options: "mi"} // sorted by the driver
	case 7:
		return primitive.Regex{Pattern: "a\x00", Options: ""} // the driver's error
	case 8:
		return map[string]int{"z": 1}
	case 9:
		return [2]int{1, 2}
	default:
		return primitive.CodeWithScope{Code: "f()", Scope: bson.D{{Key: "a", Value: int32(1)}}}
	}
}

// put sets a new key of m (a key already there is left as it is, so that
// direct stays true of what m holds).
func (g *tdGen) put(m map[string]interface{}, depth int) {
	was := g.direct
	k, v := g.key(), g.value(depth)
	if _, dup := m[k]; dup {
		g.direct = was
		return
	}
	m[k] = v
}

func (g *tdGen) value(depth int) interface{} {
	if depth <= 0 || g.rng.Intn(3) > 0 {
		return g.leaf()
	}
	n := g.rng.Intn(5)
	switch g.rng.Intn(16) {
	case 0:
		m := bson.M{}
		for i := 0; i < n; i++ {
			g.put(m, depth-1)
		}
		return m
	case 1:
		m := map[string]interface{}{}
		for i := 0; i < n; i++ {
			g.put(m, depth-1)
		}
		return m
	case 2, 3:
		d := bson.D{}
		for i := 0; i < n; i++ {
			d = append(d, bson.E{Key: g.key(), Value: g.value(depth - 1)})
		}
		return d
	case 4:
		a := bson.A{}
		for i := 0; i < n; i++ {
			a = append(a, g.value(depth-1))
		}
		return a
	case 5:
		a := []interface{}{}
		for i := 0; i < n; i++ {
			a = append(a, g.value(depth-1))
		}
		return a
	case 6:
		return []interface{}{bson.M(nil), map[string]interface{}(nil), bson.D(nil), bson.A(nil), []interface{}(nil), []string(nil), []int(nil), []bson.M(nil)}[g.rng.Intn(8)]
	case 7:
		if n == 0 {
			return []string{}
		}
		return []string{g.str(), g.str()}[:n%3]
	case 8:
		return []int{int(g.int()), int(g.int())}[:n%3]
	case 9:
		return []int64{g.int()}[:n%2]
	case 10:
		return []int32{int32(g.int())}
	case 11:
		return []float64{g.float(), g.float()}
	case 12:
		return []bool{true, false}[:n%3]
	case 13:
		return []primitive.ObjectID{primitive.NewObjectID()}
	case 14:
		out := []bson.M{nil}
		for i := 0; i < n; i++ {
			out = append(out, bson.M{g.key(): g.value(depth - 1)})
		}
		return out
	default:
		return []bson.D{{{Key: g.key(), Value: g.value(depth - 1)}}, nil}
	}
}

// tdDoc is a document given as a struct (as inserts give them): always the
// marshalled path.
type tdDoc struct {
	ID      string            `bson:"_id"`
	N       int               `bson:"n"`
	U       uint32            `bson:"u,omitempty"`
	F       float32           `bson:"f"`
	When    time.Time         `bson:"when"`
	Tags    []string          `bson:"tags"`
	Bin     []byte            `bson:"bin"`
	Ptr     *tdStruct         `bson:"ptr,omitempty"`
	Inner   tdStruct          `bson:"inner"`
	Any     interface{}       `bson:"any"`
	Named   tdString          `bson:"named"`
	Labels  map[string]string `bson:"labels"`
	Skipped string            `bson:"-"`
}

func (g *tdGen) doc() interface{} {
	g.direct = true
	n := g.rng.Intn(6)
	if g.rng.Intn(8) == 0 {
		g.direct = false
		d := tdDoc{ID: g.str(), N: int(g.int()), U: uint32(g.int()), F: float32(g.float()), When: g.time(),
			Inner: tdStruct{A: n, B: g.str()}, Any: g.value(3), Named: tdString(g.str()), Skipped: "x"}
		if n > 0 {
			d.Tags = []string{g.str(), g.str()}[:n%3]
			d.Bin = []byte{1, 2, 3}[:n%4]
			d.Ptr = &tdStruct{A: 1}
			d.Labels = map[string]string{"k": g.str()}
		}
		if g.rng.Intn(2) == 0 {
			return &d
		}
		return d
	}
	switch g.rng.Intn(4) {
	case 0:
		m := bson.M{}
		for i := 0; i < n; i++ {
			g.put(m, 4)
		}
		return m
	case 1:
		m := map[string]interface{}{}
		for i := 0; i < n; i++ {
			g.put(m, 4)
		}
		return m
	default:
		d := bson.D{}
		for i := 0; i < n; i++ {
			d = append(d, bson.E{Key: g.key(), Value: g.value(4)})
		}
		if g.rng.Intn(2) == 0 {
			return &d
		}
		return d
	}
}

// tdCanon sorts, in out (a result of converting src), the keys of every
// document that src holds as a map: the round trip gives them in the map's
// iteration order.
func tdCanon(src interface{}, out interface{}) interface{} {
	if src == nil || out == nil {
		return out
	}
	rv := reflect.ValueOf(src)
	switch rv.Kind() {
	case reflect.Map:
		d, ok := out.(bson.D)
		if !ok {
			return out
		}
		if rv.Type().Elem().Kind() != reflect.Interface {
			d = append(bson.D{}, d...)
			sort.Slice(d, func(i, j int) bool { return d[i].Key < d[j].Key })
			return d
		}
		c := make(bson.D, len(d))
		for i, e := range d {
			c[i] = bson.E{Key: e.Key, Value: tdCanon(rv.MapIndex(reflect.ValueOf(e.Key)).Interface(), e.Value)}
		}
		sort.Slice(c, func(i, j int) bool { return c[i].Key < c[j].Key })
		return c
	case reflect.Ptr:
		if !rv.IsNil() {
			return tdCanon(rv.Elem().Interface(), out)
		}
	case reflect.Struct:
		// the fields in order; the canonical form of any field holding a map
		d, ok := out.(bson.D)
		if !ok {
			return out
		}
		c := append(bson.D{}, d...)
		if x, ok := src.(tdDoc); ok {
			for i, e := range c {
				if e.Key == "any" {
					c[i].Value = tdCanon(x.Any, e.Value)
				}
			}
		}
		return c
	case reflect.Slice:
		if d, ok := src.(bson.D); ok {
			o, ok := out.(bson.D)
			if !ok || len(o) != len(d) {
				return out
			}
			c := make(bson.D, len(o))
			for i, e := range o {
				c[i] = bson.E{Key: e.Key, Value: tdCanon(d[i].Value, e.Value)}
			}
			return c
		}
		a, ok := out.(bson.A)
		if !ok || len(a) != rv.Len() {
			return out
		}
		c := make(bson.A, len(a))
		for i := range a {
			c[i] = tdCanon(rv.Index(i).Interface(), a[i])
		}
		return c
	}
	return out
}

// tdSame compares two converted values exactly: the same Go types, floats
// bit for bit (NaN, -0), nil and empty documents, arrays and binaries apart.
func tdSame(a, b interface{}) bool {
	if reflect.TypeOf(a) != reflect.TypeOf(b) {
		return false
	}
	switch x := a.(type) {
	case float64:
		return math.Float64bits(x) == math.Float64bits(b.(float64))
	case bson.D:
		y := b.(bson.D)
		if (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !tdSame(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y := b.(bson.A)
		if (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !tdSame(x[i], y[i]) {
				return false
			}
		}
		return true
	case primitive.Binary:
		y := b.(primitive.Binary)
		return x.Subtype == y.Subtype && (x.Data == nil) == (y.Data == nil) && bytes.Equal(x.Data, y.Data)
	}
	return reflect.DeepEqual(a, b)
}

// The direct conversion gives what the round trip gives (up to the order of
// a map's keys, which the round trip takes from Go's randomized map order:
// compared sorted), takes the round trip's path for every value it does not
// know, and sorts a map's keys.
func TestTransformDirectMatchesRoundTrip(t *testing.T) {
	direct := 0
	for seed := int64(0); seed < 20; seed++ {
		g := &tdGen{rng: rand.New(rand.NewSource(seed))}
		for i := 0; i < 500; i++ {
			in := g.doc()
			_, took := transformDoc(in)
			if took != g.direct {
				t.Fatalf("seed %d #%d: direct conversion taken %v, want %v: %#v", seed, i, took, g.direct, in)
			}
			if took {
				direct++
			}

			var want bson.D
			werr := Transfer(in, &want)
			got, gerr := Transform(in)
			if (werr != nil) != (gerr != nil) {
				t.Fatalf("seed %d #%d: round trip error %v, Transform error %v: %#v", seed, i, werr, gerr, in)
			}
			if werr != nil {
				continue
			}
			if took && !tdSame(*got, tdCanon(in, *got)) {
				t.Fatalf("seed %d #%d: a map's keys not sorted: %#v", seed, i, *got)
			}
			if !tdSame(tdCanon(in, *got), tdCanon(in, want)) {
				t.Fatalf("seed %d #%d:\n in %#v\ngot %#v\nwant %#v", seed, i, in, *got, want)
			}
		}
	}
	if direct < 3500 {
		t.Fatalf("only %d of 10,000 documents converted directly", direct)
	}
}

// The result shares no memory with the input (as the round trip's): slices
// and documents are new, strings copies (a caller's string may point into a
// buffer that is reused, as fasthttp's do, or into a larger one).
func TestTransformDirectCopies(t *testing.T) {
	data := []byte{1, 2, 3}
	inner := bson.D{{Key: "x", Value: int32(1)}}
	arr := bson.A{"a"}
	key, val := strings.Repeat("k", 3), strings.Repeat("v", 3)
	in := bson.M{"bin": data, "b2": primitive.Binary{Subtype: 4, Data: data}, "d": inner, "a": arr,
		key: val, "sym": primitive.Symbol(val), "js": primitive.JavaScript(val), "re": primitive.Regex{Pattern: val, Options: "i"},
		"ptr": primitive.DBPointer{DB: val}, "named": tdString(val), "list": []string{val}}
	doc, err := Transform(in)
	assert.NoError(t, err)
	data[0] = 9
	inner[0].Value = int32(2)
	arr[0] = "b"
	assert.Equal(t, &bson.D{
		{Key: "a", Value: bson.A{"a"}},
		{Key: "b2", Value: primitive.Binary{Subtype: 4, Data: []byte{1, 2, 3}}},
		{Key: "bin", Value: primitive.Binary{Data: []byte{1, 2, 3}}},
		{Key: "d", Value: bson.D{{Key: "x", Value: int32(1)}}},
		{Key: "js", Value: primitive.JavaScript("vvv")},
		{Key: "kkk", Value: "vvv"},
		{Key: "list", Value: bson.A{"vvv"}},
		{Key: "named", Value: "vvv"},
		{Key: "ptr", Value: primitive.DBPointer{DB: "vvv"}},
		{Key: "re", Value: primitive.Regex{Pattern: "vvv", Options: "i"}},
		{Key: "sym", Value: primitive.Symbol("vvv")},
	}, doc)
	d := *doc
	for _, s := range []string{string(d[4].Value.(primitive.JavaScript)), d[5].Key, d[5].Value.(string),
		d[6].Value.(bson.A)[0].(string), d[7].Value.(string), d[8].Value.(primitive.DBPointer).DB,
		d[9].Value.(primitive.Regex).Pattern, string(d[10].Value.(primitive.Symbol))} {
		if unsafe.StringData(s) == unsafe.StringData(val) || unsafe.StringData(s) == unsafe.StringData(key) {
			t.Fatalf("%q shares the input's memory", s)
		}
	}
}
