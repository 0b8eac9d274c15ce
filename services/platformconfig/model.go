package platformconfig

import "marketplace/libs/money"

// Stored shapes: amounts in fils, rates as given (a fraction of 1).

type categoryCommission struct {
	CategoryID        string      `bson:"categoryId"`
	CommissionRate    float64     `bson:"commissionRate"`
	FixedFee          *money.Fils `bson:"fixedFee,omitempty"`
	MinimumCommission *money.Fils `bson:"minimumCommission,omitempty"`
}

// tierCommission is a tier's own entry. Since setTierCommission, CommissionRate
// is always stored; FixedFee and MinimumCommission may be left out, and then fall
// back to the platform defaults like a category entry's.
//
// Legacy: configurations created by older code stored the basic tier with no
// values at all (CommissionRate nil), meaning "the platform defaults". Such an
// entry reads as the defaults (see resolved) and is pinned to them, as they
// were just before, by the next change of the configuration (see change).
type tierCommission struct {
	TierName          string      `bson:"tierName"`
	CommissionRate    *float64    `bson:"commissionRate,omitempty"`
	FixedFee          *money.Fils `bson:"fixedFee,omitempty"`
	MinimumCommission *money.Fils `bson:"minimumCommission,omitempty"`
}

type walletSettings struct {
	MinPayoutAmount        money.Fils `bson:"minPayoutAmount"`
	MaxPayoutAmount        money.Fils `bson:"maxPayoutAmount"`
	PayoutProcessingFee    money.Fils `bson:"payoutProcessingFee"`
	PendingBalanceHoldDays int        `bson:"pendingBalanceHoldDays"`
}

type locationSettings struct {
	DefaultSearchRadiusKm float64 `bson:"defaultSearchRadiusKm"`
	MaxSearchRadiusKm     float64 `bson:"maxSearchRadiusKm"`
}

type configDoc struct {
	ID                    string               `bson:"_id"`
	CreationTime          int64                `bson:"creationTime"`
	DefaultCommissionRate float64              `bson:"defaultCommissionRate"`
	FixedFeePerOrder      money.Fils           `bson:"fixedFeePerOrder"`
	MinimumCommission     money.Fils           `bson:"minimumCommission"`
	MaximumCommission     money.Fils           `bson:"maximumCommission"`
	CategoryCommissions   []categoryCommission `bson:"categoryCommissions"`
	StoreTierCommissions  []tierCommission     `bson:"storeTierCommissions"`
	WalletSettings        walletSettings       `bson:"walletSettings"`
	LocationSettings      locationSettings     `bson:"locationSettings"`
	IsActive              bool                 `bson:"isActive"`
	EffectiveDate         int64                `bson:"effectiveDate"`
	CreatedBy             string               `bson:"createdBy"`
	UpdatedBy             string               `bson:"updatedBy,omitempty"`
	UpdatedAt             int64                `bson:"updatedAt,omitempty"`
	// HistorySeq is the number of the configuration's last history entry; the
	// entries are numbered 1, 2, ... in the order their changes committed.
	HistorySeq int64 `bson:"historySeq"`
}

// legacy reports an entry stored by older code: no values, "the defaults".
func (t tierCommission) legacy() bool { return t.CommissionRate == nil }

// resolved is the entry as it stands: a legacy entry is the platform defaults'
// values; any other entry is itself.
func (d *configDoc) resolved(t tierCommission) tierCommission {
	if !t.legacy() {
		return t
	}
	rate, fixed, minimum := d.DefaultCommissionRate, d.FixedFeePerOrder, d.MinimumCommission
	return tierCommission{TierName: t.TierName, CommissionRate: &rate, FixedFee: &fixed, MinimumCommission: &minimum}
}

// pinLegacyTiers stores a legacy entry with the values it reads as, so that a
// change of the defaults that follows leaves it as it was.
func (d *configDoc) pinLegacyTiers() {
	for i, t := range d.StoreTierCommissions {
		d.StoreTierCommissions[i] = d.resolved(t)
	}
}

// The interface shapes (section 2.8): AED numbers.

// The entry views carry bson tags too: the change history stores them as the
// old and new values of an entry (history.go).

type CategoryCommissionView struct {
	CategoryID        string   `json:"categoryId" bson:"categoryId"`
	CommissionRate    float64  `json:"commissionRate" bson:"commissionRate"`
	FixedFee          *float64 `json:"fixedFee,omitempty" bson:"fixedFee,omitempty"`
	MinimumCommission *float64 `json:"minimumCommission,omitempty" bson:"minimumCommission,omitempty"`
}

