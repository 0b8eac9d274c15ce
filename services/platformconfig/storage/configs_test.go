package storage

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
	"marketplace/services/platformconfig/domain"
)

func openDB(t *testing.T) (*store.DB, context.Context) {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "pc", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(ctx) })
	if err := db.EnsureIndexes(ctx, Indexes()...); err != nil {
		t.Fatal(err)
	}
	return db, ctx
}

// TestActiveHonoursTheEffectiveDate: the configuration in force is active and
// effective now; one scheduled for later is not in force yet.
func TestActiveHonoursTheEffectiveDate(t *testing.T) {
	db, ctx := openDB(t)
	r := NewConfigs(db)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC).UnixMilli()
	scheduled := domain.Config{ID: "pcf_000000000000000000000002", IsActive: true, EffectiveDate: now + time.Hour.Milliseconds()}
	if err := r.Insert(ctx, &scheduled); err != nil {
		t.Fatal(err)
	}
	if c, err := r.Active(ctx, now); err != nil || c != nil {
		t.Fatalf("a configuration effective in an hour is in force: %+v %v", c, err)
	}
	later := now + 2*time.Hour.Milliseconds()
	if c, err := r.Active(ctx, later); err != nil || c == nil || c.ID != scheduled.ID {
		t.Fatalf("after its effective date: %+v %v", c, err)
	}
	// Inactive configurations are never in force.
	if err := r.Insert(ctx, &domain.Config{ID: "pcf_000000000000000000000003", IsActive: false, EffectiveDate: now}); err != nil {
		t.Fatal(err)
	}
	if c, _ := r.Active(ctx, later); c == nil || c.ID != scheduled.ID {
		t.Fatalf("an inactive configuration won: %+v", c)
	}
}

// TestOneActiveConfiguration: the database refuses a second active
// configuration (the one_active index), whatever the code in front of it.
func TestOneActiveConfiguration(t *testing.T) {
	db, ctx := openDB(t)
	r := NewConfigs(db)
	first := domain.NewConfig("pcf_000000000000000000000001", 1, "admin", nil)
	if err := r.Insert(ctx, &first); err != nil {
		t.Fatal(err)
	}
	second := domain.NewConfig("pcf_000000000000000000000002", 2, "admin", nil)
	if err := r.Insert(ctx, &second); !store.IsDuplicate(err) {
		t.Fatalf("a second active configuration: %v", err)
	}
	second.IsActive = false
	if err := r.Insert(ctx, &second); err != nil {
		t.Fatalf("an inactive one is refused: %v", err)
	}
}

// TestUpdateWritesOnlyWhatChanged: Update saves the fields fn changed and
// leaves fields the type does not know (another version's) as stored;
// NOT_FOUND for an unknown id; nothing written when fn fails.
func TestUpdateWritesOnlyWhatChanged(t *testing.T) {
	db, ctx := openDB(t)
	r := NewConfigs(db)
	c := domain.NewConfig("pcf_000000000000000000000001", 1, "admin", nil)
	if err := r.Insert(ctx, &c); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection(configColl).UpdateOne(ctx, bson.M{"_id": c.ID}, bson.M{"$set": bson.M{"futureField": "kept"}}); err != nil {
		t.Fatal(err)
	}
	err := r.Update(ctx, c.ID, func(c *domain.Config) error {
		c.SetTierCommission(domain.TierCommission{TierName: "premium"})
		c.DefaultCommissionRate = 0.07
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var raw bson.M
	if err := db.Collection(configColl).FindOne(ctx, bson.M{"_id": c.ID}).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if raw["futureField"] != "kept" || raw["defaultCommissionRate"] != 0.07 {
		t.Fatalf("stored %+v", raw)
	}
	got, _ := r.Active(ctx, 10)
	if got.StoreTierCommissions[1] != (domain.TierCommission{TierName: "premium"}) || got.StoreTierCommissions[0].CommissionRate == nil {
		t.Fatalf("tiers %+v", got.StoreTierCommissions)
	}
	refused := errors.New("refused")
	if err := r.Update(ctx, c.ID, func(c *domain.Config) error {
		c.DefaultCommissionRate = 0.5
		return refused
	}); err != refused {
		t.Fatalf("fn's error: %v", err)
	}
	if got, _ := r.Active(ctx, 10); got.DefaultCommissionRate != 0.07 {
		t.Fatalf("a refused change was written: %v", got.DefaultCommissionRate)
	}
	err = r.Update(ctx, "pcf_000000000000000000000009", func(*domain.Config) error { return nil })
	if !apperr.Is(err, apperr.NotFound) || err.Error() != "NOT_FOUND: platform configuration pcf_000000000000000000000009 does not exist" {
		t.Fatalf("unknown id: %v", err)
	}
}
