// Package boltstore is a durable store for lungo on a bbolt file: the
// marketplace project's code (not upstream lungo's), kept in this fork beside
// the engine it serves (third_party/lungo/README.md, "This fork").
//
// lungo keeps the whole database in memory and hands its Store the whole
// catalog at every commit; its own file store wrote all of it to one file
// each time, so a write cost as much as the database was large. This store
// keeps the documents in a bbolt file (a copy-on-write B+tree with two
// checksummed meta pages: a commit is durable once it returns, and a crash in
// the middle of one leaves the previous commit) and writes only what the
// commit changed:
//
//   - A namespace lungo did not touch keeps its pointer in the new catalog
//     (Catalog.Clone copies the map of pointers; a write clones only the
//     namespace it writes to), so unchanged namespaces cost one comparison.
//   - lungo tells the store what each commit changed (lungo.ChangeStore:
//     the documents each write of the transaction touched, looked up in the
//     collection before and after), so a commit costs what it wrote, not a
//     walk over the namespaces it wrote to. A document that was inserted,
//     updated or replaced is a new pointer (lungo's sets are copy-on-write
//     and a committed document is never changed in place); one an update
//     left as it was keeps its pointer and is not written. Store (a whole
//     catalog, as at a migration) still finds the same by walking the old
//     and the new document lists side by side.
//
// The file: a bucket "namespaces" holding one bucket per namespace ("db.coll")
// with its index definitions ("indexes", BSON), its document count ("count")
// and a bucket "documents": the key is the _id's BSON type and value, the value
// the document's sequence number in lungo's set (its insertion order, kept
// by updates, which lungo's unsorted finds return and a restart must keep;
// the bucket's own sequence is kept past every number given), a CRC-32C of
// key, sequence and document, and the document's BSON. The oplog (change
// streams, which nothing here uses) is not kept. A bucket "meta" names the
// format.
//
// At start everything is read into lungo's in-memory catalog, and checked: a
// file shorter than its own high-water mark (truncated), a record whose
// checksum or BSON is wrong, or a namespace whose count does not match what
// was read is refused with ErrCorrupt and an error naming what is wrong,
// never opened with documents silently missing. A commit is queued and
// written by one writer per file (group commit, below); Store.WaitDurable
// and the collections Durable wraps answer once it is on disk. Bulk fill of
// a closed file for benchmarks: bulkfill.go.
package boltstore

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.etcd.io/bbolt"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

var (
	bucketMeta       = []byte("meta")
	bucketNamespaces = []byte("namespaces")
	bucketDocuments  = []byte("documents")
	keyFormat        = []byte("format")
	keyIndexes       = []byte("indexes")
	keyCount         = []byte("count")
)

// fileFormat names this layout in the file's meta bucket (the name the
// project gave it when the store lived in its libs/store: files written
// since carry it, so it stays).
const fileFormat = "marketplace/lungo-bbolt/1"

// lockTimeout bounds the wait for the file's lock: a second process opening
// the same database gets an error instead of hanging.
var lockTimeout = 3 * time.Second

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrCorrupt marks a database file that cannot be read back as it was
// written (Open's error wraps it, naming the file and what is wrong).
var ErrCorrupt = errors.New("store: database file is damaged")

// Store implements lungo.Store and lungo.ChangeStore on a bbolt file.
type Store struct {
	path      string
	db        *bbolt.DB
	log       *slog.Logger
	loaded    *lungo.Catalog
	prev      *lungo.Catalog            // the catalog of the last successful commit
	indexes   map[lungo.Handle][]byte   // index definitions as last written
	written   map[lungo.Handle]struct{} // namespaces that have a bucket
	last      commitStats               // what the last commit wrote
	w         *groupWriter              // the file's writer
	closeOnce sync.Once
}

var _ lungo.ChangeStore = (*Store)(nil)

// commitStats counts what one commit wrote.
type commitStats struct {
	namespaces, put, del int
}

// openStore opens (or creates) the bbolt file at path and reads it whole.
func openStore(path string, log *slog.Logger) (*Store, error) {
	db, err := openBolt(path)
	if err != nil {
		return nil, err
	}
	s := &Store{path: path, db: db, log: log, indexes: map[lungo.Handle][]byte{}, written: map[lungo.Handle]struct{}{}}
	if err := s.init(); err != nil {
		db.Close()
		return nil, err
	}
	start := time.Now()
	release := holdGC()
	catalog, st, err := s.read()
	release()
	if err != nil {
		db.Close()
		return nil, err
	}
	log.Info("embedded database opened", "file", path, "namespaces", len(catalog.Namespaces)-1, "documents", st.docs,
		"took", time.Since(start).Round(time.Millisecond), "decode", st.decode.Round(time.Millisecond), "indexes", st.index.Round(time.Millisecond))
	s.loaded, s.prev = catalog, catalog
	s.w = newGroupWriter()
	go s.run()
	return s, nil
}

