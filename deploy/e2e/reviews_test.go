package e2e

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// expectNoReviews: a refused request left nothing behind.
func expectNoReviews(t *testing.T, s *st.Sys, storeID string, wantCount int64) {
	t.Helper()
	if got := statsOf(t, s, storeID); got.TotalReviews != wantCount {
		t.Fatalf("store %s has %d reviews, want %d", storeID, got.TotalReviews, wantCount)
	}
	if got := allReviews(t, s, "", storeID, nil); int64(len(got)) != wantCount {
		t.Fatalf("store %s lists %d reviews, want %d", storeID, len(got), wantCount)
	}
}

// TestReviewsAddRules: every refusal of addReview (and nothing stored after
// it), the verified-purchase rules 1-5 of the interface's section 2.1, and the
// invitation to review once an order is delivered.
func TestReviewsAddRules(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	user := rs.user
	otherTok, otherCustomer := newCustomer(t, s, "user-other")
	otherOrder := rs.orderOf(t, otherTok, otherCustomer, rs.storeA)
	orderB := rs.orderOf(t, user, rs.customer, rs.storeB)

	t.Run("bad input is INVALID_ARGUMENT naming the field", func(t *testing.T) {
		for _, c := range []struct {
			args  map[string]any
			field string
		}{
			{map[string]any{"storeId": rs.storeA, "rating": 5}, "title"},
			{map[string]any{"storeId": rs.storeA, "rating": 5, "title": "  ", "comment": "\n"}, "title"},
			{reviewArgs(rs.storeA, 0), "rating"},
			{reviewArgs(rs.storeA, 6), "rating"},
			{reviewArgs(rs.storeA, 4.5), "rating"},
			{reviewArgs(rs.storeA, -1), "rating"},
			{map[string]any{"storeId": rs.storeA, "comment": "no rating"}, "rating"},
			{reviewArgs(rs.storeA, "5"), "rating"},
			{reviewArgs("sto_nope", 5), "storeId"},
			{reviewArgs(rs.areaLike(), 5), "storeId"},
			{reviewArgs(rs.storeA, 5, "orderId", "ord_x"), "orderId"},
			{reviewArgs(rs.storeA, 5, "title", strings.Repeat("t", 201)), "title"},
			{reviewArgs(rs.storeA, 5, "title", "two\nlines"), "title"},
			{reviewArgs(rs.storeA, 5, "comment", strings.Repeat("c", 5001)), "comment"},
			{reviewArgs(rs.storeA, 5, "comment", "bidi \u202e text"), "comment"},
			{reviewArgs(rs.storeA, 5, "photoIds", "stg_1"), "photoIds"},
			{reviewArgs(rs.storeA, 5, "photoIds", []string{"nope"}), "photoIds[0]"},
			{reviewArgs(rs.storeA, 5, "photoIds", make([]string, 11)), "photoIds"},
			{reviewArgs(rs.storeA, 5, "unknown", 1), "unknown"},
		} {
			expectError(t, s.Mutation(user, opAddReview, c.args), "INVALID_ARGUMENT", c.field)
		}
		expectNoReviews(t, s, rs.storeA, 0)
	})

	t.Run("who may review", func(t *testing.T) {
		expectError(t, s.Mutation("", opAddReview, reviewArgs(rs.storeA, 5)), "UNAUTHENTICATED")
		expectError(t, s.Mutation(s.Token("no-profile"), opAddReview, reviewArgs(rs.storeA, 5)), "FAILED_PRECONDITION", "profile")
		expectError(t, s.Mutation(user, opAddReview, reviewArgs(missingLike(rs.storeA), 5)), "NOT_FOUND", "store")
		// The customers service's purchase facts are internal: unknown through the gateway.
		expectError(t, s.Query(user, "customers.orders.getPurchaseFacts", map[string]any{"customerId": rs.customer, "storeId": rs.storeA}), "NOT_FOUND")
		expectNoReviews(t, s, rs.storeA, 0)
	})

	t.Run("an orderId must be the caller's order of the store", func(t *testing.T) {
		expectError(t, s.Mutation(user, opAddReview, reviewArgs(rs.storeA, 5, "orderId", missingLike(rs.orderA))), "NOT_FOUND", "order")
		// Another customer's order is answered as a missing one (no existence oracle).
		expectError(t, s.Mutation(user, opAddReview, reviewArgs(rs.storeA, 5, "orderId", otherOrder)), "NOT_FOUND", "order")
		expectError(t, s.Mutation(user, opAddReview, reviewArgs(rs.storeA, 5, "orderId", orderB)), "INVALID_ARGUMENT", "orderId")
		expectNoReviews(t, s, rs.storeA, 0)
		expectNoReviews(t, s, rs.storeB, 0)
	})

	t.Run("rules 1-5: verified purchase", func(t *testing.T) {
		// Rule 1 and 4: no purchase needed; not verified, still listed.
		stranger, _ := newCustomer(t, s, "user-stranger")
		unverified := addReviewOK(t, s, stranger, reviewArgs(rs.storeA, 2, "title", "Never ordered"))
		// Rule 3: without orderId, the order of the store is only confirmed: not verified.
		noOrder := addReviewOK(t, s, user, reviewArgs(rs.storeA, 4, "title", "Without the order", "comment", "Line one\nLine two"))
		// Rule 2: with the caller's order of the store: verified (delivered
		// here; a confirmed one verifies too: verified_purchase_test.go).
		rs.deliverOrder(t, rs.orderA)
		withOrder := addReviewOK(t, s, user, reviewArgs(rs.storeA, 5, "orderId", rs.orderA))
		// Rule 5: one review per order per customer.
		expectError(t, s.Mutation(user, opAddReview, reviewArgs(rs.storeA, 1, "orderId", rs.orderA)), "ALREADY_EXISTS", rs.orderA)
		got := map[string]bool{}
		for _, r := range allReviews(t, s, "", rs.storeA, nil) {
			got[r.ID] = r.IsVerifiedPurchase
		}
		want := map[string]bool{unverified: false, noOrder: false, withOrder: true}
		if !mapsEqual(got, want) {
			t.Fatalf("verified: %v, want %v", got, want)
		}
		if r := getReview(t, s, user, noOrder); r.Comment != "Line one\nLine two" || r.Title != "Without the order" {
			t.Fatalf("text stored as %q / %q", r.Title, r.Comment)
		}
		sv := statsOf(t, s, rs.storeA)
		if sv.TotalReviews != 3 || sv.RatingSum != 11 || sv.VerifiedReviews != 1 {
			t.Fatalf("stats %+v", sv)
		}
	})

	t.Run("a review right after the delivery is verified", func(t *testing.T) {
		rs.deliverOrder(t, orderB)
		id := addReviewOK(t, s, user, reviewArgs(rs.storeB, 5))
		if r := getReview(t, s, "", id); !r.IsVerifiedPurchase {
			t.Fatalf("review right after delivery: %+v", r)
		}
		// The other customer's delivered order of store A makes their later
		// reviews of A verified, not of B.
		rs.deliverOrder(t, otherOrder)
		a := addReviewOK(t, s, otherTok, reviewArgs(rs.storeA, 3))
		b := addReviewOK(t, s, otherTok, reviewArgs(rs.storeB, 3))
		if !getReview(t, s, "", a).IsVerifiedPurchase || getReview(t, s, "", b).IsVerifiedPurchase {
			t.Fatal("verified purchase follows the store of the delivered order")
		}
		// The delivery invited the customer to review the store.
		eventually(t, "the review invitation", func() bool {
			for _, n := range inbox(t, s, user) {
				if n.Type == "review_invitation" && n.Data["orderId"] == orderB && n.Data["storeId"] == rs.storeB {
					return true
				}
			}
			return false
		})
	})
}

