package e2e

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// Tier entries as records of their own, setTierCommission, and the change
// history (platform contract section 4, "Commission precedence").

const (
	pcSetTier = "admins.platformAdmin.setTierCommission"
	pcHistory = "admins.platformAdmin.getConfigHistory"
)

func tierEntry(t testing.TB, c platformConfig, tier string) commissionEntry {
	t.Helper()
	var out []commissionEntry
	for _, e := range c.StoreTierCommissions {
		if e.TierName == tier {
			out = append(out, e)
		}
	}
	if len(out) != 1 {
		t.Fatalf("%d entries for tier %s in %+v", len(out), tier, c.StoreTierCommissions)
	}
	return out[0]
}

// initialTiers are the tier entries of a new configuration.
var initialTiers = []commissionEntry{
	{TierName: "basic", CommissionRate: 0.05, FixedFee: ptr(2), MinimumCommission: ptr(1)},
	{TierName: "premium", CommissionRate: 0.04, FixedFee: ptr(1.5), MinimumCommission: ptr(1)},
	{TierName: "enterprise", CommissionRate: 0.03, FixedFee: ptr(1), MinimumCommission: ptr(0.5)},
}

func sameTiers(a, b []commissionEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameEntry(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestPlatformConfigBasicTierKeepsItsValues: the basic tier is stored with the
// defaults' values at creation and keeps them when the defaults change, in the
// update's response, in getActivePlatformConfig and in what a basic store pays.
func TestPlatformConfigBasicTierKeepsItsValues(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	user := s.Token("user-1")
	id := initConfig(t, s)
	var food string
	for _, c := range listCategories(t, s) {
		if c.Name == "Food" {
			food = c.ID
		}
	}
	basic := newStore(t, s, admin, "Basic", "o1", "", "")
	foodBasic := newStore(t, s, admin, "Food basic", "o1", food, "basic")
	preview := func(store string, subtotal, fee float64) commissionPreview {
		t.Helper()
		return okAs[commissionPreview](t, s.Query(user, pcPreview, map[string]any{"storeId": store, "subtotal": subtotal, "deliveryFee": fee}))
	}

	created := mustActive(t, s, user)
	if !sameTiers(created.StoreTierCommissions, initialTiers) {
		t.Fatalf("tiers at creation: %+v", created.StoreTierCommissions)
	}

	r := okAs[platformConfig](t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id,
		"defaultCommissionRate": 0.08, "fixedFeePerOrder": 0.5, "minimumCommission": 5, "maximumCommission": 60}))
	if r.DefaultCommissionRate != 0.08 || r.FixedFeePerOrder != 0.5 || r.MinimumCommission != 5 || r.MaximumCommission != 60 {
		t.Errorf("the update did not change the defaults: %+v", r)
	}
	if !sameTiers(r.StoreTierCommissions, initialTiers) {
		t.Errorf("tiers in the update's response after the defaults changed: %+v", r.StoreTierCommissions)
	}
	if a := mustActive(t, s, user); !reflect.DeepEqual(a, r) {
		t.Errorf("active configuration\n got %+v\nwant the update's response %+v", a, r)
	}

	// 5% of 110 + 2 = 7.5, not 8% + 0.5 = 9.3.
	if p := preview(basic, 100, 10); p.CommissionRate != 0.05 || p.FixedFee != 2 || p.PlatformCommission != 7.5 || p.StoreEarnings != 102.5 {
		t.Errorf("basic store after the defaults changed: %+v", p)
	}
	// 1 + 2 = 3: above the tier's minimum (1), below the defaults' new one (5).
	if p := preview(basic, 20, 0); p.PlatformCommission != 3 || p.CommissionBreakdown.MinimumApplied {
		t.Errorf("basic store, minimum: %+v", p)
	}
	// A category entry without a fixed fee takes the basic tier's, not the defaults'.
	if p := preview(foodBasic, 100, 10); p.CommissionRate != 0.04 || p.FixedFee != 2 || p.PlatformCommission != 6.4 {
		t.Errorf("Food store of the basic tier: %+v", p)
	}
}