// openBolt opens the bbolt file. A file shorter than its last commit reaches
// (truncated) would make bbolt read past its end while opening (it loads the
// free page list), which is a fault, not an error: a read-only open first,
// which reads only the meta pages, compares the two. Any other fault or panic
// of bbolt over a damaged file becomes an error here too.
func openBolt(path string) (db *bbolt.DB, err error) {
	// The files bbolt opened, to release them (and their lock) after a panic.
	var files []*os.File
	openFile := func(name string, flag int, perm os.FileMode) (*os.File, error) {
		f, err := os.OpenFile(name, flag, perm)
		if err == nil {
			files = append(files, f)
		}
		return f, err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			for _, f := range files {
				release(f)
			}
			db, err = nil, fmt.Errorf("%w: %s cannot be opened (%v)", ErrCorrupt, path, r)
		}
	}()
	opened := func(err error) error {
		if errors.Is(err, bbolt.ErrTimeout) {
			return fmt.Errorf("store: %s is in use by another process (its lock was not released within %v)", path, lockTimeout)
		}
		return fmt.Errorf("%w: %s cannot be opened: %v", ErrCorrupt, path, err)
	}
	if info, err := os.Stat(path); err == nil && info.Size() > 0 {
		ro, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true, Timeout: lockTimeout, OpenFile: openFile})
		if err != nil {
			return nil, opened(err)
		}
		err = ro.View(func(tx *bbolt.Tx) error {
			if tx.Size() > info.Size() {
				return fmt.Errorf("%w: %s is truncated: %d bytes, but its last commit reaches %d", ErrCorrupt, path, info.Size(), tx.Size())
			}
			return nil
		})
		ro.Close()
		if err != nil {
			return nil, err
		}
	}
	db, err = bbolt.Open(path, 0o600, &bbolt.Options{Timeout: lockTimeout, FreelistType: bbolt.FreelistMapType, OpenFile: openFile})
	if err != nil {
		return nil, opened(err)
	}
	return db, nil
}

// init checks the file's size against its high-water mark and its format,
// and names the format in a new file.
func (s *Store) init() error {
	info, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	return s.db.Update(func(tx *bbolt.Tx) error {
		if tx.Size() > info.Size() {
			return fmt.Errorf("%w: %s is truncated: %d bytes, but its last commit reaches %d", ErrCorrupt, s.path, info.Size(), tx.Size())
		}
		var err error
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			if tx.Bucket(bucketNamespaces) != nil {
				return fmt.Errorf("%w: %s has documents but no format record", ErrCorrupt, s.path)
			}
			if meta, err = tx.CreateBucket(bucketMeta); err != nil {
				return err
			}
			if _, err := tx.CreateBucket(bucketNamespaces); err != nil {
				return err
			}
			return meta.Put(keyFormat, []byte(fileFormat))
		}
		if f := string(meta.Get(keyFormat)); f != fileFormat {
			return fmt.Errorf("store: %s is in format %q, this program reads %q", s.path, f, fileFormat)
		}
		if tx.Bucket(bucketNamespaces) == nil {
			return fmt.Errorf("%w: %s has no namespaces bucket", ErrCorrupt, s.path)
		}
		return nil
	})
}

// Load is lungo's: the catalog read at Open.
func (s *Store) Load() (*lungo.Catalog, error) { return s.loaded, nil }

// Close writes what is queued and releases the file (after the engine is
// closed).
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		close(s.w.stop)
		<-s.w.stopped
	})
	return s.db.Close()
}

// record is one stored document as read back.
type record struct {
	seq uint64
	doc bsonkit.Doc
}

// readStats is what an open read, and where its time went.
type readStats struct {
	docs          uint64
	decode, index time.Duration // reading and decoding the records; building the indexes
}

