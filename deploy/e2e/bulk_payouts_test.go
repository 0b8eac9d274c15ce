package e2e

import (
	"encoding/json"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

const (
	opApproveMany    = "admins.payoutOperations.approvePayouts"
	opRejectMany     = "admins.payoutOperations.rejectPayouts"
	opListAllPayouts = "admins.payoutOperations.listPayouts"
)

type bulkDecision struct {
	Payouts []payoutView `json:"payouts"`
	Total   float64      `json:"total"`
}

type refusedPayout struct {
	PayoutID string `json:"payoutId"`
	Code     string `json:"code"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
}

// refusedOf is a bulk refusal's details.refused (FAILED_PRECONDITION
// bulk_refused required).
func refusedOf(t *testing.T, r st.Result) []refusedPayout {
	t.Helper()
	expectReason(t, r, "FAILED_PRECONDITION", "bulk_refused")
	var e struct {
		Error struct {
			Details struct {
				Refused []refusedPayout `json:"refused"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil {
		t.Fatal(err)
	}
	return e.Error.Details.Refused
}

// TestBulkPayoutDecisions: three payouts approved in one call; a batch with
// one already approved (and one unknown) is refused whole, listing both
// with their codes and reasons, and changes nothing; a keyed retry replays
// the one answer and approves nothing twice; a duplicate id is refused; a
// bulk rejection returns every amount; only administrators decide. (The
// handover confirmation: services/payouts TestBulkApprovalAsksTheHandover.)
func TestBulkPayoutDecisions(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	w.credit(t, w.store, w.wallet, 5000)
	var ps []string
	for _, amount := range []float64{100, 200, 300, 400, 500, 600} {
		ps = append(ps, okID(t, w.request(w.owner, w.store, amount)))
	}
	approve := func(ids []string, more ...any) st.Result {
		args := map[string]any{"payoutIds": ids, "adminUserId": "admin-1"}
		for i := 0; i+1 < len(more); i += 2 {
			args[more[i].(string)] = more[i+1]
		}
		return s.Mutation(w.admin, opApproveMany, args)
	}
	d := okAs[bulkDecision](t, approve(ps[:3]))
	if len(d.Payouts) != 3 || d.Total != 600 {
		t.Fatalf("decision %+v", d)
	}
	for i, p := range d.Payouts {
		if p.ID != ps[i] || p.Status != "approved" || w.payout(t, ps[i]).Status != "approved" {
			t.Fatalf("payout %d: %+v", i, p)
		}
	}
	// One already approved, one unknown: all refused, nothing changed.
	unknown := "pay_00000000000000000000aaaa"
	refused := refusedOf(t, approve([]string{ps[3], ps[0], unknown, ps[4]}))
	if len(refused) != 2 || refused[0].PayoutID != ps[0] || refused[0].Code != "FAILED_PRECONDITION" || refused[0].Reason != "payout_status" ||
		refused[1].PayoutID != unknown || refused[1].Code != "NOT_FOUND" {
		t.Fatalf("refused %+v", refused)
	}
	for _, id := range ps[3:5] {
		if p := w.payout(t, id); p.Status != "requested" || len(p.History) != 1 {
			t.Fatalf("a refused batch changed %s: %+v", id, p)
		}
	}
	expectError(t, approve([]string{ps[3], ps[3]}), "INVALID_ARGUMENT", "twice")
	expectError(t, approve([]string{}), "INVALID_ARGUMENT", "payoutIds")
	expectError(t, s.Mutation(w.owner, opApproveMany, map[string]any{"payoutIds": ps[3:4], "adminUserId": "owner-1"}), "PERMISSION_DENIED")

	// A keyed retry replays the answer; the payouts move once.
	args := map[string]any{"payoutIds": ps[3:5], "adminUserId": "admin-1"}
	first := keyed(t, s, w.admin, "bulk-approve-1", opApproveMany, args)
	again := keyed(t, s, w.admin, "bulk-approve-1", opApproveMany, args)
	st.MustOK(t, first)
	if !replayed(again) || string(again.Body) != string(first.Body) {
		t.Fatalf("retry: replayed %v, %s vs %s", replayed(again), again.Body, first.Body)
	}
	if p := w.payout(t, ps[3]); p.Status != "approved" || len(p.History) != 2 {
		t.Fatalf("after the retry %+v", p)
	}

	// Bulk rejection: the amount returns.
	before := w.getWallet(t, w.admin, w.store).AvailableBalance
	rj := okAs[bulkDecision](t, s.Mutation(w.admin, opRejectMany, map[string]any{"payoutIds": ps[5:], "adminUserId": "admin-1", "rejectionReason": "Wrong account"}))
	if rj.Total != 600 || rj.Payouts[0].Status != "cancelled" || w.getWallet(t, w.admin, w.store).AvailableBalance != before+600 {
		t.Fatalf("rejection %+v", rj)
	}
	w.reconciled(t, w.store)

}

type payoutPage struct {
	Page           []payoutView `json:"page"`
	IsDone         bool         `json:"isDone"`
	ContinueCursor string       `json:"continueCursor"`
}

// allPayouts walks admins.payoutOperations.listPayouts with args, two at a
// time, and returns the ids in order.
func allPayouts(t *testing.T, s *st.Sys, token string, args map[string]any) []string {
	t.Helper()
	var out []string
	for _, p := range everyPage[payoutView](t, s, token, opListAllPayouts, args) {
		out = append(out, p.ID)
	}
	return out
}

// TestAdminPayoutList: every payout of every store, paged, newest first by
// default, oldest, by amount both ways; filtered by status, store and an
// inclusive request-date range; amount sort with a range refused; only
// administrators.
func TestAdminPayoutList(t *testing.T) {
	clock := newTestClock(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	s := st.Start(t, st.WithClock(clock.Now))
	w := newPayoutsWorld(t, s, true)
	other := newStore(t, s, w.admin, "Florist", "owner-1", "", "")
	otherWallet := w.getWallet(t, w.owner, other).ID
	w.credit(t, w.store, w.wallet, 5000)
	w.credit(t, other, otherWallet, 5000)
	type req struct {
		store  string
		amount float64
	}
	var ids []string
	var dates []int64
	for _, r := range []req{{w.store, 300}, {other, 100}, {w.store, 500}, {other, 200}, {w.store, 150}} {
		ids = append(ids, okID(t, w.request(w.owner, r.store, r.amount)))
		dates = append(dates, clock.Now().UnixMilli())
		clock.Advance(time.Hour)
	}
	st.MustOK(t, w.move(opApprove, ids[2]))
	st.MustOK(t, w.move(opReject, ids[3], "rejectionReason", "r"))
	expect := func(what string, got []string, want ...int) {
		t.Helper()
		var w2 []string
		for _, i := range want {
			w2 = append(w2, ids[i])
		}
		if len(got) != len(w2) {
			t.Fatalf("%s: %v, want %v", what, got, w2)
		}
		for i := range got {
			if got[i] != w2[i] {
				t.Fatalf("%s: %v, want %v", what, got, w2)
			}
		}
	}
	expect("newest", allPayouts(t, s, w.admin, nil), 4, 3, 2, 1, 0)
	expect("oldest", allPayouts(t, s, w.admin, map[string]any{"sort": "oldest"}), 0, 1, 2, 3, 4)
	expect("amount_desc", allPayouts(t, s, w.admin, map[string]any{"sort": "amount_desc"}), 2, 0, 3, 4, 1)
	expect("amount_asc", allPayouts(t, s, w.admin, map[string]any{"sort": "amount_asc"}), 1, 4, 3, 0, 2)
	expect("requested", allPayouts(t, s, w.admin, map[string]any{"status": "requested"}), 4, 1, 0)
	expect("requested by amount", allPayouts(t, s, w.admin, map[string]any{"status": "requested", "sort": "amount_desc"}), 0, 4, 1)
	expect("one store", allPayouts(t, s, w.admin, map[string]any{"storeId": other}), 3, 1)
	expect("one store by amount", allPayouts(t, s, w.admin, map[string]any{"storeId": w.store, "sort": "amount_asc"}), 4, 0, 2)
	expect("one store, one status", allPayouts(t, s, w.admin, map[string]any{"storeId": w.store, "status": "approved"}), 2)
	expect("one store, one status by amount", allPayouts(t, s, w.admin, map[string]any{"storeId": w.store, "status": "requested", "sort": "amount_desc"}), 0, 4)
	expect("range (inclusive)", allPayouts(t, s, w.admin, map[string]any{"from": dates[1], "to": dates[3]}), 3, 2, 1)
	expect("range, one status", allPayouts(t, s, w.admin, map[string]any{"from": dates[1], "to": dates[3], "status": "requested"}), 1)
	expect("range, one store, oldest", allPayouts(t, s, w.admin, map[string]any{"from": dates[0], "storeId": w.store, "sort": "oldest"}), 0, 2, 4)
	expectReason(t, s.Query(w.admin, opListAllPayouts, map[string]any{"paginationOpts": map[string]any{"numItems": 2}, "from": dates[0], "sort": "amount_asc"}),
		"INVALID_ARGUMENT", "sort_with_range")
	expectError(t, s.Query(w.admin, opListAllPayouts, map[string]any{"paginationOpts": map[string]any{"numItems": 2}, "from": dates[3], "to": dates[0]}), "INVALID_ARGUMENT")
	expectError(t, s.Query(w.owner, opListAllPayouts, map[string]any{"paginationOpts": map[string]any{"numItems": 2}}), "PERMISSION_DENIED")
	p := okAs[payoutPage](t, s.Query(w.admin, opListAllPayouts, map[string]any{"paginationOpts": map[string]any{"numItems": 1}}))
	if p.Page[0].StoreName != "Bakery" || p.Page[0].CurrentWalletBalance != w.getWallet(t, w.admin, w.store).AvailableBalance {
		t.Fatalf("item %+v", p.Page[0])
	}
}
