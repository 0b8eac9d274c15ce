package platformconfig

import (
	"context"
	"testing"
	"time"

	"marketplace/libs/service"
	"marketplace/libs/store"
)

// TestActiveHonoursTheEffectiveDate: the configuration in force is active and
// effective now; one scheduled for later is not in force yet.
func TestActiveHonoursTheEffectiveDate(t *testing.T) {
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "pc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s := &svc{env: service.Env{DB: db}, now: func() time.Time { return now }}
	c := db.Collection(coll)
	scheduled := configDoc{ID: "pcf_000000000000000000000002", IsActive: true, EffectiveDate: now.Add(time.Hour).UnixMilli()}
	if _, err := c.InsertOne(ctx, scheduled); err != nil {
		t.Fatal(err)
	}
	if d, err := s.active(ctx); err != nil || d != nil {
		t.Fatalf("a configuration effective in an hour is in force: %+v %v", d, err)
	}
	s.now = func() time.Time { return now.Add(2 * time.Hour) }
	if d, err := s.active(ctx); err != nil || d == nil || d.ID != scheduled.ID {
		t.Fatalf("after its effective date: %+v %v", d, err)
	}
	// Inactive configurations are never in force.
	if _, err := c.InsertOne(ctx, configDoc{ID: "pcf_000000000000000000000003", IsActive: false, EffectiveDate: now.UnixMilli()}); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.active(ctx); d == nil || d.ID != scheduled.ID {
		t.Fatalf("an inactive configuration won: %+v", d)
	}
}
