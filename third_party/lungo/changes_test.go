package lungo

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

// changeIDs is a change's put and deleted documents by _id.
func changeIDs(ch Change) (put, del []interface{}) {
	for _, doc := range ch.Put {
		put = append(put, bsonkit.Get(doc, "_id"))
	}
	for _, doc := range ch.Del {
		del = append(del, bsonkit.Get(doc, "_id"))
	}
	return put, del
}

func TestTransactionChanges(t *testing.T) {
	h := Handle{"db", "c"}
	other := Handle{"db", "other"}
	gone := Handle{"db", "gone"}

	// a committed base
	txn := NewTransaction(NewCatalog())
	_, err := txn.Insert(h, bsonkit.List{
		bsonkit.MustConvert(bson.M{"_id": 1, "v": 1}),
		bsonkit.MustConvert(bson.M{"_id": 2, "v": 1}),
		bsonkit.MustConvert(bson.M{"_id": 3, "v": 1}),
		bsonkit.MustConvert(bson.M{"_id": 4, "v": 1}),
	}, true)
	require.NoError(t, err)
	_, err = txn.Insert(other, bsonkit.List{bsonkit.MustConvert(bson.M{"_id": 1})}, true)
	require.NoError(t, err)
	_, err = txn.Insert(gone, bsonkit.List{bsonkit.MustConvert(bson.M{"_id": 1})}, true)
	require.NoError(t, err)
	base := txn.Catalog()
	baseDocs := base.Namespaces[h].Documents.List()

	txn = NewTransaction(base)
	assert.Empty(t, txn.Changes())

	// insert, update (one of two matched changes), replace, delete, an
	// insert that is deleted again, a failed insert, a dropped namespace
	_, err = txn.Insert(h, bsonkit.List{bsonkit.MustConvert(bson.M{"_id": 5})}, true)
	require.NoError(t, err)
	_, err = txn.Update(h, bsonkit.MustConvert(bson.M{"_id": bson.M{"$in": bson.A{1, 2}}}), nil,
		bsonkit.MustConvert(bson.M{"$set": bson.M{"v": 2}}), 0, 0, false, nil)
	require.NoError(t, err)
	_, err = txn.Update(h, bsonkit.MustConvert(bson.M{"_id": bson.M{"$in": bson.A{1, 2}}}), nil,
		bsonkit.MustConvert(bson.M{"$set": bson.M{"v": 3}}), 0, 0, false, nil)
	require.NoError(t, err)
	_, err = txn.Replace(h, bsonkit.MustConvert(bson.M{"_id": 3}), nil, bsonkit.MustConvert(bson.M{"w": 1}), false)
	require.NoError(t, err)
	_, err = txn.Delete(h, bsonkit.MustConvert(bson.M{"_id": 4}), nil, 0, 0)
	require.NoError(t, err)
	_, err = txn.Insert(h, bsonkit.List{bsonkit.MustConvert(bson.M{"_id": 6})}, true)
	require.NoError(t, err)
	_, err = txn.Delete(h, bsonkit.MustConvert(bson.M{"_id": 6}), nil, 0, 0)
	require.NoError(t, err)
	res, err := txn.Insert(h, bsonkit.List{bsonkit.MustConvert(bson.M{"_id": 5})}, true)
	require.NoError(t, err)
	assert.Error(t, res.Error)
	require.NoError(t, txn.Drop(gone))

	changes := map[Handle]Change{}
	for _, ch := range txn.Changes() {
		changes[ch.Handle] = ch
	}
	assert.Len(t, changes, 2)

	ch := changes[h]
	assert.Equal(t, txn.Catalog().Namespaces[h], ch.Collection)
	put, del := changeIDs(ch)
	assert.Equal(t, []interface{}{int64(1), int64(2), int64(3), int64(5)}, put) // natural order
	assert.ElementsMatch(t, []interface{}{int64(1), int64(2), int64(3), int64(4)}, del)
	for _, doc := range ch.Del {
		assert.Contains(t, baseDocs, doc) // the base's versions
	}
	one, ok := txn.Change(h)
	assert.True(t, ok)
	assert.Equal(t, ch, one)

	assert.Nil(t, changes[gone].Collection)
	_, ok = changes[other]
	assert.False(t, ok)

	// a namespace dropped and created again: all of it
	txn = NewTransaction(base)
	require.NoError(t, txn.Drop(h))
	_, err = txn.Insert(h, bsonkit.List{bsonkit.MustConvert(bson.M{"_id": 1, "v": 1})}, true)
	require.NoError(t, err)
	ch, ok = txn.Change(h)
	assert.True(t, ok)
	put, del = changeIDs(ch)
	assert.Equal(t, []interface{}{int64(1)}, put)
	assert.ElementsMatch(t, []interface{}{int64(1), int64(2), int64(3), int64(4)}, del)

	// an update that changes nothing keeps the document
	txn = NewTransaction(base)
	_, err = txn.Update(h, bsonkit.MustConvert(bson.M{}), nil,
		bsonkit.MustConvert(bson.M{"$set": bson.M{"v": 1}}), 0, 0, false, nil)
	require.NoError(t, err)
	assert.Empty(t, txn.Changes())
	assert.Equal(t, baseDocs, txn.Catalog().Namespaces[h].Documents.List())
}

// TransactionOf gives a transaction's function its own transaction (from the
// session context or a context derived from it), so it can read Changes
// before committing; outside one, nil.
func TestTransactionOf(t *testing.T) {
	ctx := context.Background()
	client, engine, err := Open(ctx, Options{Store: NewMemoryStore()})
	require.NoError(t, err)
	defer engine.Close()
	c := client.Database("db").Collection("c")
	assert.Nil(t, TransactionOf(ctx))
	assert.Nil(t, TransactionOf(nil))

	sess, err := client.StartSession()
	require.NoError(t, err)
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc ISessionContext) (interface{}, error) {
		derived := context.WithValue(sc, struct{ k int }{1}, "v")
		txn := TransactionOf(derived)
		require.NotNil(t, txn)
		assert.Empty(t, txn.Changes())
		_, err := c.InsertOne(derived, bson.M{"_id": 1})
		require.NoError(t, err)
		changes := TransactionOf(sc).Changes()
		require.Len(t, changes, 1)
		put, del := changeIDs(changes[0])
		assert.Equal(t, []interface{}{int32(1)}, put)
		assert.Empty(t, del)
		return nil, nil
	})
	require.NoError(t, err)
	assert.Nil(t, TransactionOf(ctx))
}
