package domain

import (
	"reflect"
	"testing"

	"marketplace/libs/apperr"
)

func transferReason(err error) any { return apperr.From(err).Details["reason"] }

// TestProcessorMoves: the whole table of transfer.go.
func TestProcessorMoves(t *testing.T) {
	cases := []struct {
		status, transfer string
		moves            []Move
		verdict          TransferVerdict
	}{
		{StatusApproved, TransferPaid, []Move{MoveProcessing, MoveComplete}, TransferApply},
		{StatusProcessing, TransferPaid, []Move{MoveComplete}, TransferApply},
		{StatusCompleted, TransferPaid, nil, TransferDone},
		{StatusFailed, TransferPaid, nil, TransferConflict},
		{StatusRequested, TransferPaid, nil, TransferConflict},
		{StatusCancelled, TransferPaid, nil, TransferConflict},
		{StatusApproved, TransferFailed, []Move{MoveProcessing, MoveFail}, TransferApply},
		{StatusProcessing, TransferFailed, []Move{MoveFail}, TransferApply},
		{StatusFailed, TransferFailed, nil, TransferDone},
		{StatusCompleted, TransferFailed, nil, TransferConflict},
		{StatusRequested, TransferFailed, nil, TransferConflict},
		{StatusCancelled, TransferFailed, nil, TransferConflict},
	}
	for _, status := range allStatuses {
		cases = append(cases, struct {
			status, transfer string
			moves            []Move
			verdict          TransferVerdict
		}{status, TransferPending, nil, TransferWait})
	}
	for _, c := range cases {
		moves, verdict := ProcessorMoves(c.status, c.transfer)
		if !reflect.DeepEqual(moves, c.moves) || verdict != c.verdict {
			t.Errorf("ProcessorMoves(%s, %s) = %v %d, want %v %d", c.status, c.transfer, moves, verdict, c.moves, c.verdict)
		}
		// Each move the table makes is one the payout's status allows, in
		// order.
		status := c.status
		for _, m := range moves {
			if !CanMove(m, status) {
				t.Errorf("ProcessorMoves(%s, %s): %s cannot move a %s payout", c.status, c.transfer, m, status)
			}
			status = m.To()
		}
	}
}

// The processor's moves: method third_party and the transfer as reference;
// a failure restores the balance; none asks who owns the store (the money
// left on the administrator's word, checked when it was asked).
func TestProcessorMoveApplies(t *testing.T) {
	p := payoutIn(StatusApproved)
	asked := int64(500)
	p.TransferAskedAt = &asked
	p.HandedOverAt = &asked // handed over: a move by hand would need a confirmation
	for _, m := range []Move{MoveProcessing, MoveFail} {
		if _, err := p.Apply(ProcessorMove(m, "po_1", "account_closed (closed)"), 1000); err != nil {
			t.Fatalf("%s: %v", m, err)
		}
	}
	if p.Status != StatusFailed || !p.BalanceRestored || p.ProcessingMethod != MethodThirdParty || p.TransactionReference != "po_1" || p.TransferID != "po_1" ||
		p.FailureReason != "the processor could not pay transfer po_1: account_closed (closed)" {
		t.Fatalf("payout %+v", p)
	}
	for _, h := range p.History[1:] {
		if h.By != ProcessorActor || h.HandoverConfirmed != nil {
			t.Fatalf("history %+v", h)
		}
	}
	if h := p.History[len(p.History)-1]; h.RestoreBalance == nil || !*h.RestoreBalance {
		t.Fatalf("the failure does not restore: %+v", h)
	}
	if !RestoresBalance(MoveFail, ProcessorMove(MoveFail, "po_1", "").Restore) || TxStatusAfter(MoveFail, ProcessorMove(MoveFail, "po_1", "").Restore) != TxFailed {
		t.Fatal("the processor's failure must restore the balance as restoreBalance: true does")
	}
	c := payoutIn(StatusProcessing)
	c.TransferAskedAt, c.TransferID = &asked, "po_1"
	if _, err := c.Apply(ProcessorMove(MoveComplete, "po_1", ""), 1000); err != nil || c.Status != StatusCompleted || c.TransactionReference != "po_1" {
		t.Fatalf("complete: %v %+v", err, c)
	}
	// Another transfer than the one recorded is refused.
	o := payoutIn(StatusProcessing)
	o.TransferAskedAt, o.TransferID = &asked, "po_1"
	if _, err := o.Apply(ProcessorMove(MoveComplete, "po_2", ""), 1000); transferReason(err) != "payout_transfer" || o.Status != StatusProcessing {
		t.Fatalf("another transfer: %v", err)
	}
}

