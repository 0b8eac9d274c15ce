package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestConsoleAdminInBrowser drives the administrators' screens of the
// console (web/console/e2e/admin.test.mjs) in Debian's Chromium against the
// whole system started in-process: journey 2 of issue 20 (a customer flags
// a review with photos through the API, it appears in the moderation queue
// without a reload, the administrator hides it, and it leaves the store's
// reviews in the owner's portal, open in a second browser context), journey
// 3 (a held payment confirmed; the order appears in the portal's orders; one
// whose payment found no items offers only cancelling, and is cancelled),
// journey 4 (the commission preview on screen equals
// getCommissionPreview for the same figures, before and after a change of
// the defaults, and a refusal next to its field), a wallet adjusted with a
// reason (a refusal left in place, reconciliation consistent), the payout
// statistics' charts, the catalog (a city, its area, a store created,
// placed and handed over; a duplicate refused in its form) and the
// administrators' inbox (high priority marked, read, opening its screen). axe-core checks every screen in both languages. This
// test then confirms each outcome through the API.
func TestConsoleAdminInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	s := st.Start(t)
	rs := newReviewShop(t, s) // admin-1; owner-1's Bakery and Florist; user-1 (Noor) with a confirmed order of Bakery
	rs.deliverOrder(t, rs.orderA)

	// Older reviews of the Bakery (more than a page of the portal's 20), and
	// 24 reports of the first, dismissed: more than a page of the inbox's
	// review notices and of the moderation decisions (ADR 0172).
	readers, _ := makeCustomers(t, s, "reader", 25)
	var older []string
	for i := range 21 {
		older = append(older, addReviewOK(t, s, readers[i], reviewArgs(rs.storeA, 2+i%4, "comment", fmt.Sprintf("Older review %d", i+1))))
	}
	for _, r := range st.Concurrently(24, func(i int) st.Result {
		return s.Mutation(readers[i+1], opFlag, map[string]any{"reviewId": older[0], "reason": "irrelevant"})
	}) {
		var f struct {
			FlagID string `json:"flagId"`
		}
		st.MustOK(t, r).Decode(t, &f)
		st.MustOK(t, s.Mutation(rs.admin, opResolveFlag, map[string]any{"flagId": f.FlagID, "adminUserId": "admin-1", "action": "dismiss"}))
	}
	// A review of the Bakery with two photos, to be flagged in the journey.
	imgs := tinyImages(t)
	photos := []string{storageID(t, upload(s, rs.user, "image/png", imgs["image/png"])), storageID(t, upload(s, rs.user, "image/jpeg", imgs["image/jpeg"]))}
	review := addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 1, "title", "Stale bread", "comment", "The bread was stale and the box was crushed.", "photoIds", photos))
	flagger, _ := makeCustomers(t, s, "flagger", 1)

	// A held payment: the customer's Florist lines (2 × 99.99 + 10.00) paid 10.00.
	held := processor.Payment{
		IntentID: "pi_console_held", AmountFils: 1000, CustomerID: rs.customer, StoreID: rs.storeB,
		Address:      processor.Address{FullAddress: "Villa 7, Street 3", City: "Dubai", Area: "Jumeirah", PhoneNumber: "+971501111111"},
		DeliveryType: "standard", DeliveryFee: "10.00",
	}
	if r := deliver(s, processor.Event("evt_console_held", "payment_intent.succeeded", held)); r.Status != 200 {
		t.Fatalf("held payment: %d %s", r.Status, r.Body)
	}
	heldOrder := orderOf(t, s, rs.user, "pi_console_held")
	if heldOrder.PaymentStatus != "under_review" {
		t.Fatalf("the order is not held: %+v", heldOrder)
	}
	// A second payment of the same lines finds none left: held, nothing to deliver.
	held.IntentID = "pi_console_empty"
	if r := deliver(s, processor.Event("evt_console_empty", "payment_intent.succeeded", held)); r.Status != 200 {
		t.Fatalf("a payment without items: %d %s", r.Status, r.Body)
	}
	emptyOrder := orderOf(t, s, rs.user, "pi_console_empty")
	if emptyOrder.PaymentReview == nil || emptyOrder.PaymentReview.Reason != "cart_empty" {
		t.Fatalf("the order without items: %+v", emptyOrder)
	}

	// Completed payouts of both stores, for the statistics.
	w := &payoutsWorld{s: s, admin: rs.admin, owner: rs.owner}
	for i, store := range []string{rs.storeA, rs.storeB} {
		wallet := w.getWallet(t, w.owner, store).ID
		w.credit(t, store, wallet, 1000)
		w.pay(t, okID(t, w.request(w.owner, store, 300+100*i)))
	}
	okID(t, w.request(w.owner, rs.storeA, 150)) // one open

	walletA := w.getWallet(t, w.owner, rs.storeA)
	out := webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		// The same administrator, named by the token's name claim (ADR 0166).
		"ADMIN_TOKEN="+s.NamedToken("admin-1", "Mariam Al Mansoori", "admin"),
		"OWNER_TOKEN="+rs.owner,
		"FLAGGER_TOKEN="+flagger[0],
		"REVIEW_ID="+review,
		"STORE_ID="+rs.storeA,
		"HELD_ORDER="+heldOrder.ID,
		"EMPTY_ORDER="+emptyOrder.ID,
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "admin.test.mjs"))

	// Journey 2: the review is hidden, its flag resolved, and the store's list leaves it out.
	for _, r := range allReviews(t, s, rs.owner, rs.storeA, nil) {
		if r.ID == review {
			t.Fatalf("the hidden review is still listed: %+v", r)
		}
	}
	flags := listFlags(t, s, rs.admin, "resolved")
	if len(flags) != 1 || flags[0].ReviewID != review {
		t.Fatalf("resolved flags: %+v", flags)
	}
	// Journey 3: the held order is confirmed and paid, and the store lists it.
	if o := orderOf(t, s, rs.admin, "pi_console_held"); o.Status != "confirmed" || o.PaymentStatus != "paid" || o.PaymentReview == nil || o.PaymentReview.ResolvedBy != "admin-1" {
		t.Fatalf("the held order after the journey: %+v", o)
	}
	if o := orderOf(t, s, rs.admin, "pi_console_empty"); o.Status != "cancelled" || o.PaymentStatus != "under_review" || o.PaymentReview.ResolvedBy != "admin-1" {
		t.Fatalf("the order without items after the journey: %+v", o)
	}
	var orders struct {
		Page []orderView `json:"page"`
	}
	st.MustOK(t, s.Query(rs.owner, "stores.orders.listStoreOrders", map[string]any{"storeId": rs.storeB, "paginationOpts": map[string]any{"numItems": 50, "cursor": nil}})).Decode(t, &orders)
	if len(orders.Page) != 1 || orders.Page[0].ID != heldOrder.ID {
		t.Fatalf("the Florist's orders: %+v", orders.Page)
	}
	// Journey 4: the defaults saved on screen are in force.
	if c := mustActive(t, s, rs.admin); c.MaximumCommission != 80 || c.MinimumCommission != 1 {
		t.Fatalf("the defaults after the journey: %+v", c)
	}
	// The adjustment: 25.50 more, with its reason, and nothing from the refused one.
	m := regexp.MustCompile(`ADJUSTED (\S+)`).FindStringSubmatch(out)
	if m == nil || m[1] != "25.50" {
		t.Fatalf("the journey adjusted no wallet: %q", m)
	}
	if after := w.getWallet(t, w.owner, rs.storeA); after.AvailableBalance != walletA.AvailableBalance+25.5 {
		t.Fatalf("available %v after adjusting %v by 25.50", after.AvailableBalance, walletA.AvailableBalance)
	}
	if r := w.reconciled(t, rs.storeA); !r.Consistent {
		t.Fatalf("reconciliation after the journey: %+v", r)
	}
	// The catalog: the store created, placed in Sharjah's Al Majaz, premium, handed over to owner-3.
	m = regexp.MustCompile(`STORE (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("the journey named no store")
	}
	store := okAs[map[string]any](t, s.Query("", "stores.catalog.getStore", map[string]any{"storeId": m[1]}))
	cities := okAs[[]map[string]any](t, s.Query("", "catalog.locations.listCities", map[string]any{}))
	if len(cities) != 1 || cities[0]["name"] != "Sharjah" || cities[0]["nameArabic"] != "الشارقة" {
		t.Fatalf("cities: %v", cities)
	}
	areas := okAs[[]map[string]any](t, s.Query("", "catalog.locations.listAreas", map[string]any{"city": cities[0]["_id"]}))
	if len(areas) != 1 || areas[0]["name"] != "Al Majaz" {
		t.Fatalf("areas: %v", areas)
	}
	if store["name"] != "Corniche Cafe" || store["ownerUserId"] != "owner-3" || store["tier"] != "premium" ||
		store["city"] != cities[0]["_id"] || store["area"] != areas[0]["_id"] {
		t.Fatalf("the store after the journey: %v", store)
	}
	// The inbox: the notice marked read.
	m = regexp.MustCompile(`READ (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("the journey marked no notice read")
	}
	read := false
	for _, n := range inbox(t, s, rs.admin) {
		read = read || n.ID == m[1] && n.Read && n.Type == "payment_review"
	}
	if !read {
		t.Fatalf("notice %s is not a payment_review marked read", m[1])
	}
}
