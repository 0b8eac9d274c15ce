package e2e

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

const (
	pcCreate  = "admins.platformAdmin.createInitialPlatformConfig"
	pcActive  = "admins.platformAdmin.getActivePlatformConfig"
	pcUpdate  = "admins.platformAdmin.updatePlatformConfig"
	pcAddCat  = "admins.platformAdmin.addCategoryCommission"
	pcPreview = "admins.platformAdmin.getCommissionPreview"
)

type commissionEntry struct {
	CategoryID        string   `json:"categoryId,omitempty"`
	TierName          string   `json:"tierName,omitempty"`
	CommissionRate    float64  `json:"commissionRate"`
	FixedFee          *float64 `json:"fixedFee"`
	MinimumCommission *float64 `json:"minimumCommission"`
}

type walletSettingsView struct {
	MinPayoutAmount        float64 `json:"minPayoutAmount"`
	MaxPayoutAmount        float64 `json:"maxPayoutAmount"`
	PayoutProcessingFee    float64 `json:"payoutProcessingFee"`
	PendingBalanceHoldDays float64 `json:"pendingBalanceHoldDays"`
}

type locationSettingsView struct {
	DefaultSearchRadiusKm float64 `json:"defaultSearchRadiusKm"`
	MaxSearchRadiusKm     float64 `json:"maxSearchRadiusKm"`
}

type platformConfig struct {
	ID                    string               `json:"_id"`
	CreationTime          int64                `json:"_creationTime"`
	DefaultCommissionRate float64              `json:"defaultCommissionRate"`
	FixedFeePerOrder      float64              `json:"fixedFeePerOrder"`
	MinimumCommission     float64              `json:"minimumCommission"`
	MaximumCommission     float64              `json:"maximumCommission"`
	CategoryCommissions   []commissionEntry    `json:"categoryCommissions"`
	StoreTierCommissions  []commissionEntry    `json:"storeTierCommissions"`
	WalletSettings        walletSettingsView   `json:"walletSettings"`
	LocationSettings      locationSettingsView `json:"locationSettings"`
	IsActive              bool                 `json:"isActive"`
	EffectiveDate         int64                `json:"effectiveDate"`
}

type commissionPreview struct {
	Subtotal            float64 `json:"subtotal"`
	DeliveryFee         float64 `json:"deliveryFee"`
	TotalAmount         float64 `json:"totalAmount"`
	PlatformCommission  float64 `json:"platformCommission"`
	StoreEarnings       float64 `json:"storeEarnings"`
	CommissionRate      float64 `json:"commissionRate"`
	FixedFee            float64 `json:"fixedFee"`
	CommissionBreakdown struct {
		PercentageCommission float64 `json:"percentageCommission"`
		FixedFeeAmount       float64 `json:"fixedFeeAmount"`
		MinimumApplied       bool    `json:"minimumApplied"`
		MaximumApplied       bool    `json:"maximumApplied"`
	} `json:"commissionBreakdown"`
}

func ptr(v float64) *float64 { return &v }

// activeConfig reads the configuration in force; nil when the answer is null.
func activeConfig(t testing.TB, s *st.Sys, token string) *platformConfig {
	t.Helper()
	return okAs[*platformConfig](t, s.Query(token, pcActive, nil))
}

func mustActive(t testing.TB, s *st.Sys, token string) platformConfig {
	t.Helper()
	c := activeConfig(t, s, token)
	if c == nil {
		t.Fatal("no active platform configuration")
	}
	return *c
}

// initConfig creates the initial configuration as admin-1 and returns its id.
func initConfig(t testing.TB, s *st.Sys) string {
	t.Helper()
	return okID(t, s.Mutation(s.Token("admin-1", "admin"), pcCreate, map[string]any{"adminUserId": "admin-1"}))
}

func categoryEntry(c platformConfig, categoryID string) []commissionEntry {
	var out []commissionEntry
	for _, e := range c.CategoryCommissions {
		if e.CategoryID == categoryID {
			out = append(out, e)
		}
	}
	return out
}

