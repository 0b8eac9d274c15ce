package e2e

// Payouts through the processor (docs/adr/0150-payouts-through-the-processor.md),
// black-box through the gateway and the all-in-one's processor simulator:
// sendPayoutThroughProcessor asks the payments service for the transfer
// (POST /v1/payouts at the simulator), the simulator's payout.paid or
// payout.failed webhook settles it, and the payouts service completes the
// payout, or fails it with its amount restored.

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/ops"
)

const opSendThroughProcessor = "admins.payoutOperations.sendPayoutThroughProcessor"

// simPayout is the simulator's payout as GET /v1/payouts/{id} answers it.
type simPayout struct {
	ID       string            `json:"id"`
	Amount   int64             `json:"amount"`
	Currency string            `json:"currency"`
	Status   string            `json:"status"`
	Metadata map[string]string `json:"metadata"`
}

func simulatorPayout(t *testing.T, s *st.Sys, id string) simPayout {
	t.Helper()
	r := st.MustOK(t, s.DoAt(s.ProcessorURL, "GET", "/v1/payouts/"+id, nil, map[string]string{"Authorization": "Bearer " + s.ProcessorKey}))
	var p simPayout
	r.Decode(t, &p)
	return p
}

// simulatorControl tells the simulator what to do with the next matching
// webhook deliveries (POST /simulator/controls).
func simulatorControl(t *testing.T, s *st.Sys, v url.Values) {
	t.Helper()
	st.MustOK(t, s.DoAt(s.ProcessorURL, "POST", "/simulator/controls", strings.NewReader(v.Encode()),
		map[string]string{"Authorization": "Bearer " + s.ProcessorKey, "Content-Type": "application/x-www-form-urlencoded"}))
}

// processorPayoutWorld: a store with 500 AED available and an approved
// payout of 150 AED (processing fee 2 AED: 148 AED sent).
func processorPayoutWorld(t *testing.T) (*payoutsWorld, string) {
	t.Helper()
	s := st.Start(t)
	if s.ProcessorURL == "" || s.ProcessorKey == "" {
		t.Fatal("the all-in-one runs no processor simulator")
	}
	w := newPayoutsWorld(t, s, true)
	w.credit(t, w.store, w.wallet, 500)
	payout := okID(t, w.request(w.owner, w.store, 150))
	st.MustOK(t, w.move(opApprove, payout))
	return w, payout
}

// sendAndCheck sends the payout and checks what the processor received.
func sendAndCheck(t *testing.T, w *payoutsWorld, payout string) payoutView {
	t.Helper()
	p := okAs[payoutView](t, w.move(opSendThroughProcessor, payout))
	if p.Status != "processing" || p.ProcessingMethod == nil || *p.ProcessingMethod != "third_party" ||
		p.TransactionReference == nil || !strings.HasPrefix(*p.TransactionReference, "po_") {
		t.Fatalf("sent: %+v", p)
	}
	sp := simulatorPayout(t, w.s, *p.TransactionReference)
	if sp.Amount != 148_00 || sp.Currency != "aed" || sp.Metadata["payoutId"] != payout || sp.Metadata["storeId"] != w.store ||
		sp.Metadata["iban"] != validIBAN || sp.Metadata["accountHolderName"] != "Sara Al Marri" {
		t.Fatalf("the processor holds %+v", sp)
	}
	return p
}

func TestPayoutThroughTheProcessorPaid(t *testing.T) {
	w, payout := processorPayoutWorld(t)
	// The webhook waits 3 s: meanwhile the transfer is pending.
	simulatorControl(t, w.s, url.Values{"type": {"payout.*"}, "action": {"delay"}, "delayMs": {"3000"}})
	p := sendAndCheck(t, w, payout)
	ref := *p.TransactionReference
	for _, r := range []st.Result{w.move(opComplete, payout), w.move(opFail, payout, "failureReason", "f", "restoreBalance", true)} {
		expectError(t, r, "FAILED_PRECONDITION", "pending")
		if reason := errorReason(t, r); reason != "processor_transfer_pending" {
			t.Fatalf("reason %q", reason)
		}
	}
	// Sending again sends nothing more.
	if again := okAs[payoutView](t, w.move(opSendThroughProcessor, payout)); *again.TransactionReference != ref {
		t.Fatalf("sent again: %+v", again)
	}
	eventually(t, "the payout completed by the processor's payout.paid", func() bool { return w.payout(t, payout).Status == "completed" })
	done := w.payout(t, payout)
	last := done.History[len(done.History)-1]
	if *done.TransactionReference != ref || done.BalanceRestored || last.Action != "completePayout" || last.By != "processor" {
		t.Fatalf("completed: %+v", done)
	}
	if sp := simulatorPayout(t, w.s, ref); sp.Status != "paid" {
		t.Fatalf("the processor's payout %+v", sp)
	}
	wallet := w.getWallet(t, w.owner, w.store)
	if wallet.TotalPayouts != 150 || wallet.AvailableBalance != 350 || wallet.LastPayoutDate == nil {
		t.Fatalf("wallet %+v", wallet)
	}
	w.reconciled(t, w.store)
}

