package e2e

import (
	"slices"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// The lists' new arguments (ADR 0172): a period (from/to, epoch ms,
// inclusive, at most 366 days), newest/oldest, filters and capped counts on
// the store's reviews, the moderation flags, the inboxes and the commission
// history; clients that send none of them see the lists as before.

const (
	day          = int64(24 * 3600 * 1000)
	opCountFlags = "admins.reviewModeration.countFlags"
)

type listCount struct {
	Count  int  `json:"count"`
	Capped bool `json:"capped"`
}

func pageArgs(n int, cursor any, kv ...any) map[string]any {
	a := map[string]any{"paginationOpts": map[string]any{"numItems": n, "cursor": cursor}}
	for i := 0; i+1 < len(kv); i += 2 {
		a[kv[i].(string)] = kv[i+1]
	}
	return a
}

type notePage struct {
	Page []struct {
		notification
		CreationTime int64 `json:"_creationTime"`
	} `json:"page"`
	IsDone         bool   `json:"isDone"`
	ContinueCursor string `json:"continueCursor"`
}

type flagPage struct {
	Page           []flagItem `json:"page"`
	IsDone         bool       `json:"isDone"`
	ContinueCursor string     `json:"continueCursor"`
}

// TestListsReviewsFlagsInbox: three reviews two days apart, three flags on
// two later days (each raising an admin notice), and each list asked by
// period, order, filter and page; bad values are INVALID_ARGUMENT naming
// them, and access is as before.
func TestListsReviewsFlagsInbox(t *testing.T) {
	dubai := time.FixedZone("Dubai", 4*3600)
	d0 := time.Date(2026, 5, 4, 10, 0, 0, 0, dubai)
	clock := newTestClock(d0)
	s := st.Start(t, st.WithClock(clock.Now))
	rs := newReviewShop(t, s)
	tokens, _ := makeCustomers(t, s, "lister", 3)
	at := func(days int) int64 { return d0.UnixMilli() + int64(days)*day }
	var reviews []string
	for i, rating := range []int{5, 3, 1} {
		clock.Set(d0.Add(time.Duration(2*i) * 24 * time.Hour))
		reviews = append(reviews, addReviewOK(t, s, tokens[i], reviewArgs(rs.storeA, rating)))
	}
	adminNotes := func() int {
		return okAs[listCount](t, s.Query(rs.admin, "notifications.inbox.count", map[string]any{"kind": "reviews"})).Count
	}
	var flags []string
	for i, f := range []struct {
		day, by, review int
	}{{5, 1, 0}, {6, 2, 0}, {6, 0, 1}} {
		clock.Set(d0.Add(time.Duration(f.day) * 24 * time.Hour))
		flags = append(flags, okAs[struct {
			FlagID string `json:"flagId"`
		}](t, s.Mutation(tokens[f.by], opFlag, map[string]any{"reviewId": reviews[f.review], "reason": "spam"})).FlagID)
		eventually(t, "the flag's admin notice", func() bool { return adminNotes() == i+1 })
	}

	t.Run("reviews", func(t *testing.T) {
		ids := func(args map[string]any) []string {
			args["storeId"] = rs.storeA
			return reviewIDsOf(listReviews(t, s, "", args).Page)
		}
		if got := ids(pageArgs(10, nil)); !slices.Equal(got, []string{reviews[2], reviews[1], reviews[0]}) {
			t.Errorf("without a period %v", got)
		}
		if got := ids(pageArgs(10, nil, "from", at(1), "to", at(4))); !slices.Equal(got, []string{reviews[2], reviews[1]}) {
			t.Errorf("days 1-4, newest first: %v", got)
		}
		if got := ids(pageArgs(10, nil, "from", at(1), "to", at(4), "sortBy", "oldest")); !slices.Equal(got, []string{reviews[1], reviews[2]}) {
			t.Errorf("days 1-4, oldest first: %v", got)
		}
		// Inclusive bounds: a review written at `to` is in.
		if got := ids(pageArgs(10, nil, "to", at(2))); !slices.Equal(got, []string{reviews[1], reviews[0]}) {
			t.Errorf("up to day 2: %v", got)
		}
		if got := ids(pageArgs(10, nil, "from", at(1), "ratingFilter", 3)); !slices.Equal(got, []string{reviews[1]}) {
			t.Errorf("3 stars from day 1: %v", got)
		}
		p := listReviews(t, s, "", map[string]any{"storeId": rs.storeA, "from": at(0), "to": at(4), "paginationOpts": map[string]any{"numItems": 2, "cursor": nil}})
		p2 := listReviews(t, s, "", map[string]any{"storeId": rs.storeA, "from": at(0), "to": at(4), "paginationOpts": map[string]any{"numItems": 2, "cursor": p.ContinueCursor}})
		if len(p.Page) != 2 || p.IsDone || len(p2.Page) != 1 || !p2.IsDone || p2.Page[0].ID != reviews[0] {
			t.Errorf("pages %+v then %+v", reviewIDsOf(p.Page), reviewIDsOf(p2.Page))
		}
		// A cursor belongs to its period.
		expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "from": at(1), "to": at(4), "paginationOpts": map[string]any{"numItems": 2, "cursor": p.ContinueCursor}}), "INVALID_ARGUMENT", "cursor")
		for _, sort := range []string{"highest_rating", "lowest_rating", "most_helpful"} {
			expectDetails(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "from": at(0), "sortBy": sort, "paginationOpts": map[string]any{"numItems": 2}}),
				"INVALID_ARGUMENT", map[string]any{"field": "sortBy", "reason": "sort_with_filter"})
		}
		if got := ids(pageArgs(10, nil, "sortBy", "lowest_rating")); !slices.Equal(got, []string{reviews[2], reviews[1], reviews[0]}) {
			t.Errorf("by rating without a period: %v", got)
		}
		expectDetails(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "from": at(0), "to": at(367), "paginationOpts": map[string]any{"numItems": 2}}),
			"INVALID_ARGUMENT", map[string]any{"field": "to", "reason": "range_too_large"})
		expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "from": at(2), "to": at(1), "paginationOpts": map[string]any{"numItems": 2}}), "INVALID_ARGUMENT", "to")
		expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "from": -1, "paginationOpts": map[string]any{"numItems": 2}}), "INVALID_ARGUMENT", "from")
		expectError(t, s.Query("", opStoreReviews, map[string]any{"storeId": rs.storeA, "to": "soon", "paginationOpts": map[string]any{"numItems": 2}}), "INVALID_ARGUMENT", "to")
	})

	t.Run("flags", func(t *testing.T) {
		list := func(args map[string]any) flagPage {
			return okAs[flagPage](t, s.Query(rs.admin, opListFlags, args))
		}
		idsOf := func(p flagPage) []string {
			var out []string
			for _, f := range p.Page {
				out = append(out, f.ID)
			}
			return out
		}
		oldest := idsOf(list(pageArgs(10, nil)))
		if len(oldest) != 3 || oldest[0] != flags[0] {
			t.Fatalf("oldest first %v, flags %v", oldest, flags)
		}
		newest := idsOf(list(pageArgs(10, nil, "sort", "newest")))
		if !slices.Equal(newest, []string{oldest[2], oldest[1], oldest[0]}) {
			t.Errorf("newest first %v, oldest first %v", newest, oldest)
		}
		if got := idsOf(list(pageArgs(10, nil, "from", at(6)))); len(got) != 2 || slices.Contains(got, flags[0]) {
			t.Errorf("from day 6: %v", got)
		}
		if got := idsOf(list(pageArgs(10, nil, "status", "pending", "from", at(5), "to", at(5)))); !slices.Equal(got, flags[:1]) {
			t.Errorf("pending on day 5: %v", got)
		}
		count := func(args map[string]any) listCount { return okAs[listCount](t, s.Query(rs.admin, opCountFlags, args)) }
		if c := count(map[string]any{}); c != (listCount{Count: 3}) {
			t.Errorf("count of every flag %+v", c)
		}
		if c := count(map[string]any{"from": at(6), "status": "pending"}); c != (listCount{Count: 2}) {
			t.Errorf("count from day 6 %+v", c)
		}
		st.MustOK(t, s.Mutation(rs.admin, opResolveFlag, map[string]any{"flagId": flags[1], "adminUserId": "admin-1", "action": "dismiss"}))
		if got := idsOf(list(pageArgs(10, nil, "status", "dismissed", "from", at(6)))); !slices.Equal(got, flags[1:2]) {
			t.Errorf("dismissed from day 6: %v", got)
		}
		if c := count(map[string]any{"status": "pending"}); c.Count != 2 {
			t.Errorf("pending after one dismissal %+v", c)
		}
		// The decisions by decision time: flags[2] (reported last) dismissed
		// on day 20, flags[0] (reported first) on day 30: newest decision first
		// is flags[0], then flags[2], then flags[1] (decided before); a period
		// is on the decision time; pending ones have no decision.
		clock.Set(d0.Add(20 * 24 * time.Hour))
		st.MustOK(t, s.Mutation(rs.admin, opResolveFlag, map[string]any{"flagId": flags[2], "adminUserId": "admin-1", "action": "dismiss"}))
		clock.Set(d0.Add(30 * 24 * time.Hour))
		st.MustOK(t, s.Mutation(rs.admin, opResolveFlag, map[string]any{"flagId": flags[0], "adminUserId": "admin-1", "action": "dismiss"}))
		if got := idsOf(list(pageArgs(10, nil, "status", "dismissed", "by", "decision", "sort", "newest"))); !slices.Equal(got, []string{flags[0], flags[2], flags[1]}) {
			t.Errorf("dismissed by decision, newest first: %v, flags %v", got, flags)
		}
		if got := idsOf(list(pageArgs(10, nil, "status", "dismissed", "by", "decision", "from", at(19), "to", at(21)))); !slices.Equal(got, flags[2:3]) {
			t.Errorf("dismissed on days 19-21: %v", got)
		}
		if c := count(map[string]any{"status": "dismissed", "by": "decision", "from": at(19)}); c.Count != 2 {
			t.Errorf("count dismissed from day 19 %+v", c)
		}
		expectError(t, s.Query(rs.admin, opListFlags, pageArgs(2, nil, "status", "pending", "by", "decision")), "INVALID_ARGUMENT", "by")
		expectError(t, s.Query(rs.admin, opCountFlags, map[string]any{"by": "decision"}), "INVALID_ARGUMENT", "by")
		p := list(pageArgs(2, nil, "sort", "newest"))
		p2 := list(pageArgs(2, p.ContinueCursor, "sort", "newest"))
		if len(p.Page) != 2 || p.IsDone || !slices.Equal(idsOf(p2), oldest[:1]) || !p2.IsDone {
			t.Errorf("pages %v then %v", idsOf(p), idsOf(p2))
		}
		expectError(t, s.Query(rs.admin, opListFlags, pageArgs(2, p.ContinueCursor)), "INVALID_ARGUMENT", "cursor") // another order's cursor
		expectError(t, s.Query(rs.admin, opListFlags, pageArgs(2, nil, "sort", "rating")), "INVALID_ARGUMENT", "sort")
		expectDetails(t, s.Query(rs.admin, opListFlags, pageArgs(2, nil, "from", at(0), "to", at(400))), "INVALID_ARGUMENT", map[string]any{"field": "to", "reason": "range_too_large"})
		expectError(t, s.Query(rs.admin, opCountFlags, map[string]any{"from": at(3), "to": at(2)}), "INVALID_ARGUMENT", "to")
		expectError(t, s.Query(rs.admin, opCountFlags, map[string]any{"status": "open"}), "INVALID_ARGUMENT", "status")
		expectError(t, s.Query(rs.owner, opCountFlags, map[string]any{}), "PERMISSION_DENIED")
		expectError(t, s.Query("", opCountFlags, map[string]any{}), "UNAUTHENTICATED")
	})

	t.Run("inbox", func(t *testing.T) {
		list := func(token string, args map[string]any) notePage {
			return okAs[notePage](t, s.Query(token, "notifications.inbox.list", args))
		}
		flagged := list(rs.admin, pageArgs(10, nil, "kind", "reviews"))
		if len(flagged.Page) != 3 {
			t.Fatalf("the admin's review notices: %+v", flagged.Page)
		}
		for i, n := range flagged.Page {
			if n.Type != "review_flagged" || (i > 0 && n.CreationTime > flagged.Page[i-1].CreationTime) {
				t.Errorf("notice %d: %+v", i, n)
			}
		}
		old := list(rs.admin, pageArgs(10, nil, "kind", "reviews", "sort", "oldest"))
		if len(old.Page) != 3 || old.Page[0].ID != flagged.Page[2].ID || old.Page[0].CreationTime != at(5) {
			t.Errorf("oldest first %+v", old.Page)
		}
		if p := list(rs.admin, pageArgs(10, nil, "kind", "reviews", "from", at(6), "to", at(7))); len(p.Page) != 2 {
			t.Errorf("day 6: %+v", p.Page)
		}
		if p := list(rs.admin, pageArgs(10, nil, "kind", "payouts")); len(p.Page) != 0 {
			t.Errorf("payouts notices: %+v", p.Page)
		}
		st.MustOK(t, s.Mutation(rs.admin, "notifications.inbox.markRead", map[string]any{"notificationId": flagged.Page[0].ID}))
		if p := list(rs.admin, pageArgs(10, nil, "kind", "reviews", "read", "read")); len(p.Page) != 1 || p.Page[0].ID != flagged.Page[0].ID || !p.Page[0].Read {
			t.Errorf("read: %+v", p.Page)
		}
		for _, args := range []map[string]any{pageArgs(10, nil, "kind", "reviews", "read", "unread"), pageArgs(10, nil, "kind", "reviews", "unreadOnly", true)} {
			if p := list(rs.admin, args); len(p.Page) != 2 || p.Page[0].Read {
				t.Errorf("unread (%v): %+v", args, p.Page)
			}
		}
		if c := okAs[listCount](t, s.Query(rs.admin, "notifications.inbox.count", map[string]any{"kind": "reviews", "read": "unread", "from": at(6)})); c != (listCount{Count: 1}) {
			t.Errorf("count %+v", c)
		}
		p := list(rs.admin, pageArgs(2, nil, "kind", "reviews"))
		p2 := list(rs.admin, pageArgs(2, p.ContinueCursor, "kind", "reviews"))
		if len(p.Page) != 2 || p.IsDone || len(p2.Page) != 1 || !p2.IsDone || p2.Page[0].ID != flagged.Page[2].ID {
			t.Errorf("pages %+v then %+v", p.Page, p2.Page)
		}
		// The customer's own inbox: their order's notices, none of the admin's.
		mine := list(rs.user, pageArgs(50, nil, "kind", "orders"))
		if len(mine.Page) == 0 {
			t.Error("the customer's order notices are not listed")
		}
		for _, n := range mine.Page {
			if n.Type != "order_created" && n.Type != "order_status" {
				t.Errorf("an orders notice of type %s", n.Type)
			}
		}
		if p := list(rs.user, pageArgs(50, nil, "kind", "reviews", "from", at(5))); len(p.Page) != 0 {
			t.Errorf("the customer sees %+v", p.Page)
		}
		expectError(t, s.Query(rs.admin, "notifications.inbox.list", pageArgs(2, nil, "kind", "money")), "INVALID_ARGUMENT", "kind")
		expectError(t, s.Query(rs.admin, "notifications.inbox.list", pageArgs(2, nil, "read", "seen")), "INVALID_ARGUMENT", "read")
		expectError(t, s.Query(rs.admin, "notifications.inbox.list", pageArgs(2, nil, "read", "read", "unreadOnly", true)), "INVALID_ARGUMENT", "unreadOnly")
		expectError(t, s.Query(rs.admin, "notifications.inbox.list", pageArgs(2, nil, "sort", "rating")), "INVALID_ARGUMENT", "sort")
		expectDetails(t, s.Query(rs.admin, "notifications.inbox.count", map[string]any{"from": at(0), "to": at(367)}), "INVALID_ARGUMENT", map[string]any{"field": "to", "reason": "range_too_large"})
		expectError(t, s.Query("", "notifications.inbox.count", map[string]any{}), "UNAUTHENTICATED")
	})
}