func fmtEntry(e commissionEntry) string {
	f := func(p *float64) string {
		if p == nil {
			return "absent"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("{%s%s rate=%v fixedFee=%s minimumCommission=%s}", e.CategoryID, e.TierName, e.CommissionRate, f(e.FixedFee), f(e.MinimumCommission))
}

func sameEntry(a, b commissionEntry) bool { return fmtEntry(a) == fmtEntry(b) }

// TestPlatformConfigCreateInitial covers createInitialPlatformConfig and
// getActivePlatformConfig: the state before, who may create, the exact defaults,
// and the one-active-configuration rule.
func TestPlatformConfigCreateInitial(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	user := s.Token("user-1")
	// A category that already exists under one of the default names (in another
	// case) must be reused, not duplicated.
	food := newCategory(t, s, admin, "food")
	store := newStore(t, s, admin, "Shop", "owner-1", "", "")

	t.Run("before creation", func(t *testing.T) {
		r := st.MustOK(t, s.Query(user, pcActive, nil))
		if strings.TrimSpace(string(r.Body)) != "null" {
			t.Errorf("active config before creation: %s", r.Body)
		}
		expectError(t, s.Query("", pcActive, nil), "UNAUTHENTICATED")
		expectError(t, s.Query("garbage", pcActive, nil), "UNAUTHENTICATED")
		expectError(t, s.Query(admin, pcPreview, map[string]any{"storeId": store, "subtotal": 100, "deliveryFee": 10}), "FAILED_PRECONDITION")
	})

	t.Run("who may create", func(t *testing.T) {
		expectError(t, s.Mutation("", pcCreate, map[string]any{"adminUserId": "admin-1"}), "UNAUTHENTICATED")
		expectError(t, s.Mutation(expiredToken(t, s, "admin-1", "admin"), pcCreate, map[string]any{"adminUserId": "admin-1"}), "UNAUTHENTICATED")
		expectError(t, s.Mutation(user, pcCreate, map[string]any{"adminUserId": "user-1"}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(admin, pcCreate, map[string]any{"adminUserId": "admin-2"}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(admin, pcCreate, nil), "INVALID_ARGUMENT", "adminUserId")
		expectError(t, s.Mutation(admin, pcCreate, map[string]any{"adminUserId": 1}), "INVALID_ARGUMENT", "adminUserId")
		expectError(t, s.Mutation(admin, pcCreate, map[string]any{"adminUserId": "admin-1", "defaultCommissionRate": 0.1}), "INVALID_ARGUMENT", "defaultCommissionRate")
		if c := activeConfig(t, s, user); c != nil {
			t.Fatalf("a refused create made a configuration: %+v", c)
		}
	})

	before := time.Now().UnixMilli()
	id := initConfig(t, s)
	after := time.Now().UnixMilli()

	t.Run("the active configuration has the contract's fields", func(t *testing.T) {
		m := okAs[map[string]any](t, s.Query(user, pcActive, nil))
		requireKeys(t, "platform config", m, "_id", "_creationTime", "defaultCommissionRate", "fixedFeePerOrder", "minimumCommission",
			"maximumCommission", "categoryCommissions", "storeTierCommissions", "walletSettings", "locationSettings", "isActive", "effectiveDate")
		if w, ok := m["walletSettings"].(map[string]any); ok {
			requireKeys(t, "walletSettings", w, "minPayoutAmount", "maxPayoutAmount", "payoutProcessingFee", "pendingBalanceHoldDays")
		} else {
			t.Errorf("walletSettings is not an object: %v", m["walletSettings"])
		}
		if l, ok := m["locationSettings"].(map[string]any); ok {
			requireKeys(t, "locationSettings", l, "defaultSearchRadiusKm", "maxSearchRadiusKm")
		} else {
			t.Errorf("locationSettings is not an object: %v", m["locationSettings"])
		}
	})

	t.Run("platform defaults", func(t *testing.T) {
		c := mustActive(t, s, user)
		if c.ID != id || !c.IsActive {
			t.Errorf("active config %s (isActive %v), created %s", c.ID, c.IsActive, id)
		}
		if c.DefaultCommissionRate != 0.05 || c.FixedFeePerOrder != 2 || c.MinimumCommission != 1 || c.MaximumCommission != 50 {
			t.Errorf("defaults: rate %v fixed %v min %v max %v", c.DefaultCommissionRate, c.FixedFeePerOrder, c.MinimumCommission, c.MaximumCommission)
		}
		if c.EffectiveDate < before-1000 || c.EffectiveDate > after+1000 || c.CreationTime < before-1000 || c.CreationTime > after+1000 {
			t.Errorf("effectiveDate %d / _creationTime %d not within [%d, %d]", c.EffectiveDate, c.CreationTime, before, after)
		}
	})

	t.Run("category commissions name real catalog categories", func(t *testing.T) {
		c := mustActive(t, s, user)
		cats := listCategories(t, s)
		byName := map[string]string{}
		for _, k := range cats {
			byName[strings.ToLower(k.Name)] = k.ID
		}
		if len(cats) != 3 || byName["food"] != food || byName["groceries"] == "" || byName["electronics"] == "" {
			t.Fatalf("catalog categories after creation: %+v (the existing 'food' is %s)", cats, food)
		}
		want := map[string]float64{food: 0.04, byName["groceries"]: 0.03, byName["electronics"]: 0.07}
		if len(c.CategoryCommissions) != len(want) {
			t.Fatalf("category commissions: %+v", c.CategoryCommissions)
		}
		for _, e := range c.CategoryCommissions {
			if r, ok := want[e.CategoryID]; !ok || e.CommissionRate != r {
				t.Errorf("category entry %s, want rates %v", fmtEntry(e), want)
			}
			delete(want, e.CategoryID)
		}
	})

	t.Run("tiers: basic stored with the platform defaults' values", func(t *testing.T) {
		c := mustActive(t, s, user)
		want := map[string]commissionEntry{
			"basic":      {TierName: "basic", CommissionRate: 0.05, FixedFee: ptr(2), MinimumCommission: ptr(1)},
			"premium":    {TierName: "premium", CommissionRate: 0.04, FixedFee: ptr(1.5), MinimumCommission: ptr(1)},
			"enterprise": {TierName: "enterprise", CommissionRate: 0.03, FixedFee: ptr(1), MinimumCommission: ptr(0.5)},
		}
		if len(c.StoreTierCommissions) != len(want) {
			t.Fatalf("tiers: %+v", c.StoreTierCommissions)
		}
		for _, e := range c.StoreTierCommissions {
			if w, ok := want[e.TierName]; !ok || !sameEntry(e, w) {
				t.Errorf("tier %s, want %s", fmtEntry(e), fmtEntry(w))
			}
			delete(want, e.TierName)
		}
	})

	t.Run("wallet and location settings are consistent", func(t *testing.T) {
		c := mustActive(t, s, user)
		w, l := c.WalletSettings, c.LocationSettings
		if w.MinPayoutAmount <= 0 || w.MaxPayoutAmount < w.MinPayoutAmount || w.PayoutProcessingFee < 0 ||
			w.PayoutProcessingFee > w.MinPayoutAmount || w.PendingBalanceHoldDays < 0 || w.PendingBalanceHoldDays != math.Trunc(w.PendingBalanceHoldDays) {
			t.Errorf("wallet settings: %+v", w)
		}
		if l.DefaultSearchRadiusKm <= 0 || l.MaxSearchRadiusKm < l.DefaultSearchRadiusKm {
			t.Errorf("location settings: %+v", l)
		}
	})

	t.Run("a second configuration is refused", func(t *testing.T) {
		expectError(t, s.Mutation(admin, pcCreate, map[string]any{"adminUserId": "admin-1"}), "ALREADY_EXISTS")
		expectError(t, s.Mutation(s.Token("admin-2", "admin"), pcCreate, map[string]any{"adminUserId": "admin-2"}), "ALREADY_EXISTS")
		if c := mustActive(t, s, user); c.ID != id {
			t.Errorf("active config changed to %s", c.ID)
		}
		if cats := listCategories(t, s); len(cats) != 3 {
			t.Errorf("categories after refused creates: %+v", cats)
		}
	})
}

// TestPlatformConfigConcurrentCreate: of ten simultaneous creates exactly one wins,
// and the default categories are not duplicated.
func TestPlatformConfigConcurrentCreate(t *testing.T) {
	s := st.Start(t)
	const n = 10
	toks := make([]string, n)
	for i := range n {
		toks[i] = s.Token(fmt.Sprintf("admin-%d", i), "admin")
	}
	results := st.Concurrently(n, func(i int) st.Result {
		return s.Mutation(toks[i], pcCreate, map[string]any{"adminUserId": fmt.Sprintf("admin-%d", i)})
	})

	var winner string
	wins := 0
	for _, r := range results {
		if r.Status == 200 {
			wins++
			winner = okID(t, r)
			continue
		}
		expectError(t, r, "ALREADY_EXISTS")
	}
	if wins != 1 {
		t.Fatalf("%d creates succeeded, want exactly 1", wins)
	}
	if c := mustActive(t, s, s.Token("user-1")); c.ID != winner {
		t.Errorf("active config %s, winner %s", c.ID, winner)
	}
	cats := listCategories(t, s)
	names := map[string]int{}
	for _, c := range cats {
		names[c.Name]++
	}
	if len(cats) != 3 || names["Food"] != 1 || names["Groceries"] != 1 || names["Electronics"] != 1 {
		t.Errorf("categories after concurrent creates: %+v", cats)
	}
}

// TestPlatformConfigUpdate covers updatePlatformConfig: partial updates, bounds,
// the minimum/maximum rule, access, and that a refused update changes nothing.
func TestPlatformConfigUpdate(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	user := s.Token("user-1")
	id := initConfig(t, s)
	someCategory := listCategories(t, s)[0].ID

	update := func(fields map[string]any) st.Result {
		args := map[string]any{"adminUserId": "admin-1", "configId": id}
		for k, v := range fields {
			args[k] = v
		}
		return s.Mutation(admin, pcUpdate, args)
	}
	// expect is the configuration the tests below believe is stored. Its tier
	// entries never change here: changing the defaults leaves every tier entry,
	// basic included, as it was (contract section 4).
	expect := mustActive(t, s, user)
	check := func(t *testing.T) {
		t.Helper()
		got := mustActive(t, s, user)
		if !reflect.DeepEqual(got, expect) {
			t.Errorf("stored configuration\n got %+v\nwant %+v", got, expect)
		}
	}

	t.Run("only the given field changes", func(t *testing.T) {
		got := okAs[platformConfig](t, update(map[string]any{"defaultCommissionRate": 0.06}))
		expect.DefaultCommissionRate = 0.06
		if !reflect.DeepEqual(got, expect) {
			t.Errorf("update response\n got %+v\nwant %+v", got, expect)
		}
		check(t)
	})

	t.Run("several fields", func(t *testing.T) {
		st.MustOK(t, update(map[string]any{"fixedFeePerOrder": 3.25, "maximumCommission": 60, "minimumCommission": 0}))
		expect.FixedFeePerOrder, expect.MaximumCommission, expect.MinimumCommission = 3.25, 60, 0
		check(t)
		st.MustOK(t, update(map[string]any{"minimumCommission": 1.5}))
		expect.MinimumCommission = 1.5
		check(t)
	})

	t.Run("rate bounds are inclusive", func(t *testing.T) {
		st.MustOK(t, update(map[string]any{"defaultCommissionRate": 0}))
		expect.DefaultCommissionRate = 0
		check(t)
		st.MustOK(t, update(map[string]any{"defaultCommissionRate": 1}))
		expect.DefaultCommissionRate = 1
		check(t)
		st.MustOK(t, update(map[string]any{"defaultCommissionRate": 0.06}))
		expect.DefaultCommissionRate = 0.06
		check(t)
	})

	t.Run("minimum equal to maximum", func(t *testing.T) {
		st.MustOK(t, update(map[string]any{"minimumCommission": 60}))
		expect.MinimumCommission = 60
		check(t)
		st.MustOK(t, update(map[string]any{"minimumCommission": 1.5}))
		expect.MinimumCommission = 1.5
		check(t)
	})

	t.Run("wallet settings: only the given sub-fields change", func(t *testing.T) {
		st.MustOK(t, update(map[string]any{"walletSettings": map[string]any{"payoutProcessingFee": 3}}))
		expect.WalletSettings.PayoutProcessingFee = 3
		check(t)
		newMin := expect.WalletSettings.MinPayoutAmount + 25.5
		st.MustOK(t, update(map[string]any{"walletSettings": map[string]any{"minPayoutAmount": newMin, "pendingBalanceHoldDays": 3}}))
		expect.WalletSettings.MinPayoutAmount, expect.WalletSettings.PendingBalanceHoldDays = newMin, 3
		check(t)
		st.MustOK(t, update(map[string]any{"walletSettings": map[string]any{"maxPayoutAmount": 20000}}))
		expect.WalletSettings.MaxPayoutAmount = 20000
		check(t)
		st.MustOK(t, update(map[string]any{"walletSettings": map[string]any{}}))
		st.MustOK(t, update(nil))
		check(t)
	})

	t.Run("refused updates name the field and change nothing", func(t *testing.T) {
		cases := []struct {
			name   string
			fields map[string]any
			field  string
		}{
			{"rate above 1", map[string]any{"defaultCommissionRate": 1.01}, "defaultCommissionRate"},
			{"rate as a percentage", map[string]any{"defaultCommissionRate": 5}, "defaultCommissionRate"},
			{"negative rate", map[string]any{"defaultCommissionRate": -0.01}, "defaultCommissionRate"},
			{"rate as a string", map[string]any{"defaultCommissionRate": "0.05"}, "defaultCommissionRate"},
			{"negative fixed fee", map[string]any{"fixedFeePerOrder": -1}, "fixedFeePerOrder"},
			{"fixed fee a fil below zero", map[string]any{"fixedFeePerOrder": -0.01}, "fixedFeePerOrder"},
			{"fixed fee with three decimals", map[string]any{"fixedFeePerOrder": 2.005}, "fixedFeePerOrder"},
			{"negative minimum", map[string]any{"minimumCommission": -1}, "minimumCommission"},
			{"negative maximum", map[string]any{"maximumCommission": -5}, "maximumCommission"},
			{"minimum above the stored maximum", map[string]any{"minimumCommission": 60.01}, "minimumCommission"},
			{"maximum below the stored minimum", map[string]any{"maximumCommission": 1}, "minimumCommission"},
			{"minimum above the given maximum", map[string]any{"minimumCommission": 10, "maximumCommission": 5}, "minimumCommission"},
			{"a valid field with an invalid one", map[string]any{"defaultCommissionRate": 0.08, "minimumCommission": 100}, "minimumCommission"},
			{"a valid field with an out-of-range one", map[string]any{"fixedFeePerOrder": 9, "maximumCommission": -1}, "maximumCommission"},
			{"negative minPayoutAmount", map[string]any{"walletSettings": map[string]any{"minPayoutAmount": -1}}, "minPayoutAmount"},
			{"negative maxPayoutAmount", map[string]any{"walletSettings": map[string]any{"maxPayoutAmount": -1}}, "maxPayoutAmount"},
			{"negative payoutProcessingFee", map[string]any{"walletSettings": map[string]any{"payoutProcessingFee": -2}}, "payoutProcessingFee"},
			{"fractional hold days", map[string]any{"walletSettings": map[string]any{"pendingBalanceHoldDays": 1.5}}, "pendingBalanceHoldDays"},
			{"negative hold days", map[string]any{"walletSettings": map[string]any{"pendingBalanceHoldDays": -1}}, "pendingBalanceHoldDays"},
			{"minPayoutAmount above maxPayoutAmount", map[string]any{"walletSettings": map[string]any{"minPayoutAmount": 30000}}, "minPayoutAmount"},
			{"unknown wallet setting", map[string]any{"walletSettings": map[string]any{"currency": "AED"}}, "currency"},
			{"walletSettings not an object", map[string]any{"walletSettings": 5}, "walletSettings"},
			{"unknown argument", map[string]any{"storeTierCommissions": []any{}}, "storeTierCommissions"},
			{"malformed configId", map[string]any{"configId": "config-1"}, "configId"},
			{"category id as configId", map[string]any{"configId": someCategory}, "configId"},
			{"missing configId", map[string]any{"configId": nil}, "configId"},
			{"missing adminUserId", map[string]any{"adminUserId": nil}, "adminUserId"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, update(c.fields), "INVALID_ARGUMENT", c.field)
			})
		}
		check(t)
	})

	t.Run("missing configuration", func(t *testing.T) {
		expectError(t, update(map[string]any{"configId": missingLike(id), "defaultCommissionRate": 0.1}), "NOT_FOUND")
		check(t)
	})

	t.Run("access", func(t *testing.T) {
		args := map[string]any{"adminUserId": "admin-1", "configId": id, "defaultCommissionRate": 0.2}
		expectError(t, s.Mutation("", pcUpdate, args), "UNAUTHENTICATED")
		expectError(t, s.Mutation(user, pcUpdate, map[string]any{"adminUserId": "user-1", "configId": id, "defaultCommissionRate": 0.2}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(s.Token("admin-2", "admin"), pcUpdate, args), "PERMISSION_DENIED")
		check(t)
	})
}

// TestPlatformConfigCategoryCommission covers addCategoryCommission.
func TestPlatformConfigCategoryCommission(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	user := s.Token("user-1")
	id := initConfig(t, s)
	books := newCategory(t, s, admin, "Books")
	var food string
	for _, c := range listCategories(t, s) {
		if c.Name == "Food" {
			food = c.ID
		}
	}
	add := func(fields map[string]any) st.Result {
		args := map[string]any{"adminUserId": "admin-1", "configId": id}
		for k, v := range fields {
			args[k] = v
		}
		return s.Mutation(admin, pcAddCat, args)
	}
	expect := mustActive(t, s, user)
	check := func(t *testing.T) {
		t.Helper()
		got := mustActive(t, s, user)
		if !reflect.DeepEqual(got, expect) {
			t.Errorf("stored configuration\n got %+v\nwant %+v", got, expect)
		}
	}
	// setEntry updates expect the way a replacement (or an addition) should.
	setEntry := func(e commissionEntry) {
		for i := range expect.CategoryCommissions {
			if expect.CategoryCommissions[i].CategoryID == e.CategoryID {
				expect.CategoryCommissions[i] = e
				return
			}
		}
		expect.CategoryCommissions = append(expect.CategoryCommissions, e)
	}
	checkOne := func(t *testing.T, category string, want commissionEntry) {
		t.Helper()
		got := categoryEntry(mustActive(t, s, user), category)
		if len(got) != 1 || !sameEntry(got[0], want) {
			t.Errorf("entries for %s: %v, want exactly %s", category, got, fmtEntry(want))
		}
	}

	t.Run("adds an entry", func(t *testing.T) {
		st.MustOK(t, add(map[string]any{"categoryId": books, "commissionRate": 0.1}))
		e := commissionEntry{CategoryID: books, CommissionRate: 0.1}
		setEntry(e)
		checkOne(t, books, e)
		check(t)
		if n := len(mustActive(t, s, user).CategoryCommissions); n != 4 {
			t.Errorf("%d category entries, want 4", n)
		}
	})

	t.Run("the same category again replaces its entry", func(t *testing.T) {
		st.MustOK(t, add(map[string]any{"categoryId": books, "commissionRate": 0.12, "fixedFee": 1, "minimumCommission": 3}))
		e := commissionEntry{CategoryID: books, CommissionRate: 0.12, FixedFee: ptr(1), MinimumCommission: ptr(3)}
		setEntry(e)
		checkOne(t, books, e)
		check(t)

		st.MustOK(t, add(map[string]any{"categoryId": books, "commissionRate": 0.09, "fixedFee": 0}))
		e = commissionEntry{CategoryID: books, CommissionRate: 0.09, FixedFee: ptr(0)}
		setEntry(e)
		checkOne(t, books, e)
		check(t)
	})

	t.Run("a default entry can be replaced", func(t *testing.T) {
		st.MustOK(t, add(map[string]any{"categoryId": food, "commissionRate": 0.045, "minimumCommission": 2.5}))
		e := commissionEntry{CategoryID: food, CommissionRate: 0.045, MinimumCommission: ptr(2.5)}
		setEntry(e)
		checkOne(t, food, e)
		check(t)
		if n := len(mustActive(t, s, user).CategoryCommissions); n != 4 {
			t.Errorf("%d category entries, want 4", n)
		}
	})

	t.Run("rate bounds are inclusive", func(t *testing.T) {
		for _, r := range []float64{0, 1, 0.09} {
			st.MustOK(t, add(map[string]any{"categoryId": books, "commissionRate": r}))
			e := commissionEntry{CategoryID: books, CommissionRate: r}
			setEntry(e)
			checkOne(t, books, e)
		}
		check(t)
	})

	t.Run("refused", func(t *testing.T) {
		cases := []struct {
			name   string
			fields map[string]any
			code   string
			field  string
		}{
			{"missing category", map[string]any{"categoryId": missingLike(books), "commissionRate": 0.1}, "NOT_FOUND", ""},
			{"missing configuration", map[string]any{"configId": missingLike(id), "categoryId": books, "commissionRate": 0.1}, "NOT_FOUND", ""},
			{"rate above 1", map[string]any{"categoryId": books, "commissionRate": 1.5}, "INVALID_ARGUMENT", "commissionRate"},
			{"negative rate", map[string]any{"categoryId": books, "commissionRate": -0.1}, "INVALID_ARGUMENT", "commissionRate"},
			{"missing rate", map[string]any{"categoryId": books}, "INVALID_ARGUMENT", "commissionRate"},
			{"rate as a string", map[string]any{"categoryId": books, "commissionRate": "0.1"}, "INVALID_ARGUMENT", "commissionRate"},
			{"negative fixed fee", map[string]any{"categoryId": books, "commissionRate": 0.1, "fixedFee": -1}, "INVALID_ARGUMENT", "fixedFee"},
			{"fixed fee with three decimals", map[string]any{"categoryId": books, "commissionRate": 0.1, "fixedFee": 0.001}, "INVALID_ARGUMENT", "fixedFee"},
			{"negative minimum", map[string]any{"categoryId": books, "commissionRate": 0.1, "minimumCommission": -0.5}, "INVALID_ARGUMENT", "minimumCommission"},
			{"malformed category", map[string]any{"categoryId": "books", "commissionRate": 0.1}, "INVALID_ARGUMENT", "categoryId"},
			{"config id as category", map[string]any{"categoryId": id, "commissionRate": 0.1}, "INVALID_ARGUMENT", "categoryId"},
			{"missing category id", map[string]any{"commissionRate": 0.1}, "INVALID_ARGUMENT", "categoryId"},
			{"malformed configId", map[string]any{"configId": "x", "categoryId": books, "commissionRate": 0.1}, "INVALID_ARGUMENT", "configId"},
			{"unknown argument", map[string]any{"categoryId": books, "commissionRate": 0.1, "maximumCommission": 9}, "INVALID_ARGUMENT", "maximumCommission"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				if c.field == "" {
					expectError(t, add(c.fields), c.code)
				} else {
					expectError(t, add(c.fields), c.code, c.field)
				}
			})
		}
		check(t)
	})

	t.Run("access", func(t *testing.T) {
		args := map[string]any{"adminUserId": "admin-1", "configId": id, "categoryId": books, "commissionRate": 0.5}
		expectError(t, s.Mutation("", pcAddCat, args), "UNAUTHENTICATED")
		expectError(t, s.Mutation(user, pcAddCat, map[string]any{"adminUserId": "user-1", "configId": id, "categoryId": books, "commissionRate": 0.5}), "PERMISSION_DENIED")
		expectError(t, s.Mutation(s.Token("admin-2", "admin"), pcAddCat, args), "PERMISSION_DENIED")
		check(t)
	})
}

// fils converts an interface amount to whole fils, failing on more than two decimals.
func fils(t testing.TB, what string, aed float64) int64 {
	t.Helper()
	f := math.Round(aed * 100)
	if math.Abs(aed*100-f) > 1e-6 {
		t.Errorf("%s = %v has more than two decimals", what, aed)
	}
	return int64(f)
}

// checkPreviewInvariants holds for every preview: the echo of the inputs, the
// total, two-decimal amounts, earnings + commission = total, commission within
// [0, total] and never above the platform maximum.
func checkPreviewInvariants(t testing.TB, p commissionPreview, subtotal, fee, maximum float64) {
	t.Helper()
	sub, dl := fils(t, "subtotal", p.Subtotal), fils(t, "deliveryFee", p.DeliveryFee)
	total, plat, earn := fils(t, "totalAmount", p.TotalAmount), fils(t, "platformCommission", p.PlatformCommission), fils(t, "storeEarnings", p.StoreEarnings)
	fils(t, "percentageCommission", p.CommissionBreakdown.PercentageCommission)
	if p.Subtotal != subtotal || p.DeliveryFee != fee {
		t.Errorf("inputs echoed as %v/%v, sent %v/%v", p.Subtotal, p.DeliveryFee, subtotal, fee)
	}
	if total != sub+dl {
		t.Errorf("totalAmount %v != subtotal %v + deliveryFee %v", p.TotalAmount, p.Subtotal, p.DeliveryFee)
	}
	if plat+earn != total {
		t.Errorf("storeEarnings %v + platformCommission %v != totalAmount %v", p.StoreEarnings, p.PlatformCommission, p.TotalAmount)
	}
	if plat < 0 || plat > total || earn < 0 || plat > fils(t, "maximum", maximum) {
		t.Errorf("platformCommission %v outside [0, min(total %v, maximum %v)]", p.PlatformCommission, p.TotalAmount, maximum)
	}
	if p.FixedFee != p.CommissionBreakdown.FixedFeeAmount {
		t.Errorf("fixedFee %v != breakdown fixedFeeAmount %v", p.FixedFee, p.CommissionBreakdown.FixedFeeAmount)
	}
}

// TestCommissionPreview covers getCommissionPreview: the precedence category entry
// → tier entry → platform defaults (field by field), the clamps, the cap at the
// order total, and its errors.
func TestCommissionPreview(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	id := initConfig(t, s)
	cat := map[string]string{}
	for _, c := range listCategories(t, s) {
		cat[c.Name] = c.ID
	}
	cat["Luxury"] = newCategory(t, s, admin, "Luxury")
	cat["Books"] = newCategory(t, s, admin, "Books")
	cat["Toys"] = newCategory(t, s, admin, "Toys") // no commission entry
	for _, e := range []map[string]any{
		{"categoryId": cat["Luxury"], "commissionRate": 0.1, "fixedFee": 0.5, "minimumCommission": 20},
		{"categoryId": cat["Books"], "commissionRate": 0.02, "fixedFee": 0, "minimumCommission": 0},
	} {
		e["adminUserId"], e["configId"] = "admin-1", id
		st.MustOK(t, s.Mutation(admin, pcAddCat, e))
	}
	stores := map[string]string{
		"basic":            newStore(t, s, admin, "Basic", "o1", "", ""),
		"explicit basic":   newStore(t, s, admin, "Explicit basic", "o1", "", "basic"),
		"premium":          newStore(t, s, admin, "Premium", "o1", "", "premium"),
		"enterprise":       newStore(t, s, admin, "Enterprise", "o1", "", "enterprise"),
		"food":             newStore(t, s, admin, "Food", "o1", cat["Food"], ""),
		"groceries":        newStore(t, s, admin, "Groceries", "o1", cat["Groceries"], ""),
		"electronics":      newStore(t, s, admin, "Electronics", "o1", cat["Electronics"], "enterprise"),
		"food premium":     newStore(t, s, admin, "Food premium", "o1", cat["Food"], "premium"),
		"toys":             newStore(t, s, admin, "Toys", "o1", cat["Toys"], ""),
		"toys enterprise":  newStore(t, s, admin, "Toys enterprise", "o1", cat["Toys"], "enterprise"),
		"luxury":           newStore(t, s, admin, "Luxury", "o1", cat["Luxury"], ""),
		"books premium":    newStore(t, s, admin, "Books premium", "o1", cat["Books"], "premium"),
		"luxury enterpr.":  newStore(t, s, admin, "Luxury enterprise", "o1", cat["Luxury"], "enterprise"),
		"groceries premum": newStore(t, s, admin, "Groceries premium", "o1", cat["Groceries"], "premium"),
	}
	preview := func(token, store string, subtotal, fee any) st.Result {
		return s.Query(token, pcPreview, map[string]any{"storeId": store, "subtotal": subtotal, "deliveryFee": fee})
	}

	type want struct {
		total, pct, platform, earnings, rate, fixed float64
		minApplied, maxApplied                      bool
	}
	cases := []struct {
		name          string
		store         string
		subtotal, fee float64
		want          want
	}{
		// (a) basic store without a category: the platform defaults.
		{"basic store pays the defaults", "basic", 100, 10, want{110, 5.5, 7.5, 102.5, 0.05, 2, false, false}},
		{"explicit basic tier", "explicit basic", 100, 10, want{110, 5.5, 7.5, 102.5, 0.05, 2, false, false}},
		{"category without an entry falls to the tier", "toys", 100, 10, want{110, 5.5, 7.5, 102.5, 0.05, 2, false, false}},
		{"delivery fee only", "basic", 0, 10, want{10, 0.5, 2.5, 7.5, 0.05, 2, false, false}},
		{"rounding to fils", "basic", 7.33, 2.5, want{9.83, 0.49, 2.49, 7.34, 0.05, 2, false, false}},
		// (b) category rates; fixed fee and minimum fall back.
		{"Food 4%", "food", 100, 10, want{110, 4.4, 6.4, 103.6, 0.04, 2, false, false}},
		{"Groceries 3%", "groceries", 100, 10, want{110, 3.3, 5.3, 104.7, 0.03, 2, false, false}},
		{"Electronics 7% with the enterprise fee", "electronics", 100, 10, want{110, 7.7, 8.7, 101.3, 0.07, 1, false, false}},
		{"Food rate with the premium fee", "food premium", 100, 10, want{110, 4.4, 5.9, 104.1, 0.04, 1.5, false, false}},
		{"Groceries rate with the premium fee", "groceries premum", 200, 0, want{200, 6, 7.5, 192.5, 0.03, 1.5, false, false}},
		// (c) tier rates when the category has no entry.
		{"premium tier", "premium", 100, 10, want{110, 4.4, 5.9, 104.1, 0.04, 1.5, false, false}},
		{"enterprise tier", "enterprise", 100, 10, want{110, 3.3, 4.3, 105.7, 0.03, 1, false, false}},
		{"enterprise tier, category without entry", "toys enterprise", 100, 10, want{110, 3.3, 4.3, 105.7, 0.03, 1, false, false}},
		// (d) a category entry's own fixed fee and minimum.
		{"category fee, above its minimum", "luxury", 300, 0, want{300, 30, 30.5, 269.5, 0.1, 0.5, false, false}},
		{"category minimum applies", "luxury", 100, 10, want{110, 11, 20, 90, 0.1, 0.5, true, false}},
		{"category entry beats the tier", "luxury enterpr.", 100, 10, want{110, 11, 20, 90, 0.1, 0.5, true, false}},
		{"zero overrides are overrides", "books premium", 10, 0, want{10, 0.2, 0.2, 9.8, 0.02, 0, false, false}},
		{"zero order with zero overrides", "books premium", 0, 0, want{0, 0, 0, 0, 0.02, 0, false, false}},
		// (e) the maximum is the platform's.
		{"maximum applies", "basic", 2000, 0, want{2000, 100, 50, 1950, 0.05, 2, false, true}},
		{"exactly the maximum", "basic", 960, 0, want{960, 48, 50, 910, 0.05, 2, false, false}},
		{"just over the maximum", "basic", 960.1, 0, want{960.1, 48.01, 50, 910.1, 0.05, 2, false, true}},
		{"maximum over a category rate", "luxury", 600, 0, want{600, 60, 50, 550, 0.1, 0.5, false, true}},
		// (f) never above the order total.
		{"half a dirham", "basic", 0.5, 0, want{0.5, 0.03, 0.5, 0, 0.05, 2, false, false}},
		{"fee above total", "basic", 1, 0.5, want{1.5, 0.08, 1.5, 0, 0.05, 2, false, false}},
		{"zero order", "basic", 0, 0, want{0, 0, 0, 0, 0.05, 2, false, false}},
		{"enterprise fee above total", "enterprise", 0.5, 0, want{0.5, 0.02, 0.5, 0, 0.03, 1, false, false}},
	}
	t.Run("exact numbers", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				p := okAs[commissionPreview](t, preview(admin, stores[c.store], c.subtotal, c.fee))
				got := want{p.TotalAmount, p.CommissionBreakdown.PercentageCommission, p.PlatformCommission, p.StoreEarnings,
					p.CommissionRate, p.FixedFee, p.CommissionBreakdown.MinimumApplied, p.CommissionBreakdown.MaximumApplied}
				if got != c.want {
					t.Errorf("preview %v + %v\n got %+v\nwant %+v", c.subtotal, c.fee, got, c.want)
				}
				checkPreviewInvariants(t, p, c.subtotal, c.fee, 50)
			})
		}
	})

	t.Run("a minimum above the order total is capped by it", func(t *testing.T) {
		p := okAs[commissionPreview](t, preview(admin, stores["luxury"], 5, 0))
		if p.TotalAmount != 5 || p.PlatformCommission != 5 || p.StoreEarnings != 0 || p.CommissionBreakdown.PercentageCommission != 0.5 ||
			!p.CommissionBreakdown.MinimumApplied || p.CommissionBreakdown.MaximumApplied {
			t.Errorf("preview: %+v", p)
		}
		checkPreviewInvariants(t, p, 5, 0, 50)
	})

	// (g) the formula and the invariants over many orders, against an oracle of
	// the interface's calculation in integer fils (percentage rounded half up).
	t.Run("formula and invariants across orders", func(t *testing.T) {
		type rules struct{ ratePPM, fixed, minimum int64 }
		eff := map[string]rules{
			"basic": {50000, 200, 100}, "premium": {40000, 150, 100}, "enterprise": {30000, 100, 50},
			"food": {40000, 200, 100}, "food premium": {40000, 150, 100}, "electronics": {70000, 100, 50},
			"luxury": {100000, 50, 2000}, "books premium": {20000, 0, 0}, "toys enterprise": {30000, 100, 50},
		}
		const maximum = 5000
		subtotals := []float64{0, 0.01, 0.49, 0.99, 1, 3.33, 19.99, 47.5, 123.45, 955, 999.99, 4321.09}
		for name, r := range eff {
			for _, sub := range subtotals {
				for _, fee := range []float64{0, 5.5} {
					p := okAs[commissionPreview](t, preview(admin, stores[name], sub, fee))
					checkPreviewInvariants(t, p, sub, fee, 50)
					total := int64(math.Round(sub*100)) + int64(math.Round(fee*100))
					pct := (total*r.ratePPM + 500000) / 1000000
					plat, minA, maxA := pct+r.fixed, false, false
					if plat < r.minimum {
						plat, minA = r.minimum, true
					}
					if plat > maximum {
						plat, maxA = maximum, true
					}
					plat = min(plat, total)
					if fils(t, "pct", p.CommissionBreakdown.PercentageCommission) != pct || fils(t, "platform", p.PlatformCommission) != plat ||
						p.CommissionBreakdown.MinimumApplied != minA || p.CommissionBreakdown.MaximumApplied != maxA ||
						fils(t, "fixedFee", p.FixedFee) != r.fixed || p.CommissionRate != float64(r.ratePPM)/1e6 {
						t.Errorf("%s %v + %v: got %+v; want pct %d platform %d fils, min %v max %v", name, sub, fee, p, pct, plat, minA, maxA)
					}
				}
			}
		}
	})

	t.Run("errors", func(t *testing.T) {
		st.MustOK(t, preview(admin, stores["basic"], 1, 1))
		expectError(t, preview("", stores["basic"], 100, 10), "UNAUTHENTICATED")
		expectError(t, preview("garbage", stores["basic"], 100, 10), "UNAUTHENTICATED")
		expectError(t, preview(admin, missingLike(stores["basic"]), 100, 10), "NOT_FOUND")
		cases := []struct {
			name  string
			args  map[string]any
			field string
		}{
			{"negative subtotal", map[string]any{"storeId": stores["basic"], "subtotal": -1, "deliveryFee": 0}, "subtotal"},
			{"negative deliveryFee", map[string]any{"storeId": stores["basic"], "subtotal": 10, "deliveryFee": -0.01}, "deliveryFee"},
			{"subtotal with three decimals", map[string]any{"storeId": stores["basic"], "subtotal": 10.005, "deliveryFee": 0}, "subtotal"},
			{"deliveryFee with three decimals", map[string]any{"storeId": stores["basic"], "subtotal": 10, "deliveryFee": 1.001}, "deliveryFee"},
			{"subtotal as a string", map[string]any{"storeId": stores["basic"], "subtotal": "10", "deliveryFee": 0}, "subtotal"},
			{"missing subtotal", map[string]any{"storeId": stores["basic"], "deliveryFee": 0}, "subtotal"},
			{"missing deliveryFee", map[string]any{"storeId": stores["basic"], "subtotal": 10}, "deliveryFee"},
			{"missing storeId", map[string]any{"subtotal": 10, "deliveryFee": 0}, "storeId"},
			{"malformed storeId", map[string]any{"storeId": "basic", "subtotal": 10, "deliveryFee": 0}, "storeId"},
			{"category id as storeId", map[string]any{"storeId": cat["Food"], "subtotal": 10, "deliveryFee": 0}, "storeId"},
			{"unknown argument", map[string]any{"storeId": stores["basic"], "subtotal": 10, "deliveryFee": 0, "tier": "premium"}, "tier"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				expectError(t, s.Query(admin, pcPreview, c.args), "INVALID_ARGUMENT", c.field)
			})
		}
	})

	t.Run("configuration changes apply at once", func(t *testing.T) {
		st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "maximumCommission": 75}))
		p := okAs[commissionPreview](t, preview(admin, stores["basic"], 2000, 0))
		if p.PlatformCommission != 75 || p.StoreEarnings != 1925 || !p.CommissionBreakdown.MaximumApplied {
			t.Errorf("after maximum 75: %+v", p)
		}
		p = okAs[commissionPreview](t, preview(admin, stores["basic"], 960.01, 0))
		if p.PlatformCommission != 50 || p.StoreEarnings != 910.01 || p.CommissionBreakdown.MaximumApplied {
			t.Errorf("after maximum 75, a 960.01 order: %+v", p)
		}
		st.MustOK(t, s.Mutation(admin, pcAddCat, map[string]any{"adminUserId": "admin-1", "configId": id, "categoryId": cat["Food"], "commissionRate": 0.06, "fixedFee": 1}))
		p = okAs[commissionPreview](t, preview(admin, stores["food"], 100, 10))
		if p.CommissionRate != 0.06 || p.FixedFee != 1 || p.PlatformCommission != 7.6 || p.StoreEarnings != 102.4 {
			t.Errorf("after Food 6%% + 1: %+v", p)
		}
		// Every tier entry, basic included, has values of its own: changing the
		// defaults changes neither a basic nor a premium store's commission.
		st.MustOK(t, s.Mutation(admin, pcUpdate, map[string]any{"adminUserId": "admin-1", "configId": id, "defaultCommissionRate": 0.08, "fixedFeePerOrder": 0.5, "minimumCommission": 3}))
		p = okAs[commissionPreview](t, preview(admin, stores["basic"], 100, 10))
		if p.CommissionRate != 0.05 || p.FixedFee != 2 || p.PlatformCommission != 7.5 || p.StoreEarnings != 102.5 {
			t.Errorf("basic store after defaults 8%% + 0.5: %+v", p)
		}
		p = okAs[commissionPreview](t, preview(admin, stores["basic"], 10, 0)) // 0.5 + 2 = 2.5: below the defaults' new minimum, above the tier's
		if p.PlatformCommission != 2.5 || p.CommissionBreakdown.MinimumApplied {
			t.Errorf("basic store after the defaults' minimum became 3: %+v", p)
		}
		p = okAs[commissionPreview](t, preview(admin, stores["premium"], 100, 10))
		if p.CommissionRate != 0.04 || p.FixedFee != 1.5 || p.PlatformCommission != 5.9 {
			t.Errorf("premium store after a defaults change: %+v", p)
		}
	})
}