func mapsEqual[K comparable, V comparable](a, b map[K]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// areaLike is an id of another record kind (a city), as storeId.
func (rs *reviewShop) areaLike() string { return "cty_" + rs.storeA[len("sto_"):] }

// TestReviewsOneReviewPerOrderUnderConcurrency: ten concurrent addReview with
// one orderId: one review, nine ALREADY_EXISTS, and the statistics count one.
func TestReviewsOneReviewPerOrderUnderConcurrency(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	results := st.Concurrently(10, func(i int) st.Result {
		return s.Mutation(rs.user, opAddReview, reviewArgs(rs.storeA, 1+i%5, "orderId", rs.orderA))
	})
	if ok := st.CountOK(t, results, "ALREADY_EXISTS"); ok != 1 {
		t.Fatalf("%d reviews created", ok)
	}
	expectNoReviews(t, s, rs.storeA, 1)
}

// TestReviewsListing: visible reviews only, every field, the five orders, the
// filters, userVote, and keyset pages that neither repeat nor skip a review
// while others are added.
func TestReviewsListing(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tokens, customerIDs := makeCustomers(t, s, "lister", 36)
	// Reviews by customers 0..5, with the ratings below; the verified one is by the shop's user.
	ratings := []int{3, 5, 1, 4, 5, 2}
	var reviewIDs []string
	for i, r := range ratings {
		reviewIDs = append(reviewIDs, addReviewOK(t, s, tokens[i], reviewArgs(rs.storeA, r, "title", fmt.Sprintf("Review %d", i))))
	}
	rs.deliverOrder(t, rs.orderA)
	verified := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 4, "orderId", rs.orderA))
	reviewIDs = append(reviewIDs, verified)
	hidden := addReviewOK(t, s, tokens[6], reviewArgs(rs.storeA, 1, "title", "Hidden"))
	st.MustOK(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": hidden, "adminUserId": "admin-1", "visible": false}))
	addReviewOK(t, s, tokens[7], reviewArgs(rs.storeB, 5)) // another store's

	// Helpfulness: review 0 gets 30 helpful and 2 not; review 1 gets 3 helpful.
	voters := append(slices.Clone(tokens[8:]), tokens[2:6]...) // 28 + 4 = 32 voters
	for i, v := range voters {
		st.MustOK(t, s.Mutation(v, opVote, map[string]any{"reviewId": reviewIDs[0], "isHelpful": i >= 2}))
	}
	for _, v := range tokens[8:11] {
		st.MustOK(t, s.Mutation(v, opVote, map[string]any{"reviewId": reviewIDs[1], "isHelpful": true}))
	}
	st.MustOK(t, s.Mutation(tokens[8], opVote, map[string]any{"reviewId": reviewIDs[2], "isHelpful": false}))
	st.MustOK(t, s.Mutation(rs.owner, opAddResponse, map[string]any{"reviewId": reviewIDs[2], "comment": "Sorry to hear that."}))

	t.Run("fields", func(t *testing.T) {
		list := allReviews(t, s, "", rs.storeA, nil)
		if len(list) != 7 || slices.Contains(reviewIDsOf(list), hidden) {
			t.Fatalf("listed %v, want the 7 visible reviews", reviewIDsOf(list))
		}
		for _, r := range list {
			if r.CreationTime == 0 || r.StoreID != rs.storeA || r.PhotoURLs == nil || r.UserVote != nil || r.Customer.ID == "" || r.Customer.Name == "" {
				t.Errorf("item %+v", r)
			}
			if (r.StoreResponse != nil) != (r.ID == reviewIDs[2]) {
				t.Errorf("storeResponse of %s: %+v", r.ID, r.StoreResponse)
			}
		}
		byID := map[string]reviewItem{}
		for _, r := range list {
			byID[r.ID] = r
		}
		if r := byID[reviewIDs[0]]; r.HelpfulCount != 30 || r.NotHelpfulCount != 2 || r.Customer.ID != customerIDs[0] || r.Customer.Name != "lister 0" || r.Title != "Review 0" {
			t.Errorf("review 0: %+v", r)
		}
		if r := byID[reviewIDs[2]]; r.StoreResponse.Comment != "Sorry to hear that." || r.StoreResponse.RespondedAt == 0 {
			t.Errorf("response: %+v", r.StoreResponse)
		}
		if !byID[verified].IsVerifiedPurchase || byID[reviewIDs[0]].IsVerifiedPurchase {
			t.Error("isVerifiedPurchase")
		}
		// The raw item has exactly the documented keys (and no storeResponse when none).
		raw := okAs[map[string]any](t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "paginationOpts": map[string]any{"numItems": 100, "cursor": nil}}))
		for _, it := range raw["page"].([]any) {
			m := it.(map[string]any)
			requireKeys(t, "review item", m, "_id", "_creationTime", "rating", "photoUrls", "isVerifiedPurchase", "helpfulCount", "notHelpfulCount", "customer")
			if _, ok := m["storeResponse"]; ok != (m["_id"] == reviewIDs[2]) {
				t.Errorf("storeResponse key on %v", m["_id"])
			}
		}
	})

	t.Run("userVote for an authenticated caller", func(t *testing.T) {
		byID := map[string]reviewItem{}
		for _, r := range allReviews(t, s, tokens[8], rs.storeA, nil) {
			byID[r.ID] = r
		}
		// tokens[8] voted review 0 not helpful, review 1 helpful, review 2 not helpful.
		for i, want := range []bool{false, true, false} {
			if v := byID[reviewIDs[i]].UserVote; v == nil || *v != want {
				t.Errorf("vote on review %d: %v, want %v", i, v, want)
			}
		}
		if v := byID[reviewIDs[3]].UserVote; v != nil {
			t.Errorf("no vote on review 3, got %v", *v)
		}
		for _, r := range allReviews(t, s, "", rs.storeA, nil) {
			if r.UserVote != nil {
				t.Fatal("an anonymous caller sees a vote")
			}
		}
	})

	t.Run("orders", func(t *testing.T) {
		list := allReviews(t, s, "", rs.storeA, nil)
		cmpNewest := func(a, b reviewItem) int {
			if a.CreationTime != b.CreationTime {
				return int(b.CreationTime - a.CreationTime)
			}
			return strings.Compare(b.ID, a.ID)
		}
		want := map[string]func(a, b reviewItem) int{
			"":       cmpNewest, // the default
			"newest": cmpNewest,
			"oldest": func(a, b reviewItem) int { return -cmpNewest(a, b) },
			"highest_rating": func(a, b reviewItem) int {
				if a.Rating != b.Rating {
					return b.Rating - a.Rating
				}
				return cmpNewest(a, b)
			},
			"lowest_rating": func(a, b reviewItem) int {
				if a.Rating != b.Rating {
					return a.Rating - b.Rating
				}
				return cmpNewest(a, b)
			},
		}
		for sortBy, cmp := range want {
			extra := map[string]any{}
			if sortBy != "" {
				extra["sortBy"] = sortBy
			}
			got := allReviews(t, s, "", rs.storeA, extra)
			exp := slices.Clone(list)
			slices.SortStableFunc(exp, cmp)
			if !slices.Equal(reviewIDsOf(got), reviewIDsOf(exp)) {
				t.Errorf("sortBy %q: %v, want %v", sortBy, reviewIDsOf(got), reviewIDsOf(exp))
			}
		}
		// most_helpful: 30/2 above 3/0, then the rest (no helpful vote) newest first.
		got := reviewIDsOf(allReviews(t, s, "", rs.storeA, map[string]any{"sortBy": "most_helpful"}))
		if got[0] != reviewIDs[0] || got[1] != reviewIDs[1] {
			t.Fatalf("most_helpful starts %v, want %s (30/2) then %s (3/0)", got[:2], reviewIDs[0], reviewIDs[1])
		}
		var rest []reviewItem
		for _, r := range list {
			if r.ID != reviewIDs[0] && r.ID != reviewIDs[1] {
				rest = append(rest, r)
			}
		}
		slices.SortFunc(rest, cmpNewest)
		if !slices.Equal(got[2:], reviewIDsOf(rest)) {
			t.Fatalf("most_helpful ties: %v, want newest first %v", got[2:], reviewIDsOf(rest))
		}
		expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "sortBy": "best",
			"paginationOpts": map[string]any{"numItems": 5, "cursor": nil}}), "INVALID_ARGUMENT", "sortBy")
	})

	t.Run("filters", func(t *testing.T) {
		for rating := 1; rating <= 5; rating++ {
			got := allReviews(t, s, "", rs.storeA, map[string]any{"ratingFilter": rating})
			want := 0
			for _, r := range append(slices.Clone(ratings), 4) {
				if r == rating {
					want++
				}
			}
			if len(got) != want {
				t.Errorf("ratingFilter %d: %d reviews, want %d", rating, len(got), want)
			}
			for _, r := range got {
				if r.Rating != rating {
					t.Errorf("ratingFilter %d listed a %d", rating, r.Rating)
				}
			}
		}
		if got := allReviews(t, s, "", rs.storeA, map[string]any{"verifiedOnly": true}); !slices.Equal(reviewIDsOf(got), []string{verified}) {
			t.Errorf("verifiedOnly: %v", reviewIDsOf(got))
		}
		if got := allReviews(t, s, "", rs.storeA, map[string]any{"verifiedOnly": false}); len(got) != 7 {
			t.Errorf("verifiedOnly false: %d", len(got))
		}
		if got := allReviews(t, s, "", rs.storeA, map[string]any{"verifiedOnly": true, "ratingFilter": 5}); len(got) != 0 {
			t.Errorf("verified 5-star: %v", reviewIDsOf(got))
		}
		for _, bad := range []any{0, 6, 2.5, "5"} {
			expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "ratingFilter": bad,
				"paginationOpts": map[string]any{"numItems": 5, "cursor": nil}}), "INVALID_ARGUMENT", "ratingFilter")
		}
		expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": missingLike(rs.storeA),
			"paginationOpts": map[string]any{"numItems": 5, "cursor": nil}}), "NOT_FOUND")
		if p := listReviews(t, s, "", map[string]any{"storeId": rs.storeB, "ratingFilter": 1, "paginationOpts": map[string]any{"numItems": 5, "cursor": nil}}); len(p.Page) != 0 || !p.IsDone {
			t.Errorf("empty filter: %+v", p)
		}
	})

	t.Run("keyset pages neither repeat nor skip while reviews are added", func(t *testing.T) {
		for _, sortBy := range []string{"newest", "oldest", "highest_rating", "lowest_rating", "most_helpful"} {
			before := reviewIDsOf(allReviews(t, s, "", rs.storeA, nil))
			seen := map[string]bool{}
			var cursor any
			next := 0
			for pages := 0; ; pages++ {
				p := listReviews(t, s, "", map[string]any{"storeId": rs.storeA, "sortBy": sortBy,
					"paginationOpts": map[string]any{"numItems": 2, "cursor": cursor}})
				for _, r := range p.Page {
					if seen[r.ID] {
						t.Fatalf("%s: %s repeated", sortBy, r.ID)
					}
					seen[r.ID] = true
				}
				if p.IsDone {
					break
				}
				if len(p.Page) != 2 || pages > 40 {
					t.Fatalf("%s: a page of %d", sortBy, len(p.Page))
				}
				cursor = p.ContinueCursor
				// Another customer writes a review between pages.
				addReviewOK(t, s, tokens[20+next%10], reviewArgs(rs.storeA, 1+next%5, "title", "Meanwhile"))
				next++
			}
			for _, id := range before {
				if !seen[id] {
					t.Fatalf("%s: %s skipped", sortBy, id)
				}
			}
			// A cursor of this list is refused by another.
			expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "sortBy": "oldest", "ratingFilter": 5,
				"paginationOpts": map[string]any{"numItems": 2, "cursor": cursor}}), "INVALID_ARGUMENT", "cursor")
		}
		expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA,
			"paginationOpts": map[string]any{"numItems": 2, "cursor": "garbage!"}}), "INVALID_ARGUMENT", "cursor")
	})
}

