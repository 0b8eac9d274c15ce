// Package domain holds the platform configuration and its rules: the fields
// that tie together, the commission entries (category and tier) and their
// resolution for a store, the change history's comparison. No storage, no
// transport: time and identifiers are parameters.
package domain

import (
	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/platformconfig"
	"marketplace/libs/money"
)

// Stored shapes: amounts in fils, rates as given (a fraction of 1). The bson
// tags are the stored documents' field names (collection platformConfig).

type CategoryCommission struct {
	CategoryID        string      `bson:"categoryId"`
	CommissionRate    float64     `bson:"commissionRate"`
	FixedFee          *money.Fils `bson:"fixedFee,omitempty"`
	MinimumCommission *money.Fils `bson:"minimumCommission,omitempty"`
}

// TierCommission is a tier's own entry. Since setTierCommission, CommissionRate
// is always stored; FixedFee and MinimumCommission may be left out, and then fall
// back to the platform defaults like a category entry's.
//
// Legacy: configurations created by older code stored the basic tier with no
// values at all (CommissionRate nil), meaning "the platform defaults". Such an
// entry reads as the defaults (see Resolved) and is pinned to them, as they
// were just before, by the next change of the configuration (see Apply).
type TierCommission struct {
	TierName          string      `bson:"tierName"`
	CommissionRate    *float64    `bson:"commissionRate,omitempty"`
	FixedFee          *money.Fils `bson:"fixedFee,omitempty"`
	MinimumCommission *money.Fils `bson:"minimumCommission,omitempty"`
}

type WalletSettings struct {
	MinPayoutAmount        money.Fils `bson:"minPayoutAmount"`
	MaxPayoutAmount        money.Fils `bson:"maxPayoutAmount"`
	PayoutProcessingFee    money.Fils `bson:"payoutProcessingFee"`
	PendingBalanceHoldDays int        `bson:"pendingBalanceHoldDays"`
	// DisputeFee (a lost dispute's fee) and DisputeFeeChargedTo (store or
	// platform: who bears it) are absent from configurations older than
	// disputes, which have the defaults (DisputeFeeOrDefault,
	// ChargedToOrDefault; docs/adr/0147).
	DisputeFee          *money.Fils `bson:"disputeFee,omitempty"`
	DisputeFeeChargedTo string      `bson:"disputeFeeChargedTo,omitempty"`
}

// Who bears a lost dispute's fee, and the defaults.
const (
	FeeChargedToStore    = "store"
	FeeChargedToPlatform = "platform"
)

// DefaultDisputeFee is a lost dispute's fee when none is set: 15.00 AED.
const DefaultDisputeFee money.Fils = 15_00

// MaxDisputeFee bounds the dispute fee: 1,000 AED.
const MaxDisputeFee money.Fils = 1_000_00

// DisputeFeeOrDefault is the dispute fee in force.
func (w WalletSettings) DisputeFeeOrDefault() money.Fils {
	if w.DisputeFee == nil {
		return DefaultDisputeFee
	}
	return *w.DisputeFee
}

// ChargedToOrDefault is who bears a lost dispute's fee.
func (w WalletSettings) ChargedToOrDefault() string {
	if w.DisputeFeeChargedTo == "" {
		return FeeChargedToStore
	}
	return w.DisputeFeeChargedTo
}

type LocationSettings struct {
	DefaultSearchRadiusKm float64 `bson:"defaultSearchRadiusKm"`
	MaxSearchRadiusKm     float64 `bson:"maxSearchRadiusKm"`
}

// Config is a platform configuration.
type Config struct {
	ID                    string               `bson:"_id"`
	CreationTime          int64                `bson:"creationTime"`
	DefaultCommissionRate float64              `bson:"defaultCommissionRate"`
	FixedFeePerOrder      money.Fils           `bson:"fixedFeePerOrder"`
	MinimumCommission     money.Fils           `bson:"minimumCommission"`
	MaximumCommission     money.Fils           `bson:"maximumCommission"`
	CategoryCommissions   []CategoryCommission `bson:"categoryCommissions"`
	StoreTierCommissions  []TierCommission     `bson:"storeTierCommissions"`
	WalletSettings        WalletSettings       `bson:"walletSettings"`
	LocationSettings      LocationSettings     `bson:"locationSettings"`
	IsActive              bool                 `bson:"isActive"`
	EffectiveDate         int64                `bson:"effectiveDate"`
	CreatedBy             string               `bson:"createdBy"`
	UpdatedBy             string               `bson:"updatedBy,omitempty"`
	UpdatedAt             int64                `bson:"updatedAt,omitempty"`
	// HistorySeq is the number of the configuration's last history entry; the
	// entries are numbered 1, 2, ... in the order their changes committed.
	HistorySeq int64 `bson:"historySeq"`
}

