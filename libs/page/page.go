// Package page is the platform's cursor pagination: paginationOpts in,
// { page, isDone, continueCursor } out. Cursors are opaque keyset positions (the
// sort value and the id of the last item returned), so a page never repeats or
// skips items when records are inserted between calls.
package page

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"reflect"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
)

// MaxItems caps a page; a larger numItems is served as MaxItems (isDone stays false
// while more remain).
const MaxItems = 100

// Opts are the pagination options. Clients built for the original backend may also
// send id, endCursor, maximumRowsRead and maximumBytesRead: they are accepted and
// ignored (page boundaries here are decided by numItems alone).
type Opts struct {
	NumItems         int      `json:"numItems" op:"required,min=1"`
	Cursor           *string  `json:"cursor"`
	ID               *float64 `json:"id"`
	EndCursor        *string  `json:"endCursor"`
	MaximumRowsRead  *int     `json:"maximumRowsRead"`
	MaximumBytesRead *int     `json:"maximumBytesRead"`
}

// Result is a page of items.
type Result[T any] struct {
	Page           []T    `json:"page"`
	IsDone         bool   `json:"isDone"`
	ContinueCursor string `json:"continueCursor"`
}

// Sort orders a query by one field, with _id breaking ties in the same direction.
type Sort struct {
	Field string // a field, or "_id" (ids are random: creation order is a creation time field's)
	Desc  bool
	// Query are the list's choices besides Field that a cursor is valid for
	// (docs/adr/0172): its direction when it offers two (as "oldest" or
	// "newest", false by default) and every filter it offers (status, kind,
	// from, to, search...), in a fixed order; not the scope every query of
	// the list has (its store, wallet, user). A nil (pointer), "", false and
	// 0 are "not chosen"; a pointer to any value, false included, is chosen.
	// A cursor carries its direction and a short hash of the chosen values
	// (none when nothing is chosen), and a query refuses a cursor of another
	// direction or other choices; the previous release's cursors (neither)
	// stay valid for the default query (nothing chosen), and its instances
	// read the new ones (they ignore the added parts).
	Query []any
	// Was is the field the previous release's cursors of this list name
	// when it sorted by another field holding the same value on every
	// record: such a cursor (no direction, no tag) is read by the default
	// query as one of Field.
	Was string
}

// tag is the short hash of s.Query's chosen values; "" when none is chosen.
func (s Sort) tag() string {
	h := sha256.New()
	chosen := false
	for i, q := range s.Query {
		v := reflect.ValueOf(q)
		given := v.IsValid() && !v.IsZero() // a non-nil pointer is chosen, even to false
		for v.IsValid() && v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if !given {
			fmt.Fprintf(h, "%d\x00\x00", i)
			continue
		}
		chosen = true
		fmt.Fprintf(h, "%d\x00%T:%v\x00", i, v.Interface(), v.Interface())
	}
	if !chosen {
		return ""
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:6])
}

// position is a cursor: the sort field, the last item's sort value and id,
// the direction (absent from the previous release's cursors) and the query's
// tag (absent when nothing is chosen).
type position struct {
	Field string      `bson:"f"`
	Value interface{} `bson:"v"`
	ID    string      `bson:"i"`
	Desc  *bool       `bson:"d,omitempty"`
	Tag   string      `bson:"q,omitempty"`
}

func (s Sort) at(v any, id string) position {
	d := s.Desc
	return position{Field: s.Field, Value: v, ID: id, Desc: &d, Tag: s.tag()}
}

