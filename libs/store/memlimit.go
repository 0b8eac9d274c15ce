package store

// The embedded engine holds every document in memory (docs/bench.md, rows g9
// and g10: about 4 bytes of Go heap per stored byte of BSON). Without a bound,
// a database that outgrows the machine ends in an out-of-memory kill, and
// since a restart loads the same data, in another at every start.
// DB_MEMORY_LIMIT bounds it: when the process's live heap (never counted
// above its resident memory: DataHeld) is at or above the limit, the writes that add data are refused before they run (UNAVAILABLE,
// details.reason "memory_limit"), while reads and deletes go on, so that an
// operator can free space, raise the limit or move to MongoDB. One
// MemoryLimit serves a whole process (in the all-in-one, every service's
// database shares it: they share one heap). MongoDB databases ignore it.
//
// Refused: insert, update, replace, upsert, findOneAnd{Update,Replace}, a bulk
// write that holds anything but deletes, index creation. In a transaction
// (DB.Tx) each such write is refused before it runs, which fails and rolls
// back the whole transaction: nothing is half-written.
// Let through:
//   - deletes (deleteOne/Many, findOneAndDelete, drop), always;
//   - the writes of a transaction after it deleted a document: removing data
//     takes its bookkeeping (a counter decremented, statistics, the event
//     telling other services), and refusing that would refuse the delete;
//   - writes whose context went through AllowOverMemoryLimit: a service's
//     start (declared indexes, start-up migrations: a start refused would be
//     the restart loop this avoids), the idempotency records of a call
//     (claimed and released around the call, which is itself checked), the
//     consumers' processed-event records (the event's own writes are
//     checked; a refused event is retried later, never dead-lettered).

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
)

// EnvMemoryLimit names the setting.
const EnvMemoryLimit = "DB_MEMORY_LIMIT"

// ReasonMemoryLimit is the details.reason of a write refused at the limit.
const ReasonMemoryLimit = "memory_limit"

// ErrMemoryLimit is the cause of every write refused at the limit
// (errors.Is; the answer itself is an apperr UNAVAILABLE).
var ErrMemoryLimit = errors.New("store: DB_MEMORY_LIMIT reached")

// IsMemoryLimit reports a write refused at the limit.
func IsMemoryLimit(err error) bool { return errors.Is(err, ErrMemoryLimit) }

// DefaultMemoryFraction is the share of the memory available to the process
// (the cgroup's memory.max, or the machine's memory) that DB_MEMORY_LIMIT=auto
// gives to the live heap: the Go heap grows to about twice the live heap
// between collections (GOGC=100), so half leaves room for that garbage, which
// the runtime's soft limit (RuntimeLimitFactor) also keeps in check.
const DefaultMemoryFraction = 0.5

// RuntimeLimitFactor sets the Go runtime's soft memory limit
// (debug.SetMemoryLimit) at this multiple of DB_MEMORY_LIMIT, unless
// GOMEMLIMIT is set: near the refusal point the collector runs more often
// instead of letting the heap double.
const RuntimeLimitFactor = 1.25

// MinMemoryLimit is the smallest limit accepted from the setting: the
// process itself needs more, so a smaller figure is a forgotten unit.
const MinMemoryLimit = 32 << 20

// heapCacheTTL is how long a reading of the live heap serves later writes.
// The figure only changes when a collection ends, so a few milliseconds
// change nothing but spare the reading on every write.
const heapCacheTTL = 5 * time.Millisecond

// MemoryLimit refuses the writes that add data to the embedded engine while
// the process's live heap is at or above the limit. A nil *MemoryLimit, or a
// limit of 0, refuses nothing.
type MemoryLimit struct {
	limit atomic.Int64
	read  atomic.Pointer[func() uint64] // a test's reading of the live heap; nil: LiveHeap, cached
	// the last reading and when it was taken (ns since start)
	cached atomic.Uint64
	readAt atomic.Int64
	start  time.Time
	// Logger, if set, is told (at most once a minute) that writes are refused.
	Logger  *slog.Logger
	loggedN atomic.Int64 // when it was last told
}

// NewMemoryLimit is a limit of n bytes (0: off) on the live heap.
func NewMemoryLimit(n int64) *MemoryLimit {
	m := &MemoryLimit{start: time.Now()}
	m.limit.Store(n)
	m.readAt.Store(math.MinInt64)
	return m
}