// TestListsCommissionHistory: the configuration's history by period (the
// time of the change, inclusive), oldest first on request, paged; a cursor
// of the unfiltered list is refused for a period's; bad values refused.
func TestListsCommissionHistory(t *testing.T) {
	d0 := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	clock := newTestClock(d0)
	s := st.Start(t, st.WithClock(clock.Now))
	admin := s.Token("admin-1", "admin")
	id := initConfig(t, s) // day 0
	for i, rate := range []float64{0.06, 0.07, 0.08} {
		clock.Set(d0.Add(time.Duration(i+1) * 24 * time.Hour))
		st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "defaultCommissionRate": rate}))
	}
	at := func(days int) int64 { return d0.UnixMilli() + int64(days)*day }
	get := func(args map[string]any) historyPage {
		args["configId"] = id
		return okAs[historyPage](t, s.Query(admin, pcHistory, args))
	}
	times := func(p historyPage) []int64 {
		var out []int64
		for _, e := range p.Page {
			out = append(out, e.ChangedAt)
		}
		return out
	}
	if got := times(get(pageArgs(10, nil))); !slices.Equal(got, []int64{at(3), at(2), at(1), at(0)}) {
		t.Errorf("every change, newest first: %v", got)
	}
	if got := times(get(pageArgs(10, nil, "sort", "oldest"))); !slices.Equal(got, []int64{at(0), at(1), at(2), at(3)}) {
		t.Errorf("oldest first: %v", got)
	}
	if got := times(get(pageArgs(10, nil, "from", at(1), "to", at(2)))); !slices.Equal(got, []int64{at(2), at(1)}) {
		t.Errorf("days 1-2: %v", got)
	}
	p := get(pageArgs(1, nil, "from", at(1), "sort", "oldest"))
	p2 := get(pageArgs(5, p.ContinueCursor, "from", at(1), "sort", "oldest"))
	if !slices.Equal(times(p), []int64{at(1)}) || p.IsDone || !slices.Equal(times(p2), []int64{at(2), at(3)}) || !p2.IsDone {
		t.Errorf("pages %v then %v", times(p), times(p2))
	}
	all := get(pageArgs(1, nil))
	expectError(t, s.Query(admin, pcHistory, map[string]any{"configId": id, "from": at(1), "paginationOpts": map[string]any{"numItems": 1, "cursor": all.ContinueCursor}}), "INVALID_ARGUMENT", "cursor")
	expectDetails(t, s.Query(admin, pcHistory, map[string]any{"configId": id, "from": at(0), "to": at(367), "paginationOpts": map[string]any{"numItems": 1}}), "INVALID_ARGUMENT", map[string]any{"field": "to", "reason": "range_too_large"})
	expectError(t, s.Query(admin, pcHistory, map[string]any{"configId": id, "from": at(2), "to": at(1), "paginationOpts": map[string]any{"numItems": 1}}), "INVALID_ARGUMENT", "to")
	expectError(t, s.Query(admin, pcHistory, map[string]any{"configId": id, "sort": "seq", "paginationOpts": map[string]any{"numItems": 1}}), "INVALID_ARGUMENT", "sort")
	expectError(t, s.Query(s.Token("owner-1"), pcHistory, map[string]any{"configId": id, "from": at(0), "paginationOpts": map[string]any{"numItems": 1}}), "PERMISSION_DENIED")
}