// NotFound is the answer for a configuration id that names none.
func NotFound(id string) error {
	return apperr.New(apperr.NotFound, "platform configuration %s does not exist", id)
}

// ActiveExists is createInitialPlatformConfig's answer when a configuration
// is already active: there is at most one active configuration.
func ActiveExists() error {
	return apperr.New(apperr.AlreadyExists, "an active platform configuration already exists")
}

// NoneInForce is the answer of the operations that need the configuration in
// force when there is none.
func NoneInForce() error {
	return apperr.New(apperr.FailedPrecondition, "there is no active platform configuration")
}

// DefaultCategories are the names of the categories a new configuration
// carries an entry for (the catalog creates those that are missing).
func DefaultCategories() []string {
	names := make([]string, len(defaultCategoryRates))
	for i, c := range defaultCategoryRates {
		names[i] = c.Name
	}
	return names
}

// NewConfig is the first configuration: active and effective from now, with
// the defaults. categoryIDs maps each of DefaultCategories to its id. Its
// creation is history entry 1.
func NewConfig(id string, now int64, adminID string, categoryIDs map[string]string) Config {
	c := Config{
		ID: id, CreationTime: now,
		DefaultCommissionRate: initialRate, FixedFeePerOrder: initialFixed, MinimumCommission: initialMinimum, MaximumCommission: initialMaximum,
		StoreTierCommissions: initialTiers(initialRate, initialFixed, initialMinimum), WalletSettings: defaultWallet, LocationSettings: defaultLocation,
		IsActive: true, EffectiveDate: now, CreatedBy: adminID, HistorySeq: 1,
	}
	for _, d := range defaultCategoryRates {
		c.CategoryCommissions = append(c.CategoryCommissions, CategoryCommission{CategoryID: categoryIDs[d.Name], CommissionRate: d.Rate})
	}
	return c
}

// InForce says whether c is the kind of configuration that can be in force at
// now (millis): active and effective. Of those, the most recent effective date
// wins (then the greatest id): see Latest.
func (c *Config) InForce(now int64) bool { return c.IsActive && c.EffectiveDate <= now }

// Latest is the configuration in force at now among cs, or nil. The
// repository makes the same choice with a query (storage.Configs.Active).
func Latest(cs []Config, now int64) *Config {
	var best *Config
	for i := range cs {
		c := &cs[i]
		if !c.InForce(now) {
			continue
		}
		if best == nil || c.EffectiveDate > best.EffectiveDate || (c.EffectiveDate == best.EffectiveDate && c.ID > best.ID) {
			best = c
		}
	}
	return best
}

// Clone is a deep copy of the lists a change may alter: a change applied to
// it leaves c as it was.
func (c *Config) Clone() Config {
	d := *c
	if c.CategoryCommissions != nil {
		d.CategoryCommissions = append([]CategoryCommission{}, c.CategoryCommissions...)
	}
	if c.StoreTierCommissions != nil {
		d.StoreTierCommissions = append([]TierCommission{}, c.StoreTierCommissions...)
	}
	return d
}

// Legacy reports an entry stored by older code: no values, "the defaults".
func (t TierCommission) Legacy() bool { return t.CommissionRate == nil }

// Resolved is the entry as it stands: a legacy entry is the platform defaults'
// values; any other entry is itself.
func (c *Config) Resolved(t TierCommission) TierCommission {
	if !t.Legacy() {
		return t
	}
	rate, fixed, minimum := c.DefaultCommissionRate, c.FixedFeePerOrder, c.MinimumCommission
	return TierCommission{TierName: t.TierName, CommissionRate: &rate, FixedFee: &fixed, MinimumCommission: &minimum}
}

// PinLegacyTiers stores a legacy entry with the values it reads as, so that a
// change of the defaults that follows leaves it as it was.
func (c *Config) PinLegacyTiers() {
	for i, t := range c.StoreTierCommissions {
		c.StoreTierCommissions[i] = c.Resolved(t)
	}
}

