package platformconfig

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/contracts/catalog"
	contractevents "marketplace/libs/contracts/events"
	"marketplace/libs/events"
	"marketplace/libs/money"
	"marketplace/libs/page"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

func f64(v float64) *float64 { return &v }

// sampleView is a configuration view with one entry of each list.
func sampleView() *ConfigView {
	return &ConfigView{
		ID: "pcf_1", CreationTime: 1, DefaultCommissionRate: 0.05, FixedFeePerOrder: 2, MinimumCommission: 1, MaximumCommission: 50,
		CategoryCommissions:  []CategoryCommissionView{{CategoryID: "cat_a", CommissionRate: 0.04}},
		StoreTierCommissions: []TierCommissionView{{TierName: "basic", CommissionRate: 0.05, FixedFee: f64(2), MinimumCommission: f64(1)}},
		WalletSettings:       WalletSettingsView{MinPayoutAmount: 100, MaxPayoutAmount: 50000, PayoutProcessingFee: 2, PendingBalanceHoldDays: 7},
		LocationSettings:     LocationSettingsView{DefaultSearchRadiusKm: 10, MaxSearchRadiusKm: 50},
		IsActive:             true, EffectiveDate: 1,
	}
}

func TestDiffListsOnlyWhatChanged(t *testing.T) {
	cases := []struct {
		name   string
		change func(v *ConfigView)
		want   []Change
	}{
		{"nothing", func(*ConfigView) {}, nil},
		{"identity fields are not configuration fields", func(v *ConfigView) { v.ID, v.CreationTime = "pcf_2", 2 }, nil},
		{"one default", func(v *ConfigView) { v.DefaultCommissionRate = 0.06 }, []Change{{"defaultCommissionRate", 0.05, 0.06}}},
		{"a wallet sub-field, by its dotted path", func(v *ConfigView) { v.WalletSettings.PendingBalanceHoldDays = 3 },
			[]Change{{"walletSettings.pendingBalanceHoldDays", 7, 3}}},
		{"a location sub-field", func(v *ConfigView) { v.LocationSettings.MaxSearchRadiusKm = 80 },
			[]Change{{"locationSettings.maxSearchRadiusKm", 50.0, 80.0}}},
		{"several, in field order", func(v *ConfigView) { v.MaximumCommission, v.FixedFeePerOrder = 60, 3 },
			[]Change{{"fixedFeePerOrder", 2.0, 3.0}, {"maximumCommission", 50.0, 60.0}}},
		{"a category entry added", func(v *ConfigView) {
			v.CategoryCommissions = append(v.CategoryCommissions, CategoryCommissionView{CategoryID: "cat_b", CommissionRate: 0.1, FixedFee: f64(0)})
		}, []Change{{"categoryCommissions.cat_b", nil, CategoryCommissionView{CategoryID: "cat_b", CommissionRate: 0.1, FixedFee: f64(0)}}}},
		{"a category entry replaced", func(v *ConfigView) { v.CategoryCommissions[0].MinimumCommission = f64(3) },
			[]Change{{"categoryCommissions.cat_a", CategoryCommissionView{CategoryID: "cat_a", CommissionRate: 0.04},
				CategoryCommissionView{CategoryID: "cat_a", CommissionRate: 0.04, MinimumCommission: f64(3)}}}},
		{"a tier entry replaced, its fee left to the defaults", func(v *ConfigView) {
			v.StoreTierCommissions[0] = TierCommissionView{TierName: "basic", CommissionRate: 0.06, MinimumCommission: f64(1)}
		}, []Change{{"storeTierCommissions.basic", TierCommissionView{TierName: "basic", CommissionRate: 0.05, FixedFee: f64(2), MinimumCommission: f64(1)},
			TierCommissionView{TierName: "basic", CommissionRate: 0.06, MinimumCommission: f64(1)}}}},
		{"an entry removed", func(v *ConfigView) { v.CategoryCommissions = nil },
			[]Change{{"categoryCommissions.cat_a", CategoryCommissionView{CategoryID: "cat_a", CommissionRate: 0.04}, nil}}},
		{"the same values in new pointers are no change", func(v *ConfigView) { v.StoreTierCommissions[0].FixedFee = f64(2) }, nil},
	}
	for _, c := range cases {
		after := sampleView()
		c.change(after)
		got := diff(sampleView(), after)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.name, got, c.want)
		}
	}
}

