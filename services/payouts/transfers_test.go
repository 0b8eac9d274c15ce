package payouts

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/payments"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/services/payouts/domain"
	"marketplace/services/payouts/storage"
)

// fakePayments stands in for the payments service's transfers: one per
// payout id, as payments.transfers.createTransfer keeps them, and
// payments.money.getFacts over them. The test settles them as the
// processor's webhook would, and may make the service refuse (the
// processor's 4xx), lose its answer (the transfer made, UNAVAILABLE
// answered) or be down.
type fakePayments struct {
	transfers map[string]payments.Transfer
	voided    map[string]bool // voided before they were claimed: never made
	created   []payments.TransferArgs
	asked     int
	refuse    bool // FAILED_PRECONDITION, nothing recorded
	loseReply bool // the transfer is made, the answer lost (UNAVAILABLE)
	down      bool
	// inFlight, when set, runs when a createTransfer call arrives, before
	// the payments service claims the transfer (the call in transit).
	inFlight func()
}

func (ts *testSvc) withPayments() *fakePayments {
	f := &fakePayments{transfers: map[string]payments.Transfer{}, voided: map[string]bool{}}
	ts.svc.createTransfer = func(_ context.Context, a payments.TransferArgs) (*payments.Transfer, error) {
		if f.inFlight != nil {
			f.inFlight()
		}
		ts.mu.Lock()
		defer ts.mu.Unlock()
		f.created = append(f.created, a)
		switch {
		case f.down:
			return nil, apperr.New(apperr.Unavailable, "payments is unavailable")
		case f.voided[a.PayoutID]:
			return nil, apperr.New(apperr.FailedPrecondition, "payout moved by hand").WithDetails(map[string]any{"reason": "transfer_voided"})
		case f.refuse:
			return nil, apperr.New(apperr.FailedPrecondition, "the payment processor refused the transfer").WithDetails(map[string]any{"reason": "processor_refused"})
		}
		tr, ok := f.transfers[a.PayoutID]
		if !ok {
			tr = payments.Transfer{TransferID: fmt.Sprintf("po_%d", len(f.transfers)+1), PayoutID: a.PayoutID, StoreID: a.StoreID, Amount: a.Amount,
				Status: payments.TransferPending, CreatedAt: 1}
			f.transfers[a.PayoutID] = tr
		}
		if f.loseReply {
			return nil, apperr.New(apperr.Unavailable, "the payment processor is unavailable")
		}
		return &tr, nil
	}
	ts.svc.voidTransfer = func(_ context.Context, payoutID string) (*payments.TransferVoid, error) {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		f.asked++
		if f.down {
			return nil, apperr.New(apperr.Unavailable, "payments is unavailable")
		}
		if tr, ok := f.transfers[payoutID]; ok {
			return &payments.TransferVoid{PayoutID: payoutID, Transfer: &tr}, nil
		}
		f.voided[payoutID] = true
		return &payments.TransferVoid{PayoutID: payoutID, Voided: true}, nil
	}
	ts.svc.transferFacts = func(_ context.Context, payoutIDs []string) (map[string]payments.Transfer, error) {
		ts.mu.Lock()
		defer ts.mu.Unlock()
		f.asked++
		if f.down {
			return nil, apperr.New(apperr.Unavailable, "payments is unavailable")
		}
		out := map[string]payments.Transfer{}
		for _, id := range payoutIDs {
			if tr, ok := f.transfers[id]; ok {
				out[id] = tr
			}
		}
		return out, nil
	}
	return f
}

// settle sets the payout's transfer as the processor's webhook made it.
func (ts *testSvc) settleTransfer(f *fakePayments, payoutID, status string) payments.Transfer {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	tr := f.transfers[payoutID]
	tr.Status, tr.SettledAt = status, 2
	if status == payments.TransferFailed {
		tr.FailureCode, tr.FailureMessage = "account_closed", "The bank account has been closed"
	}
	f.transfers[payoutID] = tr
	return tr
}

// transferWorld: a store of owner-1 with 1,000 AED available and a payout
// of 150 AED (2 AED fee: 148 net) approved.
type transferWorld struct {
	ts     *testSvc
	pay    *fakePayments
	store  string
	payout string
}

