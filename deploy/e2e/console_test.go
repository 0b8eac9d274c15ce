package e2e

import (
	"path/filepath"
	"regexp"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/auth"
	"marketplace/web/webtest"
)

// TestConsoleInBrowser drives the admin console and the store portal, as
// the gateway serves them from the binary, in Debian's Chromium with
// playwright-core (web/console/e2e/console.test.mjs, the packages pinned in
// web/console/package-lock.json and installed by the test): signing in and
// the refusals of the token screen, the screens a role may not use, and
// journey 1 of issue 20 across two browser contexts (an owner requests a
// payout, it appears in the console's queue without a reload, the
// administrator approves, marks it processing and completes it while the
// owner's portal shows each status), and a session that expires while a form
// is being filled, signed in again over the screen with the form intact.
// axe-core checks every screen, and the
// screenshots go where webtest.Screenshots says (docs/console/ with
// UPDATE_SCREENSHOTS=1 or for a picture missing there). Skipped, loudly, without node 20.19+ (failed in CI: webtest.Node); Chromium
// is installed when missing and the test runs as root (webtest.Chromium).
func TestConsoleInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	s := st.Start(t)
	initConfig(t, s)
	w := &payoutsWorld{s: s, admin: s.Token("admin-1", "admin"), owner: s.Token("owner-1")}
	w.store = okID(t, s.Mutation(w.admin, "admins.catalog.createStore", map[string]any{
		"name": "Al Noor Bakery", "ownerUserId": "owner-1", "ownerName": "Sara Al Marri", "ownerPhone": "+971501234567",
	}))
	w.wallet = w.getWallet(t, w.owner, w.store).ID
	w.credit(t, w.store, w.wallet, 500)
	expired, err := auth.Mint([]byte(s.DevSecret), "admin-1", []string{"admin"}, -time.Hour, auth.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"CHROMIUM="+chromium,
		"ADMIN_TOKEN="+w.admin,
		"OWNER_TOKEN="+w.owner,
		"USER_TOKEN="+s.Token("user-1"),
		"EXPIRED_TOKEN="+expired,
		"STORE_ID="+w.store,
		"IBAN="+validIBAN,
		"DEV_SECRET="+s.DevSecret,
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "console.test.mjs"))

	// What the browser did, as the API sees it.
	m := regexp.MustCompile(`PAYOUT (pay_[0-9a-f]+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatal("the journey named no payout")
	}
	var page struct {
		Page []struct {
			ID                   string  `json:"_id"`
			Status               string  `json:"status"`
			RequestedAmount      float64 `json:"requestedAmount"`
			ProcessingMethod     string  `json:"processingMethod"`
			TransactionReference string  `json:"transactionReference"`
			ApprovedBy           string  `json:"approvedBy"`
		} `json:"page"`
	}
	st.MustOK(t, s.Query(w.owner, opListPayouts, map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &page)
	// The journey's payout, completed; the one requested after signing in again, open.
	if len(page.Page) != 2 {
		t.Fatalf("payouts: %+v", page.Page)
	}
	p, again := page.Page[1], page.Page[0] // newest first
	if p.ID != m[1] || p.Status != "completed" || p.RequestedAmount != 250 || p.ProcessingMethod != "bank_transfer" || p.TransactionReference != "TRX-2026-0001" || p.ApprovedBy != "admin-1" {
		t.Fatalf("the payout after the journey: %+v", p)
	}
	if again.Status != "requested" || again.RequestedAmount != 150 {
		t.Fatalf("the payout requested after signing in again: %+v", again)
	}
	if wallet := w.getWallet(t, w.owner, w.store); wallet.AvailableBalance != 100 || wallet.TotalPayouts != 250 {
		t.Fatalf("the wallet after the journey: %+v", wallet)
	}
}