// SetBytes changes the limit (0: off).
func (m *MemoryLimit) SetBytes(n int64) { m.limit.Store(n) }

// Bytes is the limit (0: off).
func (m *MemoryLimit) Bytes() int64 {
	if m == nil {
		return 0
	}
	return m.limit.Load()
}

// SetHeapReader replaces the reading of the live heap (tests: a figure
// instead of gigabytes allocated); its readings are not cached. nil restores
// LiveHeap.
func (m *MemoryLimit) SetHeapReader(read func() uint64) {
	if read == nil {
		m.read.Store(nil)
	} else {
		m.read.Store(&read)
	}
	m.readAt.Store(math.MinInt64)
}

// heap is the live heap, read at most every heapCacheTTL.
func (m *MemoryLimit) heap() uint64 {
	if read := m.read.Load(); read != nil {
		return (*read)()
	}
	now := int64(time.Since(m.start))
	if at := m.readAt.Load(); at != math.MinInt64 && now-at < int64(heapCacheTTL) {
		return m.cached.Load()
	}
	rss, ok := ResidentMemory()
	h := DataHeld(LiveHeap(), rss, ok)
	m.cached.Store(h)
	m.readAt.Store(now)
	return h
}

// over reports whether the live heap is at or above the limit.
func (m *MemoryLimit) over() (heap uint64, limit int64, over bool) {
	if m == nil {
		return 0, 0, false
	}
	limit = m.limit.Load()
	if limit <= 0 {
		return 0, limit, false
	}
	heap = m.heap()
	return heap, limit, heap >= uint64(limit)
}

// Check returns the refusal when the live heap is at or above the limit.
func (m *MemoryLimit) Check() error {
	heap, limit, over := m.over()
	if !over {
		return nil
	}
	return m.refusal(heap, limit)
}

func (m *MemoryLimit) refusal(heap uint64, limit int64) error {
	if m.Logger != nil {
		now := int64(time.Since(m.start))
		last := m.loggedN.Load()
		if (last == 0 || now-last >= int64(time.Minute)) && m.loggedN.CompareAndSwap(last, now) {
			m.Logger.Warn("embedded database: writes that add data are refused: the live heap is at or above "+EnvMemoryLimit+
				"; delete data, raise the limit, or run on MongoDB (MONGODB_URI)",
				"live_heap_bytes", heap, "limit_bytes", limit)
		}
	}
	return apperr.Wrap(ErrMemoryLimit, apperr.Unavailable,
		"the embedded database is full: this process holds %s of live data, at or above %s=%s, so writes that add data are refused "+
			"(nothing was written; reads and deletes still work). Delete data, raise %s, or run on MongoDB (MONGODB_URI)",
		FormatBytes(int64(heap)), EnvMemoryLimit, FormatBytes(limit), EnvMemoryLimit).
		WithDetails(map[string]any{"reason": ReasonMemoryLimit, "liveHeapBytes": heap, "limitBytes": limit})
}

var liveHeapSample = "/gc/heap/live:bytes"