func newTransferWorld(t *testing.T) *transferWorld {
	t.Helper()
	ts := newTestSvc(t)
	ts.settings = &domain.WalletSettings{MinPayout: 1000, MaxPayout: 5000000, ProcessingFee: 200, HoldDays: 0}
	w := &transferWorld{ts: ts, pay: ts.withPayments(), store: ids.New("stores")}
	ts.deliver(t, catalog.EventStoreCreated, catalog.StoreCreated{StoreID: w.store, Name: "Bakery", OwnerUserID: "owner-1", Version: 1})
	ts.adjust(t, adminCtx(), w.store, contract.AdjustAddBalance, 100000)
	id, err := ts.requestPayout(ownerCtxAt(w.store, "owner-1", 1), payoutArgsOf(w.store, 15000))
	if err != nil {
		t.Fatal(err)
	}
	w.payout = id
	if _, err := ts.approvePayout(adminCtx(), &payoutArgs{PayoutID: id, AdminUserID: "admin-1"}); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *transferWorld) send(t *testing.T) *Payout {
	t.Helper()
	p, err := w.ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// transferEvent delivers the payments service's event of the payout's
// transfer, with the figures given (the consumer reads only the payout id).
func (w *transferWorld) transferEvent(t *testing.T, typ string, claimed payments.Transfer) {
	t.Helper()
	w.ts.deliver(t, typ, claimed)
}

// sendPayoutThroughProcessor: the payments service is asked for the net
// amount to the payout's bank account, and the payout is processing,
// third_party, the transfer as its reference; calling again sends nothing
// more.
func TestSendPayoutThroughProcessor(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	p := w.send(t)
	if p.Status != domain.StatusProcessing || *p.ProcessingMethod != "third_party" || *p.TransactionReference != "po_1" {
		t.Fatalf("payout %+v", p)
	}
	want := payments.TransferArgs{PayoutID: w.payout, StoreID: w.store, Amount: 14800, IBAN: "AE070331234567890123456", AccountHolderName: "Sara"}
	if len(w.pay.created) != 1 || w.pay.created[0] != want {
		t.Fatalf("payments asked %+v, want %+v", w.pay.created, want)
	}
	doc := ts.payoutDoc(t, w.payout)
	if doc.TransferID != "po_1" || doc.TransferAskedAt == nil {
		t.Fatalf("payout %+v", doc)
	}
	var actions []string
	for _, h := range p.History {
		actions = append(actions, h.Action+"/"+h.By)
	}
	if fmt.Sprint(actions) != "[requestPayout/owner-1 approvePayout/admin-1 sendPayoutThroughProcessor/admin-1 markPayoutAsProcessing/admin-1]" {
		t.Fatalf("history %v", actions)
	}
	if evs := ts.payoutEvents(t, contract.EventPayoutProcessing); len(evs) != 1 || evs[0].TransactionReference != "po_1" || evs[0].ProcessingMethod != "third_party" {
		t.Fatalf("payout.processing %+v", evs)
	}
	again := w.send(t)
	if again.Status != domain.StatusProcessing || len(w.pay.created) != 1 {
		t.Fatalf("again: %+v, payments asked %d times", again, len(w.pay.created))
	}
	// A payout not approved is refused before the payments service hears of it.
	other, err := ts.requestPayout(ownerCtxAt(w.store, "owner-1", 1), payoutArgsOf(w.store, 10000))
	if err != nil {
		t.Fatal(err)
	}
	_, err = ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: other, AdminUserID: "admin-1"})
	if apperr.From(err).Details["reason"] != "payout_status" || len(w.pay.created) != 1 {
		t.Fatalf("a requested payout: %v", err)
	}
	if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: ids.New("payouts"), AdminUserID: "admin-1"}); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("no such payout: %v", err)
	}
	ts.reconciled(t, w.store)
}

