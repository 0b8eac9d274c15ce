// Package platformconfig owns the platform's commission and wallet configuration
// and computes commission previews.
package platformconfig

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/platformconfig"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// Module is the platform configuration service.
var Module = service.Module{Name: contract.Service, Build: build, Calls: []string{catalog.Service}, Publishes: []string{contract.Topic}}

const coll = "platformConfig"

type svc struct {
	env     service.Env
	now     func() time.Time
	catalog *catalog.Client
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, now: env.Now, catalog: catalog.NewClient(env.Calls)}
	return &service.Built{
		Background: []func(context.Context) error{s.announceActive},
		Registry: ops.NewRegistry("platformconfig",
			ops.NewMutation("admins.platformAdmin.createInitialPlatformConfig", ops.Admin, "Create the first active configuration with the defaults.", s.createInitial),
			ops.NewQuery("admins.platformAdmin.getActivePlatformConfig", ops.Authenticated, "The configuration in force, or null.", s.getActive),
			ops.NewMutation("admins.platformAdmin.updatePlatformConfig", ops.Admin, "Change the provided fields of a configuration.", s.update),
			ops.NewMutation("admins.platformAdmin.addCategoryCommission", ops.Admin, "Add or replace a category's commission entry.", s.addCategoryCommission),
			ops.NewMutation("admins.platformAdmin.setTierCommission", ops.Admin, "Replace a store tier's commission entry; returns the updated configuration.", s.setTierCommission),
			ops.NewQuery("admins.platformAdmin.getConfigHistory", ops.Admin, "A configuration's change history, newest first (paginated).", s.getConfigHistory),
			ops.NewQuery("admins.platformAdmin.getCommissionPreview", ops.Authenticated, "The commission of an order of a store.", s.preview,
				ops.Errors(apperr.FailedPrecondition)), // no configuration in force
			// The same calculation for other services (orders freeze it at creation).
			ops.NewQuery("admins.platformAdmin.computeCommission", ops.Internal, "The commission of an order of a store.", s.preview, ops.CalledBy("customers")),
			// The wallet settings in force, for the payouts service (which reads them
			// in event handlers, without a caller's token).
			ops.NewQuery(contract.OpGetWalletSettings, ops.Internal, "The wallet settings of the configuration in force.", s.walletSettings, ops.CalledBy("payouts")),
		),
		Indexes: append([]store.Index{
			// At most one active configuration: createInitialPlatformConfig's rule,
			// held by the database even under concurrent calls.
			{Collection: coll, Keys: bson.D{{Key: "isActive", Value: 1}}, Unique: true, Partial: bson.M{"isActive": true}, Name: "one_active"},
			{Collection: coll, Keys: bson.D{{Key: "effectiveDate", Value: -1}}, Name: "effective"},
		}, historyIndexes...),
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
	catIDs, err := s.catalog.EnsureCategories(ctx, names)
	if err != nil {
		return "", err
	}
	now := s.now().UnixMilli()
	d := configDoc{
		ID: ids.New("platformConfig"), CreationTime: now,
		DefaultCommissionRate: initialRate, FixedFeePerOrder: initialFixed, MinimumCommission: initialMinimum, MaximumCommission: initialMaximum,
		StoreTierCommissions: initialTiers(initialRate, initialFixed, initialMinimum), WalletSettings: defaultWallet, LocationSettings: defaultLocation,
		IsActive: true, EffectiveDate: now, CreatedBy: a.AdminUserID, HistorySeq: 1,
	}
	for _, c := range defaultCategoryRates {
		d.CategoryCommissions = append(d.CategoryCommissions, categoryCommission{CategoryID: catIDs[c.Name], CommissionRate: c.Rate})
	}
	// The configuration, its first history entry (every field, from nothing)
	// and its config.changed event commit together.
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		if _, err := s.env.DB.Collection(coll).InsertOne(ctx, d); err != nil {
			return err
		}
		if err := s.record(ctx, &d, "createInitialPlatformConfig", a.AdminUserID, now, diff(nil, d.view())); err != nil {
			return err
		}
		return s.announce(ctx, &d)
	})
	if store.IsDuplicate(err) {
		return "", apperr.New(apperr.AlreadyExists, "an active platform configuration already exists")
	}
	if err != nil {
		return "", err
	}
	s.env.Relay.Kick()
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