// read loads every namespace, checking every record.
func (s *Store) read() (catalog *lungo.Catalog, st readStats, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			catalog, err = nil, fmt.Errorf("%w: %s cannot be read (%v)", ErrCorrupt, s.path, r)
		}
	}()
	catalog = lungo.NewCatalog()
	var problems []string
	problem := func(format string, args ...any) {
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, args...))
		} else if len(problems) == 10 {
			problems = append(problems, "…")
		}
	}
	err = s.db.View(func(tx *bbolt.Tx) error {
		return tx.Bucket(bucketNamespaces).ForEachBucket(func(name []byte) error {
			db, coll, ok := strings.Cut(string(name), ".")
			if !ok || db == "" || coll == "" {
				problem("a namespace named %q", name)
				return nil
			}
			handle := lungo.Handle{db, coll}
			b := tx.Bucket(bucketNamespaces).Bucket(name)
			docs := b.Bucket(bucketDocuments)
			if docs == nil {
				problem("%s has no documents bucket", handle)
				return nil
			}
			t0 := time.Now()
			recs, n, err := decodeAll(docs, func(k []byte, err error) {
				problem("%s, document %s: %v", handle, keyString(k), err)
			})
			if err != nil {
				return err
			}
			st.docs += n
			if want := countOf(b); want != n {
				problem("%s holds %d documents, its count says %d", handle, n, want)
			}
			slices.SortFunc(recs, func(a, b record) int { return cmp.Compare(a.seq, b.seq) })
			ns := mongokit.NewCollection(false)
			for _, r := range recs {
				// Each document takes its place in the set (which lungo
				// keeps across updates and the file across restarts); a
				// place given twice cannot happen, but would only cost the
				// order.
				if !ns.Documents.AddAt(r.doc, r.seq) {
					ns.Documents.Add(r.doc)
				}
			}
			raw := bytes.Clone(b.Get(keyIndexes))
			var defs bson.D
			if err := bson.Unmarshal(raw, &defs); err != nil {
				problem("%s: unreadable index definitions: %v", handle, err)
				return nil
			}
			// The indexes are built (and the unique ones checked) at once,
			// one goroutine each: they only read the set (its trees take
			// readers at once), and name its documents by their sequence
			// numbers.
			t1 := time.Now()
			st.decode += t1.Sub(t0)
			built := make([]*mongokit.Index, len(defs))
			errs := make([]error, len(defs))
			var wg sync.WaitGroup
			for j, e := range defs {
				var fi lungo.FileIndex
				if err := bsonTransfer(e.Value, &fi); err != nil {
					errs[j] = err
					continue
				}
				ix, err := mongokit.CreateIndex(mongokit.IndexConfig{Key: fi.Key, Unique: fi.Unique, Partial: fi.Partial, Expiry: fi.Expiry})
				if err != nil {
					errs[j] = err
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					ok, err := ix.Build(ns.Documents)
					if err != nil || !ok {
						errs[j] = fmt.Errorf("does not hold over the documents read (%v)", cmp.Or(err, errors.New("duplicate key")))
						return
					}
					built[j] = ix
				}()
			}
			wg.Wait()
			st.index += time.Since(t1)
			for j, e := range defs {
				if errs[j] != nil {
					problem("%s: index %s: %v", handle, e.Key, errs[j])
					continue
				}
				ns.Indexes[e.Key] = built[j]
			}
			catalog.Namespaces[handle] = ns
			s.indexes[handle] = raw
			s.written[handle] = struct{}{}
			return nil
		})
	})
	if err != nil {
		return nil, st, fmt.Errorf("%w: %s cannot be read: %v", ErrCorrupt, s.path, err)
	}
	if len(problems) > 0 {
		return nil, st, fmt.Errorf("%w: %s: %s", ErrCorrupt, s.path, strings.Join(problems, "; "))
	}
	return catalog, st, nil
}

// bsonTransfer decodes a value read from an index definition into out.
func bsonTransfer(v any, out any) error {
	raw, err := bson.Marshal(v)
	if err != nil {
		return err
	}
	return bson.Unmarshal(raw, out)
}

func countOf(b *bbolt.Bucket) uint64 {
	if v := b.Get(keyCount); len(v) == 8 {
		return binary.BigEndian.Uint64(v)
	}
	return 0
}

// MaxDepth is how many levels a stored document may have (the document
// itself one, each document or array in it one more): MongoDB's limit. The
// file's reader (bsonkit.RawDecoder) refuses more than 200.
const MaxDepth = 100

// UnstorableError refuses a commit with a document the file could not write
// or read back: the request's fault (MongoDB refuses the same), for that
// commit only. Its message is "store: <namespace>: document <_id>: <Reason>".
type UnstorableError struct {
	Namespace string // "db.coll"
	Document  string // the document's _id as messages show it
	Reason    string // what the file cannot keep
}

func (e *UnstorableError) Error() string {
	return fmt.Sprintf("store: %s: document %s: %s", e.Namespace, e.Document, e.Reason)
}

