package store

// The embedded engine keeps a child of the context of every write it runs
// outside a transaction (and of every transaction it begins) until that
// context is done, and walks all of them at each begin (lungo's Engine.Begin,
// through its tomb). The context of a request or of a loop is never canceled,
// so each write left one behind for good: memory that grows with every write,
// and every write slower than the one before (a transaction took ten times
// longer after 20,000 requests; at 10,000 stored orders the walk was a
// seventh of the all-in-one's CPU). So writes on the embedded engine run
// under a context of their own, ended when they return (DB.Tx does the same
// for transactions); the engine forgets the child at its next begin.

import (
	"context"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// endingCollection runs a collection's writes under contexts it ends.
type endingCollection struct {
	lungo.ICollection
}

func ended(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

func (c endingCollection) BulkWrite(ctx context.Context, models []mongo.WriteModel, opts ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.BulkWrite(ctx, models, opts...)
}

func (c endingCollection) DeleteMany(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.DeleteMany(ctx, filter, opts...)
}

func (c endingCollection) DeleteOne(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.DeleteOne(ctx, filter, opts...)
}

func (c endingCollection) Drop(ctx context.Context) error {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.Drop(ctx)
}

func (c endingCollection) FindOneAndDelete(ctx context.Context, filter any, opts ...*options.FindOneAndDeleteOptions) lungo.ISingleResult {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.FindOneAndDelete(ctx, filter, opts...)
}

func (c endingCollection) FindOneAndReplace(ctx context.Context, filter, replacement any, opts ...*options.FindOneAndReplaceOptions) lungo.ISingleResult {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.FindOneAndReplace(ctx, filter, replacement, opts...)
}

func (c endingCollection) FindOneAndUpdate(ctx context.Context, filter, update any, opts ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.FindOneAndUpdate(ctx, filter, update, opts...)
}

func (c endingCollection) Indexes() lungo.IIndexView {
	return endingIndexView{c.ICollection.Indexes()}
}

func (c endingCollection) InsertMany(ctx context.Context, docs []any, opts ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.InsertMany(ctx, docs, opts...)
}

func (c endingCollection) InsertOne(ctx context.Context, doc any, opts ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.InsertOne(ctx, doc, opts...)
}

func (c endingCollection) ReplaceOne(ctx context.Context, filter, replacement any, opts ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.ReplaceOne(ctx, filter, replacement, opts...)
}

func (c endingCollection) UpdateByID(ctx context.Context, id, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.UpdateByID(ctx, id, update, opts...)
}

func (c endingCollection) UpdateMany(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.UpdateMany(ctx, filter, update, opts...)
}

func (c endingCollection) UpdateOne(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.ICollection.UpdateOne(ctx, filter, update, opts...)
}

// endingIndexView runs index changes under contexts it ends.
type endingIndexView struct {
	lungo.IIndexView
}

func (v endingIndexView) CreateMany(ctx context.Context, models []mongo.IndexModel, opts ...*options.CreateIndexesOptions) ([]string, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return v.IIndexView.CreateMany(ctx, models, opts...)
}

func (v endingIndexView) CreateOne(ctx context.Context, model mongo.IndexModel, opts ...*options.CreateIndexesOptions) (string, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return v.IIndexView.CreateOne(ctx, model, opts...)
}

func (v endingIndexView) DropAll(ctx context.Context, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return v.IIndexView.DropAll(ctx, opts...)
}

func (v endingIndexView) DropOne(ctx context.Context, name string, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return v.IIndexView.DropOne(ctx, name, opts...)
}

func (v endingIndexView) DropOneWithKey(ctx context.Context, keys any, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	return v.IIndexView.DropOneWithKey(ctx, keys, opts...)
}
