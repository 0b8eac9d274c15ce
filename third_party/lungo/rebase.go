package lungo

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
)

// rebase returns the catalog that applies what the transaction changed onto
// cur, a catalog committed since the transaction began (optimistic
// concurrency, snapshot isolation as in MongoDB: only two writes to one
// document conflict). A namespace that no commit changed since the
// transaction began is taken from the transaction as it is. In a namespace
// both changed, each document the transaction removed (deleted, or the old
// version of one it replaced) must still be current (committed documents are
// immutable, so the pointer is the version) and each it inserted must have
// no current document with its _id; the transaction's removals and puts are
// then applied to a copy of the current namespace (documents and indexes; a
// replaced document keeps its place, an inserted one is appended). A
// namespace created or dropped on either side, an index set changed on
// either side, and a unique index violated by the rebase are conflicts. The
// transaction's new oplog events are appended to the current oplog, stamped
// anew so that the oplog stays in time order.
//
// The returned error is a write conflict (IsWriteConflict) or, for a state
// that should not occur, another error. Neither cur nor the transaction's
// catalogs are changed.
func rebase(cur *Catalog, txn *Transaction) (*Catalog, error) {
	base, mine := txn.base, txn.catalog
	next := cur.Clone()

	// the namespaces the transaction changed, created or dropped
	changed := map[Handle]struct{}{}
	for handle, ns := range mine.Namespaces {
		if handle != Oplog && base.Namespaces[handle] != ns {
			changed[handle] = struct{}{}
		}
	}
	for handle := range base.Namespaces {
		if _, ok := mine.Namespaces[handle]; !ok && handle != Oplog {
			changed[handle] = struct{}{}
		}
	}

	// rebase them
	for handle := range changed {
		b, m, c := base.Namespaces[handle], mine.Namespaces[handle], cur.Namespaces[handle]
		if c == b {
			if m == nil {
				delete(next.Namespaces, handle)
			} else {
				next.Namespaces[handle] = m
			}
			continue
		}
		switch {
		case b == nil || c == nil:
			return nil, conflict(handle, "the namespace was created or dropped concurrently")
		case m == nil:
			return nil, conflict(handle, "the namespace was dropped while it was changed concurrently")
		case !b.Documents.SameOrigin(c.Documents) || !b.Documents.SameOrigin(m.Documents):
			return nil, conflict(handle, "the namespace was dropped and created again")
		case !b.SameIndexes(c) || !b.SameIndexes(m):
			return nil, conflict(handle, "the indexes were changed concurrently")
		}
		ns, err := rebaseNamespace(handle, b, m, c, txn.touched[handle])
		if err != nil {
			return nil, err
		}
		next.Namespaces[handle] = ns
	}

	// append the transaction's events to the current oplog
	b, m, c := base.Namespaces[Oplog], mine.Namespaces[Oplog], cur.Namespaces[Oplog]
	if m != b {
		if m == nil || b == nil || c == nil || !b.Documents.SameOrigin(m.Documents) {
			return nil, fmt.Errorf("lungo: rebase: the oplog was replaced")
		}
		oplog := c.Clone()
		var err error
		m.Documents.Ascend(b.Documents.Next(), func(_ uint64, event bsonkit.Doc) bool {
			_, err = oplog.Insert(restamp(event))
			return err == nil
		})
		if err != nil {
			return nil, fmt.Errorf("lungo: rebase: oplog: %w", err)
		}
		next.Namespaces[Oplog] = oplog
	}

	return next, nil
}

