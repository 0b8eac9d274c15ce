package platformconfig

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"marketplace/libs/apperr"
	contractevents "marketplace/libs/contracts/events"
	"marketplace/libs/events"
	"marketplace/libs/money"
	"marketplace/libs/page"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/platformconfig/domain"
	"marketplace/services/platformconfig/storage"
)

func f64(v float64) *float64 { return &v }

func fils(aed float64) money.Fils { f, _ := money.FromAED(aed); return f }

// sampleConfig is a configuration with the defaults and no category entries.
func sampleConfig(id string) domain.Config {
	c := domain.NewConfig(id, 1, "", nil)
	c.CategoryCommissions = nil
	return c
}

func newTestSvc(t *testing.T, now time.Time) (*svc, *store.DB) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "pc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	if err := db.EnsureIndexes(ctx, storage.Indexes()...); err != nil {
		t.Fatal(err)
	}
	s := newSvc(service.Env{DB: db, Outbox: events.NewOutbox(db, "platformconfig", contractevents.Versions()), Relay: events.NewRelay(db, nil, nil)})
	s.now = func() time.Time { return now }
	return s, db
}

func historyOf(t *testing.T, s *svc, configID string) []domain.HistoryEntryView {
	t.Helper()
	r, err := s.getConfigHistory(context.Background(), &historyArgs{ConfigID: configID, PaginationOpts: page.Opts{NumItems: 100}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Page
}

// TestLegacyBasicTierIsPinnedByTheNextChange: a configuration stored by older
// code (basic tier without values) still reads and charges the defaults; the
// next change stores the basic tier with the values it read as, so a change of
// the defaults leaves it as it was, and the history lists only the defaults.
func TestLegacyBasicTierIsPinnedByTheNextChange(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s, db := newTestSvc(t, now)
	legacy := sampleConfig("pcf_000000000000000000000001")
	legacy.HistorySeq = 0
	legacy.StoreTierCommissions[0] = domain.TierCommission{TierName: "basic"}
	if err := storage.NewConfigs(db).Insert(ctx, &legacy); err != nil {
		t.Fatal(err)
	}
	basicOf := func(v *domain.ConfigView) domain.TierCommissionView {
		for _, tv := range v.StoreTierCommissions {
			if tv.TierName == "basic" {
				return tv
			}
		}
		t.Fatalf("no basic tier in %+v", v.StoreTierCommissions)
		return domain.TierCommissionView{}
	}
	was := domain.TierCommissionView{TierName: "basic", CommissionRate: 0.05, FixedFee: f64(2), MinimumCommission: f64(1)}
	if got := basicOf(legacy.View()); !reflect.DeepEqual(got, was) {
		t.Fatalf("legacy basic reads as %+v, want the defaults %+v", got, was)
	}
	if e := legacy.Effective(nil, "basic"); e != (domain.Effective{Rate: money.RateOf(0.05), Fixed: fils(2), Minimum: fils(1), Maximum: fils(50)}) {
		t.Fatalf("legacy basic charges %+v", e)
	}

	// A change that changes nothing writes nothing: the entry stays legacy.
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: legacy.ID, DefaultCommissionRate: f64(0.05)}); err != nil {
		t.Fatal(err)
	}
	if h := historyOf(t, s, legacy.ID); len(h) != 0 {
		t.Fatalf("a no-op update recorded %+v", h)
	}
	if kept, err := s.active(ctx); err != nil || !kept.StoreTierCommissions[0].Legacy() {
		t.Fatalf("after a no-op update: %v, basic tier stored as %+v", err, kept.StoreTierCommissions[0])
	}

	rate, fee := 0.08, fils(0.5)
	v, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: legacy.ID, DefaultCommissionRate: &rate, FixedFeePerOrder: &fee})
	if err != nil {
		t.Fatal(err)
	}
	if got := basicOf(v); !reflect.DeepEqual(got, was) {
		t.Errorf("after the defaults changed the basic tier shows %+v, want %+v", got, was)
	}
	stored, err := s.active(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if b := stored.StoreTierCommissions[0]; b.Legacy() || *b.CommissionRate != 0.05 || *b.FixedFee != fils(2) || *b.MinimumCommission != fils(1) {
		t.Errorf("basic tier stored as %+v", b)
	}
	if e := stored.Effective(nil, "basic"); e != (domain.Effective{Rate: money.RateOf(0.05), Fixed: fils(2), Minimum: fils(1), Maximum: fils(50)}) {
		t.Errorf("after the defaults changed a basic store is charged %+v", e)
	}
	h := historyOf(t, s, legacy.ID)
	want := []domain.Change{{Field: "defaultCommissionRate", OldValue: 0.05, NewValue: 0.08}, {Field: "fixedFeePerOrder", OldValue: 2.0, NewValue: 0.5}}
	if len(h) != 1 || h[0].Operation != "updatePlatformConfig" || h[0].ChangedBy != "admin-1" || h[0].ChangedAt != now.UnixMilli() ||
		h[0].ConfigID != legacy.ID || !reflect.DeepEqual(h[0].Changes, want) {
		t.Errorf("history %+v, want one entry with %+v", h, want)
	}
}

