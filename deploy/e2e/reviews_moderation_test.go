package e2e

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	st "marketplace/deploy/systemtest"
)

// TestReviewsFlagsAndModeration: flagging (every reason, one flag per customer
// per review, the admin inbox with its priorities), the flagged review staying
// visible and counted, and the moderation operations: dismiss, hide_review,
// setReviewVisibility both ways, who decided kept on the flags, the author
// notified, the statistics following.
func TestReviewsFlagsAndModeration(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tokens, customerIDs := makeCustomers(t, s, "flagger", 4)
	admin2 := s.Token("admin-2", "admin")
	id := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 1, "title", "Awful"))
	other := addReviewOK(t, s, tokens[3], reviewArgs(rs.storeA, 5))
	flag := func(tok, reviewID, reason string) st.Result {
		return s.Mutation(tok, opFlag, map[string]any{"reviewId": reviewID, "reason": reason, "description": "Because " + reason})
	}

	t.Run("flag refusals", func(t *testing.T) {
		expectError(t, flag("", id, "spam"), "UNAUTHENTICATED")
		expectError(t, flag(s.Token("no-profile"), id, "spam"), "FAILED_PRECONDITION", "profile")
		expectError(t, flag(tokens[0], id, "boring"), "INVALID_ARGUMENT", "reason")
		expectError(t, flag(tokens[0], id, "Spam"), "INVALID_ARGUMENT", "reason")
		expectError(t, s.Mutation(tokens[0], opFlag, map[string]any{"reviewId": id}), "INVALID_ARGUMENT", "reason")
		expectError(t, s.Mutation(tokens[0], opFlag, map[string]any{"reviewId": id, "reason": "other", "description": strings.Repeat("d", 1001)}), "INVALID_ARGUMENT", "description")
		expectError(t, flag(tokens[0], missingLike(id), "spam"), "NOT_FOUND")
		expectError(t, flag(rs.user, id, "spam"), "FAILED_PRECONDITION", "own review")
		if f := listFlags(t, s, rs.admin, ""); len(f) != 0 {
			t.Fatalf("refused flags stored: %+v", f)
		}
	})

	flags := map[string]string{} // reason -> flag id
	t.Run("flags", func(t *testing.T) {
		for i, c := range []struct {
			tok, review, reason string
		}{
			{tokens[0], id, "offensive"}, {tokens[1], id, "fake"}, {tokens[2], id, "spam"},
			{tokens[0], other, "inappropriate"}, {tokens[1], other, "irrelevant"}, {tokens[2], other, "other"},
		} {
			var out struct {
				FlagID  string `json:"flagId"`
				Message string `json:"message"`
			}
			st.MustOK(t, flag(c.tok, c.review, c.reason)).Decode(t, &out)
			if !strings.HasPrefix(out.FlagID, "flg_") || out.Message == "" {
				t.Fatalf("flag %d: %+v", i, out)
			}
			flags[c.reason] = out.FlagID
		}
		// One flag per customer per review, whatever the reason.
		expectError(t, flag(tokens[0], id, "spam"), "ALREADY_EXISTS")
		// The administrators hear of each, high priority for offensive and fake.
		var notes []notification
		eventually(t, "six flags in the admin inbox", func() bool {
			notes = inbox(t, s, rs.admin)
			return count(notes, "review_flagged") == 6
		})
		for _, n := range notes {
			if n.Type != "review_flagged" {
				continue
			}
			reason, _ := n.Data["reason"].(string)
			want := "normal"
			if reason == "offensive" || reason == "fake" {
				want = "high"
			}
			if n.Priority != want || n.Data["flagId"] != flags[reason] {
				t.Errorf("notification of a %s flag: %+v", reason, n)
			}
		}
		if count(inbox(t, s, rs.user), "review_flagged") != 0 {
			t.Error("a customer sees the admin inbox")
		}
		// Flagged reviews stay visible and counted until an administrator decides.
		if got := reviewIDsOf(allReviews(t, s, "", rs.storeA, nil)); len(got) != 2 {
			t.Fatalf("listed %v", got)
		}
		if sv := statsOf(t, s, rs.storeA); sv.TotalReviews != 2 || sv.RatingSum != 6 {
			t.Fatalf("stats %+v", sv)
		}
	})

	t.Run("listFlags", func(t *testing.T) {
		pending := listFlags(t, s, rs.admin, "pending")
		if len(pending) != 6 {
			t.Fatalf("%d pending flags", len(pending))
		}
		// Oldest first (by creation time: ids are random, and break ties of
		// flags made in the same millisecond), each with its review.
		var made []string
		for _, f := range pending {
			made = append(made, f.ID)
		}
		if !slices.Equal(sortedCopy(made), sortedCopy(slices.Collect(maps.Values(flags)))) {
			t.Errorf("flags %v, made %v", made, flags)
		}
		if !slices.IsSortedFunc(pending, func(a, b flagItem) int {
			return cmp.Or(cmp.Compare(a.CreationTime, b.CreationTime), strings.Compare(a.ID, b.ID))
		}) {
			t.Errorf("order %v", pending)
		}
		if pending[0].CreationTime > pending[5].CreationTime || pending[0].CreationTime < 1 {
			t.Errorf("creation times %d .. %d", pending[0].CreationTime, pending[5].CreationTime)
		}
		for _, f := range pending {
			if f.Status != "pending" || f.Review.ID != f.ReviewID || f.StoreID != rs.storeA || f.Review.Store == nil || f.FlaggedBy.CustomerID == "" || f.Description != "Because "+f.Reason || f.Resolution != nil {
				t.Errorf("flag %+v", f)
			}
		}
		for _, f := range pending {
			if f.ID == flags["offensive"] && (f.FlaggedBy.CustomerID != customerIDs[0] || f.Review.Title != "Awful") {
				t.Errorf("the offensive flag %+v", f)
			}
		}
		// Paginated.
		var p struct {
			Page           []flagItem `json:"page"`
			IsDone         bool       `json:"isDone"`
			ContinueCursor string     `json:"continueCursor"`
		}
		st.MustOK(t, s.Query(rs.admin, opListFlags, map[string]any{"status": "pending", "paginationOpts": map[string]any{"numItems": 4, "cursor": nil}})).Decode(t, &p)
		first := p.Page
		st.MustOK(t, s.Query(rs.admin, opListFlags, map[string]any{"status": "pending", "paginationOpts": map[string]any{"numItems": 4, "cursor": p.ContinueCursor}})).Decode(t, &p)
		if len(first) != 4 || len(p.Page) != 2 || !p.IsDone || p.Page[0].ID != pending[4].ID {
			t.Errorf("pages of %d and %d", len(first), len(p.Page))
		}
		expectError(t, s.Query(rs.user, opListFlags, map[string]any{"paginationOpts": map[string]any{"numItems": 4, "cursor": nil}}), "PERMISSION_DENIED")
		expectError(t, s.Query("", opListFlags, map[string]any{"paginationOpts": map[string]any{"numItems": 4, "cursor": nil}}), "UNAUTHENTICATED")
		expectError(t, s.Query(rs.admin, opListFlags, map[string]any{"status": "open", "paginationOpts": map[string]any{"numItems": 4, "cursor": nil}}), "INVALID_ARGUMENT", "status")
	})

	resolve := func(tok, adminID, flagID, action string) st.Result {
		return s.Mutation(tok, opResolveFlag, map[string]any{"flagId": flagID, "adminUserId": adminID, "action": action, "adminNotes": "Checked by " + adminID})
	}
	t.Run("resolveFlag refusals", func(t *testing.T) {
		expectError(t, resolve(rs.user, "user-1", flags["spam"], "dismiss"), "PERMISSION_DENIED")
		expectError(t, resolve(rs.owner, "owner-1", flags["spam"], "dismiss"), "PERMISSION_DENIED")
		expectError(t, resolve(admin2, "admin-1", flags["spam"], "dismiss"), "PERMISSION_DENIED", "adminUserId")
		expectError(t, resolve(rs.admin, "admin-1", missingLike(flags["spam"]), "dismiss"), "NOT_FOUND")
		expectError(t, resolve(rs.admin, "admin-1", flags["spam"], "delete"), "INVALID_ARGUMENT", "action")
		expectError(t, resolve(rs.admin, "admin-1", id, "dismiss"), "INVALID_ARGUMENT", "flagId")
		if n := len(listFlags(t, s, rs.admin, "pending")); n != 6 {
			t.Fatalf("%d pending after refusals", n)
		}
	})

	t.Run("dismiss: the flag is dismissed, the review stays", func(t *testing.T) {
		if r := resolve(rs.admin, "admin-1", flags["spam"], "dismiss"); string(st.MustOK(t, r).Body) != "null" {
			t.Fatalf("resolveFlag answered %s", r.Body)
		}
		expectError(t, resolve(admin2, "admin-2", flags["spam"], "hide_review"), "FAILED_PRECONDITION", "dismissed")
		d := listFlags(t, s, rs.admin, "dismissed")
		if len(d) != 1 || d[0].ID != flags["spam"] || d[0].Resolution == nil || d[0].Resolution.AdminUserID != "admin-1" ||
			d[0].Resolution.Action != "dismiss" || d[0].Resolution.AdminNotes != "Checked by admin-1" || d[0].Resolution.ResolvedAt == 0 {
			t.Fatalf("dismissed %+v", d)
		}
		if r := getReview(t, s, "", id); r == nil || r.IsHidden {
			t.Fatal("a dismissed flag hid the review")
		}
	})

	t.Run("hide_review: hidden, its pending flags resolved, statistics updated, author notified", func(t *testing.T) {
		st.MustOK(t, resolve(rs.admin, "admin-1", flags["offensive"], "hide_review"))
		if r := getReview(t, s, tokens[0], id); r != nil {
			t.Fatal("the hidden review is still shown")
		}
		if got := reviewIDsOf(allReviews(t, s, "", rs.storeA, nil)); !slices.Equal(got, []string{other}) {
			t.Fatalf("listed %v", got)
		}
		if sv := statsOf(t, s, rs.storeA); sv.TotalReviews != 1 || sv.RatingSum != 5 || sv.RatingDistribution["1"] != 0 {
			t.Fatalf("stats %+v", sv)
		}
		resolved := map[string]flagItem{}
		for _, f := range listFlags(t, s, rs.admin, "resolved") {
			resolved[f.ID] = f
		}
		if f := resolved[flags["offensive"]]; f.Resolution == nil || f.Resolution.Action != "hide_review" || f.Resolution.AdminUserID != "admin-1" || f.Resolution.ByFlagID != "" || !f.Review.IsHidden {
			t.Fatalf("decided flag %+v", f)
		}
		if f := resolved[flags["fake"]]; f.Resolution == nil || f.Resolution.Action != "hide_review" || f.Resolution.ByFlagID != flags["offensive"] {
			t.Fatalf("other pending flag of the review %+v", f)
		}
		if len(resolved) != 2 || len(listFlags(t, s, rs.admin, "dismissed")) != 1 {
			t.Fatalf("resolved %v", resolved)
		}
		if pending := listFlags(t, s, rs.admin, "pending"); len(pending) != 3 {
			t.Fatalf("pending %+v", pending)
		}
		expectError(t, flag(tokens[3], id, "spam"), "NOT_FOUND", "does not exist") // as a missing review
		eventually(t, "the author hears their review was hidden", func() bool { return count(inbox(t, s, rs.user), "review_hidden") == 1 })
	})

	t.Run("setReviewVisibility", func(t *testing.T) {
		vis := func(tok, adminID, reviewID string, visible bool) st.Result {
			return s.Mutation(tok, opVisibility, map[string]any{"reviewId": reviewID, "adminUserId": adminID, "visible": visible})
		}
		expectError(t, vis(rs.user, "user-1", id, true), "PERMISSION_DENIED")
		expectError(t, vis(admin2, "admin-1", id, true), "PERMISSION_DENIED")
		expectError(t, vis(rs.admin, "admin-1", missingLike(id), true), "NOT_FOUND")
		expectError(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": id, "adminUserId": "admin-1"}), "INVALID_ARGUMENT", "visible")
		// Show again.
		st.MustOK(t, vis(admin2, "admin-2", id, true))
		if sv := statsOf(t, s, rs.storeA); sv.TotalReviews != 2 || sv.RatingSum != 6 {
			t.Fatalf("stats after show %+v", sv)
		}
		if r := getReview(t, s, rs.admin, id); r == nil || r.IsHidden || r.Moderation == nil || !r.Moderation.Visible || r.Moderation.AdminUserID != "admin-2" {
			t.Fatalf("shown review %+v", r)
		}
		st.MustOK(t, vis(admin2, "admin-2", id, true)) // already visible: nothing changes
		if sv := statsOf(t, s, rs.storeA); sv.TotalReviews != 2 {
			t.Fatalf("showing twice counted twice: %+v", sv)
		}
		eventually(t, "the author hears it is back", func() bool { return count(inbox(t, s, rs.user), "review_shown") == 1 })
		// Hiding through setReviewVisibility resolves the review's pending flags too.
		st.MustOK(t, vis(rs.admin, "admin-1", other, false))
		if pending := listFlags(t, s, rs.admin, "pending"); len(pending) != 0 {
			t.Fatalf("pending after hiding %+v", pending)
		}
		for _, f := range listFlags(t, s, rs.admin, "resolved") {
			if f.ReviewID == other && (f.Resolution.Through != "setReviewVisibility" || f.Resolution.AdminUserID != "admin-1") {
				t.Fatalf("flag resolved by the hide: %+v", f)
			}
		}
		st.MustOK(t, vis(rs.admin, "admin-1", other, false)) // already hidden
		if sv := statsOf(t, s, rs.storeA); sv.TotalReviews != 1 || sv.RatingSum != 1 {
			t.Fatalf("stats after hiding the other %+v", sv)
		}
	})

	t.Run("two administrators deciding one flag: one decides", func(t *testing.T) {
		fresh, _ := newCustomer(t, s, "flagger-late")
		var out struct {
			FlagID string `json:"flagId"`
		}
		st.MustOK(t, flag(fresh, id, "fake")).Decode(t, &out)
		results := st.Concurrently(2, func(i int) st.Result {
			if i == 0 {
				return resolve(rs.admin, "admin-1", out.FlagID, "dismiss")
			}
			return resolve(admin2, "admin-2", out.FlagID, "hide_review")
		})
		if ok := st.CountOK(t, results, "FAILED_PRECONDITION"); ok != 1 {
			t.Fatalf("%d decisions", ok)
		}
		hidden := getReview(t, s, rs.admin, id).IsHidden
		if (results[1].Status == 200) != hidden {
			t.Fatalf("the review's visibility (hidden %v) does not follow the decision that won", hidden)
		}
	})
}

