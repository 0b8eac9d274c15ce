package storage

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

func TestCursorRoundTrip(t *testing.T) {
	o := reviewOrders[SortMostHelpful]
	fp := fingerprint(o, "sto_1", "", "")
	c := cursor{Query: fp, Values: []any{0.4385, int64(1_700_000_000_123), "rev_0123456789abcdef01234567"}}
	got, err := decodeCursor(encodeCursor(c), fp, o)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Values, c.Values) {
		t.Fatalf("decoded %v, want %v", got.Values, c.Values)
	}
}

func TestCursorOfAnotherQueryIsRefused(t *testing.T) {
	newest, helpful := reviewOrders[SortNewest], reviewOrders[SortMostHelpful]
	fp := fingerprint(newest, "sto_1", "", "")
	good := encodeCursor(cursor{Query: fp, Values: []any{int64(5), "rev_1"}})
	for name, tc := range map[string]struct {
		s, fp string
		o     ordering
	}{
		"another store":           {good, fingerprint(newest, "sto_2", "", ""), newest},
		"another rating filter":   {good, fingerprint(newest, "sto_1", "4", ""), newest},
		"verified only":           {good, fingerprint(newest, "sto_1", "", "verified"), newest},
		"another order":           {good, fingerprint(helpful, "sto_1", "", ""), helpful},
		"not base64":              {"***", fp, newest},
		"not bson":                {"aGVsbG8", fp, newest},
		"wrong number of values":  {encodeCursor(cursor{Query: fp, Values: []any{"rev_1"}}), fp, newest},
		"last value not an id":    {encodeCursor(cursor{Query: fp, Values: []any{int64(5), int64(6)}}), fp, newest},
		"a value of no sort type": {encodeCursor(cursor{Query: fp, Values: []any{true, "rev_1"}}), fp, newest},
	} {
		if _, err := decodeCursor(tc.s, tc.fp, tc.o); !apperr.Is(err, apperr.InvalidArgument) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if fingerprint(newest, "a", "bc") == fingerprint(newest, "ab", "c") {
		t.Fatal("fingerprint parts run together")
	}
}

// TestFindPageKeyset walks every order: pages in the order of the keys (as
// ordering.compare, the cursor's own comparison, sees them), with no review
// repeated or skipped while reviews are added between pages.
func TestFindPageKeyset(t *testing.T) {
	ctx := context.Background()
	for name, o := range reviewOrders {
		t.Run(name, func(t *testing.T) {
			db, err := store.Open(ctx, store.Options{Name: "reviews", Memory: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close(ctx)
			coll := db.Collection(reviewsColl)
			rng := rand.New(rand.NewPCG(7, uint64(len(name))))
			n := 0
			add := func(k int) {
				for range k {
					n++
					h, nh := rng.IntN(4), rng.IntN(3)
					r := domain.Review{ID: fmt.Sprintf("rev_%024x", n), StoreID: "sto_1", Rating: 1 + rng.IntN(5),
						CreatedAt: int64(1000 + rng.IntN(20)), // many ties: the later keys decide
						Helpful:   h, NotHelpful: nh, Wilson: domain.Wilson(h, nh), PhotoIDs: []string{}}
					if _, err := coll.InsertOne(ctx, r); err != nil {
						t.Fatal(err)
					}
				}
			}
			add(37)
			// A review of another store never shows.
			if _, err := coll.InsertOne(ctx, domain.Review{ID: "rev_other", StoreID: "sto_2", PhotoIDs: []string{}}); err != nil {
				t.Fatal(err)
			}
			filter := bson.M{"storeId": "sto_1"}
			fp := fingerprint(o, "sto_1")
			seen := map[string]bool{}
			var got []domain.Review
			opts := page.Opts{NumItems: 5}
			for pages := 0; ; pages++ {
				res, err := findPage(ctx, coll, filter, o, fp, opts, reviewKeys)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range res.Page {
					if seen[r.ID] {
						t.Fatalf("%s repeated", r.ID)
					}
					seen[r.ID] = true
				}
				got = append(got, res.Page...)
				if res.IsDone {
					break
				}
				if len(res.Page) != 5 || pages > 20 {
					t.Fatalf("page of %d, isDone false", len(res.Page))
				}
				opts.Cursor = &res.ContinueCursor
				add(2) // added meanwhile: some before the cursor, some after
			}
			if !slices.IsSortedFunc(got, func(a, b domain.Review) int { return o.compare(reviewKeys(&a, o), reviewKeys(&b, o)) }) {
				t.Fatal("pages out of order")
			}
			// Every review present when the walk started was returned; the
			// rest only if they sorted after the position reached.
			for i := 1; i <= 37; i++ {
				if id := fmt.Sprintf("rev_%024x", i); !seen[id] {
					t.Fatalf("%s skipped", id)
				}
			}
			if seen["rev_other"] {
				t.Fatal("another store's review listed")
			}
		})
	}
}

func TestReviewOrdersEndWithTheID(t *testing.T) {
	names := make([]string, 0, len(reviewOrders))
	for name, o := range reviewOrders {
		names = append(names, name)
		if o.name != name || o.keys[len(o.keys)-1].field != "_id" {
			t.Errorf("order %s: %+v", name, o)
		}
	}
	sort.Strings(names)
	if len(names) != 5 {
		t.Fatalf("orders %v", names)
	}
}

func TestStatsInc(t *testing.T) {
	got := inc(domain.Rerate(2, 4))
	if len(got) != 4 || got["version"] != int64(1) || got["sum"] != int64(2) || got["star2"] != int64(-1) || got["star4"] != int64(1) {
		t.Fatalf("inc = %v", got)
	}
	if got := inc(domain.Delta{}); len(got) != 1 || got["version"] != int64(1) {
		t.Fatalf("inc of no change = %v", got)
	}
}

// The queries the previous release served (no period) keep its
// fingerprints, so its cursors of them stay valid across the upgrade; the
// values are the previous release's (fingerprint(order, store, rating,
// verified) and fingerprint(flags_oldest, status)). A period changes them.
func TestPreviousReleaseFingerprintsStay(t *testing.T) {
	four := 4
	from := int64(1_700_000_000_000)
	for _, c := range []struct {
		got, want string
	}{
		{StoreList{StoreID: "sto_1"}.Query(), "1w915x33wcdj3"},
		{StoreList{StoreID: "sto_1", SortBy: SortHighestRating, Rating: &four, VerifiedOnly: true}.Query(), "t4jr32mc5cfj"},
		{FlagList{Status: "open"}.query(), "33katv0c4endq"},
		{FlagList{}.query(), "2htn970idcpoe"},
	} {
		if c.got != c.want {
			t.Errorf("fingerprint %s, the previous release's %s", c.got, c.want)
		}
	}
	old := cursor{Query: "1w915x33wcdj3", Values: []any{int64(1_700_000_000_123), "rev_1"}}
	l := StoreList{StoreID: "sto_1"}
	if _, err := decodeCursor(encodeCursor(old), l.Query(), l.order()); err != nil {
		t.Fatalf("the previous release's cursor: %v", err)
	}
	l.Period = page.Period{From: &from}
	if _, err := decodeCursor(encodeCursor(old), l.Query(), l.order()); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("a cursor without the period taken with one: %v", err)
	}
	if (FlagList{Status: "open", Period: page.Period{From: &from}}).query() == "33katv0c4endq" {
		t.Error("a period does not change the flags' fingerprint")
	}
}
