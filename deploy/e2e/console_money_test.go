package e2e

import (
	"encoding/json"
	"math"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestMoneyInBrowser drives the refunds, the debt, the disputes and the
// statement of issue 31 in the portal and the console
// (web/console/e2e/money.test.mjs) in Debian's Chromium, against the whole
// system with its processor simulator: three orders of owner-1's Bakery
// paid through the simulator; their earnings released to available, most of
// it asked as a payout, and a dispute opened on one order, so that the
// dispute's hold leaves the wallet in debt. In the browser the owner refunds
// one loaf of an order (requested until the simulator's held charge.refunded
// is released, then partly refunded), is told why the disputed order cannot
// be refunded, sees the debt and the disputed balance, the dispute with its
// deadline; an administrator refunds all of another order in the console
// (requested, then refunded) and sees the dispute, which the simulator then
// closes won (closed in both lists, live); the owner's statement has every
// change with a running balance equal to the wallet, and its CSV downloads
// with the same rows. axe-core checks every screen and dialog in both
// languages. The API then confirms what the browser did.
func TestMoneyInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	s := st.Start(t)
	c := newCheckout(t, s)
	pay := func() string {
		in := okAs[intentView](t, s.Mutation(c.user, opCreateIntent, c.args(c.storeA, "standard")))
		if r := confirm(t, s, in, processor.CardSucceeds); r.Status != 200 {
			t.Fatalf("confirm: %d %s", r.Status, r.Body)
		}
		eventually(t, "the order", func() bool { return orderOf(t, s, c.user, in.PaymentIntentID) != nil })
		c.fillCart(t)
		return in.PaymentIntentID
	}
	portalIntent, consoleIntent, disputedIntent := pay(), pay(), pay()
	portalOrder, consoleOrder := moneyOf(t, s, c.admin, portalIntent), moneyOf(t, s, c.admin, consoleIntent)
	disputedOrder := moneyOf(t, s, c.admin, disputedIntent)
	// Delivered: a store earns from its deliveries (and may refund them for 14 days).
	for _, id := range []string{portalOrder.ID, consoleOrder.ID, disputedOrder.ID} {
		for _, status := range []string{"preparing", "out_for_delivery", "delivered"} {
			st.MustOK(t, s.Mutation(c.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": id, "status": status}))
		}
	}

	// The refunds' confirmations wait at the simulator until the journeys
	// have seen them requested.
	for _, intent := range []string{portalIntent, consoleIntent} {
		st.MustOK(t, atSimulator(t, s, "/simulator/controls", url.Values{"type": {"refund.*"}, "objectId": {intent}, "action": {"hold"}}))
	}

	// Every earning released, most of it asked as a payout; then a dispute
	// whose hold comes out of what is left: the wallet is in debt.
	w := &payoutsWorld{s: s, admin: c.admin, owner: c.owner}
	var wallet walletView
	eventually(t, "the three earnings", func() bool {
		wallet = w.getWallet(t, c.owner, c.storeA)
		return wallet.TotalOrders == 3
	})
	st.MustOK(t, w.adjust(c.storeA, wallet.ID, "move_pending_to_available", wallet.PendingBalance))
	wallet = w.getWallet(t, c.owner, c.storeA)
	okID(t, w.request(c.owner, c.storeA, math.Floor(wallet.AvailableBalance)-5))
	var opened struct {
		ID string `json:"id"`
	}
	st.MustOK(t, atSimulator(t, s, "/simulator/payment_intents/"+disputedIntent+"/disputes", url.Values{"reason": {"product_not_received"}})).Decode(t, &opened)
	eventually(t, "the wallet in debt", func() bool {
		var v struct {
			AvailableBalance float64 `json:"availableBalance"`
			DisputedBalance  float64 `json:"disputedBalance"`
		}
		st.MustOK(t, s.Query(c.owner, opGetWallet, map[string]any{"storeId": c.storeA})).Decode(t, &v)
		return v.AvailableBalance < 0 && v.DisputedBalance > 0
	})

	webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		"OWNER_TOKEN="+c.owner,
		"ADMIN_TOKEN="+c.admin,
		"STORE_ID="+c.storeA,
		"BREAD="+c.productA1,
		"PORTAL_ORDER="+portalOrder.ID,
		"PORTAL_INTENT="+portalIntent,
		"CONSOLE_ORDER="+consoleOrder.ID,
		"CONSOLE_INTENT="+consoleIntent,
		"DISPUTED_ORDER="+disputedOrder.ID,
		"DISPUTE_ID="+opened.ID,
		"PROCESSOR_URL="+s.ProcessorURL,
		"PROCESSOR_KEY="+s.ProcessorKey,
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "money.test.mjs"))

	// What the browser did, as the API sees it: one loaf (12.35) refunded by
	// the owner, all of the other order by an administrator, nothing of the
	// disputed one, and the dispute won.
	if o := moneyOf(t, s, c.admin, portalIntent); inFils(o.RefundedAmount) != 12_35 || o.RefundStatus != "partially_refunded" ||
		len(o.Refunds) != 1 || o.Refunds[0].Origin != "store" || o.Refunds[0].Status != "succeeded" {
		t.Fatalf("the order the owner refunded: %+v", o)
	}
	if o := moneyOf(t, s, c.admin, consoleIntent); inFils(o.RefundedAmount) != 87_05 || o.RefundStatus != "refunded" ||
		len(o.Refunds) != 1 || o.Refunds[0].Origin != "admin" || o.Refunds[0].Status != "succeeded" {
		t.Fatalf("the order the administrator refunded: %+v", o)
	}
	if o := moneyOf(t, s, c.admin, disputedIntent); o.RefundedAmount != 0 || len(o.Refunds) != 0 {
		t.Fatalf("the disputed order: %+v", o)
	}
	if won := disputesOf(t, s, c.admin, "admins.disputes.listDisputes", map[string]any{"status": "won"}); len(won) != 1 || won[0].DisputeID != opened.ID {
		t.Fatalf("disputes won: %+v", won)
	}
	var statement struct {
		ClosingBalance float64           `json:"closingBalance"`
		Entries        []json.RawMessage `json:"entries"`
	}
	st.MustOK(t, s.Query(c.owner, "stores.wallet.getStatement", map[string]any{"storeId": c.storeA, "from": time.Now().Add(-24 * time.Hour).UnixMilli(), "to": time.Now().Add(time.Hour).UnixMilli()})).Decode(t, &statement)
	var v struct {
		AvailableBalance, PendingBalance, DisputedBalance float64
	}
	st.MustOK(t, s.Query(c.owner, opGetWallet, map[string]any{"storeId": c.storeA})).Decode(t, &v)
	if inFils(statement.ClosingBalance) != inFils(v.AvailableBalance+v.PendingBalance+v.DisputedBalance) {
		t.Fatalf("statement closing %v, wallet %+v", statement.ClosingBalance, v)
	}
}