// Apply is a change of the configuration: it pins legacy tier entries, runs
// fn, checks the rules that tie fields together, and lists what changed as
// clients see it. When something changed, c is stamped with who changed it,
// when, and the next history number; when nothing changed (an empty list) the
// change is not to be written, nor recorded, nor announced.
func (c *Config) Apply(adminID string, now int64, fn func(*Config) error) ([]Change, error) {
	before, orig := c.View(), c.Clone()
	c.PinLegacyTiers()
	if err := fn(c); err != nil {
		return nil, err
	}
	if err := c.Check(); err != nil {
		return nil, err
	}
	changes := Diff(before, c.View())
	if len(changes) == 0 {
		// Pinning is part of a change: without one, the stored record stays
		// as it was.
		*c = orig
		return nil, nil
	}
	c.UpdatedBy, c.UpdatedAt = adminID, now
	c.HistorySeq++
	return changes, nil
}

// Check holds the rules between fields that single-field bounds cannot express.
func (c *Config) Check() error {
	if err := CheckRate("defaultCommissionRate", c.DefaultCommissionRate); err != nil {
		return err
	}
	if c.MinimumCommission > c.MaximumCommission {
		return apperr.Invalid("minimumCommission", "must not exceed maximumCommission (%.2f AED)", c.MaximumCommission.AED())
	}
	// A category's or tier's own minimum above the maximum would make both clamps
	// apply at once: refused whichever of the two changes, with one message.
	entryMinimum := func(what string, m *money.Fils) error {
		if m != nil && *m > c.MaximumCommission {
			return apperr.Invalid("minimumCommission", "the minimum of %s (%.2f AED) must not exceed maximumCommission (%.2f AED)", what, m.AED(), c.MaximumCommission.AED())
		}
		return nil
	}
	for _, e := range c.CategoryCommissions {
		if err := entryMinimum("category "+e.CategoryID, e.MinimumCommission); err != nil {
			return err
		}
	}
	for _, t := range c.StoreTierCommissions {
		if err := entryMinimum("the "+t.TierName+" tier", t.MinimumCommission); err != nil {
			return err
		}
	}
	w := c.WalletSettings
	if w.MinPayoutAmount > w.MaxPayoutAmount {
		return apperr.Invalid("walletSettings.minPayoutAmount", "must not exceed maxPayoutAmount (%.2f AED)", w.MaxPayoutAmount.AED())
	}
	if w.PayoutProcessingFee > w.MinPayoutAmount {
		return apperr.Invalid("walletSettings.payoutProcessingFee", "must not exceed minPayoutAmount (%.2f AED), or a payout could pay out nothing", w.MinPayoutAmount.AED())
	}
	if f := w.DisputeFeeOrDefault(); f < 0 || f > MaxDisputeFee {
		return apperr.Invalid("walletSettings.disputeFee", "must be from 0 to %.2f AED, not %.2f AED", MaxDisputeFee.AED(), f.AED())
	}
	if to := w.ChargedToOrDefault(); to != FeeChargedToStore && to != FeeChargedToPlatform {
		return apperr.Invalid("walletSettings.disputeFeeChargedTo", "must be store or platform, not %q", to)
	}
	l := c.LocationSettings
	if l.DefaultSearchRadiusKm > l.MaxSearchRadiusKm {
		return apperr.Invalid("locationSettings.defaultSearchRadiusKm", "must not exceed maxSearchRadiusKm (%v km)", l.MaxSearchRadiusKm)
	}
	return nil
}

// CheckRate: commission math works in millionths, so a rate with more decimals
// would be charged differently from how it is shown.
func CheckRate(field string, r float64) error {
	if money.RateOf(r).Float() != r {
		return apperr.Invalid(field, "must have at most 6 decimals")
	}
	return nil
}

// A commission entry (category or tier) is validated the same way for
// addCategoryCommission and setTierCommission: its arguments commissionRate,
// fixedFee and minimumCommission carry the same declared bounds (0 to 1, >= 0,
// whole fils); CheckEntry then checks what bounds cannot, first; and after the
// entry is applied, Check (in Apply) refuses a minimum above the platform
// maximum for every entry alike.
func CheckEntry(rate float64) error { return CheckRate("commissionRate", rate) }

// SetCategoryCommission replaces the category's entry, keeping its place, or
// adds it at the end.
func (c *Config) SetCategoryCommission(e CategoryCommission) {
	c.CategoryCommissions = replaceOrAdd(c.CategoryCommissions, e, func(x CategoryCommission) bool { return x.CategoryID == e.CategoryID })
}

// SetTierCommission replaces the tier's entry, keeping its place, or adds it
// at the end. A fixed fee or minimum left nil is stored absent and falls back
// to the platform defaults.
func (c *Config) SetTierCommission(e TierCommission) {
	c.StoreTierCommissions = replaceOrAdd(c.StoreTierCommissions, e, func(x TierCommission) bool { return x.TierName == e.TierName })
}

