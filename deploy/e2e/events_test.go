package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	st "marketplace/deploy/systemtest"
)

// TestStoreCreatedEventIsPublished: creating a store commits a store.created event
// through the catalog's outbox; it reaches the "catalog" topic keyed by the store id
// in the platform's envelope.
func TestStoreCreatedEventIsPublished(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	var storeID string
	st.MustOK(t, s.Mutation(admin, "admins.catalog.createStore", map[string]any{
		"name": "Bake House", "ownerUserId": "owner-1", "ownerName": "Sara", "ownerPhone": "+971501234567", "tier": "premium",
	})).Decode(t, &storeID)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The topic has several partitions and, on a shared broker, other tests' events:
	// look for this store's event by key.
	for p := 0; p < 3; p++ {
		rp := kafka.NewReader(kafka.ReaderConfig{Brokers: s.Brokers.Addrs, Dialer: s.Brokers.Dialer("e2e"), Topic: "catalog", Partition: p, MaxWait: 50 * time.Millisecond})
		for {
			pctx, pcancel := context.WithTimeout(ctx, time.Second)
			m, err := rp.ReadMessage(pctx)
			pcancel()
			if err != nil {
				break
			}
			if string(m.Key) != storeID {
				continue
			}
			rp.Close()
			var env struct {
				ID, Type, Source, Subject, Time, DataSchema string
				Data                                        map[string]any
			}
			if err := json.Unmarshal(m.Value, &env); err != nil {
				t.Fatal(err)
			}
			if env.Type != "store.created" || env.Source != "catalog" || env.Subject != storeID || env.ID == "" || env.Time == "" ||
				env.DataSchema != "urn:marketplace:event:store.created:v1" ||
				env.Data["storeId"] != storeID || env.Data["tier"] != "premium" || env.Data["ownerUserId"] != "owner-1" {
				t.Fatalf("event: %+v", env)
			}
			return
		}
		rp.Close()
	}
	t.Fatal("no store.created event on the catalog topic")
}
