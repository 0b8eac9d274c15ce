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

// endingCollection runs a collection's writes under contexts it ends, and
// returns from a write outside a transaction once it is durable (the file
// store's group commit, filestore.go; DB.Tx waits at its end).
type endingCollection struct {
	lungo.ICollection
	st *fileStore // nil in memory
}

// durable waits for a write outside a transaction to reach the file. It
// waits after a failed write too: a duplicate key, for one, is an answer
// based on another commit, which may not be on disk yet.
func (c endingCollection) durable(ctx context.Context, err error) error {
	if ctx.Value(txKey{}) != nil {
		return err
	}
	if werr := c.st.waitDurable(ctx); werr != nil {
		return werr
	}
	return err
}

// failedResult is a single result whose write did not become durable.
type failedResult struct{ err error }

func (r failedResult) Decode(any) error               { return r.err }
func (r failedResult) DecodeBytes() (bson.Raw, error) { return nil, r.err }
func (r failedResult) Err() error                     { return r.err }
func (r failedResult) Raw() (bson.Raw, error)         { return nil, r.err }

// durableResult is res once its write (or what it read) is durable.
func (c endingCollection) durableResult(ctx context.Context, res lungo.ISingleResult) lungo.ISingleResult {
	if err := c.durable(ctx, nil); err != nil {
		return failedResult{err}
	}
	return res
}

func ended(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

func (c endingCollection) BulkWrite(ctx context.Context, models []mongo.WriteModel, opts ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.BulkWrite(ctx, models, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) DeleteMany(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.DeleteMany(ctx, filter, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) DeleteOne(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.DeleteOne(ctx, filter, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) Drop(ctx context.Context) error {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.durable(ctx, c.ICollection.Drop(ctx))
}

func (c endingCollection) FindOneAndDelete(ctx context.Context, filter any, opts ...*options.FindOneAndDeleteOptions) lungo.ISingleResult {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.durableResult(ctx, c.ICollection.FindOneAndDelete(ctx, filter, opts...))
}

func (c endingCollection) FindOneAndReplace(ctx context.Context, filter, replacement any, opts ...*options.FindOneAndReplaceOptions) lungo.ISingleResult {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.durableResult(ctx, c.ICollection.FindOneAndReplace(ctx, filter, replacement, opts...))
}

func (c endingCollection) FindOneAndUpdate(ctx context.Context, filter, update any, opts ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	ctx, cancel := ended(ctx)
	defer cancel()
	return c.durableResult(ctx, c.ICollection.FindOneAndUpdate(ctx, filter, update, opts...))
}

func (c endingCollection) Indexes() lungo.IIndexView {
	return endingIndexView{c.ICollection.Indexes(), c}
}

func (c endingCollection) InsertMany(ctx context.Context, docs []any, opts ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.InsertMany(ctx, docs, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) InsertOne(ctx context.Context, doc any, opts ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.InsertOne(ctx, doc, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) ReplaceOne(ctx context.Context, filter, replacement any, opts ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.ReplaceOne(ctx, filter, replacement, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) UpdateByID(ctx context.Context, id, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.UpdateByID(ctx, id, update, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) UpdateMany(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.UpdateMany(ctx, filter, update, opts...)
	return res, c.durable(ctx, err)
}

func (c endingCollection) UpdateOne(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := c.ICollection.UpdateOne(ctx, filter, update, opts...)
	return res, c.durable(ctx, err)
}

// endingIndexView runs index changes under contexts it ends.
type endingIndexView struct {
	lungo.IIndexView
	c endingCollection
}

func (v endingIndexView) CreateMany(ctx context.Context, models []mongo.IndexModel, opts ...*options.CreateIndexesOptions) ([]string, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := v.IIndexView.CreateMany(ctx, models, opts...)
	return res, v.c.durable(ctx, err)
}

func (v endingIndexView) CreateOne(ctx context.Context, model mongo.IndexModel, opts ...*options.CreateIndexesOptions) (string, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := v.IIndexView.CreateOne(ctx, model, opts...)
	return res, v.c.durable(ctx, err)
}

func (v endingIndexView) DropAll(ctx context.Context, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := v.IIndexView.DropAll(ctx, opts...)
	return res, v.c.durable(ctx, err)
}

func (v endingIndexView) DropOne(ctx context.Context, name string, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := v.IIndexView.DropOne(ctx, name, opts...)
	return res, v.c.durable(ctx, err)
}

func (v endingIndexView) DropOneWithKey(ctx context.Context, keys any, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	ctx, cancel := ended(ctx)
	defer cancel()
	res, err := v.IIndexView.DropOneWithKey(ctx, keys, opts...)
	return res, v.c.durable(ctx, err)
}
