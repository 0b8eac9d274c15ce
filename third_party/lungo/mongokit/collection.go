package mongokit

import (
	"bytes"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"github.com/256dpi/lungo/bsonkit"
)

// TODO: Test Collection.

// docsEqual reports whether two documents are byte-identical when serialized
// to BSON. This matches MongoDB's nModified semantics: a document only counts
// as modified if its serialized bytes change. The documents are compared
// value by value (identical) without serializing them; a value of a type
// that comparison does not know makes it serialize both, as upstream did.
func docsEqual(a, b bsonkit.Doc) bool {
	if same, ok := identical(*a, *b); ok {
		return same
	}
	aBytes, errA := bson.Marshal(a)
	bBytes, errB := bson.Marshal(b)
	if errA != nil || errB != nil {
		return false
	}
	return bytes.Equal(aBytes, bBytes)
}

// identical reports whether two values serialize to the same BSON bytes (as
// a document's field values: same BSON type, same value, bit for bit for a
// double; documents with the same keys in the same order). ok is false when
// the answer depends on a value of a type it does not know; a difference
// found in known types is an answer whatever else the values hold.
func identical(a, b interface{}) (same, ok bool) {
	switch x := a.(type) {
	case nil, primitive.Null:
		switch b.(type) {
		case nil, primitive.Null:
			return true, true // both serialize as null
		}
		return false, known(b)
	case bson.D:
		y, isD := b.(bson.D)
		if !isD {
			return false, known(b)
		}
		if len(x) != len(y) {
			return false, true
		}
		for i := range x {
			if x[i].Key != y[i].Key {
				return false, true
			}
			if same, ok := identical(x[i].Value, y[i].Value); !ok || !same {
				return same, ok
			}
		}
		return true, true
	case bson.A:
		y, isA := b.(bson.A)
		if !isA {
			return false, known(b)
		}
		if len(x) != len(y) {
			return false, true
		}
		for i := range x {
			if same, ok := identical(x[i], y[i]); !ok || !same {
				return same, ok
			}
		}
		return true, true
	case float64:
		y, isF := b.(float64)
		if !isF {
			return false, known(b)
		}
		return math.Float64bits(x) == math.Float64bits(y), true
	case primitive.Binary:
		y, isB := b.(primitive.Binary)
		if !isB {
			return false, known(b)
		}
		return x.Subtype == y.Subtype && bytes.Equal(x.Data, y.Data), true
	case int32, int64, string, bool, primitive.ObjectID, primitive.DateTime, primitive.Timestamp,
		primitive.Decimal128, primitive.Regex, primitive.MinKey, primitive.MaxKey, primitive.Undefined:
		if !known(b) {
			return false, false
		}
		return a == b, true // comparable values; another type is another BSON type
	}
	return false, false
}

// known reports whether identical knows the value's type.
func known(v interface{}) bool {
	switch v.(type) {
	case nil, primitive.Null, bson.D, bson.A, float64, primitive.Binary, int32, int64, string, bool,
		primitive.ObjectID, primitive.DateTime, primitive.Timestamp, primitive.Decimal128, primitive.Regex,
		primitive.MinKey, primitive.MaxKey, primitive.Undefined:
		return true
	}
	return false
}

// Result is returned by collection operations.
type Result struct {
	// The list of found or deleted documents.
	Matched bsonkit.List

	// The list of inserted, replaced or updated documents.
	Modified bsonkit.List

	// The upserted document.
	Upserted bsonkit.Doc

	// The changes applied to updated documents.
	Changes []*Changes
}

// Collection combines a set and multiple indexes to form a basic MongoDB like
// collection that offers basic CRUD capabilities. The collection is not safe
// from concurrent access and does not roll back changes on errors. Therefore,
// the recommended approach is to clone the collection before making changes.
type Collection struct {
	Documents *bsonkit.Set
	Indexes   map[string]*Index
}

