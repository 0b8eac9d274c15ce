package e2e

import (
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
)

// Administrators (and owners) named where they acted (docs/adr/0168), and
// the search of payouts and reviews (docs/adr/0169).

const (
	opSearchPayouts = "admins.payoutOperations.searchPayouts"
	opSearchReviews = "admins.reviewModeration.searchReviews"
)

type namedPayout struct {
	ID              string  `json:"_id"`
	RequestedBy     string  `json:"requestedBy"`
	RequestedByName *string `json:"requestedByName"`
	ApprovedBy      *string `json:"approvedBy"`
	ApprovedByName  *string `json:"approvedByName"`
	History         []struct {
		Action string  `json:"action"`
		By     string  `json:"by"`
		ByName *string `json:"byName"`
	} `json:"history"`
}

func nameOr(p *string) string {
	if p == nil {
		return "<omitted>"
	}
	return *p
}

// TestPayoutMovesNamed: a payout records its requester by name (the token's,
// else the wallet's owner name) and each administrator's name beside the id,
// for single and bulk moves; a token without a name records the id alone.
func TestPayoutMovesNamed(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	noor := s.NamedToken("owner-1", "Noor Hassan")
	w.credit(t, w.store, w.wallet, 5000)
	named := okID(t, w.s.Mutation(noor, opRequestPayout, map[string]any{"storeId": w.store, "amount": 100, "bankDetails": bank()}))
	unnamed := okID(t, w.request(w.owner, w.store, 200))
	bulk := okID(t, w.request(w.owner, w.store, 300))

	st.MustOK(t, s.Mutation(mariam, opApprove, map[string]any{"payoutId": named, "adminUserId": "admin-1"}))
	st.MustOK(t, s.Mutation(w.admin, opApprove, map[string]any{"payoutId": unnamed, "adminUserId": "admin-1"})) // no name claim
	st.MustOK(t, s.Mutation(mariam, opRejectMany, map[string]any{"payoutIds": []string{bulk}, "adminUserId": "admin-1", "rejectionReason": "duplicate"}))

	get := func(id string) namedPayout {
		return okAs[namedPayout](t, s.Query(w.admin, opGetPayout, map[string]any{"payoutId": id}))
	}
	p := get(named)
	if nameOr(p.RequestedByName) != "Noor Hassan" || nameOr(p.ApprovedByName) != "Mariam Al Mansoori" || *p.ApprovedBy != "admin-1" ||
		len(p.History) != 2 || nameOr(p.History[0].ByName) != "Noor Hassan" || p.History[1].By != "admin-1" || nameOr(p.History[1].ByName) != "Mariam Al Mansoori" {
		t.Errorf("named moves: %+v", p)
	}
	// The unnamed owner's request names the store's owner as the wallet knows
	// them; the unnamed administrator's approval the id alone.
	p = get(unnamed)
	if nameOr(p.RequestedByName) != "Owner of Bakery" || p.ApprovedByName != nil || *p.ApprovedBy != "admin-1" || p.History[1].ByName != nil {
		t.Errorf("unnamed approval: %+v", p)
	}
	p = get(bulk)
	if h := p.History[len(p.History)-1]; h.Action != "rejectPayout" || nameOr(h.ByName) != "Mariam Al Mansoori" {
		t.Errorf("bulk rejection: %+v", p.History)
	}
	// The store's owner: their own name on the request, the administrator by
	// id only (docs/adr/0168).
	var owners struct {
		Page []namedPayout `json:"page"`
	}
	st.MustOK(t, s.Query(w.owner, opListPayouts, map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &owners)
	seen := 0
	for _, p := range owners.Page {
		if p.ID != named && p.ID != bulk {
			continue
		}
		seen++
		requester := nameOr(get(p.ID).RequestedByName) // as administrators see it: the owner's own
		if nameOr(p.RequestedByName) != requester || p.ApprovedByName != nil || (p.ID == named && nameOr(p.History[0].ByName) != requester) {
			t.Errorf("owner's view of %s: requested by %s, approved by name %s", p.ID, nameOr(p.RequestedByName), nameOr(p.ApprovedByName))
		}
		for _, h := range p.History[1:] {
			if h.ByName != nil || h.By != "admin-1" {
				t.Errorf("owner's view of %s: %s by %q named %s", p.ID, h.Action, h.By, nameOr(h.ByName))
			}
		}
	}
	if seen != 2 {
		t.Errorf("the owner's list holds %d of the 2 payouts", seen)
	}
}

// TestOrderMovesNamed: the order's status history names who moved it when
// their token stated a name (administrator or store owner), to the store and
// administrators, never to the customer; an administrator's name to
// administrators only (the store sees the id and role).
func TestOrderMovesNamed(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	id := sh.orderOf(t, "pi_named", sh.storeA, 8705)
	owner := s.NamedToken("owner-1", "Sara Al Marri")
	admin := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	st.MustOK(t, s.Mutation(owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": id, "status": "preparing"}))
	st.MustOK(t, s.Mutation(admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": id, "status": "out_for_delivery"}))
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": id, "status": "delivered"}))
	type change struct {
		Status string `json:"status"`
		By     string `json:"by"`
		ByName string `json:"byName"`
	}
	var o struct {
		StatusHistory []change `json:"statusHistory"`
	}
	for _, tok := range []string{sh.owner, sh.admin} {
		st.MustOK(t, s.Query(tok, opGetOrder, map[string]any{"orderId": id})).Decode(t, &o)
		want := []change{{"confirmed", "payments", ""}, {"preparing", "owner-1", "Sara Al Marri"}, {"out_for_delivery", "admin-1", "Mariam Al Mansoori"}, {"delivered", "owner-1", ""}}
		if tok == sh.owner {
			want[2].ByName = "" // an administrator's name is not the store owner's to see: the id, as before
		}
		if len(o.StatusHistory) != len(want) {
			t.Fatalf("history %+v", o.StatusHistory)
		}
		for i := range want {
			if o.StatusHistory[i] != want[i] {
				t.Errorf("history[%d] = %+v, want %+v", i, o.StatusHistory[i], want[i])
			}
		}
	}
	var mine struct {
		Page []struct {
			StatusHistory []change `json:"statusHistory"`
		} `json:"page"`
	}
	st.MustOK(t, s.Query(sh.user, "customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &mine)
	if len(mine.Page) == 0 {
		t.Fatal("the customer has no orders")
	}
	for _, o := range mine.Page {
		for _, h := range o.StatusHistory {
			if h.By != "" || h.ByName != "" {
				t.Errorf("the customer sees who moved it: %+v", h)
			}
		}
	}
}

// TestFlagResolutionsNamed: a flag's resolution names the administrator
// (resolveFlag, and flags resolved by hiding through setReviewVisibility).
func TestFlagResolutionsNamed(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	tokens, _ := makeCustomers(t, s, "flagger", 2)
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	r1 := addReviewOK(t, s, sh.user, map[string]any{"storeId": sh.storeA, "rating": 2, "comment": "Cold bread"})
	r2 := addReviewOK(t, s, sh.user, map[string]any{"storeId": sh.storeB, "rating": 1, "comment": "Wilted"})
	flag := func(tok, review string) string {
		var f struct {
			FlagID string `json:"flagId"`
		}
		st.MustOK(t, s.Mutation(tok, opFlag, map[string]any{"reviewId": review, "reason": "spam"})).Decode(t, &f)
		return f.FlagID
	}
	f1, f2, f3 := flag(tokens[0], r1), flag(tokens[1], r1), flag(tokens[0], r2)
	st.MustOK(t, s.Mutation(mariam, opResolveFlag, map[string]any{"flagId": f1, "adminUserId": "admin-1", "action": "dismiss"}))
	st.MustOK(t, s.Mutation(sh.admin, opResolveFlag, map[string]any{"flagId": f2, "adminUserId": "admin-1", "action": "dismiss"}))
	st.MustOK(t, s.Mutation(mariam, opVisibility, map[string]any{"reviewId": r2, "adminUserId": "admin-1", "visible": false}))
	names := map[string]string{}
	for _, status := range []string{"dismissed", "resolved"} {
		var p struct {
			Page []struct {
				ID         string `json:"_id"`
				Resolution struct {
					AdminUserID string  `json:"adminUserId"`
					AdminName   *string `json:"adminName"`
				} `json:"resolution"`
			} `json:"page"`
		}
		st.MustOK(t, s.Query(sh.admin, opListFlags, map[string]any{"status": status, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &p)
		for _, f := range p.Page {
			if f.Resolution.AdminUserID != "admin-1" {
				t.Errorf("flag %s resolved by %q", f.ID, f.Resolution.AdminUserID)
			}
			names[f.ID] = nameOr(f.Resolution.AdminName)
		}
	}
	if names[f1] != "Mariam Al Mansoori" || names[f2] != "<omitted>" || names[f3] != "Mariam Al Mansoori" {
		t.Errorf("resolutions named %v (f1 %s, f2 %s, f3 %s)", names, f1, f2, f3)
	}
}

// TestHeldPaymentResolutionNamed: an administrator's resolution of a held
// payment names them beside their id (paymentReview.resolvedByName) to
// administrators; the store's owner and the customer get the id alone.
func TestHeldPaymentResolutionNamed(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	named := sh.orderOf(t, "pi_held_named", sh.storeA, 100)     // paid 1.00 of 87.05: held
	unnamed := sh.orderOf(t, "pi_held_unnamed", sh.storeB, 100) // of the Florist's lines
	st.MustOK(t, s.Mutation(mariam, "stores.orders.updateOrderStatus", map[string]any{"orderId": named, "status": "confirmed"}))
	st.MustOK(t, s.Mutation(sh.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": unnamed, "status": "confirmed"}))
	type review struct {
		ResolvedBy     string  `json:"resolvedBy"`
		ResolvedByName *string `json:"resolvedByName"`
	}
	type order struct {
		ID            string  `json:"_id"`
		PaymentReview *review `json:"paymentReview"`
	}
	resolution := func(who string, o order) review {
		t.Helper()
		if o.PaymentReview == nil {
			t.Fatalf("%s: order %s without its payment review", who, o.ID)
		}
		return *o.PaymentReview
	}
	// Administrators: the order page and the list of every order.
	for _, c := range []struct {
		id, name string
	}{{named, "Mariam Al Mansoori"}, {unnamed, "<omitted>"}} {
		r := resolution("administrator", okAs[order](t, s.Query(sh.admin, opGetOrder, map[string]any{"orderId": c.id})))
		if r.ResolvedBy != "admin-1" || nameOr(r.ResolvedByName) != c.name {
			t.Errorf("administrator's getOrder of %s: resolved by %q named %s, want %s", c.id, r.ResolvedBy, nameOr(r.ResolvedByName), c.name)
		}
	}
	listed := 0
	for _, o := range okAs[struct {
		Page []order `json:"page"`
	}](t, s.Query(sh.admin, opListOrders, map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Page {
		if o.ID == named {
			listed++
			if r := resolution("listOrders", o); nameOr(r.ResolvedByName) != "Mariam Al Mansoori" {
				t.Errorf("listOrders: resolved by name %s", nameOr(r.ResolvedByName))
			}
		}
	}
	if listed != 1 {
		t.Errorf("listOrders holds the resolved order %d times", listed)
	}
	// The store's owner and the customer: the id, never the name.
	res := s.Query(sh.owner, opGetOrder, map[string]any{"orderId": named})
	if r := resolution("owner", okAs[order](t, res)); r.ResolvedBy != "admin-1" || r.ResolvedByName != nil || strings.Contains(string(res.Body), "Mariam") {
		t.Errorf("owner's getOrder: %s", res.Body)
	}
	res = s.Query(sh.owner, opListStoreOrders, map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})
	if st.MustOK(t, res); strings.Contains(string(res.Body), "Mariam") || !strings.Contains(string(res.Body), named) {
		t.Errorf("owner's listStoreOrders: %s", res.Body)
	}
	for _, q := range []struct {
		op   string
		args map[string]any
	}{
		{"customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}},
		{"customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_held_named"}},
	} {
		res := s.Query(sh.user, q.op, q.args)
		if st.MustOK(t, res); strings.Contains(string(res.Body), "Mariam") || strings.Contains(string(res.Body), "resolvedBy") ||
			strings.Contains(string(res.Body), "admin-1") {
			t.Errorf("the customer's %s: %s", q.op, res.Body)
		}
	}
}

// TestReviewModerationNamed: hiding a review (through a flag or
// setReviewVisibility) and showing it again name the administrator on the
// review's moderation (adminName beside adminUserId) to administrators; the
// store's owner, the author and the public never see it.
func TestReviewModerationNamed(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	tokens, _ := makeCustomers(t, s, "flagger", 1)
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	r1 := addReviewOK(t, s, sh.user, map[string]any{"storeId": sh.storeA, "rating": 2, "comment": "Cold bread"})
	r2 := addReviewOK(t, s, sh.user, map[string]any{"storeId": sh.storeB, "rating": 1, "comment": "Wilted"})
	var f struct {
		FlagID string `json:"flagId"`
	}
	st.MustOK(t, s.Mutation(tokens[0], opFlag, map[string]any{"reviewId": r1, "reason": "spam"})).Decode(t, &f)
	type moderation struct {
		Visible     bool    `json:"visible"`
		AdminUserID string  `json:"adminUserId"`
		AdminName   *string `json:"adminName"`
		FlagID      string  `json:"flagId"`
	}
	type detail struct {
		Moderation *moderation `json:"moderation"`
	}
	moderationOf := func(id string) moderation {
		t.Helper()
		d := okAs[detail](t, s.Query(sh.admin, opGetReview, map[string]any{"reviewId": id}))
		if d.Moderation == nil {
			t.Fatalf("review %s: administrators get no moderation", id)
		}
		return *d.Moderation
	}
	want := func(what string, m moderation, visible bool, name, flag string) {
		t.Helper()
		if m.Visible != visible || m.AdminUserID != "admin-1" || nameOr(m.AdminName) != name || m.FlagID != flag {
			t.Errorf("%s: moderation %+v named %s, want visible %v named %s", what, m, nameOr(m.AdminName), visible, name)
		}
	}
	unseen := func(what string, res st.Result) {
		t.Helper()
		if st.MustOK(t, res); strings.Contains(string(res.Body), "Mariam") || strings.Contains(string(res.Body), "adminName") {
			t.Errorf("%s shows the administrator's name: %s", what, res.Body)
		}
	}

	st.MustOK(t, s.Mutation(mariam, opResolveFlag, map[string]any{"flagId": f.FlagID, "adminUserId": "admin-1", "action": "hide_review"}))
	want("hidden through a flag", moderationOf(r1), false, "Mariam Al Mansoori", f.FlagID)
	unseen("the author's getReview of their hidden review", s.Query(sh.user, opGetReview, map[string]any{"reviewId": r1}))
	unseen("the author's getCustomerReviews", s.Query(sh.user, opCustomerReviews, map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}))

	st.MustOK(t, s.Mutation(mariam, opVisibility, map[string]any{"reviewId": r1, "adminUserId": "admin-1", "visible": true}))
	want("shown again", moderationOf(r1), true, "Mariam Al Mansoori", "")
	var flags struct {
		Page []struct {
			ID     string `json:"_id"`
			Review detail `json:"review"`
		} `json:"page"`
	}
	st.MustOK(t, s.Query(sh.admin, opListFlags, map[string]any{"status": "resolved", "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &flags)
	if len(flags.Page) != 1 || flags.Page[0].Review.Moderation == nil {
		t.Fatalf("listFlags: %+v", flags.Page)
	}
	want("listFlags", *flags.Page[0].Review.Moderation, true, "Mariam Al Mansoori", "")
	unseen("the owner's getReview", s.Query(sh.owner, opGetReview, map[string]any{"reviewId": r1}))
	unseen("the public getReview", s.Query("", opGetReview, map[string]any{"reviewId": r1}))
	unseen("the owner's getStoreReviews", s.Query(sh.owner, opStoreReviews, map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}))

	// setReviewVisibility: named when the token names, the id alone otherwise.
	st.MustOK(t, s.Mutation(mariam, opVisibility, map[string]any{"reviewId": r2, "adminUserId": "admin-1", "visible": false}))
	want("hidden", moderationOf(r2), false, "Mariam Al Mansoori", "")
	st.MustOK(t, s.Mutation(sh.admin, opVisibility, map[string]any{"reviewId": r2, "adminUserId": "admin-1", "visible": true}))
	want("shown by an unnamed token", moderationOf(r2), true, "<omitted>", "")
}

type payoutHits struct {
	Payouts []struct {
		ID                   string  `json:"_id"`
		StoreID              string  `json:"storeId"`
		TransactionReference *string `json:"transactionReference"`
		MatchedBy            string  `json:"matchedBy"`
	} `json:"payouts"`
	Partial bool `json:"partial"`
}

func (h payoutHits) ids() map[string]string {
	out := map[string]string{}
	for _, p := range h.Payouts {
		out[p.ID] = p.MatchedBy
	}
	return out
}

// TestSearchPayouts: administrators find payouts by id, its short form (any
// case, with #), any part of a transaction reference, and through stores;
// owners are refused; bad queries and too many stores are INVALID_ARGUMENT.
func TestSearchPayouts(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	other := newStore(t, s, w.admin, "Florist", "owner-1", "", "")
	w.credit(t, w.store, w.wallet, 5000)
	w.credit(t, other, w.getWallet(t, w.owner, other).ID, 5000)
	a := okID(t, w.request(w.owner, w.store, 100))
	b := okID(t, w.request(w.owner, w.store, 200))
	c := okID(t, w.request(w.owner, other, 300))
	st.MustOK(t, w.move(opApprove, b))
	st.MustOK(t, w.move(opProcessing, b, "processingMethod", "bank_transfer", "transactionReference", "ENBD-77812-X"))
	search := func(tok string, args map[string]any) st.Result { return s.Query(tok, opSearchPayouts, args) }
	find := func(args map[string]any) map[string]string {
		t.Helper()
		h := okAs[payoutHits](t, search(w.admin, args))
		if h.Partial {
			t.Errorf("%v: partial with 3 payouts", args)
		}
		return h.ids()
	}
	expect := func(args map[string]any, want map[string]string) {
		t.Helper()
		if got := find(args); !mapsEqual(got, want) {
			t.Errorf("%v: %v, want %v", args, got, want)
		}
	}
	expect(map[string]any{"query": a}, map[string]string{a: "id"})
	expect(map[string]any{"query": "#" + strings.ToUpper(c[len(c)-6:])}, map[string]string{c: "id"})
	expect(map[string]any{"query": " " + b[len(b)-8:] + " "}, map[string]string{b: "id"})
	expect(map[string]any{"query": "enbd-778"}, map[string]string{b: "reference"})
	expect(map[string]any{"query": "no-such-ref"}, map[string]string{})
	expect(map[string]any{"query": "Florist", "storeIds": []string{other}}, map[string]string{c: "store"})
	expect(map[string]any{"query": "x12", "storeIds": []string{w.store, w.store}}, map[string]string{a: "store", b: "store"})

	expectError(t, search(w.owner, map[string]any{"query": a}), "PERMISSION_DENIED")
	for _, q := range []string{"", " ", "a", strings.Repeat("z", 101)} {
		expectError(t, search(w.admin, map[string]any{"query": q}), "INVALID_ARGUMENT")
	}
	many := make([]string, 11)
	for i := range many {
		many[i] = other
	}
	expectError(t, search(w.admin, map[string]any{"query": "xy", "storeIds": many}), "INVALID_ARGUMENT")
	expectError(t, search(w.admin, map[string]any{"query": "xy", "storeIds": []string{"not-a-store"}}), "INVALID_ARGUMENT")
}

// TestSearchReviews: administrators find reviews (hidden ones too) by words
// of the comment or the reviewer's name, at most 20; owners and customers
// are refused; bad queries are INVALID_ARGUMENT.
func TestSearchReviews(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	tokens, _ := makeCustomers(t, s, "Layla Reviewer", 1)
	fresh := addReviewOK(t, s, sh.user, map[string]any{"storeId": sh.storeA, "rating": 5, "comment": "Fresh bread, and on time."})
	arabic := addReviewOK(t, s, sh.user, map[string]any{"storeId": sh.storeB, "rating": 4, "comment": "ورد جميل وطازج"})
	layla := addReviewOK(t, s, tokens[0], map[string]any{"storeId": sh.storeA, "rating": 3, "comment": "Fine."})
	st.MustOK(t, s.Mutation(sh.admin, opVisibility, map[string]any{"reviewId": arabic, "adminUserId": "admin-1", "visible": false}))
	type hits struct {
		Reviews []struct {
			ID        string `json:"_id"`
			StoreName string `json:"storeName"`
			Hidden    bool   `json:"hidden"`
			MatchedBy string `json:"matchedBy"`
		} `json:"reviews"`
		Partial bool `json:"partial"`
	}
	find := func(q string) map[string]string {
		t.Helper()
		h := okAs[hits](t, s.Query(sh.admin, opSearchReviews, map[string]any{"query": q}))
		out := map[string]string{}
		for _, r := range h.Reviews {
			out[r.ID] = r.MatchedBy
		}
		if h.Partial {
			t.Errorf("%q: partial", q)
		}
		return out
	}
	for q, want := range map[string]map[string]string{
		"FRESH time":    {fresh: "comment"},
		"طازج":          {arabic: "comment"},
		"layla":         {layla: "name"},
		"noor":          {fresh: "name", arabic: "name"},
		"stale crumbs":  {},
		"reviewer fine": {},
	} {
		if got := find(q); !mapsEqual(got, want) {
			t.Errorf("%q: %v, want %v", q, got, want)
		}
	}
	expectError(t, s.Query(sh.owner, opSearchReviews, map[string]any{"query": "fresh"}), "PERMISSION_DENIED")
	expectError(t, s.Query(sh.user, opSearchReviews, map[string]any{"query": "fresh"}), "PERMISSION_DENIED")
	for _, q := range []string{"", "x", strings.Repeat("w", 101), "a b c d e f g h i"} {
		expectError(t, s.Query(sh.admin, opSearchReviews, map[string]any{"query": q}), "INVALID_ARGUMENT")
	}
}