// walletSettings is the active configuration's wallet settings;
// FAILED_PRECONDITION when there is none.
func (s *svc) walletSettings(ctx context.Context, _ *ops.NoArgs) (*contract.WalletSettings, error) {
	d, err := s.active(ctx)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, apperr.New(apperr.FailedPrecondition, "there is no active platform configuration")
	}
	w := d.WalletSettings
	return &contract.WalletSettings{MinPayoutAmount: w.MinPayoutAmount.AED(), MaxPayoutAmount: w.MaxPayoutAmount.AED(),
		PayoutProcessingFee: w.PayoutProcessingFee.AED(), PendingBalanceHoldDays: w.PendingBalanceHoldDays}, nil
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
// after checking the rules that tie fields together, with the history entry of
// what changed (operation names the operation). A change that alters no field
// writes nothing, and so records nothing.
func (s *svc) change(ctx context.Context, operation, configID, adminID string, fn func(d *configDoc) error) (*ConfigView, error) {
	var out *ConfigView
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		var d configDoc
		err := s.env.DB.Collection(coll).FindOne(ctx, bson.M{"_id": configID}).Decode(&d)
		if store.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "platform configuration %s does not exist", configID)
		}
		if err != nil {
			return err
		}
		before := d.view()
		// A legacy tier entry keeps the values it read as before this change.
		d.pinLegacyTiers()
		if err := fn(&d); err != nil {
			return err
		}
		if err := d.check(); err != nil {
			return err
		}
		out = d.view()
		changes := diff(before, out)
		if len(changes) == 0 {
			return nil
		}
		now := s.now().UnixMilli()
		d.UpdatedBy, d.UpdatedAt = adminID, now
		d.HistorySeq++
		if _, err := s.env.DB.Collection(coll).ReplaceOne(ctx, bson.M{"_id": configID}, d); err != nil {
			return err
		}
		if err := s.record(ctx, &d, operation, adminID, now, changes); err != nil {
			return err
		}
		return s.announce(ctx, &d)
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return out, nil
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
	// apply at once: refused whichever of the two changes, with one message.
	entryMinimum := func(what string, m *money.Fils) error {
		if m != nil && *m > d.MaximumCommission {
			return apperr.Invalid("minimumCommission", "the minimum of %s (%.2f AED) must not exceed maximumCommission (%.2f AED)", what, m.AED(), d.MaximumCommission.AED())
		}
		return nil
	}
	for _, c := range d.CategoryCommissions {
		if err := entryMinimum("category "+c.CategoryID, c.MinimumCommission); err != nil {
			return err
		}
	}
	for _, t := range d.StoreTierCommissions {
		if err := entryMinimum("the "+t.TierName+" tier", t.MinimumCommission); err != nil {
			return err
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
	return s.change(ctx, "updatePlatformConfig", a.ConfigID, a.AdminUserID, func(d *configDoc) error {
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

// A commission entry (category or tier) is validated the same way for
// addCategoryCommission and setTierCommission: its arguments commissionRate,
// fixedFee and minimumCommission carry the same declared bounds (0 to 1, >= 0,
// whole fils); checkEntry then checks what bounds cannot, first; and after the
// entry is applied, check (in change) refuses a minimum above the platform
// maximum for every entry alike.
func checkEntry(rate float64) error { return checkRate("commissionRate", rate) }

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

func (s *svc) addCategoryCommission(ctx context.Context, a *addCategoryArgs) (*ConfigView, error) {
	if err := checkEntry(a.CommissionRate); err != nil {
		return nil, err
	}
	cats, err := s.catalog.Categories(ctx, []string{a.CategoryID})
	if err != nil {
		return nil, err
	}
	if _, ok := cats[a.CategoryID]; !ok {
		return nil, apperr.New(apperr.NotFound, "category %s does not exist", a.CategoryID)
	}
	entry := categoryCommission{CategoryID: a.CategoryID, CommissionRate: a.CommissionRate, FixedFee: a.FixedFee, MinimumCommission: a.MinimumCommission}
	return s.change(ctx, "addCategoryCommission", a.ConfigID, a.AdminUserID, func(d *configDoc) error {
		d.CategoryCommissions = replaceOrAdd(d.CategoryCommissions, entry, func(c categoryCommission) bool { return c.CategoryID == a.CategoryID })
		return nil
	})
}

type setTierArgs struct {
	AdminUserID       string      `json:"adminUserId" op:"required,nonblank"`
	ConfigID          string      `json:"configId" op:"required,id=platformConfig"`
	TierName          string      `json:"tierName" op:"required,enum=basic|premium|enterprise"`
	CommissionRate    float64     `json:"commissionRate" op:"required,min=0,max=1"`
	FixedFee          *money.Fils `json:"fixedFee" op:"min=0"`
	MinimumCommission *money.Fils `json:"minimumCommission" op:"min=0"`
}

// setTierCommission replaces a tier's entry. A fixedFee or minimumCommission
// left out is stored absent and falls back to the platform defaults.
func (s *svc) setTierCommission(ctx context.Context, a *setTierArgs) (*ConfigView, error) {
	if err := checkEntry(a.CommissionRate); err != nil {
		return nil, err
	}
	rate := a.CommissionRate
	entry := tierCommission{TierName: a.TierName, CommissionRate: &rate, FixedFee: a.FixedFee, MinimumCommission: a.MinimumCommission}
	return s.change(ctx, "setTierCommission", a.ConfigID, a.AdminUserID, func(d *configDoc) error {
		d.StoreTierCommissions = replaceOrAdd(d.StoreTierCommissions, entry, func(t tierCommission) bool { return t.TierName == a.TierName })
		return nil
	})
}

type previewArgs struct {
	StoreID     string     `json:"storeId" op:"required,id=stores"`
	Subtotal    money.Fils `json:"subtotal" op:"required,min=0"`
	DeliveryFee money.Fils `json:"deliveryFee" op:"required,min=0"`
}

// Preview is getCommissionPreview's (and computeCommission's) answer: the
// contract's shape.
type (
	Preview   = contract.Preview
	Breakdown = contract.Breakdown
)

func (s *svc) preview(ctx context.Context, a *previewArgs) (*Preview, error) {
	st, err := s.catalog.Store(ctx, a.StoreID)
	if err != nil {
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
func (d *configDoc) effective(st *catalog.Store) Effective {
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
			t = d.resolved(t) // a legacy entry charges the defaults
			r := money.RateOf(*t.CommissionRate)
			tier = &Rates{Rate: &r, FixedFee: t.FixedFee, MinimumCommission: t.MinimumCommission}
		}
	}
	return Resolve(defaults, cat, tier)
}
