package liveset

// The key parsing of live queries' records (tracking.go): which key values a
// filter pins, a document holds, an update may change.

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/mongo"
)

// changesKeys reports whether change (an update's operators, a pipeline or
// a replacement) may change a key field.
func changesKeys(change any, fields []string) bool {
	raw, err := marshalDoc(change)
	if err != nil {
		return true // a pipeline, or something unreadable
	}
	elems, err := raw.Elements()
	if err != nil || len(elems) == 0 {
		return true
	}
	if !strings.HasPrefix(elems[0].Key(), "$") {
		return true // a replacement: its keys are read after
	}
	touches := func(path string) bool {
		for _, f := range fields {
			if path == f || strings.HasPrefix(path, f+".") || strings.HasPrefix(f, path+".") {
				return true
			}
		}
		return false
	}
	for _, op := range elems {
		doc, ok := op.Value().DocumentOK()
		if !ok {
			return true
		}
		paths, err := doc.Elements()
		if err != nil {
			return true
		}
		for _, p := range paths {
			if touches(p.Key()) {
				return true
			}
			if op.Key() == "$rename" {
				if to, ok := p.Value().StringValueOK(); !ok || touches(to) {
					return true
				}
			}
		}
	}
	return false
}

// marshalDoc is v as a BSON document (nil: the empty one); an array (an
// update pipeline) is an error.
func marshalDoc(v any) (bson.Raw, error) {
	switch d := v.(type) {
	case nil:
		return bson.Raw(emptyDoc), nil
	case bson.Raw:
		return d, nil
	case []byte:
		return bson.Raw(d), nil
	case bson.A, []any, mongo.Pipeline, []bson.D, []bson.M:
		return nil, errors.New("not a document")
	case bson.M, bson.D, map[string]any:
		// the fork's conversion and encoder: the driver's bytes (a map's keys
		// sorted), without its reflection
		if doc, err := bsonkit.Transform(d); err == nil {
			if b, err := bsonkit.MarshalAppend(nil, doc); err == nil {
				return b, nil
			}
		}
	}
	b, err := bson.Marshal(v)
	if err != nil {
		return nil, err
	}
	return b, nil
}

var emptyDoc = []byte{5, 0, 0, 0, 0}

// liveKey is a scalar value's key form; false for values that are not
// keys (documents, arrays, binaries, decimals, regular expressions).
func liveKey(v bson.RawValue) (string, bool) {
	switch v.Type {
	case bsontype.String:
		return keyOfValue(v.StringValue())
	case bsontype.Int32:
		return keyOfValue(v.Int32())
	case bsontype.Int64:
		return keyOfValue(v.Int64())
	case bsontype.Double:
		return keyOfValue(v.Double())
	case bsontype.Boolean:
		return keyOfValue(v.Boolean())
	case bsontype.Null, bsontype.Undefined:
		return keyOfValue(nil)
	case bsontype.ObjectID:
		return keyOfValue(v.ObjectID())
	case bsontype.DateTime:
		return keyOfValue(primitive.DateTime(v.DateTime()))
	}
	return "", false
}

// keyOfValue is liveKey of a decoded value (the embedded engine's documents
// hold these types).
func keyOfValue(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case int32:
		return "n:" + strconv.FormatInt(int64(x), 10), true
	case int64:
		return "n:" + strconv.FormatInt(x, 10), true
	case float64:
		switch {
		case x == 0:
			return "n:0", true // -0 too
		case x == math.Trunc(x) && !math.IsInf(x, 0):
			return "n:" + strconv.FormatFloat(x, 'f', -1, 64), true // whole: as an integer's digits
		}
		return "n:" + strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return "b:" + strconv.FormatBool(x), true
	case nil, primitive.Null, primitive.Undefined:
		return "null:", true
	case primitive.ObjectID:
		return "o:" + x.Hex(), true
	case primitive.DateTime:
		return "d:" + strconv.FormatInt(int64(x), 10), true
	}
	return "", false
}

// docKeyValues is keyValues of a decoded document (the embedded engine's).
func docKeyValues(doc bson.D, field string) ([]string, bool) {
	path := strings.Split(field, ".")
	cur := doc
	for i, p := range path {
		v, found := lookupD(cur, p)
		if !found {
			return []string{"null:"}, true
		}
		if i < len(path)-1 {
			switch x := v.(type) {
			case bson.D:
				cur = x
				continue
			case bson.A, []any, bson.M, map[string]any, *bson.D:
				return nil, false
			}
			return []string{"null:"}, true
		}
		arr, isArr := v.(bson.A)
		if a, ok := v.([]any); ok {
			arr, isArr = a, true
		}
		if isArr {
			return keysOfEach(arr, keyOfValue)
		}
		s, ok := keyOfValue(v)
		if !ok {
			return nil, false
		}
		return []string{s}, true
	}
	return nil, false
}

