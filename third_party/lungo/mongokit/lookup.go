package mongokit

import (
	"math"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
)

// maxLookupKeys bounds the key tuples one query may look up in an index
// (the product of the values of a compound key's fields); above it, a scan.
const maxLookupKeys = 1000

// lookupValue reports whether an equality on v may be served by an index: a
// scalar whose index key is the value itself. Null (matches missing fields
// too), arrays (match as a whole or by element), documents, regular
// expressions, NaN and the other types are left to the scan.
func lookupValue(v interface{}) bool {
	switch v := v.(type) {
	case string, int32, int64, bool, primitive.ObjectID, primitive.DateTime, primitive.Timestamp:
		return true
	case float64:
		return !math.IsNaN(v)
	default:
		return false
	}
}

// lookupValues returns the values a top-level condition requires a field to
// equal one of: the value itself, {$eq: v} or {$in: [...]}, each value as
// lookupValue allows. ok is false for any other condition.
func lookupValues(cond interface{}) ([]interface{}, bool) {
	// plain value
	if lookupValue(cond) {
		return []interface{}{cond}, true
	}

	// a single operator
	doc, ok := cond.(bson.D)
	if !ok || len(doc) != 1 {
		return nil, false
	}
	switch doc[0].Key {
	case "$eq":
		if lookupValue(doc[0].Value) {
			return []interface{}{doc[0].Value}, true
		}
	case "$in":
		array, ok := doc[0].Value.(bson.A)
		if !ok {
			return nil, false
		}
		for _, v := range array {
			if !lookupValue(v) {
				return nil, false
			}
		}
		return array, true
	}

	return nil, false
}

// candidates returns, in natural order, the documents that may match the
// query as read from a unique index (the _id index or another one without a
// partial filter) whose every field the query requires to equal a value or
// one of a list ($in) at the top level. The caller must still match each
// candidate with the whole query: the index only narrows the documents. ok
// is false when no index serves the query: the caller scans.
//
// A top-level operator ($or, $and, $nor, $expr...) makes the query a scan,
// as do conditions on dotted paths for the index's fields.
func (c *Collection) candidates(query bsonkit.Doc) (bsonkit.List, bool) {
	// collect the required values per top-level field
	if query == nil || len(*query) == 0 || len(c.Indexes) == 0 {
		return nil, false
	}
	values := map[string][]interface{}{}
	for _, e := range *query {
		if strings.HasPrefix(e.Key, "$") {
			return nil, false
		}
		if strings.Contains(e.Key, ".") {
			continue
		}
		if _, ok := values[e.Key]; ok {
			continue // the first condition suffices: all must hold
		}
		if vs, ok := lookupValues(e.Value); ok {
			values[e.Key] = vs
		}
	}
	if len(values) == 0 {
		return nil, false
	}

	// choose the unique index with the fewest key tuples (the _id index
	// first among equals, then by name, so the choice does not depend on
	// the map's order)
	var best *Index
	var bestName string
	bestCount := 0
	for name, index := range c.Indexes {
		if !index.config.Unique || index.config.Partial != nil {
			continue
		}
		if !indexServes(index, values) {
			continue
		}
		count := 1
		for _, col := range index.columns {
			count *= len(values[col.Path])
			if count > maxLookupKeys {
				break
			}
		}
		if count > maxLookupKeys {
			continue
		}
		if best == nil || count < bestCount || count == bestCount && lookupBefore(name, bestName) {
			best, bestName, bestCount = index, name, count
		}
	}
	if best == nil {
		return nil, false
	}

	// look up every key tuple (the Cartesian product of the values)
	seen := map[bsonkit.Doc]struct{}{}
	var list bsonkit.List
	keys := make([]interface{}, len(best.columns))
	var walk func(int)
	walk = func(i int) {
		if i == len(best.columns) {
			best.base.Lookup(keys, func(doc bsonkit.Doc) bool {
				if _, ok := seen[doc]; !ok {
					seen[doc] = struct{}{}
					list = append(list, doc)
				}
				return true
			})
			return
		}
		for _, v := range values[best.columns[i].Path] {
			keys[i] = v
			walk(i + 1)
		}
	}
	walk(0)

	// order by natural order; a document the set lacks means the index and
	// the set disagree: scan
	seqs := make(map[bsonkit.Doc]uint64, len(list))
	for _, doc := range list {
		seq, ok := c.Documents.Seq(doc)
		if !ok {
			return nil, false
		}
		seqs[doc] = seq
	}
	sort.Slice(list, func(i, j int) bool {
		return seqs[list[i]] < seqs[list[j]]
	})

	return list, true
}

// indexServes reports whether values constrain every field of the index (an
// empty $in gives a count of zero yet serves).
func indexServes(index *Index, values map[string][]interface{}) bool {
	for _, col := range index.columns {
		if _, ok := values[col.Path]; !ok {
			return false
		}
	}
	return true
}

// lookupBefore orders index names for the choice among equally good ones:
// _id_ first, then by name.
func lookupBefore(a, b string) bool {
	if a == "_id_" || b == "_id_" {
		return a == "_id_"
	}
	return a < b
}
