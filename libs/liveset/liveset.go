// Package liveset is what a query read and what a write changed, in the
// terms live queries are re-run by (docs/convex.md, "Live queries"): a
// service's answer to a query carries its Reads (header HeaderReads), its
// answer to a mutation or a raw route the Writes it committed (HeaderWrites),
// and every committed write is also published on the service's live topic
// (TopicOf) in the transaction that made it. The gateway re-runs a live
// query only when a write of its service Touches what it read.
//
// A read is a collection and, when the query's filter pinned one of the
// collection's key fields by equality, that field and its values: a query for
// the reviews of store A reads {reviews, storeId, A}; one that pinned no key
// field reads the whole collection. A write names, per collection it changed,
// the key fields it reports and their values in every document it changed,
// before and after: changing a review of store A that customer C wrote
// reports {reviews: _id: [r1], storeId: [A], customerId: [C]}. A read is
// touched when its collection was written and either it read the whole
// collection, or the write did not say the values of the read's field
// (unknown values, or a field it does not report: another version of the
// service may key its reads differently), or one of the write's values of the
// field is the read's.
package liveset

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The headers a service's answers carry them in, to a caller that asks
// with HeaderWant (the gateway; a service calling another while answering a
// query).
const (
	HeaderReads  = "X-Live-Reads"
	HeaderWrites = "X-Live-Writes"
	HeaderWant   = "X-Live-Want"
)

// TopicOf is the topic a service publishes its committed writes on.
func TopicOf(service string) string { return TopicPrefix + service }

// TopicPrefix starts every live topic's name.
const TopicPrefix = "live."

// EventType is the type of the events on the live topics.
const EventType = "live.written"

// Read is one thing a query read: a collection's documents whose Field is
// one of Values, or every document of Coll when Field is "".
type Read struct {
	// Service owns the collection; "" for the service that answered (a
	// query's reads of another service come through its internal calls).
	Service string   `json:"s,omitempty"`
	Coll    string   `json:"c"`
	Field   string   `json:"f,omitempty"`
	Values  []string `json:"v,omitempty"`
}

// Reads is what one run of a query read.
type Reads []Read

// Writes is what one write (a transaction, or a request's transactions)
// changed. Unknown: anything of the service may have changed.
type Writes struct {
	Unknown bool                  `json:"u,omitempty"`
	Colls   map[string]*CollWrite `json:"c,omitempty"`
	// IDs are the live events that publish these writes (a request's
	// answer names them: a reader of the live topic that saw the answer
	// skips them).
	IDs        []string `json:"i,omitempty"`
	idsDropped bool     // more than MaxIDs: none named
}

// CollWrite is what changed in one collection: the key fields reported and,
// for each, the values the changed documents had before or have after. All:
// the values are not known (too many documents, a value that is not a
// scalar): every read of the collection is touched.
type CollWrite struct {
	All    bool                `json:"a,omitempty"`
	Fields []string            `json:"f,omitempty"`
	Values map[string][]string `json:"v,omitempty"`
}

// Empty reports a write that changed nothing.
func (w *Writes) Empty() bool { return !w.Unknown && len(w.Colls) == 0 }

// Touches reports whether the write may have changed what r read.
func (w *Writes) Touches(r Read) bool {
	if w.Unknown {
		return true
	}
	cw := w.Colls[r.Coll]
	if cw == nil {
		return false
	}
	if cw.All || r.Field == "" || !slices.Contains(cw.Fields, r.Field) {
		return true
	}
	for _, v := range cw.Values[r.Field] {
		if slices.Contains(r.Values, v) {
			return true
		}
	}
	return false
}

// TouchesAny reports whether the write may have changed anything of rs.
func (w *Writes) TouchesAny(rs Reads) bool {
	return slices.ContainsFunc(rs, w.Touches)
}

// MaxIDs bounds the event ids a write set names; past it it names none (a
// reader then applies the events too: a second run, not a missed one).
const MaxIDs = 32

// Merge adds o's changes to w.
func (w *Writes) Merge(o *Writes) {
	if o == nil {
		return
	}
	if o.idsDropped {
		w.IDs, w.idsDropped = nil, true
	}
	for _, id := range o.IDs {
		if w.idsDropped {
			break
		}
		if slices.Contains(w.IDs, id) {
			continue
		}
		if len(w.IDs) >= MaxIDs {
			w.IDs, w.idsDropped = nil, true
			break
		}
		w.IDs = append(w.IDs, id)
	}
	if w.Unknown {
		return
	}
	if o.Unknown {
		w.Unknown, w.Colls = true, nil
		return
	}
	for coll, ocw := range o.Colls {
		cw := w.Coll(coll, ocw.Fields)
		if ocw.All {
			cw.setAll()
			continue
		}
		for f, vs := range ocw.Values {
			for _, v := range vs {
				cw.Add(f, v)
			}
		}
	}
}