// storable refuses, in a document at level (the document itself: 1), what
// the file could not write or read back: a field name with a null byte (BSON
// cannot hold one; $rename's new name is a string value, which can) and
// nesting deeper than MaxDepth (the engine takes any depth). Checked before
// a commit is queued, as a failed write fails the whole file. It returns the
// reason, "" when the document can be stored.
func storable(v any, level int) string {
	switch x := v.(type) {
	case bson.D:
		if level > MaxDepth {
			return tooDeep
		}
		for _, e := range x {
			if strings.IndexByte(e.Key, 0) >= 0 {
				return fmt.Sprintf("a field name cannot hold a null byte (%q)", e.Key)
			}
			if why := storable(e.Value, level+1); why != "" {
				return why
			}
		}
	case bson.A:
		if level > MaxDepth {
			return tooDeep
		}
		for _, e := range x {
			if why := storable(e, level+1); why != "" {
				return why
			}
		}
	}
	return ""
}

var tooDeep = fmt.Sprintf("a document nested deeper than %d levels cannot be stored", MaxDepth)

// A record's value: sequence (8 bytes), CRC-32C (4 bytes) of key, sequence
// and document, the document's BSON.
const recordHeader = 12

func encodeRecord(key []byte, seq uint64, doc bsonkit.Doc) ([]byte, error) {
	v := make([]byte, recordHeader, recordHeader+256)
	binary.BigEndian.PutUint64(v, seq)
	v, err := bsonkit.MarshalAppend(v, doc)
	if err != nil {
		return nil, err
	}
	binary.BigEndian.PutUint32(v[8:], checksum(key, v[:8], v[recordHeader:]))
	return v, nil
}

func checksum(key, seq, doc []byte) uint32 {
	c := crc32.Update(0, castagnoli, key)
	c = crc32.Update(c, castagnoli, seq)
	return crc32.Update(c, castagnoli, doc)
}

func decodeRecord(dc *bsonkit.RawDecoder, key, v []byte) (bsonkit.Doc, uint64, error) {
	if len(v) < recordHeader+5 {
		return nil, 0, fmt.Errorf("a record of %d bytes", len(v))
	}
	if got, want := checksum(key, v[:8], v[recordHeader:]), binary.BigEndian.Uint32(v[8:]); got != want {
		return nil, 0, fmt.Errorf("checksum mismatch (%08x, recorded %08x)", got, want)
	}
	raw := v[recordHeader:]
	d, err := dc.Decode(raw)
	if err != nil {
		return nil, 0, fmt.Errorf("unreadable BSON: %v", err)
	}
	// The key is the _id's type byte and value as the record holds them
	// (what idKey gives for the decoded document).
	id, err := bsoncore.Document(raw).LookupErr("_id")
	if err != nil || len(key) != 1+len(id.Data) || key[0] != byte(id.Type) || !bytes.Equal(key[1:], id.Data) {
		return nil, 0, errors.New("its _id does not match its key")
	}
	return &d, binary.BigEndian.Uint64(v), nil
}

// decodeAll decodes and checks every record of a documents bucket, on every
// core (decoding is most of an open's time); bad records go to bad in key
// order, the good ones are returned in key order with how many records the
// bucket holds. It runs inside the read transaction (the values point into
// the file's memory map).
func decodeAll(docs *bbolt.Bucket, bad func(k []byte, err error)) ([]record, uint64, error) {
	var keys, vals [][]byte
	if err := docs.ForEach(func(k, v []byte) error {
		keys, vals = append(keys, k), append(vals, v)
		return nil
	}); err != nil {
		return nil, 0, err
	}
	n := len(keys)
	recs := make([]record, n)
	errs := make([]error, n)
	workers := min(runtime.GOMAXPROCS(0), max(1, n/256))
	var wg sync.WaitGroup
	var fault atomic.Value
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A fault reading the memory map is a damaged file, as in read.
			defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
			defer func() {
				if r := recover(); r != nil {
					fault.Store(fmt.Errorf("%v", r))
				}
			}()
			dc := bsonkit.NewRawDecoder()
			for i := w * n / workers; i < (w+1)*n/workers; i++ {
				doc, seq, err := decodeRecord(dc, keys[i], vals[i])
				recs[i], errs[i] = record{seq: seq, doc: doc}, err
			}
		}()
	}
	wg.Wait()
	if f, _ := fault.Load().(error); f != nil {
		return nil, 0, f
	}
	good := recs[:0]
	for i := range recs {
		if errs[i] != nil {
			bad(keys[i], errs[i])
			continue
		}
		good = append(good, recs[i])
	}
	return good, uint64(n), nil
}