// LiveHeap is the heap marked live by the last garbage collection
// (runtime/metrics /gc/heap/live:bytes): the data the process holds, without
// the garbage not yet collected.
func LiveHeap() uint64 {
	s := [1]metrics.Sample{{Name: liveHeapSample}}
	metrics.Read(s[:])
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// DataHeld is the figure held against the limit: the live heap, but never
// more than the process's resident memory where that can be read. A live
// heap above the resident memory is not data the engine holds: memory
// allocated and never touched (a buffer sized from a claim, not from what
// arrived) counts in the heap but not in what the machine can run out of, and
// a CI run once read 27 GiB of live heap on a 24 GiB machine, which refused
// every write from then on. Documents stored are touched, so they are
// resident: the limit still refuses writes once they outgrow it.
func DataHeld(liveHeap uint64, resident int64, residentKnown bool) uint64 {
	if residentKnown && resident >= 0 && uint64(resident) < liveHeap {
		return uint64(resident)
	}
	return liveHeap
}

// ResidentMemory is the process's resident set (/proc/self/statm); ok is
// false where it cannot be read (not Linux).
func ResidentMemory() (n int64, ok bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || pages < 0 {
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

type overLimitKey struct{}

// AllowOverMemoryLimit marks writes made with the returned context as ones
// the system needs whatever the memory (see the top of this file); why says
// which, for readers.
func AllowOverMemoryLimit(ctx context.Context, why string) context.Context {
	return context.WithValue(ctx, overLimitKey{}, why)
}

// memTx is one run of a DB.Tx function: whether it deleted a document.
type memTx struct{ freed atomic.Bool }

type memTxKey struct{}

// limitTx gives each run of fn (WithTransaction may run it again) a record
// of whether it deleted anything.
func (d *DB) limitTx(fn func(ctx context.Context) error) func(ctx context.Context) error {
	if d.memLimit == nil {
		return fn
	}
	return func(ctx context.Context) error {
		return fn(context.WithValue(ctx, memTxKey{}, &memTx{}))
	}
}

// limitedCollection refuses the writes that add data at the limit.
type limitedCollection struct {
	lungo.ICollection
	lim *MemoryLimit
}

// limited wraps c when the database has a limit (DB.Collection).
func (d *DB) limited(c lungo.ICollection) lungo.ICollection {
	if d.memLimit == nil || !d.embedded {
		return c
	}
	return limitedCollection{c, d.memLimit}
}

// failedResult is a single result of a write refused at the limit.
type failedResult struct{ err error }

func (r failedResult) Decode(any) error               { return r.err }
func (r failedResult) DecodeBytes() (bson.Raw, error) { return nil, r.err }
func (r failedResult) Err() error                     { return r.err }
func (r failedResult) Raw() (bson.Raw, error)         { return nil, r.err }

// Clone keeps the clone limited.
func (c limitedCollection) Clone(opts ...*options.CollectionOptions) (lungo.ICollection, error) {
	cl, err := c.ICollection.Clone(opts...)
	if err != nil {
		return nil, err
	}
	return limitedCollection{cl, c.lim}, nil
}

func (c limitedCollection) check(ctx context.Context) error {
	heap, limit, over := c.lim.over()
	if !over {
		return nil
	}
	if ctx.Value(overLimitKey{}) != nil {
		return nil
	}
	if t, _ := ctx.Value(memTxKey{}).(*memTx); t != nil && t.freed.Load() {
		return nil
	}
	return c.lim.refusal(heap, limit)
}

// freed records, in a transaction, that a document was deleted.
func freed(ctx context.Context, n int64) {
	if t, _ := ctx.Value(memTxKey{}).(*memTx); t != nil && n > 0 {
		t.freed.Store(true)
	}
}

func (c limitedCollection) BulkWrite(ctx context.Context, models []mongo.WriteModel, opts ...*options.BulkWriteOptions) (*mongo.BulkWriteResult, error) {
	deletes := true
	for _, m := range models {
		switch m.(type) {
		case *mongo.DeleteOneModel, *mongo.DeleteManyModel:
		default:
			deletes = false
		}
	}
	if !deletes {
		if err := c.check(ctx); err != nil {
			return nil, err
		}
	}
	res, err := c.ICollection.BulkWrite(ctx, models, opts...)
	if res != nil {
		freed(ctx, res.DeletedCount)
	}
	return res, err
}

func (c limitedCollection) DeleteMany(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	res, err := c.ICollection.DeleteMany(ctx, filter, opts...)
	if res != nil {
		freed(ctx, res.DeletedCount)
	}
	return res, err
}

func (c limitedCollection) DeleteOne(ctx context.Context, filter any, opts ...*options.DeleteOptions) (*mongo.DeleteResult, error) {
	res, err := c.ICollection.DeleteOne(ctx, filter, opts...)
	if res != nil {
		freed(ctx, res.DeletedCount)
	}
	return res, err
}

func (c limitedCollection) Drop(ctx context.Context) error {
	err := c.ICollection.Drop(ctx)
	if err == nil {
		freed(ctx, 1)
	}
	return err
}

func (c limitedCollection) FindOneAndDelete(ctx context.Context, filter any, opts ...*options.FindOneAndDeleteOptions) lungo.ISingleResult {
	res := c.ICollection.FindOneAndDelete(ctx, filter, opts...)
	if res.Err() == nil {
		freed(ctx, 1)
	}
	return res
}

func (c limitedCollection) FindOneAndReplace(ctx context.Context, filter, replacement any, opts ...*options.FindOneAndReplaceOptions) lungo.ISingleResult {
	if err := c.check(ctx); err != nil {
		return failedResult{err}
	}
	return c.ICollection.FindOneAndReplace(ctx, filter, replacement, opts...)
}

func (c limitedCollection) FindOneAndUpdate(ctx context.Context, filter, update any, opts ...*options.FindOneAndUpdateOptions) lungo.ISingleResult {
	if err := c.check(ctx); err != nil {
		return failedResult{err}
	}
	return c.ICollection.FindOneAndUpdate(ctx, filter, update, opts...)
}

func (c limitedCollection) Indexes() lungo.IIndexView {
	return limitedIndexView{c.ICollection.Indexes(), c}
}

func (c limitedCollection) InsertMany(ctx context.Context, docs []any, opts ...*options.InsertManyOptions) (*mongo.InsertManyResult, error) {
	if err := c.check(ctx); err != nil {
		return nil, err
	}
	return c.ICollection.InsertMany(ctx, docs, opts...)
}

func (c limitedCollection) InsertOne(ctx context.Context, doc any, opts ...*options.InsertOneOptions) (*mongo.InsertOneResult, error) {
	if err := c.check(ctx); err != nil {
		return nil, err
	}
	return c.ICollection.InsertOne(ctx, doc, opts...)
}

func (c limitedCollection) ReplaceOne(ctx context.Context, filter, replacement any, opts ...*options.ReplaceOptions) (*mongo.UpdateResult, error) {
	if err := c.check(ctx); err != nil {
		return nil, err
	}
	return c.ICollection.ReplaceOne(ctx, filter, replacement, opts...)
}

func (c limitedCollection) UpdateByID(ctx context.Context, id, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	if err := c.check(ctx); err != nil {
		return nil, err
	}
	return c.ICollection.UpdateByID(ctx, id, update, opts...)
}

func (c limitedCollection) UpdateMany(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	if err := c.check(ctx); err != nil {
		return nil, err
	}
	return c.ICollection.UpdateMany(ctx, filter, update, opts...)
}

func (c limitedCollection) UpdateOne(ctx context.Context, filter, update any, opts ...*options.UpdateOptions) (*mongo.UpdateResult, error) {
	if err := c.check(ctx); err != nil {
		return nil, err
	}
	return c.ICollection.UpdateOne(ctx, filter, update, opts...)
}

// limitedIndexView refuses index creation at the limit.
type limitedIndexView struct {
	lungo.IIndexView
	c limitedCollection
}

func (v limitedIndexView) CreateMany(ctx context.Context, models []mongo.IndexModel, opts ...*options.CreateIndexesOptions) ([]string, error) {
	if err := v.c.check(ctx); err != nil {
		return nil, err
	}
	return v.IIndexView.CreateMany(ctx, models, opts...)
}

func (v limitedIndexView) CreateOne(ctx context.Context, model mongo.IndexModel, opts ...*options.CreateIndexesOptions) (string, error) {
	if err := v.c.check(ctx); err != nil {
		return "", err
	}
	return v.IIndexView.CreateOne(ctx, model, opts...)
}

// The setting.

// MemoryAvailable is the memory the process may use: the smaller of its
// cgroup's limit (v2 memory.max, v1 memory.limit_in_bytes) and the machine's
// memory (/proc/meminfo), with where the figure came from; ok is false where
// neither can be read (not Linux).
func MemoryAvailable() (n int64, source string, ok bool) {
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, found := strings.CutPrefix(line, "MemTotal:"); found {
				f := strings.Fields(rest)
				if len(f) == 2 && f[1] == "kB" {
					if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil && kb > 0 {
						n, source, ok = kb<<10, "the machine's memory", true
					}
				}
			}
		}
	}
	for _, c := range []struct{ file, name string }{
		{"/sys/fs/cgroup/memory.max", "the cgroup's memory.max"},
		{"/sys/fs/cgroup/memory/memory.limit_in_bytes", "the cgroup's memory.limit_in_bytes"},
	} {
		b, err := os.ReadFile(c.file)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || v <= 0 { // "max": no limit
			continue
		}
		if !ok || v < n { // cgroup v1 says "no limit" with a huge figure
			n, source, ok = v, c.name, true
		}
		break
	}
	return n, source, ok
}

var sizeUnits = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
}

