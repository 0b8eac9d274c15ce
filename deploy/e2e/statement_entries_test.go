package e2e

import (
	"testing"
	"time"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

type entryItem struct {
	Seq             int64   `json:"seq"`
	Kind            string  `json:"kind"`
	Amount          float64 `json:"amount"`
	Balance         float64 `json:"balance"`
	AvailableChange float64 `json:"availableChange"`
	PendingChange   float64 `json:"pendingChange"`
	Status          string  `json:"status"`
	PayoutID        string  `json:"payoutId"`
	OrderID         string  `json:"orderId"`
	ReleaseAt       *int64  `json:"releaseAt"`
}

func allEntries(t *testing.T, s *st.Sys, token string, args map[string]any) []entryItem {
	t.Helper()
	return everyPage[entryItem](t, s, token, "stores.wallet.listStatementEntries", args)
}

// TestStatementEntriesPaged: a delivered order's earning, an early release
// by an administrator (which records no wallet transaction), adjustments
// and a payout, paged newest first two at a time: the same entries as
// getStatement's in reverse, each with getStatement's running balance and
// the payout's status now; the early release listed as a move from pending
// to available; the earning with its release time; filtered by kind and by
// order; the owner and administrators only.
func TestStatementEntriesPaged(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	w := &payoutsWorld{s: s, admin: sh.admin, owner: sh.owner, store: sh.storeA}
	w.wallet = w.getWallet(t, w.owner, w.store).ID
	from := time.Now().Add(-time.Minute).UnixMilli()
	if r := deliver(s, processor.Event("evt_se_1", "payment_intent.succeeded", sh.payment("pi_se_1"))); r.Status != 200 {
		t.Fatalf("order: %d %s", r.Status, r.Body)
	}
	order := orderOf(t, s, sh.admin, "pi_se_1")
	moveOrder(t, s, sh.owner, order.ID)
	eventually(t, "the earnings", func() bool { return w.getWallet(t, w.owner, w.store).TotalOrders == 1 })
	st.MustOK(t, w.adjust(w.store, w.wallet, "move_pending_to_available", 50))
	w.credit(t, w.store, w.wallet, 200)
	payout := okID(t, w.request(w.owner, w.store, 150))
	st.MustOK(t, w.move(opApprove, payout))
	to := time.Now().Add(time.Minute).UnixMilli()

	stmt := okAs[statementView](t, s.Query(w.owner, "stores.wallet.getStatement", map[string]any{"storeId": w.store, "from": from, "to": to}))
	got := allEntries(t, s, w.owner, map[string]any{"storeId": w.store})
	if len(got) != len(stmt.Entries) || len(got) != 4 {
		t.Fatalf("%d entries, the statement has %d: %+v", len(got), len(stmt.Entries), got)
	}
	for i, e := range got {
		want := stmt.Entries[len(stmt.Entries)-1-i]
		if e.Kind != want.Kind || e.Balance != want.Balance || e.Amount != want.Amount || e.Status != want.Status || e.PayoutID != want.PayoutID {
			t.Fatalf("entry %d %+v, statement's %+v", i, e, want)
		}
	}
	wallet := w.getWallet(t, w.owner, w.store)
	if got[0].Balance != wallet.AvailableBalance+wallet.PendingBalance || got[0].Kind != "payout_request" || got[0].Status != "approved" {
		t.Fatalf("newest %+v, wallet %+v", got[0], wallet)
	}
	early := got[2]
	if early.Kind != "move_pending_to_available" || early.AvailableChange != 50 || early.PendingChange != -50 || early.Amount != 0 {
		t.Fatalf("the early release %+v", early)
	}
	earnings := txOf(w.transactions(t, w.admin, w.store), "earning")
	if e := got[3]; e.Kind != "earning" || e.OrderID != order.ID || e.ReleaseAt == nil || len(earnings) != 1 || *e.ReleaseAt != *earnings[0].ReleaseDate {
		t.Fatalf("the earning %+v (ledger %+v)", e, earnings)
	}
	if got[1].ReleaseAt != nil {
		t.Fatalf("a release time on %+v", got[1])
	}
	if byOrder := allEntries(t, s, w.admin, map[string]any{"storeId": w.store, "orderId": order.ID}); len(byOrder) != 1 || byOrder[0].Kind != "earning" {
		t.Fatalf("by order %+v", byOrder)
	}
	if byKind := allEntries(t, s, w.admin, map[string]any{"storeId": w.store, "kind": "move_pending_to_available"}); len(byKind) != 1 || byKind[0].Seq != early.Seq {
		t.Fatalf("by kind %+v", byKind)
	}
	if both := allEntries(t, s, w.admin, map[string]any{"storeId": w.store, "kind": "add_balance", "orderId": order.ID}); len(both) != 0 {
		t.Fatalf("kind and order %+v", both)
	}
	expectError(t, s.Query(s.Token("owner-2"), "stores.wallet.listStatementEntries", map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 2}}), "PERMISSION_DENIED")

	// A cursor of newest first is no page of oldest first, nor of a kind
	// (ADR 0172): refused, not served as "page 2"; newest first goes on.
	first := okAs[struct {
		Page           []entryItem `json:"page"`
		ContinueCursor string      `json:"continueCursor"`
	}](t, s.Query(w.owner, "stores.wallet.listStatementEntries", map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 2}}))
	for _, extra := range []map[string]any{{"sort": "oldest"}, {"kind": "earning"}} {
		args := map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 2, "cursor": first.ContinueCursor}}
		for k, v := range extra {
			args[k] = v
		}
		expectError(t, s.Query(w.owner, "stores.wallet.listStatementEntries", args), "INVALID_ARGUMENT", "is not a cursor of this query")
	}
	next := okAs[struct {
		Page []entryItem `json:"page"`
	}](t, s.Query(w.owner, "stores.wallet.listStatementEntries", map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 2, "cursor": first.ContinueCursor}}))
	if len(next.Page) != 2 || next.Page[0].Seq != got[2].Seq {
		t.Fatalf("page 2 %+v", next.Page)
	}
}
