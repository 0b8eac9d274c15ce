package page

import (
	"context"
	"encoding/base64"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
)

type item struct {
	ID     string `bson:"_id"`
	Rating int    `bson:"rating"`
}

func key(i *item) (any, string) { return i.Rating, i.ID }

func collect(t *testing.T, find func(cursor *string) Result[item]) []string {
	var got []string
	var cur *string
	for pages := 0; ; pages++ {
		if pages > 50 {
			t.Fatal("pagination does not end")
		}
		r := find(cur)
		for _, it := range r.Page {
			got = append(got, it.ID)
		}
		if r.IsDone {
			return got
		}
		c := r.ContinueCursor
		cur = &c
	}
}

func TestKeysetPagesAreCompleteAndStableUnderInserts(t *testing.T) {
	ctx := context.Background()
	db, _ := store.Open(ctx, store.Options{Name: "p", Memory: true})
	defer db.Close(ctx)
	c := db.Collection("items")
	for i := 0; i < 25; i++ {
		c.InsertOne(ctx, item{ID: fmt.Sprintf("id%02d", i), Rating: i % 5})
	}
	// Sorted by rating descending with id ties: 5 pages of 5 with an insert of a
	// low-rated item (sorting after the cursor) midway: it must appear exactly once.
	inserted := false
	got := collect(t, func(cur *string) Result[item] {
		r, err := Find(ctx, c, bson.M{}, Sort{Field: "rating", Desc: true}, Opts{NumItems: 5, Cursor: cur}, key)
		if err != nil {
			t.Fatal(err)
		}
		if !inserted {
			c.InsertOne(ctx, item{ID: "zz-new", Rating: 0})
			c.InsertOne(ctx, item{ID: "zz-top", Rating: 4}) // sorts before the cursor: not seen
			inserted = true
		}
		return r
	})
	seen := map[string]int{}
	for _, id := range got {
		seen[id]++
	}
	if len(got) != 26 || seen["zz-new"] != 1 || seen["zz-top"] != 0 {
		t.Fatalf("got %d items %v", len(got), got)
	}
	for i := 1; i < len(got); i++ {
		if seen[got[i]] != 1 {
			t.Fatalf("%s repeated", got[i])
		}
	}
	// By _id ascending.
	got = collect(t, func(cur *string) Result[item] {
		r, err := Find(ctx, c, bson.M{"rating": bson.M{"$gte": 3}}, Sort{Field: "_id"}, Opts{NumItems: 4, Cursor: cur}, key)
		if err != nil {
			t.Fatal(err)
		}
		return r
	})
	if len(got) != 11 || got[0] != "id03" || got[len(got)-1] != "zz-top" {
		t.Fatalf("by id: %v", got)
	}
}

func TestCursorErrorsAndLimits(t *testing.T) {
	ctx := context.Background()
	db, _ := store.Open(ctx, store.Options{Name: "p", Memory: true})
	defer db.Close(ctx)
	c := db.Collection("items")
	for i := 0; i < 150; i++ {
		c.InsertOne(ctx, item{ID: fmt.Sprintf("id%03d", i)})
	}
	r, err := Find(ctx, c, nil, Sort{Field: "_id"}, Opts{NumItems: 1000}, key)
	if err != nil || len(r.Page) != MaxItems || r.IsDone {
		t.Fatalf("cap: %d %v %v", len(r.Page), r.IsDone, err)
	}
	bad := "garbage!"
	if _, err := Find(ctx, c, nil, Sort{Field: "_id"}, Opts{NumItems: 1, Cursor: &bad}, key); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("bad cursor: %v", err)
	}
	// A cursor of one ordering is refused by another.
	other := r.ContinueCursor
	if _, err := Find(ctx, c, nil, Sort{Field: "rating"}, Opts{NumItems: 1, Cursor: &other}, key); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("foreign cursor: %v", err)
	}
	empty := ""
	if r, err := Find(ctx, c, bson.M{"_id": "none"}, Sort{Field: "_id"}, Opts{NumItems: 5, Cursor: &empty}, key); err != nil || !r.IsDone || len(r.Page) != 0 {
		t.Fatalf("empty: %+v %v", r, err)
	}
}

