package e2e

import (
	"encoding/json"
	"testing"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/events"
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

// handedOverView is what a payout shows of a handover.
type handedOverView struct {
	ID              string  `json:"_id"`
	Status          string  `json:"status"`
	RequestedBy     string  `json:"requestedBy"`
	StoreOwnerName  string  `json:"storeOwnerName"`
	HandedOverAt    *int64  `json:"handedOverAt"`
	HandedOver      bool    `json:"handedOver"`
	RejectionReason *string `json:"rejectionReason"`
	BalanceRestored bool    `json:"balanceRestored"`
	History         []struct {
		Action            string `json:"action"`
		By                string `json:"by"`
		HandoverConfirmed *bool  `json:"handoverConfirmed"`
	} `json:"history"`
}

const eventsHandledMetric = "marketplace_events_handled_total"

// TestHandoverSettlesTheFormerOwnersPayouts (issue 29, item 3): owner-1's
// payouts when admins.catalog.updateStore gives the store to owner-2. The
// one still requested is cancelled ("store handed over", its amount back in
// the available balance, owner-1 and the administrators notified) and can
// no longer be approved; those approved or processing stay in the work queue
// flagged (handedOver, handedOverAt) beside the new owner's name, and paying
// them on needs confirmHandover (FAILED_PRECONDITION without it); failing
// one does not. The handover's event delivered again, and again under a new
// id (a replay past the consumer's dedupe), cancels and refunds nothing
// more.
func TestHandoverSettlesTheFormerOwnersPayouts(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	w.credit(t, w.store, w.wallet, 2000)
	requested := okID(t, w.request(w.owner, w.store, 300))
	approved := okID(t, w.request(w.owner, w.store, 400))
	processing := okID(t, w.request(w.owner, w.store, 500))
	st.MustOK(t, w.move(opApprove, approved))
	st.MustOK(t, w.move(opApprove, processing))
	st.MustOK(t, w.move(opProcessing, processing, "processingMethod", "bank_transfer"))
	expectBalances(t, w.getWallet(t, w.admin, w.store), 800, 0)

	st.MustOK(t, s.Mutation(w.admin, "admins.catalog.updateStore", map[string]any{"storeId": w.store, "ownerUserId": "owner-2",
		"ownerName": "Huda Karim", "ownerPhone": "+971509999999"}))
	eventually(t, "the former owner's requested payout cancelled", func() bool { return w.payout(t, requested).Status == "cancelled" })

	p := okAs[handedOverView](t, s.Query(w.admin, opGetPayout, map[string]any{"payoutId": requested}))
	if p.RejectionReason == nil || *p.RejectionReason != "store handed over" || !p.BalanceRestored || p.HandedOverAt == nil ||
		p.History[len(p.History)-1].Action != "storeHandedOver" || p.History[len(p.History)-1].By != "system" {
		t.Fatalf("the cancelled payout: %+v", p)
	}
	expectBalances(t, w.getWallet(t, w.admin, w.store), 1100, 0)
	expectError(t, w.move(opApprove, requested), "FAILED_PRECONDITION", "is cancelled")
	w.reconciled(t, w.store)
	eventually(t, "the former owner and the administrators hear of it", func() bool {
		return count(inbox(t, s, w.owner), "payout_cancelled") == 1 && count(inbox(t, s, w.admin), "payout_cancelled") == 1
	})
	if n := count(inbox(t, s, s.Token("owner-2")), "payout_cancelled"); n != 0 {
		t.Fatalf("the new owner was notified of the former owner's payout (%d)", n)
	}

	// The work queue: the two being paid, flagged, beside the new owner.
	queue := okAs[[]handedOverView](t, s.Query(w.admin, opPending, map[string]any{"storeId": w.store}))
	if len(queue) != 2 {
		t.Fatalf("queue %+v", queue)
	}
	for _, q := range queue {
		if (q.ID != approved && q.ID != processing) || !q.HandedOver || q.HandedOverAt == nil || q.RequestedBy != "owner-1" || q.StoreOwnerName != "Huda Karim" {
			t.Fatalf("queue item %+v", q)
		}
	}
	expectError(t, w.move(opProcessing, approved, "processingMethod", "manual"), "FAILED_PRECONDITION", "confirmHandover", "owner-1")
	expectError(t, w.move(opComplete, processing), "FAILED_PRECONDITION", "confirmHandover")
	if got := w.payout(t, processing); got.Status != "processing" || got.CompletedDate != nil {
		t.Fatalf("the refused completion changed the payout: %+v", got)
	}
	confirmed := okAs[handedOverView](t, w.move(opProcessing, approved, "processingMethod", "manual", "confirmHandover", true))
	if h := confirmed.History[len(confirmed.History)-1]; confirmed.Status != "processing" || h.HandoverConfirmed == nil || !*h.HandoverConfirmed {
		t.Fatalf("processing with the confirmation: %+v", confirmed)
	}
	st.MustOK(t, w.move(opFail, processing, "failureReason", "store handed over", "restoreBalance", true))
	expectBalances(t, w.getWallet(t, w.admin, w.store), 1600, 0)

	// The handover's store.updated again: as delivered (the consumer's
	// dedupe), then under a new id (past it).
	raw := findEvent(t, s.Brokers, "catalog", w.store, func(e events.Envelope) bool {
		var d catalog.StoreEvent
		return e.Type == catalog.EventStoreUpdated && json.Unmarshal(e.Data, &d) == nil && d.OwnerUserID == "owner-2"
	})
	handled := func() float64 {
		v, _ := sample(s.Metrics(), eventsHandledMetric, map[string]string{"group": "payouts", "type": catalog.EventStoreUpdated})
		return v
	}
	before, history := handled(), len(okAs[handedOverView](t, s.Query(w.admin, opGetPayout, map[string]any{"payoutId": requested})).History)
	publish(t, s, "catalog", w.store, raw)
	env, err := events.Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if env.ID, err = events.NewID(); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(env)
	publish(t, s, "catalog", w.store, again)
	eventually(t, "the replay under a new id handled", func() bool { return handled() >= before+1 })
	expectBalances(t, w.getWallet(t, w.admin, w.store), 1600, 0)
	if got := okAs[handedOverView](t, s.Query(w.admin, opGetPayout, map[string]any{"payoutId": requested})); len(got.History) != history || got.Status != "cancelled" {
		t.Fatalf("the replayed handover touched the cancelled payout again: %+v", got)
	}
	w.reconciled(t, w.store)
	if n := count(inbox(t, s, w.owner), "payout_cancelled"); n != 1 {
		t.Fatalf("the former owner heard of %d cancellations, want 1", n)
	}
}

// TestPayoutApprovalAsksTheCatalogDuringAHandover (issue 29, item 3): with
// the handover's store.updated held back (the payouts service has not heard
// of it), approving the former owner's requested payout is refused
// FAILED_PRECONDITION without confirmHandover: the move asks the catalog
// whose store it is; with it the payout is approved and flagged. Rejecting
// another needs nothing. Once the event is out, the approved payout stays
// as the administrator left it.
func TestPayoutApprovalAsksTheCatalogDuringAHandover(t *testing.T) {
	hold := newEventHold()
	s := st.Start(t, st.WithRelayFault(hold.fault))
	t.Cleanup(hold.free)
	w := newPayoutsWorld(t, s, true)
	w.credit(t, w.store, w.wallet, 1000)
	first := okID(t, w.request(w.owner, w.store, 300))
	second := okID(t, w.request(w.owner, w.store, 200))
	// The store's own events first: a store event handled after the hold
	// is confirmed with the catalog, which by then names the new owner, and
	// so settles the handover without store.updated.
	eventually(t, "the payouts service heard of the store", func() bool {
		v, _ := sample(s.Metrics(), eventsHandledMetric, map[string]string{"group": "payouts", "type": catalog.EventStoreCreated})
		return v >= 1
	})

	hold.hold()
	st.MustOK(t, s.Mutation(w.admin, "admins.catalog.updateStore", map[string]any{"storeId": w.store, "ownerUserId": "owner-2"}))
	eventually(t, "a relay waiting on the hold", func() bool { return hold.waiting.Load() > 0 })

	queue := okAs[[]handedOverView](t, s.Query(w.admin, opPending, map[string]any{"storeId": w.store}))
	if len(queue) != 2 || !queue[0].HandedOver || !queue[1].HandedOver || queue[0].HandedOverAt != nil {
		t.Fatalf("the queue before the handover is heard: %+v", queue)
	}
	expectError(t, w.move(opApprove, first), "FAILED_PRECONDITION", "confirmHandover", "owner-1")
	if got := w.payout(t, first); got.Status != "requested" {
		t.Fatalf("the refused approval moved the payout: %+v", got)
	}
	p := okAs[handedOverView](t, w.move(opApprove, first, "confirmHandover", true))
	if p.Status != "approved" || p.HandedOverAt == nil || !p.HandedOver {
		t.Fatalf("approved with the confirmation: %+v", p)
	}
	st.MustOK(t, w.move(opReject, second, "rejectionReason", "store handed over"))
	expectBalances(t, w.getWallet(t, w.admin, w.store), 700, 0)

	handled := func() float64 {
		v, _ := sample(s.Metrics(), eventsHandledMetric, map[string]string{"group": "payouts", "type": catalog.EventStoreUpdated})
		return v
	}
	before := handled()
	hold.free()
	eventually(t, "the handover heard", func() bool { return handled() >= before+1 })
	if got := okAs[handedOverView](t, s.Query(w.admin, opGetPayout, map[string]any{"payoutId": first})); got.Status != "approved" || got.HandedOverAt == nil {
		t.Fatalf("the approved payout once the handover is heard: %+v", got)
	}
	expectBalances(t, w.getWallet(t, w.admin, w.store), 700, 0)
	w.reconciled(t, w.store)
}