// replaceOrAdd replaces the entry of list that is the same as e, keeping its
// place, or adds e at the end.
func replaceOrAdd[T any](list []T, e T, same func(T) bool) []T {
	for i := range list {
		if same(list[i]) {
			list[i] = e
			return list
		}
	}
	return append(list, e)
}

// Effective resolves the rules for a store of the given primary category (nil:
// none) and tier: category entry, tier entry, defaults.
func (c *Config) Effective(primaryCategoryID *string, tier string) Effective {
	defaults := Effective{Rate: money.RateOf(c.DefaultCommissionRate), Fixed: c.FixedFeePerOrder, Minimum: c.MinimumCommission, Maximum: c.MaximumCommission}
	var cat, tr *Rates
	if primaryCategoryID != nil {
		for _, e := range c.CategoryCommissions {
			if e.CategoryID == *primaryCategoryID {
				r := money.RateOf(e.CommissionRate)
				cat = &Rates{Rate: &r, FixedFee: e.FixedFee, MinimumCommission: e.MinimumCommission}
			}
		}
	}
	for _, t := range c.StoreTierCommissions {
		if t.TierName == tier {
			t = c.Resolved(t) // a legacy entry charges the defaults
			r := money.RateOf(*t.CommissionRate)
			tr = &Rates{Rate: &r, FixedFee: t.FixedFee, MinimumCommission: t.MinimumCommission}
		}
	}
	return Resolve(defaults, cat, tr)
}

// Changed is the config.changed event of c as it now stands. Services that
// follow the configuration without calling this one keep a copy fed by it.
func (c *Config) Changed() contract.ConfigChanged {
	return contract.ConfigChanged{
		ConfigID: c.ID, IsActive: c.IsActive, EffectiveDate: c.EffectiveDate, Version: c.HistorySeq,
		LocationSettings: contract.LocationSettings(c.LocationSettings),
	}
}

// WalletSettingsContract is the wallet settings as the payouts service reads them.
func (c *Config) WalletSettingsContract() *contract.WalletSettings {
	w := c.WalletSettings
	return &contract.WalletSettings{MinPayoutAmount: w.MinPayoutAmount.AED(), MaxPayoutAmount: w.MaxPayoutAmount.AED(),
		PayoutProcessingFee: w.PayoutProcessingFee.AED(), PendingBalanceHoldDays: w.PendingBalanceHoldDays,
		DisputeFee: ptr(w.DisputeFeeOrDefault().AED()), DisputeFeeChargedTo: w.ChargedToOrDefault()}
}

func ptr[T any](v T) *T { return &v }

func fils(aed float64) money.Fils {
	f, err := money.FromAED(aed)
	if err != nil {
		panic(err) // only called with the constants below
	}
	return f
}

func filsPtr(aed float64) *money.Fils { f := fils(aed); return &f }

func ratePtr(r float64) *float64 { return &r }

// Defaults of a new configuration. The interface fixes the platform defaults and
// the category rates; the premium and enterprise rates, wallet and location
// settings are ours (docs/adr/0026-platform-config-defaults-and-tiers.md).
var (
	initialRate    = 0.05
	initialFixed   = fils(2)
	initialMinimum = fils(1)
	initialMaximum = fils(50)

	defaultCategoryRates = []struct {
		Name string
		Rate float64
	}{{"Food", 0.04}, {"Groceries", 0.03}, {"Electronics", 0.07}}

	defaultWallet   = WalletSettings{MinPayoutAmount: fils(100), MaxPayoutAmount: fils(50000), PayoutProcessingFee: fils(2), PendingBalanceHoldDays: 7}
	defaultLocation = LocationSettings{DefaultSearchRadiusKm: 10, MaxSearchRadiusKm: 50}
)

// initialTiers are a new configuration's tier entries. The basic tier is stored
// with the platform defaults' values of that moment (the contract), as values of
// its own: a later change of the defaults leaves it as it was.
func initialTiers(rate float64, fixed, minimum money.Fils) []TierCommission {
	return []TierCommission{
		{TierName: "basic", CommissionRate: &rate, FixedFee: &fixed, MinimumCommission: &minimum},
		{TierName: "premium", CommissionRate: ratePtr(0.04), FixedFee: filsPtr(1.5), MinimumCommission: filsPtr(1)},
		{TierName: "enterprise", CommissionRate: ratePtr(0.03), FixedFee: filsPtr(1), MinimumCommission: filsPtr(0.5)},
	}
}
