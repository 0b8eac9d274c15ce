package lungo

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson/primitive"
	"gopkg.in/tomb.v2"

	"github.com/256dpi/lungo/bsonkit"
)

// ErrEngineClosed is returned if the engine has been closed.
var ErrEngineClosed = errors.New("engine closed")

// Options is used to configure an engine.
type Options struct {
	// The store used by the engine to load and store the catalog.
	Store Store

	// The interval at which expired documents are removed.
	//
	// Default: 60s.
	ExpireInterval time.Duration

	// The function that is called with errors from the expiry goroutine.
	ExpireErrors func(error)

	// The minimum and maximum size of the oplog.
	//
	// Default: 100, 1000.
	MinOplogSize int
	MaxOplogSize int

	// The minimum and maximum age of oplog entries.
	//
	// Default: 5m, 1h.
	MinOplogAge time.Duration
	MaxOplogAge time.Duration

	// NoOplog turns the oplog off (fork): writes log no events and Watch
	// fails with the error a standalone mongod gives for a change stream.
	// For a program that opens no change stream, each write then builds
	// and appends no event and no commit trims the log.
	NoOplog bool
}

// Engine manages the catalog loaded from a store and provides access to it
// through transactions. Additionally, it also manages streams that subscribe
// to catalog changes.
type Engine struct {
	opts    Options
	store   Store
	catalog *Catalog
	streams map[*Stream]struct{}
	txns    map[*Transaction]struct{}
	tomb    tomb.Tomb
	mutex   sync.Mutex
}

// CreateEngine will create and return an engine with a loaded catalog from the
// store.
func CreateEngine(opts Options) (*Engine, error) {
	// set default interval
	if opts.ExpireInterval == 0 {
		opts.ExpireInterval = 60 * time.Second
	}

	// set default min and max oplog size
	if opts.MinOplogSize == 0 {
		opts.MinOplogSize = 100
	}
	if opts.MaxOplogSize == 0 {
		opts.MaxOplogSize = 1000
	}

	// set default min and max oplog age
	if opts.MinOplogAge == 0 {
		opts.MinOplogAge = 5 * time.Minute
	}
	if opts.MaxOplogAge == 0 {
		opts.MaxOplogAge = time.Hour
	}

	// validate oplog ages
	const maxAge = 21 * 24 * time.Hour
	if opts.MinOplogAge < 0 || opts.MinOplogAge > maxAge {
		return nil, fmt.Errorf("invalid min oplog age: %s", opts.MinOplogAge)
	} else if opts.MaxOplogAge < 0 || opts.MaxOplogAge > maxAge {
		return nil, fmt.Errorf("invalid max oplog age: %s", opts.MaxOplogAge)
	}

	// create engine
	e := &Engine{
		opts:    opts,
		store:   opts.Store,
		streams: map[*Stream]struct{}{},
		txns:    map[*Transaction]struct{}{},
	}

	// load catalog
	data, err := e.store.Load()
	if err != nil {
		return nil, err
	}

	// set catalog
	e.catalog = data

	// run expiry
	e.tomb.Go(func() error {
		e.expire(opts.ExpireInterval, opts.ExpireErrors)
		return nil
	})

	return e, nil
}

// Catalog will return the currently used catalog. Any modifications to the
// returned catalog while using the engine results in undefined behaviour.
func (e *Engine) Catalog() *Catalog {
	// acquire lock
	e.mutex.Lock()
	defer e.mutex.Unlock()

	return e.catalog
}

// Begin will create a new transaction from the current catalog. A locked
// (writing) transaction must be committed or aborted; any number of them may
// be open at once (fork: optimistic concurrency, see Commit). Unlocked
// transactions serve as a point in time snapshots and can be just be
// discarded when not being used further.
func (e *Engine) Begin(ctx context.Context, lock bool) (*Transaction, error) {
	// acquire lock
	e.mutex.Lock()
	defer e.mutex.Unlock()

	// check if closed
	if !e.tomb.Alive() {
		return nil, ErrEngineClosed
	}

	// non lock transactions do not need to be managed
	if !lock {
		txn := NewTransaction(e.catalog)
		txn.noOplog = e.opts.NoOplog
		return txn, nil
	}

	// ensure context
	ctx = ensureContext(ctx)

	// check for transaction
	sess, ok := ctx.Value(sessionKey{}).(*Session)
	if ok {
		txn := sess.Transaction()
		if txn != nil {
			return nil, fmt.Errorf("detected nested transaction")
		}
	}

	// create and register transaction (fork: no token to wait for; the
	// transaction remembers the catalog it began with, its base)
	txn := NewTransaction(e.catalog)
	txn.noOplog = e.opts.NoOplog
	e.txns[txn] = struct{}{}

	return txn, nil
}

