package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestFindInBrowser drives finding an order and its page (issue 32, items 1
// to 3; web/console/e2e/find.test.mjs) in Debian's Chromium against the
// whole system: owner-1's Bakery has three orders of Noor Hassan delivered
// to catalog places (Jumeirah, Dubai / دبي), one moved on by the store. In
// the browser an administrator types the order's number in the header's
// search, gets that one order, opens its page and reads the customer, the
// address by name, the items, the commission and the timeline with who
// moved it; the owner reaches the same page from the portal's orders; the
// administrator's orders CSV of today downloads and holds exactly the
// orders listOrders answers for the same period. Every page visited is
// checked by axe-core, at 1280 and 390 px wide, in English and Arabic.
func TestFindInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	s := st.Start(t)
	sh := newShop(t, s)
	st.MustOK(t, s.Mutation(sh.user, "customers.profile.upsertMyProfile", map[string]any{"name": "Noor Hassan", "phone": "+971501111111"}))
	city := newCity(t, s, sh.admin, "Dubai", "دبي")
	area := newArea(t, s, sh.admin, "Jumeirah", city)
	pay := func(intent string, fils int64) string {
		p := sh.payment(intent)
		p.Address.City, p.Address.Area, p.AmountFils = city, area, fils
		if r := deliver(s, processor.Event("evt_"+intent, "payment_intent.succeeded", p)); r.Status != 200 {
			t.Fatalf("webhook %s: %d %s", intent, r.Status, r.Body)
		}
		return okAs[foundOrder](t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent})).ID
	}
	first := pay("pi_find_1", 8705) // the shop's cart: Bread x3, Cake, the fee
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 2}))
	order := pay("pi_find_2", 2*1235+1000)
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA2, "quantity": 1}))
	third := pay("pi_find_3", 4000+1000)
	// The owner moves it with a token that states a name: the timeline names them.
	ownerNamed := s.NamedToken("owner-1", "Sara Al Marri")
	st.MustOK(t, s.Mutation(ownerNamed, "stores.orders.updateOrderStatus", map[string]any{"orderId": order, "status": "preparing"}))
	// A payout to find by its reference and number, approved by a named
	// administrator; a review to find by its words.
	w := &payoutsWorld{s: s, admin: sh.admin, owner: sh.owner, store: sh.storeA}
	w.wallet = w.getWallet(t, sh.owner, sh.storeA).ID
	w.credit(t, w.store, w.wallet, 900)
	payout := okID(t, w.request(sh.owner, sh.storeA, 250))
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	st.MustOK(t, s.Mutation(mariam, opApprove, map[string]any{"payoutId": payout, "adminUserId": "admin-1"}))
	st.MustOK(t, s.Mutation(mariam, opProcessing, map[string]any{"payoutId": payout, "adminUserId": "admin-1", "processingMethod": "bank_transfer", "transactionReference": "ENBD-55510"}))
	review := addReviewOK(t, s, sh.user, map[string]any{"storeId": sh.storeA, "rating": 5, "comment": "Crusty sourdough, still warm at the door."})
	o := okAs[foundOrder](t, s.Query(sh.admin, opGetOrder, map[string]any{"orderId": order}))
	if o.CustomerName != "Noor Hassan" || o.DeliveryAddress.AreaName != "Jumeirah" || o.PlatformCommission == nil {
		t.Fatalf("the order to find: %+v", o)
	}

	webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		"OWNER_TOKEN="+sh.owner,
		"ADMIN_TOKEN="+sh.admin,
		"STORE_ID="+sh.storeA,
		"ORDER_ID="+order,
		"ORDER_NUMBER="+o.Number,
		"ORDER_COMMISSION="+strconv.FormatFloat(*o.PlatformCommission, 'f', 2, 64),
		"OTHER_ORDERS="+strings.Join([]string{first, third}, ","),
		"PAYOUT_ID="+payout,
		"REVIEW_ID="+review,
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "find.test.mjs"))
}
