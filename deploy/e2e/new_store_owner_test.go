package e2e

import (
	"testing"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
	"marketplace/libs/ids"
)

// TestNewStoreOwnerServedBeforeItsEventArrives (issue 29, item 5): right after
// admins.catalog.createStore returns, with the store.created event held back
// (no service has heard of the store: every relay waits), its owner is
// served by every operation the services give a store's owner, each of which
// confirms the store with the catalog (catalog.stores.getStoreContacts)
// before answering: the wallet (the zero wallet under its id), its
// transactions, the store's payouts, a payout request (refused for the
// balance, not for the caller; then granted once an administrator credits
// the wallet), the store's orders. A stranger is refused as before
// (PERMISSION_DENIED: not the store's owner), and a store the catalog does
// not have is NOT_FOUND for anyone, owner-to-be included.
func TestNewStoreOwnerServedBeforeItsEventArrives(t *testing.T) {
	hold := newEventHold()
	s := st.Start(t, st.WithRelayFault(hold.fault))
	t.Cleanup(hold.free) // before the system stops (cleanups run last first)
	admin, owner, stranger := s.Token("admin-1", "admin"), s.Token("owner-8"), s.Token("stranger-1")
	initConfig(t, s)

	hold.hold()
	store := okID(t, s.Mutation(admin, "admins.catalog.createStore", map[string]any{
		"name": "Fresh Bakery", "ownerUserId": "owner-8", "ownerName": "Omar Saleh", "ownerPhone": "+971501234567"}))
	eventually(t, "a relay waiting on the hold", func() bool { return hold.waiting.Load() > 0 })

	byStore := map[string]any{"storeId": store}
	w := okAs[walletView](t, s.Query(owner, opGetWallet, byStore))
	if w.ID != "wal_"+store[len("sto_"):] || w.StoreID != store || w.AvailableBalance != 0 || w.PendingBalance != 0 || w.LastPayoutDate != nil {
		t.Fatalf("the new store's wallet, as its owner reads it: %+v", w)
	}
	if got := okAs[struct {
		Page []txView `json:"page"`
	}](t, s.Query(owner, opListTx, page(store))); len(got.Page) != 0 {
		t.Fatalf("transactions of a new store: %+v", got.Page)
	}
	if got := okAs[struct {
		Page []payoutView `json:"page"`
	}](t, s.Query(owner, opListPayouts, page(store))); len(got.Page) != 0 {
		t.Fatalf("payouts of a new store: %+v", got.Page)
	}
	wr := &payoutsWorld{s: s, admin: admin, owner: owner, store: store, wallet: w.ID}
	expectError(t, wr.request(owner, store, 150), "FAILED_PRECONDITION", "insufficient available balance")
	st.MustOK(t, s.Query(owner, opListStoreOrders, page(store)))

	// A stranger: not the store's owner.
	expectError(t, s.Query(stranger, opGetWallet, byStore), "PERMISSION_DENIED")
	expectError(t, s.Query(stranger, opListTx, page(store)), "PERMISSION_DENIED")
	expectError(t, s.Query(stranger, opListPayouts, page(store)), "PERMISSION_DENIED")
	expectError(t, wr.request(stranger, store, 150), "PERMISSION_DENIED")
	expectError(t, s.Query(stranger, opListStoreOrders, page(store)), "PERMISSION_DENIED")

	// A store the catalog does not have: as a missing record, for anyone.
	missing := ids.New("stores")
	for _, tok := range []string{owner, stranger, admin} {
		expectError(t, s.Query(tok, opGetWallet, map[string]any{"storeId": missing}), "NOT_FOUND", missing)
		expectError(t, s.Query(tok, opListPayouts, page(missing)), "NOT_FOUND", missing)
	}
	expectError(t, wr.request(owner, missing, 150), "NOT_FOUND", missing)

	// Money moves on the owner's word as confirmed by the catalog, still with
	// the event held back: credited by an administrator, then requested.
	wr.credit(t, store, w.ID, 300)
	payout := okID(t, wr.request(owner, store, 150))
	if got := wr.getWallet(t, owner, store); got.AvailableBalance != 150 {
		t.Fatalf("after a payout of 150 from 300: %+v", got)
	}
	if hold.waiting.Load() == 0 {
		t.Fatal("the events were not held back")
	}

	hold.free()
	findEvent(t, s.Brokers, "catalog", store, func(e events.Envelope) bool { return e.Type == "store.created" })
	if p := wr.payout(t, payout); p.Status != "requested" || p.RequestedBy != "owner-8" {
		t.Fatalf("the payout once the event is out: %+v", p)
	}
	st.MustOK(t, s.Query(owner, opGetWallet, byStore))
	expectError(t, s.Query(stranger, opGetWallet, byStore), "PERMISSION_DENIED")
}
