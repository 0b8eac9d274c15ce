package e2e

// Payouts through the processor (docs/adr/0150-payouts-through-the-processor.md),
// black-box through the gateway and the all-in-one's processor simulator:
// sendPayoutThroughProcessor asks the payments service for the transfer
// (POST /v1/payouts at the simulator), the simulator's payout.paid or
// payout.failed webhook settles it, and the payouts service completes the
// payout, or fails it with its amount restored.

import (
	"net/url"
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
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
