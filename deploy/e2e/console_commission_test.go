package e2e

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// TestConsoleCommissionPortMatchesServer holds the console's commission
// preview (web/console/src/admin/commission.ts, which shows what an order
// would pay with figures not saved yet) to the server's calculation: for
// stores of every tier, with and without a category entry, and entries
// that set some fields and inherit others, several hundred orders (zero, a
// fils, half-fils roundings, amounts past the maximum or under the minimum)
// are priced by getCommissionPreview and by the port, and every figure must
// be the same. Node and the console's packages only; no browser.
func TestConsoleCommissionPortMatchesServer(t *testing.T) {
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	initConfig(t, s)
	cfg := mustActive(t, s, admin)
	var cats []struct {
		ID string `json:"_id"`
	}
	st.MustOK(t, s.Query("", "catalog.categories.listCategories", map[string]any{})).Decode(t, &cats)
	if len(cats) < 3 {
		t.Fatalf("categories: %+v", cats)
	}
	// Entries that set some fields and leave others to the next level.
	st.MustOK(t, s.Mutation(admin, "admins.platformAdmin.addCategoryCommission", map[string]any{
		"adminUserId": "admin-1", "configId": cfg.ID, "categoryId": cats[0].ID, "commissionRate": 0.0825, "minimumCommission": 3.5}))
	st.MustOK(t, s.Mutation(admin, "admins.platformAdmin.addCategoryCommission", map[string]any{
		"adminUserId": "admin-1", "configId": cfg.ID, "categoryId": cats[1].ID, "commissionRate": 0.125, "fixedFee": 0.75}))
	st.MustOK(t, s.Mutation(admin, "admins.platformAdmin.setTierCommission", map[string]any{
		"adminUserId": "admin-1", "configId": cfg.ID, "tierName": "premium", "commissionRate": 0.0333}))
	st.MustOK(t, s.Mutation(admin, "admins.platformAdmin.updatePlatformConfig", map[string]any{
		"adminUserId": "admin-1", "configId": cfg.ID, "defaultCommissionRate": 0.061, "fixedFeePerOrder": 1.25, "minimumCommission": 2, "maximumCommission": 45.5}))

	type storeView struct {
		ID                string  `json:"_id"`
		PrimaryCategoryID *string `json:"primaryCategoryId"`
		Tier              string  `json:"tier"`
	}
	stores := map[string]storeView{}
	for i, tier := range []string{"basic", "premium", "enterprise"} {
		for j, cat := range []string{"", cats[0].ID, cats[1].ID, cats[2].ID} {
			id := newStore(t, s, admin, fmt.Sprintf("Port %d-%d", i, j), "owner-1", cat, tier)
			stores[id] = okAs[storeView](t, s.Query("", "stores.catalog.getStore", map[string]any{"storeId": id}))
		}
	}

	type figures struct {
		StoreID     string  `json:"storeId"`
		Subtotal    float64 `json:"subtotal"`
		DeliveryFee float64 `json:"deliveryFee"`
	}
	rng := rand.New(rand.NewPCG(20, 26))
	var cases []figures
	fixed := []float64{0, 0.01, 0.05, 0.1, 1, 9.99, 12.35, 33.33, 100, 745.5, 999.99, 5000, 123456.78}
	for id := range stores {
		for _, sub := range fixed {
			cases = append(cases, figures{id, sub, 0}, figures{id, sub, 7.5})
		}
		for range 12 {
			cases = append(cases, figures{id, float64(rng.IntN(200_000)) / 100, float64(rng.IntN(3_000)) / 100})
		}
	}
	want := make([]map[string]any, len(cases))
	for i, c := range cases {
		want[i] = okAs[map[string]any](t, s.Query(admin, "admins.platformAdmin.getCommissionPreview", c))
	}

	config := okAs[map[string]any](t, s.Query(admin, "admins.platformAdmin.getActivePlatformConfig", map[string]any{})) // as the console reads it
	body, err := json.Marshal(map[string]any{"config": config, "stores": stores, "cases": cases})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cases.json")
	if err := os.WriteFile(file, body, 0o644); err != nil {
		t.Fatal(err)
	}
	out := webtest.Run(t, dir, 2*time.Minute, []string{"CASES=" + file}, node, filepath.Join("e2e", "commission-port.mjs"))
	var got []map[string]any
	if err := json.Unmarshal([]byte(out[strings.Index(out, "["):]), &got); err != nil {
		t.Fatalf("the port's output: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d previews from the port, %d cases", len(got), len(want))
	}
	for i := range want {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("store %+v, subtotal %v, delivery %v:\n server %v\n   port %v", stores[cases[i].StoreID], cases[i].Subtotal, cases[i].DeliveryFee, want[i], got[i])
		}
	}
	t.Logf("%d orders priced alike by the server and the console", len(cases))
}