// idKey is a document's key: the _id's BSON type byte and value. Two equal
// _id values of one type have one key; values of different types that lungo
// compares equal (1 and 1.0) cannot both be in a namespace (its _id index).
func idKey(doc bsonkit.Doc) ([]byte, error) {
	id := bsonkit.Get(doc, "_id")
	if id == bsonkit.Missing {
		return nil, errors.New("a document without _id")
	}
	switch x := id.(type) {
	case string: // the services' ids: without the driver's reflection
		return bsoncore.AppendString(append(make([]byte, 0, 6+len(x)), byte(bsontype.String)), x), nil
	case primitive.ObjectID:
		return append([]byte{byte(bsontype.ObjectID)}, x[:]...), nil
	}
	t, data, err := bson.MarshalValue(id)
	if err != nil {
		return nil, err
	}
	return append([]byte{byte(t)}, data...), nil
}

// keyString shows a key in messages: a string _id as itself.
func keyString(k []byte) string {
	if len(k) > 5 && k[0] == 0x02 {
		return fmt.Sprintf("%q", k[5:len(k)-1])
	}
	return fmt.Sprintf("%x", k)
}

// nsChange is what a commit changed in one namespace.
type nsChange struct {
	handle  lungo.Handle
	ns      *mongokit.Collection // the new version
	drop    bool
	indexes []byte       // new index definitions, nil when unchanged
	put     bsonkit.List // inserted, updated or replaced documents
	seqs    []uint64     // each put document's sequence number in lungo's set
	del     bsonkit.List // documents of the previous commit that are gone
}

// Store is lungo's: it takes what changed since the previous commit and hands
// it to the writer (group commit, below), so lungo's lock, which every read
// and write of the database waits for, is not held through the file's
// syncs. The commit is visible at once; it is acknowledged (a program's
// transaction and the writes outside transactions return) once it is
// durable (WaitDurable).
func (s *Store) Store(c *lungo.Catalog) error {
	if err := s.Err(); err != nil {
		return err // nothing more is taken once the file could not be written
	}
	changes, err := s.diff(s.prev, c)
	if err != nil {
		return err
	}
	return s.commit(c, changes)
}

// StoreChanges is Store, told by the engine what the commit changed: the
// documents each transaction's writes touched, so a commit costs what it
// wrote, not a walk over every document of the namespaces it wrote to.
func (s *Store) StoreChanges(base, c *lungo.Catalog, changes []lungo.Change) error {
	if base != s.prev {
		return s.Store(c) // not the catalog the changes start from: compare
	}
	if err := s.Err(); err != nil {
		return err
	}
	out := make([]nsChange, 0, len(changes))
	for _, lc := range changes {
		if lc.Handle == lungo.Oplog {
			continue
		}
		if lc.Collection == nil {
			if _, had := s.prev.Namespaces[lc.Handle]; had {
				out = append(out, nsChange{handle: lc.Handle, drop: true})
			}
			continue
		}
		ch := nsChange{handle: lc.Handle, ns: lc.Collection, put: lc.Put, del: lc.Del}
		if err := s.defsOf(&ch, s.prev.Namespaces[lc.Handle]); err != nil {
			return err
		}
		out = append(out, ch)
	}
	return s.commit(c, out)
}

// commit queues a commit's changes for the file.
func (s *Store) commit(c *lungo.Catalog, changes []nsChange) error {
	for i := range changes {
		ch := &changes[i]
		ch.seqs = make([]uint64, len(ch.put))
		for j, doc := range ch.put {
			seq, ok := ch.ns.Documents.Seq(doc)
			if !ok {
				return fmt.Errorf("store: %s: a changed document is not in its collection", ch.handle)
			}
			ch.seqs[j] = seq
		}
	}
	s.last = commitStats{}
	for _, ch := range changes {
		if ch.writes() {
			s.last.namespaces++
			s.last.put += len(ch.put)
			s.last.del += len(ch.del)
		}
	}
	if s.last.namespaces > 0 {
		// What the file would refuse for its data alone is refused here, for
		// this commit only: once queued, a failed write fails the file.
		for _, ch := range changes {
			for _, doc := range ch.put {
				key, err := idKey(doc)
				if err != nil {
					return fmt.Errorf("store: %s: %w", ch.handle, err)
				}
				if len(key) > bbolt.MaxKeySize {
					return fmt.Errorf("store: %s: an _id of %d bytes is longer than the embedded engine keeps (%d)", ch.handle, len(key), bbolt.MaxKeySize)
				}
				if why := storable(*doc, 1); why != "" {
					return &UnstorableError{Namespace: ch.handle.String(), Document: keyString(key), Reason: why}
				}
			}
		}
		for _, ch := range changes {
			switch {
			case ch.drop:
				delete(s.indexes, ch.handle)
				delete(s.written, ch.handle)
			case ch.writes():
				s.written[ch.handle] = struct{}{}
				if ch.indexes != nil {
					s.indexes[ch.handle] = ch.indexes
				}
			}
		}
		s.w.enqueue(changes)
	}
	s.prev = c
	return nil
}

