package e2e

import (
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestStoreHandoverTakesEffectAtOnce: after admins.catalog.updateStore hands
// a store to another user, the former owner is refused at the very next call
// by every service that checks store ownership (payouts, customers, reviews'
// peers), even though each of them looked the store up moments before; the
// new owner is served. Money-moving calls (requestPayout) included.
func TestStoreHandoverTakesEffectAtOnce(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true) // owner-1's store; owner-1 has read its wallet
	w.credit(t, w.store, w.wallet, 1000)
	newOwner := s.Token("owner-2")

	// The former owner uses the store in every service that checks ownership
	// through the catalog, so each has looked it up just now.
	st.MustOK(t, s.Query(w.owner, "stores.payouts.listPayouts", page(w.store)))
	st.MustOK(t, s.Query(w.owner, opListStoreOrders, page(w.store)))

	st.MustOK(t, s.Mutation(w.admin, "admins.catalog.updateStore", map[string]any{"storeId": w.store, "ownerUserId": "owner-2"}))

	expectError(t, w.request(w.owner, w.store, 500), "PERMISSION_DENIED")
	expectError(t, s.Query(w.owner, opGetWallet, map[string]any{"storeId": w.store}), "PERMISSION_DENIED")
	expectError(t, s.Query(w.owner, opListStoreOrders, page(w.store)), "PERMISSION_DENIED")
	expectError(t, s.Mutation(w.owner, "stores.products.createProduct", map[string]any{"storeId": w.store, "name": "Bread", "price": 5}), "PERMISSION_DENIED")
	if got := w.getWallet(t, w.admin, w.store); got.AvailableBalance != 1000 {
		t.Fatalf("the refused payout moved money: available %v, want 1000", got.AvailableBalance)
	}

	st.MustOK(t, w.request(newOwner, w.store, 500))
	st.MustOK(t, s.Query(newOwner, opListStoreOrders, page(w.store)))
}

// page is the first page of a store's list.
func page(store string) map[string]any {
	return map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}}
}
