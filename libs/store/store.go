// Package store opens a service's own database: a real MongoDB deployment when a
// URI is configured, otherwise the embedded MongoDB-compatible engine (lungo),
// backed by a file under the data directory or by memory in tests. Services code
// against lungo's driver-shaped interfaces, so the same code runs on both.
//
// What it keeps: Open (and the marker that tells a lost file from a first
// start), transactions and their retry, indexes, error classes, the chain of
// layers around a collection (DB.Collection), the memory limit. The embedded
// engine's file is the durable store of the lungo fork,
// github.com/256dpi/lungo/boltstore (third_party/lungo/boltstore): this
// package opens it, hands it to the engine and maps its errors (file.go).
package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/boltstore"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/event"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.mongodb.org/mongo-driver/x/mongo/driver/connstring"
)

// The embedded engine runs without an oplog (lungo.Options.NoOplog): it is
// for change streams, which nothing here opens (the services publish their
// events through the outbox), and logging cost each write an event document
// appended to it and each commit a trim (about 5% of a vote's CPU). A change
// stream on it fails as on a standalone mongod.

// Options selects the engine. Exactly one of URI, DataDir or Memory decides it,
// in that order of precedence.
type Options struct {
	Name    string // database name, one per service
	URI     string // MONGODB_URI: real MongoDB (a replica set, for transactions)
	DataDir string // embedded engine, one file per database under this directory
	Memory  bool   // embedded engine in memory (tests)
	Monitor *event.CommandMonitor
	// StartEmpty opens an empty database even where the data directory shows
	// this database held data before (its file is missing): see Open.
	StartEmpty bool
	// Service names the owning service in messages (the name EnvStartEmpty
	// takes); Name when empty.
	Service string
	// Logger receives the embedded file store's messages (a migration, a
	// failed commit); slog.Default() when nil.
	Logger *slog.Logger
	// MemoryLimit, shared by every database of the process, refuses the
	// embedded engine's writes that add data while the live heap is at or
	// above DB_MEMORY_LIMIT (memlimit.go); nil: none. MongoDB ignores it.
	MemoryLimit *MemoryLimit
}

// EnvStartEmpty names the setting (a list of database names) that lets a
// service whose database file is missing start empty on purpose.
const EnvStartEmpty = "DB_START_EMPTY"

// DB is one service's database.
type DB struct {
	lungo.IDatabase
	client   lungo.IClient
	engine   *lungo.Engine // nil for a real MongoDB deployment
	embedded bool
	file     string           // the embedded engine's file; "" in memory
	fileSt   *boltstore.Store // its store; nil in memory
	log      *slog.Logger     // the embedded engine's; nil otherwise
	memLimit *MemoryLimit     // DB_MEMORY_LIMIT on the embedded engine (memlimit.go); nil otherwise
	layer    Layer            // another package's layer (Use); nil: none
}