func encode(p position) string {
	b, _ := bson.Marshal(p)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decode reads a cursor of the query s: INVALID_ARGUMENT when it is not one
// (another field, direction or choices). A cursor without a direction (the
// previous release's) is one of the list's default direction: it is taken
// only by a query with nothing chosen, whose tag is "" (a list offering two
// directions puts the other in its Query).
func decode(c string, s Sort) (*position, error) {
	bad := apperr.Invalid("paginationOpts.cursor", "is not a cursor of this query")
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return nil, bad
	}
	var raw struct {
		Field string        `bson:"f"`
		Value bson.RawValue `bson:"v"`
		ID    string        `bson:"i"`
		Desc  *bool         `bson:"d"`
		Tag   string        `bson:"q"`
	}
	if bson.Unmarshal(b, &raw) != nil || raw.ID == "" || raw.Tag != s.tag() || (raw.Desc != nil && *raw.Desc != s.Desc) {
		return nil, bad
	}
	if raw.Field != s.Field && (raw.Field != s.Was || s.Was == "" || raw.Desc != nil) {
		return nil, bad
	}
	// The value goes into the query: only the plain values sort keys have. A
	// document would be read as operators ({"$exists": true} matches every
	// record), a regular expression as a pattern to match.
	p := position{Field: s.Field, ID: raw.ID}
	switch raw.Value.Type {
	case bson.TypeString:
		p.Value = raw.Value.StringValue()
	case bson.TypeInt32:
		p.Value = raw.Value.Int32()
	case bson.TypeInt64:
		p.Value = raw.Value.Int64()
	case bson.TypeDouble:
		p.Value = raw.Value.Double()
	case bson.TypeBoolean:
		p.Value = raw.Value.Boolean()
	default:
		return nil, bad
	}
	return &p, nil
}

// Find runs one page of filter in order s. key returns the sort value and the id of
// an item, to build the cursor.
func Find[T any](ctx context.Context, c lungo.ICollection, filter bson.M, s Sort, o Opts, key func(*T) (sortValue any, id string)) (Result[T], error) {
	n := o.NumItems
	if n > MaxItems {
		n = MaxItems
	}
	if n < 1 {
		n = 1
	}
	q := filter
	if q == nil {
		q = bson.M{}
	}
	if o.Cursor != nil && *o.Cursor != "" {
		p, err := decode(*o.Cursor, s)
		if err != nil {
			return Result[T]{}, err
		}
		op := "$gt"
		if s.Desc {
			op = "$lt"
		}
		var after bson.M
		if s.Field == "_id" {
			after = bson.M{"_id": bson.M{op: p.ID}}
		} else {
			after = bson.M{"$or": bson.A{
				bson.M{s.Field: bson.M{op: p.Value}},
				bson.M{s.Field: p.Value, "_id": bson.M{op: p.ID}},
			}}
		}
		q = bson.M{"$and": bson.A{q, after}}
	}
	dir := 1
	if s.Desc {
		dir = -1
	}
	order := bson.D{{Key: s.Field, Value: dir}}
	if s.Field != "_id" {
		order = append(order, bson.E{Key: "_id", Value: dir})
	}
	cur, err := c.Find(ctx, q, options.Find().SetSort(order).SetLimit(int64(n+1)))
	if err != nil {
		return Result[T]{}, err
	}
	var items []T
	if err := cur.All(ctx, &items); err != nil {
		return Result[T]{}, err
	}
	res := Result[T]{IsDone: len(items) <= n}
	if !res.IsDone {
		items = items[:n]
	}
	res.Page = items
	switch {
	case len(items) > 0:
		v, id := key(&items[len(items)-1])
		res.ContinueCursor = encode(s.at(v, id))
	case o.Cursor != nil:
		res.ContinueCursor = *o.Cursor
	}
	return res, nil
}

// Map converts the items of a page, keeping its metadata.
func Map[T, U any](r Result[T], f func(*T) U) Result[U] {
	out := Result[U]{Page: make([]U, len(r.Page)), IsDone: r.IsDone, ContinueCursor: r.ContinueCursor}
	for i := range r.Page {
		out.Page[i] = f(&r.Page[i])
	}
	return out
}

// Each reads every page find gives, from the first (NumItems MaxItems),
// following the cursors, and runs fn on each page's items in order; fn's
// or find's error stops it. One page is held at a time.
func Each[T any](find func(o Opts) (Result[T], error), fn func([]T) error) error {
	o := Opts{NumItems: MaxItems}
	for {
		r, err := find(o)
		if err != nil {
			return err
		}
		if len(r.Page) > 0 {
			if err := fn(r.Page); err != nil {
				return err
			}
		}
		if r.IsDone {
			return nil
		}
		c := r.ContinueCursor
		o.Cursor = &c
	}
}
