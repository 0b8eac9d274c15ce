package page

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/store"
)

// FindWhere's pages hold exactly the kept records, in order, each once,
// across batch boundaries (250 records: three batches of 100); a read limit
// ends a page early without losing its place.
func TestFindWhere(t *testing.T) {
	ctx := context.Background()
	db, _ := store.Open(ctx, store.Options{Name: "p", Memory: true})
	defer db.Close(ctx)
	c := db.Collection("items")
	var want []string
	for i := 0; i < 250; i++ {
		id := fmt.Sprintf("id%03d", i)
		c.InsertOne(ctx, item{ID: id, Rating: i})
		if i%7 == 0 {
			want = append(want, id)
		}
	}
	keep := func(it *item) bool { return it.Rating%7 == 0 }
	for _, limit := range []int{1000, 60} {
		var pages int
		got := collect(t, func(cur *string) Result[item] {
			pages++
			r, err := FindWhere(ctx, c, bson.M{}, Sort{Field: "rating"}, Opts{NumItems: 10, Cursor: cur}, key, keep, limit)
			if err != nil {
				t.Fatal(err)
			}
			if limit == 1000 && !r.IsDone && len(r.Page) != 10 {
				t.Errorf("a page of %d before the end", len(r.Page))
			}
			return r
		})
		if !slices.Equal(got, want) {
			t.Errorf("limit %d: got %v, want %v", limit, got, want)
		}
		if limit == 1000 && pages != 4 {
			t.Errorf("%d pages for 36 records of 10 a page", pages)
		}
		if limit == 60 && pages < 5 {
			t.Errorf("a read limit of 60 gave %d pages", pages)
		}
	}
	none, err := FindWhere(ctx, c, bson.M{}, Sort{Field: "rating"}, Opts{NumItems: 10}, key, func(*item) bool { return false }, 1000)
	if err != nil || len(none.Page) != 0 || !none.IsDone {
		t.Errorf("nothing kept: %+v %v", none, err)
	}
}