// TestReviewsVotes: one vote per customer per review, changeable, never on
// one's own review; fifty concurrent voters are all counted; concurrent
// changes of one vote leave the counters equal to the votes.
func TestReviewsVotes(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tokens, _ := makeCustomers(t, s, "voter", 50)
	id := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 4))
	vote := func(tok string, helpful any) st.Result {
		return s.Mutation(tok, opVote, map[string]any{"reviewId": id, "isHelpful": helpful})
	}
	counts := func() (int, int) {
		r := getReview(t, s, "", id)
		return r.HelpfulCount, r.NotHelpfulCount
	}

	expectError(t, vote(rs.user, true), "FAILED_PRECONDITION", "own review")
	expectError(t, vote("", true), "UNAUTHENTICATED")
	expectError(t, vote(s.Token("no-profile"), true), "FAILED_PRECONDITION", "profile")
	expectError(t, vote(tokens[0], "yes"), "INVALID_ARGUMENT", "isHelpful")
	expectError(t, s.Mutation(tokens[0], opVote, map[string]any{"reviewId": id}), "INVALID_ARGUMENT", "isHelpful")
	expectError(t, s.Mutation(tokens[0], opVote, map[string]any{"reviewId": missingLike(id), "isHelpful": true}), "NOT_FOUND")
	if h, n := counts(); h != 0 || n != 0 {
		t.Fatalf("refused votes counted: %d/%d", h, n)
	}

	var v struct {
		HelpfulCount, NotHelpfulCount int
		UserVote                      bool
	}
	st.MustOK(t, vote(tokens[0], true)).Decode(t, &v)
	if v.HelpfulCount != 1 || v.NotHelpfulCount != 0 || !v.UserVote {
		t.Fatalf("first vote: %+v", v)
	}
	st.MustOK(t, vote(tokens[0], true)) // the same vote again changes nothing
	st.MustOK(t, vote(tokens[0], false)).Decode(t, &v)
	if v.HelpfulCount != 0 || v.NotHelpfulCount != 1 || v.UserVote {
		t.Fatalf("changed vote: %+v", v)
	}
	if r := getReview(t, s, tokens[0], id); r.UserVote == nil || *r.UserVote || r.CanEdit {
		t.Fatalf("getReview for the voter: %+v", r)
	}

	t.Run("fifty concurrent voters are all counted", func(t *testing.T) {
		results := st.Concurrently(50, func(i int) st.Result { return vote(tokens[i], i%5 != 0) })
		if ok := st.CountOK(t, results, ""); ok != 50 {
			t.Fatalf("%d of 50 votes accepted", ok)
		}
		if h, n := counts(); h != 40 || n != 10 {
			t.Fatalf("counters %d helpful / %d not, want 40 / 10", h, n)
		}
	})

	t.Run("concurrent changes of one vote", func(t *testing.T) {
		results := st.Concurrently(20, func(i int) st.Result { return vote(tokens[1], i%2 == 0) })
		if ok := st.CountOK(t, results, ""); ok != 20 {
			t.Fatalf("%d of 20 changes accepted", ok)
		}
		mine := getReview(t, s, tokens[1], id).UserVote
		h, n := counts()
		// tokens[1] voted helpful in the burst above; the 49 others are as they were.
		wantH, wantN := 39, 10
		if *mine {
			wantH++
		} else {
			wantN++
		}
		if h != wantH || n != wantN {
			t.Fatalf("counters %d/%d, want %d/%d (the voter's vote is %v)", h, n, wantH, wantN, *mine)
		}
	})

	t.Run("a hidden review takes no votes", func(t *testing.T) {
		st.MustOK(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": id, "adminUserId": "admin-1", "visible": false}))
		expectError(t, vote(tokens[2], false), "NOT_FOUND", "does not exist") // as a missing review
	})
}

