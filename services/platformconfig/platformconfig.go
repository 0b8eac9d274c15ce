// Package platformconfig owns the platform's commission and wallet configuration
// and computes commission previews. Its rules live in domain/, its storage in
// storage/; this package holds the operations.
package platformconfig

import (
	"context"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/platformconfig"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/platformconfig/domain"
	"marketplace/services/platformconfig/storage"
)

// Module is the platform configuration service.
var Module = service.Module{Name: contract.Service, Build: build, Calls: []string{catalog.Service}, Publishes: []string{contract.Topic}}

type svc struct {
	env     service.Env
	now     func() time.Time
	catalog *catalog.Client
	configs *storage.Configs
	history *storage.History
}

// The interface shapes, as the operations answer them.
type (
	ConfigView       = domain.ConfigView
	HistoryEntryView = domain.HistoryEntryView
)

func newSvc(env service.Env) *svc {
	return &svc{env: env, now: env.Now, catalog: catalog.NewClient(env.Calls), configs: storage.NewConfigs(env.DB), history: storage.NewHistory(env.DB)}
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := newSvc(env)
	return &service.Built{
		Background: []func(context.Context) error{s.announceActive},
		Registry: ops.NewRegistry("platformconfig",
			ops.NewMutation("admins.platformAdmin.createInitialPlatformConfig", ops.Admin, "Create the first active configuration with the defaults.", s.createInitial),
			ops.NewQuery("admins.platformAdmin.getActivePlatformConfig", ops.Authenticated, "The configuration in force, or null.", s.getActive),
			ops.NewMutation("admins.platformAdmin.updatePlatformConfig", ops.Admin, "Change the provided fields of a configuration.", s.update),
			ops.NewMutation("admins.platformAdmin.addCategoryCommission", ops.Admin, "Add or replace a category's commission entry.", s.addCategoryCommission),
			ops.NewMutation("admins.platformAdmin.setTierCommission", ops.Admin, "Replace a store tier's commission entry; returns the updated configuration.", s.setTierCommission),
			ops.NewQuery("admins.platformAdmin.getConfigHistory", ops.Admin, "A configuration's change history, newest first (sort oldest: oldest first; paginated), the changes made from `from` to `to` when given (epoch ms, inclusive; at most 366 days apart, else INVALID_ARGUMENT range_too_large).", s.getConfigHistory),
			ops.NewQuery("admins.platformAdmin.getCommissionPreview", ops.Authenticated, "The commission of an order of a store.", s.preview,
				ops.Errors(apperr.FailedPrecondition)), // no configuration in force
			// The same calculation for other services (orders freeze it at creation).
			ops.NewQuery("admins.platformAdmin.computeCommission", ops.Internal, "The commission of an order of a store.", s.preview, ops.CalledBy("customers")),
			// The wallet settings in force, for the payouts service (which reads them
			// in event handlers, without a caller's token).
			ops.NewQuery(contract.OpGetWalletSettings, ops.Internal, "The wallet settings of the configuration in force.", s.walletSettings, ops.CalledBy("payouts")),
		),
		Indexes: storage.Indexes(),
	}, nil
}

type adminArgs struct {
	AdminUserID string `json:"adminUserId" op:"required,nonblank"`
}

func (s *svc) createInitial(ctx context.Context, a *adminArgs) (string, error) {
	catIDs, err := s.catalog.EnsureCategories(ctx, domain.DefaultCategories())
	if err != nil {
		return "", err
	}
	now := s.now().UnixMilli()
	c := domain.NewConfig(ids.New("platformConfig"), now, a.AdminUserID, catIDs)
	// The configuration, its first history entry (every field, from nothing)
	// and its config.changed event commit together.
	err = s.env.DB.Joined(ctx, func(ctx context.Context) error {
		if err := s.configs.Insert(ctx, &c); err != nil {
			return err
		}
		h := domain.NewHistoryEntry(newHistoryID(), &c, "createInitialPlatformConfig", a.AdminUserID, ops.ActingName(ctx, a.AdminUserID), now, domain.Diff(nil, c.View()))
		if err := s.history.Insert(ctx, &h); err != nil {
			return err
		}
		return s.announce(ctx, &c)
	})
	if store.IsDuplicate(err) {
		return "", domain.ActiveExists()
	}
	if err != nil {
		return "", err
	}
	s.env.Relay.Kick()
	return c.ID, nil
}

// active is the configuration in force: active, effective date not in the future,
// the most recent.
func (s *svc) active(ctx context.Context) (*domain.Config, error) {
	return s.configs.Active(ctx, s.now().UnixMilli())
}

func (s *svc) getActive(ctx context.Context, _ *ops.NoArgs) (*ConfigView, error) {
	c, err := s.active(ctx)
	if err != nil || c == nil {
		return nil, err
	}
	return c.View(), nil
}