// keysOfEach are the key forms of an array's elements; false if one has none.
func keysOfEach[T any](vals []T, key func(T) (string, bool)) ([]string, bool) {
	var out []string
	for _, e := range vals {
		s, ok := key(e)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

// lookupD is the value of a document's first field named key.
func lookupD(doc bson.D, key string) (any, bool) {
	for _, e := range doc {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

// keyValues are a document's values of field (a dotted path): one for a
// scalar, one per element of an array, null for a missing field; false
// when they cannot be said (a document, an array on the way).
func keyValues(doc bson.Raw, field string) ([]string, bool) {
	path := strings.Split(field, ".")
	cur := doc
	for i, p := range path {
		v, err := cur.LookupErr(p)
		if err != nil {
			return []string{"null:"}, true
		}
		if i < len(path)-1 {
			d, ok := v.DocumentOK()
			if !ok {
				if v.Type == bsontype.Array {
					return nil, false
				}
				return []string{"null:"}, true
			}
			cur = d
			continue
		}
		if arr, ok := v.ArrayOK(); ok {
			vals, err := arr.Values()
			if err != nil {
				return nil, false
			}
			return keysOfEach(vals, liveKey)
		}
		s, ok := liveKey(v)
		if !ok {
			return nil, false
		}
		return []string{s}, true
	}
	return nil, false
}

// equalities are the values filter pins field to by equality: a plain value,
// {$eq: v} or {$in: [...]}; false when it does not.
func equalities(v bson.RawValue) ([]string, bool) {
	if d, ok := v.DocumentOK(); ok {
		elems, err := d.Elements()
		if err != nil || len(elems) == 0 || !strings.HasPrefix(elems[0].Key(), "$") {
			return nil, false // a whole-document match
		}
		for _, e := range elems {
			switch e.Key() {
			case "$eq":
				if s, ok := liveKey(e.Value()); ok {
					return []string{s}, true
				}
			case "$in":
				arr, ok := e.Value().ArrayOK()
				if !ok {
					continue
				}
				vals, err := arr.Values()
				if err != nil || len(vals) == 0 || len(vals) > MaxReadValues {
					continue
				}
				var out []string
				for _, x := range vals {
					s, ok := liveKey(x)
					if !ok {
						out = nil
						break
					}
					out = append(out, s)
				}
				if out != nil {
					return out, true
				}
			}
		}
		return nil, false
	}
	if s, ok := liveKey(v); ok {
		return []string{s}, true
	}
	return nil, false
}

// readsOf is what a read with filter reads of coll (see the top of the file).
func readsOf(coll string, filter bson.Raw, keys []string) Reads {
	if rs, ok := keyedReads(coll, filter, keys); ok {
		return rs
	}
	return Reads{{Coll: coll}}
}

// keyedReads are the reads of filter keyed by one of keys; false when it
// pins none.
func keyedReads(coll string, filter bson.Raw, keys []string) (Reads, bool) {
	eq := map[string][]string{}
	var ors []Reads
	var walk func(doc bson.Raw)
	walk = func(doc bson.Raw) {
		elems, err := doc.Elements()
		if err != nil {
			return
		}
		for _, e := range elems {
			switch k := e.Key(); {
			case k == "$and":
				if arr, ok := e.Value().ArrayOK(); ok {
					vals, _ := arr.Values()
					for _, x := range vals {
						if d, ok := x.DocumentOK(); ok {
							walk(d)
						}
					}
				}
			case k == "$or":
				arr, ok := e.Value().ArrayOK()
				if !ok {
					continue
				}
				vals, _ := arr.Values()
				var union Reads
				all := len(vals) > 0
				for _, x := range vals {
					d, ok := x.DocumentOK()
					if !ok {
						all = false
						break
					}
					rs, ok := keyedReads(coll, d, keys)
					if !ok {
						all = false
						break
					}
					union = append(union, rs...)
				}
				if all {
					ors = append(ors, union)
				}
			case strings.HasPrefix(k, "$"):
				// $nor, $expr, $text...: a condition more, never wider
			case slices.Contains(keys, k):
				if _, have := eq[k]; !have {
					if vs, ok := equalities(e.Value()); ok {
						eq[k] = vs
					}
				}
			}
		}
	}
	walk(filter)
	for _, k := range keys {
		if vs, ok := eq[k]; ok {
			return Reads{{Coll: coll, Field: k, Values: vs}}, true
		}
	}
	if len(ors) > 0 {
		return ors[0], true
	}
	return nil, false
}

// idsPinned are the _id values filter names by equality, if it does.
func idsPinned(filter bson.Raw) ([]any, bool) {
	v, err := filter.LookupErr("_id")
	if err != nil {
		return nil, false
	}
	if d, ok := v.DocumentOK(); ok {
		elems, err := d.Elements()
		if err != nil || len(elems) == 0 || !strings.HasPrefix(elems[0].Key(), "$") {
			return []any{v}, true
		}
		if eq, err := d.LookupErr("$eq"); err == nil && len(elems) == 1 {
			return []any{eq}, true
		}
		if in, err := d.LookupErr("$in"); err == nil && len(elems) == 1 {
			arr, ok := in.ArrayOK()
			if !ok {
				return nil, false
			}
			vals, err := arr.Values()
			if err != nil {
				return nil, false
			}
			out := make([]any, len(vals))
			for i, x := range vals {
				out[i] = x
			}
			return out, true
		}
		return nil, false
	}
	if v.Type == bsontype.Array || v.Type == bsontype.Regex {
		return nil, false
	}
	return []any{v}, true
}

// PipelineStart is the filter of a pipeline's leading $match and the sort
// of the $sort right after it, if any.
func PipelineStart(pipeline any) (filter, sort any) {
	raw, err := bson.Marshal(bson.M{"p": pipeline})
	if err != nil {
		return nil, nil
	}
	arr, ok := bson.Raw(raw).Lookup("p").ArrayOK()
	if !ok {
		return nil, nil
	}
	vals, _ := arr.Values()
	for i, v := range vals {
		doc, ok := v.DocumentOK()
		if !ok || i > 1 {
			break
		}
		if m, err := doc.LookupErr("$match"); err == nil && i == 0 {
			filter = m.Document()
			continue
		}
		if s, err := doc.LookupErr("$sort"); err == nil {
			sort = s.Document()
		}
		break
	}
	if filter == nil {
		filter = bson.D{}
	}
	return filter, sort
}
