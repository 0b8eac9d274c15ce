package e2e

import (
	"path/filepath"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestPhonesInBrowser drives web/console/e2e/phones.test.mjs in Debian's
// Chromium (ADR 0158): every screen of the console and of the portal
// (src/app/areas.ts) at 390 px, in English and in Arabic, without sideways
// scroll, axe-clean, with Sign out reachable through the Account menu and
// the navigation drawer closing once a screen is chosen; the skip link as
// the first Tab stop, focusing the content; and every screen again at 1280
// px in a dark system, axe-clean. The owner's store has one paid, delivered
// order, so lists show a row as a card; on both Orders lists that card, the
// period, the status and the sort are checked at 390 px in both languages.
func TestPhonesInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	s := st.Start(t)
	c := newCheckout(t, s)
	in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
	if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 200 {
		t.Fatalf("confirm: %d %s", r.Status, r.Body)
	}
	eventually(t, "the order", func() bool { return orderOf(t, s, c.user, in.PaymentIntentID) != nil })
	order := moneyOf(t, s, c.admin, in.PaymentIntentID)
	for _, status := range []string{"preparing", "out_for_delivery", "delivered"} {
		st.MustOK(t, s.Mutation(c.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": order.ID, "status": status}))
	}
	webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		"OWNER_TOKEN="+c.owner,
		"ADMIN_TOKEN="+c.admin,
		"STORE_ID="+c.storeA,
		"ORDER_ID="+order.ID,
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "phones.test.mjs"))
}