// The call broken after the transfer was made (its answer lost): the
// payout stays approved, moves by hand are refused (the transfer is
// pending), and calling again finds the same transfer and moves it.
func TestSendAgainHealsABrokenCall(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	w.pay.loseReply = true
	if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"}); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("answer lost: %v", err)
	}
	if doc := ts.payoutDoc(t, w.payout); doc.Status != domain.StatusApproved || doc.TransferAskedAt == nil || doc.TransferID != "" {
		t.Fatalf("payout %+v", doc)
	}
	_, err := ts.markPayoutAsFailed(adminCtx(), &failArgs{PayoutID: w.payout, AdminUserID: "admin-1", FailureReason: "x", RestoreBalance: ptrTo(true)})
	if apperr.From(err).Details["reason"] != domain.ReasonTransferPending {
		t.Fatalf("failing by hand while the transfer is pending: %v", err)
	}
	_, err = ts.markPayoutAsProcessing(adminCtx(), &processingArgs{PayoutID: w.payout, AdminUserID: "admin-1", ProcessingMethod: "bank_transfer"})
	if apperr.From(err).Details["reason"] != domain.ReasonTransferPending {
		t.Fatalf("processing by hand while the transfer is pending: %v", err)
	}
	w.pay.loseReply = false
	p := w.send(t)
	if p.Status != domain.StatusProcessing || *p.TransactionReference != "po_1" || len(w.pay.transfers) != 1 || len(w.pay.created) != 2 {
		t.Fatalf("healed: %+v; %d transfers, %d calls", p, len(w.pay.transfers), len(w.pay.created))
	}
	ts.reconciled(t, w.store)
}

// The processor refusing the transfer: the refusal is answered, the payout
// stays approved, and, the payments service having no transfer of it, it is
// moved by hand as any other.
func TestSendRefusedByTheProcessor(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	w.pay.refuse = true
	_, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"})
	if !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != "processor_refused" {
		t.Fatalf("refused: %v", err)
	}
	if doc := ts.payoutDoc(t, w.payout); doc.Status != domain.StatusApproved {
		t.Fatalf("payout %+v", doc)
	}
	if _, err := ts.markPayoutAsProcessing(adminCtx(), &processingArgs{PayoutID: w.payout, AdminUserID: "admin-1", ProcessingMethod: "bank_transfer"}); err != nil {
		t.Fatal(err)
	}
	if p, err := ts.completePayout(adminCtx(), &completeArgs{PayoutID: w.payout, AdminUserID: "admin-1"}); err != nil || p.Status != domain.StatusCompleted {
		t.Fatalf("completed by hand: %+v %v", p, err)
	}
	ts.reconciled(t, w.store)
}

// A move by hand racing sendPayoutThroughProcessor: the ask is recorded,
// and while the call for the transfer is still on its way to the payments
// service, an administrator fails the payout restoring its balance. The
// move has the payments service void the transfer first, so when the call
// arrives it is refused (transfer_voided): no transfer is made, and the
// balance is restored once.
func TestMoveByHandWhileTheTransferIsOnItsWay(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	var moved *Payout
	var moveErr error
	w.pay.inFlight = func() {
		w.pay.inFlight = nil
		moved, moveErr = ts.markPayoutAsFailed(adminCtx(), &failArgs{PayoutID: w.payout, AdminUserID: "admin-1", FailureReason: "bank details wrong",
			RestoreBalance: ptrTo(true)})
	}
	_, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"})
	if moveErr != nil || moved.Status != domain.StatusFailed || !moved.BalanceRestored {
		t.Fatalf("the move by hand: %+v %v", moved, moveErr)
	}
	if !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != "transfer_voided" {
		t.Fatalf("the send after the move: %v", err)
	}
	if len(w.pay.transfers) != 0 || !w.pay.voided[w.payout] {
		t.Fatalf("transfers made %+v, voided %v", w.pay.transfers, w.pay.voided)
	}
	if v := ts.wallet(t, w.store); v.AvailableBalance != 100000 {
		t.Fatalf("available %d, want the 1,000.00 restored once", v.AvailableBalance)
	}
	// Sending again and moving again change nothing.
	if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"}); apperr.From(err).Details["reason"] != "payout_status" {
		t.Fatalf("sent again: %v", err)
	}
	if len(w.pay.transfers) != 0 {
		t.Fatal("a transfer was made")
	}
	ts.reconciled(t, w.store)

	// The other order: the transfer claimed first, the move is refused.
	other, err := ts.requestPayout(ownerCtxAt(w.store, "owner-1", 1), payoutArgsOf(w.store, 15000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.approvePayout(adminCtx(), &payoutArgs{PayoutID: other, AdminUserID: "admin-1"}); err != nil {
		t.Fatal(err)
	}
	w.pay.loseReply = true
	if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: other, AdminUserID: "admin-1"}); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("answer lost: %v", err)
	}
	_, err = ts.markPayoutAsFailed(adminCtx(), &failArgs{PayoutID: other, AdminUserID: "admin-1", FailureReason: "x", RestoreBalance: ptrTo(true)})
	if apperr.From(err).Details["reason"] != domain.ReasonTransferPending || w.pay.voided[other] {
		t.Fatalf("failing by hand a claimed transfer: %v", err)
	}
	// A move the payout's status refuses voids nothing.
	w.pay.loseReply = false
	third, err := ts.requestPayout(ownerCtxAt(w.store, "owner-1", 1), payoutArgsOf(w.store, 15000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.approvePayout(adminCtx(), &payoutArgs{PayoutID: third, AdminUserID: "admin-1"}); err != nil {
		t.Fatal(err)
	}
	w.pay.refuse = true
	if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: third, AdminUserID: "admin-1"}); apperr.From(err).Details["reason"] != "processor_refused" {
		t.Fatalf("refused: %v", err)
	}
	w.pay.refuse = false
	if _, err := ts.completePayout(adminCtx(), &completeArgs{PayoutID: third, AdminUserID: "admin-1"}); apperr.From(err).Details["reason"] != "payout_status" || w.pay.voided[third] {
		t.Fatalf("complete of an approved payout: %v; voided %v", err, w.pay.voided[third])
	}
	if p, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: third, AdminUserID: "admin-1"}); err != nil || p.Status != domain.StatusProcessing {
		t.Fatalf("sent after the refused move: %+v %v", p, err)
	}
	ts.reconciled(t, w.store)
}