// Commit will attempt to store the modified catalog and on success replace the
// current catalog. If an error is returned the transaction has been aborted
// and become invalid.
//
// Fork: transactions run concurrently and are checked here (optimistic
// concurrency with snapshot isolation, as MongoDB does). If no other
// transaction committed since this one began, its catalog is installed as
// it is; otherwise its changes are rebased onto the current catalog (see
// rebase), and a write to a document that another transaction changed since
// this one began fails the commit with a write conflict (IsWriteConflict:
// code 112, labelled TransientTransactionError). The store is called inside
// the commit section, so commits reach it in order, each with the changes
// relative to the catalog it took last.
func (e *Engine) Commit(txn *Transaction) error {
	// acquire lock
	e.mutex.Lock()
	defer e.mutex.Unlock()

	// check if closed
	if !e.tomb.Alive() {
		return ErrEngineClosed
	}

	// check transaction
	if _, ok := e.txns[txn]; !ok {
		return fmt.Errorf("no active transaction")
	}

	// forget transaction
	delete(e.txns, txn)

	// the transaction is done: hold its lock while it is read
	txn.mutex.Lock()
	defer txn.mutex.Unlock()

	// check if dirty
	if !txn.dirty {
		return nil
	}

	// take the transaction's catalog, or rebase its changes onto the
	// current one
	next := txn.catalog
	if txn.base != e.catalog {
		var err error
		next, err = rebase(e.catalog, txn)
		if err != nil {
			return err
		}
	}

	// clean oplog
	if e.opts.NoOplog {
		// nothing to clean
	} else if clean, ok := cleanOplog(next, e.opts.MinOplogSize, e.opts.MaxOplogSize, e.opts.MinOplogAge, e.opts.MaxOplogAge); ok {
		next = clean
	}

	// write catalog, or what changed in it since the current one
	var err error
	if cs, ok := e.store.(ChangeStore); ok {
		err = cs.StoreChanges(e.catalog, next, changesOf(e.catalog, next, txn.touched))
	} else {
		err = e.store.Store(next)
	}
	if err != nil {
		return err
	}

	// set new catalog
	e.catalog = next

	// broadcast change
	for stream := range e.streams {
		select {
		case stream.signal <- struct{}{}:
		default:
			// stream already got earlier signal
		}
	}

	return nil
}

// Abort will abort the specified transaction. To ensure a transaction is
// always released, Abort should be called after finishing any transaction.
func (e *Engine) Abort(txn *Transaction) {
	// acquire lock
	e.mutex.Lock()
	defer e.mutex.Unlock()

	// forget transaction
	delete(e.txns, txn)
}

// write runs fn in a new transaction and commits it; a commit that loses a
// write conflict runs fn again in a new transaction (as mongod retries a
// single write), after a short random wait, for up to retryLimit or until
// the context ends.
func (e *Engine) write(ctx context.Context, fn func(*Transaction) (interface{}, error)) (interface{}, error) {
	ctx = ensureContext(ctx)
	start := time.Now()
	for attempt := 0; ; attempt++ {
		// create transaction
		txn, err := e.Begin(ctx, true)
		if err != nil {
			return nil, err
		}

		// yield callback
		res, err := fn(txn)
		if err != nil {
			e.Abort(txn)
			return nil, err
		}

		// commit transaction
		err = e.Commit(txn)
		if err == nil {
			return res, nil
		}
		if !IsWriteConflict(err) || retryOver(start) {
			return nil, err
		}
		if berr := backoff(ctx, attempt); berr != nil {
			return nil, berr
		}
	}
}

