// Package platformconfig is the platform configuration context's contract:
// the commission operation other services call, with a typed client, and the
// configuration events (topic "platformconfig") of services that follow
// settings without calling.
package platformconfig

import (
	"context"

	"marketplace/libs/money"
	"marketplace/libs/ops"
)

// Service is the platform configuration module name.
const Service = "platformconfig"

// Topic carries the configuration's events, keyed by configuration id.
const Topic = "platformconfig"

// EventConfigChanged is published when a configuration is created or changed,
// and again for the active one each time the service starts (so a follower
// that lost its copy, or started after the change, catches up).
// data: ConfigChanged.
const EventConfigChanged = "config.changed"

// LocationSettings are a configuration's store search radii, in km.
type LocationSettings struct {
	DefaultSearchRadiusKm float64 `json:"defaultSearchRadiusKm"`
	MaxSearchRadiusKm     float64 `json:"maxSearchRadiusKm"`
}

// ConfigChanged is the data of config.changed: what followers need of a
// configuration to apply the rule of the configuration in force (active,
// effective date not in the future, the most recent). Version grows with each
// change of one configuration (its history sequence; 0 for a configuration
// made before changes were numbered and not changed since).
type ConfigChanged struct {
	ConfigID         string           `json:"configId"`
	IsActive         bool             `json:"isActive"`
	EffectiveDate    int64            `json:"effectiveDate"`
	Version          int64            `json:"version"`
	LocationSettings LocationSettings `json:"locationSettings"`
}

// OpComputeCommission is the internal twin of getCommissionPreview, for orders.
const OpComputeCommission = "admins.platformAdmin.computeCommission"

// Breakdown explains a commission.
type Breakdown struct {
	PercentageCommission float64 `json:"percentageCommission"`
	FixedFeeAmount       float64 `json:"fixedFeeAmount"`
	MinimumApplied       bool    `json:"minimumApplied"`
	MaximumApplied       bool    `json:"maximumApplied"`
}

// Preview is getCommissionPreview's (and computeCommission's) answer, in AED.
type Preview struct {
	Subtotal            float64   `json:"subtotal"`
	DeliveryFee         float64   `json:"deliveryFee"`
	TotalAmount         float64   `json:"totalAmount"`
	PlatformCommission  float64   `json:"platformCommission"`
	StoreEarnings       float64   `json:"storeEarnings"`
	CommissionRate      float64   `json:"commissionRate"`
	FixedFee            float64   `json:"fixedFee"`
	CommissionBreakdown Breakdown `json:"commissionBreakdown"`
}

// OpGetWalletSettings is the wallet settings of the configuration in force
// (internal: the payouts service reads them without a caller, from events).
// With no active configuration it is FAILED_PRECONDITION.
const OpGetWalletSettings = "admins.platformAdmin.getWalletSettings"

// WalletSettings are the wallet settings of the configuration in force
// (section 2.8), in AED as the interface shows them.
type WalletSettings struct {
	MinPayoutAmount        float64 `json:"minPayoutAmount"`
	MaxPayoutAmount        float64 `json:"maxPayoutAmount"`
	PayoutProcessingFee    float64 `json:"payoutProcessingFee"`
	PendingBalanceHoldDays int     `json:"pendingBalanceHoldDays"`
	// DisputeFee (AED) is a lost dispute's fee and DisputeFeeChargedTo who
	// bears it (docs/adr/0147); absent from a service older than disputes
	// (the defaults then: 15.00, store).
	DisputeFee          *float64 `json:"disputeFee,omitempty"`
	DisputeFeeChargedTo string   `json:"disputeFeeChargedTo,omitempty" enum:"store|platform"`
}

// Client calls the platform configuration service.
type Client struct{ calls *ops.Client }

// NewClient makes a client over calls.
func NewClient(calls *ops.Client) *Client { return &Client{calls: calls} }

// Commission is the commission of an order of storeID under the rules in force.
func (c *Client) Commission(ctx context.Context, storeID string, subtotal, deliveryFee money.Fils) (*Preview, error) {
	var p Preview
	err := c.calls.Query(ctx, Service, OpComputeCommission,
		map[string]any{"storeId": storeID, "subtotal": subtotal.AED(), "deliveryFee": deliveryFee.AED()}, &p)
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// WalletSettings are the wallet settings in force (FAILED_PRECONDITION when
// there is no active configuration).
func (c *Client) WalletSettings(ctx context.Context) (*WalletSettings, error) {
	var w WalletSettings
	if err := c.calls.Query(ctx, Service, OpGetWalletSettings, nil, &w); err != nil {
		return nil, err
	}
	return &w, nil
}
