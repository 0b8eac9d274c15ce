package lungo

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// With Options.NoOplog, every kind of write (single, bulk, in a transaction,
// concurrent ones that rebase, a TTL expiry, a drop) changes the documents as
// without it and logs nothing; a change stream is refused as a standalone
// mongod refuses it. The same writes on an engine with the oplog log events
// (so the check of the empty oplog cannot pass for another reason).
func TestNoOplog(t *testing.T) {
	for _, noOplog := range []bool{false, true} {
		ctx := context.Background()
		client, engine, err := Open(ctx, Options{Store: NewMemoryStore(), NoOplog: noOplog, ExpireInterval: 5 * time.Millisecond,
			MinOplogSize: 1000, MaxOplogSize: 10000})
		require.NoError(t, err)
		db := client.Database("d")
		c := db.Collection("c")

		_, err = c.InsertOne(ctx, bson.M{"_id": 1, "n": 1})
		require.NoError(t, err)
		_, err = c.InsertMany(ctx, []interface{}{bson.M{"_id": 2, "n": 2}, bson.M{"_id": 3, "n": 3}})
		require.NoError(t, err)
		_, err = c.UpdateOne(ctx, bson.M{"_id": 1}, bson.M{"$inc": bson.M{"n": 10}})
		require.NoError(t, err)
		_, err = c.ReplaceOne(ctx, bson.M{"_id": 2}, bson.M{"n": 20})
		require.NoError(t, err)
		_, err = c.DeleteOne(ctx, bson.M{"_id": 3})
		require.NoError(t, err)
		_, err = c.BulkWrite(ctx, []mongo.WriteModel{mongo.NewInsertOneModel().SetDocument(bson.M{"_id": 4, "n": 4}),
			mongo.NewUpdateOneModel().SetFilter(bson.M{"_id": 4}).SetUpdate(bson.M{"$set": bson.M{"n": 40}})})
		require.NoError(t, err)

		// transactions on different documents, concurrently (rebased commits)
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				sess, err := client.StartSession()
				assert.NoError(t, err)
				defer sess.EndSession(ctx)
				_, err = sess.WithTransaction(ctx, func(sc ISessionContext) (interface{}, error) {
					if _, err := c.InsertOne(sc, bson.M{"_id": 100 + i, "n": i}); err != nil {
						return nil, err
					}
					_, err := c.UpdateOne(sc, bson.M{"_id": 100 + i}, bson.M{"$inc": bson.M{"n": 1}})
					return nil, err
				})
				assert.NoError(t, err)
			}(i)
		}
		wg.Wait()

		// a TTL index's expiry
		ttl := db.Collection("ttl")
		_, err = ttl.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.M{"at": 1}, Options: options.Index().SetExpireAfterSeconds(1)})
		require.NoError(t, err)
		_, err = ttl.InsertOne(ctx, bson.M{"_id": "old", "at": time.Now().Add(-time.Hour)})
		require.NoError(t, err)
		require.Eventually(t, func() bool {
			n, err := ttl.CountDocuments(ctx, bson.M{})
			return err == nil && n == 0
		}, 5*time.Second, 5*time.Millisecond)

		// the documents are the same either way
		var docs []bson.M
		cur, err := c.Find(ctx, bson.M{}, options.Find().SetSort(bson.M{"_id": 1}))
		require.NoError(t, err)
		require.NoError(t, cur.All(ctx, &docs))
		require.Len(t, docs, 11)
		assert.Equal(t, bson.M{"_id": int32(1), "n": int32(11)}, docs[0])
		assert.Equal(t, bson.M{"_id": int32(2), "n": int32(20)}, docs[1])
		assert.Equal(t, bson.M{"_id": int32(4), "n": int32(40)}, docs[2])
		assert.Equal(t, bson.M{"_id": int32(107), "n": int32(8)}, docs[10])

		require.NoError(t, db.Collection("gone").Drop(ctx))
		_, err = db.Collection("gone").InsertOne(ctx, bson.M{"_id": 1})
		require.NoError(t, err)
		require.NoError(t, db.Collection("gone").Drop(ctx))

		events := engine.Catalog().Namespaces[Oplog].Documents.Len()
		_, cerr := c.Watch(ctx, mongo.Pipeline{})
		_, derr := db.Watch(ctx, mongo.Pipeline{})
		_, lerr := client.Watch(ctx, mongo.Pipeline{})
		if noOplog {
			assert.Equal(t, 0, events, "events logged without an oplog")
			for _, err := range []error{cerr, derr, lerr} {
				var ce mongo.CommandError
				if assert.True(t, errors.As(err, &ce), "Watch without an oplog: %v", err) {
					assert.Equal(t, int32(40573), ce.Code)
				}
			}
		} else {
			assert.Greater(t, events, 20, "events logged with the oplog")
			assert.NoError(t, cerr)
			assert.NoError(t, derr)
			assert.NoError(t, lerr)
		}
		engine.Close()
	}
}