func TestDiffFromNothingListsEveryField(t *testing.T) {
	got := diff(nil, sampleView())
	want := []string{"defaultCommissionRate", "fixedFeePerOrder", "minimumCommission", "maximumCommission",
		"categoryCommissions.cat_a", "storeTierCommissions.basic",
		"walletSettings.minPayoutAmount", "walletSettings.maxPayoutAmount", "walletSettings.payoutProcessingFee", "walletSettings.pendingBalanceHoldDays",
		"locationSettings.defaultSearchRadiusKm", "locationSettings.maxSearchRadiusKm", "isActive", "effectiveDate"}
	if len(got) != len(want) {
		t.Fatalf("%d changes, want %d: %+v", len(got), len(want), got)
	}
	for i, c := range got {
		if c.Field != want[i] || c.OldValue != nil || c.NewValue == nil {
			t.Errorf("change %d: %+v, want %s from null", i, c, want[i])
		}
	}
}

func newTestSvc(t *testing.T, now time.Time) (*svc, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "pc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	if err := db.EnsureIndexes(ctx, historyIndexes...); err != nil {
		t.Fatal(err)
	}
	return &svc{env: service.Env{DB: db, Outbox: events.NewOutbox(db, "platformconfig", contractevents.Versions()), Relay: events.NewRelay(db, nil, nil)},
		now: func() time.Time { return now }}, db
}

func historyOf(t *testing.T, s *svc, configID string) []HistoryEntryView {
	t.Helper()
	r, err := s.getConfigHistory(context.Background(), &historyArgs{ConfigID: configID, PaginationOpts: page.Opts{NumItems: 100}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Page
}

// TestLegacyBasicTierIsPinnedByTheNextChange: a configuration stored by older
// code (basic tier without values) still reads and charges the defaults; the
// next change stores the basic tier with the values it read as, so a change of
// the defaults leaves it as it was, and the history lists only the defaults.
func TestLegacyBasicTierIsPinnedByTheNextChange(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s, db := newTestSvc(t, now)
	legacy := configDoc{
		ID: "pcf_000000000000000000000001", CreationTime: 1, DefaultCommissionRate: 0.05, FixedFeePerOrder: fils(2), MinimumCommission: fils(1),
		MaximumCommission: fils(50), StoreTierCommissions: append([]tierCommission{{TierName: "basic"}}, initialTiers(0, 0, 0)[1:]...),
		WalletSettings: defaultWallet, LocationSettings: defaultLocation, IsActive: true, EffectiveDate: 1,
	}
	if _, err := db.Collection(coll).InsertOne(ctx, legacy); err != nil {
		t.Fatal(err)
	}
	basicOf := func(v *ConfigView) TierCommissionView {
		for _, tv := range v.StoreTierCommissions {
			if tv.TierName == "basic" {
				return tv
			}
		}
		t.Fatalf("no basic tier in %+v", v.StoreTierCommissions)
		return TierCommissionView{}
	}
	was := TierCommissionView{TierName: "basic", CommissionRate: 0.05, FixedFee: f64(2), MinimumCommission: f64(1)}
	if got := basicOf(legacy.view()); !reflect.DeepEqual(got, was) {
		t.Fatalf("legacy basic reads as %+v, want the defaults %+v", got, was)
	}
	basicStore := &catalog.Store{Tier: "basic"}
	if e := legacy.effective(basicStore); e != (Effective{Rate: money.RateOf(0.05), Fixed: fils(2), Minimum: fils(1), Maximum: fils(50)}) {
		t.Fatalf("legacy basic charges %+v", e)
	}

	// A change that changes nothing writes nothing: the entry stays legacy.
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: legacy.ID, DefaultCommissionRate: f64(0.05)}); err != nil {
		t.Fatal(err)
	}
	if h := historyOf(t, s, legacy.ID); len(h) != 0 {
		t.Fatalf("a no-op update recorded %+v", h)
	}

	rate, fee := 0.08, fils(0.5)
	v, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: legacy.ID, DefaultCommissionRate: &rate, FixedFeePerOrder: &fee})
	if err != nil {
		t.Fatal(err)
	}
	if got := basicOf(v); !reflect.DeepEqual(got, was) {
		t.Errorf("after the defaults changed the basic tier shows %+v, want %+v", got, was)
	}
	var stored configDoc
	if err := db.Collection(coll).FindOne(ctx, bson.M{"_id": legacy.ID}).Decode(&stored); err != nil {
		t.Fatal(err)
	}
	if b := stored.StoreTierCommissions[0]; b.legacy() || *b.CommissionRate != 0.05 || *b.FixedFee != fils(2) || *b.MinimumCommission != fils(1) {
		t.Errorf("basic tier stored as %+v", b)
	}
	if e := stored.effective(basicStore); e != (Effective{Rate: money.RateOf(0.05), Fixed: fils(2), Minimum: fils(1), Maximum: fils(50)}) {
		t.Errorf("after the defaults changed a basic store is charged %+v", e)
	}
	h := historyOf(t, s, legacy.ID)
	want := []Change{{"defaultCommissionRate", 0.05, 0.08}, {"fixedFeePerOrder", 2.0, 0.5}}
	if len(h) != 1 || h[0].Operation != "updatePlatformConfig" || h[0].ChangedBy != "admin-1" || h[0].ChangedAt != now.UnixMilli() ||
		h[0].ConfigID != legacy.ID || !reflect.DeepEqual(h[0].Changes, want) {
		t.Errorf("history %+v, want one entry with %+v", h, want)
	}
}

