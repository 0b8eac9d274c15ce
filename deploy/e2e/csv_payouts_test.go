package e2e

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// csvRows GETs path with token ("" for none) and parses the CSV; a refusal
// is returned as its status with no rows.
func csvRows(t *testing.T, s *st.Sys, token, path string) (int, [][]string, st.Result) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	r := s.Do("GET", path, nil, h)
	if r.Status != 200 {
		return r.Status, nil, r
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Fatalf("%s: Content-Type %q", path, ct)
	}
	rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, r.Body)
	}
	return r.Status, rows, r
}

// TestPayoutsCSV: the store's and the administrators' payouts CSV have the
// rows of admins.payoutOperations.listPayouts for the same filters, in its
// order; the wallets CSV the rows of listWallets, summing to
// getWalletTotals; anonymous callers 401, another owner or an owner on an
// administrators' route 403, 367 days 400, more rows than the cap (lowered
// to 4 here) FAILED_PRECONDITION too_many_rows, before any byte; a reason
// that would be a formula is quoted.
func TestPayoutsCSV(t *testing.T) {
	s := st.Start(t, st.WithEnv("PAYOUTS_CSV_MAX_ROWS", "4"))
	w := newPayoutsWorld(t, s, true)
	other := newStore(t, s, w.admin, "Florist", "owner-2", "", "")
	owner2 := s.Token("owner-2")
	otherWallet := w.getWallet(t, owner2, other).ID
	w.credit(t, w.store, w.wallet, 5000)
	w.credit(t, other, otherWallet, 1000)
	from := time.Now().Add(-time.Minute).UnixMilli()
	var mine []string
	for _, amount := range []float64{100, 250, 300, 120} {
		mine = append(mine, okID(t, w.request(w.owner, w.store, amount)))
	}
	theirs := okID(t, w.request(owner2, other, 400))
	st.MustOK(t, w.move(opReject, mine[1], "rejectionReason", "=1+2"))
	to := time.Now().Add(time.Minute).UnixMilli()
	period := fmt.Sprintf("from=%d&to=%d", from, to)

	listed := func(args map[string]any) []string {
		args["from"], args["to"] = from, to
		return allPayouts(t, s, w.admin, args)
	}
	idsOf := func(rows [][]string) []string {
		var out []string
		for _, r := range rows[1:] {
			out = append(out, r[0])
		}
		return out
	}
	same := func(what string, got, want []string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(want) || len(want) == 0 {
			t.Fatalf("%s: CSV %v, list %v", what, got, want)
		}
	}
	// The owner's store: 4 rows, as the list.
	status, rows, r := csvRows(t, s, w.owner, fmt.Sprintf("/api/stores/%s/payouts.csv?%s", w.store, period))
	if status != 200 || rows[0][0] != "payoutId" || len(rows) != 5 {
		t.Fatalf("store CSV: %d %s", status, r.Body)
	}
	same("store CSV", idsOf(rows), listed(map[string]any{"storeId": w.store}))
	for _, row := range rows[1:] {
		if row[0] == mine[1] && (row[4] != "cancelled" || row[14] != "'=1+2") {
			t.Fatalf("the rejected payout's row %v", row)
		}
		if row[0] == mine[2] && (row[5] != "300.00" || row[7] != "298.00" || row[8] != validIBAN) {
			t.Fatalf("row %v", row)
		}
	}
	_, rows, _ = csvRows(t, s, w.admin, fmt.Sprintf("/api/stores/%s/payouts.csv?%s&status=requested", w.store, period))
	same("store CSV, requested", idsOf(rows), listed(map[string]any{"storeId": w.store, "status": "requested"}))
	_, rows, _ = csvRows(t, s, w.admin, fmt.Sprintf("/api/admin/payouts.csv?%s&storeId=%s", period, other))
	same("admin CSV, one store", idsOf(rows), []string{theirs})
	_, rows, _ = csvRows(t, s, w.admin, fmt.Sprintf("/api/admin/payouts.csv?%s&status=requested", period))
	same("admin CSV, requested", idsOf(rows), listed(map[string]any{"status": "requested"}))

	// Refusals, each before the first byte.
	expectCSVRefusal := func(what, token, path string, status int, code string) {
		t.Helper()
		got, _, r := csvRows(t, s, token, path)
		if got != status || (code != "" && r.Code() != code) {
			t.Fatalf("%s: %d %s", what, got, r.Body)
		}
	}
	expectCSVRefusal("all five, over the cap of 4", w.admin, "/api/admin/payouts.csv?"+period, 409, "FAILED_PRECONDITION")
	expectReason(t, s.Do("GET", "/api/admin/payouts.csv?"+period, nil, map[string]string{"Authorization": "Bearer " + w.admin}), "FAILED_PRECONDITION", "too_many_rows")
	expectCSVRefusal("anonymous", "", fmt.Sprintf("/api/stores/%s/payouts.csv?%s", w.store, period), 401, "")
	expectCSVRefusal("anonymous admin route", "", "/api/admin/wallets.csv", 401, "")
	expectCSVRefusal("another owner", owner2, fmt.Sprintf("/api/stores/%s/payouts.csv?%s", w.store, period), 403, "")
	expectCSVRefusal("an owner on the admin payouts", w.owner, "/api/admin/payouts.csv?"+period, 403, "")
	expectCSVRefusal("an owner on the admin wallets", w.owner, "/api/admin/wallets.csv", 403, "")
	expectCSVRefusal("367 days", w.owner, fmt.Sprintf("/api/stores/%s/payouts.csv?from=%d&to=%d", w.store, from, from+367*24*time.Hour.Milliseconds()), 400, "INVALID_ARGUMENT")
	expectCSVRefusal("no period", w.owner, fmt.Sprintf("/api/stores/%s/payouts.csv", w.store), 400, "INVALID_ARGUMENT")
	expectCSVRefusal("a bad status", w.admin, "/api/admin/payouts.csv?"+period+"&status=paid", 400, "INVALID_ARGUMENT")

	// Wallets: the list's items in the order of their ids (a balance that
	// moves during the export moves no row), summing to the totals.
	_, rows, r = csvRows(t, s, w.admin, "/api/admin/wallets.csv")
	items := allWallets(t, s, w.admin, map[string]any{"sort": "available_desc"})
	totals := okAs[walletTotals](t, s.Query(w.admin, "admins.payoutOperations.getWalletTotals", nil))
	if len(rows) != len(items)+1 || rows[0][0] != "walletId" {
		t.Fatalf("wallets CSV %v (list %+v)", rows, items)
	}
	slices.SortFunc(items, func(a, b walletItem) int { return strings.Compare(a.ID, b.ID) })
	var available, pending float64
	for i, it := range items {
		row := rows[i+1]
		if row[0] != it.ID || row[2] != it.StoreName || row[4] != strconv.FormatFloat(it.AvailableBalance, 'f', 2, 64) {
			t.Fatalf("row %v, item %+v", row, it)
		}
		a, _ := strconv.ParseFloat(row[4], 64)
		p, _ := strconv.ParseFloat(row[5], 64)
		available, pending = available+a, pending+p
	}
	if fmt.Sprintf("%.2f %.2f", available, pending) != fmt.Sprintf("%.2f %.2f", totals.AvailableBalance, totals.PendingBalance) {
		t.Fatalf("CSV sums %.2f %.2f, totals %+v", available, pending, totals)
	}
}