// TestReviewsPhotos: photoIds must be the author's uploads; photoUrls are
// absolute URLs on the public base URL that serve the bytes.
func TestReviewsPhotos(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	imgs := tinyImages(t)
	mine := []string{storageID(t, upload(s, rs.user, "image/png", imgs["image/png"])), storageID(t, upload(s, rs.user, "image/jpeg", imgs["image/jpeg"]))}
	theirs := storageID(t, upload(s, s.Token("user-photo-other"), "image/gif", imgs["image/gif"]))

	withPhotos := func(photos ...string) map[string]any { return reviewArgs(rs.storeA, 4, "photoIds", photos) }
	expectError(t, s.Mutation(rs.user, opAddReview, withPhotos(mine[0], theirs)), "PERMISSION_DENIED", "photoIds[1]")
	expectError(t, s.Mutation(rs.user, opAddReview, withPhotos(missingLike(mine[0]))), "NOT_FOUND", "photoIds[0]")
	expectError(t, s.Mutation(rs.user, opAddReview, withPhotos(mine[0], mine[1], mine[0])), "INVALID_ARGUMENT", "photoIds[2]")
	expectError(t, s.Mutation(rs.user, opAddReview, withPhotos(rs.storeA)), "INVALID_ARGUMENT", "photoIds[0]")
	expectNoReviews(t, s, rs.storeA, 0)

	id := addReviewOK(t, s, rs.user, withPhotos(mine...))
	want := []string{s.BaseURL + "/api/storage/" + mine[0], s.BaseURL + "/api/storage/" + mine[1]}
	if r := getReview(t, s, "", id); !slices.Equal(r.PhotoURLs, want) {
		t.Fatalf("photoUrls %v, want %v", r.PhotoURLs, want)
	}
	if r := allReviews(t, s, "", rs.storeA, nil)[0]; !slices.Equal(r.PhotoURLs, want) {
		t.Fatalf("listed photoUrls %v", r.PhotoURLs)
	}
	for i, u := range want {
		if !strings.HasPrefix(u, "http://") {
			t.Fatalf("photo URL %q is not absolute", u)
		}
		resp, err := s.HTTP.Get(u) // anyone may fetch it, no token
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		wantType := []string{"image/png", "image/jpeg"}[i]
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != wantType || !bytes.Equal(body, imgs[wantType]) {
			t.Fatalf("GET %s: %d %s, %d bytes", u, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
	}

	// Editing: someone else's photo is refused (nothing changes), the photos can be replaced or removed.
	expectError(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "photoIds": []string{theirs}}), "PERMISSION_DENIED", "photoIds[0]")
	if r := getReview(t, s, "", id); len(r.PhotoURLs) != 2 {
		t.Fatalf("a refused edit changed the photos: %v", r.PhotoURLs)
	}
	var r reviewItem
	st.MustOK(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "photoIds": []string{mine[1]}})).Decode(t, &r)
	if !slices.Equal(r.PhotoURLs, want[1:]) {
		t.Fatalf("replaced photos %v", r.PhotoURLs)
	}
	r = reviewItem{}
	st.MustOK(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "photoIds": []string{}})).Decode(t, &r)
	if r.PhotoURLs == nil || len(r.PhotoURLs) != 0 {
		t.Fatalf("removed photos %v", r.PhotoURLs)
	}

	// Ten photos at most.
	var ten []string
	for range 10 {
		ten = append(ten, storageID(t, upload(s, rs.user, "image/png", imgs["image/png"])))
	}
	addReviewOK(t, s, rs.user, withPhotos(ten...))
	expectError(t, s.Mutation(rs.user, opAddReview, withPhotos(append(ten, mine[0])...)), "INVALID_ARGUMENT", "photoIds")
}

