package liveset

// What a request read and wrote, recorded in its context (libs/ops: a
// query's answer states its reads, a mutation's its writes), and the
// collections that say nothing to live queries.

import (
	"context"
	"slices"
	"strings"
	"sync"
)

var internalColls sync.Map // name -> true

// Internal declares name a collection of the libraries' own bookkeeping (an
// outbox, idempotency records, processed events): its reads and writes say
// nothing to live queries. It returns name.
func Internal(name string) string {
	internalColls.Store(name, true)
	return name
}

// IsInternal reports a collection declared Internal, or one whose name
// starts with "_".
func IsInternal(name string) bool {
	_, ok := internalColls.Load(name)
	return ok || strings.HasPrefix(name, "_")
}

// ReadTracker collects what a query read.
type ReadTracker struct {
	mu      sync.Mutex
	unknown string
	reads   Reads
}

type readTrackerKey struct{}

// TrackReads returns a context whose reads t records.
func TrackReads(ctx context.Context) (context.Context, *ReadTracker) {
	t := &ReadTracker{}
	return context.WithValue(ctx, readTrackerKey{}, t), t
}

// ReadsUnknown says that what the query answers rests on more than its
// reads from the database (why says on what): its answer states no reads,
// and its live queries re-run on every write of the service.
func ReadsUnknown(ctx context.Context, why string) {
	if t := ReadTrackerOf(ctx); t != nil {
		t.mu.Lock()
		if t.unknown == "" {
			t.unknown = why
		}
		t.mu.Unlock()
	}
}

// AddReads adds what a call to another service read (its answer's reads,
// named for it) to the reads ctx records, if it records any.
func AddReads(ctx context.Context, service string, rs Reads) {
	t := ReadTrackerOf(ctx)
	if t == nil {
		return
	}
	named := make(Reads, len(rs))
	for i, r := range rs {
		named[i] = r
		if r.Service == "" {
			named[i].Service = service
		}
	}
	t.Add(named)
}

// TracksReads reports whether ctx records reads (a query's request).
func TracksReads(ctx context.Context) bool {
	return ctx.Value(readTrackerKey{}) != nil
}

// Reads are the reads recorded, merged (one entry per collection and field),
// and false when they are not known.
func (t *ReadTracker) Reads() (Reads, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.unknown != "" {
		return nil, false
	}
	return slices.Clone(t.reads), true
}

// Unknown is why the reads are not known, "" when they are.
func (t *ReadTracker) Unknown() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.unknown
}

// MaxReadValues bounds the values of one read; past it the read is the
// whole collection.
const MaxReadValues = 256

// Add adds rs to the reads recorded.
func (t *ReadTracker) Add(rs Reads) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, r := range rs {
		same := func(h Read) bool { return h.Service == r.Service && h.Coll == r.Coll }
		i := slices.IndexFunc(t.reads, func(h Read) bool { return same(h) && (h.Field == r.Field || h.Field == "") })
		switch {
		case i < 0:
			t.reads = append(t.reads, Read{Service: r.Service, Coll: r.Coll, Field: r.Field, Values: slices.Clone(r.Values)})
		case t.reads[i].Field == "":
			// the whole collection read already
		default:
			for _, v := range r.Values {
				if !slices.Contains(t.reads[i].Values, v) {
					t.reads[i].Values = append(t.reads[i].Values, v)
				}
			}
		}
		if r.Field == "" || (i >= 0 && len(t.reads[i].Values) > MaxReadValues) {
			t.reads = slices.DeleteFunc(t.reads, same)
			t.reads = append(t.reads, Read{Service: r.Service, Coll: r.Coll})
		}
	}
}

// WriteTracker collects what a request's committed writes changed.
type WriteTracker struct {
	mu sync.Mutex
	w  Writes
}

type writeTrackerKey struct{}

// TrackWrites returns a context whose committed writes t records.
func TrackWrites(ctx context.Context) (context.Context, *WriteTracker) {
	t := &WriteTracker{}
	return context.WithValue(ctx, writeTrackerKey{}, t), t
}

// Writes are the committed writes recorded.
func (t *WriteTracker) Writes() Writes {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out Writes
	out.Merge(&t.w)
	return out
}

// Merge adds w to the writes recorded.
func (t *WriteTracker) Merge(w *Writes) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.w.Merge(w)
}

// ReadTrackerOf is the ReadTracker of ctx (TrackReads), nil if none.
func ReadTrackerOf(ctx context.Context) *ReadTracker {
	t, _ := ctx.Value(readTrackerKey{}).(*ReadTracker)
	return t
}

// WriteTrackerOf is the WriteTracker of ctx (TrackWrites), nil if none.
func WriteTrackerOf(ctx context.Context) *WriteTracker {
	t, _ := ctx.Value(writeTrackerKey{}).(*WriteTracker)
	return t
}
