package payouts

import (
	"context"
	"encoding/json"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// payoutEvents are the payout events of type typ in the outbox, in order.
func (ts *testSvc) payoutEvents(t *testing.T, typ string) []contract.PayoutEvent {
	t.Helper()
	cur, err := ts.db.Collection("outbox").Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []struct {
		Seq      int64  `bson:"seq"`
		Envelope string `bson:"envelope"`
	}
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	var out []contract.PayoutEvent
	for _, d := range docs {
		var env events.Envelope
		if err := json.Unmarshal([]byte(d.Envelope), &env); err != nil {
			t.Fatal(err)
		}
		if env.Type != typ {
			continue
		}
		var ev contract.PayoutEvent
		if err := json.Unmarshal(env.Data, &ev); err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func (ts *testSvc) payoutDoc(t *testing.T, id string) domain.Payout {
	t.Helper()
	var p domain.Payout
	if err := ts.db.Collection(storage.PayoutsColl).FindOne(context.Background(), bson.M{"_id": id}).Decode(&p); err != nil {
		t.Fatalf("payout %s: %v", id, err)
	}
	return p
}

func adminCtx() context.Context {
	return auth.WithIdentity(context.Background(), &auth.Identity{Sub: "admin-1", Roles: []string{"admin"}})
}

// handoverWorld: a store of owner-1 (store.created heard), 1,000 AED
// available, and owner-1's payouts in each status: requested (a, b), approved
// (c), processing (d), completed (e), rejected (f).
type handoverWorld struct {
	ts                     *testSvc
	store                  string
	a, b, c, d, e, f       string
	availableAfterRequests money.Fils
}

func newHandoverWorld(t *testing.T) *handoverWorld {
	t.Helper()
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{MinPayout: 1000, MaxPayout: 5000000, ProcessingFee: 200, HoldDays: 0}
	w := &handoverWorld{ts: ts, store: ids.New("stores")}
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: w.store, Name: "Bakery", OwnerUserID: "owner-1", Version: 1})
	ctx := adminCtx()
	ts.adjust(t, ctx, w.store, contract.AdjustAddBalance, 100000)
	owner := ownerCtxAt(w.store, "owner-1", 1)
	request := func(amount money.Fils) string {
		id, err := ts.requestPayout(owner, payoutArgsOf(w.store, amount))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	w.a, w.b, w.c, w.d, w.e, w.f = request(10000), request(11000), request(12000), request(13000), request(14000), request(15000)
	must := func(_ *Payout, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(ts.approvePayout(ctx, &payoutArgs{PayoutID: w.c, AdminUserID: "admin-1"}))
	must(ts.approvePayout(ctx, &payoutArgs{PayoutID: w.d, AdminUserID: "admin-1"}))
	must(ts.markPayoutAsProcessing(ctx, &processingArgs{PayoutID: w.d, AdminUserID: "admin-1", ProcessingMethod: "manual"}))
	must(ts.approvePayout(ctx, &payoutArgs{PayoutID: w.e, AdminUserID: "admin-1"}))
	must(ts.markPayoutAsProcessing(ctx, &processingArgs{PayoutID: w.e, AdminUserID: "admin-1", ProcessingMethod: "manual"}))
	must(ts.completePayout(ctx, &completeArgs{PayoutID: w.e, AdminUserID: "admin-1"}))
	must(ts.rejectPayout(ctx, &rejectArgs{PayoutID: w.f, AdminUserID: "admin-1", RejectionReason: "wrong IBAN"}))
	w.availableAfterRequests = ts.wallet(t, w.store).AvailableBalance
	if w.availableAfterRequests != 100000-10000-11000-12000-13000-14000 {
		t.Fatalf("available %v", w.availableAfterRequests)
	}
	return w
}

// ownerCtxAt is the context of an access check that read the store's owner
// at the catalog's version.
func ownerCtxAt(storeID, owner string, version int64) context.Context {
	ctx := auth.WithIdentity(context.Background(), &auth.Identity{Sub: owner})
	return ops.WithStore(ctx, &ops.StoreRef{ID: storeID, Name: "Bakery", OwnerUserID: owner, Version: version})
}

func (w *handoverWorld) handOver(t *testing.T, to string, version int64) {
	t.Helper()
	w.ts.deliver(t, catalog.EventStoreUpdated, catalog.StoreUpdated{StoreID: w.store, Name: "Bakery", OwnerUserID: to, Version: version})
}

// TestHandoverSettlesTheFormerOwnersPayouts: store.updated giving the store
// to another owner cancels the former owner's requested payouts (the amount
// back to available, the transaction cancelled, reason "store handed over",
// one payout.cancelled each for the former owner and the administrators),
// flags those approved or processing (handedOverAt), and leaves the final
// ones alone. A redelivery, a replay and a later store event change nothing
// more; a change that keeps the owner changes nothing at all.
func TestHandoverSettlesTheFormerOwnersPayouts(t *testing.T) {
	w := newHandoverWorld(t)
	ts := w.ts

	// A rename: the owner stays, nothing happens.
	ts.deliver(t, catalog.EventStoreUpdated, catalog.StoreUpdated{StoreID: w.store, Name: "Bakery & Co", OwnerUserID: "owner-1", Version: 2})
	for _, id := range []string{w.a, w.b, w.c, w.d} {
		if p := ts.payoutDoc(t, id); p.HandedOverAt != nil || !domain.Open(p.Status) {
			t.Fatalf("a rename touched payout %s: %+v", id, p)
		}
	}

	before := ts.clock.Now().UnixMilli()
	w.handOver(t, "owner-2", 3)

	for _, id := range []string{w.a, w.b} {
		p := ts.payoutDoc(t, id)
		last := p.History[len(p.History)-1]
		if p.Status != domain.StatusCancelled || p.RejectionReason != domain.ReasonHandedOver || !p.BalanceRestored || p.HandedOverAt == nil ||
			*p.HandedOverAt < before || p.RejectedDate == nil || last.Action != string(domain.MoveHandover) || last.From != domain.StatusRequested ||
			last.To != domain.StatusCancelled || last.By != domain.HandoverActor || last.Reason == nil || *last.Reason != domain.ReasonHandedOver {
			t.Fatalf("requested payout %s after the handover: %+v", id, p)
		}
		if n := ts.count(t, storage.TxColl, bson.M{"_id": p.TransactionID, "status": domain.TxCancelled}); n != 1 {
			t.Fatalf("payout %s: its transaction is not cancelled", id)
		}
	}
	for _, id := range []string{w.c, w.d} {
		p := ts.payoutDoc(t, id)
		last := p.History[len(p.History)-1]
		if (p.Status != domain.StatusApproved && p.Status != domain.StatusProcessing) || p.HandedOverAt == nil || last.Action != string(domain.MoveHandover) ||
			last.From != p.Status || last.To != p.Status {
			t.Fatalf("payout %s being paid, after the handover: %+v", id, p)
		}
	}
	for _, id := range []string{w.e, w.f} {
		if p := ts.payoutDoc(t, id); p.HandedOverAt != nil || p.History[len(p.History)-1].Action == string(domain.MoveHandover) {
			t.Fatalf("final payout %s flagged: %+v", id, p)
		}
	}
	wallet := ts.wallet(t, w.store)
	if wallet.AvailableBalance != w.availableAfterRequests+10000+11000 {
		t.Fatalf("available %v, want %v: the cancelled amounts back", wallet.AvailableBalance, w.availableAfterRequests+21000)
	}
	ts.reconciled(t, w.store)
	cancelled := ts.payoutEvents(t, contract.EventPayoutCancelled)
	if len(cancelled) != 2 {
		t.Fatalf("%d payout.cancelled events, want 2", len(cancelled))
	}
	for _, ev := range cancelled {
		if ev.StoreOwnerUserID != "owner-1" || ev.RequestedBy != "owner-1" || ev.Reason != domain.ReasonHandedOver || ev.AdminUserID != "" ||
			ev.Status != domain.StatusCancelled || ev.From != domain.StatusRequested || !ev.BalanceRestored {
			t.Fatalf("payout.cancelled %+v", ev)
		}
	}
	if n := len(ts.payoutEvents(t, contract.EventPayoutRejected)); n != 1 { // f's, by an administrator
		t.Fatalf("%d payout.rejected events, want 1", n)
	}
	sm, err := ts.totals.Summary(context.Background(), ts.clock.Now())
	if st := sm.Statistics(); err != nil || st.TotalPendingRequests != 1 || st.TotalProcessingRequests != 1 { // c approved; d processing
		t.Fatalf("running totals after the handover: %+v %v", sm, err)
	}

	// The same event again (a redelivery, a replay from the dead-letter
	// topic), and the next store event: nothing cancelled, refunded or
	// flagged twice.
	histories := map[string]int{}
	for _, id := range []string{w.a, w.b, w.c, w.d} {
		histories[id] = len(ts.payoutDoc(t, id).History)
	}
	w.handOver(t, "owner-2", 3)
	ts.deliver(t, catalog.EventStoreUpdated, catalog.StoreUpdated{StoreID: w.store, Name: "Bakery 2", OwnerUserID: "owner-2", Version: 4})
	if got := ts.wallet(t, w.store).AvailableBalance; got != wallet.AvailableBalance {
		t.Fatalf("a replayed handover moved money: available %v, was %v", got, wallet.AvailableBalance)
	}
	for id, n := range histories {
		if got := len(ts.payoutDoc(t, id).History); got != n {
			t.Fatalf("a replayed handover touched payout %s again (%d history entries, was %d)", id, got, n)
		}
	}
	if n := len(ts.payoutEvents(t, contract.EventPayoutCancelled)); n != 2 {
		t.Fatalf("%d payout.cancelled events after the replay, want 2", n)
	}
	ts.reconciled(t, w.store)

	// The new owner's own payouts are theirs: a later event leaves them be.
	mine, err := ts.requestPayout(ownerCtxAt(w.store, "owner-2", 4), payoutArgsOf(w.store, 5000))
	if err != nil {
		t.Fatal(err)
	}
	ts.deliver(t, catalog.EventStoreUpdated, catalog.StoreUpdated{StoreID: w.store, Name: "Bakery 3", OwnerUserID: "owner-2", Version: 5})
	if p := ts.payoutDoc(t, mine); p.Status != domain.StatusRequested || p.HandedOverAt != nil {
		t.Fatalf("the new owner's payout: %+v", p)
	}
	// Handed back: the first owner's payouts stay as they are (cancelled,
	// flagged); the second owner's request is cancelled.
	w.handOver(t, "owner-1", 6)
	if p := ts.payoutDoc(t, mine); p.Status != domain.StatusCancelled || p.RejectionReason != domain.ReasonHandedOver {
		t.Fatalf("owner-2's request after the store went back to owner-1: %+v", p)
	}
	ts.reconciled(t, w.store)
}

// TestPayingOutAHandedOverPayoutNeedsConfirmation: approving, marking
// processing and completing a payout of a store handed over since its
// request (flagged, or whose owner the catalog now says is another) are
// FAILED_PRECONDITION store_handed_over without confirmHandover, and change
// nothing; with it they go through and say so in the history. Rejecting and
// failing it never need it.
func TestPayingOutAHandedOverPayoutNeedsConfirmation(t *testing.T) {
	w := newHandoverWorld(t)
	ts := w.ts
	ctx := adminCtx()
	// refused: the move was refused for the handover and recorded nothing.
	refused := func(what string, err error, id string, historyBefore int) {
		t.Helper()
		e := apperr.From(err)
		if e.Code != apperr.FailedPrecondition || e.Details["reason"] != "store_handed_over" || e.Details["requestedBy"] != "owner-1" ||
			e.Details["argument"] != "confirmHandover" {
			t.Fatalf("%s: %v %+v", what, err, e.Details)
		}
		if p := ts.payoutDoc(t, id); len(p.History) != historyBefore {
			t.Fatalf("%s: the refused move was recorded: %+v", what, p.History)
		}
	}
	yes := true
	history := func(id string) int { return len(ts.payoutDoc(t, id).History) }

	// The catalog has handed the store over; this service has not heard
	// yet: the requested payout is still requested and unflagged, and
	// approving it asks the catalog.
	ts.setStore(catalog.StoreEvent{StoreID: w.store, Name: "Bakery", OwnerUserID: "owner-2", Version: 2})
	n := history(w.a)
	_, err := ts.approvePayout(ctx, &payoutArgs{PayoutID: w.a, AdminUserID: "admin-1"})
	refused("approving before the handover is heard", err, w.a, n)
	if e := apperr.From(err); e.Details["storeOwnerUserId"] != "owner-2" || e.Details["handedOverAt"] != nil {
		t.Fatalf("details %+v", e.Details)
	}
	if p := ts.payoutDoc(t, w.a); p.Status != domain.StatusRequested || p.HandedOverAt != nil {
		t.Fatalf("the refused approval changed the payout: %+v", p)
	}
	p, err := ts.approvePayout(ctx, &payoutArgs{PayoutID: w.a, AdminUserID: "admin-1", ConfirmHandover: &yes})
	if err != nil || p.Status != domain.StatusApproved || p.HandedOverAt == nil || !p.HandedOver {
		t.Fatalf("approving with the confirmation: %+v %v", p, err)
	}
	if h := p.History[len(p.History)-1]; h.HandoverConfirmed == nil || !*h.HandoverConfirmed || h.Action != string(domain.MoveApprove) {
		t.Fatalf("history %+v", h)
	}
	// Rejecting needs nothing.
	if _, err := ts.rejectPayout(ctx, &rejectArgs{PayoutID: w.b, AdminUserID: "admin-1", RejectionReason: "handed over"}); err != nil {
		t.Fatal(err)
	}

	// The handover heard: c (approved) and d (processing) are flagged.
	w.handOver(t, "owner-2", 2)
	n = history(w.c)
	_, err = ts.markPayoutAsProcessing(ctx, &processingArgs{PayoutID: w.c, AdminUserID: "admin-1", ProcessingMethod: "manual"})
	refused("marking a flagged payout processing", err, w.c, n)
	n = history(w.d)
	_, err = ts.completePayout(ctx, &completeArgs{PayoutID: w.d, AdminUserID: "admin-1"})
	refused("completing a flagged payout", err, w.d, n)
	if got := ts.payoutDoc(t, w.d); got.Status != domain.StatusProcessing || got.CompletedDate != nil {
		t.Fatalf("the refused completion changed the payout: %+v", got)
	}
	if p, err := ts.markPayoutAsProcessing(ctx, &processingArgs{PayoutID: w.c, AdminUserID: "admin-1", ProcessingMethod: "manual",
		ConfirmHandover: &yes}); err != nil || p.Status != domain.StatusProcessing {
		t.Fatalf("marking processing with the confirmation: %+v %v", p, err)
	}
	// Flagged, the store even handed back to owner-1: the flag still needs
	// the confirmation (the record says it changed hands).
	w.handOver(t, "owner-1", 3)
	n = history(w.c)
	_, err = ts.completePayout(ctx, &completeArgs{PayoutID: w.c, AdminUserID: "admin-1"})
	refused("completing a flagged payout of a store handed back", err, w.c, n)
	if p, err := ts.completePayout(ctx, &completeArgs{PayoutID: w.c, AdminUserID: "admin-1", ConfirmHandover: &yes}); err != nil ||
		p.Status != domain.StatusCompleted {
		t.Fatalf("completing with the confirmation: %+v %v", p, err)
	}
	// Failing needs nothing, and may restore the amount.
	restore := true
	if p, err := ts.markPayoutAsFailed(ctx, &failArgs{PayoutID: w.d, AdminUserID: "admin-1", FailureReason: "handed over",
		RestoreBalance: &restore}); err != nil || p.Status != domain.StatusFailed {
		t.Fatalf("failing a flagged payout: %+v %v", p, err)
	}
	ts.reconciled(t, w.store)

	// A payout of a store that did not change hands needs no confirmation.
	other := newHandoverWorld(t)
	if _, err := other.ts.approvePayout(ctx, &payoutArgs{PayoutID: other.a, AdminUserID: "admin-1"}); err != nil {
		t.Fatal(err)
	}
	// The catalog unreachable: a move that pays out is UNAVAILABLE (never
	// made on an owner not confirmed); one that stops the payout is not.
	other.ts.catalogDown = true
	if _, err := other.ts.approvePayout(ctx, &payoutArgs{PayoutID: other.b, AdminUserID: "admin-1", ConfirmHandover: &yes}); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("approving with the catalog down: %v", err)
	}
	if _, err := other.ts.rejectPayout(ctx, &rejectArgs{PayoutID: other.b, AdminUserID: "admin-1", RejectionReason: "r"}); err != nil {
		t.Fatalf("rejecting with the catalog down: %v", err)
	}
}

// TestRequestOvertakenByTheHandover: a payout request whose access check read
// the former owner, but whose transaction runs after the handover reached
// the wallet (the handover's cancellation would miss it), is refused
// PERMISSION_DENIED store_handed_over and writes nothing; a check at the
// catalog's current version is served.
func TestRequestOvertakenByTheHandover(t *testing.T) {
	w := newHandoverWorld(t)
	ts := w.ts
	w.handOver(t, "owner-2", 2)
	available := ts.wallet(t, w.store).AvailableBalance
	payouts := ts.count(t, storage.PayoutsColl, bson.M{})
	_, err := ts.requestPayout(ownerCtxAt(w.store, "owner-1", 1), payoutArgsOf(w.store, 5000))
	if e := apperr.From(err); e.Code != apperr.PermissionDenied || e.Details["reason"] != "store_handed_over" {
		t.Fatalf("a request checked before the handover: %v", err)
	}
	if ts.wallet(t, w.store).AvailableBalance != available || ts.count(t, storage.PayoutsColl, bson.M{}) != payouts {
		t.Fatal("the refused request wrote")
	}
	if _, err := ts.requestPayout(ownerCtxAt(w.store, "owner-2", 2), payoutArgsOf(w.store, 5000)); err != nil {
		t.Fatalf("the new owner's request: %v", err)
	}
	ts.reconciled(t, w.store)
}

// TestBankAccountSaveOvertakenByTheHandover: setBankAccount checked for the
// former owner, whose transaction runs after the handover reached the
// wallet, is refused PERMISSION_DENIED store_handed_over and saves nothing
// (it would record the former owner as savedBy); the new owner saves.
func TestBankAccountSaveOvertakenByTheHandover(t *testing.T) {
	ts := newTestSvc(t)
	store := ids.New("stores")
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: store, Name: "Bakery", OwnerUserID: "owner-1", Version: 1})
	args := func() *setBankAccountArgs {
		return &setBankAccountArgs{StoreID: store, BankDetails: payoutArgsOf(store, 0).BankDetails}
	}
	if _, err := ts.setBankAccount(ownerCtxAt(store, "owner-1", 1), args()); err != nil {
		t.Fatalf("the owner's save: %v", err)
	}
	ts.deliver(t, catalog.EventStoreUpdated, catalog.StoreUpdated{StoreID: store, Name: "Bakery", OwnerUserID: "owner-2", Version: 2})
	args2 := args()
	args2.BankDetails.AccountHolderName = "Sara Al Marri"
	_, err := ts.setBankAccount(ownerCtxAt(store, "owner-1", 1), args2)
	if e := apperr.From(err); e.Code != apperr.PermissionDenied || e.Details["reason"] != "store_handed_over" {
		t.Fatalf("a save checked before the handover: %v", err)
	}
	if n := ts.count(t, storage.AccountsColl, bson.M{"savedBy": "owner-1", "accountHolderName": "Sara"}); n != 1 {
		t.Fatalf("the refused save wrote (%d of the first left)", n)
	}
	v, err := ts.setBankAccount(ownerCtxAt(store, "owner-2", 2), args2)
	if err != nil || v == nil {
		t.Fatalf("the new owner's save: %v", err)
	}
	if n := ts.count(t, storage.AccountsColl, bson.M{"savedBy": "owner-2"}); n != 1 {
		t.Fatalf("the new owner's account: %d", n)
	}
}

