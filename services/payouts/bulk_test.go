package payouts

import (
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/services/payouts/domain"
)

// TestBulkApprovalAsksTheHandover: the catalog has handed the store over
// and this service has not heard yet. Approving its requested payouts in
// bulk without confirmHandover refuses them all (store_handed_over each,
// listed in details.refused) and changes nothing; confirming one of two
// still refuses the other and changes nothing; confirming both approves
// both, the confirmation in their history. The catalog unreachable is
// UNAVAILABLE before anything is tried.
func TestBulkApprovalAsksTheHandover(t *testing.T) {
	w := newHandoverWorld(t)
	ts := w.ts
	ctx := adminCtx()
	ts.setStore(catalog.StoreEvent{StoreID: w.store, Name: "Bakery", OwnerUserID: "owner-2", Version: 2})
	unchanged := func(what string) {
		t.Helper()
		for _, id := range []string{w.a, w.b} {
			if p := ts.payoutDoc(t, id); p.Status != domain.StatusRequested || len(p.History) != 1 {
				t.Fatalf("%s changed %s: %+v", what, id, p)
			}
		}
	}
	refusedIDs := func(err error) []string {
		t.Helper()
		e := apperr.From(err)
		rs, _ := e.Details["refused"].([]Refused)
		if e.Code != apperr.FailedPrecondition || e.Details["reason"] != "bulk_refused" {
			t.Fatalf("want bulk_refused, got %v", err)
		}
		var out []string
		for _, r := range rs {
			if r.Reason != "store_handed_over" || r.Code != "FAILED_PRECONDITION" {
				t.Fatalf("refusal %+v", r)
			}
			out = append(out, r.PayoutID)
		}
		return out
	}
	_, err := ts.approvePayouts(ctx, &bulkApproveArgs{PayoutIDs: []string{w.a, w.b}, AdminUserID: "admin-1"})
	if got := refusedIDs(err); len(got) != 2 || got[0] != w.a || got[1] != w.b {
		t.Fatalf("refused %v", got)
	}
	unchanged("the refused batch")
	_, err = ts.approvePayouts(ctx, &bulkApproveArgs{PayoutIDs: []string{w.a, w.b}, AdminUserID: "admin-1", ConfirmHandover: []string{w.a}})
	if got := refusedIDs(err); len(got) != 1 || got[0] != w.b {
		t.Fatalf("refused %v", got)
	}
	unchanged("a batch with one confirmation of two")
	if _, err := ts.approvePayouts(ctx, &bulkApproveArgs{PayoutIDs: []string{w.a}, AdminUserID: "admin-1", ConfirmHandover: []string{w.b}}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("a confirmation of a payout not in the batch: %v", err)
	}
	d, err := ts.approvePayouts(ctx, &bulkApproveArgs{PayoutIDs: []string{w.a, w.b}, AdminUserID: "admin-1", ConfirmHandover: []string{w.a, w.b}})
	if err != nil || len(d.Payouts) != 2 || d.Total != 210 {
		t.Fatalf("confirmed: %+v %v", d, err)
	}
	for _, p := range d.Payouts {
		if h := p.History[len(p.History)-1]; p.Status != domain.StatusApproved || h.HandoverConfirmed == nil || !*h.HandoverConfirmed {
			t.Fatalf("approved %+v", p)
		}
	}
	ts.reconciled(t, w.store)

	other := newHandoverWorld(t)
	other.ts.catalogDown = true
	if _, err := other.ts.approvePayouts(ctx, &bulkApproveArgs{PayoutIDs: []string{other.a}, AdminUserID: "admin-1"}); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("the catalog down: %v", err)
	}
	if p := other.ts.payoutDoc(t, other.a); p.Status != domain.StatusRequested {
		t.Fatalf("changed with the catalog down: %+v", p)
	}
}
