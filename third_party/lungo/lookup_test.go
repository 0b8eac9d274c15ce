package lungo

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// TestPointLookups: find, findOne, count, update and delete by _id and by a
// unique key (equality and $in), which indexes serve, give what the same
// query wrapped in $and gives (a query the indexes leave to the scan), on
// MongoDB too when one is configured.
func TestPointLookups(t *testing.T) {
	collectionTest(t, func(t *testing.T, c ICollection) {
		_, err := c.Indexes().CreateOne(nil, mongo.IndexModel{
			Keys:    bson.D{{Key: "email", Value: 1}},
			Options: options.Index().SetUnique(true),
		})
		require.NoError(t, err)
		var docs []interface{}
		for i := 0; i < 50; i++ {
			doc := bson.M{"_id": fmt.Sprintf("u%02d", i), "n": int32(i % 7), "email": fmt.Sprintf("e%02d@x", i)}
			if i%5 == 0 {
				doc["email"] = bson.A{fmt.Sprintf("e%02d@x", i), fmt.Sprintf("f%02d@x", i)} // multikey
			}
			docs = append(docs, doc)
		}
		_, err = c.InsertMany(nil, docs)
		require.NoError(t, err)

		find := func(filter bson.D, opts ...*options.FindOptions) []bson.M {
			csr, err := c.Find(nil, filter, opts...)
			require.NoError(t, err)
			var out []bson.M
			require.NoError(t, csr.All(nil, &out))
			return out
		}
		scan := func(filter bson.D) bson.D {
			return bson.D{{Key: "$and", Value: bson.A{filter}}}
		}

		for _, filter := range []bson.D{
			{{Key: "_id", Value: "u03"}},
			{{Key: "_id", Value: "none"}},
			{{Key: "_id", Value: bson.M{"$in": bson.A{"u40", "u02", "u17", "none"}}}},
			{{Key: "email", Value: "e07@x"}},
			{{Key: "email", Value: bson.M{"$in": bson.A{"e33@x", "e08@x"}}}, {Key: "n", Value: int32(1)}},
			{{Key: "email", Value: "f10@x"}},
			{{Key: "email", Value: nil}},
		} {
			// find, with and without a sort, skip and limit
			assert.Equal(t, find(scan(filter)), find(filter), "%v", filter)
			opts := options.Find().SetSort(bson.D{{Key: "n", Value: -1}}).SetSkip(1).SetLimit(2)
			assert.Equal(t, find(scan(filter), opts), find(filter, opts), "%v", filter)

			// count
			n1, err := c.CountDocuments(nil, scan(filter))
			require.NoError(t, err)
			n2, err := c.CountDocuments(nil, filter)
			require.NoError(t, err)
			assert.Equal(t, n1, n2, "%v", filter)

			// findOne
			var one1, one2 bson.M
			err1 := c.FindOne(nil, scan(filter)).Decode(&one1)
			err2 := c.FindOne(nil, filter).Decode(&one2)
			assert.Equal(t, err1, err2)
			assert.Equal(t, one1, one2)
		}

		// update and delete by key
		res, err := c.UpdateOne(nil, bson.M{"_id": "u04"}, bson.M{"$set": bson.M{"n": int32(40)}})
		require.NoError(t, err)
		assert.EqualValues(t, 1, res.ModifiedCount)
		res, err = c.UpdateMany(nil, bson.M{"email": bson.M{"$in": bson.A{"e06@x", "e09@x", "nope"}}}, bson.M{"$set": bson.M{"n": int32(40)}})
		require.NoError(t, err)
		assert.EqualValues(t, 2, res.ModifiedCount)
		del, err := c.DeleteMany(nil, bson.M{"_id": bson.M{"$in": bson.A{"u06", "u11"}}})
		require.NoError(t, err)
		assert.EqualValues(t, 2, del.DeletedCount)
		var ids []string
		for _, doc := range find(bson.D{{Key: "n", Value: int32(40)}}) {
			ids = append(ids, doc["_id"].(string))
		}
		assert.Equal(t, []string{"u04", "u09"}, ids)
		n, err := c.CountDocuments(nil, bson.M{"_id": "u06"})
		require.NoError(t, err)
		assert.EqualValues(t, 0, n)
	})
}
