package bsonkit

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsoncodec"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// The direct conversion of Transform: it gives, for the values it knows, the
// Go values that bson.Marshal followed by bson.Unmarshal into a bson.D give
// with the driver's default registry (go.mongodb.org/mongo-driver v1.17,
// bsoncodec's default encoders and decoders), without the bytes in between.
// For anything else it answers false and Transform takes the round trip for
// the whole value, so that custom marshalers, structs, pointers and the
// driver's errors (a key with a null byte, a uint64 above MaxInt64) stay the
// driver's. TestTransformDirectMatchesRoundTrip checks every rule below
// against the round trip.

// transformDoc converts a top-level document. A nil map or bson.D is left to
// the round trip (the driver writes an empty document for it).
func transformDoc(v interface{}) (Doc, bool) {
	kt := keyTables.Get().(keyTable)
	defer keyTables.Put(kt)
	d := new(bson.D)
	var ok bool
	switch x := v.(type) {
	case bson.M:
		if x == nil {
			return nil, false
		}
		*d, ok = kt.transformMap(x)
	case map[string]interface{}:
		if x == nil {
			return nil, false
		}
		*d, ok = kt.transformMap(x)
	case bson.D:
		if x == nil {
			return nil, false
		}
		*d, ok = kt.transformD(x)
	case *bson.D:
		if x == nil || *x == nil {
			return nil, false
		}
		*d, ok = kt.transformD(*x)
	default:
		return nil, false
	}
	if !ok {
		return nil, false
	}
	return d, true
}

// keyTables serve the direct conversion: keys are copied once per table.
var keyTables = sync.Pool{New: func() any { return keyTable{} }}

// transformMap converts a map into a bson.D with the keys sorted: the driver
// writes a map in its iteration order, which Go randomizes; sorted is one of
// the orders the round trip can give, and the same every time.
func (kt keyTable) transformMap(m map[string]interface{}) (bson.D, bool) {
	d := make(bson.D, 0, len(m))
	for k, v := range m {
		if strings.IndexByte(k, 0) >= 0 {
			return nil, false // the driver's error
		}
		val, ok := kt.transformValue(v)
		if !ok {
			return nil, false
		}
		d = append(d, bson.E{Key: kt.of(k), Value: val})
	}
	if len(d) > 1 {
		slices.SortFunc(d, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
	}
	return d, true
}

func (kt keyTable) transformD(in bson.D) (bson.D, bool) {
	d := make(bson.D, len(in))
	for i, e := range in {
		if strings.IndexByte(e.Key, 0) >= 0 {
			return nil, false
		}
		val, ok := kt.transformValue(e.Value)
		if !ok {
			return nil, false
		}
		d[i] = bson.E{Key: kt.of(e.Key), Value: val}
	}
	return d, true
}

func (kt keyTable) transformArray(in []interface{}) (bson.A, bool) {
	a := make(bson.A, len(in))
	for i, v := range in {
		val, ok := kt.transformValue(v)
		if !ok {
			return nil, false
		}
		a[i] = val
	}
	return a, true
}

// transformSlice converts a typed slice (an array of its elements; nil is
// null).
func transformSlice[T any](kt keyTable, in []T) (interface{}, bool) {
	if in == nil {
		return nil, true
	}
	a := make(bson.A, len(in))
	for i, v := range in {
		val, ok := kt.transformValue(v)
		if !ok {
			return nil, false
		}
		a[i] = val
	}
	return a, true
}

// transformValue converts one value as the round trip does (the result
// shares no memory with v, as the round trip's does not: strings are copied,
// keys once per distinct key in the table): nil maps,
// documents and slices become null (nil), documents bson.D, arrays bson.A,
// int the int32 it fits in or else int64, the smaller ints int32, uints up
// to uint16 int32 and the larger int64, float32 float64, time.Time the
// primitive.DateTime of its milliseconds, []byte a generic primitive.Binary
// (a copy), primitive.Null nil; the driver's primitive types stay as they
// are (a binary's data copied). A named type of a basic kind (string, bool,
// integers, floats) converts as its kind unless it is the driver's own or
// json.Number, or it or its pointer implements a marshaler.
func (kt keyTable) transformValue(v interface{}) (interface{}, bool) {
	switch x := v.(type) {
	case nil:
		return nil, true
	case bool, int32, int64, float64,
		primitive.DateTime, primitive.ObjectID, primitive.Timestamp, primitive.Decimal128,
		primitive.MinKey, primitive.MaxKey, primitive.Undefined:
		return v, true
	case string:
		return strings.Clone(x), true
	case primitive.Symbol:
		return primitive.Symbol(strings.Clone(string(x))), true
	case primitive.JavaScript:
		return primitive.JavaScript(strings.Clone(string(x))), true
	case primitive.DBPointer:
		return primitive.DBPointer{DB: strings.Clone(x.DB), Pointer: x.Pointer}, true
	case int:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return int32(x), true
		}
		return int64(x), true
	case int8:
		return int32(x), true
	case int16:
		return int32(x), true
	case uint8:
		return int32(x), true
	case uint16:
		return int32(x), true
	case uint32:
		return int64(x), true
	case uint:
		if uint64(x) > math.MaxInt64 {
			return nil, false
		}
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return nil, false
		}
		return int64(x), true
	case float32:
		return float64(x), true
	case time.Time:
		return primitive.NewDateTimeFromTime(x), true
	case primitive.Null:
		return nil, true
	case primitive.Binary:
		if x.Subtype == 0x02 {
			return nil, false // the old binary subtype: its own framing
		}
		return primitive.Binary{Subtype: x.Subtype, Data: append(make([]byte, 0, len(x.Data)), x.Data...)}, true
	case []byte:
		if x == nil {
			return nil, true
		}
		return primitive.Binary{Data: append(make([]byte, 0, len(x)), x...)}, true
	case primitive.Regex:
		// the driver sorts the options and refuses null bytes
		if !sortedASCII(x.Options) || strings.IndexByte(x.Pattern, 0) >= 0 {
			return nil, false
		}
		return primitive.Regex{Pattern: strings.Clone(x.Pattern), Options: strings.Clone(x.Options)}, true
	case bson.M:
		if x == nil {
			return nil, true
		}
		return kt.transformMap(x)
	case map[string]interface{}:
		if x == nil {
			return nil, true
		}
		return kt.transformMap(x)
	case bson.D:
		if x == nil {
			return nil, true
		}
		return kt.transformD(x)
	case bson.A:
		if x == nil {
			return nil, true
		}
		return kt.transformArray(x)
	case []interface{}:
		if x == nil {
			return nil, true
		}
		return kt.transformArray(x)
	case []string:
		return transformSlice(kt, x)
	case []int:
		return transformSlice(kt, x)
	case []int32:
		return transformSlice(kt, x)
	case []int64:
		return transformSlice(kt, x)
	case []float64:
		return transformSlice(kt, x)
	case []bool:
		return transformSlice(kt, x)
	case []primitive.ObjectID:
		return transformSlice(kt, x)
	case []bson.M:
		return transformSlice(kt, x)
	case []bson.D:
		return transformSlice(kt, x)
	case []bson.A:
		return transformSlice(kt, x)
	case []map[string]interface{}:
		return transformSlice(kt, x)
	}
	return kt.transformNamed(v)
}

