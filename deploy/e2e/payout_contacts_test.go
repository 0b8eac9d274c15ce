package e2e

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/events"
	"marketplace/libs/ids"
)

// eventHold holds back every event the services publish (their outbox
// relays wait before publishing, st.WithRelayFault) while it is on: the
// events are committed, and nobody hears them until it is released.
type eventHold struct {
	mu      sync.Mutex
	on      bool
	release chan struct{}
	waiting atomic.Int64 // relay rounds that waited
	once    sync.Once
}

func newEventHold() *eventHold { return &eventHold{release: make(chan struct{})} }

// fault is the relays' fault point: it waits while the hold is on.
func (h *eventHold) fault() error {
	h.mu.Lock()
	on := h.on
	h.mu.Unlock()
	if on {
		h.waiting.Add(1)
		<-h.release
	}
	return nil
}

func (h *eventHold) hold() { h.mu.Lock(); h.on = true; h.mu.Unlock() }

// free lets the held events go (once; again is a no-op).
func (h *eventHold) free() {
	h.once.Do(func() {
		h.mu.Lock()
		h.on = false
		h.mu.Unlock()
		close(h.release)
	})
}

// TestPayoutListingsNameTheOwnerWithTheStoreEventHeldBack (issue 18, item 8):
// a store created while its store.created event is held back, so that the
// payouts service has not heard of its owner: its wallet opened by an
// adjustment and a payout requested, every payout listing (the work queue,
// one payout, the store's payouts, an administrator's move) names the store,
// its owner and the owner's phone as the catalog has them; and still once
// the event is out.
func TestPayoutListingsNameTheOwnerWithTheStoreEventHeldBack(t *testing.T) {
	hold := newEventHold()
	s := st.Start(t, st.WithRelayFault(hold.fault))
	t.Cleanup(hold.free) // before the system stops (cleanups run last first)
	admin, owner := s.Token("admin-1", "admin"), s.Token("owner-7")
	initConfig(t, s)

	hold.hold()
	store := okID(t, s.Mutation(admin, "admins.catalog.createStore", map[string]any{
		"name": "Held Bakery", "ownerUserId": "owner-7", "ownerName": "Layla Haddad", "ownerPhone": "+971507654321"}))
	w := &payoutsWorld{s: s, admin: admin, owner: owner, store: store}
	w.wallet = w.getWallet(t, owner, store).ID
	w.credit(t, store, w.wallet, 500)
	payout := okID(t, w.request(owner, store, 200))
	eventually(t, "a relay waiting on the hold", func() bool { return hold.waiting.Load() > 0 })

	named := func(what string, p payoutView) {
		t.Helper()
		if p.ID != payout || p.StoreName != "Held Bakery" || p.StoreOwnerName != "Layla Haddad" || p.StoreOwnerPhone != "+971507654321" {
			t.Fatalf("%s: %+v", what, p)
		}
	}
	check := func(when string) {
		t.Helper()
		pending := w.pending(t, map[string]any{"storeId": store})
		if len(pending) != 1 {
			t.Fatalf("%s: pending payouts %+v", when, pending)
		}
		named(when+", getPendingPayouts", pending[0])
		named(when+", getPayout", w.payout(t, payout))
		var mine struct {
			Page []payoutView `json:"page"`
		}
		st.MustOK(t, s.Query(owner, opListPayouts, map[string]any{"storeId": store, "paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})).Decode(t, &mine)
		if len(mine.Page) != 1 {
			t.Fatalf("%s: listPayouts %+v", when, mine.Page)
		}
		named(when+", listPayouts", mine.Page[0])
	}
	check("with store.created held back")
	named("approvePayout's answer with store.created held back", okAs[payoutView](t, w.move(opApprove, payout)))

	// What the payouts service read: the catalog's internal getStoreContacts,
	// through its typed client as the payouts service, uncached; not
	// reachable through the gateway, nor by a service that does not declare
	// calls to the catalog (notifications).
	client := catalog.NewClient(s.CallsAs("payouts"))
	contacts, err := client.StoreContacts(context.Background(), []string{store, ids.New("stores")})
	if c, ok := contacts[store]; err != nil || len(contacts) != 1 || !ok || c.Name != "Held Bakery" || c.OwnerUserID != "owner-7" ||
		c.OwnerName != "Layla Haddad" || c.OwnerPhone != "+971507654321" || c.Version < 1 {
		t.Fatalf("store contacts %+v %v", contacts, err)
	}
	expectError(t, s.Query(admin, catalog.OpGetStoreContacts, map[string]any{"storeIds": []string{store}}), "NOT_FOUND")
	if _, err := catalog.NewClient(s.CallsAs("notifications")).StoreContacts(context.Background(), []string{store}); apperr.CodeOf(err) != apperr.Internal {
		t.Fatalf("an undeclared caller's store contacts: %v", err)
	}

	hold.free()
	findEvent(t, s.Brokers, "catalog", store, func(e events.Envelope) bool { return e.Type == "store.created" })
	check("after store.created was published")
}