// TierCommissionView is a tier's entry as stored: fixedFee and minimumCommission
// are absent when the entry leaves them to the platform defaults.
type TierCommissionView struct {
	TierName          string   `json:"tierName" bson:"tierName"`
	CommissionRate    float64  `json:"commissionRate" bson:"commissionRate"`
	FixedFee          *float64 `json:"fixedFee,omitempty" bson:"fixedFee,omitempty"`
	MinimumCommission *float64 `json:"minimumCommission,omitempty" bson:"minimumCommission,omitempty"`
}

type WalletSettingsView struct {
	MinPayoutAmount        float64 `json:"minPayoutAmount"`
	MaxPayoutAmount        float64 `json:"maxPayoutAmount"`
	PayoutProcessingFee    float64 `json:"payoutProcessingFee"`
	PendingBalanceHoldDays int     `json:"pendingBalanceHoldDays"`
}

type LocationSettingsView struct {
	DefaultSearchRadiusKm float64 `json:"defaultSearchRadiusKm"`
	MaxSearchRadiusKm     float64 `json:"maxSearchRadiusKm"`
}

// ConfigView is the platform configuration as clients see it.
type ConfigView struct {
	ID                    string                   `json:"_id"`
	CreationTime          int64                    `json:"_creationTime"`
	DefaultCommissionRate float64                  `json:"defaultCommissionRate"`
	FixedFeePerOrder      float64                  `json:"fixedFeePerOrder"`
	MinimumCommission     float64                  `json:"minimumCommission"`
	MaximumCommission     float64                  `json:"maximumCommission"`
	CategoryCommissions   []CategoryCommissionView `json:"categoryCommissions"`
	StoreTierCommissions  []TierCommissionView     `json:"storeTierCommissions"`
	WalletSettings        WalletSettingsView       `json:"walletSettings"`
	LocationSettings      LocationSettingsView     `json:"locationSettings"`
	IsActive              bool                     `json:"isActive"`
	EffectiveDate         int64                    `json:"effectiveDate"`
}

func aedPtr(f *money.Fils) *float64 {
	if f == nil {
		return nil
	}
	v := f.AED()
	return &v
}

func (d *configDoc) view() *ConfigView {
	v := &ConfigView{
		ID: d.ID, CreationTime: d.CreationTime, DefaultCommissionRate: d.DefaultCommissionRate,
		FixedFeePerOrder: d.FixedFeePerOrder.AED(), MinimumCommission: d.MinimumCommission.AED(), MaximumCommission: d.MaximumCommission.AED(),
		CategoryCommissions:  make([]CategoryCommissionView, 0, len(d.CategoryCommissions)),
		StoreTierCommissions: make([]TierCommissionView, 0, len(d.StoreTierCommissions)),
		WalletSettings: WalletSettingsView{
			MinPayoutAmount: d.WalletSettings.MinPayoutAmount.AED(), MaxPayoutAmount: d.WalletSettings.MaxPayoutAmount.AED(),
			PayoutProcessingFee: d.WalletSettings.PayoutProcessingFee.AED(), PendingBalanceHoldDays: d.WalletSettings.PendingBalanceHoldDays,
		},
		LocationSettings: LocationSettingsView(d.LocationSettings),
		IsActive:         d.IsActive, EffectiveDate: d.EffectiveDate,
	}
	for _, c := range d.CategoryCommissions {
		v.CategoryCommissions = append(v.CategoryCommissions, CategoryCommissionView{c.CategoryID, c.CommissionRate, aedPtr(c.FixedFee), aedPtr(c.MinimumCommission)})
	}
	for _, t := range d.StoreTierCommissions {
		t = d.resolved(t)
		v.StoreTierCommissions = append(v.StoreTierCommissions, TierCommissionView{t.TierName, *t.CommissionRate, aedPtr(t.FixedFee), aedPtr(t.MinimumCommission)})
	}
	return v
}

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

	defaultWallet   = walletSettings{MinPayoutAmount: fils(100), MaxPayoutAmount: fils(50000), PayoutProcessingFee: fils(2), PendingBalanceHoldDays: 7}
	defaultLocation = locationSettings{DefaultSearchRadiusKm: 10, MaxSearchRadiusKm: 50}
)

// initialTiers are a new configuration's tier entries. The basic tier is stored
// with the platform defaults' values of that moment (the contract), as values of
// its own: a later change of the defaults leaves it as it was.
func initialTiers(rate float64, fixed, minimum money.Fils) []tierCommission {
	return []tierCommission{
		{TierName: "basic", CommissionRate: &rate, FixedFee: &fixed, MinimumCommission: &minimum},
		{TierName: "premium", CommissionRate: ratePtr(0.04), FixedFee: filsPtr(1.5), MinimumCommission: filsPtr(1)},
		{TierName: "enterprise", CommissionRate: ratePtr(0.03), FixedFee: filsPtr(1), MinimumCommission: filsPtr(0.5)},
	}
}
