package lungo

import (
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// upstreamEvent is how upstream built an oplog event: a bson.M converted
// (its keys sorted, the document copied), the removed fields sorted here
// (upstream left them in the map's order).
func upstreamEvent(now primitive.Timestamp, handle Handle, op string, doc bsonkit.Doc, changes *mongokit.Changes) bsonkit.Doc {
	ns := bson.M{"db": handle[0]}
	if handle[1] != "" {
		ns["coll"] = handle[1]
	}
	event := bson.M{"ns": ns, "_id": bson.M{"ts": now}, "clusterTime": now, "operationType": op}
	if doc != nil {
		event["documentKey"] = bson.M{"_id": bsonkit.Get(doc, "_id")}
		if op == "insert" || op == "replace" || op == "update" {
			event["fullDocument"] = *doc
		}
	}
	if changes != nil {
		updated := make(map[string]interface{}, len(changes.Changed))
		removed := make([]string, 0, len(changes.Changed))
		for path, val := range changes.Changed {
			if val == bsonkit.Missing {
				removed = append(removed, path)
			} else {
				updated[path] = val
			}
		}
		sort.Strings(removed)
		event["updateDescription"] = bson.M{"updatedFields": updated, "removedFields": removed, "truncatedArrays": bson.A{}}
	}
	return bsonkit.MustConvert(event)
}

// The oplog's events are the documents upstream made of them, for every
// kind of write, with and without a collection, with updated and removed
// fields; the event shares the document's values instead of copying them.
func TestOplogEventAsUpstream(t *testing.T) {
	now := bsonkit.Now()
	doc := bsonkit.MustConvert(bson.M{"_id": primitive.NewObjectID(), "a": bson.M{"b": bson.A{1, "x", 2.5}}, "c": nil, "d": primitive.DateTime(1700000000000)})
	changes := &mongokit.Changes{Changed: map[string]interface{}{"a.b": bson.A{int32(1)}, "z": bsonkit.Missing, "c": nil, "y": bsonkit.Missing, "e": "v"}}
	for _, c := range []struct {
		handle  Handle
		op      string
		doc     bsonkit.Doc
		changes *mongokit.Changes
	}{
		{Handle{"db", "coll"}, "insert", doc, nil},
		{Handle{"db", "coll"}, "replace", doc, nil},
		{Handle{"db", "coll"}, "update", doc, changes},
		{Handle{"db", "coll"}, "update", doc, &mongokit.Changes{Changed: map[string]interface{}{}}},
		{Handle{"db", "coll"}, "delete", doc, nil},
		{Handle{"db", "coll"}, "drop", nil, nil},
		{Handle{"db", ""}, "dropDatabase", nil, nil},
	} {
		want := upstreamEvent(now, c.handle, c.op, c.doc, c.changes)
		got := oplogEvent(now, c.handle, c.op, c.doc, c.changes)
		assert.Equal(t, *want, *got, "%s %v", c.op, c.handle)
		assert.Zero(t, bsonkit.Compare(*want, *got), "%s %v", c.op, c.handle)
	}
}
