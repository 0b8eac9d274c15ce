package mongokit

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

// An _id that is a document (or an array) is compared by value when an update
// or a replacement checks that it did not change: upstream compared the
// interface values with !=, which panics for a document.
func TestCollectionDocumentIDIsImmutable(t *testing.T) {
	c := NewCollection(true)
	id := bson.D{{Key: "store", Value: "s1"}, {Key: "day", Value: 7}}
	_, err := c.Insert(bsonkit.MustConvert(bson.D{{Key: "_id", Value: id}, {Key: "n", Value: 1}}))
	require.NoError(t, err)
	byID := bsonkit.MustConvert(bson.M{"_id": id})

	res, err := c.Update(byID, bsonkit.MustConvert(bson.M{"$inc": bson.M{"n": 1}}), nil, 0, 0, nil)
	require.NoError(t, err)
	assert.Len(t, res.Modified, 1)
	assert.Equal(t, int64(2), bsonkit.Get(res.Modified[0], "n"))

	// a replacement restating the same _id, and one leaving it out
	res, err = c.Replace(byID, bsonkit.MustConvert(bson.D{{Key: "_id", Value: id}, {Key: "n", Value: 5}}), nil)
	require.NoError(t, err)
	assert.Len(t, res.Modified, 1)
	res, err = c.Replace(byID, bsonkit.MustConvert(bson.M{"n": 6}), nil)
	require.NoError(t, err)
	assert.Len(t, res.Modified, 1)

	// changing it is refused, by update and by replacement
	other := bson.D{{Key: "store", Value: "s2"}, {Key: "day", Value: 7}}
	_, err = c.Update(byID, bsonkit.MustConvert(bson.M{"$set": bson.M{"_id": other}}), nil, 0, 0, nil)
	assert.EqualError(t, err, "document _id is immutable")
	_, err = c.Update(byID, bsonkit.MustConvert(bson.M{"$set": bson.M{"_id.day": 8}}), nil, 0, 0, nil)
	assert.EqualError(t, err, "document _id is immutable")
	_, err = c.Replace(byID, bsonkit.MustConvert(bson.D{{Key: "_id", Value: other}, {Key: "n", Value: 7}}), nil)
	assert.EqualError(t, err, "document _id is immutable")

	res, err = c.Find(byID, nil, 0, 0)
	require.NoError(t, err)
	require.Len(t, res.Matched, 1)
	assert.Equal(t, int64(6), bsonkit.Get(res.Matched[0], "n"))
}
