package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
)

// TestWalletAdjustmentsNamed: an administrator's wallet adjustments record
// their name beside their id (docs/adr/0168) when their token states one:
// in the transaction's metadata, on the journal entry of a move between
// balances and in the wallet.adjusted event. Administrators read it (the
// transactions' metadata, the movements' adjustedBy and adjustedByName);
// the store's owner reads neither the name nor, as before, which
// administrator acted: not in the transactions, the movements, the
// statement or its CSV, nor their notifications. An unnamed
// administrator's adjustment shows the id alone. Administrators cannot
// change a store's bank account at all, so there is no administrator to
// name there.
func TestWalletAdjustmentsNamed(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	const name = "Mariam Al Mansoori"
	adjust := func(token, kind string, amount float64, reason string) {
		t.Helper()
		st.MustOK(t, s.Mutation(token, opAdjust, map[string]any{"storeId": w.store, "walletId": w.wallet, "adjustmentType": kind,
			"amount": amount, "reason": reason, "adminUserId": "admin-1"}))
	}
	adjust(mariam, "add_balance", 50, "Goodwill credit")
	adjust(mariam, "add_pending", 30, "Pending credit")
	adjust(mariam, "move_pending_to_available", 10, "Early release") // no wallet transaction: its journal entry
	adjust(w.admin, "add_balance", 5, "Unnamed credit")              // a token without a name claim

	// Administrators: the transactions' metadata names the administrator.
	byReason := map[string]txView{}
	for _, tx := range w.transactions(t, w.admin, w.store) {
		byReason[tx.Description] = tx
	}
	for _, reason := range []string{"Goodwill credit", "Pending credit"} {
		if m := byReason[reason].Metadata; m["adminUserId"] != "admin-1" || m["adminName"] != name {
			t.Errorf("the administrator's view of %q: %v", reason, m)
		}
	}
	if m := byReason["Unnamed credit"].Metadata; m["adminUserId"] != "admin-1" || m["adminName"] != "" {
		t.Errorf("the unnamed adjustment: %v", m)
	}

	// Administrators: every adjustment's movement says who made it.
	type movement struct {
		Kind           string  `json:"kind"`
		Description    string  `json:"description"`
		AdjustmentID   string  `json:"adjustmentId"`
		AdjustedBy     *string `json:"adjustedBy"`
		AdjustedByName *string `json:"adjustedByName"`
	}
	want := map[string]string{"Goodwill credit": name, "Pending credit": name, "Early release": name, "Unnamed credit": "<omitted>"}
	seen := 0
	for _, m := range everyPage[movement](t, s, w.admin, "stores.wallet.listStatementEntries", map[string]any{"storeId": w.store}) {
		wantName, ok := want[m.Description]
		if !ok {
			continue
		}
		seen++
		if m.AdjustmentID == "" || nameOr(m.AdjustedBy) != "admin-1" || nameOr(m.AdjustedByName) != wantName {
			t.Errorf("the administrator's movement %q: by %s named %q, want %q", m.Description, nameOr(m.AdjustedBy), nameOr(m.AdjustedByName), wantName)
		}
	}
	if seen != len(want) {
		t.Errorf("the administrator's movements hold %d of the %d adjustments", seen, len(want))
	}

	// The event names the administrator too (for administrators' consumers).
	raw := findEvent(t, s.Brokers, "wallets", w.wallet, func(e events.Envelope) bool {
		return e.Type == "wallet.adjusted" && strings.Contains(string(e.Data), `"Goodwill credit"`)
	})
	var env struct {
		Data map[string]any `json:"data"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	if env.Data["adminUserId"] != "admin-1" || env.Data["adminName"] != name {
		t.Errorf("wallet.adjusted: %v", env.Data)
	}

	// The store's owner: no administrator's name (nor, as before, which
	// administrator acted) anywhere they read the wallet.
	for _, tx := range w.transactions(t, w.owner, w.store) {
		if tx.Metadata != nil {
			t.Errorf("the owner reads a transaction's metadata: %+v", tx)
		}
	}
	owners := everyPage[movement](t, s, w.owner, "stores.wallet.listStatementEntries", map[string]any{"storeId": w.store})
	for _, m := range owners {
		if m.AdjustedBy != nil || m.AdjustedByName != nil {
			t.Errorf("the owner's movement %q names its administrator: %s %s", m.Description, nameOr(m.AdjustedBy), nameOr(m.AdjustedByName))
		}
	}
	if len(owners) < len(want) {
		t.Errorf("the owner's movements: %d", len(owners))
	}
	to := time.Now().Add(time.Hour).UnixMilli()
	from := to - 24*time.Hour.Milliseconds()
	ownerReads := map[string]st.Result{
		"transactions": s.Query(w.owner, opListTx, map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 100, "cursor": nil}}),
		"movements": s.Query(w.owner, "stores.wallet.listStatementEntries", map[string]any{"storeId": w.store,
			"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}}),
		"statement": s.Query(w.owner, "stores.wallet.getStatement", map[string]any{"storeId": w.store, "from": from, "to": to}),
		"statement CSV": s.Do("GET", fmt.Sprintf("/api/stores/%s/statement.csv?from=%d&to=%d", w.store, from, to), nil,
			map[string]string{"Authorization": "Bearer " + w.owner}),
	}
	for what, r := range ownerReads {
		if r.Status != 200 || !strings.Contains(string(r.Body), "Goodwill credit") {
			t.Fatalf("the owner's %s: %d %s", what, r.Status, r.Body)
		}
		if body := string(r.Body); strings.Contains(body, name) || strings.Contains(body, "admin-1") {
			t.Errorf("the owner's %s names the administrator: %s", what, body)
		}
	}

	// The owner hears of each adjustment, by no one's name or id.
	eventually(t, "the owner hears of each adjustment", func() bool { return count(inbox(t, s, w.owner), "wallet_adjusted") == len(want) })
	if r := s.Query(w.owner, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}}); r.Status != 200 ||
		strings.Contains(string(r.Body), name) || strings.Contains(string(r.Body), "admin-1") {
		t.Errorf("the owner's notifications name the administrator: %d %s", r.Status, r.Body)
	}

	// The bank account: the store's owner's alone (StoreOwner access), never
	// an administrator's to change: nothing to name (docs/adr/0168).
	expectError(t, s.Mutation(mariam, "stores.payouts.setBankAccount", map[string]any{"storeId": w.store, "bankDetails": bank()}), "PERMISSION_DENIED")
}