// TestPlatformConfigSetTierCommission covers setTierCommission: replacement in
// place, the field-by-field fallback of an entry without fee or minimum, the
// preview following it, validation as addCategoryCommission's, and access.
func TestPlatformConfigSetTierCommission(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	user := s.Token("user-1")
	id := initConfig(t, s)
	var food string
	for _, c := range listCategories(t, s) {
		if c.Name == "Food" {
			food = c.ID
		}
	}
	premium := newStore(t, s, admin, "Premium", "o1", "", "premium")
	foodPremium := newStore(t, s, admin, "Food premium", "o1", food, "premium")
	basic := newStore(t, s, admin, "Basic", "o1", "", "")
	set := func(fields map[string]any) st.Result {
		args := map[string]any{"adminUserId": "admin-1", "configId": id}
		for k, v := range fields {
			args[k] = v
		}
		return s.Mutation(admin, pcSetTier, args)
	}
	preview := func(store string, subtotal, fee float64) commissionPreview {
		t.Helper()
		return okAs[commissionPreview](t, s.Query(user, pcPreview, map[string]any{"storeId": store, "subtotal": subtotal, "deliveryFee": fee}))
	}
	expect := mustActive(t, s, user)
	check := func(t *testing.T, got platformConfig) {
		t.Helper()
		if !reflect.DeepEqual(got, expect) {
			t.Errorf("configuration\n got %+v\nwant %+v", got, expect)
		}
		if a := mustActive(t, s, user); !reflect.DeepEqual(a, expect) {
			t.Errorf("active configuration\n got %+v\nwant %+v", a, expect)
		}
	}
	setExpected := func(e commissionEntry) {
		for i := range expect.StoreTierCommissions {
			if expect.StoreTierCommissions[i].TierName == e.TierName {
				expect.StoreTierCommissions[i] = e
			}
		}
	}

	t.Run("replaces the tier's entry in place and returns the configuration", func(t *testing.T) {
		got := okAs[platformConfig](t, set(map[string]any{"tierName": "premium", "commissionRate": 0.06, "fixedFee": 0.75, "minimumCommission": 3}))
		setExpected(commissionEntry{TierName: "premium", CommissionRate: 0.06, FixedFee: ptr(0.75), MinimumCommission: ptr(3)})
		check(t, got)
		if got.StoreTierCommissions[1].TierName != "premium" || len(got.StoreTierCommissions) != 3 {
			t.Errorf("tiers: %+v", got.StoreTierCommissions)
		}
		// 6% of 110 + 0.75 = 7.35; on 10: 0.6 + 0.75 = 1.35, raised to 3.
		if p := preview(premium, 100, 10); p.CommissionRate != 0.06 || p.FixedFee != 0.75 || p.PlatformCommission != 7.35 || p.StoreEarnings != 102.65 {
			t.Errorf("premium store: %+v", p)
		}
		if p := preview(premium, 10, 0); p.PlatformCommission != 3 || !p.CommissionBreakdown.MinimumApplied {
			t.Errorf("premium store, minimum: %+v", p)
		}
		// The category entry still comes first; its fee falls to the tier's.
		if p := preview(foodPremium, 100, 10); p.CommissionRate != 0.04 || p.FixedFee != 0.75 || p.PlatformCommission != 5.15 {
			t.Errorf("Food store of the premium tier: %+v", p)
		}
		// Other tiers are untouched.
		if p := preview(basic, 100, 10); p.CommissionRate != 0.05 || p.FixedFee != 2 || p.PlatformCommission != 7.5 {
			t.Errorf("basic store: %+v", p)
		}
	})

	t.Run("an entry without fee and minimum falls back to the defaults", func(t *testing.T) {
		got := okAs[platformConfig](t, set(map[string]any{"tierName": "premium", "commissionRate": 0.045}))
		setExpected(commissionEntry{TierName: "premium", CommissionRate: 0.045})
		check(t, got)
		if e := tierEntry(t, got, "premium"); e.FixedFee != nil || e.MinimumCommission != nil {
			t.Errorf("premium entry %s keeps values it was not given", fmtEntry(e))
		}
		// 4.5% of 110 = 4.95 + the defaults' 2 = 6.95.
		if p := preview(premium, 100, 10); p.CommissionRate != 0.045 || p.FixedFee != 2 || p.PlatformCommission != 6.95 {
			t.Errorf("premium store: %+v", p)
		}
		// Those fields follow the defaults when they change; the entry itself does not.
		got = okAs[platformConfig](t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "fixedFeePerOrder": 1, "minimumCommission": 6}))
		expect.FixedFeePerOrder, expect.MinimumCommission = 1, 6
		check(t, got)
		if p := preview(premium, 100, 10); p.FixedFee != 1 || p.PlatformCommission != 6 || !p.CommissionBreakdown.MinimumApplied {
			t.Errorf("premium store after the defaults' fee and minimum changed: %+v", p)
		}
		got = okAs[platformConfig](t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "fixedFeePerOrder": 2, "minimumCommission": 1}))
		expect.FixedFeePerOrder, expect.MinimumCommission = 2, 1
		check(t, got)
	})

	t.Run("the basic tier can be set too; rate bounds are inclusive", func(t *testing.T) {
		for _, r := range []float64{0, 1, 0.025} {
			got := okAs[platformConfig](t, set(map[string]any{"tierName": "basic", "commissionRate": r, "fixedFee": 0, "minimumCommission": 0}))
			setExpected(commissionEntry{TierName: "basic", CommissionRate: r, FixedFee: ptr(0), MinimumCommission: ptr(0)})
			check(t, got)
		}
		if p := preview(basic, 100, 10); p.CommissionRate != 0.025 || p.FixedFee != 0 || p.PlatformCommission != 2.75 {
			t.Errorf("basic store: %+v", p)
		}
	})

	t.Run("refused, nothing changes", func(t *testing.T) {
		cases := []struct {
			name   string
			fields map[string]any
			field  string
		}{
			{"rate above 1", map[string]any{"tierName": "premium", "commissionRate": 1.5}, "commissionRate"},
			{"negative rate", map[string]any{"tierName": "premium", "commissionRate": -0.1}, "commissionRate"},
			{"rate with 7 decimals", map[string]any{"tierName": "premium", "commissionRate": 0.1234567}, "6 decimals"},
			{"missing rate", map[string]any{"tierName": "premium"}, "commissionRate"},
			{"rate as a string", map[string]any{"tierName": "premium", "commissionRate": "0.1"}, "commissionRate"},
			{"negative fixed fee", map[string]any{"tierName": "premium", "commissionRate": 0.1, "fixedFee": -1}, "fixedFee"},
			{"fixed fee with three decimals", map[string]any{"tierName": "premium", "commissionRate": 0.1, "fixedFee": 0.001}, "fixedFee"},
			{"negative minimum", map[string]any{"tierName": "premium", "commissionRate": 0.1, "minimumCommission": -0.5}, "minimumCommission"},
			{"minimum with three decimals", map[string]any{"tierName": "premium", "commissionRate": 0.1, "minimumCommission": 1.005}, "minimumCommission"},
			{"minimum above the platform maximum", map[string]any{"tierName": "premium", "commissionRate": 0.1, "minimumCommission": 50.01}, "minimumCommission"},
			{"unknown tier", map[string]any{"tierName": "gold", "commissionRate": 0.1}, "tierName"},
			{"tier name in another case", map[string]any{"tierName": "Premium", "commissionRate": 0.1}, "tierName"},
			{"missing tier name", map[string]any{"commissionRate": 0.1}, "tierName"},
			{"tier name as a number", map[string]any{"tierName": 1, "commissionRate": 0.1}, "tierName"},
			{"malformed configId", map[string]any{"configId": "x", "tierName": "premium", "commissionRate": 0.1}, "configId"},
			{"missing configId", map[string]any{"configId": nil, "tierName": "premium", "commissionRate": 0.1}, "configId"},
			{"missing adminUserId", map[string]any{"adminUserId": nil, "tierName": "premium", "commissionRate": 0.1}, "adminUserId"},
			{"unknown argument", map[string]any{"tierName": "premium", "commissionRate": 0.1, "categoryId": food}, "categoryId"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, set(c.fields), "INVALID_ARGUMENT", c.field)
			})
		}
		expectError(t, set(map[string]any{"configId": missingLike(id), "tierName": "premium", "commissionRate": 0.1}), "NOT_FOUND")
		check(t, mustActive(t, s, user))
	})

	t.Run("access", func(t *testing.T) {
		args := map[string]any{"adminUserId": "admin-1", "configId": id, "tierName": "premium", "commissionRate": 0.5}
		expectError(t, s.Mutation("", pcSetTier, args), "UNAUTHENTICATED")
		expectError(t, s.Mutation(expiredToken(t, s, "admin-1", "admin"), pcSetTier, args), "UNAUTHENTICATED")
		expectError(t, s.Mutation(user, pcSetTier, map[string]any{"adminUserId": "user-1", "configId": id, "tierName": "premium", "commissionRate": 0.5}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(s.Token("admin-2", "admin"), pcSetTier, args), "PERMISSION_DENIED")
		expectError(t, s.Query(admin, pcSetTier, args), "INVALID_ARGUMENT") // a mutation
		check(t, mustActive(t, s, user))
	})
}