// NewCollection will create and return a new collection.
func NewCollection(idIndex bool) *Collection {
	// create collection
	coll := &Collection{
		Documents: bsonkit.NewSet(nil),
		Indexes:   map[string]*Index{},
	}

	// add default index if requested
	if idIndex {
		var err error
		coll.Indexes["_id_"], err = CreateIndex(IndexConfig{
			Key: bsonkit.MustConvert(bson.M{
				"_id": int32(1),
			}),
			Unique: true,
		})
		if err != nil {
			panic(err)
		}
	}

	return coll
}

// Find will look up the documents that match the specified query.
func (c *Collection) Find(query, sort bsonkit.Doc, skip, limit int) (*Result, error) {
	// select documents
	list, err := c.selectDocs(query, sort, skip, limit)
	if err != nil {
		return nil, err
	}

	return &Result{
		Matched: list,
	}, nil
}

// selectDocs returns the documents that match the query: sorted when a sort
// is given, otherwise in natural order, then skipped and limited. An index
// serves the query when it can (lookup.go); otherwise the set is scanned:
// without a sort in place, the scan stopping at the limit.
func (c *Collection) selectDocs(query, sort bsonkit.Doc, skip, limit int) (bsonkit.List, error) {
	// adjust limit
	if limit > 0 {
		limit += skip
	}

	// get sort columns
	var columns []bsonkit.Column
	if sort != nil && len(*sort) > 0 {
		var err error
		columns, err = Columns(sort)
		if err != nil {
			return nil, err
		}
	}

	// read an index, or scan (also when the index path fails: the scan
	// gives the scan's answer or error)
	var list bsonkit.List
	var err error
	if p := c.planQuery(query, columns); p != nil {
		list, err = c.runPlan(p, query, columns, limit)
		if err != nil {
			list, err = c.scan(query, columns, limit)
		}
	} else {
		list, err = c.scan(query, columns, limit)
	}
	if err != nil {
		return nil, err
	}

	// apply skip
	if skip > len(list) {
		list = nil
	} else {
		list = list[skip:]
	}

	return list, nil
}

// scan returns the documents that match the query, sorted by the columns
// (stable: ties in natural order) or in natural order, limited.
func (c *Collection) scan(query bsonkit.Doc, columns []bsonkit.Column, limit int) (bsonkit.List, error) {
	if len(columns) > 0 {
		list := c.Documents.List() // a new list: sorted in place
		bsonkit.Sort(list, columns)
		return Filter(list, query, limit)
	}
	return c.filter(query, limit)
}

// checkQuery matches the first document with the query for its error only:
// a query an index answers with no candidate reports an invalid condition as
// a scan would (a scan matches at least the first document).
func (c *Collection) checkQuery(query bsonkit.Doc) error {
	if first := c.Documents.First(); first != nil {
		_, err := Match(first, query)
		return err
	}
	return nil
}

// filter is Filter over the documents in natural order, without a list of
// them all.
func (c *Collection) filter(query bsonkit.Doc, limit int) (bsonkit.List, error) {
	// prepare result
	var result bsonkit.List
	if limit > 0 {
		result = make(bsonkit.List, 0, limit)
	}

	// select documents
	var matchErr error
	c.Documents.Scan(func(doc bsonkit.Doc) bool {
		res, err := Match(doc, query)
		if err != nil {
			matchErr = err
			return false
		}
		if res {
			result = append(result, doc)
		}
		return limit <= 0 || len(result) < limit
	})
	if matchErr != nil {
		return result, matchErr
	}

	return result, nil
}

// Insert will add the specified document to the collection.
func (c *Collection) Insert(doc bsonkit.Doc) (*Result, error) {
	// ensure object id
	if bsonkit.Get(doc, "_id") == bsonkit.Missing {
		_, err := bsonkit.Put(doc, "_id", primitive.NewObjectID(), true)
		if err != nil {
			return nil, err
		}
	}

	// add document to all indexes, under the sequence number it gets
	seq := c.Documents.Next()
	if err := c.addToIndexes(doc, seq); err != nil {
		return nil, err
	}

	// add document
	if !c.Documents.AddAt(doc, seq) {
		return nil, fmt.Errorf("unable to add document to collection")
	}

	return &Result{
		Modified: bsonkit.List{doc},
	}, nil
}

