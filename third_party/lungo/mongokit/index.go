package mongokit

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"github.com/256dpi/lungo/bsonkit"
)

// TODO: Allow-list supported query operators?

// IndexConfig defines an index configuration.
type IndexConfig struct {
	// The index key.
	Key bsonkit.Doc

	// Whether the index is unique.
	Unique bool

	// The partial index filter.
	Partial bsonkit.Doc

	// The time after documents expire.
	Expiry time.Duration
}

// Equal will compare to configurations and return whether they are equal.
func (c IndexConfig) Equal(d IndexConfig) bool {
	// check key
	if bsonkit.Compare(*c.Key, *d.Key) != 0 {
		return false
	}

	// check unique
	if c.Unique != d.Unique {
		return false
	}

	// check partials
	var p1, p2 bson.D
	if c.Partial != nil {
		p1 = *c.Partial
	}
	if d.Partial != nil {
		p2 = *d.Partial
	}
	if bsonkit.Compare(p1, p2) != 0 {
		return false
	}

	// check expiry
	if c.Expiry != d.Expiry {
		return false
	}

	return true
}

// Name will return the computed index name.
func (c IndexConfig) Name() (string, error) {
	// get columns
	columns, err := Columns(c.Key)
	if err != nil {
		return "", err
	}

	// generate name
	segments := make([]string, 0, len(columns)*2)
	for _, column := range columns {
		var dir = 1
		if column.Reverse {
			dir = -1
		}
		segments = append(segments, column.Path, strconv.Itoa(dir))
	}

	// assemble name
	name := strings.Join(segments, "_")

	return name, nil
}

// Index is an index for documents that supports MongoDB features. The index is
// not safe from concurrent access and does not roll back changes on errors.
// Therefore, the recommended approach is to clone the index before making changes.
type Index struct {
	config  IndexConfig
	columns []bsonkit.Column
	base    *bsonkit.Index

	// writes counts the adds and removes that reached the base index
	// (tests: an update that keeps a document's keys does not write)
	writes int
}

// CreateIndex will create and return a new index.
func CreateIndex(config IndexConfig) (*Index, error) {
	// check key
	if len(*config.Key) == 0 {
		return nil, fmt.Errorf("empty index key")
	}

	// clone key and partial
	config.Key = bsonkit.Clone(config.Key)
	config.Partial = bsonkit.Clone(config.Partial)

	// parse columns
	columns, err := Columns(config.Key)
	if err != nil {
		return nil, err
	}

	// enforce single field ttl index
	if config.Expiry > 0 && len(*config.Key) > 1 {
		return nil, fmt.Errorf("invalid expiring compound index")
	}

	// create index
	index := &Index{
		config:  config,
		columns: columns,
		base:    bsonkit.NewIndex(config.Unique, columns),
	}

	return index, nil
}

// Build will build the index from the documents of the set (entries name
// them by their sequence numbers in it). It may return false if there was a
// unique constraint error when building the index.
func (i *Index) Build(set *bsonkit.Set) (bool, error) {
	// collect the documents, leaving out those that do not match the
	// partial expression
	docs := make(bsonkit.List, 0, set.Len())
	seqs := make([]uint64, 0, set.Len())
	var err error
	set.Ascend(0, func(seq uint64, doc bsonkit.Doc) bool {
		if i.config.Partial != nil {
			var ok bool
			ok, err = Match(doc, i.config.Partial)
			if err != nil || !ok {
				return err == nil
			}
		}
		docs = append(docs, doc)
		seqs = append(seqs, seq)
		return true
	})
	if err != nil {
		return false, err
	}

	return i.base.Build(docs, seqs), nil
}

// Add will add the document, whose sequence number in the collection's set is
// seq, to the index. May return false if the document has already been added
// to the index. If the document has been skipped due to a partial filter true
// is returned.
func (i *Index) Add(doc bsonkit.Doc, seq uint64) (bool, error) {
	// skip documents that do not match partial expression
	if i.config.Partial != nil {
		ok, err := Match(doc, i.config.Partial)
		if err != nil {
			return false, err
		} else if !ok {
			return true, nil
		}
	}

	i.writes++
	return i.base.Add(doc, seq), nil
}

// Has returns whether the specified document, whose sequence number is seq,
// has been added to the index.
func (i *Index) Has(doc bsonkit.Doc, seq uint64) (bool, error) {
	// skip documents that do not match partial expression
	if i.config.Partial != nil {
		ok, err := Match(doc, i.config.Partial)
		if err != nil {
			return false, err
		} else if !ok {
			return false, nil
		}
	}

	return i.base.Has(doc, seq), nil
}

// Remove will remove a document, whose sequence number is seq, from the
// index. May return false if the document has not yet been added to the index.
func (i *Index) Remove(doc bsonkit.Doc, seq uint64) (bool, error) {
	// skip documents that do not match partial expression
	if i.config.Partial != nil {
		ok, err := Match(doc, i.config.Partial)
		if err != nil {
			return false, err
		} else if !ok {
			return true, nil
		}
	}

	i.writes++
	return i.base.Remove(doc, seq), nil
}

// Changed reports whether replacing the document old with new (two versions
// of one document, of one sequence number) changes the index's entries: the
// document enters or leaves a partial index, or its keys change. An index
// that does not change need not be written (Remove and Add): its entries
// name the document by its sequence number, not its version.
func (i *Index) Changed(old, new bsonkit.Doc) (bool, error) {
	if i.config.Partial != nil {
		inOld, err := Match(old, i.config.Partial)
		if err != nil {
			return false, err
		}
		inNew, err := Match(new, i.config.Partial)
		if err != nil {
			return false, err
		}
		if inOld != inNew {
			return true, nil
		}
		if !inOld {
			return false, nil
		}
	}

	return !i.base.SameKeys(old, new), nil
}

// Seqs will return the sequence numbers of all documents in the index, in
// the index's order.
func (i *Index) Seqs() []uint64 {
	return i.base.Seqs()
}

// Config will return the index configuration.
func (i *Index) Config() IndexConfig {
	return IndexConfig{
		Key:     bsonkit.Clone(i.config.Key),
		Unique:  i.config.Unique,
		Partial: bsonkit.Clone(i.config.Partial),
		Expiry:  i.config.Expiry,
	}
}

// SameOrigin reports whether the two indexes are one index or clones of one
// index made by CreateIndex (directly or through other clones), and so have
// the same configuration, without comparing it: CreateIndex gives every index
// a key document of its own, which its clones share.
func (i *Index) SameOrigin(o *Index) bool {
	return i.config.Key == o.config.Key
}

// Clone will clone the index. Mutating the new index will not mutate the
// original index.
func (i *Index) Clone() *Index {
	return &Index{
		config:  i.config,
		columns: i.columns,
		base:    i.base.Clone(),
		writes:  i.writes,
	}
}