// TestListsProducts: a store's products by price either way and newest
// first, of one availability, and by a part of the name in any case (a
// pattern's characters taken literally), in pages; bad values refused.
func TestListsProducts(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	owner := s.Token("owner-lists")
	store := newStore(t, s, admin, "Lists", "owner-lists", "", "")
	other := newStore(t, s, admin, "Elsewhere", "owner-else", "", "")
	okID(t, s.Mutation(s.Token("owner-else"), "stores.products.createProduct", map[string]any{"storeId": other, "name": "Date cake", "price": 1}))
	var ids []string
	for i, p := range []struct {
		name  string
		price float64
	}{{"Date cake", 30}, {"Rose box", 10}, {"Mini DATE cake", 20}, {"Cake (date)", 40}, {"Datecake", 5}} {
		time.Sleep(2 * time.Millisecond)
		ids = append(ids, okID(t, s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": p.name, "price": p.price})))
		if i == 2 {
			st.MustOK(t, s.Mutation(owner, "stores.products.updateProduct", map[string]any{"productId": ids[i], "isAvailable": false}))
		}
	}
	list := func(n int, cursor any, kv ...any) productPage {
		a := pageArgs(n, cursor, kv...)
		a["storeId"] = store
		return okAs[productPage](t, s.Query("", "stores.products.listProductsPaginated", a))
	}
	pick := func(is ...int) []string {
		var out []string
		for _, i := range is {
			out = append(out, ids[i])
		}
		return out
	}
	for _, c := range []struct {
		args []any
		want []string
	}{
		{nil, pick(0, 1, 2, 3, 4)},
		{[]any{"sort", "newest"}, pick(4, 3, 2, 1, 0)},
		{[]any{"sort", "price"}, pick(4, 1, 2, 0, 3)},
		{[]any{"sort", "price_desc"}, pick(3, 0, 2, 1, 4)},
		{[]any{"available", false}, pick(2)},
		{[]any{"available", true, "sort", "price"}, pick(4, 1, 0, 3)},
		{[]any{"search", "date cake"}, pick(0, 2)},
		{[]any{"search", "  DATE   Cake ", "sort", "price_desc"}, pick(0, 2)},
		{[]any{"search", "(date)"}, pick(3)},
		{[]any{"search", "date", "available", true}, pick(0, 3, 4)},
		{[]any{"search", "zz"}, nil},
	} {
		if got := idsOfProducts(list(10, nil, c.args...).Page); !slices.Equal(got, c.want) {
			t.Errorf("%v: %v, want %v", c.args, got, c.want)
		}
	}
	// Pages of a search: two, then one, then done.
	p := list(2, nil, "search", "date", "sort", "price")
	p2 := list(2, p.ContinueCursor, "search", "date", "sort", "price")
	if got := idsOfProducts(slices.Concat(p.Page, p2.Page)); !slices.Equal(got, pick(4, 2, 0, 3)) || p.IsDone || !p2.IsDone {
		t.Errorf("pages of a search: %v (done %v, %v)", got, p.IsDone, p2.IsDone)
	}
	bad := func(field string, kv ...any) {
		a := pageArgs(2, nil, kv...)
		a["storeId"] = store
		expectError(t, s.Query("", "stores.products.listProductsPaginated", a), "INVALID_ARGUMENT", field)
	}
	bad("sort", "sort", "name")
	bad("search", "search", "x")
	bad("available", "available", "yes")
	bad("cursor", "sort", "price", "paginationOpts", map[string]any{"numItems": 2, "cursor": list(1, nil).ContinueCursor})
}
