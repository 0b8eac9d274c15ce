package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestMoneyListsInBrowser drives the bulk payout decisions, the saved bank
// account, the movements, the all-payouts screen and the wallets overview
// of issue 32 (web/console/e2e/money2.test.mjs) in Debian's Chromium
// against the whole system: owner-1's Bakery with 1,000 AED available and
// three payouts requested, and 80 AED added to pending of which 30 released
// early by an administrator, after twenty credits of 1 AED (the movements
// fill two pages), and twenty-one payouts of a Florist requested after
// them (the queue's two pages). The browser approves the three together,
// saves a bank account and requests a payout with it, and downloads the
// payouts and wallets CSVs through their buttons, compared with the API's
// lists; the API then confirms what the browser did.
func TestMoneyListsInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	// Twenty small credits first: the movements then fill two pages.
	for range 20 {
		w.credit(t, w.store, w.wallet, 1)
	}
	w.credit(t, w.store, w.wallet, 1000)
	st.MustOK(t, w.adjust(w.store, w.wallet, "add_pending", 80))
	st.MustOK(t, s.Mutation(w.admin, opAdjust, map[string]any{"storeId": w.store, "walletId": w.wallet, "adjustmentType": "move_pending_to_available",
		"amount": 30, "reason": "Released for the journey", "adminUserId": "admin-1"}))
	var ids []string
	for _, amount := range []float64{150, 200, 250} {
		ids = append(ids, okID(t, w.request(w.owner, w.store, amount)))
	}
	// Twenty-one more, of the Florist, after them: the queue (20 a page,
	// oldest first) fills two pages, the three of the Bakery on the first.
	florist := newStore(t, s, w.admin, "Florist", "owner-1", "", "")
	w.credit(t, florist, w.getWallet(t, w.owner, florist).ID, 5000)
	for i := range 21 {
		okID(t, w.request(w.owner, florist, 100+float64(i)))
	}

	webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		"OWNER_TOKEN="+w.owner,
		"ADMIN_TOKEN="+w.admin,
		"STORE_ID="+w.store,
		"IBAN="+validIBAN,
		"PAYOUT_IDS="+strings.Join(ids, ","),
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "money2.test.mjs"))

	// What the browser did, as the API sees it.
	for _, id := range ids {
		if p := w.payout(t, id); p.Status != "approved" || p.ApprovedBy == nil || *p.ApprovedBy != "admin-1" {
			t.Fatalf("payout %s after the bulk approval: %+v", id, p)
		}
	}
	acc := okAs[*bankAccountView](t, s.Query(w.owner, "stores.payouts.getBankAccount", map[string]any{"storeId": w.store}))
	if acc == nil || acc.IBAN != validIBAN || acc.AccountHolderName != "سارة المري" {
		t.Fatalf("the saved account: %+v", acc)
	}
	var page struct {
		Page []payoutView `json:"page"`
	}
	st.MustOK(t, s.Query(w.owner, opListPayouts, map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &page)
	if len(page.Page) != 4 || page.Page[0].RequestedAmount != 120 || page.Page[0].BankDetails.IBAN != validIBAN {
		t.Fatalf("the owner's payouts: %+v", page.Page)
	}
	w.reconciled(t, w.store)
}
