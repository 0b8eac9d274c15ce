package payouts

import (
	"context"
	"testing"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/ids"
)

// TestPayoutItemsNameTheStoreOwner: items whose wallet copy lacks the owner
// (store.created not heard yet) or holds an older one are named as the
// catalog has the store now; a name the payout recorded stays. When the
// catalog cannot answer, complete copies are shown, and a listing that would
// show an item without its owner is UNAVAILABLE (a move's answer is not).
func TestPayoutItemsNameTheStoreOwner(t *testing.T) {
	ts := newTestSvc(t)
	a, b := ids.New("stores"), ids.New("stores")
	ts.stores[a] = catalog.StoreContact{StoreID: a, Name: "Bakery", OwnerUserID: "owner-1", OwnerName: "Sara", OwnerPhone: "+971501234567", Version: 3}
	ts.stores[b] = catalog.StoreContact{StoreID: b, Name: "Florist", OwnerUserID: "owner-2", OwnerName: "Mona", OwnerPhone: "+971509999999", Version: 2}
	items := func() []*PayoutItem {
		return []*PayoutItem{
			{StoreID: a}, // the wallet opened without the owner
			{StoreID: b, StoreName: "Roses", // a name recorded on the payout, an older owner
				StoreOwnerName: "Old owner", StoreOwnerPhone: "+971500000000"},
			{StoreID: a, StoreName: "Bakery"},
		}
	}
	got := items()
	if err := ts.nameStores(context.Background(), got, true); err != nil {
		t.Fatal(err)
	}
	want := []PayoutItem{
		{StoreID: a, StoreName: "Bakery", StoreOwnerName: "Sara", StoreOwnerPhone: "+971501234567"},
		{StoreID: b, StoreName: "Roses", StoreOwnerName: "Mona", StoreOwnerPhone: "+971509999999"},
		{StoreID: a, StoreName: "Bakery", StoreOwnerName: "Sara", StoreOwnerPhone: "+971501234567"},
	}
	for i := range want {
		if *got[i] != want[i] {
			t.Fatalf("item %d: %+v, want %+v", i, *got[i], want[i])
		}
	}

	ts.catalogDown = true
	if err := ts.nameStores(context.Background(), items(), true); apperr.From(err).Code != apperr.Unavailable {
		t.Fatalf("a listing with an unnamed owner while the catalog is down: %v, want UNAVAILABLE", err)
	}
	complete := items()[1:2]
	if err := ts.nameStores(context.Background(), complete, true); err != nil || complete[0].StoreOwnerName != "Old owner" {
		t.Fatalf("complete copies while the catalog is down: %v %+v", err, complete[0])
	}
	if err := ts.nameStores(context.Background(), items(), false); err != nil {
		t.Fatalf("a move's answer failed on the catalog: %v", err)
	}
}