// Group commit. lungo calls Store with its engine lock held, and every
// transaction, a read's included, begins by taking that lock: a store that
// synced the file inside Store made every request of the database wait for
// the disk, one commit at a time. Here Store only queues the commit's
// changes (the documents are immutable once committed: lungo clones before
// it changes one), and one writer per file takes everything queued into one
// bbolt transaction (two syncs for all of them), in commit order, so what is
// on disk is always a prefix of the commits. A commit is acknowledged only
// once it is durable: a program's transactions (WaitDurable) and the writes
// outside transactions (Durable) wait for it, and so does a reader before it
// passes on what it read (the project's outbox relay before it publishes),
// so no event leaves for a change a crash could still undo. Reads may see a commit a
// moment before it is durable, as MongoDB's default read concern ("local")
// may return writes a failover later rolls back. A file that cannot be
// written (disk full, I/O error) fails every waiting and later commit with
// the error: the service stops taking writes rather than acknowledging any
// it might lose.
type groupWriter struct {
	mu       sync.Mutex
	pending  [][]nsChange
	enqueued uint64        // commits queued so far
	durable  uint64        // commits written and synced so far
	failed   error         // the write that failed, if one did
	flushes  int           // bbolt transactions written (tests)
	written  chan struct{} // closed (and replaced) after each write
	wake     chan struct{}
	stop     chan struct{}
	stopped  chan struct{}
}

func newGroupWriter() *groupWriter {
	return &groupWriter{written: make(chan struct{}), wake: make(chan struct{}, 1), stop: make(chan struct{}), stopped: make(chan struct{})}
}

