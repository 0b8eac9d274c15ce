package e2e

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

type statementView struct {
	OpeningBalance float64 `json:"openingBalance"`
	ClosingBalance float64 `json:"closingBalance"`
	Entries        []struct {
		Kind             string  `json:"kind"`
		Amount           float64 `json:"amount"`
		Balance          float64 `json:"balance"`
		AvailableBalance float64 `json:"availableBalance"`
		PendingBalance   float64 `json:"pendingBalance"`
		Status           string  `json:"status"`
		PayoutID         string  `json:"payoutId"`
	} `json:"entries"`
}

// The statement over HTTP: every balance change has its entry (a move from
// pending to available too, which listTransactions keeps without a
// transaction), the running balance ends at the wallet, a payout's entry
// shows its status; the CSV route answers the same rows to the owner and an
// administrator, and refuses anyone else.
func TestWalletStatement(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	from := time.Now().Add(-time.Minute).UnixMilli()
	for _, c := range []struct {
		kind   string
		amount float64
	}{{"add_balance", 300}, {"add_pending", 200}, {"move_pending_to_available", 50}, {"deduct_balance", 20.5}} {
		st.MustOK(t, w.adjust(w.store, w.wallet, c.kind, c.amount))
	}
	payout := okAs[string](t, w.request(w.owner, w.store, 150))
	if n := len(w.transactions(t, w.owner, w.store)); n != 4 { // bonus, pending_credit, penalty, payout: no row for the move
		t.Fatalf("%d transactions", n)
	}
	to := time.Now().Add(time.Minute).UnixMilli()
	args := map[string]any{"storeId": w.store, "from": from, "to": to}
	stmt := okAs[statementView](t, s.Query(w.owner, "stores.wallet.getStatement", args))
	wallet := w.getWallet(t, w.owner, w.store)
	if len(stmt.Entries) != 5 || stmt.OpeningBalance != 0 || stmt.ClosingBalance != wallet.AvailableBalance+wallet.PendingBalance {
		t.Fatalf("statement %+v, wallet %+v", stmt, wallet)
	}
	last := stmt.Entries[4]
	if stmt.Entries[2].Kind != "move_pending_to_available" || stmt.Entries[2].Amount != 0 || last.Kind != "payout_request" ||
		last.PayoutID != payout || last.Status != "requested" || last.Amount != -150 || last.AvailableBalance != wallet.AvailableBalance {
		t.Fatalf("entries %+v", stmt.Entries)
	}
	path := fmt.Sprintf("/api/stores/%s/statement.csv?from=%d&to=%d", w.store, from, to)
	for _, token := range []string{w.owner, w.admin} {
		r := s.Do("GET", path, nil, map[string]string{"Authorization": "Bearer " + token})
		if r.Status != 200 || r.Header.Get("Content-Type") != "text/csv; charset=utf-8" {
			t.Fatalf("CSV: %d %s", r.Status, r.Body)
		}
		rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
		if err != nil || len(rows) != len(stmt.Entries)+3 {
			t.Fatalf("CSV rows %v %v", rows, err)
		}
		for i, e := range stmt.Entries {
			if row := rows[i+2]; row[2] != e.Kind || row[5] != strconv.FormatFloat(e.Balance, 'f', 2, 64) || row[12] != e.Status {
				t.Fatalf("row %v, entry %+v", row, e)
			}
		}
	}
	if r := s.Do("GET", path, nil, map[string]string{"Authorization": "Bearer " + s.Token("someone-else")}); r.Status != 403 {
		t.Fatalf("another user: %d %s", r.Status, r.Body)
	}
	if r := s.Do("GET", path, nil, nil); r.Status != 401 {
		t.Fatalf("no token: %d %s", r.Status, r.Body)
	}
	// Refusals come before the first byte, with the contract's error body.
	long := fmt.Sprintf("/api/stores/%s/statement.csv?from=%d&to=%d", w.store, from, from+367*24*time.Hour.Milliseconds())
	if r := s.Do("GET", long, nil, map[string]string{"Authorization": "Bearer " + w.owner}); r.Status != 400 || !strings.Contains(string(r.Body), "range_too_large") {
		t.Fatalf("367 days: %d %s", r.Status, r.Body)
	}
	missing := "/api/stores/sto_000000000000000000000000/statement.csv?from=0&to=1"
	if r := s.Do("GET", missing, nil, map[string]string{"Authorization": "Bearer " + w.admin}); r.Status != 404 {
		t.Fatalf("no such store: %d %s", r.Status, r.Body)
	}
	if r := s.Query(s.Token("someone-else"), "stores.wallet.getStatement", args); r.Code() != "PERMISSION_DENIED" {
		t.Fatalf("another user's getStatement: %d %s", r.Status, r.Body)
	}
	args["to"] = from + 367*24*time.Hour.Milliseconds()
	if r := s.Query(w.owner, "stores.wallet.getStatement", args); r.Code() != "INVALID_ARGUMENT" {
		t.Fatalf("367 days: %d %s", r.Status, r.Body)
	}
}