// addToIndexes adds a new document, under the sequence number it is to get,
// to every index. When one refuses it (a duplicate key), it is taken out of
// those it was added to: an entry left behind would name the next document
// added under that number.
func (c *Collection) addToIndexes(doc bsonkit.Doc, seq uint64) error {
	done := make([]*Index, 0, 8)
	for name, index := range c.Indexes {
		ok, err := index.Add(doc, seq)
		if err == nil && !ok {
			err = fmt.Errorf("duplicate document for index %q", name)
		}
		if err != nil {
			for _, added := range done {
				_, _ = added.Remove(doc, seq)
			}
			return err
		}
		done = append(done, index)
	}
	return nil
}

// Replace will look up the first document that matches the query and if found
// replace it with the specified document.
func (c *Collection) Replace(query, repl, sort bsonkit.Doc) (*Result, error) {
	// select document
	list, err := c.selectDocs(query, sort, 0, 1)
	if err != nil {
		return nil, err
	}

	// check list
	if len(list) == 0 {
		return &Result{}, nil
	}

	// set missing id or check existing id
	replID := bsonkit.Get(repl, "_id")
	if replID == bsonkit.Missing {
		_, err = bsonkit.Put(repl, "_id", bsonkit.Get(list[0], "_id"), true)
		if err != nil {
			return nil, err
		}
	} else if bsonkit.Compare(replID, bsonkit.Get(list[0], "_id")) != 0 {
		return nil, fmt.Errorf("document _id is immutable")
	}

	// a replacement equal to the document (byte for byte) leaves it, with
	// its pointer: a replace with a byte-identical document yields
	// ModifiedCount=0 in MongoDB
	if docsEqual(list[0], repl) {
		return &Result{
			Matched: list,
		}, nil
	}

	// update the indexes whose entries change (the replacement keeps the
	// document's sequence number, which names it in every index)
	seq, ok := c.Documents.Seq(list[0])
	if !ok {
		return nil, fmt.Errorf("unable to replace document in collection")
	}
	for name, index := range c.Indexes {
		changed, err := index.Changed(list[0], repl)
		if err != nil {
			return nil, err
		} else if !changed {
			continue
		}

		// remove old document
		ok, err := index.Remove(list[0], seq)
		if err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("unable to remove document from index %q", name)
		}

		// add replacement
		ok, err = index.Add(repl, seq)
		if err != nil {
			return nil, err
		} else if !ok {
			return nil, fmt.Errorf("duplicate document for index %q", name)
		}
	}

	// replace document
	if !c.Documents.Replace(list[0], repl) {
		return nil, fmt.Errorf("unable to replace document in collection")
	}

	return &Result{
		Matched:  list,
		Modified: bsonkit.List{repl},
	}, nil
}