// walletSettings is the active configuration's wallet settings;
// FAILED_PRECONDITION when there is none.
func (s *svc) walletSettings(ctx context.Context, _ *ops.NoArgs) (*contract.WalletSettings, error) {
	c, err := s.active(ctx)
	if err != nil {
		return nil, err
	}
	if c == nil {
		return nil, domain.NoneInForce()
	}
	return c.WalletSettingsContract(), nil
}

type walletSettingsArgs struct {
	MinPayoutAmount        *money.Fils `json:"minPayoutAmount" op:"min=0"`
	MaxPayoutAmount        *money.Fils `json:"maxPayoutAmount" op:"min=0"`
	PayoutProcessingFee    *money.Fils `json:"payoutProcessingFee" op:"min=0"`
	PendingBalanceHoldDays *int        `json:"pendingBalanceHoldDays" op:"min=0,max=365"`
	// A lost dispute's fee (AED, default 15.00) and who bears it (store,
	// the default, or platform): docs/adr/0147.
	DisputeFee          *money.Fils `json:"disputeFee" op:"min=0,max=1000"`
	DisputeFeeChargedTo *string     `json:"disputeFeeChargedTo" op:"enum=store|platform"`
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

// change applies fn to a configuration (domain.Config.Apply: the rules that
// tie fields together, what changed) and, when something changed, saves it
// with the history entry of the change (operation names the operation) and its
// config.changed event, all in one transaction.
func (s *svc) change(ctx context.Context, operation, configID, adminID string, fn func(c *domain.Config) error) (*ConfigView, error) {
	var out *ConfigView
	now := s.now().UnixMilli()
	err := s.env.DB.Joined(ctx, func(ctx context.Context) error {
		var changed *domain.Config
		var changes []domain.Change
		err := s.configs.Update(ctx, configID, func(c *domain.Config) error {
			var err error
			if changes, err = c.Apply(adminID, now, fn); err != nil {
				return err
			}
			out, changed = c.View(), c
			return nil
		})
		if err != nil || len(changes) == 0 {
			return err
		}
		h := domain.NewHistoryEntry(newHistoryID(), changed, operation, adminID, ops.ActingName(ctx, adminID), now, changes)
		if err := s.history.Insert(ctx, &h); err != nil {
			return err
		}
		return s.announce(ctx, changed)
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return out, nil
}

func (s *svc) update(ctx context.Context, a *updateArgs) (*ConfigView, error) {
	return s.change(ctx, "updatePlatformConfig", a.ConfigID, a.AdminUserID, func(d *domain.Config) error {
		set(&d.DefaultCommissionRate, a.DefaultCommissionRate)
		set(&d.FixedFeePerOrder, a.FixedFeePerOrder)
		set(&d.MinimumCommission, a.MinimumCommission)
		set(&d.MaximumCommission, a.MaximumCommission)
		if w := a.WalletSettings; w != nil {
			set(&d.WalletSettings.MinPayoutAmount, w.MinPayoutAmount)
			set(&d.WalletSettings.MaxPayoutAmount, w.MaxPayoutAmount)
			set(&d.WalletSettings.PayoutProcessingFee, w.PayoutProcessingFee)
			set(&d.WalletSettings.PendingBalanceHoldDays, w.PendingBalanceHoldDays)
			if w.DisputeFee != nil {
				fee := *w.DisputeFee
				d.WalletSettings.DisputeFee = &fee
			}
			set(&d.WalletSettings.DisputeFeeChargedTo, w.DisputeFeeChargedTo)
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
	if err := domain.CheckEntry(a.CommissionRate); err != nil {
		return nil, err
	}
	cats, err := s.catalog.Categories(ctx, []string{a.CategoryID})
	if err != nil {
		return nil, err
	}
	if _, ok := cats[a.CategoryID]; !ok {
		return nil, apperr.New(apperr.NotFound, "category %s does not exist", a.CategoryID)
	}
	entry := domain.CategoryCommission{CategoryID: a.CategoryID, CommissionRate: a.CommissionRate, FixedFee: a.FixedFee, MinimumCommission: a.MinimumCommission}
	return s.change(ctx, "addCategoryCommission", a.ConfigID, a.AdminUserID, func(d *domain.Config) error {
		d.SetCategoryCommission(entry)
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
	if err := domain.CheckEntry(a.CommissionRate); err != nil {
		return nil, err
	}
	rate := a.CommissionRate
	entry := domain.TierCommission{TierName: a.TierName, CommissionRate: &rate, FixedFee: a.FixedFee, MinimumCommission: a.MinimumCommission}
	return s.change(ctx, "setTierCommission", a.ConfigID, a.AdminUserID, func(d *domain.Config) error {
		d.SetTierCommission(entry)
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
		return nil, domain.NoneInForce()
	}
	e := d.Effective(st.PrimaryCategoryID, st.Tier)
	c := domain.Compute(e, a.Subtotal, a.DeliveryFee)
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
