// Package platformconfig owns the platform's commission and wallet configuration
// and computes commission previews.
package platformconfig

import (
	"context"
	"encoding/json"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// Module is the platform configuration service.
var Module = service.Module{Name: "platformconfig", Build: build}

const coll = "platformConfig"

type svc struct {
	env service.Env
	now func() time.Time
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, now: time.Now}
	return &service.Built{
		Registry: ops.NewRegistry("platformconfig",
			ops.NewMutation("admins.platformAdmin.createInitialPlatformConfig", ops.Admin, "Create the first active configuration with the defaults.", s.createInitial),
			ops.NewQuery("admins.platformAdmin.getActivePlatformConfig", ops.Authenticated, "The configuration in force, or null.", s.getActive),
			ops.NewMutation("admins.platformAdmin.updatePlatformConfig", ops.Admin, "Change the provided fields of a configuration.", s.update),
			ops.NewMutation("admins.platformAdmin.addCategoryCommission", ops.Admin, "Add or replace a category's commission entry.", s.addCategoryCommission),
			ops.NewQuery("admins.platformAdmin.getCommissionPreview", ops.Authenticated, "The commission of an order of a store.", s.preview),
			// The same calculation for other services (orders freeze it at creation).
			ops.NewQuery("admins.platformAdmin.computeCommission", ops.Internal, "The commission of an order of a store.", s.preview),
		),
		Indexes: []store.Index{
			// At most one active configuration: createInitialPlatformConfig's rule,
			// held by the database even under concurrent calls.
			{Collection: coll, Keys: bson.D{{Key: "isActive", Value: 1}}, Unique: true, Partial: bson.M{"isActive": true}, Name: "one_active"},
			{Collection: coll, Keys: bson.D{{Key: "effectiveDate", Value: -1}}, Name: "effective"},
		},
	}, nil
}

type adminArgs struct {
	AdminUserID string `json:"adminUserId" op:"required,nonblank"`
}

func (s *svc) createInitial(ctx context.Context, a *adminArgs) (string, error) {
	names := make([]string, len(defaultCategoryRates))
	for i, c := range defaultCategoryRates {
		names[i] = c.Name
	}
	var catIDs map[string]string
	if err := s.env.Calls.Mutation(ctx, "catalog", "catalog.categories.ensureByName", map[string]any{"names": names}, &catIDs); err != nil {
		return "", err
	}
	now := s.now().UnixMilli()
	d := configDoc{
		ID: ids.New("platformConfig"), CreationTime: now,
		DefaultCommissionRate: 0.05, FixedFeePerOrder: fils(2), MinimumCommission: fils(1), MaximumCommission: fils(50),
		StoreTierCommissions: defaultTiers, WalletSettings: defaultWallet, LocationSettings: defaultLocation,
		IsActive: true, EffectiveDate: now, CreatedBy: a.AdminUserID,
	}
	for _, c := range defaultCategoryRates {
		d.CategoryCommissions = append(d.CategoryCommissions, categoryCommission{CategoryID: catIDs[c.Name], CommissionRate: c.Rate})
	}
	if _, err := s.env.DB.Collection(coll).InsertOne(ctx, d); err != nil {
		if store.IsDuplicate(err) {
			return "", apperr.New(apperr.AlreadyExists, "an active platform configuration already exists")
		}
		return "", err
	}
	return d.ID, nil
}

// active is the configuration in force: active, effective date not in the future,
// the most recent.
func (s *svc) active(ctx context.Context) (*configDoc, error) {
	var d configDoc
	err := s.env.DB.Collection(coll).FindOne(ctx,
		bson.M{"isActive": true, "effectiveDate": bson.M{"$lte": s.now().UnixMilli()}},
		options.FindOne().SetSort(bson.D{{Key: "effectiveDate", Value: -1}, {Key: "_id", Value: -1}}),
	).Decode(&d)
	if store.IsNotFound(err) {
		return nil, nil
	}
	return &d, err
}

func (s *svc) getActive(ctx context.Context, _ *ops.NoArgs) (*ConfigView, error) {
	d, err := s.active(ctx)
	if err != nil || d == nil {
		return nil, err
	}
	return d.view(), nil
}

type walletSettingsArgs struct {
	MinPayoutAmount        *money.Fils `json:"minPayoutAmount" op:"min=0"`
	MaxPayoutAmount        *money.Fils `json:"maxPayoutAmount" op:"min=0"`
	PayoutProcessingFee    *money.Fils `json:"payoutProcessingFee" op:"min=0"`
	PendingBalanceHoldDays *int        `json:"pendingBalanceHoldDays" op:"min=0,max=365"`
}

type locationSettingsArgs struct {
	DefaultSearchRadiusKm *float64 `json:"defaultSearchRadiusKm" op:"min=0.1,max=1000"`
	MaxSearchRadiusKm     *float64 `json:"maxSearchRadiusKm" op:"min=0.1,max=1000"`
}