// TestHistoryValuesRoundTrip: what is stored reads back as the interface showed
// it: numbers, and entry objects with only the keys they had.
func TestHistoryValuesRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, db := newTestSvc(t, time.UnixMilli(1_700_000_000_000))
	d := configDoc{ID: "pcf_000000000000000000000001", DefaultCommissionRate: 0.05, FixedFeePerOrder: fils(2), MinimumCommission: fils(1),
		MaximumCommission: fils(50), StoreTierCommissions: initialTiers(0.05, fils(2), fils(1)), WalletSettings: defaultWallet,
		LocationSettings: defaultLocation, IsActive: true}
	if _, err := db.Collection(coll).InsertOne(ctx, d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.setTierCommission(ctx, &setTierArgs{AdminUserID: "admin-1", ConfigID: d.ID, TierName: "premium", CommissionRate: 0.035}); err != nil {
		t.Fatal(err)
	}
	hold := 3
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-2", ConfigID: d.ID, WalletSettings: &walletSettingsArgs{PendingBalanceHoldDays: &hold}}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(historyOf(t, s, d.ID))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"_id":"ID","configId":"pcf_000000000000000000000001","changedBy":"admin-2","changedAt":1700000000000,"operation":"updatePlatformConfig",` +
		`"changes":[{"field":"walletSettings.pendingBalanceHoldDays","oldValue":7,"newValue":3}]},` +
		`{"_id":"ID","configId":"pcf_000000000000000000000001","changedBy":"admin-1","changedAt":1700000000000,"operation":"setTierCommission",` +
		`"changes":[{"field":"storeTierCommissions.premium","oldValue":{"tierName":"premium","commissionRate":0.04,"fixedFee":1.5,"minimumCommission":1},` +
		`"newValue":{"tierName":"premium","commissionRate":0.035}}]}]`
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		e["_id"] = "ID"
	}
	b, _ = json.Marshal(got)
	var w []map[string]any
	_ = json.Unmarshal([]byte(want), &w)
	wb, _ := json.Marshal(w)
	if string(b) != string(wb) {
		t.Errorf("history\n got %s\nwant %s", b, wb)
	}
}

// TestInitialTiersStoreBasicWithTheDefaults: a new configuration's basic tier
// is stored with the defaults' values as its own, not as a legacy entry that
// reads whatever the defaults are.
func TestInitialTiersStoreBasicWithTheDefaults(t *testing.T) {
	tiers := initialTiers(initialRate, initialFixed, initialMinimum)
	b := tiers[0]
	if b.TierName != "basic" || b.legacy() || *b.CommissionRate != 0.05 || *b.FixedFee != fils(2) || *b.MinimumCommission != fils(1) {
		t.Fatalf("basic tier %+v", b)
	}
	// Each call makes new entries: no configuration shares another's.
	*tiers[1].CommissionRate = 0.5
	if *initialTiers(initialRate, initialFixed, initialMinimum)[1].CommissionRate != 0.04 {
		t.Fatal("initial tiers share their values")
	}
}