// TestReviewsStoreResponse: the store's owner only, one response per review
// (two concurrent: one ALREADY_EXISTS), changeable, and the author notified.
func TestReviewsStoreResponse(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	id := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 2))
	newStore(t, s, rs.admin, "Elsewhere", "owner-2", "", "")
	respond := func(tok, path, comment string) st.Result {
		return s.Mutation(tok, path, map[string]any{"reviewId": id, "comment": comment})
	}
	for _, path := range []string{opAddResponse, opUpdateResponse} {
		expectError(t, respond("", path, "x"), "UNAUTHENTICATED")
		expectError(t, respond(rs.user, path, "x"), "PERMISSION_DENIED")
		expectError(t, respond(s.Token("owner-2"), path, "x"), "PERMISSION_DENIED")
		expectError(t, respond(rs.admin, path, "x"), "PERMISSION_DENIED")
		expectError(t, s.Mutation(rs.owner, path, map[string]any{"reviewId": missingLike(id), "comment": "x"}), "NOT_FOUND")
		expectError(t, respond(rs.owner, path, "  "), "INVALID_ARGUMENT", "comment")
		expectError(t, s.Mutation(rs.owner, path, map[string]any{"reviewId": id}), "INVALID_ARGUMENT", "comment")
		expectError(t, respond(rs.owner, path, strings.Repeat("r", 2001)), "INVALID_ARGUMENT", "comment")
	}
	expectError(t, respond(rs.owner, opUpdateResponse, "Nothing to update yet"), "NOT_FOUND", "no store response")
	if r := getReview(t, s, "", id); r.StoreResponse != nil {
		t.Fatalf("a refused response was stored: %+v", r.StoreResponse)
	}

	results := st.Concurrently(2, func(i int) st.Result { return respond(rs.owner, opAddResponse, fmt.Sprintf("Response %d", i)) })
	if ok := st.CountOK(t, results, "ALREADY_EXISTS"); ok != 1 {
		t.Fatalf("%d responses stored", ok)
	}
	first := getReview(t, s, "", id).StoreResponse
	if first == nil || !strings.HasPrefix(first.Comment, "Response ") || first.RespondedAt == 0 || first.UpdatedAt != 0 {
		t.Fatalf("response %+v", first)
	}
	expectError(t, respond(rs.owner, opAddResponse, "Again"), "ALREADY_EXISTS")

	var upd struct {
		Comment     string `json:"comment"`
		RespondedAt int64  `json:"respondedAt"`
		UpdatedAt   int64  `json:"updatedAt"`
	}
	st.MustOK(t, respond(rs.owner, opUpdateResponse, "We have changed our recipe.\nCome again!")).Decode(t, &upd)
	if upd.Comment != "We have changed our recipe.\nCome again!" || upd.RespondedAt != first.RespondedAt || upd.UpdatedAt == 0 {
		t.Fatalf("updated response %+v", upd)
	}
	if r := allReviews(t, s, "", rs.storeA, nil)[0]; r.StoreResponse == nil || r.StoreResponse.Comment != upd.Comment {
		t.Fatalf("listed response %+v", r.StoreResponse)
	}
	eventually(t, "the author hears of both", func() bool { return count(inbox(t, s, rs.user), "review_response") == 2 })
}