type updateArgs struct {
	AdminUserID           string                `json:"adminUserId" op:"required,nonblank"`
	ConfigID              string                `json:"configId" op:"required,id=platformConfig"`
	DefaultCommissionRate *float64              `json:"defaultCommissionRate" op:"min=0,max=1"`
	FixedFeePerOrder      *money.Fils           `json:"fixedFeePerOrder" op:"min=0"`
	MinimumCommission     *money.Fils           `json:"minimumCommission" op:"min=0"`
	MaximumCommission     *money.Fils           `json:"maximumCommission" op:"min=0"`
	WalletSettings        *walletSettingsArgs   `json:"walletSettings"`
	LocationSettings      *locationSettingsArgs `json:"locationSettings"`
}

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// change reads a configuration, applies fn and writes it back in one transaction,
// after checking the rules that tie fields together.
func (s *svc) change(ctx context.Context, configID, adminID string, fn func(d *configDoc) error) (*ConfigView, error) {
	var out *configDoc
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		var d configDoc
		err := s.env.DB.Collection(coll).FindOne(ctx, bson.M{"_id": configID}).Decode(&d)
		if store.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "platform configuration %s does not exist", configID)
		}
		if err != nil {
			return err
		}
		if err := fn(&d); err != nil {
			return err
		}
		if err := d.check(); err != nil {
			return err
		}
		d.UpdatedBy, d.UpdatedAt = adminID, s.now().UnixMilli()
		if _, err := s.env.DB.Collection(coll).ReplaceOne(ctx, bson.M{"_id": configID}, d); err != nil {
			return err
		}
		out = &d
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out.view(), nil
}

// check holds the rules between fields that single-field bounds cannot express.
func (d *configDoc) check() error {
	if err := checkRate("defaultCommissionRate", d.DefaultCommissionRate); err != nil {
		return err
	}
	if d.MinimumCommission > d.MaximumCommission {
		return apperr.Invalid("minimumCommission", "must not exceed maximumCommission (%.2f AED)", d.MaximumCommission.AED())
	}
	// A category's or tier's own minimum above the maximum would make both clamps
	// apply at once.
	for _, c := range d.CategoryCommissions {
		if c.MinimumCommission != nil && *c.MinimumCommission > d.MaximumCommission {
			return apperr.Invalid("minimumCommission", "the minimum of category %s (%.2f AED) must not exceed maximumCommission (%.2f AED)", c.CategoryID, c.MinimumCommission.AED(), d.MaximumCommission.AED())
		}
	}
	for _, t := range d.StoreTierCommissions {
		if t.MinimumCommission != nil && *t.MinimumCommission > d.MaximumCommission {
			return apperr.Invalid("maximumCommission", "must not be below the %s tier's minimum (%.2f AED)", t.TierName, t.MinimumCommission.AED())
		}
	}
	w := d.WalletSettings
	if w.MinPayoutAmount > w.MaxPayoutAmount {
		return apperr.Invalid("walletSettings.minPayoutAmount", "must not exceed maxPayoutAmount (%.2f AED)", w.MaxPayoutAmount.AED())
	}
	if w.PayoutProcessingFee > w.MinPayoutAmount {
		return apperr.Invalid("walletSettings.payoutProcessingFee", "must not exceed minPayoutAmount (%.2f AED), or a payout could pay out nothing", w.MinPayoutAmount.AED())
	}
	l := d.LocationSettings
	if l.DefaultSearchRadiusKm > l.MaxSearchRadiusKm {
		return apperr.Invalid("locationSettings.defaultSearchRadiusKm", "must not exceed maxSearchRadiusKm (%v km)", l.MaxSearchRadiusKm)
	}
	return nil
}

// checkRate: commission math works in millionths, so a rate with more decimals
// would be charged differently from how it is shown.
func checkRate(field string, r float64) error {
	if money.RateOf(r).Float() != r {
		return apperr.Invalid(field, "must have at most 6 decimals")
	}
	return nil
}

func (s *svc) update(ctx context.Context, a *updateArgs) (*ConfigView, error) {
	return s.change(ctx, a.ConfigID, a.AdminUserID, func(d *configDoc) error {
		set(&d.DefaultCommissionRate, a.DefaultCommissionRate)
		set(&d.FixedFeePerOrder, a.FixedFeePerOrder)
		set(&d.MinimumCommission, a.MinimumCommission)
		set(&d.MaximumCommission, a.MaximumCommission)
		if w := a.WalletSettings; w != nil {
			set(&d.WalletSettings.MinPayoutAmount, w.MinPayoutAmount)
			set(&d.WalletSettings.MaxPayoutAmount, w.MaxPayoutAmount)
			set(&d.WalletSettings.PayoutProcessingFee, w.PayoutProcessingFee)
			set(&d.WalletSettings.PendingBalanceHoldDays, w.PendingBalanceHoldDays)
		}
		if l := a.LocationSettings; l != nil {
			set(&d.LocationSettings.DefaultSearchRadiusKm, l.DefaultSearchRadiusKm)
			set(&d.LocationSettings.MaxSearchRadiusKm, l.MaxSearchRadiusKm)
		}
		return nil
	})
}