// A move by hand refused by the handover check (a store handed over since
// the request, no confirmHandover) voids nothing: the transfer can still be
// sent; with the confirmation the move voids it.
func TestMoveByHandRefusedForTheHandoverVoidsNothing(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	w.pay.refuse = true // sent once: the processor refused, the payout stays approved
	if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"}); apperr.From(err).Details["reason"] != "processor_refused" {
		t.Fatalf("refused: %v", err)
	}
	w.pay.refuse = false
	ts.setStore(catalog.StoreEvent{StoreID: w.store, Name: "Bakery", OwnerUserID: "owner-2", Version: 2})
	asked := w.pay.asked
	_, err := ts.markPayoutAsProcessing(adminCtx(), &processingArgs{PayoutID: w.payout, AdminUserID: "admin-1", ProcessingMethod: "bank_transfer"})
	if apperr.From(err).Details["reason"] != "store_handed_over" {
		t.Fatalf("moved without confirmHandover: %v", err)
	}
	if w.pay.voided[w.payout] || w.pay.asked != asked {
		t.Fatalf("the refused move asked the payments service %d times; voided %v", w.pay.asked-asked, w.pay.voided[w.payout])
	}
	if p := ts.payoutDoc(t, w.payout); p.Status != domain.StatusApproved {
		t.Fatalf("payout %+v", p)
	}
	// Still sendable (confirmed: the processor pays owner-1's account).
	yes := true
	if p, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1", ConfirmHandover: &yes}); err != nil || p.Status != domain.StatusProcessing {
		t.Fatalf("sent after the refused move: %+v %v", p, err)
	}
	if len(w.pay.transfers) != 1 {
		t.Fatalf("transfers %+v", w.pay.transfers)
	}
	ts.reconciled(t, w.store)

	// Confirmed, the move voids the transfer not yet claimed and goes on.
	other, err := ts.requestPayout(ownerCtxAt(w.store, "owner-2", 2), payoutArgsOf(w.store, 15000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ts.approvePayout(adminCtx(), &payoutArgs{PayoutID: other, AdminUserID: "admin-1"}); err != nil {
		t.Fatal(err)
	}
	w.pay.refuse = true
	if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: other, AdminUserID: "admin-1"}); apperr.From(err).Details["reason"] != "processor_refused" {
		t.Fatalf("refused: %v", err)
	}
	w.pay.refuse = false
	ts.setStore(catalog.StoreEvent{StoreID: w.store, Name: "Bakery", OwnerUserID: "owner-3", Version: 3})
	p, err := ts.markPayoutAsProcessing(adminCtx(), &processingArgs{PayoutID: other, AdminUserID: "admin-1", ProcessingMethod: "bank_transfer", ConfirmHandover: &yes})
	if err != nil || p.Status != domain.StatusProcessing || !w.pay.voided[other] {
		t.Fatalf("confirmed: %+v %v; voided %v", p, err, w.pay.voided[other])
	}
	ts.reconciled(t, w.store)
}