// sortedASCII tells whether s is ASCII without null bytes, in ascending
// order (the driver writes a regular expression's options sorted by rune).
func sortedASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == 0 || s[i] >= 0x80 || (i > 0 && s[i] < s[i-1]) {
			return false
		}
	}
	return true
}

// transformNamed converts a value of a named type of a basic kind.
func (kt keyTable) transformNamed(v interface{}) (interface{}, bool) {
	rv := reflect.ValueOf(v)
	if !plainNamed(rv.Type()) {
		return nil, false
	}
	switch rv.Kind() {
	case reflect.String:
		return strings.Clone(rv.String()), true
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.Int:
		return kt.transformValue(int(rv.Int()))
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return int32(rv.Int()), true
	case reflect.Int64:
		return rv.Int(), true
	case reflect.Uint8, reflect.Uint16:
		return int32(rv.Uint()), true
	case reflect.Uint, reflect.Uint32, reflect.Uint64:
		return kt.transformValue(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float(), true
	}
	return nil, false
}

var plainNamedTypes sync.Map // reflect.Type -> bool

var (
	tMarshaler      = reflect.TypeOf((*bson.Marshaler)(nil)).Elem()
	tValueMarshaler = reflect.TypeOf((*bson.ValueMarshaler)(nil)).Elem()
	tProxy          = reflect.TypeOf((*bsoncodec.Proxy)(nil)).Elem()
	tJSONNumber     = reflect.TypeOf(json.Number(""))
)

// plainNamed tells whether the driver encodes values of t by their kind
// alone: a basic kind, no type encoder of the driver's (its own types,
// json.Number) and no hook (a marshaler or proxy on t or *t).
func plainNamed(t reflect.Type) bool {
	if ok, found := plainNamedTypes.Load(t); found {
		return ok.(bool)
	}
	ok := false
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		ok = t != tJSONNumber && !strings.HasPrefix(t.PkgPath(), "go.mongodb.org/")
		for _, h := range []reflect.Type{tMarshaler, tValueMarshaler, tProxy} {
			if t.Implements(h) || reflect.PointerTo(t).Implements(h) {
				ok = false
			}
		}
	}
	plainNamedTypes.Store(t, ok)
	return ok
}
