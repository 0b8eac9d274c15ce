package payouts

import (
	"testing"

	"marketplace/services/payouts/domain"
)

// The store's owner sees who moved their payout by id, as before names were
// recorded, and their own name on the request; administrators' names only
// administrators see (docs/adr/0168).
func TestPayoutDetailNamesAdministratorsToAdministratorsOnly(t *testing.T) {
	p := &domain.Payout{ID: "pay_1", RequestedBy: "owner-1", RequestedByName: "Noor", ApprovedBy: "admin-1", ApprovedByName: "Mariam",
		History: []domain.HistoryEntry{
			{Action: domain.ActionRequest, To: domain.StatusRequested, By: "owner-1", ByName: "Noor"},
			{Action: "approvePayout", To: "approved", By: "admin-1", ByName: "Mariam"},
			{Action: domain.ActionSendThroughProcessor, By: "admin-1", ByName: "Mariam"},
		}}
	name := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	owner := payoutDetail(p, nil, false)
	if name(owner.ApprovedByName) != "" || name(owner.ApprovedBy) != "admin-1" || name(owner.RequestedByName) != "Noor" {
		t.Errorf("owner's view: approved by %q (%q), requested by %q", name(owner.ApprovedBy), name(owner.ApprovedByName), name(owner.RequestedByName))
	}
	if h := owner.History; name(h[0].ByName) != "Noor" || name(h[1].ByName) != "" || h[1].By != "admin-1" || name(h[2].ByName) != "" || h[2].By != "admin-1" {
		t.Errorf("owner's history: %+v %+v %+v", h[0], h[1], h[2])
	}
	admin := payoutDetail(p, nil, true)
	if name(admin.ApprovedByName) != "Mariam" || name(admin.History[1].ByName) != "Mariam" || name(admin.History[2].ByName) != "Mariam" || name(admin.History[0].ByName) != "Noor" {
		t.Errorf("administrator's view: %q %+v", name(admin.ApprovedByName), admin.History)
	}
}
