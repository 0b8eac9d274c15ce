package storage

import (
	"cmp"
	"context"
	"encoding/base64"
	"hash/fnv"
	"strconv"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// Keyset pagination over several sort keys (libs/page sorts by one field and
// the id; a review list sorts by up to three: most_helpful is the Wilson bound,
// then newest, then the id). A cursor is the sort values of the last item
// returned and a fingerprint of the query it belongs to: the next page starts
// strictly after that item, so reviews added meanwhile never repeat or skip
// one, and a cursor of another query is INVALID_ARGUMENT.

// sortKey is one key of an ordering: a stored field and its direction.
type sortKey struct {
	field string
	desc  bool
}

// ordering is a total order: its last key is always _id.
type ordering struct {
	name string
	keys []sortKey
}

// Review orders of getStoreReviews (sortBy); the default is newest. Every one
// ends with the id, so equal values still give one order.
var reviewOrders = map[string]ordering{
	SortNewest:        {SortNewest, []sortKey{{"createdAt", true}, {"_id", true}}},
	SortOldest:        {SortOldest, []sortKey{{"createdAt", false}, {"_id", false}}},
	SortHighestRating: {SortHighestRating, []sortKey{{"rating", true}, {"createdAt", true}, {"_id", true}}},
	SortLowestRating:  {SortLowestRating, []sortKey{{"rating", false}, {"createdAt", true}, {"_id", true}}},
	SortMostHelpful:   {SortMostHelpful, []sortKey{{"wilson", true}, {"createdAt", true}, {"_id", true}}},
}

// Values of sortBy.
const (
	SortNewest        = "newest"
	SortOldest        = "oldest"
	SortHighestRating = "highest_rating"
	SortLowestRating  = "lowest_rating"
	SortMostHelpful   = "most_helpful"
	DefaultSort       = SortNewest
)

// Orders of the other lists.
var (
	customerOrder = ordering{"customer_newest", []sortKey{{"createdAt", true}, {"_id", true}}}
	flagOrder     = ordering{"flags_oldest", []sortKey{{"createdAt", false}, {"_id", false}}} // a queue: the longest waiting first
	flagNewest    = ordering{"flags_newest", []sortKey{{"createdAt", true}, {"_id", true}}}
	// The decisions (one decided status) by decision time (decided_by_status).
	flagDecidedOldest = ordering{"flags_decided_oldest", []sortKey{{"resolution.resolvedAt", false}, {"_id", false}}}
	flagDecidedNewest = ordering{"flags_decided_newest", []sortKey{{"resolution.resolvedAt", true}, {"_id", true}}}
)

// sortSpec is the order for the database.
func (o ordering) sortSpec() bson.D {
	d := make(bson.D, len(o.keys))
	for i, k := range o.keys {
		d[i] = bson.E{Key: k.field, Value: dir(k.desc)}
	}
	return d
}

func dir(desc bool) int {
	if desc {
		return -1
	}
	return 1
}

// after is the filter of the items strictly after the position values (one per
// key): (k0 beyond v0) or (k0 = v0 and k1 beyond v1) or ...
func (o ordering) after(values []any) bson.M {
	var or bson.A
	for i, k := range o.keys {
		cond := bson.M{}
		for j := 0; j < i; j++ {
			cond[o.keys[j].field] = values[j]
		}
		op := "$gt"
		if k.desc {
			op = "$lt"
		}
		cond[k.field] = bson.M{op: values[i]}
		or = append(or, cond)
	}
	return bson.M{"$or": or}
}

// compare orders two items by their key values (as reviewKeys and flagKeys give them), as
// the database orders them by the sort spec.
func (o ordering) compare(a, b []any) int {
	for i, k := range o.keys {
		c := compareValues(a[i], b[i])
		if k.desc {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case string:
		return cmp.Compare(x, b.(string))
	case float64:
		return cmp.Compare(x, b.(float64))
	case int64:
		return cmp.Compare(x, b.(int64))
	case int:
		return cmp.Compare(x, b.(int))
	}
	panic("reviews: sort value of unsupported type")
}

// cursor is a position in one query.
type cursor struct {
	Query  string `bson:"q"` // fingerprint of the query and order
	Values []any  `bson:"v"` // the last item's sort values
}

// fingerprint names a query (its order and filters), so a cursor cannot be
// used with another.
// periodParts are a list's period as parts of its fingerprint: none when
// it has no period, so the queries the previous release served (none had
// one) keep their fingerprint and their cursors stay valid.
func periodParts(p page.Period) []string {
	if !p.IsSet() {
		return nil
	}
	from, to := "", ""
	if p.From != nil {
		from = strconv.FormatInt(*p.From, 10)
	}
	if p.To != nil {
		to = strconv.FormatInt(*p.To, 10)
	}
	return []string{from, to}
}

func fingerprint(o ordering, parts ...string) string {
	h := fnv.New64a()
	h.Write([]byte(o.name))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return strconv.FormatUint(h.Sum64(), 36)
}

func encodeCursor(c cursor) string {
	b, _ := bson.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor of the query fp in order o.
func decodeCursor(s, fp string, o ordering) (*cursor, error) {
	bad := apperr.Invalid("paginationOpts.cursor", "is not a cursor of this query")
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	var raw struct {
		Query  string   `bson:"q"`
		Values bson.Raw `bson:"v"`
	}
	if bson.Unmarshal(b, &raw) != nil || raw.Query != fp {
		return nil, bad
	}
	vals, err := raw.Values.Values()
	if err != nil || len(vals) != len(o.keys) {
		return nil, bad
	}
	c := &cursor{Query: fp, Values: make([]any, len(vals))}
	for i, v := range vals {
		switch v.Type {
		case bson.TypeString:
			c.Values[i] = v.StringValue()
		case bson.TypeDouble:
			c.Values[i] = v.Double()
		case bson.TypeInt64:
			c.Values[i] = v.Int64()
		case bson.TypeInt32:
			c.Values[i] = int64(v.Int32())
		default:
			return nil, bad
		}
	}
	if _, ok := c.Values[len(vals)-1].(string); !ok {
		return nil, bad // the last key is the id
	}
	return c, nil
}

// keysOf gives an item's sort values in an order (reviewKeys, flagKeys).
type keysOf[T any] func(item *T, o ordering) []any

// reviewKeys are a review's values of the keys of o.
func reviewKeys(r *domain.Review, o ordering) []any {
	out := make([]any, len(o.keys))
	for i, k := range o.keys {
		switch k.field {
		case "_id":
			out[i] = r.ID
		case "createdAt":
			out[i] = r.CreatedAt
		case "rating":
			out[i] = int64(r.Rating)
		case "wilson":
			out[i] = r.Wilson
		default:
			panic("reviews: no sort key " + k.field)
		}
	}
	return out
}

// flagKeys are a flag's values of the keys of o.
func flagKeys(f *domain.Flag, o ordering) []any {
	out := make([]any, len(o.keys))
	for i, k := range o.keys {
		switch k.field {
		case "_id":
			out[i] = f.ID
		case "createdAt":
			out[i] = f.CreatedAt
		case "resolution.resolvedAt":
			out[i] = int64(0)
			if f.Resolution != nil {
				out[i] = f.Resolution.ResolvedAt
			}
		default:
			panic("reviews: no flag sort key " + k.field)
		}
	}
	return out
}

// findPage reads the page of filter in order o after the cursor (opts.Cursor,
// of the query fp): up to opts.NumItems items (at most page.MaxItems).
func findPage[T any](ctx context.Context, c lungo.ICollection, filter bson.M, o ordering, fp string, opts page.Opts, keys keysOf[T]) (page.Result[T], error) {
	n := min(max(opts.NumItems, 1), page.MaxItems)
	q := filter
	if opts.Cursor != nil && *opts.Cursor != "" {
		cur, err := decodeCursor(*opts.Cursor, fp, o)
		if err != nil {
			return page.Result[T]{}, err
		}
		q = bson.M{"$and": bson.A{filter, o.after(cur.Values)}}
	}
	items, err := findSorted[T](ctx, c, q, o, n+1)
	if err != nil {
		return page.Result[T]{}, err
	}
	res := page.Result[T]{IsDone: len(items) <= n}
	if !res.IsDone {
		items = items[:n]
	}
	res.Page = items
	switch {
	case len(items) > 0:
		res.ContinueCursor = encodeCursor(cursor{Query: fp, Values: keys(&items[len(items)-1], o)})
	case opts.Cursor != nil:
		res.ContinueCursor = *opts.Cursor
	}
	return res, nil
}

// findSorted is the first limit items of filter in order o: the database
// sorts and limits, served by the indexes (on the embedded engine too: its
// finds read an index that covers the sort and stop after the limit).
func findSorted[T any](ctx context.Context, c lungo.ICollection, filter bson.M, o ordering, limit int) ([]T, error) {
	return store.FindAll[T](ctx, c, filter, options.Find().SetSort(o.sortSpec()).SetLimit(int64(limit)))
}