// Update will look up all documents that match the specified query and update
// them according to the update document.
func (c *Collection) Update(query, update, sort bsonkit.Doc, skip, limit int, arrayFilters bsonkit.List) (*Result, error) {
	// select documents
	list, err := c.selectDocs(query, sort, skip, limit)
	if err != nil {
		return nil, err
	}

	// check list
	if len(list) == 0 {
		return &Result{}, nil
	}

	// clone documents
	newList := bsonkit.CloneList(list)

	// update documents
	changes, err := Update(newList, query, update, false, arrayFilters)
	if err != nil {
		return nil, err
	}

	// check ids
	for i, doc := range newList {
		if bsonkit.Compare(bsonkit.Get(doc, "_id"), bsonkit.Get(list[i], "_id")) != 0 {
			return nil, fmt.Errorf("document _id is immutable")
		}
	}

	// a document the update leaves as it was (byte for byte) stays, with
	// its pointer: MongoDB's nModified does not count it, and a store that
	// compares pointers need not write it
	changed := make([]bool, len(newList))
	for i, doc := range newList {
		changed[i] = !docsEqual(list[i], doc)
	}

	// the sequence numbers of the changed documents (which name them in
	// the indexes, and which the new versions keep)
	seqs := make([]uint64, len(list))
	for i, doc := range list {
		if changed[i] {
			var ok bool
			if seqs[i], ok = c.Documents.Seq(doc); !ok {
				return nil, fmt.Errorf("unable to replace document in collection")
			}
		}
	}

	// in each index whose entries of a changed document change, remove the
	// old entries of all before adding the new (two documents may swap a
	// unique key); an index whose entries stay is not written
	var moved []int
	for name, index := range c.Indexes {
		moved = moved[:0]
		for i := range list {
			if !changed[i] {
				continue
			}
			keys, err := index.Changed(list[i], newList[i])
			if err != nil {
				return nil, err
			} else if keys {
				moved = append(moved, i)
			}
		}
		for _, i := range moved {
			ok, err := index.Remove(list[i], seqs[i])
			if err != nil {
				return nil, err
			} else if !ok {
				return nil, fmt.Errorf("unable to remove document document from index %q", name)
			}
		}
		for _, i := range moved {
			ok, err := index.Add(newList[i], seqs[i])
			if err != nil {
				return nil, err
			} else if !ok {
				return nil, fmt.Errorf("duplicate document for index %q", name)
			}
		}
	}

	// replace documents
	for i, doc := range newList {
		if changed[i] && !c.Documents.Replace(list[i], doc) {
			return nil, fmt.Errorf("unable to replace document in collection")
		}
	}

	// only include actually-modified docs in Modified/Changes (matches
	// MongoDB's nModified, which excludes no-op updates such as $set with
	// the same value). Matched still lists every doc that satisfied the query.
	modified := make(bsonkit.List, 0, len(newList))
	filteredChanges := make([]*Changes, 0, len(changes))
	for i, doc := range newList {
		if !changed[i] {
			continue
		}
		modified = append(modified, doc)
		filteredChanges = append(filteredChanges, changes[i])
	}

	return &Result{
		Matched:  list,
		Modified: modified,
		Changes:  filteredChanges,
	}, nil
}

// Upsert will insert a document based on the specified query and either the
// replacement document or update document.
func (c *Collection) Upsert(query, repl, update bsonkit.Doc, arrayFilters bsonkit.List) (*Result, error) {
	// extract query
	doc, err := Extract(query)
	if err != nil {
		return nil, err
	}

	// check exclusiveness
	if repl != nil && update != nil {
		return nil, fmt.Errorf("cannot upsert with replacement and update")
	}

	// set replacement if present
	if repl != nil {
		// get ids
		queryID := bsonkit.Get(doc, "_id")
		replID := bsonkit.Get(repl, "_id")

		// check ids
		if queryID != bsonkit.Missing && replID != bsonkit.Missing {
			if bsonkit.Compare(replID, queryID) != 0 {
				return nil, fmt.Errorf("query _id and replacement _id must match")
			}
		}

		// clone replacement
		doc = bsonkit.Clone(repl)

		// add repl or query id if present
		if replID != bsonkit.Missing {
			_, err = bsonkit.Put(doc, "_id", replID, true)
			if err != nil {
				return nil, err
			}
		} else if queryID != bsonkit.Missing {
			_, err = bsonkit.Put(doc, "_id", queryID, true)
			if err != nil {
				return nil, err
			}
		}
	}

	// apply update if present
	if update != nil {
		_, err = Apply(doc, query, update, true, arrayFilters)
		if err != nil {
			return nil, err
		}
	}

	// generate object id if missing
	if bsonkit.Get(doc, "_id") == bsonkit.Missing {
		_, err := bsonkit.Put(doc, "_id", primitive.NewObjectID(), true)
		if err != nil {
			return nil, err
		}
	}

	// add document to all indexes, under the sequence number it gets
	seq := c.Documents.Next()
	if err := c.addToIndexes(doc, seq); err != nil {
		return nil, err
	}

	// add document
	if !c.Documents.AddAt(doc, seq) {
		return nil, fmt.Errorf("unable to add document to collection")
	}

	return &Result{
		Upserted: doc,
	}, nil
}