// TestReviewsEditAndDelete: the author only; updateReview changes only the
// given fields and keeps the previous versions; deleting removes the review
// with its votes and flags and updates the statistics.
func TestReviewsEditAndDelete(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tokens, _ := makeCustomers(t, s, "editor", 3)
	id := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 2, "title", "Slow", "comment", "Took an hour."))
	addReviewOK(t, s, tokens[2], reviewArgs(rs.storeA, 5))

	for _, c := range []struct {
		tok, code string
	}{{"", "UNAUTHENTICATED"}, {tokens[0], "PERMISSION_DENIED"}, {rs.owner, "FAILED_PRECONDITION"}, {rs.admin, "FAILED_PRECONDITION"}} {
		expectError(t, s.Mutation(c.tok, opUpdateReview, map[string]any{"reviewId": id, "rating": 5}), c.code)
		expectError(t, s.Mutation(c.tok, opDeleteReview, map[string]any{"reviewId": id}), c.code)
	}
	expectError(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": missingLike(id), "rating": 5}), "NOT_FOUND")
	expectError(t, s.Mutation(rs.user, opDeleteReview, map[string]any{"reviewId": missingLike(id)}), "NOT_FOUND")
	expectError(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id}), "INVALID_ARGUMENT")
	expectError(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "rating": 0}), "INVALID_ARGUMENT", "rating")
	expectError(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "title": "", "comment": " "}), "INVALID_ARGUMENT", "title")
	if sv := statsOf(t, s, rs.storeA); sv.RatingSum != 7 {
		t.Fatalf("refused edits changed the statistics: %+v", sv)
	}

	// Only the rating: title and comment stay.
	var r reviewItem
	st.MustOK(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "rating": 4})).Decode(t, &r)
	if r.Rating != 4 || r.Title != "Slow" || r.Comment != "Took an hour." || !r.IsEdited || !r.CanEdit {
		t.Fatalf("after rating edit: %+v", r)
	}
	if sv := statsOf(t, s, rs.storeA); sv.TotalReviews != 2 || sv.RatingSum != 9 || sv.RatingDistribution["2"] != 0 || sv.RatingDistribution["4"] != 1 {
		t.Fatalf("statistics after a rating edit: %+v", sv)
	}
	// Only the comment, and removing the title (the comment remains).
	r = reviewItem{} // (decoding into r keeps what the body leaves out)
	st.MustOK(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "comment": "Faster the second time.", "title": ""})).Decode(t, &r)
	if r.Rating != 4 || r.Title != "" || r.Comment != "Faster the second time." {
		t.Fatalf("after comment edit: %+v", r)
	}
	// Nothing changed: no new version.
	st.MustOK(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "rating": 4}))
	// Moderators see what changed.
	adm := getReview(t, s, rs.admin, id)
	if len(adm.EditHistory) != 2 {
		t.Fatalf("history %+v", adm.EditHistory)
	}
	h0, h1 := adm.EditHistory[0], adm.EditHistory[1]
	if h0.Rating != 2 || h0.Title != "Slow" || h0.Comment != "Took an hour." || h1.Rating != 4 || h1.Title != "Slow" || h0.ReplacedAt == 0 || h1.WrittenAt != h0.ReplacedAt {
		t.Fatalf("history %+v", adm.EditHistory)
	}
	if getReview(t, s, tokens[0], id).EditHistory != nil {
		t.Fatal("a customer sees the edit history")
	}

	// Delete: its votes and flags go with it.
	st.MustOK(t, s.Mutation(tokens[0], opVote, map[string]any{"reviewId": id, "isHelpful": true}))
	st.MustOK(t, s.Mutation(tokens[1], opFlag, map[string]any{"reviewId": id, "reason": "spam"}))
	if len(listFlags(t, s, rs.admin, "")) != 1 {
		t.Fatal("flag not listed")
	}
	if okAs[any](t, s.Mutation(rs.user, opDeleteReview, map[string]any{"reviewId": id})) != nil {
		t.Fatal("deleteReview returns null")
	}
	if r := getReview(t, s, rs.user, id); r != nil {
		t.Fatalf("deleted review still there: %+v", r)
	}
	if f := listFlags(t, s, rs.admin, ""); len(f) != 0 {
		t.Fatalf("the deleted review's flags remain: %+v", f)
	}
	expectNoReviews(t, s, rs.storeA, 1)
	if sv := statsOf(t, s, rs.storeA); sv.RatingSum != 5 || sv.RatingDistribution["4"] != 0 {
		t.Fatalf("statistics after delete: %+v", sv)
	}
	// The vote went too: the same customer's vote on a new review of the same author counts from zero.
	expectError(t, s.Mutation(rs.user, opDeleteReview, map[string]any{"reviewId": id}), "NOT_FOUND")
	// The customer may flag again (their flag went with the review) a new review.
	again := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 3))
	st.MustOK(t, s.Mutation(tokens[1], opFlag, map[string]any{"reviewId": again, "reason": "spam"}))
	if r := getReview(t, s, "", again); r.HelpfulCount != 0 {
		t.Fatalf("new review %+v", r)
	}
}