// payment.transfer_paid, as the payments service confirms it, completes
// the payout (by "processor"; no administrator in its event); a redelivery
// changes nothing; moves by hand were refused while it was pending.
func TestTransferPaidCompletesThePayout(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	w.send(t)
	before := ts.wallet(t, w.store)
	for _, try := range []func() (*Payout, error){
		func() (*Payout, error) {
			return ts.completePayout(adminCtx(), &completeArgs{PayoutID: w.payout, AdminUserID: "admin-1"})
		},
		func() (*Payout, error) {
			return ts.markPayoutAsFailed(adminCtx(), &failArgs{PayoutID: w.payout, AdminUserID: "admin-1", FailureReason: "x", RestoreBalance: ptrTo(true)})
		},
	} {
		if _, err := try(); !apperr.Is(err, apperr.FailedPrecondition) || apperr.From(err).Details["reason"] != domain.ReasonTransferPending {
			t.Fatalf("a move by hand while pending: %v", err)
		}
	}
	// An event the payments service does not confirm (still pending) does nothing.
	w.transferEvent(t, payments.EventTransferPaid, payments.Transfer{PayoutID: w.payout, TransferID: "po_1", Status: "paid", Amount: 14800})
	if doc := ts.payoutDoc(t, w.payout); doc.Status != domain.StatusProcessing {
		t.Fatalf("completed on the event's word: %+v", doc)
	}
	tr := ts.settleTransfer(w.pay, w.payout, payments.TransferPaid)
	w.transferEvent(t, payments.EventTransferPaid, tr)
	doc := ts.payoutDoc(t, w.payout)
	if doc.Status != domain.StatusCompleted || doc.TransactionReference != "po_1" || doc.BalanceRestored {
		t.Fatalf("payout %+v", doc)
	}
	if h := doc.History[len(doc.History)-1]; h.Action != string(domain.MoveComplete) || h.By != domain.ProcessorActor {
		t.Fatalf("history %+v", h)
	}
	after := ts.wallet(t, w.store)
	if after.TotalPayouts != before.TotalPayouts+15000 || after.AvailableBalance != before.AvailableBalance || after.LastPayoutDate == nil {
		t.Fatalf("wallet %+v, before %+v", after, before)
	}
	evs := ts.payoutEvents(t, contract.EventPayoutCompleted)
	if len(evs) != 1 || evs[0].AdminUserID != "" || evs[0].TransactionReference != "po_1" {
		t.Fatalf("payout.completed %+v", evs)
	}
	w.transferEvent(t, payments.EventTransferPaid, tr) // a redelivery
	if n := len(ts.payoutEvents(t, contract.EventPayoutCompleted)); n != 1 {
		t.Fatalf("%d payout.completed", n)
	}
	if _, err := ts.markPayoutAsFailed(adminCtx(), &failArgs{PayoutID: w.payout, AdminUserID: "admin-1", FailureReason: "x"}); err == nil {
		t.Fatal("a completed payout failed by hand")
	}
	ts.reconciled(t, w.store)
}

// payment.transfer_failed fails the payout and restores its amount to the
// available balance, exactly as markPayoutAsFailed with restoreBalance:
// true: the payout's transaction failed, the ledger reconciles.
func TestTransferFailedRestoresTheBalance(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	w.send(t)
	before := ts.wallet(t, w.store)
	tr := ts.settleTransfer(w.pay, w.payout, payments.TransferFailed)
	// The event's figures are not read: a forged amount changes nothing.
	claimed := tr
	claimed.Amount = 999999
	w.transferEvent(t, payments.EventTransferFailed, claimed)
	doc := ts.payoutDoc(t, w.payout)
	if doc.Status != domain.StatusFailed || !doc.BalanceRestored ||
		doc.FailureReason != "the processor could not pay transfer po_1: account_closed (The bank account has been closed)" {
		t.Fatalf("payout %+v", doc)
	}
	after := ts.wallet(t, w.store)
	if after.AvailableBalance != before.AvailableBalance+15000 || after.TotalPayouts != before.TotalPayouts {
		t.Fatalf("wallet %+v, before %+v", after, before)
	}
	if n := ts.count(t, storage.TxColl, bson.M{"type": domain.TxPayout, "status": domain.TxFailed}); n != 1 {
		t.Fatalf("%d failed payout transactions", n)
	}
	if h := doc.History[len(doc.History)-1]; h.By != domain.ProcessorActor || h.RestoreBalance == nil || !*h.RestoreBalance {
		t.Fatalf("history %+v", h)
	}
	w.transferEvent(t, payments.EventTransferFailed, tr) // a redelivery restores nothing more
	if again := ts.wallet(t, w.store); again.AvailableBalance != after.AvailableBalance {
		t.Fatalf("restored twice: %v", again.AvailableBalance)
	}
	ts.reconciled(t, w.store)
}

