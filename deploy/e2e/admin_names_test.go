package e2e

import (
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestAdministratorsNamedInTheHistory: an administrator whose token carries
// the OpenID Connect `name` claim is recorded by name beside their id in the
// configuration's history, through the gateway's own token; a token without
// the claim records the id alone (changedByName omitted).
func TestAdministratorsNamedInTheHistory(t *testing.T) {
	s := st.Start(t)
	mariam := s.NamedToken("admin-1", "Mariam Al Mansoori", "admin")
	unnamed := s.Token("admin-2", "admin")
	id := okID(t, s.Mutation(mariam, pcCreate, map[string]any{"adminUserId": "admin-1"}))
	st.MustOK(t, s.Mutation(unnamed, pcUpdate, map[string]any{"adminUserId": "admin-2", "configId": id, "defaultCommissionRate": 0.06}))
	st.MustOK(t, s.Mutation(mariam, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "defaultCommissionRate": 0.04}))

	type entry struct {
		ChangedBy     string  `json:"changedBy"`
		ChangedByName *string `json:"changedByName"`
		Operation     string  `json:"operation"`
	}
	var page struct {
		Page []entry `json:"page"`
	}
	r := s.Query(mariam, pcHistory, map[string]any{"configId": id, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})
	st.MustOK(t, r)
	r.Decode(t, &page)
	if len(page.Page) != 3 {
		t.Fatalf("%d history entries, want 3: %+v", len(page.Page), page.Page)
	}
	name := func(e entry) string {
		if e.ChangedByName == nil {
			return "<omitted>"
		}
		return *e.ChangedByName
	}
	for i, want := range []struct{ by, name string }{
		{"admin-1", "Mariam Al Mansoori"}, // newest first
		{"admin-2", "<omitted>"},
		{"admin-1", "Mariam Al Mansoori"},
	} {
		if e := page.Page[i]; e.ChangedBy != want.by || name(e) != want.name {
			t.Errorf("entry %d (%s): by %s named %q, want %s named %q", i, e.Operation, e.ChangedBy, name(e), want.by, want.name)
		}
	}
}