// TestReviewsGetReviewAndCustomerReviews: getReview's fields and null; the
// caller's reviews paginated with their stores and responses.
func TestReviewsGetReviewAndCustomerReviews(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	otherTok, _ := newCustomer(t, s, "user-getter")
	rs.deliverOrder(t, rs.orderA)
	// (a millisecond apart at least: createdAt has millisecond precision and
	// equal ones are ordered by id, which the newest-first check below
	// does not expect)
	a := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 5, "orderId", rs.orderA))
	time.Sleep(2 * time.Millisecond)
	b := addReviewOK(t, s, rs.user, reviewArgs(rs.storeB, 3))
	time.Sleep(2 * time.Millisecond)
	c := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 4))
	addReviewOK(t, s, otherTok, reviewArgs(rs.storeA, 1))
	st.MustOK(t, s.Mutation(rs.owner, opAddResponse, map[string]any{"reviewId": b, "comment": "Thanks!"}))
	st.MustOK(t, s.Mutation(otherTok, opVote, map[string]any{"reviewId": a, "isHelpful": true}))

	if r := s.Query("", opGetReview, map[string]any{"reviewId": missingLike(a)}); string(st.MustOK(t, r).Body) != "null" {
		t.Fatalf("missing review: %s", r.Body)
	}
	expectError(t, s.Query("", opGetReview, map[string]any{"reviewId": "rev_1"}), "INVALID_ARGUMENT", "reviewId")
	expectError(t, s.Query("", opGetReview, map[string]any{"reviewId": rs.storeA}), "INVALID_ARGUMENT", "reviewId")

	for _, c := range []struct {
		who, tok       string
		canEdit, voted bool
	}{{"anonymous", "", false, false}, {"author", rs.user, true, false}, {"voter", otherTok, false, true}, {"owner", rs.owner, false, false}} {
		r := getReview(t, s, c.tok, a)
		if r.ID != a || r.Store == nil || r.Store.ID != rs.storeA || r.Store.Name != "Bakery" || r.Customer.ID != rs.customer || r.Customer.Name != "Noor" ||
			r.CanEdit != c.canEdit || r.CanDelete != c.canEdit || (r.UserVote != nil) != c.voted || !r.IsVerifiedPurchase || r.HelpfulCount != 1 || r.PhotoURLs == nil {
			t.Errorf("getReview as %s: %+v", c.who, r)
		}
		if (r.OrderID != "") != (c.who == "author") {
			t.Errorf("orderId shown to %s: %q", c.who, r.OrderID)
		}
	}

	// The caller's reviews, newest first, two per page.
	var got []reviewItem
	var cursor any
	for {
		var p reviewPage
		st.MustOK(t, s.Query(rs.user, opCustomerReviews, map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": cursor}})).Decode(t, &p)
		got = append(got, p.Page...)
		if p.IsDone {
			break
		}
		cursor = p.ContinueCursor
	}
	if !slices.Equal(reviewIDsOf(got), []string{c, b, a}) {
		t.Fatalf("customer reviews %v, want %v", reviewIDsOf(got), []string{c, b, a})
	}
	if got[1].Store == nil || got[1].Store.Name != "Florist" || got[1].StoreResponse == nil || got[1].StoreResponse.Comment != "Thanks!" || !got[1].CanEdit {
		t.Fatalf("customer review with response: %+v", got[1])
	}
	if p := okAs[reviewPage](t, s.Query(s.Token("no-profile"), opCustomerReviews, map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": nil}})); len(p.Page) != 0 || !p.IsDone {
		t.Fatalf("no profile: %+v", p)
	}
	expectError(t, s.Query("", opCustomerReviews, map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": nil}}), "UNAUTHENTICATED")

	// A hidden review: null to others, shown to its author and administrators.
	st.MustOK(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": c, "adminUserId": "admin-1", "visible": false, "adminNotes": "Off-topic"}))
	if r := getReview(t, s, otherTok, c); r != nil {
		t.Fatalf("hidden review shown to another customer: %+v", r)
	}
	if r := getReview(t, s, "", c); r != nil {
		t.Fatal("hidden review shown to an anonymous caller")
	}
	if r := getReview(t, s, rs.user, c); r == nil || !r.IsHidden {
		t.Fatalf("hidden review for its author: %+v", r)
	}
	if r := getReview(t, s, rs.admin, c); r == nil || !r.IsHidden || r.Moderation == nil || r.Moderation.AdminUserID != "admin-1" || r.Moderation.AdminNotes != "Off-topic" {
		t.Fatalf("hidden review for an administrator: %+v", r)
	}
	if p := okAs[reviewPage](t, s.Query(rs.user, opCustomerReviews, map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})); len(p.Page) != 3 || !p.Page[0].IsHidden {
		t.Fatalf("the author's list shows the hidden review as hidden: %+v", p.Page)
	}
}

// TestReviewsStatistics: the statistics document's fields, a store without
// reviews, a missing store.
func TestReviewsStatistics(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tokens, _ := makeCustomers(t, s, "rater", 4)
	if sv := statsOf(t, s, rs.storeB); sv.TotalReviews != 0 || sv.AverageRating != 0 || sv.BayesianAverage != 3 || sv.BayesianPrior.Reviews != 10 || sv.BayesianPrior.Mean != 3 || len(sv.RatingDistribution) != 5 {
		t.Fatalf("no reviews: %+v", sv)
	}
	expectError(t, s.Query("", opReviewStats, map[string]any{"storeId": missingLike(rs.storeA)}), "NOT_FOUND")
	expectError(t, s.Query("", opReviewStats, map[string]any{"storeId": "x"}), "INVALID_ARGUMENT", "storeId")
	for i, r := range []int{5, 4, 4, 1} {
		addReviewOK(t, s, tokens[i], reviewArgs(rs.storeA, r))
	}
	rs.deliverOrder(t, rs.orderA)
	addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 5, "orderId", rs.orderA))
	got := statsOf(t, s, rs.storeA)
	want := map[string]int64{"1": 1, "2": 0, "3": 0, "4": 2, "5": 2}
	if got.StoreID != rs.storeA || got.TotalReviews != 5 || got.RatingSum != 19 || math.Abs(got.AverageRating-3.8) > 1e-9 || got.VerifiedReviews != 1 ||
		!mapsEqual(got.RatingDistribution, want) || math.Abs(got.BayesianAverage-(10*3.0+19)/15) > 1e-9 {
		t.Fatalf("statistics %+v", got)
	}
}