// Open connects to or opens the database described by opts.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.Name == "" {
		return nil, errors.New("store: database name is required")
	}
	switch {
	case opts.URI != "":
		if err := checkURI(opts.URI); err != nil {
			return nil, fmt.Errorf("store: connect %s: %w", opts.Name, err)
		}
		co := options.Client().ApplyURI(opts.URI).SetTimeout(10 * time.Second)
		if opts.Monitor != nil {
			co.SetMonitor(opts.Monitor)
		}
		client, err := lungo.Connect(ctx, co)
		if err != nil {
			return nil, fmt.Errorf("store: connect %s: %w", opts.Name, err)
		}
		return &DB{IDatabase: client.Database(opts.Name), client: client}, nil
	case opts.DataDir != "" || opts.Memory:
		log := cmp.Or(opts.Logger, slog.Default()).With("database", opts.Name)
		var st lungo.Store = lungo.NewMemoryStore()
		var fst *boltstore.Store
		file := ""
		if !opts.Memory {
			if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
				return nil, fmt.Errorf("store: data dir: %w", err)
			}
			file = filepath.Join(opts.DataDir, opts.Name+".lungo")
			err := checkNotLost(file, opts)
			if err == nil {
				fst, err = boltstore.Open(file, log)
			}
			if err != nil {
				if errors.Is(err, ErrCorrupt) {
					// Never opened with documents missing: the file stays as
					// it is for whoever restores or inspects it.
					svc := cmp.Or(opts.Service, opts.Name)
					err = fmt.Errorf("%w. Nothing was changed in the file. Restore it from a backup (a file migrated from the old format "+
						"keeps that version as %s.old-format), or move it aside and start %s with an empty database on purpose with %s=%s",
						err, filepath.Base(file), svc, EnvStartEmpty, svc)
					log.Error("embedded database file is damaged; not starting", "file", file, "err", err)
				}
				return nil, err
			}
			st = engineStore{fst} // file.go
		}
		client, engine, err := lungo.Open(ctx, lungo.Options{Store: st, NoOplog: true})
		if err != nil {
			if fst != nil {
				fst.Close()
			}
			return nil, fmt.Errorf("store: open %s: %w", opts.Name, err)
		}
		d := &DB{IDatabase: client.Database(opts.Name), client: client, engine: engine, embedded: true, file: file, fileSt: fst, log: log, memLimit: opts.MemoryLimit}
		if err := d.markCreated(); err != nil {
			d.Close(ctx)
			return nil, err
		}
		if err := d.mergePartitions(ctx); err != nil { // partition.go
			d.Close(ctx)
			return nil, err
		}
		return d, nil
	default:
		return nil, errors.New("store: set a MongoDB URI, a data directory or memory")
	}
}

// A database file's marker (<name>.created beside <name>.lungo) records that
// the file was written once. A file that is missing while its marker exists was
// lost (deleted, a volume not mounted, a restore that missed it), and opening it
// as an empty database would make every record other services still refer to
// vanish silently: Open refuses, unless StartEmpty says it is meant. Deleting
// the whole data directory (markers included) is still a reset.
func markerOf(file string) string { return strings.TrimSuffix(file, ".lungo") + ".created" }

func checkNotLost(file string, opts Options) error {
	marker := markerOf(file)
	if info, err := os.Stat(file); err == nil && info.Size() == 0 {
		// bbolt would make an empty file a new database: one that held data
		// and was emptied (truncated to nothing) is damaged, not new.
		if _, err := os.Stat(marker); err == nil && !opts.StartEmpty {
			return fmt.Errorf("%w: %s is empty, but this data directory held the %s database before (%s exists)", ErrCorrupt, file, opts.Name, marker)
		}
		return nil
	}
	if _, err := os.Stat(file); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return nil // present (or unreadable: opening it reports that)
	}
	if _, err := os.Stat(marker); err != nil {
		return nil // never written: a first start
	}
	if opts.StartEmpty {
		// Said on purpose: start afresh and forget the old marker.
		return os.Remove(marker)
	}
	svc := cmp.Or(opts.Service, opts.Name)
	return fmt.Errorf("store: the database file %s is missing, but this data directory held the %s database before (%s exists). "+
		"Restore the file from a backup, or, to start %s with an empty database on purpose, set %s=%s",
		file, opts.Name, marker, svc, EnvStartEmpty, svc)
}

// markCreated writes the marker once the database file exists (the file store
// creates it when it opens).
func (d *DB) markCreated() error {
	if d.file == "" {
		return nil
	}
	if _, err := os.Stat(d.file); err != nil {
		return nil
	}
	marker := markerOf(d.file)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := os.WriteFile(marker, []byte("the database file beside this marker was created; see libs/store\n"), 0o600); err != nil {
		return fmt.Errorf("store: write %s: %w", marker, err)
	}
	return nil
}

// Embedded reports whether the database is the embedded engine (a file under
// the data directory, or memory when InMemory) rather than a MongoDB server.
func (d *DB) Embedded() bool { return d.embedded }

// InMemory reports an embedded database kept in memory only (tests).
func (d *DB) InMemory() bool { return d.embedded && d.file == "" }

// File is the embedded engine's file (DATA_DIR/.../<name>.lungo); "" on a
// MongoDB server or in memory.
func (d *DB) File() string { return d.file }