// TestReviewsListReflectsEveryChangeAtOnce: a list read again right after any
// change shows it (the listing cache never serves a page older than the
// store's last change).
func TestReviewsListReflectsEveryChangeAtOnce(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tokens, _ := makeCustomers(t, s, "watcher", 2)
	id := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 3))
	first := func(sortBy string) *reviewItem {
		list := allReviews(t, s, "", rs.storeA, map[string]any{"sortBy": sortBy})
		for i := range list {
			if list[i].ID == id {
				return &list[i]
			}
		}
		return nil
	}
	first("newest") // cached
	st.MustOK(t, s.Mutation(tokens[0], opVote, map[string]any{"reviewId": id, "isHelpful": true}))
	if r := first("newest"); r.HelpfulCount != 1 {
		t.Fatalf("vote not shown: %+v", r)
	}
	st.MustOK(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "rating": 5}))
	if r := first("newest"); r.Rating != 5 {
		t.Fatalf("edit not shown: %+v", r)
	}
	st.MustOK(t, s.Mutation(rs.owner, opAddResponse, map[string]any{"reviewId": id, "comment": "Thanks"}))
	if r := first("newest"); r.StoreResponse == nil {
		t.Fatalf("response not shown: %+v", r)
	}
	st.MustOK(t, s.Mutation(rs.owner, opUpdateResponse, map[string]any{"reviewId": id, "comment": "Many thanks"}))
	if r := first("newest"); r.StoreResponse.Comment != "Many thanks" {
		t.Fatalf("changed response not shown: %+v", r)
	}
	st.MustOK(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": id, "adminUserId": "admin-1", "visible": false}))
	if r := first("newest"); r != nil {
		t.Fatal("hidden review still listed")
	}
	st.MustOK(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": id, "adminUserId": "admin-1", "visible": true}))
	if r := first("newest"); r == nil {
		t.Fatal("shown review not listed")
	}
	newer := addReviewOK(t, s, tokens[1], reviewArgs(rs.storeA, 1))
	if list := allReviews(t, s, "", rs.storeA, nil); len(list) != 2 || list[0].ID != newer {
		t.Fatalf("new review not listed first: %v", reviewIDsOf(list))
	}
	// The caller's own vote is per caller, never shared through the cache.
	if r := allReviews(t, s, tokens[0], rs.storeA, nil); r[1].UserVote == nil || r[0].UserVote != nil {
		t.Fatal("userVote of the voter")
	}
	if r := allReviews(t, s, tokens[1], rs.storeA, nil); r[1].UserVote != nil {
		t.Fatal("another caller sees the voter's vote")
	}
	st.MustOK(t, s.Mutation(rs.user, opDeleteReview, map[string]any{"reviewId": id}))
	if list := allReviews(t, s, "", rs.storeA, nil); len(list) != 1 {
		t.Fatalf("deleted review still listed: %v", reviewIDsOf(list))
	}
}

// TestReviewsStatisticsEqualARecountAfterAStorm: adds, edits, deletes, votes,
// flags, hides and shows race; afterwards the statistics equal a recount of
// the visible reviews.
func TestReviewsStatisticsEqualARecountAfterAStorm(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	rs.deliverOrder(t, rs.orderA) // the shop's customer's reviews of A are verified
	const writers = 12
	tokens, _ := makeCustomers(t, s, "storm", writers)
	tokens = append(tokens, rs.user)
	admin2 := s.Token("admin-2", "admin")

	// Each writer starts with two reviews.
	var mu sync.Mutex
	owned := make([][]string, len(tokens)) // writer -> review ids
	all := []string{}
	seed := st.Concurrently(len(tokens)*2, func(i int) st.Result {
		return s.Mutation(tokens[i%len(tokens)], opAddReview, reviewArgs(rs.storeA, 1+i%5))
	})
	for i, r := range seed {
		var out struct {
			ReviewID string `json:"reviewId"`
		}
		st.MustOK(t, r).Decode(t, &out)
		owned[i%len(tokens)] = append(owned[i%len(tokens)], out.ReviewID)
		all = append(all, out.ReviewID)
	}
	// pick reads the lists under the lock (w < 0: any review).
	pick := func(rng *rand.Rand, w int) string {
		mu.Lock()
		defer mu.Unlock()
		var xs []string
		if w >= 0 {
			xs = owned[w]
		}
		if len(xs) == 0 {
			return all[rng.IntN(len(all))]
		}
		return xs[rng.IntN(len(xs))]
	}

	const ops = 240
	results := st.Concurrently(ops, func(i int) st.Result {
		rng := rand.New(rand.NewPCG(uint64(i), 99))
		w := i % len(tokens)
		tok := tokens[w]
		switch i % 8 {
		case 0, 1: // add
			r := s.Mutation(tok, opAddReview, reviewArgs(rs.storeA, 1+rng.IntN(5)))
			if r.Status == 200 {
				var out struct {
					ReviewID string `json:"reviewId"`
				}
				r.Decode(t, &out)
				mu.Lock()
				owned[w] = append(owned[w], out.ReviewID)
				all = append(all, out.ReviewID)
				mu.Unlock()
			}
			return r
		case 2: // edit the rating
			return s.Mutation(tok, opUpdateReview, map[string]any{"reviewId": pick(rng, w), "rating": 1 + rng.IntN(5)})
		case 3: // delete (the shop's customer keeps its verified review: it edits instead)
			if w == len(tokens)-1 {
				return s.Mutation(tok, opUpdateReview, map[string]any{"reviewId": pick(rng, w), "rating": 1 + rng.IntN(5)})
			}
			return s.Mutation(tok, opDeleteReview, map[string]any{"reviewId": pick(rng, w)})
		case 4: // hide or show
			return s.Mutation(admin2, opVisibility, map[string]any{"reviewId": pick(rng, -1), "adminUserId": "admin-2", "visible": rng.IntN(2) == 0})
		case 5: // flag and hide through the flag
			r := s.Mutation(tok, opFlag, map[string]any{"reviewId": pick(rng, -1), "reason": "offensive"})
			if r.Status != 200 {
				return r
			}
			var out struct {
				FlagID string `json:"flagId"`
			}
			r.Decode(t, &out)
			return s.Mutation(rs.admin, opResolveFlag, map[string]any{"flagId": out.FlagID, "adminUserId": "admin-1", "action": "hide_review"})
		default: // vote
			return s.Mutation(tok, opVote, map[string]any{"reviewId": pick(rng, -1), "isHelpful": rng.IntN(3) > 0})
		}
	})
	okCount := 0
	for i, r := range results {
		switch {
		case r.Status == 200:
			okCount++
		case r.Status >= 500:
			t.Fatalf("op %d: %d %s", i, r.Status, r.Body)
		default:
			// Refusals the storm makes likely: a review deleted meanwhile, one's
			// own review, a hidden review, a second flag, another's review.
			if c := r.Code(); c != "NOT_FOUND" && c != "FAILED_PRECONDITION" && c != "ALREADY_EXISTS" && c != "PERMISSION_DENIED" {
				t.Fatalf("op %d: %d %s", i, r.Status, r.Body)
			}
		}
	}
	if okCount < ops/2 {
		t.Fatalf("only %d of %d operations succeeded", okCount, ops)
	}
	// The storm may have hidden the one verified review (a customer has one
	// per delivered order): shown again, it must be counted again, and the
	// recount below is then never vacuous.
	for _, id := range owned[len(tokens)-1] {
		r := s.Mutation(admin2, opVisibility, map[string]any{"reviewId": id, "adminUserId": "admin-2", "visible": true})
		if r.Status != 200 && r.Code() != "NOT_FOUND" {
			t.Fatalf("showing %s again: %d %s", id, r.Status, r.Body)
		}
	}

	visible := allReviews(t, s, "", rs.storeA, nil)
	verified := allReviews(t, s, "", rs.storeA, map[string]any{"verifiedOnly": true})
	want := reviewStats{TotalReviews: int64(len(visible)), VerifiedReviews: int64(len(verified)), RatingDistribution: map[string]int64{"1": 0, "2": 0, "3": 0, "4": 0, "5": 0}}
	for _, r := range visible {
		want.RatingSum += int64(r.Rating)
		want.RatingDistribution[fmt.Sprint(r.Rating)]++
	}
	got := statsOf(t, s, rs.storeA)
	if got.TotalReviews != want.TotalReviews || got.RatingSum != want.RatingSum || got.VerifiedReviews != want.VerifiedReviews ||
		!mapsEqual(got.RatingDistribution, want.RatingDistribution) {
		t.Fatalf("statistics %+v, recount %+v", got, want)
	}
	if want.TotalReviews == 0 || want.VerifiedReviews == 0 {
		t.Fatalf("the storm left nothing to count: %+v", want)
	}
	if avg := float64(want.RatingSum) / float64(want.TotalReviews); fmt.Sprintf("%.9f", got.AverageRating) != fmt.Sprintf("%.9f", avg) {
		t.Fatalf("average %v, recount %v", got.AverageRating, avg)
	}
	// Every hidden review is hidden, every listed one visible: the author's
	// own list agrees with the store's.
	listed := map[string]bool{}
	for _, r := range visible {
		listed[r.ID] = true
	}
	for _, tok := range tokens {
		p := okAs[reviewPage](t, s.Query(tok, opCustomerReviews, map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}}))
		for _, r := range p.Page {
			if listed[r.ID] == r.IsHidden {
				t.Fatalf("review %s: listed %v, hidden %v", r.ID, listed[r.ID], r.IsHidden)
			}
		}
	}
}