// A cursor's value goes into the query: a forged cursor whose value is a
// document (read as operators) or a regular expression is refused, not run.
func TestForgedCursorValuesAreRefused(t *testing.T) {
	ctx := context.Background()
	db, _ := store.Open(ctx, store.Options{Name: "p", Memory: true})
	defer db.Close(ctx)
	c := db.Collection("items")
	for i := 0; i < 5; i++ {
		c.InsertOne(ctx, item{ID: fmt.Sprintf("id%02d", i), Rating: i})
	}
	forge := func(v any) *string {
		b, err := bson.Marshal(bson.M{"f": "rating", "v": v, "i": "id"})
		if err != nil {
			t.Fatal(err)
		}
		s := base64.RawURLEncoding.EncodeToString(b)
		return &s
	}
	for name, v := range map[string]any{
		"operators":            bson.M{"$exists": true},
		"an array":             bson.A{1, 2},
		"a regular expression": primitive.Regex{Pattern: ".*"},
	} {
		r, err := Find(ctx, c, bson.M{}, Sort{Field: "rating", Desc: true}, Opts{NumItems: 10, Cursor: forge(v)}, key)
		if apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("a cursor holding %s: %d items, %v", name, len(r.Page), err)
		}
	}
	// A plain value is a position: the items after rating 2.
	r, err := Find(ctx, c, bson.M{}, Sort{Field: "rating", Desc: true}, Opts{NumItems: 10, Cursor: forge(int64(2))}, key)
	if err != nil || len(r.Page) != 2 || r.Page[0].Rating != 1 {
		t.Fatalf("a plain cursor: %+v %v", r.Page, err)
	}
}

// TestEach: every page in order, following each page's cursor from none;
// an empty page is not handed on; fn's error and find's stop it.
func TestEach(t *testing.T) {
	pages := map[string]Result[int]{
		"":  {Page: []int{1, 2}, ContinueCursor: "a"},
		"a": {Page: []int{}, ContinueCursor: "b"},
		"b": {Page: []int{3}, IsDone: true},
	}
	find := func(o Opts) (Result[int], error) {
		if o.NumItems != MaxItems {
			t.Errorf("NumItems %d", o.NumItems)
		}
		c := ""
		if o.Cursor != nil {
			c = *o.Cursor
		}
		if c == "x" {
			return Result[int]{}, fmt.Errorf("down")
		}
		return pages[c], nil
	}
	var got []int
	calls := 0
	if err := Each(find, func(p []int) error { calls++; got = append(got, p...); return nil }); err != nil || fmt.Sprint(got) != "[1 2 3]" || calls != 2 {
		t.Fatalf("Each: %v %v, %d calls", err, got, calls)
	}
	stop := fmt.Errorf("stop")
	if err := Each(find, func([]int) error { return stop }); err != stop {
		t.Fatalf("fn's error: %v", err)
	}
	pages["b"] = Result[int]{Page: []int{3}, ContinueCursor: "x"}
	if err := Each(find, func([]int) error { return nil }); err == nil || err.Error() != "down" {
		t.Fatalf("find's error: %v", err)
	}
}