// The processor's outcome before the move to processing committed (the
// administrator's call broke after the transfer): the consumer makes the
// move itself, then the outcome; calling again answers the settled payout.
func TestTransferSettledWhileTheMoveIsMissing(t *testing.T) {
	for _, outcome := range []string{payments.TransferPaid, payments.TransferFailed} {
		t.Run(outcome, func(t *testing.T) {
			w := newTransferWorld(t)
			ts := w.ts
			w.pay.loseReply = true
			if _, err := ts.sendPayoutThroughProcessor(adminCtx(), &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"}); !apperr.Is(err, apperr.Unavailable) {
				t.Fatal(err)
			}
			w.pay.loseReply = false
			typ := map[string]string{payments.TransferPaid: payments.EventTransferPaid, payments.TransferFailed: payments.EventTransferFailed}[outcome]
			w.transferEvent(t, typ, ts.settleTransfer(w.pay, w.payout, outcome))
			doc := ts.payoutDoc(t, w.payout)
			want := map[string]string{payments.TransferPaid: domain.StatusCompleted, payments.TransferFailed: domain.StatusFailed}[outcome]
			if doc.Status != want || doc.TransferID != "po_1" || doc.ProcessingMethod != "third_party" || doc.TransactionReference != "po_1" {
				t.Fatalf("payout %+v", doc)
			}
			n := len(doc.History)
			if doc.History[n-2].Action != string(domain.MoveProcessing) || doc.History[n-2].By != domain.ProcessorActor {
				t.Fatalf("history %+v", doc.History)
			}
			p := w.send(t)
			if p.Status != want || len(w.pay.created) != 1 {
				t.Fatalf("sent again: %+v; payments asked %d times", p, len(w.pay.created))
			}
			ts.reconciled(t, w.store)
		})
	}
}

// Events the payments service does not back change nothing: no such
// transfer (the event's claims are not read); a transfer payments confirms
// settles the payout even if its ask was not recorded here (only this
// service's createTransfer makes one, for this payout's store and net
// amount); a transfer that disagrees with its payout is the event's error
// (parked for an operator).
func TestTransferEventsNotBackedByPayments(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	w.transferEvent(t, payments.EventTransferPaid, payments.Transfer{PayoutID: w.payout, TransferID: "po_9", StoreID: w.store, Amount: 14800, Status: "paid"})
	if doc := ts.payoutDoc(t, w.payout); doc.Status != domain.StatusApproved {
		t.Fatalf("payout %+v", doc)
	}
	w.transferEvent(t, payments.EventTransferPaid, payments.Transfer{PayoutID: "not-a-payout"})
	w.transferEvent(t, payments.EventTransferPaid, payments.Transfer{PayoutID: ids.New("payouts")})

	// A transfer of another amount than the payout's net.
	w.send(t)
	ts.mu.Lock()
	tr := w.pay.transfers[w.payout]
	tr.Status, tr.Amount = payments.TransferPaid, 100
	w.pay.transfers[w.payout] = tr
	ts.mu.Unlock()
	raw := fmt.Sprintf(`{"payoutId":%q}`, w.payout)
	env := events.Envelope{ID: "evt-disagree", Type: payments.EventTransferPaid, Data: []byte(raw)}
	if err := ts.db.Tx(context.Background(), func(ctx context.Context) error { return ts.onEvent(ctx, env) }); err == nil {
		t.Fatal("a transfer that disagrees with its payout was accepted")
	}
	if doc := ts.payoutDoc(t, w.payout); doc.Status != domain.StatusProcessing {
		t.Fatalf("payout %+v", doc)
	}
}

