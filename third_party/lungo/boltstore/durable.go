package boltstore

// Writes outside a transaction return once durable: Durable wraps a
// collection of the engine a Store serves so that each write, index change
// or drop waits for the file's group commit (boltstore.go) before it
// answers, as a transaction waits at its end (Store.WaitDurable). (The
// project's wrapper also used to run each write under a context of its own,
// ended on return, around a context leak in the engine's Begin: fixed in this
// fork.)

import (
	"context"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// Durable returns c, a collection of the engine s stores, with its writes
// outside a transaction answering once they are durable. A write inside a
// transaction (its context carries one: lungo.TransactionOf) answers at
// once: the transaction's caller waits at its end (WaitDurable). A nil s
// (a database in memory) returns c itself.
func Durable(c lungo.ICollection, s *Store) lungo.ICollection {
	if s == nil {
		return c
	}
	return durableCollection{c, s}
}

// durableCollection is Durable's collection.
type durableCollection struct {
	lungo.ICollection
	st *Store
}

// Clone keeps the clone durable.
func (c durableCollection) Clone(opts ...*options.CollectionOptions) (lungo.ICollection, error) {
	cl, err := c.ICollection.Clone(opts...)
	if err != nil {
		return nil, err
	}
	return durableCollection{cl, c.st}, nil
}

// durable waits for a write outside a transaction to reach the file. It
// waits after a failed write too: a duplicate key, for one, is an answer
// based on another commit, which may not be on disk yet.
func (c durableCollection) durable(ctx context.Context, err error) error {
	if lungo.TransactionOf(ctx) != nil {
		return err
	}
	if werr := c.st.WaitDurable(ctx); werr != nil {
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
func (c durableCollection) durableResult(ctx context.Context, res lungo.ISingleResult) lungo.ISingleResult {
	if err := c.durable(ctx, nil); err != nil {
		return failedResult{err}
	}
	return res
}

func (c durableCollection) BulkWrite(ctx context.Context, models []mongo.WriteModel, opts ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	res, err := c.ICollection.BulkWrite(ctx, models, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) DeleteMany(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	res, err := c.ICollection.DeleteMany(ctx, filter, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) DeleteOne(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	res, err := c.ICollection.DeleteOne(ctx, filter, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) Drop(ctx context.Context) error {
	return c.durable(ctx, c.ICollection.Drop(ctx))
}

func (c durableCollection) FindOneAndDelete(ctx context.Context, filter any, opts ...*options.FindOneAndDeleteOptions) lungo.ISingleResult {
	return c.durableResult(ctx, c.ICollection.FindOneAndDelete(ctx, filter, opts...))
}

func (c durableCollection) FindOneAndReplace(ctx context.Context, filter, replacement any, opts ...*options.FindOneAndReplaceOptions) lungo.ISingleResult {
	return c.durableResult(ctx, c.ICollection.FindOneAndReplace(ctx, filter, replacement, opts...))
}

func (c durableCollection) FindOneAndUpdate(ctx context.Context, filter, update any, opts ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	return c.durableResult(ctx, c.ICollection.FindOneAndUpdate(ctx, filter, update, opts...))
}

func (c durableCollection) Indexes() lungo.IIndexView {
	return durableIndexView{c.ICollection.Indexes(), c}
}

func (c durableCollection) InsertMany(ctx context.Context, docs []any, opts ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	res, err := c.ICollection.InsertMany(ctx, docs, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) InsertOne(ctx context.Context, doc any, opts ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	res, err := c.ICollection.InsertOne(ctx, doc, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) ReplaceOne(ctx context.Context, filter, replacement any, opts ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	res, err := c.ICollection.ReplaceOne(ctx, filter, replacement, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) UpdateByID(ctx context.Context, id, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	res, err := c.ICollection.UpdateByID(ctx, id, update, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) UpdateMany(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	res, err := c.ICollection.UpdateMany(ctx, filter, update, opts...)
	return res, c.durable(ctx, err)
}

func (c durableCollection) UpdateOne(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	res, err := c.ICollection.UpdateOne(ctx, filter, update, opts...)
	return res, c.durable(ctx, err)
}

// durableIndexView returns from an index change once it is durable.
type durableIndexView struct {
	lungo.IIndexView
	c durableCollection
}

func (v durableIndexView) CreateMany(ctx context.Context, models []mongo.IndexModel, opts ...*options.CreateIndexesOptions) ([]string, error) {
	res, err := v.IIndexView.CreateMany(ctx, models, opts...)
	return res, v.c.durable(ctx, err)
}

func (v durableIndexView) CreateOne(ctx context.Context, model mongo.IndexModel, opts ...*options.CreateIndexesOptions) (string, error) {
	res, err := v.IIndexView.CreateOne(ctx, model, opts...)
	return res, v.c.durable(ctx, err)
}

func (v durableIndexView) DropAll(ctx context.Context, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	res, err := v.IIndexView.DropAll(ctx, opts...)
	return res, v.c.durable(ctx, err)
}

func (v durableIndexView) DropOne(ctx context.Context, name string, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	res, err := v.IIndexView.DropOne(ctx, name, opts...)
	return res, v.c.durable(ctx, err)
}

func (v durableIndexView) DropOneWithKey(ctx context.Context, keys any, opts ...*options.DropIndexesOptions) (bson.Raw, error) {
	res, err := v.IIndexView.DropOneWithKey(ctx, keys, opts...)
	return res, v.c.durable(ctx, err)
}