// Ping checks the database answers; it backs readiness.
func (d *DB) Ping(ctx context.Context) error {
	if err := d.fileSt.Err(); err != nil {
		return err // takes no writes: not ready
	}
	if d.embedded {
		// The embedded engine has no server to lose; a cheap read proves the catalog is loaded.
		_, err := d.Collection("_ping").EstimatedDocumentCount(ctx)
		return err
	}
	return d.client.Ping(ctx, nil)
}

// Close releases the engine or the connection.
func (d *DB) Close(ctx context.Context) error {
	if d.engine != nil {
		d.engine.Close()
		if d.fileSt != nil {
			return d.fileSt.Close()
		}
		return nil
	}
	return d.client.Disconnect(ctx)
}

// Tx runs fn in one multi-document transaction. The context handed to fn carries
// the session: every collection call inside fn must use it. fn may run more than
// once on a transient conflict (real MongoDB), so it must not have side effects
// outside the database.
//
// A Tx called with the context of another transaction of d joins it
// (joined.go): a repository's Update runs in its caller's transaction
// whether the caller opened one or not. A joined function's ErrConflict
// starts the outermost transaction again.
func (d *DB) Tx(ctx context.Context, fn func(ctx context.Context) error) error {
	if d.InJoined(ctx) {
		return joined(ctx, fn)
	}
	for range ContentionAttempts {
		err := d.tx(ctx, func(ctx context.Context) error {
			return fn(context.WithValue(ctx, joinKey{}, d))
		})
		var r *restartError
		if !errors.As(err, &r) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return contention()
}

// tx is one transaction: one session, its attempts, then the wait for the
// file and the layer's committed hook.
func (d *DB) tx(ctx context.Context, fn func(ctx context.Context) error) error {
	var committed func(context.Context)
	if d.layer != nil {
		fn, committed = d.layer.Tx(fn)
	}
	fn = d.limitTx(fn) // memlimit.go
	sess, err := d.client.StartSession()
	if err != nil {
		return fmt.Errorf("store: start session: %w", err)
	}
	defer sess.EndSession(ctx)
	_, err = sess.WithTransaction(ctx, func(sc lungo.ISessionContext) (interface{}, error) {
		// Its writes on the embedded engine answer at once (boltstore.Durable
		// sees the transaction) and wait for the file once, below.
		return nil, fn(sc)
	})
	// Acknowledged once durable (the file store's group commit); a failed
	// transaction waits too, as its error may rest on another commit (a
	// duplicate key, an event already processed) not yet on disk.
	if werr := d.WaitDurable(ctx); werr != nil {
		return werr
	}
	if err == nil && committed != nil {
		committed(ctx)
	}
	return err
}

// WaitDurable returns once every commit made so far on the embedded engine's
// file is on disk (boltstore's group commit; at once on MongoDB and in
// memory). A reader that passes on what it read, such as the outbox relay
// publishing events, waits for it first.
func (d *DB) WaitDurable(ctx context.Context) error {
	return d.fileSt.WaitDurable(ctx)
}

// A Layer adds to a database's collections and transactions what another
// package keeps (libs/liveset's tracking for live queries, which the store
// does not import): Collection wraps each collection handed out, Tx each
// transaction's function (run: each attempt; committed: once it committed),
// and Indexed is told each declared index.
type Layer interface {
	Collection(name string, c lungo.ICollection) lungo.ICollection
	Tx(fn func(ctx context.Context) error) (run func(ctx context.Context) error, committed func(ctx context.Context))
	Indexed(coll string, keys bson.D)
}

// Use installs l as the database's layer, before the database is used.
func (d *DB) Use(l Layer) { d.layer = l }

// collWrapper is the process's outermost collection layer, if any
// (WrapCollections).
var collWrapper atomic.Pointer[func(db string, c lungo.ICollection) lungo.ICollection]

// WrapCollections installs w as the outermost layer of every collection
// DB.Collection hands out from now on (nil: none). For development tools
// (deploy/querylog records every query in tests).
func WrapCollections(w func(db string, c lungo.ICollection) lungo.ICollection) {
	if w == nil {
		collWrapper.Store(nil)
		return
	}
	collWrapper.Store(&w)
}

// Collection returns the named collection of the database, wrapped in its
// layers, innermost first. This is the one place they are chained:
//
//  1. durable (embedded engine on a file): a write outside a transaction
//     answers once its commit is on disk (boltstore.Durable);
//  2. limited (embedded engine): writes that add data are refused over
//     DB_MEMORY_LIMIT (memlimit.go);
//  3. the database's layer, if one is installed (Use: libs/liveset's
//     tracking of reads and writes for live queries);
//  4. the process's wrapper, if one is installed (WrapCollections).
func (d *DB) Collection(name string, opts ...*options.CollectionOptions) lungo.ICollection {
	c := d.IDatabase.Collection(name, opts...)
	if d.embedded {
		c = boltstore.Durable(c, d.fileSt)
		c = d.limited(c)
	}
	if d.layer != nil {
		c = d.layer.Collection(name, c)
	}
	if w := collWrapper.Load(); w != nil {
		c = (*w)(d.IDatabase.Name(), c)
	}
	return c
}

type scanKey struct{}

// Scan declares that the queries issued with the returned context are meant
// to read the whole collection (or every entry of an index) and says why:
// the index coverage check (deploy/querylog) accepts them. Use it inline, at
// the query:
//
//	c.Find(store.Scan(ctx, "cities: a short list, read whole"), bson.D{})
func Scan(ctx context.Context, reason string) context.Context {
	return context.WithValue(ctx, scanKey{}, reason)
}

// ScanReason is the reason Scan gave ctx, "" if none.
func ScanReason(ctx context.Context) string {
	r, _ := ctx.Value(scanKey{}).(string)
	return r
}

// IsDuplicate reports a unique-index violation on either engine.
func IsDuplicate(err error) bool {
	return err != nil && (mongo.IsDuplicateKeyError(err) || lungo.IsUniquenessError(err))
}

// IsNotFound reports that a single-document read found nothing.
func IsNotFound(err error) bool {
	return errors.Is(err, mongo.ErrNoDocuments) || errors.Is(err, lungo.ErrNoDocuments)
}

// The error classes and AllowOverMemoryLimit as methods: libs/ops takes the
// database as an interface it declares (ops.Database).
func (d *DB) IsDuplicate(err error) bool { return IsDuplicate(err) }
func (d *DB) IsNotFound(err error) bool  { return IsNotFound(err) }
func (d *DB) AllowOverMemoryLimit(ctx context.Context, why string) context.Context {
	return AllowOverMemoryLimit(ctx, why)
}

// Index is declared by a service next to the queries that need it.
type Index struct {
	Collection string
	Keys       bson.D
	Unique     bool
	Partial    bson.M // partial filter expression, if any
	Name       string
}

// EnsureIndexes creates the declared indexes; creating an existing one is a
// no-op.
func (d *DB) EnsureIndexes(ctx context.Context, idx ...Index) error {
	for _, ix := range idx {
		if d.layer != nil {
			d.layer.Indexed(ix.Collection, ix.Keys)
		}
		o := options.Index().SetUnique(ix.Unique)
		if ix.Name != "" {
			o.SetName(ix.Name)
		}
		if ix.Partial != nil {
			o.SetPartialFilterExpression(ix.Partial)
		}
		if _, err := d.Collection(ix.Collection).Indexes().CreateOne(ctx, mongo.IndexModel{Keys: ix.Keys, Options: o}); err != nil {
			return fmt.Errorf("store: index %s on %s: %w", ix.Name, ix.Collection, err)
		}
	}
	return d.markCreated()
}

// checkURI refuses a connection string that turns TLS's check of the server
// off (tlsInsecure, sslInsecure): the driver would trust any certificate, so
// anyone on the path could stand in for the database, and nothing else would
// say so. A private CA goes in tlsCAFile (deploy/README.md).
func checkURI(uri string) error {
	cs, err := connstring.Parse(uri)
	if err != nil {
		return nil // the driver's own error says what is wrong with it
	}
	if cs.SSLInsecure {
		return errors.New("MONGODB_URI sets tlsInsecure (or sslInsecure), which accepts any server certificate: remove it, and trust a private CA with tlsCAFile")
	}
	return nil
}