type historyChange struct {
	Field    string          `json:"field"`
	OldValue json.RawMessage `json:"oldValue"`
	NewValue json.RawMessage `json:"newValue"`
}

type historyEntry struct {
	ID        string          `json:"_id"`
	ConfigID  string          `json:"configId"`
	ChangedBy string          `json:"changedBy"`
	ChangedAt int64           `json:"changedAt"`
	Operation string          `json:"operation"`
	Changes   []historyChange `json:"changes"`
}

type historyPage struct {
	Page           []historyEntry `json:"page"`
	IsDone         bool           `json:"isDone"`
	ContinueCursor string         `json:"continueCursor"`
}

// jsonEqual compares a JSON value with what want marshals to.
func jsonEqual(got json.RawMessage, want any) bool {
	w, _ := json.Marshal(want)
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal(w, &b) != nil {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// want is one expected change: nil old or new is JSON null.
type wantChange struct {
	field    string
	old, new any
}

func checkChanges(t testing.TB, e historyEntry, want ...wantChange) {
	t.Helper()
	ok := len(e.Changes) == len(want)
	for i := 0; ok && i < len(want); i++ {
		c := e.Changes[i]
		ok = c.Field == want[i].field && jsonEqual(c.OldValue, want[i].old) && jsonEqual(c.NewValue, want[i].new)
	}
	if !ok {
		b, _ := json.Marshal(e.Changes)
		t.Errorf("%s changes %s, want %+v", e.Operation, b, want)
	}
}

func history(t testing.TB, s *st.Sys, token, configID string, n int, cursor any) historyPage {
	t.Helper()
	return okAs[historyPage](t, s.Query(token, pcHistory, map[string]any{"configId": configID, "paginationOpts": map[string]any{"numItems": n, "cursor": cursor}}))
}

// TestPlatformConfigHistory: every change appends an entry (who, when, which
// fields, old and new values), in its transaction; nothing is appended for a
// refused or a no-op change; entries read newest first, paged by a cursor, by
// administrators only.
func TestPlatformConfigHistory(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	admin2 := s.Token("admin-2", "admin")
	user := s.Token("user-1")
	before := time.Now().UnixMilli()
	id := initConfig(t, s)
	after := time.Now().UnixMilli()
	cats := map[string]string{}
	for _, c := range listCategories(t, s) {
		cats[c.Name] = c.ID
	}
	books := newCategory(t, s, admin, "Books")
	count := func() int { return len(history(t, s, admin, id, 100, nil).Page) }

	t.Run("creation lists every field from null", func(t *testing.T) {
		h := history(t, s, admin, id, 10, nil)
		if len(h.Page) != 1 || !h.IsDone {
			t.Fatalf("history after creation: %+v", h)
		}
		e := h.Page[0]
		if e.ID == "" || e.ConfigID != id || e.ChangedBy != "admin-1" || e.Operation != "createInitialPlatformConfig" || e.ChangedAt < before || e.ChangedAt > after {
			t.Errorf("entry %+v (created between %d and %d)", e, before, after)
		}
		c := mustActive(t, s, user)
		byField := map[string]historyChange{}
		for _, ch := range e.Changes {
			byField[ch.Field] = ch
			if string(ch.OldValue) != "null" {
				t.Errorf("%s: old value %s at creation", ch.Field, ch.OldValue)
			}
		}
		want := map[string]any{
			"defaultCommissionRate": 0.05, "fixedFeePerOrder": 2, "minimumCommission": 1, "maximumCommission": 50,
			"categoryCommissions." + cats["Food"]:        map[string]any{"categoryId": cats["Food"], "commissionRate": 0.04},
			"categoryCommissions." + cats["Groceries"]:   map[string]any{"categoryId": cats["Groceries"], "commissionRate": 0.03},
			"categoryCommissions." + cats["Electronics"]: map[string]any{"categoryId": cats["Electronics"], "commissionRate": 0.07},
			"storeTierCommissions.basic":                 initialTiers[0],
			"storeTierCommissions.premium":               initialTiers[1],
			"storeTierCommissions.enterprise":            initialTiers[2],
			"walletSettings.minPayoutAmount":             c.WalletSettings.MinPayoutAmount,
			"walletSettings.maxPayoutAmount":             c.WalletSettings.MaxPayoutAmount,
			"walletSettings.payoutProcessingFee":         c.WalletSettings.PayoutProcessingFee,
			"walletSettings.pendingBalanceHoldDays":      c.WalletSettings.PendingBalanceHoldDays,
			"walletSettings.disputeFee":                  15.0,    // the default (docs/adr/0147)
			"walletSettings.disputeFeeChargedTo":         "store", // the default
			"locationSettings.defaultSearchRadiusKm":     c.LocationSettings.DefaultSearchRadiusKm,
			"locationSettings.maxSearchRadiusKm":         c.LocationSettings.MaxSearchRadiusKm,
			"isActive":                                   true,
			"effectiveDate":                              c.EffectiveDate,
		}
		if len(e.Changes) != len(want) {
			t.Errorf("%d changes at creation, want %d", len(e.Changes), len(want))
		}
		for f, v := range want {
			if ch, ok := byField[f]; !ok || !jsonEqual(ch.NewValue, v) {
				t.Errorf("%s: %s, want %v", f, ch.NewValue, v)
			}
		}
	})

	t.Run("an update lists only the fields whose value changed", func(t *testing.T) {
		st.MustOK(t, s.Mutation(admin2, pcUpdate, map[string]any{"adminUserId": "admin-2", "configId": id,
			"defaultCommissionRate": 0.06, "fixedFeePerOrder": 2, "walletSettings": map[string]any{"minPayoutAmount": 150.5, "maxPayoutAmount": 50000}}))
		e := history(t, s, admin, id, 1, nil).Page[0]
		if e.Operation != "updatePlatformConfig" || e.ChangedBy != "admin-2" || e.ConfigID != id {
			t.Errorf("entry %+v", e)
		}
		checkChanges(t, e, wantChange{"defaultCommissionRate", 0.05, 0.06}, wantChange{"walletSettings.minPayoutAmount", 100, 150.5})
	})

	t.Run("refused and no-op changes append nothing", func(t *testing.T) {
		n := count()
		expectError(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "defaultCommissionRate": 0.07, "minimumCommission": 100}), "INVALID_ARGUMENT")
		expectError(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "defaultCommissionRate": 1.5}), "INVALID_ARGUMENT")
		expectError(t, s.Mutation(admin, pcSetTier, map[string]any{"adminUserId": "admin-1", "configId": id, "tierName": "premium", "commissionRate": 0.1, "minimumCommission": 51}), "INVALID_ARGUMENT")
		expectError(t, s.Mutation(admin, pcAddCat, map[string]any{"adminUserId": "admin-1", "configId": id, "categoryId": books, "commissionRate": 0.1234567}), "INVALID_ARGUMENT")
		expectError(t, s.Mutation(user, pcUpdate, map[string]any{"adminUserId": "user-1", "configId": id, "defaultCommissionRate": 0.07}), "PERMISSION_DENIED")
		st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id}))
		st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "defaultCommissionRate": 0.06, "walletSettings": map[string]any{}}))
		st.MustOK(t, s.Mutation(admin, pcSetTier, map[string]any{"adminUserId": "admin-1", "configId": id, "tierName": "premium", "commissionRate": 0.04, "fixedFee": 1.5, "minimumCommission": 1}))
		if got := count(); got != n {
			t.Errorf("%d entries after refused and no-op changes, %d before", got, n)
		}
		if c := mustActive(t, s, user); c.DefaultCommissionRate != 0.06 || c.MinimumCommission != 1 {
			t.Errorf("a refused update changed the configuration: %+v", c)
		}
	})

	t.Run("addCategoryCommission: a new entry, then a replaced one", func(t *testing.T) {
		st.MustOK(t, s.Mutation(admin, pcAddCat, map[string]any{"adminUserId": "admin-1", "configId": id, "categoryId": books, "commissionRate": 0.1}))
		e := history(t, s, admin, id, 1, nil).Page[0]
		if e.Operation != "addCategoryCommission" || e.ChangedBy != "admin-1" {
			t.Errorf("entry %+v", e)
		}
		checkChanges(t, e, wantChange{"categoryCommissions." + books, nil, map[string]any{"categoryId": books, "commissionRate": 0.1}})

		st.MustOK(t, s.Mutation(admin, pcAddCat, map[string]any{"adminUserId": "admin-1", "configId": id, "categoryId": cats["Food"], "commissionRate": 0.045, "minimumCommission": 2.5}))
		checkChanges(t, history(t, s, admin, id, 1, nil).Page[0], wantChange{"categoryCommissions." + cats["Food"],
			map[string]any{"categoryId": cats["Food"], "commissionRate": 0.04},
			map[string]any{"categoryId": cats["Food"], "commissionRate": 0.045, "minimumCommission": 2.5}})
	})

	t.Run("setTierCommission", func(t *testing.T) {
		st.MustOK(t, s.Mutation(admin2, pcSetTier, map[string]any{"adminUserId": "admin-2", "configId": id, "tierName": "enterprise", "commissionRate": 0.025}))
		e := history(t, s, admin, id, 1, nil).Page[0]
		if e.Operation != "setTierCommission" || e.ChangedBy != "admin-2" {
			t.Errorf("entry %+v", e)
		}
		checkChanges(t, e, wantChange{"storeTierCommissions.enterprise", initialTiers[2], map[string]any{"tierName": "enterprise", "commissionRate": 0.025}})
	})

	all := history(t, s, admin, id, 100, nil)
	t.Run("newest first", func(t *testing.T) {
		var ops []string
		for i, e := range all.Page {
			ops = append(ops, e.Operation)
			if i > 0 && e.ChangedAt > all.Page[i-1].ChangedAt {
				t.Errorf("entry %d is newer than entry %d", i, i-1)
			}
		}
		want := []string{"setTierCommission", "addCategoryCommission", "addCategoryCommission", "updatePlatformConfig", "createInitialPlatformConfig"}
		if !reflect.DeepEqual(ops, want) || !all.IsDone {
			t.Errorf("operations %v (isDone %v), want %v", ops, all.IsDone, want)
		}
	})

	t.Run("paging with a cursor", func(t *testing.T) {
		var got []historyEntry
		var cursor any // null starts at the beginning
		for pages := 0; ; pages++ {
			if pages > 5 {
				t.Fatal("paging does not end")
			}
			p := history(t, s, admin, id, 2, cursor)
			got = append(got, p.Page...)
			if p.IsDone {
				break
			}
			if len(p.Page) != 2 || p.ContinueCursor == "" {
				t.Fatalf("page %d: %+v", pages, p)
			}
			cursor = p.ContinueCursor
		}
		if !reflect.DeepEqual(got, all.Page) {
			t.Errorf("pages of 2 gave %d entries, want the %d of one page, in the same order", len(got), len(all.Page))
		}
		// A change after a page was read is not seen by the pages that follow
		// (they go on to older entries), so nothing repeats.
		first := history(t, s, admin, id, 2, nil)
		st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "maximumCommission": 55}))
		rest := history(t, s, admin, id, 100, first.ContinueCursor)
		if len(rest.Page) != len(all.Page)-2 || !reflect.DeepEqual(rest.Page, all.Page[2:]) {
			t.Errorf("after a new change the next page is %d entries, want %d", len(rest.Page), len(all.Page)-2)
		}
		expectError(t, s.Query(admin, pcHistory, map[string]any{"configId": id, "paginationOpts": map[string]any{"numItems": 2, "cursor": "garbage"}}), "INVALID_ARGUMENT", "cursor")
	})

	t.Run("access and errors", func(t *testing.T) {
		args := map[string]any{"configId": id, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}
		expectError(t, s.Query("", pcHistory, args), "UNAUTHENTICATED")
		expectError(t, s.Query(user, pcHistory, args), "PERMISSION_DENIED")
		expectError(t, s.Query(s.Token("owner-1"), pcHistory, args), "PERMISSION_DENIED")
		expectError(t, s.Query(admin, pcHistory, map[string]any{"configId": missingLike(id), "paginationOpts": map[string]any{"numItems": 10}}), "NOT_FOUND")
		expectError(t, s.Query(admin, pcHistory, map[string]any{"configId": books, "paginationOpts": map[string]any{"numItems": 10}}), "INVALID_ARGUMENT", "configId")
		expectError(t, s.Query(admin, pcHistory, map[string]any{"configId": id}), "INVALID_ARGUMENT", "paginationOpts")
		expectError(t, s.Query(admin, pcHistory, map[string]any{"paginationOpts": map[string]any{"numItems": 10}}), "INVALID_ARGUMENT", "configId")
		expectError(t, s.Mutation(admin, pcHistory, args), "INVALID_ARGUMENT") // a query
	})
}

