package mongokit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

func ids(list bsonkit.List) []interface{} {
	out := []interface{}{}
	for _, doc := range list {
		out = append(out, bsonkit.Get(doc, "_id"))
	}
	return out
}

// The selection that Find, Update, Replace and Delete share: natural order
// without a sort (kept by replacements and updates), a stable sort, skip and
// limit, and a bad query reported with and without a sort.
func TestCollectionSelect(t *testing.T) {
	c := NewCollection(true)
	for i := 1; i <= 300; i++ { // more than one scan chunk
		_, err := c.Insert(bsonkit.MustConvert(bson.M{"_id": i, "g": i % 3}))
		require.NoError(t, err)
	}

	// replace and update keep the place
	_, err := c.Replace(bsonkit.MustConvert(bson.M{"_id": 2}), bsonkit.MustConvert(bson.M{"g": 0}), nil)
	require.NoError(t, err)
	_, err = c.Update(bsonkit.MustConvert(bson.M{"_id": 4}), bsonkit.MustConvert(bson.M{"$set": bson.M{"g": 0}}), nil, 0, 0, nil)
	require.NoError(t, err)

	res, err := c.Find(bsonkit.MustConvert(bson.M{"g": 0}), nil, 1, 3)
	require.NoError(t, err)
	assert.Equal(t, []interface{}{int64(3), int64(4), int64(6)}, ids(res.Matched))

	res, err = c.Find(bsonkit.MustConvert(bson.M{"g": 0}), bsonkit.MustConvert(bson.M{"g": 1}), 0, 4)
	require.NoError(t, err)
	assert.Equal(t, []interface{}{int64(2), int64(3), int64(4), int64(6)}, ids(res.Matched)) // stable: natural order within g

	res, err = c.Find(bsonkit.MustConvert(bson.M{"_id": bson.M{"$gt": 295}}), bsonkit.MustConvert(bson.M{"_id": -1}), 1, 0)
	require.NoError(t, err)
	assert.Equal(t, []interface{}{int64(299), int64(298), int64(297), int64(296)}, ids(res.Matched))

	_, err = c.Find(bsonkit.MustConvert(bson.M{"g": bson.M{"$bad": 1}}), nil, 0, 0)
	assert.Error(t, err)
	_, err = c.Find(bsonkit.MustConvert(bson.M{"g": bson.M{"$bad": 1}}), bsonkit.MustConvert(bson.M{"g": 1}), 0, 0)
	assert.Error(t, err)
	_, err = c.Delete(bsonkit.MustConvert(bson.M{"g": bson.M{"$bad": 1}}), bsonkit.MustConvert(bson.M{"g": 1}), 0, 0)
	assert.Error(t, err)

	// delete keeps the others' order
	res, err = c.Delete(bsonkit.MustConvert(bson.M{"g": 0}), nil, 0, 2)
	require.NoError(t, err)
	assert.Equal(t, []interface{}{int64(2), int64(3)}, ids(res.Matched))
	res, err = c.Find(bsonkit.MustConvert(bson.M{"g": 0}), nil, 0, 2)
	require.NoError(t, err)
	assert.Equal(t, []interface{}{int64(4), int64(6)}, ids(res.Matched))
	assert.Equal(t, 298, c.Documents.Len())
}