// The payments service down: a move by hand of a payout sent through the
// processor is UNAVAILABLE (never made on an unconfirmed transfer); the
// consumer's batch waits (a transient error from prepare); payouts moved by
// hand only never ask it.
func TestPaymentsDown(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	w.send(t)
	w.pay.down = true
	if _, err := ts.completePayout(adminCtx(), &completeArgs{PayoutID: w.payout, AdminUserID: "admin-1"}); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("complete by hand while payments is down: %v", err)
	}
	raw := fmt.Sprintf(`{"payoutId":%q}`, w.payout)
	if _, err := ts.prepare(context.Background(), []events.Envelope{{ID: "e1", Type: payments.EventTransferPaid, Data: []byte(raw)}}); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("prepare while payments is down: %v", err)
	}
	asked := w.pay.asked
	other, err := ts.requestPayout(ownerCtxAt(w.store, "owner-1", 1), payoutArgsOf(w.store, 10000))
	if err != nil {
		t.Fatal(err)
	}
	for _, move := range []func() (*Payout, error){
		func() (*Payout, error) {
			return ts.approvePayout(adminCtx(), &payoutArgs{PayoutID: other, AdminUserID: "admin-1"})
		},
		func() (*Payout, error) {
			return ts.markPayoutAsProcessing(adminCtx(), &processingArgs{PayoutID: other, AdminUserID: "admin-1", ProcessingMethod: "manual"})
		},
		func() (*Payout, error) {
			return ts.completePayout(adminCtx(), &completeArgs{PayoutID: other, AdminUserID: "admin-1"})
		},
	} {
		if _, err := move(); err != nil {
			t.Fatalf("a payout moved by hand: %v", err)
		}
	}
	if w.pay.asked != asked {
		t.Fatal("moves by hand of a payout never sent asked the payments service")
	}
	// prepare asks once for a batch.
	w.pay.down = false
	envs := []events.Envelope{{ID: "e1", Type: payments.EventTransferPaid, Data: []byte(raw)}, {ID: "e2", Type: payments.EventTransferFailed, Data: []byte(raw)}}
	if _, err := ts.prepare(context.Background(), envs); err != nil || w.pay.asked != asked+1 {
		t.Fatalf("prepare: %v; asked %d times", err, w.pay.asked-asked)
	}
}

func ptrTo[T any](v T) *T { return &v }

// Inside a keyed call's transaction (DB.Joined, as libs/ops runs a mutation
// with an Idempotency-Key): the ask commits on its own, so a call failing
// after the transfer was asked still leaves moves by hand refused; a call
// that succeeds commits as a whole.
func TestSendInsideAKeyedCall(t *testing.T) {
	w := newTransferWorld(t)
	ts := w.ts
	keyed := func() error {
		return ts.db.Joined(adminCtx(), func(ctx context.Context) error {
			_, err := ts.sendPayoutThroughProcessor(ctx, &sendArgs{PayoutID: w.payout, AdminUserID: "admin-1"})
			return err
		})
	}
	w.pay.loseReply = true
	if err := keyed(); !apperr.Is(err, apperr.Unavailable) {
		t.Fatalf("answer lost: %v", err)
	}
	if doc := ts.payoutDoc(t, w.payout); doc.TransferAskedAt == nil || doc.Status != domain.StatusApproved {
		t.Fatalf("the ask was rolled back with the call: %+v", doc)
	}
	_, err := ts.markPayoutAsFailed(adminCtx(), &failArgs{PayoutID: w.payout, AdminUserID: "admin-1", FailureReason: "x", RestoreBalance: ptrTo(true)})
	if apperr.From(err).Details["reason"] != domain.ReasonTransferPending {
		t.Fatalf("failing by hand: %v", err)
	}
	w.pay.loseReply = false
	if err := keyed(); err != nil {
		t.Fatal(err)
	}
	if doc := ts.payoutDoc(t, w.payout); doc.Status != domain.StatusProcessing || doc.TransferID != "po_1" {
		t.Fatalf("payout %+v", doc)
	}
	ts.reconciled(t, w.store)
}