// ParseMemoryLimit reads a DB_MEMORY_LIMIT value: a size ("512MiB", "2GiB",
// "1.5GB", plain bytes), a share of the memory available ("40%"), "off" or
// "0" (no limit), or "auto" (DefaultMemoryFraction of the memory available;
// off where it cannot be read). available is MemoryAvailable (a test's
// figure in tests). It returns the limit in bytes (0: off) and a description
// of how it was reached, for the start-up log.
func ParseMemoryLimit(raw string, available func() (int64, string, bool)) (int64, string, error) {
	v := strings.ToLower(strings.TrimSpace(raw))
	bad := func(format string, args ...any) (int64, string, error) {
		return 0, "", fmt.Errorf("%s=%q: %s (give a size such as 512MiB or 2GiB, a share of the memory such as 40%%, auto, or off)",
			EnvMemoryLimit, raw, fmt.Sprintf(format, args...))
	}
	switch v {
	case "off", "0":
		return 0, "off", nil
	case "", "auto":
		n, src, ok := available()
		if !ok {
			return 0, "off (auto: the memory available could not be read on this system)", nil
		}
		limit := int64(float64(n) * DefaultMemoryFraction)
		return limit, fmt.Sprintf("auto: %s, %.0f%% of %s (%s)", FormatBytes(limit), DefaultMemoryFraction*100, FormatBytes(n), src), nil
	}
	if pct, ok := strings.CutSuffix(v, "%"); ok {
		p, err := strconv.ParseFloat(strings.TrimSpace(pct), 64)
		if err != nil || math.IsNaN(p) || p <= 0 || p > 100 {
			return bad("a share of the memory is a number above 0 and at most 100, then %%")
		}
		n, src, ok := available()
		if !ok {
			return bad("the memory available could not be read on this system, so a share of it means nothing here")
		}
		limit := int64(float64(n) * p / 100)
		if limit < MinMemoryLimit {
			return bad("%s of %s is %s, below the %s the process itself needs", pct+"%", FormatBytes(n), FormatBytes(limit), FormatBytes(MinMemoryLimit))
		}
		return limit, fmt.Sprintf("%s, %s%% of %s (%s)", FormatBytes(limit), strings.TrimSpace(pct), FormatBytes(n), src), nil
	}
	i := strings.IndexFunc(v, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := v, ""
	if i >= 0 {
		num, unit = v[:i], strings.TrimSpace(v[i:])
	}
	if num == "" {
		return bad("not a size")
	}
	mult, ok := sizeUnits[unit]
	if !ok {
		return bad("unknown unit %q (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB)", unit)
	}
	x, err := strconv.ParseFloat(num, 64)
	if num == "" || err != nil || math.IsNaN(x) || x < 0 {
		return bad("not a size")
	}
	bytes := x * mult
	if bytes >= math.MaxInt64 {
		return bad("too large")
	}
	limit := int64(bytes)
	if limit == 0 {
		return 0, "off", nil
	}
	if limit < MinMemoryLimit {
		return bad("%s is below the %s the process itself needs; was a unit forgotten (512MiB)?", FormatBytes(limit), FormatBytes(MinMemoryLimit))
	}
	return limit, FormatBytes(limit), nil
}

// FormatBytes writes n in binary units ("1.5GiB", "512MiB", "900B").
func FormatBytes(n int64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	f, u := float64(n), 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if u == 0 {
		return strconv.FormatInt(n, 10) + "B"
	}
	s := strconv.FormatFloat(f, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + units[u]
}

// SetRuntimeLimit sets the Go runtime's soft memory limit to
// RuntimeLimitFactor times the limit, unless the limit is off or GOMEMLIMIT
// already says (getenv reads the environment). It returns the figure set, 0
// when none was.
func (m *MemoryLimit) SetRuntimeLimit(getenv func(string) string) int64 {
	n := m.Bytes()
	if n <= 0 || getenv("GOMEMLIMIT") != "" {
		return 0
	}
	soft := int64(float64(n) * RuntimeLimitFactor)
	debug.SetMemoryLimit(soft)
	return soft
}
