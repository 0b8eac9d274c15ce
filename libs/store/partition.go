package store

// Partitions merged back. Older versions split some collections (the
// consumers' processed ids, the processed webhook events, notifications) on
// the embedded engine into 32 collections named <base>.pNN, because lungo
// copied a collection's whole document set on every write; its collections
// are copy-on-write now (third_party/lungo, "This fork"), so a partition buys
// nothing and every caller uses the plain collection. On MongoDB a
// partitioned collection always was the one collection of its name, so
// nothing changes there.
//
// A database file written by an older version still holds the partitions:
// Open moves every document of each <base>.pNN into <base> and drops the
// partition (mergePartitions). Each partition moves in one transaction (its
// documents inserted into <base> and deleted from the partition together),
// then the emptied partition is dropped: a crash at any point leaves every
// document in exactly one of the two, and the next open finishes the move.
// A document found in both with the same contents (copied by an older
// binary's own migration) is only dropped from the partition; one with other
// contents (two versions of one document, which nothing here can choose
// between) stays in <base> as it is, and the partition's copy is set aside in
// <base>.merge-conflicts ({_id: {partition, id}, doc}) with an error in the
// log: the start goes on and nothing is lost.
// A unique index was unique within a partition only, but its keys had to
// include the partition key, which put equal keys into one partition: the
// merged documents hold no duplicate, and <base>'s unique indexes (created by
// EnsureIndexes) hold across all of them.
//
// An older binary started on a merged file (a rollback) finds its documents
// in the unsplit <base> and moves them back into its partitions at its
// EnsureIndexes (its own migration from before the split), so data survives
// both ways; two versions never share a file at once (bbolt locks it).

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/bson"
)

// partitionBase is the collection a partition <base>.pNN belongs to ("" for
// any other collection).
func partitionBase(name string) string {
	i := strings.LastIndex(name, ".p")
	if i <= 0 || len(name) != i+4 || name[i+2] < '0' || name[i+2] > '9' || name[i+3] < '0' || name[i+3] > '9' {
		return ""
	}
	return name[:i]
}

// mergePartitions moves the documents of every partition an older version
// left in the database into its base collection, and drops the partitions.
func (d *DB) mergePartitions(ctx context.Context) error {
	if d.engine == nil {
		return nil
	}
	var parts []string
	for h := range d.engine.Catalog().Namespaces {
		if h[0] == d.Name() && partitionBase(h[1]) != "" {
			parts = append(parts, h[1])
		}
	}
	slices.Sort(parts)
	moved := 0
	for _, name := range parts {
		n, err := d.mergePartition(ctx, name)
		if err != nil {
			return fmt.Errorf("store: merging partition %s into %s: %w", name, partitionBase(name), err)
		}
		moved += n
	}
	if len(parts) > 0 && d.log != nil {
		d.log.Warn("store: merged the partitions an older version wrote into their collections",
			"partitions", len(parts), "documents", moved)
	}
	return nil
}

// mergePartition moves one partition's documents into its base in one
// transaction, then drops it. The engine's own collections are used: the
// move adds no data (DB_MEMORY_LIMIT does not refuse it), and DB.Tx waits
// until it is durable.
func (d *DB) mergePartition(ctx context.Context, name string) (int, error) {
	part, base := d.IDatabase.Collection(name), d.IDatabase.Collection(partitionBase(name))
	moved, conflicts := 0, 0
	err := d.Tx(ctx, func(tx context.Context) error {
		moved, conflicts = 0, 0
		cur, err := part.Find(tx, bson.D{})
		if err != nil {
			return err
		}
		var docs []bson.Raw
		if err := cur.All(tx, &docs); err != nil {
			return err
		}
		if len(docs) == 0 {
			return nil
		}
		batch := make([]any, 0, len(docs))
		var aside []any
		for _, doc := range docs {
			id := doc.Lookup("_id")
			var there bson.Raw
			err := base.FindOne(tx, bson.D{{Key: "_id", Value: id}}).Decode(&there)
			switch {
			case err == nil && bytes.Equal(there, doc):
				continue
			case err == nil:
				aside = append(aside, bson.D{{Key: "_id", Value: bson.D{{Key: "partition", Value: name}, {Key: "id", Value: id}}}, {Key: "doc", Value: doc}})
				continue
			case !IsNotFound(err):
				return err
			}
			batch = append(batch, doc)
		}
		if len(batch) > 0 {
			if _, err := base.InsertMany(tx, batch); err != nil {
				return err
			}
		}
		if len(aside) > 0 {
			if _, err := d.IDatabase.Collection(partitionBase(name)+".merge-conflicts").InsertMany(tx, aside); err != nil {
				return err
			}
		}
		conflicts = len(aside)
		if _, err := part.DeleteMany(tx, bson.D{}); err != nil {
			return err
		}
		moved = len(batch)
		return nil
	})
	if err != nil {
		return 0, err
	}
	if conflicts > 0 && d.log != nil {
		d.log.Error("store: documents of a partition were also in its collection with other contents: the collection's copies are kept, the partition's set aside",
			"partition", name, "documents", conflicts, "setAside", partitionBase(name)+".merge-conflicts")
	}
	if err := part.Drop(ctx); err != nil {
		return moved, err
	}
	return moved, d.WaitDurable(ctx)
}