func TestPayoutThroughTheProcessorFailed(t *testing.T) {
	w, payout := processorPayoutWorld(t)
	simulatorControl(t, w.s, url.Values{"type": {"payout.*"}, "action": {"fail"}, "failureCode": {"account_closed"}})
	p := sendAndCheck(t, w, payout)
	ref := *p.TransactionReference
	eventually(t, "the payout failed by the processor's payout.failed", func() bool { return w.payout(t, payout).Status == "failed" })
	failed := w.payout(t, payout)
	last := failed.History[len(failed.History)-1]
	if !failed.BalanceRestored || failed.FailureReason == nil || !strings.Contains(*failed.FailureReason, "account_closed") ||
		last.By != "processor" || last.RestoreBalance == nil || !*last.RestoreBalance {
		t.Fatalf("failed: %+v", failed)
	}
	if sp := simulatorPayout(t, w.s, ref); sp.Status != "failed" {
		t.Fatalf("the processor's payout %+v", sp)
	}
	wallet := w.getWallet(t, w.owner, w.store)
	if wallet.TotalPayouts != 0 || wallet.AvailableBalance != 500 {
		t.Fatalf("wallet %+v: the amount is not restored", wallet)
	}
	payoutTx := txOf(w.transactions(t, w.owner, w.store), "payout")
	if len(payoutTx) != 1 || payoutTx[0].Status != "failed" {
		t.Fatalf("payout transactions %+v", payoutTx)
	}
	w.reconciled(t, w.store)
	// Sending it again answers it as it is: no second transfer.
	if again := okAs[payoutView](t, w.move(opSendThroughProcessor, payout)); again.Status != "failed" || *again.TransactionReference != ref {
		t.Fatalf("sent again: %+v", again)
	}
}

// callHold stands between the services and one service: it forwards every
// call to it, except the first of the operation match, which it holds until
// released (a call in transit, made to wait: a race made deterministic).
type callHold struct {
	service, match string
	held           chan struct{} // closed when a matching call arrived
	release        chan struct{} // closed to let it go
	once           sync.Once     // only the first matching call is held
}

func newCallHold(service, match string) *callHold {
	return &callHold{service: service, match: match, held: make(chan struct{}), release: make(chan struct{})}
}

// wrap is the services' discovery with the service's calls sent through
// the hold.
func (h *callHold) wrap(t *testing.T) func(ops.Resolver) ops.Resolver {
	return func(inner ops.Resolver) ops.Resolver {
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			if strings.Contains(string(body), `"path":"`+h.match+`"`) {
				h.once.Do(func() {
					close(h.held)
					<-h.release
				})
			}
			base, err := inner.Resolve(r.Context(), h.service)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			target, _ := url.Parse(base)
			httputil.NewSingleHostReverseProxy(target).ServeHTTP(w, r)
		}))
		t.Cleanup(proxy.Close)
		return resolverFunc(func(ctx context.Context, svc string) (string, error) {
			if svc == h.service {
				return proxy.URL, nil
			}
			return inner.Resolve(ctx, svc)
		})
	}
}

// A move by hand racing sendPayoutThroughProcessor: the ask is recorded,
// and the call for the transfer is held on its way to the payments service;
// meanwhile an administrator fails the payout restoring its balance. The
// move has payments void the transfer first, so the call, let go, is
// refused (transfer_voided): nothing reaches the processor, and the balance
// is restored once.
func TestPayoutMovedByHandWhileItsTransferIsOnItsWay(t *testing.T) {
	hold := newCallHold("payments", "payments.transfers.createTransfer")
	s := st.Start(t, st.WithServiceResolver(hold.wrap(t)))
	w := newPayoutsWorld(t, s, true)
	w.credit(t, w.store, w.wallet, 500)
	payout := okID(t, w.request(w.owner, w.store, 150))
	st.MustOK(t, w.move(opApprove, payout))
	sent := make(chan st.Result, 1)
	go func() { sent <- w.move(opSendThroughProcessor, payout) }()
	select {
	case <-hold.held:
	case <-time.After(30 * time.Second):
		t.Fatal("the transfer was never asked of the payments service")
	}
	failed := okAs[payoutView](t, w.move(opFail, payout, "failureReason", "bank details wrong", "restoreBalance", true))
	if failed.Status != "failed" || !failed.BalanceRestored {
		t.Fatalf("failed by hand: %+v", failed)
	}
	close(hold.release)
	r := <-sent
	expectError(t, r, "FAILED_PRECONDITION", "moved by hand")
	if reason := errorReason(t, r); reason != "transfer_voided" {
		t.Fatalf("reason %q", reason)
	}
	var ds struct {
		Data []map[string]any `json:"data"`
	}
	st.MustOK(t, s.DoAt(s.ProcessorURL, "GET", "/simulator/deliveries?type=payout.paid", nil,
		map[string]string{"Authorization": "Bearer " + s.ProcessorKey})).Decode(t, &ds)
	if len(ds.Data) != 0 {
		t.Fatalf("the processor made a payout: %v", ds.Data)
	}
	// Sending again is refused by the payout's status; nothing is sent.
	expectError(t, w.move(opSendThroughProcessor, payout), "FAILED_PRECONDITION")
	p := w.payout(t, payout)
	if p.Status != "failed" || !p.BalanceRestored || p.TransactionReference != nil && *p.TransactionReference != "" {
		t.Fatalf("payout %+v", p)
	}
	wallet := w.getWallet(t, w.owner, w.store)
	if wallet.AvailableBalance != 500 || wallet.TotalPayouts != 0 {
		t.Fatalf("wallet %+v: want 500.00 available, restored once", wallet)
	}
	if payoutTx := txOf(w.transactions(t, w.owner, w.store), "payout"); len(payoutTx) != 1 || payoutTx[0].Status != "failed" {
		t.Fatalf("payout transactions %+v", payoutTx)
	}
	w.reconciled(t, w.store)
}
