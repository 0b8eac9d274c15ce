package e2e

import (
	"math"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

type walletItem struct {
	walletView
	DisputedBalance float64 `json:"disputedBalance"`
	Debt            float64 `json:"debt"`
	StoreName       string  `json:"storeName"`
	OwnerUserID     string  `json:"ownerUserId"`
	UpdatedAt       int64   `json:"updatedAt"`
}

type walletTotals struct {
	Wallets          int     `json:"wallets"`
	AvailableBalance float64 `json:"availableBalance"`
	PendingBalance   float64 `json:"pendingBalance"`
	DisputedBalance  float64 `json:"disputedBalance"`
	Debt             float64 `json:"debt"`
	InDebt           int     `json:"inDebt"`
	TotalEarnings    float64 `json:"totalEarnings"`
	TotalPayouts     float64 `json:"totalPayouts"`
}

func allWallets(t *testing.T, s *st.Sys, token string, args map[string]any) []walletItem {
	t.Helper()
	return everyPage[walletItem](t, s, token, "admins.payoutOperations.listWallets", args)
}

// TestWalletsOverview: every store's wallet, with its store's name, paged
// and sorted by each balance both ways and by last change; inDebt lists
// the wallet below zero only; the totals equal the sums of getWallet over
// the stores; administrators only.
func TestWalletsOverview(t *testing.T) {
	clock := newTestClock(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	s := st.Start(t, st.WithClock(clock.Now))
	w := newPayoutsWorld(t, s, true)
	stores := []string{w.store, newStore(t, s, w.admin, "Florist", "owner-1", "", ""), newStore(t, s, w.admin, "Grocer", "owner-1", "", "")}
	wallet := func(i int) string { return w.getWallet(t, w.owner, stores[i]).ID }
	w.credit(t, stores[0], wallet(0), 300)
	clock.Advance(time.Minute)
	st.MustOK(t, w.adjust(stores[1], wallet(1), "add_pending", 50))
	w.credit(t, stores[1], wallet(1), 20)
	clock.Advance(time.Minute)
	w.credit(t, stores[2], wallet(2), 100)
	st.MustOK(t, w.adjust(stores[2], wallet(2), "add_pending", 80))
	okID(t, w.request(w.owner, stores[2], 100))
	clock.Advance(time.Minute)
	// No wallet below zero here (TestWalletsOverviewInDebt makes one).
	order := func(sort string) []string {
		var out []string
		for _, it := range allWallets(t, s, w.admin, map[string]any{"sort": sort}) {
			out = append(out, it.StoreName)
		}
		return out
	}
	for sort, want := range map[string][]string{
		"available_desc": {"Bakery", "Florist", "Grocer"}, "available_asc": {"Grocer", "Florist", "Bakery"},
		"pending_desc": {"Grocer", "Florist", "Bakery"}, "updated_desc": {"Grocer", "Florist", "Bakery"}, "updated_asc": {"Bakery", "Florist", "Grocer"},
	} {
		if got := order(sort); len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
			t.Fatalf("%s: %v, want %v", sort, got, want)
		}
	}
	if got := allWallets(t, s, w.admin, map[string]any{"inDebt": true, "sort": "available_asc"}); len(got) != 0 {
		t.Fatalf("in debt %+v", got)
	}
	expectReason(t, s.Query(w.admin, "admins.payoutOperations.listWallets", map[string]any{"paginationOpts": map[string]any{"numItems": 2}, "inDebt": true, "sort": "pending_desc"}),
		"INVALID_ARGUMENT", "sort_with_in_debt")
	all := allWallets(t, s, w.admin, nil)
	totals := okAs[walletTotals](t, s.Query(w.admin, "admins.payoutOperations.getWalletTotals", nil))
	var sum walletTotals
	for i := range stores {
		g := w.getWallet(t, w.admin, stores[i])
		sum.AvailableBalance += g.AvailableBalance
		sum.PendingBalance += g.PendingBalance
		sum.TotalEarnings += g.TotalEarnings
		sum.TotalPayouts += g.TotalPayouts
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.001 }
	if totals.Wallets != 3 || len(all) != 3 || !near(totals.AvailableBalance, sum.AvailableBalance) || !near(totals.PendingBalance, sum.PendingBalance) ||
		!near(totals.TotalEarnings, sum.TotalEarnings) || !near(totals.TotalPayouts, sum.TotalPayouts) || totals.AvailableBalance != 320 || totals.PendingBalance != 130 {
		t.Fatalf("totals %+v, sums of getWallet %+v", totals, sum)
	}
	expectError(t, s.Query(w.owner, "admins.payoutOperations.getWalletTotals", nil), "PERMISSION_DENIED")
	expectError(t, s.Query(w.owner, "admins.payoutOperations.listWallets", map[string]any{"paginationOpts": map[string]any{"numItems": 2}}), "PERMISSION_DENIED")
}

// TestWalletsOverviewInDebt: a wallet made negative by a refund after its
// earning was released and spent is the one inDebt lists, with its debt,
// and the totals count it.
func TestWalletsOverviewInDebt(t *testing.T) {
	m, intent := newMoneyWorld(t)
	m.deliverAndRelease(t, intent)
	m.until(t, "the earning released", func(w moneyWallet) bool { return inFils(w.AvailableBalance) == 80_70 })
	st.MustOK(t, m.w.adjust(m.w.store, m.w.wallet, "deduct_balance", 70.7))
	o := moneyOf(t, m.s, m.w.admin, intent)
	st.MustOK(t, m.s.Mutation(m.w.admin, "admins.orders.refundOrder", map[string]any{"orderId": o.ID, "reason": "never arrived"}))
	got := m.until(t, "the refund reversed", func(w moneyWallet) bool { return w.AvailableBalance < 0 })
	debt := allWallets(t, m.s, m.w.admin, map[string]any{"inDebt": true, "sort": "available_asc"})
	if len(debt) != 1 || debt[0].StoreID != m.w.store || debt[0].Debt != got.Debt || debt[0].AvailableBalance != got.AvailableBalance {
		t.Fatalf("in debt %+v, wallet %+v", debt, got)
	}
	totals := okAs[walletTotals](t, m.s.Query(m.w.admin, "admins.payoutOperations.getWalletTotals", nil))
	if totals.InDebt != 1 || totals.Debt != got.Debt {
		t.Fatalf("totals %+v, wallet %+v", totals, got)
	}
}