// A cursor is valid for its own direction and choices only (docs/adr/0172):
// the scenario of a list read newest first whose cursor is then sent with
// oldest first (or another filter) is refused, not served as "page 2"; a
// cursor of the previous release (field, value and id only) is still read
// by the default query, and refused by any other.
func TestCursorsAreBoundToDirectionAndChoices(t *testing.T) {
	ctx := context.Background()
	db, _ := store.Open(ctx, store.Options{Name: "p", Memory: true})
	defer db.Close(ctx)
	c := db.Collection("items")
	for i := 0; i < 10; i++ {
		c.InsertOne(ctx, item{ID: fmt.Sprintf("id%02d", i), Rating: i})
	}
	status := "open"
	var noStatus *string
	newest := Sort{Field: "rating", Desc: true, Query: []any{false, noStatus}}
	oldest := Sort{Field: "rating", Query: []any{true, noStatus}}
	open := Sort{Field: "rating", Desc: true, Query: []any{false, &status}}
	first, err := Find(ctx, c, nil, newest, Opts{NumItems: 3}, key)
	if err != nil || first.IsDone {
		t.Fatal(first, err)
	}
	cur := first.ContinueCursor
	for name, s := range map[string]Sort{
		"other direction":           oldest,
		"other direction, untagged": {Field: "rating", Desc: false},
		"a filter":                  open,
		"other field":               {Field: "_id", Desc: true},
	} {
		_, err := Find(ctx, c, nil, s, Opts{NumItems: 3, Cursor: &cur}, key)
		if apperr.CodeOf(err) != apperr.InvalidArgument || err.Error() == "" {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// Its own query goes on (a nil choice and a zero one are the same).
	if r, err := Find(ctx, c, nil, Sort{Field: "rating", Desc: true, Query: []any{nil, ""}}, Opts{NumItems: 3, Cursor: &cur}, key); err != nil || r.Page[0].Rating != 6 {
		t.Fatalf("own query: %+v %v", r, err)
	}
	// A pointer to false is a choice (available: false), unlike nil.
	no := false
	if _, err := Find(ctx, c, nil, Sort{Field: "rating", Desc: true, Query: []any{&no, noStatus}}, Opts{NumItems: 3, Cursor: &cur}, key); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("pointer to false: %v", err)
	}
	// A filtered query's cursor is refused without the filter and with another value.
	fr, err := Find(ctx, c, nil, open, Opts{NumItems: 3}, key)
	if err != nil {
		t.Fatal(err)
	}
	other := "closed"
	for _, s := range []Sort{newest, {Field: "rating", Desc: true, Query: []any{false, &other}}} {
		if _, err := Find(ctx, c, nil, s, Opts{NumItems: 3, Cursor: &fr.ContinueCursor}, key); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Fatalf("filtered cursor taken by %+v: %v", s.Query, err)
		}
	}
	if _, err := Find(ctx, c, nil, open, Opts{NumItems: 3, Cursor: &fr.ContinueCursor}, key); err != nil {
		t.Fatal(err)
	}
	// The previous release's cursor (as it encoded one) after rating 7.
	b, _ := bson.Marshal(bson.D{{Key: "f", Value: "rating"}, {Key: "v", Value: 7}, {Key: "i", Value: "id07"}})
	old := base64.RawURLEncoding.EncodeToString(b)
	r, err := Find(ctx, c, nil, newest, Opts{NumItems: 3, Cursor: &old}, key)
	if err != nil || len(r.Page) != 3 || r.Page[0].Rating != 6 {
		t.Fatalf("old cursor, default query: %+v %v", r, err)
	}
	for _, s := range []Sort{oldest, open} {
		if _, err := Find(ctx, c, nil, s, Opts{NumItems: 3, Cursor: &old}, key); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Fatalf("old cursor taken by %+v: %v", s.Query, err)
		}
	}
	// The previous release reads the new cursors (it ignores the added parts).
	var prev struct {
		Field string `bson:"f"`
		Value int    `bson:"v"`
		ID    string `bson:"i"`
	}
	nb, _ := base64.RawURLEncoding.DecodeString(cur)
	if err := bson.Unmarshal(nb, &prev); err != nil || prev.Field != "rating" || prev.Value != 7 || prev.ID != "id07" {
		t.Fatalf("new cursor as the previous release reads it: %+v %v", prev, err)
	}
}

// A list whose sort field was renamed (same value on every record) reads the
// previous release's cursors of the old field on its default query only.
func TestCursorOfTheFieldAListWasSortedBy(t *testing.T) {
	ctx := context.Background()
	db, _ := store.Open(ctx, store.Options{Name: "p", Memory: true})
	defer db.Close(ctx)
	c := db.Collection("items")
	for i := 0; i < 10; i++ {
		c.InsertOne(ctx, item{ID: fmt.Sprintf("id%02d", i), Rating: i})
	}
	b, _ := bson.Marshal(bson.D{{Key: "f", Value: "score"}, {Key: "v", Value: 7}, {Key: "i", Value: "id07"}})
	old := base64.RawURLEncoding.EncodeToString(b)
	s := Sort{Field: "rating", Desc: true, Query: []any{false}, Was: "score"}
	r, err := Find(ctx, c, nil, s, Opts{NumItems: 3, Cursor: &old}, key)
	if err != nil || len(r.Page) != 3 || r.Page[0].Rating != 6 || r.Page[2].Rating != 4 {
		t.Fatalf("old field's cursor: %+v %v", r, err)
	}
	for name, q := range map[string]Sort{
		"not renamed":     {Field: "rating", Desc: true},
		"other direction": {Field: "rating", Query: []any{true}, Was: "score"},
	} {
		if _, err := Find(ctx, c, nil, q, Opts{NumItems: 3, Cursor: &old}, key); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Fatalf("%s: %v", name, err)
		}
	}
	// A new cursor names the field it is of, and only it.
	next := r.ContinueCursor
	if _, err := Find(ctx, c, nil, Sort{Field: "score", Desc: true}, Opts{NumItems: 3, Cursor: &next}, key); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("new cursor on the old field: %v", err)
	}
	if r, err := Find(ctx, c, nil, s, Opts{NumItems: 3, Cursor: &next}, key); err != nil || r.Page[0].Rating != 3 {
		t.Fatalf("next: %+v %v", r, err)
	}
}