// AskTransfer: only an approved payout is sent (again after a failure to
// reach the processor); one that records its transfer is answered as it is;
// a store handed over needs the confirmation; the first ask is recorded
// once.
func TestAskTransfer(t *testing.T) {
	send := MoveArgs{Move: MoveProcessing, AdminID: "admin", AdminName: "Mariam", Method: ptr(MethodThirdParty), OwnerNow: "u1", OwnerAsked: true}
	for _, status := range allStatuses {
		p := payoutIn(status)
		ok, err := p.AskTransfer(send, 1000)
		if status == StatusApproved {
			if !ok || err != nil || p.TransferAskedAt == nil || *p.TransferAskedAt != 1000 || len(p.History) != 2 ||
				p.History[1].Action != ActionSendThroughProcessor || p.History[1].By != "admin" || p.History[1].ByName != "Mariam" || p.Status != StatusApproved {
				t.Fatalf("approved: %v %v %+v", ok, err, p)
			}
			if ok, err := p.AskTransfer(send, 2000); !ok || err != nil || *p.TransferAskedAt != 1000 || len(p.History) != 2 {
				t.Fatalf("asked again: %v %v %+v", ok, err, p)
			}
			continue
		}
		if ok || transferReason(err) != "payout_status" || p.TransferAskedAt != nil {
			t.Errorf("%s: %v %v", status, ok, err)
		}
	}
	sent := payoutIn(StatusCompleted)
	sent.TransferID = "po_1"
	if ok, err := sent.AskTransfer(send, 1000); ok || err != nil {
		t.Fatalf("sent before: %v %v", ok, err)
	}
	other := send
	other.OwnerNow = "u2"
	p := payoutIn(StatusApproved)
	if ok, err := p.AskTransfer(other, 1000); ok || transferReason(err) != "store_handed_over" || p.TransferAskedAt != nil {
		t.Fatalf("handed over: %v %v", ok, err)
	}
	other.ConfirmHandover = true
	if ok, err := p.AskTransfer(other, 1000); !ok || err != nil || p.HandedOverAt == nil || p.History[1].HandoverConfirmed == nil {
		t.Fatalf("handed over, confirmed: %v %v %+v", ok, err, p)
	}
	unasked := send
	unasked.OwnerAsked = false
	if ok, err := payoutIn(StatusApproved).AskTransfer(unasked, 1000); ok || transferReason(err) != "payout_status" {
		t.Fatalf("owner not asked: %v %v", ok, err)
	}
}

// A move by hand of a payout sent through the processor is refused while
// the payments service has its transfer; allowed when it has none (the
// processor refused it); a payout never sent is moved as before, nothing
// asked.
func TestMovesByHandOfAPayoutSentThroughTheProcessor(t *testing.T) {
	asked := int64(500)
	cases := []struct {
		name     string
		sent     bool
		asked    bool
		transfer string
		reason   string // "" allowed
	}{
		{"never sent", false, false, "", ""},
		{"sent, no transfer (refused by the processor)", true, true, TransferNone, ""},
		{"sent, pending", true, true, TransferPending, ReasonTransferPending},
		{"sent, paid", true, true, TransferPaid, ReasonTransferSettled},
		{"sent, failed", true, true, TransferFailed, ReasonTransferSettled},
		{"sent meanwhile (not asked)", true, false, "", "payout_status"},
	}
	for _, c := range cases {
		for _, tc := range []struct {
			m      Move
			status string
		}{{MoveProcessing, StatusApproved}, {MoveComplete, StatusProcessing}, {MoveFail, StatusApproved}, {MoveFail, StatusProcessing}} {
			p := payoutIn(tc.status)
			if c.sent {
				p.TransferAskedAt = &asked
			}
			a := argsFor(tc.m)
			a.Restore = true
			a.TransferStatus, a.TransferAsked = c.transfer, c.asked
			before := *p
			_, err := p.Apply(a, 1000)
			if c.reason == "" {
				if err != nil {
					t.Errorf("%s: %s from %s: %v", c.name, tc.m, tc.status, err)
				}
				continue
			}
			if !apperr.Is(err, apperr.FailedPrecondition) || transferReason(err) != c.reason || !reflect.DeepEqual(*p, before) {
				t.Errorf("%s: %s from %s: %v, want %s and nothing changed", c.name, tc.m, tc.status, err, c.reason)
			}
		}
	}
	// Approving and rejecting never meet a transfer: not asked.
	p := payoutIn(StatusRequested)
	if _, err := p.Apply(argsFor(MoveApprove), 1000); err != nil {
		t.Fatal(err)
	}
}
