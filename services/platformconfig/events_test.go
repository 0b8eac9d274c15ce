package platformconfig

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	contract "marketplace/libs/contracts/platformconfig"
	"marketplace/libs/events"
	"marketplace/services/platformconfig/storage"
)

// announced are the config.changed events in the outbox, oldest first.
func announced(t *testing.T, s *svc) []contract.ConfigChanged {
	t.Helper()
	ctx := context.Background()
	cur, err := s.env.DB.Collection("outbox").Find(ctx, bson.M{"topic": contract.Topic})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		Seq      int64  `bson:"seq"`
		Key      string `bson:"key"`
		Envelope string `bson:"envelope"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	var out []contract.ConfigChanged
	for _, d := range docs {
		var env events.Envelope
		var c contract.ConfigChanged
		if err := json.Unmarshal([]byte(d.Envelope), &env); err != nil || env.Type != contract.EventConfigChanged {
			t.Fatalf("not a config.changed envelope: %s %v", d.Envelope, err)
		}
		if err := json.Unmarshal(env.Data, &c); err != nil || d.Key != c.ConfigID {
			t.Fatalf("bad data or key: %s (key %s) %v", env.Data, d.Key, err)
		}
		out = append(out, c)
	}
	return out
}

// TestChangesAreAnnounced: a change of a configuration commits its
// config.changed event with the new radii and a version that grows with each
// change; a change that alters nothing announces nothing; the active
// configuration is announced again at start.
func TestChangesAreAnnounced(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	s, db := newTestSvc(t, now)
	d := sampleConfig("pcf_000000000000000000000001")
	if err := storage.NewConfigs(db).Insert(ctx, &d); err != nil {
		t.Fatal(err)
	}
	radius := 20.0
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: d.ID, LocationSettings: &locationSettingsArgs{MaxSearchRadiusKm: &radius}}); err != nil {
		t.Fatal(err)
	}
	rate := 0.06
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: d.ID, DefaultCommissionRate: &rate}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.update(ctx, &updateArgs{AdminUserID: "admin-1", ConfigID: d.ID, DefaultCommissionRate: &rate}); err != nil {
		t.Fatal(err)
	}
	got := announced(t, s)
	if len(got) != 2 || got[0].Version != 2 || got[1].Version != 3 || got[0].LocationSettings.MaxSearchRadiusKm != 20 ||
		got[0].LocationSettings.DefaultSearchRadiusKm != d.LocationSettings.DefaultSearchRadiusKm || !got[1].IsActive || got[1].EffectiveDate != 1 {
		t.Fatalf("announced %+v", got)
	}
	if err := s.announceActive(ctx); err != nil {
		t.Fatal(err)
	}
	if got := announced(t, s); len(got) != 3 || got[2].Version != 3 || got[2].LocationSettings.MaxSearchRadiusKm != 20 {
		t.Fatalf("at start: %+v", got)
	}
}
