package payouts

import (
	"context"
	"testing"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/ids"
	"marketplace/services/payouts/storage"
)

// TestStoreEventsRecordWhatTheCatalogSays: a store.updated that anyone could
// publish (a huge version, another owner) records the store as the catalog
// has it, never the event's claims, and cannot pin the wallet's copy: the
// next real change is recorded. An event for a store the catalog does not
// know records nothing (no wallet), and is counted.
func TestStoreEventsRecordWhatTheCatalogSays(t *testing.T) {
	ts := newTestSvc(t)
	counter := &reasonCounter{n: map[string]int64{}}
	ts.unconfirmedStores = counter
	storeID := ids.New("stores")
	real := catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1", OwnerName: "Sara", OwnerPhone: "+971500000001", Version: 1}
	ts.deliver(t, catalog.EventStoreCreated, real)
	forged := catalog.StoreUpdated{StoreID: storeID, Name: "Bakery", OwnerUserID: "attacker", OwnerName: "Mallory", OwnerPhone: "+971500000666", Version: 1_000_000_000}
	handle := func(typ string, d catalog.StoreEvent) {
		t.Helper()
		ev := envelope(t, typ, d)
		if err := ts.db.Tx(context.Background(), func(ctx context.Context) error { return ts.onEvent(ctx, ev) }); err != nil {
			t.Fatal(err)
		}
	}
	handle(catalog.EventStoreUpdated, forged) // not the catalog's
	if w := ts.wallet(t, storeID); w.OwnerUserID != "owner-1" || w.OwnerName != "Sara" || w.OwnerPhone != "+971500000001" || w.StoreVersion != 1 {
		t.Fatalf("a forged store.updated was recorded: %+v", w)
	}
	if n := counter.of(reasonAheadOfCatalog); n != 1 {
		t.Fatalf("%s counted %d times", reasonAheadOfCatalog, n)
	}
	handed := real
	handed.OwnerUserID, handed.OwnerName, handed.Version = "owner-2", "Omar", 2
	ts.deliver(t, catalog.EventStoreUpdated, handed)
	if w := ts.wallet(t, storeID); w.OwnerUserID != "owner-2" || w.OwnerName != "Omar" || w.StoreVersion != 2 {
		t.Fatalf("a real change after the forged event: %+v", w)
	}
	// A copy pinned by a forged event before this check (a version the
	// catalog never had) is put right by the store's next event.
	if _, err := ts.db.Collection(storage.WalletsColl).UpdateOne(context.Background(), map[string]any{"storeId": storeID},
		map[string]any{"$set": map[string]any{"ownerUserId": "attacker", "storeVersion": int64(1_000_000_000)}}); err != nil {
		t.Fatal(err)
	}
	renamed := handed
	renamed.Name, renamed.Version = "Bakery & Cafe", 3
	ts.deliver(t, catalog.EventStoreUpdated, renamed)
	if w := ts.wallet(t, storeID); w.OwnerUserID != "owner-2" || w.StoreName != "Bakery & Cafe" || w.StoreVersion != 3 {
		t.Fatalf("a pinned copy after a real change: %+v", w)
	}
	made := ids.New("stores")
	handle(catalog.EventStoreCreated, catalog.StoreCreated{StoreID: made, Name: "Fake", OwnerUserID: "attacker", Version: 1})
	if n := ts.count(t, storage.WalletsColl, map[string]any{"storeId": made}); n != 0 {
		t.Fatal("a store the catalog does not know got a wallet")
	}
	if n := counter.of(reasonUnknownStore); n != 1 {
		t.Fatalf("%s counted %d times", reasonUnknownStore, n)
	}
}
