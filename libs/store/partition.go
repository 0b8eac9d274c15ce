package store

// Partitioned collections.
//
// The embedded engine copies a collection's whole document set on every
// insert (lungo clones a collection before each write so that a failed one
// leaves nothing behind, per document even in an InsertMany), so an insert
// costs as much as the collection is large. A collection that grows with
// every order and takes inserts on the hot path (the consumers' processed
// ids, the payment processor's processed events, notifications) is therefore
// split, on the embedded engine only, into EmbeddedPartitions collections
// named <base>.pNN, each document in the one its partition key (a field, a
// string) hashes to: an insert copies a thirty-second of it. On MongoDB a
// partitioned collection is the one collection of its name (partitions: 1),
// so production data, indexes and queries do not change.
//
// A partitioned collection's indexes say so (Index.PartitionBy, the same on
// each of them): EnsureIndexes creates them on every partition and moves the
// documents an older version left in the unsplit collection into their
// partitions (one way: an older binary would not look in the partitions). A
// unique index is unique within a partition, so its keys must
// include the partition key, which puts equal keys into the same partition
// (checked by EnsureIndexes). Readers find a document by its partition key
// with For, and everything else by asking every partition (All).

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// EmbeddedPartitions is how many collections a partitioned collection is
// split into on the embedded engine.
const EmbeddedPartitions = 32

// Partitioned is a partitioned collection of one database.
type Partitioned struct {
	db   *DB
	base string
	n    int
}

// Partitioned returns the partitioned collection base.
func (d *DB) Partitioned(base string) Partitioned {
	n := 1
	if d.embedded {
		n = EmbeddedPartitions
	}
	return Partitioned{db: d, base: base, n: n}
}

// name is partition i's collection name.
func (p Partitioned) name(i int) string {
	if p.n == 1 {
		return p.base
	}
	return fmt.Sprintf("%s.p%02d", p.base, i)
}

// partitionBase is the collection a partition belongs to (name itself for
// any other collection).
func partitionBase(name string) string {
	i := strings.LastIndex(name, ".p")
	if i < 0 || len(name) != i+4 || name[i+2] < '0' || name[i+2] > '9' || name[i+3] < '0' || name[i+3] > '9' {
		return name
	}
	return name[:i]
}

// index is the partition of a partition key.
func (p Partitioned) index(key string) int {
	if p.n == 1 {
		return 0
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return int(h.Sum32() % uint32(p.n))
}

// For is the collection holding the documents whose partition key is key.
func (p Partitioned) For(key string) lungo.ICollection { return p.db.Collection(p.name(p.index(key))) }

// All is every partition's collection, in partition order.
func (p Partitioned) All() []lungo.ICollection {
	out := make([]lungo.ICollection, p.n)
	for i := range out {
		out[i] = p.db.Collection(p.name(i))
	}
	return out
}

// Group splits keys by the partition they live in: for each partition
// holding any of them, its collection and the positions in keys of its keys.
func (p Partitioned) Group(keys []string) []KeyGroup {
	at := map[int]int{}
	var out []KeyGroup
	for i, k := range keys {
		pi := p.index(k)
		g, ok := at[pi]
		if !ok {
			g = len(out)
			at[pi] = g
			out = append(out, KeyGroup{Coll: p.db.Collection(p.name(pi))})
		}
		out[g].At = append(out[g].At, i)
	}
	return out
}

// KeyGroup is one partition's share of a list of keys (Partitioned.Group).
type KeyGroup struct {
	Coll lungo.ICollection
	At   []int // positions in the list
}

// ensurePartitioned creates a partitioned collection's indexes on every
// partition and adopts what the unsplit collection holds.
func (d *DB) ensurePartitioned(ctx context.Context, base, by string, idx []Index) error {
	p := d.Partitioned(base)
	for i := 0; i < p.n; i++ {
		for _, ix := range idx {
			ix.Collection = p.name(i)
			ix.PartitionBy = ""
			if err := d.EnsureIndexes(ctx, ix); err != nil {
				return err
			}
		}
	}
	if p.n == 1 {
		return nil
	}
	return d.adopt(ctx, p, by)
}

func hasKey(keys bson.D, field string) bool {
	for _, k := range keys {
		if k.Key == field {
			return true
		}
	}
	return false
}

// adoptBatch is how many documents one transaction of a move takes.
const adoptBatch = 1000

// adopt moves the documents of the unsplit collection (written before it was
// partitioned) into their partitions, a batch per transaction (each document
// inserted and deleted in the same one, so none is ever lost or doubled).
func (d *DB) adopt(ctx context.Context, p Partitioned, by string) error {
	src := d.Collection(p.base)
	moved := 0
	for {
		n := 0
		err := d.Tx(ctx, func(tx context.Context) error {
			n = 0
			cur, err := src.Find(Scan(tx, "moving an unsplit collection into its partitions: every document, once"), bson.D{}, options.Find().SetLimit(adoptBatch))
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
			keys := make([]string, len(docs))
			ids := make(bson.A, len(docs))
			for i, doc := range docs {
				k, ok := doc.Lookup(by).StringValueOK()
				if !ok {
					return fmt.Errorf("store: a document of %s has no string %s to partition it by: %s", p.base, by, doc.Lookup("_id"))
				}
				keys[i], ids[i] = k, doc.Lookup("_id")
			}
			for _, g := range p.Group(keys) {
				batch := make([]any, 0, len(g.At))
				for _, at := range g.At {
					// A document already in its partition (the same version
					// run twice over an interrupted move, or an older binary
					// run again meanwhile) is dropped from the source only if
					// it is the same document.
					var there bson.Raw
					err := g.Coll.FindOne(tx, bson.D{{Key: "_id", Value: ids[at]}}).Decode(&there)
					switch {
					case err == nil && bytes.Equal(there, docs[at]):
						continue
					case err == nil:
						return fmt.Errorf("store: document %s of %s is also in its partition, with other contents: "+
							"an older version wrote it after the split; keep one of the two by hand", docs[at].Lookup("_id"), p.base)
					case !IsNotFound(err):
						return err
					}
					batch = append(batch, docs[at])
				}
				if len(batch) == 0 {
					continue
				}
				if _, err := g.Coll.InsertMany(tx, batch); err != nil {
					return err
				}
			}
			if _, err := src.DeleteMany(tx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}); err != nil {
				return err
			}
			n = len(docs)
			return nil
		})
		if err != nil {
			return fmt.Errorf("store: moving %s into its partitions: %w", p.base, err)
		}
		if n == 0 {
			break
		}
		moved += n
	}
	if moved > 0 && d.log != nil {
		d.log.Warn("store: moved documents of an unsplit collection into its partitions", "collection", p.base, "documents", moved)
	}
	return nil
}