func (w *groupWriter) enqueue(changes []nsChange) {
	w.mu.Lock()
	w.pending = append(w.pending, changes)
	w.enqueued++
	w.mu.Unlock()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// run writes what is queued until stopped, then what is left.
func (s *Store) run() {
	w := s.w
	defer close(w.stopped)
	for {
		select {
		case <-w.wake:
		case <-w.stop:
			s.flush()
			return
		}
		s.flush()
	}
}

// flush writes every queued commit in one bbolt transaction.
func (s *Store) flush() {
	w := s.w
	w.mu.Lock()
	batch, upto, failed := w.pending, w.enqueued, w.failed
	w.pending = nil
	w.mu.Unlock()
	if len(batch) == 0 || failed != nil {
		return
	}
	err := s.db.Update(func(tx *bbolt.Tx) error {
		for _, changes := range batch {
			if err := s.apply(tx, changes); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		s.log.Error("embedded database commit failed; the database takes no more writes", "file", s.path, "commits", len(batch), "err", err)
	}
	w.mu.Lock()
	if err != nil {
		w.failed = fmt.Errorf("store: commit to %s: %w", s.path, err)
	} else {
		w.durable = upto
		w.flushes++
	}
	close(w.written)
	w.written = make(chan struct{})
	w.mu.Unlock()
}

// Err is the error of a write that failed, if one did: the file then takes
// no more commits (a program reports itself not ready). nil for a nil Store
// (a database in memory).
func (s *Store) Err() error {
	if s == nil {
		return nil
	}
	s.w.mu.Lock()
	defer s.w.mu.Unlock()
	return s.w.failed
}

// WaitDurable waits until every commit queued so far is on disk (for a nil
// Store, a database in memory, nothing). A commit is acknowledged only once
// it is: a program's transactions wait for it at their end, and a reader
// that passes on what it read (an outbox relay) waits before it does.
func (s *Store) WaitDurable(ctx context.Context) error {
	if s == nil {
		return nil // in memory
	}
	w := s.w
	w.mu.Lock()
	target := w.enqueued
	for w.durable < target {
		if w.failed != nil {
			w.mu.Unlock()
			return w.failed
		}
		ch := w.written
		w.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("store: the write was made but is not yet known to be on disk (%s): %w", s.path, ctx.Err())
		}
		w.mu.Lock()
	}
	w.mu.Unlock()
	return nil
}

// writes reports whether the file needs writing for ch.
func (ch *nsChange) writes() bool {
	return ch.drop || ch.indexes != nil || len(ch.put) > 0 || len(ch.del) > 0
}

// diff finds what changed between two catalogs by comparing pointers: every
// namespace whose pointer changed, with the documents to write and delete.
func (s *Store) diff(old, cur *lungo.Catalog) ([]nsChange, error) {
	var out []nsChange
	for h := range old.Namespaces {
		if _, ok := cur.Namespaces[h]; !ok && h != lungo.Oplog {
			out = append(out, nsChange{handle: h, drop: true})
		}
	}
	for h, ns := range cur.Namespaces {
		if h == lungo.Oplog {
			continue
		}
		prev := old.Namespaces[h]
		if prev == ns {
			continue
		}
		ch := nsChange{handle: h, ns: ns}
		if err := s.defsOf(&ch, prev); err != nil {
			return nil, err
		}
		if prev == nil {
			ch.put = ns.Documents.List()
		} else {
			ch.put, ch.del = changedDocs(prev.Documents, ns.Documents)
		}
		out = append(out, ch)
	}
	return out, nil
}

// defsOf sets ch.indexes when the namespace's index definitions are not
// those the file holds. prev is the namespace in the catalog stored last
// (nil: none): when the file holds it and the namespace has the very same
// indexes (clones of prev's: mongokit.Index.SameOrigin), the definitions are
// those the file holds and are not encoded again (a commit's encoding of
// every index definition was 6% of the CPU of make bench-engine's vote row).
func (s *Store) defsOf(ch *nsChange, prev *mongokit.Collection) error {
	if _, ok := s.written[ch.handle]; ok && prev != nil && sameIndexes(prev, ch.ns) {
		return nil
	}
	defs, err := indexDefs(ch.ns)
	if err != nil {
		return err
	}
	if _, ok := s.written[ch.handle]; !ok || !bytes.Equal(defs, s.indexes[ch.handle]) {
		ch.indexes = defs
	}
	return nil
}

// sameIndexes reports whether two versions of a namespace have the same
// indexes: the same names, each a clone of the other's.
func sameIndexes(a, b *mongokit.Collection) bool {
	if len(a.Indexes) != len(b.Indexes) {
		return false
	}
	for name, ix := range a.Indexes {
		other, ok := b.Indexes[name]
		if !ok || !ix.SameOrigin(other) {
			return false
		}
	}
	return true
}

// changedDocs walks the old and the new list side by side. Documents that
// stayed are the same pointers in the same relative order, so the walk moves
// on both lists while they agree and looks a pointer up only where they do
// not. Were the order ever different, the result would still be right, with
// documents that did not change among those written.
func changedDocs(old, cur *bsonkit.Set) (put, del bsonkit.List) {
	ol, nl := old.List(), cur.List()
	i := 0
	for j := 0; j < len(nl); {
		if i < len(ol) && ol[i] == nl[j] {
			i, j = i+1, j+1
			continue
		}
		if i < len(ol) {
			if !cur.Has(ol[i]) {
				del = append(del, ol[i])
				i++
				continue
			}
		}
		if !old.Has(nl[j]) {
			put = append(put, nl[j])
		}
		j++
	}
	for ; i < len(ol); i++ {
		if !cur.Has(ol[i]) {
			del = append(del, ol[i])
		}
	}
	return put, del
}

// indexDefs encodes a namespace's index definitions, in name order so equal
// definitions encode equally.
func indexDefs(ns *mongokit.Collection) ([]byte, error) {
	names := make([]string, 0, len(ns.Indexes))
	for name := range ns.Indexes {
		names = append(names, name)
	}
	slices.Sort(names)
	defs := make(bson.D, 0, len(names))
	for _, name := range names {
		c := ns.Indexes[name].Config()
		defs = append(defs, bson.E{Key: name, Value: lungo.FileIndex{Key: c.Key, Unique: c.Unique, Partial: c.Partial, Expiry: c.Expiry}})
	}
	return bson.Marshal(defs)
}

// apply writes changes in one bbolt transaction.
func (s *Store) apply(tx *bbolt.Tx, changes []nsChange) error {
	root := tx.Bucket(bucketNamespaces)
	for _, ch := range changes {
		if !ch.writes() {
			continue
		}
		name := []byte(ch.handle.String())
		if ch.drop {
			if err := root.DeleteBucket(name); err != nil && !errors.Is(err, bbolt.ErrBucketNotFound) {
				return err
			}
			continue
		}
		b, err := root.CreateBucketIfNotExists(name)
		if err != nil {
			return err
		}
		docs, err := b.CreateBucketIfNotExists(bucketDocuments)
		if err != nil {
			return err
		}
		if ch.indexes != nil {
			if err := b.Put(keyIndexes, ch.indexes); err != nil {
				return err
			}
		}
		count := int64(countOf(b))
		written := make(map[string]struct{}, len(ch.put))
		for i, doc := range ch.put {
			key, err := idKey(doc)
			if err != nil {
				return fmt.Errorf("%s: %w", ch.handle, err)
			}
			written[string(key)] = struct{}{}
			if docs.Get(key) == nil {
				count++
			}
			// The document's place in lungo's set (an update keeps it); the
			// bucket's sequence stays past every place given.
			seq := ch.seqs[i]
			if seq > docs.Sequence() {
				if err := docs.SetSequence(seq); err != nil {
					return err
				}
			}
			v, err := encodeRecord(key, seq, doc)
			if err != nil {
				return fmt.Errorf("%s: %w", ch.handle, err)
			}
			if err := docs.Put(key, v); err != nil {
				return err
			}
		}
		for _, doc := range ch.del {
			key, err := idKey(doc)
			if err != nil {
				return fmt.Errorf("%s: %w", ch.handle, err)
			}
			if _, replaced := written[string(key)]; replaced {
				continue
			}
			if docs.Get(key) != nil {
				if err := docs.Delete(key); err != nil {
					return err
				}
				count--
			}
		}
		var cb [8]byte
		binary.BigEndian.PutUint64(cb[:], uint64(max(count, 0)))
		if err := b.Put(keyCount, cb[:]); err != nil {
			return err
		}
	}
	return nil
}

// writeAll stores a whole catalog into an empty file (migration).
func (s *Store) writeAll(c *lungo.Catalog) (docs int, err error) {
	if err := s.Store(c); err != nil {
		return 0, err
	}
	if err := s.WaitDurable(context.Background()); err != nil {
		return 0, err
	}
	for h, ns := range c.Namespaces {
		if h != lungo.Oplog {
			docs += ns.Documents.Len()
		}
	}
	return docs, nil
}

// oldFormat reports whether the file at path is lungo's own single-document
// file (one BSON document: its length first, a zero byte last).
func oldFormat(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() < 5 {
		return false, err
	}
	var head [4]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], info.Size()-1); err != nil {
		return false, err
	}
	return int64(binary.LittleEndian.Uint32(head[:])) == info.Size() && last[0] == 0, nil
}

