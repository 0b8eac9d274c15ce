package bsonkit

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

// MarshalAppend appends the BSON of doc to dst: the bytes bson.MarshalAppend
// appends, written without the driver's reflection when appendRaw knows every
// value of the document.
func MarshalAppend(dst []byte, doc Doc) ([]byte, error) {
	if doc != nil && *doc != nil {
		if out, ok := appendRaw(dst, *doc); ok {
			return out, nil
		}
	}
	return bson.MarshalAppend(dst, doc)
}

// appendRaw appends the BSON of d as bson.Marshal writes it with the driver's
// default registry, for documents made of the values Transform and the
// engine produce (the driver's primitive types, bson.D, bson.A, and int,
// time.Time and primitive.Null, which operators may leave); for anything else
// it answers false and the caller marshals with the driver
// (TestAppendRawMatchesMarshal).
func appendRaw(dst []byte, d bson.D) ([]byte, bool) {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	for _, e := range d {
		if strings.IndexByte(e.Key, 0) >= 0 {
			return dst, false // the driver's error
		}
		var ok bool
		if dst, ok = appendRawElement(dst, e.Key, e.Value); !ok {
			return dst, false
		}
	}
	dst, err := bsoncore.AppendDocumentEnd(dst, idx)
	return dst, err == nil
}

func appendRawArray(dst []byte, a bson.A) ([]byte, bool) {
	idx, dst := bsoncore.AppendArrayStart(dst)
	var key [20]byte
	for i, v := range a {
		var ok bool
		if dst, ok = appendRawElement(dst, string(strconv.AppendInt(key[:0], int64(i), 10)), v); !ok {
			return dst, false
		}
	}
	dst, err := bsoncore.AppendArrayEnd(dst, idx)
	return dst, err == nil
}

func appendRawElement(dst []byte, key string, v interface{}) ([]byte, bool) {
	switch x := v.(type) {
	case nil, primitive.Null:
		return bsoncore.AppendNullElement(dst, key), true
	case string:
		return bsoncore.AppendStringElement(dst, key, x), true
	case bool:
		return bsoncore.AppendBooleanElement(dst, key, x), true
	case int32:
		return bsoncore.AppendInt32Element(dst, key, x), true
	case int64:
		return bsoncore.AppendInt64Element(dst, key, x), true
	case int:
		if x >= math.MinInt32 && x <= math.MaxInt32 {
			return bsoncore.AppendInt32Element(dst, key, int32(x)), true
		}
		return bsoncore.AppendInt64Element(dst, key, int64(x)), true
	case float64:
		return bsoncore.AppendDoubleElement(dst, key, x), true
	case primitive.DateTime:
		return bsoncore.AppendDateTimeElement(dst, key, int64(x)), true
	case time.Time:
		return bsoncore.AppendDateTimeElement(dst, key, int64(primitive.NewDateTimeFromTime(x))), true
	case primitive.ObjectID:
		return bsoncore.AppendObjectIDElement(dst, key, x), true
	case primitive.Timestamp:
		return bsoncore.AppendTimestampElement(dst, key, x.T, x.I), true
	case primitive.Decimal128:
		return bsoncore.AppendDecimal128Element(dst, key, x), true
	case primitive.Binary:
		return bsoncore.AppendBinaryElement(dst, key, x.Subtype, x.Data), true
	case primitive.Regex:
		if !sortedASCII(x.Options) || strings.IndexByte(x.Pattern, 0) >= 0 {
			return dst, false
		}
		return bsoncore.AppendRegexElement(dst, key, x.Pattern, x.Options), true
	case primitive.DBPointer:
		return bsoncore.AppendDBPointerElement(dst, key, x.DB, x.Pointer), true
	case primitive.JavaScript:
		return bsoncore.AppendJavaScriptElement(dst, key, string(x)), true
	case primitive.Symbol:
		return bsoncore.AppendSymbolElement(dst, key, string(x)), true
	case primitive.MinKey:
		return bsoncore.AppendMinKeyElement(dst, key), true
	case primitive.MaxKey:
		return bsoncore.AppendMaxKeyElement(dst, key), true
	case primitive.Undefined:
		return bsoncore.AppendUndefinedElement(dst, key), true
	case bson.D:
		if x == nil {
			return bsoncore.AppendNullElement(dst, key), true
		}
		dst = bsoncore.AppendHeader(dst, bsontype.EmbeddedDocument, key)
		return appendRaw(dst, x)
	case bson.A:
		if x == nil {
			return bsoncore.AppendNullElement(dst, key), true
		}
		dst = bsoncore.AppendHeader(dst, bsontype.Array, key)
		return appendRawArray(dst, x)
	}
	return dst, false
}
