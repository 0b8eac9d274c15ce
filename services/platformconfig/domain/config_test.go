package domain

import (
	"errors"
	"reflect"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

func cfg() Config {
	c := NewConfig("pcf_1", 1000, "admin-1", map[string]string{"Food": "cat_food", "Groceries": "cat_groc", "Electronics": "cat_elec"})
	return c
}

// TestNewConfig: the first configuration is active from its creation, carries
// the interface's defaults, the default categories' rates, the three tiers (the
// basic tier with the defaults' values as its own) and is history entry 1.
func TestNewConfig(t *testing.T) {
	c := cfg()
	if !c.IsActive || c.EffectiveDate != 1000 || c.CreationTime != 1000 || c.CreatedBy != "admin-1" || c.HistorySeq != 1 {
		t.Fatalf("%+v", c)
	}
	if c.DefaultCommissionRate != 0.05 || c.FixedFeePerOrder != amt(2) || c.MinimumCommission != amt(1) || c.MaximumCommission != amt(50) {
		t.Fatalf("defaults %+v", c)
	}
	want := []CategoryCommission{{CategoryID: "cat_food", CommissionRate: 0.04}, {CategoryID: "cat_groc", CommissionRate: 0.03}, {CategoryID: "cat_elec", CommissionRate: 0.07}}
	if !reflect.DeepEqual(c.CategoryCommissions, want) {
		t.Fatalf("categories %+v", c.CategoryCommissions)
	}
	if !reflect.DeepEqual(DefaultCategories(), []string{"Food", "Groceries", "Electronics"}) {
		t.Fatal(DefaultCategories())
	}
	if len(c.StoreTierCommissions) != 3 || c.StoreTierCommissions[0].Legacy() {
		t.Fatalf("tiers %+v", c.StoreTierCommissions)
	}
	if err := c.Check(); err != nil {
		t.Fatalf("the defaults break a rule: %v", err)
	}
}

// TestCheck: each rule that ties fields together, with its field and message.
func TestCheck(t *testing.T) {
	cases := []struct {
		name    string
		change  func(c *Config)
		field   string // "" : accepted
		message string
	}{
		{"defaults", func(*Config) {}, "", ""},
		{"rate with 6 decimals", func(c *Config) { c.DefaultCommissionRate = 0.123456 }, "", ""},
		{"rate with 7 decimals", func(c *Config) { c.DefaultCommissionRate = 0.1234567 }, "defaultCommissionRate", "must have at most 6 decimals"},
		{"minimum equal to maximum", func(c *Config) { c.MinimumCommission = c.MaximumCommission }, "", ""},
		{"minimum above maximum", func(c *Config) { c.MinimumCommission = amt(50.01) }, "minimumCommission", "must not exceed maximumCommission (50.00 AED)"},
		{"maximum below minimum", func(c *Config) { c.MaximumCommission = amt(0.5) }, "minimumCommission", "must not exceed maximumCommission (0.50 AED)"},
		{"category minimum above maximum", func(c *Config) { c.CategoryCommissions[1].MinimumCommission = fp(60) },
			"minimumCommission", "the minimum of category cat_groc (60.00 AED) must not exceed maximumCommission (50.00 AED)"},
		{"category minimum at maximum", func(c *Config) { c.CategoryCommissions[1].MinimumCommission = fp(50) }, "", ""},
		{"tier minimum above maximum", func(c *Config) { c.StoreTierCommissions[2].MinimumCommission = fp(50.01) },
			"minimumCommission", "the minimum of the enterprise tier (50.01 AED) must not exceed maximumCommission (50.00 AED)"},
		{"maximum lowered under a tier minimum", func(c *Config) { c.MaximumCommission = amt(0.9) },
			"minimumCommission", "must not exceed maximumCommission (0.90 AED)"},
		{"min payout above max payout", func(c *Config) { c.WalletSettings.MinPayoutAmount = amt(50000.01) },
			"walletSettings.minPayoutAmount", "must not exceed maxPayoutAmount (50000.00 AED)"},
		{"min payout equal to max payout", func(c *Config) { c.WalletSettings.MinPayoutAmount = amt(50000) }, "", ""},
		{"fee above min payout", func(c *Config) { c.WalletSettings.PayoutProcessingFee = amt(100.01) },
			"walletSettings.payoutProcessingFee", "must not exceed minPayoutAmount (100.00 AED), or a payout could pay out nothing"},
		{"fee equal to min payout", func(c *Config) { c.WalletSettings.PayoutProcessingFee = amt(100) }, "", ""},
		{"dispute fee above 1000", func(c *Config) { f := amt(1000.01); c.WalletSettings.DisputeFee = &f },
			"walletSettings.disputeFee", "must be from 0 to 1000.00 AED, not 1000.01 AED"},
		{"dispute fee negative", func(c *Config) { f := money.Fils(-1); c.WalletSettings.DisputeFee = &f }, "walletSettings.disputeFee", "must be from 0 to 1000.00 AED, not -0.01 AED"},
		{"dispute fee zero", func(c *Config) { f := money.Fils(0); c.WalletSettings.DisputeFee = &f }, "", ""},
		{"dispute fee charged to someone else", func(c *Config) { c.WalletSettings.DisputeFeeChargedTo = "customer" },
			"walletSettings.disputeFeeChargedTo", `must be store or platform, not "customer"`},
		{"dispute fee borne by the platform", func(c *Config) { c.WalletSettings.DisputeFeeChargedTo = FeeChargedToPlatform }, "", ""},
		{"default radius above max radius", func(c *Config) { c.LocationSettings.DefaultSearchRadiusKm = 60 },
			"locationSettings.defaultSearchRadiusKm", "must not exceed maxSearchRadiusKm (50 km)"},
		{"default radius equal to max", func(c *Config) { c.LocationSettings.DefaultSearchRadiusKm = 50 }, "", ""},
	}
	for _, tc := range cases {
		c := cfg()
		tc.change(&c)
		err := c.Check()
		if tc.field == "" {
			if err != nil {
				t.Errorf("%s: refused: %v", tc.name, err)
			}
			continue
		}
		e := apperr.From(err)
		if err == nil || e.Code != apperr.InvalidArgument || e.Details["field"] != tc.field || e.Message != tc.field+": "+tc.message {
			t.Errorf("%s: %v %+v, want %s: %s", tc.name, err, e, tc.field, tc.message)
		}
	}
}

// TestCheckEntry: an entry's rate has at most 6 decimals (commission math
// works in millionths).
func TestCheckEntry(t *testing.T) {
	if err := CheckEntry(0.035); err != nil {
		t.Fatal(err)
	}
	if err := CheckEntry(0.0350001); !apperr.Is(err, apperr.InvalidArgument) || apperr.From(err).Details["field"] != "commissionRate" {
		t.Fatalf("%v", err)
	}
}

// TestApply: a change runs fn, checks the rules, lists what changed and
// stamps the configuration; a change that alters nothing stamps nothing; a
// refused change reports its error.
func TestApply(t *testing.T) {
	c := cfg()
	changes, err := c.Apply("admin-2", 5000, func(c *Config) error { c.DefaultCommissionRate = 0.06; return nil })
	if err != nil || !reflect.DeepEqual(changes, []Change{{"defaultCommissionRate", 0.05, 0.06}}) {
		t.Fatalf("%+v %v", changes, err)
	}
	if c.UpdatedBy != "admin-2" || c.UpdatedAt != 5000 || c.HistorySeq != 2 {
		t.Fatalf("stamp %+v", c)
	}
	changes, err = c.Apply("admin-3", 6000, func(c *Config) error { c.DefaultCommissionRate = 0.06; return nil })
	if err != nil || len(changes) != 0 || c.UpdatedBy != "admin-2" || c.UpdatedAt != 5000 || c.HistorySeq != 2 {
		t.Fatalf("a no-op change: %+v %v %+v", changes, err, c)
	}
	_, err = c.Apply("admin-3", 6000, func(c *Config) error { c.MinimumCommission = amt(100); return nil })
	if !apperr.Is(err, apperr.InvalidArgument) {
		t.Fatalf("a change breaking a rule: %v", err)
	}
	boom := errors.New("boom")
	if _, err := c.Apply("a", 1, func(*Config) error { return boom }); err != boom {
		t.Fatalf("fn's error: %v", err)
	}
}

// TestLegacyTierPinnedByApply: a legacy basic entry reads and charges the
// defaults; a change of the defaults pins it to the values it read as, and the
// change lists only the defaults.
func TestLegacyTierPinnedByApply(t *testing.T) {
	c := cfg()
	c.StoreTierCommissions[0] = TierCommission{TierName: "basic"}
	if e := c.Effective(nil, "basic"); e != defaults {
		t.Fatalf("legacy basic charges %+v", e)
	}
	if v := c.View().StoreTierCommissions[0]; v.CommissionRate != 0.05 || *v.FixedFee != 2 || *v.MinimumCommission != 1 {
		t.Fatalf("legacy basic reads as %+v", v)
	}
	changes, err := c.Apply("a", 1, func(c *Config) error { c.DefaultCommissionRate = 0.08; return nil })
	if err != nil || !reflect.DeepEqual(changes, []Change{{"defaultCommissionRate", 0.05, 0.08}}) {
		t.Fatalf("%+v %v", changes, err)
	}
	if b := c.StoreTierCommissions[0]; b.Legacy() || *b.CommissionRate != 0.05 || *b.FixedFee != amt(2) || *b.MinimumCommission != amt(1) {
		t.Fatalf("basic after %+v", b)
	}
	if e := c.Effective(nil, "basic"); e.Rate != money.RateOf(0.05) {
		t.Fatalf("basic after the change charges %+v", e)
	}
}

// TestSetEntries: an entry for a category or tier already listed replaces it
// in place; a new one is added at the end.
func TestSetEntries(t *testing.T) {
	c := cfg()
	c.SetCategoryCommission(CategoryCommission{CategoryID: "cat_groc", CommissionRate: 0.1, FixedFee: fp(0)})
	c.SetCategoryCommission(CategoryCommission{CategoryID: "cat_new", CommissionRate: 0.2})
	if len(c.CategoryCommissions) != 4 || c.CategoryCommissions[1].CommissionRate != 0.1 || *c.CategoryCommissions[1].FixedFee != 0 ||
		c.CategoryCommissions[3].CategoryID != "cat_new" {
		t.Fatalf("categories %+v", c.CategoryCommissions)
	}
	r := 0.035
	c.SetTierCommission(TierCommission{TierName: "premium", CommissionRate: &r})
	if len(c.StoreTierCommissions) != 3 || c.StoreTierCommissions[1].TierName != "premium" || *c.StoreTierCommissions[1].CommissionRate != 0.035 ||
		c.StoreTierCommissions[1].FixedFee != nil || c.StoreTierCommissions[1].MinimumCommission != nil {
		t.Fatalf("tiers %+v", c.StoreTierCommissions)
	}
	// A tier entry without fee and minimum falls back to the defaults.
	if e := c.Effective(nil, "premium"); e != (Effective{Rate: money.RateOf(0.035), Fixed: amt(2), Minimum: amt(1), Maximum: amt(50)}) {
		t.Fatalf("premium charges %+v", e)
	}
}

// TestEffectiveForAStore: the store's primary category entry, else its tier
// entry, else the defaults, field by field; the maximum is the platform's.
func TestEffectiveForAStore(t *testing.T) {
	c := cfg()
	food, unknown := "cat_food", "cat_none"
	cases := []struct {
		name     string
		category *string
		tier     string
		want     Effective
	}{
		{"no category, unknown tier", nil, "gold", defaults},
		{"basic tier", nil, "basic", defaults},
		{"premium tier", nil, "premium", Effective{Rate: money.RateOf(0.04), Fixed: amt(1.5), Minimum: amt(1), Maximum: amt(50)}},
		{"enterprise tier", &unknown, "enterprise", Effective{Rate: money.RateOf(0.03), Fixed: amt(1), Minimum: amt(0.5), Maximum: amt(50)}},
		{"category rate over tier, tier fee and minimum", &food, "enterprise", Effective{Rate: money.RateOf(0.04), Fixed: amt(1), Minimum: amt(0.5), Maximum: amt(50)}},
		{"category over defaults", &food, "", Effective{Rate: money.RateOf(0.04), Fixed: amt(2), Minimum: amt(1), Maximum: amt(50)}},
	}
	for _, tc := range cases {
		if got := c.Effective(tc.category, tc.tier); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestLatest: the configuration in force is active and effective, the most
// recent effective date winning, then the greatest id.
func TestLatest(t *testing.T) {
	cs := []Config{
		{ID: "a", IsActive: true, EffectiveDate: 10},
		{ID: "b", IsActive: false, EffectiveDate: 20},
		{ID: "c", IsActive: true, EffectiveDate: 30},
		{ID: "d", IsActive: true, EffectiveDate: 10},
	}
	cases := []struct {
		now  int64
		want string
	}{{5, ""}, {10, "d"}, {25, "d"}, {30, "c"}, {100, "c"}}
	for _, tc := range cases {
		got := Latest(cs, tc.now)
		if (got == nil) != (tc.want == "") || got != nil && got.ID != tc.want {
			t.Errorf("at %d: %+v, want %q", tc.now, got, tc.want)
		}
	}
}

// TestClone: a change applied to a clone leaves the original as it was.
func TestClone(t *testing.T) {
	c := cfg()
	d := c.Clone()
	d.SetTierCommission(TierCommission{TierName: "basic"})
	d.CategoryCommissions[0].CommissionRate = 0.9
	if c.StoreTierCommissions[0].Legacy() || c.CategoryCommissions[0].CommissionRate != 0.04 {
		t.Fatal("the clone shares its lists")
	}
}

// TestChanged: the config.changed event carries the id, state, radii and the
// history number as version.
func TestChanged(t *testing.T) {
	c := cfg()
	c.HistorySeq = 7
	e := c.Changed()
	if e.ConfigID != "pcf_1" || !e.IsActive || e.EffectiveDate != 1000 || e.Version != 7 || e.LocationSettings.MaxSearchRadiusKm != 50 || e.LocationSettings.DefaultSearchRadiusKm != 10 {
		t.Fatalf("%+v", e)
	}
	w := c.WalletSettingsContract()
	if w.MinPayoutAmount != 100 || w.MaxPayoutAmount != 50000 || w.PayoutProcessingFee != 2 || w.PendingBalanceHoldDays != 7 {
		t.Fatalf("%+v", w)
	}
	// A configuration older than disputes has the dispute fee's defaults.
	if w.DisputeFee == nil || *w.DisputeFee != 15 || w.DisputeFeeChargedTo != "store" {
		t.Fatalf("dispute fee defaults: %+v", w)
	}
	f := money.Fils(0)
	c.WalletSettings.DisputeFee, c.WalletSettings.DisputeFeeChargedTo = &f, FeeChargedToPlatform
	if w := c.WalletSettingsContract(); *w.DisputeFee != 0 || w.DisputeFeeChargedTo != "platform" {
		t.Fatalf("dispute fee set: %+v", w)
	}
}

// TestErrors: the wording of the service's own answers.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{NotFound("pcf_9"), "NOT_FOUND: platform configuration pcf_9 does not exist"},
		{ActiveExists(), "ALREADY_EXISTS: an active platform configuration already exists"},
		{NoneInForce(), "FAILED_PRECONDITION: there is no active platform configuration"},
	} {
		if tc.err.Error() != tc.want {
			t.Errorf("%v, want %s", tc.err, tc.want)
		}
	}
}
