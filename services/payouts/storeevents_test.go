package payouts

import (
	"testing"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/ids"
)

// TestWalletFollowsStoreChanges: store.updated carries a rename, a new phone
// and a new owner to the wallet; a store.created redelivered later (older
// version), an older store.updated arriving late, and an earning carrying the
// order's copy of the old name never roll them back.
func TestWalletFollowsStoreChanges(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	created := catalog.StoreCreated{StoreID: storeID, Name: "Bakery", OwnerUserID: "owner-1", OwnerName: "Sara", OwnerPhone: "+971500000001", Version: 1}
	ts.deliver(t, catalog.EventStoreCreated, created)
	renamed := created
	renamed.Name, renamed.OwnerPhone, renamed.Version = "Bakery & Cafe", "+971500000002", 2
	handed := renamed
	handed.OwnerUserID, handed.OwnerName, handed.Version = "owner-2", "Omar", 3
	ts.deliver(t, catalog.EventStoreUpdated, renamed)
	ts.deliver(t, catalog.EventStoreUpdated, handed)
	want := func(what string) {
		t.Helper()
		w := ts.wallet(t, storeID)
		if w.StoreName != "Bakery & Cafe" || w.OwnerPhone != "+971500000002" || w.OwnerUserID != "owner-2" || w.OwnerName != "Omar" || w.StoreVersion != 3 {
			t.Fatalf("%s: wallet %+v", what, w)
		}
	}
	want("after the changes")
	ts.deliver(t, catalog.EventStoreCreated, created)
	want("after store.created again")
	ts.deliver(t, catalog.EventStoreUpdated, renamed)
	want("after an older store.updated")
	legacy := created
	legacy.Version = 0 // store.created from before versions: version 1
	ts.deliver(t, catalog.EventStoreCreated, legacy)
	want("after a store.created without a version")
	order := ts.delivered(ids.New("orders"), storeID, 1000) // the order's copy: "Bakery", owner-1
	ts.deliver(t, customers.EventOrderStatusChanged, order)
	want("after an earning")
	if w := ts.wallet(t, storeID); w.PendingBalance != 1000 {
		t.Fatalf("earning not credited: %+v", w)
	}
}

// TestStoreUpdatedOpensAMissingWallet: a store.updated that arrives for a
// store whose wallet is not open (its store.created dead-lettered, say)
// opens it with the store as the event tells.
func TestStoreUpdatedOpensAMissingWallet(t *testing.T) {
	ts := newTestSvc(t)
	storeID := ids.New("stores")
	ts.deliver(t, catalog.EventStoreUpdated, catalog.StoreUpdated{StoreID: storeID, Name: "Florist", OwnerUserID: "owner-1", OwnerName: "Mona", Version: 2})
	w := ts.wallet(t, storeID)
	if w.StoreName != "Florist" || w.OwnerName != "Mona" || w.StoreVersion != 2 || w.AvailableBalance != 0 {
		t.Fatalf("wallet %+v", w)
	}
}