// Open opens (or creates) the database file at path and reads it whole,
// checking every record (a damaged file: an error wrapping ErrCorrupt). log
// receives its messages (the open, a migration, a failed commit;
// slog.Default() when nil). Hand the Store to lungo.Open (Options.Store),
// close it after the engine.
//
// A file in lungo's own format (lungo.NewFileStore's, which the project
// wrote before this store) is migrated first: read with lungo's file store,
// written into a new file beside it, which then takes its name; the old file
// stays as <file>.old-format. At every moment the file at path is either the
// whole old file or the whole new one, so a crash during the migration
// leaves the old file to migrate again.
func Open(path string, log *slog.Logger) (*Store, error) {
	if log == nil {
		log = slog.Default()
	}
	tmp := path + ".migrating"
	if _, err := os.Stat(path); err == nil {
		old, err := oldFormat(path)
		if err != nil {
			return nil, fmt.Errorf("store: %w", err)
		}
		if old {
			if err := migrate(path, tmp, log); err != nil {
				_ = os.Remove(tmp)
				return nil, err
			}
		}
	}
	_ = os.Remove(tmp) // left by a migration that did not finish
	return openStore(path, log)
}

func migrate(path, tmp string, log *slog.Logger) error {
	start := time.Now()
	catalog, err := lungo.NewFileStore(path, 0o600).Load()
	if err != nil {
		return fmt.Errorf("%w: %s is in lungo's own file format but cannot be read: %v", ErrCorrupt, path, err)
	}
	if err := os.Remove(tmp); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("store: %w", err)
	}
	s, err := openStore(tmp, log)
	if err != nil {
		return err
	}
	docs, err := s.writeAll(catalog)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: migrating %s: %w", path, err)
	}
	backup := path + ".old-format"
	if _, err := os.Stat(backup); err == nil {
		backup = fmt.Sprintf("%s.old-format.%d", path, time.Now().Unix())
	}
	if err := os.Link(path, backup); err != nil {
		return fmt.Errorf("store: keeping %s as %s: %w", path, backup, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("store: migrating %s: %w", path, err)
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync()
		dir.Close()
	}
	log.Warn("embedded database migrated to the store that writes only what changed; the old file is kept",
		"file", path, "backup", backup, "namespaces", len(catalog.Namespaces)-1, "documents", docs, "took", time.Since(start).Round(time.Millisecond))
	return nil
}