// Coll is the collection's entry, made with fields when it has none.
func (w *Writes) Coll(coll string, fields []string) *CollWrite {
	if w.Colls == nil {
		w.Colls = map[string]*CollWrite{}
	}
	cw := w.Colls[coll]
	if cw == nil {
		cw = &CollWrite{Fields: slices.Clone(fields)}
		w.Colls[coll] = cw
		return cw
	}
	// Fields reported by one part but not another are not reported: only
	// those every part reported say where the values are complete.
	cw.Fields = slices.DeleteFunc(cw.Fields, func(f string) bool { return !slices.Contains(fields, f) })
	return cw
}

// MaxValues bounds the values one collection's entry keeps; past it the
// entry says All.
const MaxValues = 512

// Add records value v of field f (a reported field).
func (cw *CollWrite) Add(f, v string) {
	if cw.All {
		return
	}
	if cw.Values == nil {
		cw.Values = map[string][]string{}
	}
	vs := cw.Values[f]
	if slices.Contains(vs, v) {
		return
	}
	n := 0
	for _, have := range cw.Values {
		n += len(have)
	}
	if n >= MaxValues {
		cw.setAll()
		return
	}
	cw.Values[f] = append(vs, v)
}

// SetAll says the values are not known.
func (cw *CollWrite) SetAll() { cw.setAll() }

func (cw *CollWrite) setAll() { cw.All, cw.Values = true, nil }

// MaxHeader bounds the encoded size of a header (an HTTP client reads a
// service's headers into a buffer of a few KiB); Compact makes a set fit.
const MaxHeader = 2048

// Compact returns w in at most max encoded bytes: without its event ids,
// then with each collection's values given up (All), then Unknown.
func (w *Writes) Compact(max int) Writes {
	out := Writes{Unknown: w.Unknown, Colls: w.Colls, IDs: w.IDs}
	if len(out.Encode()) <= max {
		return out
	}
	out.IDs = nil
	if len(out.Encode()) <= max {
		return out
	}
	colls := make(map[string]*CollWrite, len(w.Colls))
	for c := range w.Colls {
		colls[c] = &CollWrite{All: true}
	}
	out.Colls = colls
	if len(out.Encode()) <= max {
		return out
	}
	return Writes{Unknown: true}
}

// Compact returns rs in at most max encoded bytes: each read of a field
// given up for its whole collection, then nil (not stated).
func (rs Reads) Compact(max int) Reads {
	if len(rs.Encode()) <= max {
		return rs
	}
	var out Reads
	for _, r := range rs {
		if !slices.ContainsFunc(out, func(h Read) bool { return h.Service == r.Service && h.Coll == r.Coll }) {
			out = append(out, Read{Service: r.Service, Coll: r.Coll})
		}
	}
	if len(out.Encode()) <= max {
		return out
	}
	return nil
}

// Encode is the header and event form of w.
func (w *Writes) Encode() string {
	b, err := json.Marshal(w)
	if err != nil { // maps of strings always marshal
		panic(err)
	}
	return string(b)
}

// DecodeWrites reads what Encode wrote.
func DecodeWrites(s string) (Writes, error) {
	var w Writes
	if err := json.Unmarshal([]byte(s), &w); err != nil {
		return Writes{}, fmt.Errorf("liveset: writes %.80q: %w", s, err)
	}
	for coll, cw := range w.Colls {
		if coll == "" || cw == nil {
			return Writes{}, fmt.Errorf("liveset: writes %.80q: an empty collection entry", s)
		}
	}
	return w, nil
}

// Encode is the header form of rs.
func (rs Reads) Encode() string {
	b, err := json.Marshal(rs)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// DecodeReads reads what Reads.Encode wrote.
func DecodeReads(s string) (Reads, error) {
	var rs Reads
	if err := json.Unmarshal([]byte(s), &rs); err != nil {
		return nil, fmt.Errorf("liveset: reads %.80q: %w", s, err)
	}
	for _, r := range rs {
		if r.Coll == "" || (r.Field == "") != (len(r.Values) == 0) {
			return nil, fmt.Errorf("liveset: reads %.80q: a read needs a collection, and values exactly when it names a field", s)
		}
	}
	return rs, nil
}
