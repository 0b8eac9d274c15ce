package platformconfig

import "marketplace/libs/money"

// Stored shapes: amounts in fils, rates as given (a fraction of 1).

type categoryCommission struct {
	CategoryID        string      `bson:"categoryId"`
	CommissionRate    float64     `bson:"commissionRate"`
	FixedFee          *money.Fils `bson:"fixedFee,omitempty"`
	MinimumCommission *money.Fils `bson:"minimumCommission,omitempty"`
}

// tierCommission fields left nil follow the platform defaults: the basic tier is
// stored that way, so a basic store pays the defaults even after they change.
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
}

// The interface shapes (section 2.8): AED numbers.

type CategoryCommissionView struct {
	CategoryID        string   `json:"categoryId"`
	CommissionRate    float64  `json:"commissionRate"`
	FixedFee          *float64 `json:"fixedFee,omitempty"`
	MinimumCommission *float64 `json:"minimumCommission,omitempty"`
}

type TierCommissionView struct {
	TierName          string   `json:"tierName"`
	CommissionRate    float64  `json:"commissionRate"`
	FixedFee          *float64 `json:"fixedFee,omitempty"`
	MinimumCommission *float64 `json:"minimumCommission,omitempty"`
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
		// A tier shows what it charges: its own values, else the defaults it follows.
		tv := TierCommissionView{TierName: t.TierName, CommissionRate: d.DefaultCommissionRate, FixedFee: aedPtr(&d.FixedFeePerOrder), MinimumCommission: aedPtr(&d.MinimumCommission)}
		if t.CommissionRate != nil {
			tv.CommissionRate = *t.CommissionRate
		}
		if t.FixedFee != nil {
			tv.FixedFee = aedPtr(t.FixedFee)
		}
		if t.MinimumCommission != nil {
			tv.MinimumCommission = aedPtr(t.MinimumCommission)
		}
		v.StoreTierCommissions = append(v.StoreTierCommissions, tv)
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
// the category rates; the tier rates, wallet and location settings are ours
// (docs/decisions.md).
var (
	defaultCategoryRates = []struct {
		Name string
		Rate float64
	}{{"Food", 0.04}, {"Groceries", 0.03}, {"Electronics", 0.07}}

	defaultTiers = []tierCommission{
		{TierName: "basic"}, // the platform defaults, whatever they become
		{TierName: "premium", CommissionRate: ratePtr(0.04), FixedFee: filsPtr(1.5), MinimumCommission: filsPtr(1)},
		{TierName: "enterprise", CommissionRate: ratePtr(0.03), FixedFee: filsPtr(1), MinimumCommission: filsPtr(0.5)},
	}

	defaultWallet   = walletSettings{MinPayoutAmount: fils(100), MaxPayoutAmount: fils(50000), PayoutProcessingFee: fils(2), PendingBalanceHoldDays: 7}
	defaultLocation = locationSettings{DefaultSearchRadiusKm: 10, MaxSearchRadiusKm: 50}
)