// Delete will remove all documents that match the specified query.
func (c *Collection) Delete(query, sort bsonkit.Doc, skip, limit int) (*Result, error) {
	// select documents
	list, err := c.selectDocs(query, sort, skip, limit)
	if err != nil {
		return nil, err
	}

	// update indexes
	for _, doc := range list {
		seq, ok := c.Documents.Seq(doc)
		if !ok {
			return nil, fmt.Errorf("unable to remove document from collection")
		}
		for name, index := range c.Indexes {
			ok, err := index.Remove(doc, seq)
			if err != nil {
				return nil, err
			} else if !ok {
				return nil, fmt.Errorf("unable to remove document from index %q", name)
			}
		}
	}

	// remove documents
	for _, doc := range list {
		if !c.Documents.Remove(doc) {
			return nil, fmt.Errorf("unable to remove document from collection")
		}
	}

	return &Result{
		Matched: list,
	}, nil
}

// CreateIndex will create and build an index based on the specified
// configuration. If the index name is missing, it will be generated from the
// config and returned.
func (c *Collection) CreateIndex(name string, config IndexConfig) (string, error) {
	// prepare error
	var err error

	// compute name if missing
	if name == "" {
		name, err = config.Name()
		if err != nil {
			return "", err
		}
	}

	// return if existing index is equal
	if index, ok := c.Indexes[name]; ok {
		if config.Equal(index.Config()) {
			return name, nil
		}
	}

	// check duplicate
	for name, index := range c.Indexes {
		if bsonkit.Compare(*config.Key, *index.Config().Key) == 0 {
			return "", fmt.Errorf("existing index %q has same key", name)
		}
	}

	// create index
	index, err := CreateIndex(config)
	if err != nil {
		return "", err
	}

	// add index
	c.Indexes[name] = index

	// build index
	ok, err := index.Build(c.Documents)
	if err != nil {
		return "", err
	} else if !ok {
		return "", fmt.Errorf("duplicate document for index %q", name)
	}

	return name, nil
}

// DropIndex will drop the specific index or drop all indexes if no name has
// been specified.
func (c *Collection) DropIndex(name string) ([]string, error) {
	// collect dropped
	var dropped []string

	// drop single index
	if name != "" {
		// check existence
		if _, ok := c.Indexes[name]; !ok {
			return nil, fmt.Errorf("missing index %q", name)
		}

		// drop index
		delete(c.Indexes, name)

		// add name
		dropped = append(dropped, name)
	}

	// drop all indexes
	if name == "" {
		for name := range c.Indexes {
			if name != "_id_" {
				// drop index
				delete(c.Indexes, name)

				// add name
				dropped = append(dropped, name)
			}
		}
	}

	return dropped, nil
}

// Clone will clone the collection.
func (c *Collection) Clone() *Collection {
	// create new collection
	clone := &Collection{
		Documents: c.Documents.Clone(),
		Indexes:   map[string]*Index{},
	}

	// clone indexes
	for name, index := range c.Indexes {
		clone.Indexes[name] = index.Clone()
	}

	return clone
}

// Check verifies every index against the documents (bsonkit.Index.Check; a
// partial index holds exactly the documents that match its filter). It is
// meant for tests and diagnostics: it reads every document and entry.
func (c *Collection) Check() error {
	for name, index := range c.Indexes {
		var member func(bsonkit.Doc) (bool, error)
		if index.config.Partial != nil {
			partial := index.config.Partial
			member = func(doc bsonkit.Doc) (bool, error) {
				return Match(doc, partial)
			}
		}
		if err := index.base.Check(c.Documents, member); err != nil {
			return fmt.Errorf("index %q: %w", name, err)
		}
	}
	return nil
}
