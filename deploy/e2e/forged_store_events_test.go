package e2e

import (
	"encoding/json"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/events"
)

// Issue 18 review, item 3: a forged store.updated (a huge version, another
// owner) does not change the payouts service's copy of the store: the wallet
// records the store as the catalog has it, so the wallet's notifications
// still go to the store's owner, not to a user the forger picks.

const unconfirmedStoreEventsMetric = "marketplace_payouts_unconfirmed_store_events_total"

func unconfirmedStoreEvents(s *st.Sys, reason string) float64 {
	v, _ := sample(s.Metrics(), unconfirmedStoreEventsMetric, map[string]string{"reason": reason})
	return v
}

// forgeStoreUpdated publishes, as an attacker with the catalog service's
// Kafka credentials (the one user that may write its topic) would, a
// store.updated for storeID giving it to ownerUserID at version.
func forgeStoreUpdated(t *testing.T, s *st.Sys, eventID, storeID, ownerUserID string, version int64) {
	t.Helper()
	data, _ := json.Marshal(catalog.StoreUpdated{StoreID: storeID, Name: "Bakery", OwnerUserID: ownerUserID, OwnerName: "Mallory",
		OwnerPhone: "+971500000666", Tier: "basic", Version: version})
	raw, err := json.Marshal(events.Envelope{ID: eventID, Type: catalog.EventStoreUpdated, Source: "catalog", Time: time.Now().UTC(), Subject: storeID, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	publish(t, s, catalog.Topic, storeID, raw)
}

// within polls cond for up to d and tells whether it held.
func within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// TestForgedStoreUpdated: on the real broker, a forged store.updated with
// version 1e9 and another owner is counted (ahead_of_catalog) and the
// wallet's copy is unchanged: an adjustment then notifies the store's owner,
// and the forger's user nothing; a forged store.created for a store the
// catalog does not know opens no wallet.
func TestForgedStoreUpdated(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	attacker := s.Token("attacker-1")
	ahead := unconfirmedStoreEvents(s, "ahead_of_catalog")
	forgeStoreUpdated(t, s, "evt_forged_store_1", w.store, "attacker-1", 1_000_000_000)
	// Counted once handled (without the check there is no count: the wait
	// then ends and the notification below shows what the event did).
	counted := within(10*time.Second, func() bool { return unconfirmedStoreEvents(s, "ahead_of_catalog") >= ahead+1 })

	w.credit(t, w.store, w.wallet, 5)
	eventually(t, "the owner hears of the adjustment", func() bool {
		return count(inbox(t, s, w.owner), "wallet_adjusted")+count(inbox(t, s, attacker), "wallet_adjusted") == 1
	})
	if n := count(inbox(t, s, attacker), "wallet_adjusted"); n != 0 {
		t.Fatalf("the forged store.updated's owner was notified of the store's wallet (%d)", n)
	}
	if n := count(inbox(t, s, w.owner), "wallet_adjusted"); n != 1 {
		t.Fatalf("the store's owner heard of %d adjustments, want 1", n)
	}
	if !counted {
		t.Fatalf("the forged store.updated was not counted (%s ahead_of_catalog)", unconfirmedStoreEventsMetric)
	}

	// A store the catalog does not know: no wallet, counted.
	unknown := unconfirmedStoreEvents(s, "unknown_store")
	made := missingLike(w.store)
	forgeStoreUpdated(t, s, "evt_forged_store_2", made, "attacker-1", 1)
	eventually(t, "the forged store's count", func() bool { return unconfirmedStoreEvents(s, "unknown_store") >= unknown+1 })
	w.reconciled(t, w.store)
}