// TestReviewsEventsArePublished: every change of a review goes out through
// the outbox on the "reviews" topic, keyed by the review (so in order), in the
// platform's envelope, with the contract's payloads.
func TestReviewsEventsArePublished(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	tokens, _ := makeCustomers(t, s, "evented", 2)
	rs.deliverOrder(t, rs.orderA)
	id := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 2, "orderId", rs.orderA))
	st.MustOK(t, s.Mutation(rs.user, opUpdateReview, map[string]any{"reviewId": id, "rating": 3}))
	st.MustOK(t, s.Mutation(rs.owner, opAddResponse, map[string]any{"reviewId": id, "comment": "Thanks"}))
	flagOf := func(tok, reason string) string {
		var f struct {
			FlagID string `json:"flagId"`
		}
		st.MustOK(t, s.Mutation(tok, opFlag, map[string]any{"reviewId": id, "reason": reason})).Decode(t, &f)
		return f.FlagID
	}
	f1 := flagOf(tokens[0], "spam")
	st.MustOK(t, s.Mutation(rs.admin, opResolveFlag, map[string]any{"flagId": f1, "adminUserId": "admin-1", "action": "dismiss"}))
	f2 := flagOf(tokens[1], "fake")
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin") // hides it by name; rs.admin, unnamed, shows it
	st.MustOK(t, s.Mutation(mariam, opResolveFlag, map[string]any{"flagId": f2, "adminUserId": "admin-1", "action": "hide_review", "adminNotes": "Not a real order"}))
	st.MustOK(t, s.Mutation(rs.admin, opVisibility, map[string]any{"reviewId": id, "adminUserId": "admin-1", "visible": true}))
	st.MustOK(t, s.Mutation(rs.user, opDeleteReview, map[string]any{"reviewId": id}))

	want := []string{"review.created", "review.updated", "review.store_responded", "review.flag_raised", "review.flag_resolved",
		"review.flag_raised", "review.flag_resolved", "review.hidden", "review.shown", "review.deleted"}
	type envelope struct {
		ID, Type, Source, Subject, Time string
		Data                            map[string]any
	}
	var got []envelope
	eventually(t, "the review's ten events", func() bool {
		got = nil
		for p := 0; p < 3; p++ {
			r := kafka.NewReader(kafka.ReaderConfig{Brokers: s.Brokers.Addrs, Dialer: s.Brokers.Dialer("e2e"), Topic: "reviews", Partition: p, MaxWait: 50 * time.Millisecond})
			for {
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				m, err := r.ReadMessage(ctx)
				cancel()
				if err != nil {
					break
				}
				if string(m.Key) != id {
					continue
				}
				var env envelope
				if err := json.Unmarshal(m.Value, &env); err != nil {
					t.Fatal(err)
				}
				got = append(got, env)
			}
			r.Close()
		}
		return len(got) >= len(want)
	})
	types := make([]string, len(got))
	for i, e := range got {
		types[i] = e.Type
		if e.Source != "reviews" || e.Subject != id || e.ID == "" || e.Time == "" || e.Data["reviewId"] != id {
			t.Errorf("envelope %+v", e)
		}
	}
	if !slices.Equal(types, want) {
		t.Fatalf("events %v, want %v", types, want)
	}
	if d := got[0].Data; d["storeId"] != rs.storeA || d["customerUserId"] != "user-1" || d["rating"] != 2.0 || d["isVerifiedPurchase"] != true || d["orderId"] != rs.orderA {
		t.Errorf("review.created %v", d)
	}
	if d := got[1].Data; d["rating"] != 3.0 || d["previousRating"] != 2.0 || fmt.Sprint(d["changedFields"]) != "[rating]" {
		t.Errorf("review.updated %v", d)
	}
	if d := got[2].Data; d["comment"] != "Thanks" || d["customerUserId"] != "user-1" || d["updated"] != false || d["respondedByUserId"] != "owner-1" {
		t.Errorf("review.store_responded %v", d)
	}
	if d := got[3].Data; d["flagId"] != f1 || d["reason"] != "spam" || d["storeId"] != rs.storeA || d["flaggedByUserId"] != "evented-0" {
		t.Errorf("review.flag_raised %v", d)
	}
	if d := got[4].Data; d["flagId"] != f1 || d["status"] != "dismissed" || d["action"] != "dismiss" || d["adminUserId"] != "admin-1" {
		t.Errorf("review.flag_resolved (dismiss) %v", d)
	}
	if d := got[6].Data; d["flagId"] != f2 || d["status"] != "resolved" || d["action"] != "hide_review" || d["adminNotes"] != "Not a real order" {
		t.Errorf("review.flag_resolved (hide) %v", d)
	}
	if d := got[7].Data; d["hidden"] != true || d["byUserId"] != "admin-1" || d["adminName"] != "Mariam Al Mansoori" || d["flagId"] != f2 {
		t.Errorf("review.hidden %v", d)
	}
	if d := got[8].Data; d["hidden"] != false || d["byUserId"] != "admin-1" || d["adminName"] != nil { // shown by an unnamed token
		t.Errorf("review.shown %v", d)
	}
	if d := got[9].Data; d["byUserId"] != "user-1" || d["rating"] != 3.0 {
		t.Errorf("review.deleted %v", d)
	}
}
