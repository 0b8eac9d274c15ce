package domain

import "marketplace/libs/money"

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
	DisputeFee             float64 `json:"disputeFee"`
	DisputeFeeChargedTo    string  `json:"disputeFeeChargedTo" enum:"store|platform"`
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

// View is c as clients see it; a legacy tier entry shows the defaults' values.
func (c *Config) View() *ConfigView {
	v := &ConfigView{
		ID: c.ID, CreationTime: c.CreationTime, DefaultCommissionRate: c.DefaultCommissionRate,
		FixedFeePerOrder: c.FixedFeePerOrder.AED(), MinimumCommission: c.MinimumCommission.AED(), MaximumCommission: c.MaximumCommission.AED(),
		CategoryCommissions:  make([]CategoryCommissionView, 0, len(c.CategoryCommissions)),
		StoreTierCommissions: make([]TierCommissionView, 0, len(c.StoreTierCommissions)),
		WalletSettings: WalletSettingsView{
			MinPayoutAmount: c.WalletSettings.MinPayoutAmount.AED(), MaxPayoutAmount: c.WalletSettings.MaxPayoutAmount.AED(),
			PayoutProcessingFee: c.WalletSettings.PayoutProcessingFee.AED(), PendingBalanceHoldDays: c.WalletSettings.PendingBalanceHoldDays,
			DisputeFee: c.WalletSettings.DisputeFeeOrDefault().AED(), DisputeFeeChargedTo: c.WalletSettings.ChargedToOrDefault(),
		},
		LocationSettings: LocationSettingsView(c.LocationSettings),
		IsActive:         c.IsActive, EffectiveDate: c.EffectiveDate,
	}
	for _, e := range c.CategoryCommissions {
		v.CategoryCommissions = append(v.CategoryCommissions, CategoryCommissionView{e.CategoryID, e.CommissionRate, aedPtr(e.FixedFee), aedPtr(e.MinimumCommission)})
	}
	for _, t := range c.StoreTierCommissions {
		t = c.Resolved(t)
		v.StoreTierCommissions = append(v.StoreTierCommissions, TierCommissionView{t.TierName, *t.CommissionRate, aedPtr(t.FixedFee), aedPtr(t.MinimumCommission)})
	}
	return v
}
