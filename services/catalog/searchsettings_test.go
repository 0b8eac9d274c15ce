package catalog

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/platformconfig"
	"marketplace/libs/events"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

func newSettingsSvc(t *testing.T, now time.Time) *svc {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "catalog", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	return newSvc(service.Env{DB: db, Now: func() time.Time { return now }})
}

func configEvent(t *testing.T, c platformconfig.ConfigChanged) events.Envelope {
	t.Helper()
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return events.Envelope{ID: "evt", Type: platformconfig.EventConfigChanged, Data: raw}
}

// TestSearchSettingsFollowTheConfiguration: the copy takes newer versions
// only (a redelivered or late older event never rolls the radii back), and
// the radii in force follow the configuration rule: active, effective now or
// earlier, the most recent.
func TestSearchSettingsFollowTheConfiguration(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := newSettingsSvc(t, now)
	if _, err := s.radii(ctx); !apperr.Is(err, apperr.FailedPrecondition) {
		t.Fatalf("no configuration yet: %v", err)
	}
	apply := func(c platformconfig.ConfigChanged) {
		t.Helper()
		if err := s.onConfigEvent(ctx, configEvent(t, c)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := platformconfig.ConfigChanged{ConfigID: "pcf_000000000000000000000001", IsActive: true, EffectiveDate: now.Add(-time.Hour).UnixMilli(),
		Version: 2, LocationSettings: platformconfig.LocationSettings{DefaultSearchRadiusKm: 7, MaxSearchRadiusKm: 30}}
	apply(cfg)
	older := cfg
	older.Version, older.LocationSettings = 1, platformconfig.LocationSettings{DefaultSearchRadiusKm: 10, MaxSearchRadiusKm: 50}
	apply(older)
	apply(cfg) // the same version again
	r, err := s.radii(ctx)
	if err != nil || r.DefaultSearchRadiusKm != 7 || r.MaxSearchRadiusKm != 30 || r.Version != 2 {
		t.Fatalf("after an older event: %+v %v", r, err)
	}
	newer := cfg
	newer.Version, newer.LocationSettings.MaxSearchRadiusKm = 3, 40
	apply(newer)
	if r, _ := s.radii(ctx); r.MaxSearchRadiusKm != 40 {
		t.Fatalf("a newer version was not taken: %+v", r)
	}
	// A configuration effective later is not in force yet; an inactive one never.
	apply(platformconfig.ConfigChanged{ConfigID: "pcf_000000000000000000000002", IsActive: true, EffectiveDate: now.Add(time.Hour).UnixMilli(),
		Version: 1, LocationSettings: platformconfig.LocationSettings{DefaultSearchRadiusKm: 1, MaxSearchRadiusKm: 2}})
	apply(platformconfig.ConfigChanged{ConfigID: "pcf_000000000000000000000003", IsActive: false, EffectiveDate: now.UnixMilli(),
		Version: 1, LocationSettings: platformconfig.LocationSettings{DefaultSearchRadiusKm: 1, MaxSearchRadiusKm: 2}})
	if r, _ := s.radii(ctx); r.ConfigID != cfg.ConfigID {
		t.Fatalf("in force: %+v", r)
	}
	s.env.Now = func() time.Time { return now.Add(2 * time.Hour) }
	if r, _ := s.radii(ctx); r.ConfigID != "pcf_000000000000000000000002" {
		t.Fatalf("after its effective date: %+v", r)
	}
	// Events of other types are not ours; a change without id or version is refused (dead-lettered).
	if err := s.onConfigEvent(ctx, events.Envelope{ID: "x", Type: "config.something_else", Data: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := s.onConfigEvent(ctx, configEvent(t, platformconfig.ConfigChanged{Version: 1})); err == nil {
		t.Fatal("a change without a configuration id was applied")
	}
	if err := s.onConfigEvent(ctx, configEvent(t, platformconfig.ConfigChanged{ConfigID: "pcf_000000000000000000000004", Version: -1})); err == nil {
		t.Fatal("a change with a negative version was applied")
	}
}

// TestSearchSettingsOfAConfigurationWithoutHistory: a configuration made
// before changes were numbered is announced at start with version 0; the
// catalog takes it (searches work), never over a numbered version, and its
// first numbered change replaces it.
func TestSearchSettingsOfAConfigurationWithoutHistory(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := newSettingsSvc(t, now)
	legacy := platformconfig.ConfigChanged{ConfigID: "pcf_000000000000000000000001", IsActive: true, EffectiveDate: now.Add(-time.Hour).UnixMilli(),
		LocationSettings: platformconfig.LocationSettings{DefaultSearchRadiusKm: 10, MaxSearchRadiusKm: 50}}
	if err := s.onConfigEvent(ctx, configEvent(t, legacy)); err != nil {
		t.Fatalf("the announcement of a configuration without history: %v", err)
	}
	if r, err := s.radii(ctx); err != nil || r.MaxSearchRadiusKm != 50 {
		t.Fatalf("radii: %+v %v", r, err)
	}
	first := legacy
	first.Version, first.LocationSettings.MaxSearchRadiusKm = 1, 30
	if err := s.onConfigEvent(ctx, configEvent(t, first)); err != nil {
		t.Fatal(err)
	}
	if err := s.onConfigEvent(ctx, configEvent(t, legacy)); err != nil { // redelivered
		t.Fatal(err)
	}
	if r, _ := s.radii(ctx); r.MaxSearchRadiusKm != 30 || r.Version != 1 {
		t.Fatalf("after its first numbered change: %+v", r)
	}
}
