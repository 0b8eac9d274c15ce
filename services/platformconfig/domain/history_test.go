package domain

import (
	"reflect"
	"testing"
)

func f64(v float64) *float64 { return &v }

// sampleView is a configuration view with one entry of each list.
func sampleView() *ConfigView {
	return &ConfigView{
		ID: "pcf_1", CreationTime: 1, DefaultCommissionRate: 0.05, FixedFeePerOrder: 2, MinimumCommission: 1, MaximumCommission: 50,
		CategoryCommissions:  []CategoryCommissionView{{CategoryID: "cat_a", CommissionRate: 0.04}},
		StoreTierCommissions: []TierCommissionView{{TierName: "basic", CommissionRate: 0.05, FixedFee: f64(2), MinimumCommission: f64(1)}},
		WalletSettings:       WalletSettingsView{MinPayoutAmount: 100, MaxPayoutAmount: 50000, PayoutProcessingFee: 2, PendingBalanceHoldDays: 7, DisputeFee: 15, DisputeFeeChargedTo: "store"},
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
		got := Diff(sampleView(), after)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %#v\nwant %#v", c.name, got, c.want)
		}
	}
}

func TestDiffFromNothingListsEveryField(t *testing.T) {
	got := Diff(nil, sampleView())
	want := []string{"defaultCommissionRate", "fixedFeePerOrder", "minimumCommission", "maximumCommission",
		"categoryCommissions.cat_a", "storeTierCommissions.basic",
		"walletSettings.minPayoutAmount", "walletSettings.maxPayoutAmount", "walletSettings.payoutProcessingFee", "walletSettings.pendingBalanceHoldDays",
		"walletSettings.disputeFee", "walletSettings.disputeFeeChargedTo",
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

// TestInitialTiersStoreBasicWithTheDefaults: a new configuration's basic tier
// is stored with the defaults' values as its own, not as a legacy entry that
// reads whatever the defaults are.
func TestInitialTiersStoreBasicWithTheDefaults(t *testing.T) {
	tiers := initialTiers(initialRate, initialFixed, initialMinimum)
	b := tiers[0]
	if b.TierName != "basic" || b.Legacy() || *b.CommissionRate != 0.05 || *b.FixedFee != fils(2) || *b.MinimumCommission != fils(1) {
		t.Fatalf("basic tier %+v", b)
	}
	// Each call makes new entries: no configuration shares another's.
	*tiers[1].CommissionRate = 0.5
	if *initialTiers(initialRate, initialFixed, initialMinimum)[1].CommissionRate != 0.04 {
		t.Fatal("initial tiers share their values")
	}
}