// Watch will return a stream that is able to consume events from the oplog.
func (e *Engine) Watch(handle Handle, pipeline bsonkit.List, resumeAfter, startAfter bsonkit.Doc, startAt *primitive.Timestamp) (*Stream, error) {
	// acquire lock
	e.mutex.Lock()
	defer e.mutex.Unlock()

	// check if closed
	if !e.tomb.Alive() {
		return nil, ErrEngineClosed
	}

	// no oplog, no change streams (fork)
	if e.opts.NoOplog {
		return nil, ErrNoChangeStreams
	}

	// get oplog
	oplog := e.catalog.Namespaces[Oplog].Documents.List()

	// get last event
	var last bsonkit.Doc
	if len(oplog) > 0 {
		last = oplog[len(oplog)-1]
	}

	// resume after
	if resumeAfter != nil {
		resumed := false
		for _, event := range oplog {
			res := bsonkit.Compare(*resumeAfter, bsonkit.Get(event, "_id"))
			if res == 0 {
				last = event
				resumed = true
				break
			}
		}
		if !resumed {
			return nil, fmt.Errorf("unable to resume change stream")
		}
	}

	// start after
	if startAfter != nil {
		resumed := false
		for _, event := range oplog {
			res := bsonkit.Compare(*startAfter, bsonkit.Get(event, "_id"))
			if res == 0 {
				last = event
				resumed = true
				break
			}
		}
		if !resumed {
			return nil, fmt.Errorf("unable to resume change stream")
		}
	}

	// start at: deliver events with clusterTime at or after the given
	// timestamp; the supplied timestamp need not match an existing event
	if startAt != nil {
		// position last just before the first event at-or-after startAt; if
		// every event is older than startAt, leave last at the newest entry
		// (the stream then waits for future events)
		for i, event := range oplog {
			res := bsonkit.Compare(*startAt, bsonkit.Get(event, "clusterTime"))
			if res <= 0 {
				if i == 0 {
					last = nil
				} else {
					last = oplog[i-1]
				}
				break
			}
		}
	}

	// create stream
	stream := &Stream{
		handle:   handle,
		last:     last,
		pipeline: pipeline,
		signal:   make(chan struct{}, 1),
	}

	// set oplog method
	stream.oplog = func() *bsonkit.Set {
		e.mutex.Lock()
		defer e.mutex.Unlock()
		return e.catalog.Namespaces[Oplog].Documents
	}

	// set cancel method
	stream.cancel = func() {
		e.mutex.Lock()
		defer e.mutex.Unlock()
		delete(e.streams, stream)
	}

	// register stream
	e.streams[stream] = struct{}{}

	return stream, nil
}

// Close will close the engine.
func (e *Engine) Close() {
	// acquire lock
	e.mutex.Lock()

	// check if closed
	if !e.tomb.Alive() {
		e.mutex.Unlock()
		return
	}

	// snapshot streams under the engine lock so we can close them after
	// releasing it (Stream.Close acquires stream.mutex then engine.mutex via
	// stream.cancel, so we must not invert that ordering)
	streams := make([]*Stream, 0, len(e.streams))
	for stream := range e.streams {
		streams = append(streams, stream)
	}

	// kill the tomb under the mutex, then release it so that in-flight Begin
	// calls can re-acquire the mutex and observe the dead tomb
	e.tomb.Kill(nil)
	e.mutex.Unlock()

	// close each stream under its own mutex so concurrent or subsequent
	// Stream.Close calls observe s.closed and skip the (now closed) signal
	// channel send
	for _, stream := range streams {
		stream.mutex.Lock()
		if !stream.closed {
			stream.closed = true
			close(stream.signal)
		}
		stream.mutex.Unlock()
	}

	// await goroutine termination
	_ = e.tomb.Wait()
}

func (e *Engine) expire(interval time.Duration, reporter func(error)) {
	// prepare ticker
	ticker := time.NewTicker(interval)
	defer ticker.Stop()

	for {
		// await next interval
		select {
		case <-e.tomb.Dying():
			return
		case <-ticker.C:
		}

		// expire documents, again after a write conflict
		_, err := e.write(e.tomb.Context(nil), func(txn *Transaction) (interface{}, error) {
			return nil, txn.Expire()
		})
		if err != nil && reporter != nil && e.tomb.Alive() {
			reporter(err)
		}
	}
}