type addCategoryArgs struct {
	AdminUserID       string      `json:"adminUserId" op:"required,nonblank"`
	ConfigID          string      `json:"configId" op:"required,id=platformConfig"`
	CategoryID        string      `json:"categoryId" op:"required,id=categories"`
	CommissionRate    float64     `json:"commissionRate" op:"required,min=0,max=1"`
	FixedFee          *money.Fils `json:"fixedFee" op:"min=0"`
	MinimumCommission *money.Fils `json:"minimumCommission" op:"min=0"`
}

func (s *svc) addCategoryCommission(ctx context.Context, a *addCategoryArgs) (*ConfigView, error) {
	if err := checkRate("commissionRate", a.CommissionRate); err != nil {
		return nil, err
	}
	var cats map[string]json.RawMessage
	if err := s.env.Calls.Query(ctx, "catalog", "catalog.categories.getCategories", map[string]any{"categoryIds": []string{a.CategoryID}}, &cats); err != nil {
		return nil, err
	}
	if _, ok := cats[a.CategoryID]; !ok {
		return nil, apperr.New(apperr.NotFound, "category %s does not exist", a.CategoryID)
	}
	entry := categoryCommission{CategoryID: a.CategoryID, CommissionRate: a.CommissionRate, FixedFee: a.FixedFee, MinimumCommission: a.MinimumCommission}
	return s.change(ctx, a.ConfigID, a.AdminUserID, func(d *configDoc) error {
		for i, c := range d.CategoryCommissions {
			if c.CategoryID == a.CategoryID {
				d.CategoryCommissions[i] = entry // replace, keeping its place
				return nil
			}
		}
		d.CategoryCommissions = append(d.CategoryCommissions, entry)
		return nil
	})
}

type previewArgs struct {
	StoreID     string     `json:"storeId" op:"required,id=stores"`
	Subtotal    money.Fils `json:"subtotal" op:"required,min=0"`
	DeliveryFee money.Fils `json:"deliveryFee" op:"required,min=0"`
}

// Breakdown explains a commission.
type Breakdown struct {
	PercentageCommission float64 `json:"percentageCommission"`
	FixedFeeAmount       float64 `json:"fixedFeeAmount"`
	MinimumApplied       bool    `json:"minimumApplied"`
	MaximumApplied       bool    `json:"maximumApplied"`
}

// Preview is getCommissionPreview's answer.
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

type storeInfo struct {
	ID                string  `json:"_id"`
	PrimaryCategoryID *string `json:"primaryCategoryId"`
	Tier              string  `json:"tier"`
}

func (s *svc) preview(ctx context.Context, a *previewArgs) (*Preview, error) {
	var st *storeInfo
	if err := s.env.Calls.Query(ctx, "catalog", "stores.catalog.getStore", map[string]string{"storeId": a.StoreID}, &st); err != nil {
		return nil, err
	}
	if st == nil {
		return nil, apperr.New(apperr.NotFound, "store %s does not exist", a.StoreID)
	}
	d, err := s.active(ctx)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, apperr.New(apperr.FailedPrecondition, "there is no active platform configuration")
	}
	e := d.effective(st)
	c := Compute(e, a.Subtotal, a.DeliveryFee)
	return &Preview{
		Subtotal: a.Subtotal.AED(), DeliveryFee: a.DeliveryFee.AED(), TotalAmount: c.Total.AED(),
		PlatformCommission: c.Platform.AED(), StoreEarnings: c.StoreEarnings.AED(),
		CommissionRate: e.Rate.Float(), FixedFee: e.Fixed.AED(),
		CommissionBreakdown: Breakdown{
			PercentageCommission: c.Percentage.AED(), FixedFeeAmount: e.Fixed.AED(),
			MinimumApplied: c.MinimumApplied, MaximumApplied: c.MaximumApplied,
		},
	}, nil
}

// effective resolves the rules for a store: category entry, tier entry, defaults.
func (d *configDoc) effective(st *storeInfo) Effective {
	defaults := Effective{Rate: money.RateOf(d.DefaultCommissionRate), Fixed: d.FixedFeePerOrder, Minimum: d.MinimumCommission, Maximum: d.MaximumCommission}
	var cat, tier *Rates
	if st.PrimaryCategoryID != nil {
		for _, c := range d.CategoryCommissions {
			if c.CategoryID == *st.PrimaryCategoryID {
				r := money.RateOf(c.CommissionRate)
				cat = &Rates{Rate: &r, FixedFee: c.FixedFee, MinimumCommission: c.MinimumCommission}
			}
		}
	}
	for _, t := range d.StoreTierCommissions {
		if t.TierName == st.Tier {
			tier = &Rates{FixedFee: t.FixedFee, MinimumCommission: t.MinimumCommission}
			if t.CommissionRate != nil {
				r := money.RateOf(*t.CommissionRate)
				tier.Rate = &r
			}
		}
	}
	return Resolve(defaults, cat, tier)
}