// TestPlatformConfigHistoryConcurrentChanges: concurrent changes each commit
// with their own entry, and the entries chain: each one's old value is the new
// value of the entry before it (no change is lost or recorded against a stale
// read).
func TestPlatformConfigHistoryConcurrentChanges(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	id := initConfig(t, s)
	const n = 8
	results := st.Concurrently(n, func(i int) st.Result {
		return s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "walletSettings": map[string]any{"pendingBalanceHoldDays": 10 + i}})
	})
	for _, r := range results {
		st.MustOK(t, r)
	}
	h := history(t, s, admin, id, 100, nil)
	if len(h.Page) != n+1 {
		t.Fatalf("%d entries after %d concurrent updates and the creation", len(h.Page), n)
	}
	seen := map[string]bool{}
	for i := len(h.Page) - 2; i >= 0; i-- {
		prev, e := h.Page[i+1], h.Page[i]
		if len(e.Changes) != 1 || e.Changes[0].Field != "walletSettings.pendingBalanceHoldDays" {
			t.Fatalf("entry %+v", e)
		}
		var prevNew json.RawMessage
		for _, c := range prev.Changes {
			if c.Field == "walletSettings.pendingBalanceHoldDays" {
				prevNew = c.NewValue
			}
		}
		if string(e.Changes[0].OldValue) != string(prevNew) {
			t.Errorf("entry %d changes from %s, but the entry before it set %s", i, e.Changes[0].OldValue, prevNew)
		}
		seen[string(e.Changes[0].NewValue)] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct new values recorded, want %d", len(seen), n)
	}
	last := string(h.Page[0].Changes[0].NewValue)
	if c := mustActive(t, s, admin); fmt.Sprint(c.WalletSettings.PendingBalanceHoldDays) != last {
		t.Errorf("stored hold days %v, newest entry says %s", c.WalletSettings.PendingBalanceHoldDays, last)
	}
}