// rebaseNamespace applies what the transaction changed from b to m onto c
// (all three of one origin, with the same indexes), as rebase describes.
func rebaseNamespace(handle Handle, b, m, c *mongokit.Collection, touched []bsonkit.Doc) (*mongokit.Collection, error) {
	// the documents the transaction removed from b and those it put in m
	var gone, put bsonkit.List
	seen := make(map[bsonkit.Doc]struct{}, len(touched))
	for _, doc := range touched {
		if _, ok := seen[doc]; ok {
			continue
		}
		seen[doc] = struct{}{}
		inBase, inMine := b.Documents.Has(doc), m.Documents.Has(doc)
		if inBase && !inMine {
			gone = append(gone, doc)
		} else if inMine && !inBase {
			put = append(put, doc)
		}
	}

	// what the transaction removed must be what is current
	removed := make(map[bsonkit.Doc]bool, len(gone)) // → replaced by a put
	for _, doc := range gone {
		if !c.Documents.Has(doc) {
			return nil, conflict(handle, "document %s was changed or deleted concurrently", idString(doc))
		}
		removed[doc] = false
	}

	// each put replaces the current document of its _id, which must be one
	// the transaction removed, or none (an insert)
	replaces := make(map[bsonkit.Doc]bsonkit.Doc, len(put))  // put → old
	successor := make(map[bsonkit.Doc]bsonkit.Doc, len(put)) // old → put
	for _, doc := range put {
		old, ok := c.LookupID(bsonkit.Get(doc, "_id"))
		if !ok {
			return nil, conflict(handle, "the namespace has no _id index to rebase by")
		}
		if old == nil {
			continue
		}
		if _, mine := removed[old]; !mine {
			return nil, conflict(handle, "document %s was inserted concurrently", idString(doc))
		}
		replaces[doc] = old
		successor[old] = doc
		removed[old] = true
	}

	// apply it to a copy of the current namespace: the documents first (a
	// replaced one keeps its place and sequence number, an inserted one is
	// appended with a new number, as the transaction's may have been given
	// to a concurrent insert, in the transaction's order)
	ns := c.Clone()
	goneSeqs := make(map[bsonkit.Doc]uint64, len(gone))
	for _, doc := range gone {
		seq, ok := c.Documents.Seq(doc)
		if !ok {
			return nil, fmt.Errorf("lungo: rebase: %s: a current document has no sequence number", handle.String())
		}
		goneSeqs[doc] = seq
	}
	for doc, replaced := range removed {
		if !replaced && !ns.Documents.Remove(doc) {
			return nil, fmt.Errorf("lungo: rebase: %s: unable to remove a document", handle.String())
		}
	}
	slices.SortFunc(put, func(x, y bsonkit.Doc) int {
		sx, _ := m.Documents.Seq(x)
		sy, _ := m.Documents.Seq(y)
		return cmp.Compare(sx, sy)
	})
	putSeqs := make([]uint64, len(put))
	for i, doc := range put {
		var ok bool
		if old := replaces[doc]; old != nil {
			ok = ns.Documents.Replace(old, doc)
			putSeqs[i] = goneSeqs[old]
		} else {
			putSeqs[i] = ns.Documents.Next()
			ok = ns.Documents.AddAt(doc, putSeqs[i])
		}
		if !ok {
			return nil, fmt.Errorf("lungo: rebase: %s: unable to put a document", handle.String())
		}
	}

	// then the indexes, which name documents by sequence number: a
	// replacement whose entries stay leaves an index as it is; otherwise
	// every removal before any addition, as the transaction may have moved
	// a unique key from one document to another
	for name, index := range ns.Indexes {
		for _, doc := range gone {
			if next := successor[doc]; next != nil {
				changed, err := index.Changed(doc, next)
				if err != nil {
					return nil, err
				} else if !changed {
					continue
				}
			}
			ok, err := index.Remove(doc, goneSeqs[doc])
			if err != nil {
				return nil, err
			} else if !ok {
				return nil, fmt.Errorf("lungo: rebase: %s: a current document is missing from index %q", handle.String(), name)
			}
		}
		for i, doc := range put {
			if old := replaces[doc]; old != nil {
				changed, err := index.Changed(old, doc)
				if err != nil {
					return nil, err
				} else if !changed {
					continue
				}
			}
			ok, err := index.Add(doc, putSeqs[i])
			if err != nil {
				return nil, err
			} else if !ok {
				return nil, conflict(handle, "document %s violates unique index %q with a concurrent write", idString(doc), name)
			}
		}
	}

	return ns, nil
}

// restamp returns a copy of an oplog event with a new time (its _id.ts and
// clusterTime).
func restamp(event bsonkit.Doc) bsonkit.Doc {
	now := bsonkit.Now()
	event = bsonkit.Clone(event)
	_, _ = bsonkit.Put(event, "_id.ts", now, false)
	_, _ = bsonkit.Put(event, "clusterTime", now, false)
	return event
}

// idString formats a document's _id for an error message.
func idString(doc bsonkit.Doc) string {
	return fmt.Sprintf("%v", bsonkit.Get(doc, "_id"))
}