// TestExportCounts: the exports' counts stop at the limit asked (the cap
// plus one) and count what the filter selects.
func TestExportCounts(t *testing.T) {
	w := newHandoverWorld(t)
	ctx := context.Background()
	other, requested := "stores_none", domain.StatusRequested
	for _, c := range []struct {
		name  string
		f     storage.PayoutFilter
		limit int64
		want  int64
	}{
		{"all", storage.PayoutFilter{}, 100, 6},
		{"stops at the limit", storage.PayoutFilter{}, 4, 4},
		{"the store's", storage.PayoutFilter{StoreID: &w.store}, 7, 6},
		{"another store's", storage.PayoutFilter{StoreID: &other}, 7, 0},
		{"requested", storage.PayoutFilter{Status: &requested}, 7, 2},
	} {
		n, err := w.ts.payouts.CountPayouts(ctx, c.f, c.limit)
		if err != nil || n != c.want {
			t.Errorf("%s: %d %v, want %d", c.name, n, err, c.want)
		}
	}
	for limit, want := range map[int64]int64{1: 1, 5: 1} {
		if n, err := w.ts.wallets.CountAll(ctx, limit); err != nil || n != want {
			t.Errorf("wallets up to %d: %d %v", limit, n, err)
		}
	}
}

// TestCSVMaxRowsSetting: PAYOUTS_CSV_MAX_ROWS is 1 to 100,000; 0 or less
// would turn the cap off by accident, and more passes the exports' bound.
func TestCSVMaxRowsSetting(t *testing.T) {
	for n, ok := range map[int]bool{-1: false, 0: false, 1: true, 100_000: true, 100_001: false} {
		if err := (&Settings{CSVMaxRows: n}).Validate(); (err == nil) != ok {
			t.Errorf("PAYOUTS_CSV_MAX_ROWS=%d: %v", n, err)
		}
	}
}
