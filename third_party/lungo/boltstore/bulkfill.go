package boltstore

// Bulk fill of a closed database file, for benchmarks that measure a rate
// "with N documents stored" (deploy/cmd/bench -engine-growth): the system
// writes a few documents through its own code, then those documents are
// copied many times straight into the file, in one bbolt transaction, at a
// cost that does not depend on the engine's cost per insert. The copies keep
// the shapes the services wrote and the namespace's indexes; each gets a new
// _id, and a new value in every field of a unique index, so that the file
// still opens (its unique indexes are rebuilt and checked at open).

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"go.etcd.io/bbolt"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// FileMarks is, for each namespace ("db.coll") of a closed database file, the
// last sequence number given to a document: what Replicate takes as the
// start of the documents to copy.
func FileMarks(path string) (map[string]uint64, error) {
	db, err := openBolt(path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	marks := map[string]uint64{}
	err = db.View(func(tx *bbolt.Tx) error {
		root := tx.Bucket(bucketNamespaces)
		if root == nil {
			return nil
		}
		return root.ForEachBucket(func(name []byte) error {
			if docs := root.Bucket(name).Bucket(bucketDocuments); docs != nil {
				marks[string(name)] = docs.Sequence()
			}
			return nil
		})
	})
	return marks, err
}

// ReplicateStats is what Replicate wrote, and the BSON the file holds after.
type ReplicateStats struct {
	Copied      int   // documents written
	StoredBytes int64 // BSON bytes of every document in the file
	StoredDocs  int
}

// Replicate copies, copies times each, every document of the closed database
// file at path written after since and up to until (FileMarks; a namespace
// missing from since counts from its start, one missing from a non-nil until
// is left alone). keep, when set, may change a copy further or leave it out
// (ns "db.coll", k the copy's number from 1). A document with a unique field
// of a type that cannot be renewed (a boolean) is not copied. Copies go after
// the existing documents, one transaction per namespace.
func Replicate(path string, since, until map[string]uint64, copies int, keep func(ns string, doc bsonkit.Doc, k int) bool) (ReplicateStats, error) {
	var st ReplicateStats
	db, err := openBolt(path)
	if err != nil {
		return st, err
	}
	defer db.Close()
	var names []string
	err = db.View(func(tx *bbolt.Tx) error {
		root := tx.Bucket(bucketNamespaces)
		if root == nil {
			return errors.New("no namespaces")
		}
		return root.ForEachBucket(func(name []byte) error { names = append(names, string(name)); return nil })
	})
	for _, name := range names {
		if err != nil {
			break
		}
		top, bounded := uint64(1<<63), until != nil
		if bounded {
			var ok bool
			if top, ok = until[name]; !ok {
				continue
			}
		}
		err = db.Update(func(tx *bbolt.Tx) error {
			b := tx.Bucket(bucketNamespaces).Bucket([]byte(name))
			docs := b.Bucket(bucketDocuments)
			if docs == nil {
				return nil
			}
			var defs bson.D
			if raw := b.Get(keyIndexes); raw != nil {
				if err := bson.Unmarshal(raw, &defs); err != nil {
					return fmt.Errorf("%s: index definitions: %w", name, err)
				}
			}
			var unique []string
			for _, e := range defs {
				var fi lungo.FileIndex
				if err := bsonTransfer(e.Value, &fi); err != nil {
					return fmt.Errorf("%s: index %s: %w", name, e.Key, err)
				}
				if fi.Unique && fi.Key != nil {
					for _, k := range *fi.Key {
						if k.Key != "_id" {
							unique = append(unique, k.Key)
						}
					}
				}
			}
			var templates []bsonkit.Doc
			dc := bsonkit.NewRawDecoder()
			mark := since[name]
			if err := docs.ForEach(func(k, v []byte) error {
				doc, seq, err := decodeRecord(dc, k, v)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				if seq > mark && seq <= top {
					templates = append(templates, doc)
				}
				return nil
			}); err != nil {
				return err
			}
			count := countOf(b)
			for k := 1; k <= copies && len(templates) > 0; k++ {
				for _, t := range templates {
					doc := bsonkit.Clone(t)
					if err := renew(doc, "_id", k); err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					renewed := true
					for _, f := range unique {
						if err := renew(doc, f, k); errors.Is(err, errNotRenewable) {
							renewed = false
						} else if err != nil {
							return fmt.Errorf("%s: %w", name, err)
						}
					}
					if !renewed || (keep != nil && !keep(name, doc, k)) {
						continue
					}
					key, err := idKey(doc)
					if err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					seq, err := docs.NextSequence()
					if err != nil {
						return err
					}
					v, err := encodeRecord(key, seq, doc)
					if err != nil {
						return fmt.Errorf("%s: %w", name, err)
					}
					if err := docs.Put(key, v); err != nil {
						return err
					}
					count++
					st.Copied++
				}
			}
			var cb [8]byte
			binary.BigEndian.PutUint64(cb[:], count)
			return b.Put(keyCount, cb[:])
		})
	}
	if err != nil {
		return st, fmt.Errorf("replicating %s: %w", path, err)
	}
	st.StoredBytes, st.StoredDocs, err = storedBytes(db)
	return st, err
}

var errNotRenewable = errors.New("no new value can be made")

// renew gives a copy's field a value no other document has: a new ObjectID,
// a string with "~k<copy>" and a counter appended, a number moved up by
// copy×10⁹. A missing or null field stays as it is (a sparse or partial
// index does not hold it).
func renew(doc bsonkit.Doc, field string, k int) error {
	v := bsonkit.Get(doc, field)
	var nv any
	switch x := v.(type) {
	case primitive.ObjectID:
		nv = primitive.NewObjectID()
	case string:
		nv = fmt.Sprintf("%s~k%d", x, k)
	case int32:
		nv = int64(x) + int64(k)*1_000_000_000
	case int64:
		nv = x + int64(k)*1_000_000_000
	case float64:
		nv = x + float64(k)*1e9
	default:
		if v == bsonkit.Missing || v == nil {
			return nil
		}
		return fmt.Errorf("%w: %s holds a %T", errNotRenewable, field, v)
	}
	_, err := bsonkit.Put(doc, field, nv, false)
	return err
}

// StoredBytes is the BSON bytes and the number of the documents a closed
// database file holds.
func StoredBytes(path string) (int64, int, error) {
	db, err := openBolt(path)
	if err != nil {
		return 0, 0, err
	}
	defer db.Close()
	return storedBytes(db)
}

func storedBytes(db *bbolt.DB) (n int64, docs int, err error) {
	err = db.View(func(tx *bbolt.Tx) error {
		root := tx.Bucket(bucketNamespaces)
		if root == nil {
			return nil
		}
		return root.ForEachBucket(func(name []byte) error {
			d := root.Bucket(name).Bucket(bucketDocuments)
			if d == nil {
				return nil
			}
			return d.ForEach(func(_, v []byte) error {
				n += int64(max(len(v)-recordHeader, 0))
				docs++
				return nil
			})
		})
	})
	return n, docs, err
}
