package e2e

import (
	"path/filepath"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestRightToLeftInBrowser (issue 32, journey R1): mixed-direction text reads
// right in the portal (web/console/e2e/rtl.test.mjs). Two customers review an
// Arabic-named store: "نور حسن" in English ("Fresh, and on time.") and "Noor
// Hassan" in Arabic. In Arabic and in English, at 1280 and 390 px, each
// author's name is isolated (<bdi>) and placed where its place in the DOM
// says (name, "·", date: measured on the boxes the browser drew, right to
// left in Arabic), each comment takes its own direction (dir="auto",
// computed), nothing scrolls sideways, axe finds nothing, and the Arabic
// screens are photographed (rtl-review-ar, rtl-review-ar-390).
func TestRightToLeftInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	s := st.Start(t)
	initConfig(t, s)
	admin, owner := s.Token("admin-1", "admin"), s.Token("owner-1")
	city := newCity(t, s, admin, "Dubai", "دبي")
	area := newArea(t, s, admin, "Jumeirah", city)
	store := okID(t, s.Mutation(admin, "admins.catalog.createStore", map[string]any{
		"name": "مخبز النور", "ownerUserId": "owner-1", "ownerName": "Sara Al Marri", "ownerPhone": "+971501234567",
		"city": city, "area": area,
	}))
	bread := okID(t, s.Mutation(owner, "stores.products.createProduct", map[string]any{"storeId": store, "name": "خبز التنور", "price": 12.5}))
	review := func(sub, name, intent, comment string) string {
		tok := s.Token(sub)
		cus := okID(t, s.Mutation(tok, "customers.profile.upsertMyProfile", map[string]any{"name": name, "phone": "+971501111111"}))
		okID(t, s.Mutation(tok, "customers.cart.addItem", map[string]any{"productId": bread, "quantity": 1}))
		body := processor.Event("evt_"+intent, "payment_intent.succeeded", processor.Payment{
			IntentID: intent, AmountFils: 2250, CustomerID: cus, StoreID: store,
			Address:      processor.Address{FullAddress: "Villa 7", City: "Dubai", Area: "Jumeirah", PhoneNumber: "+971501111111"},
			DeliveryType: "standard", DeliveryFee: "10.00",
		})
		if r := deliver(s, body); r.Status != 200 {
			t.Fatalf("order %s: %d %s", intent, r.Status, r.Body)
		}
		return addReviewOK(t, s, tok, reviewArgs(store, 5, "comment", comment))
	}
	arabicName := review("user-1", "نور حسن", "pi_rtl_1", "Fresh, and on time.")
	latinName := review("user-2", "Noor Hassan", "pi_rtl_2", "خبز طازج، ووصل في الوقت.")

	webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		"OWNER_TOKEN="+owner,
		"REVIEW_ARABIC_NAME="+arabicName,
		"REVIEW_LATIN_NAME="+latinName,
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "rtl.test.mjs"))
}