// TestHistoryValuesRoundTrip: what is stored reads back as the interface showed
// it: numbers, and entry objects with only the keys they had.
func TestHistoryValuesRoundTrip(t *testing.T) {
	ctx := context.Background()
	s, db := newTestSvc(t, time.UnixMilli(1_700_000_000_000))
	d := sampleConfig("pcf_000000000000000000000001")
	if err := storage.NewConfigs(db).Insert(ctx, &d); err != nil {
		t.Fatal(err)
	}
	if _, err := s.setTierCommission(ctx, &setTierArgs{AdminUserID: "admin-1", ConfigID: d.ID, TierName: "premium", CommissionRate: 0.035}); err != nil {
		t.Fatal(err)
	}
	hold := 3
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-2", ConfigID: d.ID, WalletSettings: &walletSettingsArgs{PendingBalanceHoldDays: &hold}}); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(historyOf(t, s, d.ID))
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"_id":"ID","configId":"pcf_000000000000000000000001","changedBy":"admin-2","changedAt":1700000000000,"operation":"updatePlatformConfig",` +
		`"changes":[{"field":"walletSettings.pendingBalanceHoldDays","oldValue":7,"newValue":3}]},` +
		`{"_id":"ID","configId":"pcf_000000000000000000000001","changedBy":"admin-1","changedAt":1700000000000,"operation":"setTierCommission",` +
		`"changes":[{"field":"storeTierCommissions.premium","oldValue":{"tierName":"premium","commissionRate":0.04,"fixedFee":1.5,"minimumCommission":1},` +
		`"newValue":{"tierName":"premium","commissionRate":0.035}}]}]`
	var got []map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, e := range got {
		e["_id"] = "ID"
	}
	b, _ = json.Marshal(got)
	var w []map[string]any
	_ = json.Unmarshal([]byte(want), &w)
	wb, _ := json.Marshal(w)
	if string(b) != string(wb) {
		t.Errorf("history\n got %s\nwant %s", b, wb)
	}
}

// The dispute fee's settings follow updatePlatformConfig's partial-update
// semantics: a field given is set, one left out keeps its value; an invalid
// one is refused and changes nothing.
func TestDisputeFeeSettingsPartialUpdate(t *testing.T) {
	ctx := context.Background()
	s, db := newTestSvc(t, time.UnixMilli(1_700_000_000_000))
	d := sampleConfig("pcf_000000000000000000000001")
	if err := storage.NewConfigs(db).Insert(ctx, &d); err != nil {
		t.Fatal(err)
	}
	fee := money.Fils(25_00)
	v, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: d.ID, WalletSettings: &walletSettingsArgs{DisputeFee: &fee}})
	if err != nil || v.WalletSettings.DisputeFee != 25 || v.WalletSettings.DisputeFeeChargedTo != "store" || v.WalletSettings.PendingBalanceHoldDays != 7 {
		t.Fatalf("%+v %v", v, err)
	}
	to := "platform"
	v, err = s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: d.ID, WalletSettings: &walletSettingsArgs{DisputeFeeChargedTo: &to}})
	if err != nil || v.WalletSettings.DisputeFee != 25 || v.WalletSettings.DisputeFeeChargedTo != "platform" {
		t.Fatalf("%+v %v", v, err)
	}
	big := money.Fils(1_000_01)
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: d.ID, WalletSettings: &walletSettingsArgs{DisputeFee: &big}}); apperr.CodeOf(err) != apperr.InvalidArgument {
		t.Fatalf("a fee above 1000 AED: %v", err)
	}
	w, err := s.walletSettings(ctx, nil)
	if err != nil || *w.DisputeFee != 25 || w.DisputeFeeChargedTo != "platform" {
		t.Fatalf("%+v %v", w, err)
	}
}
