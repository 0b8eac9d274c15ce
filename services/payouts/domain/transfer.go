package domain

// Payouts through the processor (docs/adr/0150-payouts-through-the-processor.md).
//
// admins.payoutOperations.sendPayoutThroughProcessor takes an approved
// payout to the processor in three steps: it records that the transfer is
// asked (AskTransfer: TransferAskedAt, once), asks the payments service for
// the transfer (once per payout there: a call again answers the same one),
// then moves the payout to processing, method third_party, the transfer's
// id as its reference and TransferID. The processor's outcome, as the
// payments service confirms it, completes the payout or fails it with its
// amount restored (ProcessorMoves, by ProcessorActor).
//
// While a payout sent through the processor has a transfer the payments
// service knows of, an administrator's move of it by hand (mark processing,
// complete, mark failed) is refused (checkByHand): a failure restoring the
// balance and a transfer that is then paid would pay the store twice, and a
// completion by hand would record money the processor may not pay. A payout
// whose transfer the processor refused (the payments service has none) is
// moved by hand as any other; so is one whose transfer the payments service
// voided for the move, before it was sent (it is then never sent).

import (
	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payouts"
)

// ProcessorActor is the history's "by" of the moves the processor's outcome
// makes.
const ProcessorActor = "processor"

// MethodThirdParty is the processing method of a payout sent through the
// processor.
const MethodThirdParty = contract.MethodThirdParty

// Statuses of a transfer as the payments service answers them ("" when it
// has none).
const (
	TransferNone    = ""
	TransferPending = "pending"
	TransferPaid    = "paid"
	TransferFailed  = "failed"
	// TransferVoided: the payments service voided the transfer before it
	// was sent (a move by hand asked it to): it never will be.
	TransferVoided = "voided"
)

// Reasons (details.reason) of the refusals of moves by hand.
const (
	ReasonTransferPending = "processor_transfer_pending"
	ReasonTransferSettled = "processor_transfer_settled"
)

// AskTransfer is an administrator's sendPayoutThroughProcessor on p at now
// (m: the move to processing it leads to): send is true when the processor
// is to be asked (an approved payout; again after a failure: the same
// transfer is answered), false when the payout already records its transfer
// (answered as it is). Any other payout is refused (payout_status); an
// approved payout of a store handed over since its request needs
// confirmHandover, as markPayoutAsProcessing does. The first ask is
// recorded (TransferAskedAt, a history entry).
func (p *Payout) AskTransfer(m MoveArgs, now int64) (send bool, err error) {
	if p.TransferID != "" {
		return false, nil
	}
	if p.Status != StatusApproved {
		return false, Refusal(MoveProcessing, p.ID, p.Status)
	}
	confirmed, err := p.checkOwner(m, now)
	if err != nil {
		return false, err
	}
	if p.TransferAskedAt == nil {
		p.TransferAskedAt, p.UpdatedAt = &now, now
		method := MethodThirdParty
		h := HistoryEntry{Action: ActionSendThroughProcessor, From: p.Status, To: p.Status, By: m.AdminID, ByName: m.AdminName, At: now, Notes: m.Notes, Method: &method}
		if confirmed {
			h.HandoverConfirmed = &confirmed
		}
		p.History = append(p.History, h)
	}
	return true, nil
}

// ActionSendThroughProcessor is the history's action of the first ask.
const ActionSendThroughProcessor = "sendPayoutThroughProcessor"

// checkByHand refuses a move by hand (mark processing, complete, mark
// failed) of a payout sent through the processor whose transfer the
// payments service claimed to send (m.TransferStatus, as it answered the
// void just before the move): pending, or settled (its outcome settles the
// payout). A transfer voided (or none: an older answer) lets it go on.
func (p *Payout) checkByHand(m MoveArgs) error {
	if p.TransferAskedAt == nil || !ByHandChecked(m.Move) {
		return nil
	}
	if !m.TransferAsked { // sent meanwhile: the payments service was not asked
		return ChangedMeanwhile(p.ID)
	}
	details := map[string]any{"transferStatus": m.TransferStatus}
	switch m.TransferStatus {
	case TransferNone, TransferVoided:
		return nil
	case TransferPending:
		details["reason"] = ReasonTransferPending
		return apperr.New(apperr.FailedPrecondition,
			"payout %s was sent through the processor and its transfer is pending: the processor's outcome completes or fails it (failing it by hand could pay the store twice)", p.ID).
			WithDetails(details)
	}
	details["reason"] = ReasonTransferSettled
	return apperr.New(apperr.FailedPrecondition,
		"payout %s was sent through the processor and its transfer is %s: the processor's outcome settles the payout", p.ID, m.TransferStatus).
		WithDetails(details)
}

// ByHandChecked reports the moves by hand that a transfer through the
// processor forbids (checkByHand): those that would pay the payout, or
// settle it, besides the processor.
func ByHandChecked(m Move) bool {
	return m == MoveProcessing || m == MoveComplete || m == MoveFail
}

// OtherTransfer answers a move recording a transfer other than the one the
// payout records.
func OtherTransfer(p *Payout, transferID string) error {
	return apperr.New(apperr.FailedPrecondition, "payout %s records transfer %s, not %s", p.ID, p.TransferID, transferID).
		WithDetails(map[string]any{"reason": "payout_transfer", "transferId": p.TransferID})
}

// TransferVerdict is what a transfer's outcome does to its payout.
type TransferVerdict int

const (
	TransferApply    TransferVerdict = iota // make the moves
	TransferWait                            // the transfer is pending: nothing yet
	TransferDone                            // the payout is settled as the transfer: nothing to do
	TransferConflict                        // the payout is settled otherwise: nothing done, an operator's case
)

// ProcessorMoves are the moves the transfer's status (as the payments
// service answers it) makes of a payout in status:
//
//	payout \ transfer   pending   paid                   failed
//	approved            wait      processing, complete   processing, fail (restored)
//	processing          wait      complete               fail (restored)
//	completed           wait      done                   conflict (paid, then returned)
//	failed              wait      conflict               done
//	other               wait      conflict               conflict
//
// An approved payout is one whose move to processing did not commit yet (the
// processor answered before it, or the administrator's call broke after the
// transfer): the processor's outcome makes it.
func ProcessorMoves(status, transfer string) ([]Move, TransferVerdict) {
	switch transfer {
	case TransferPaid:
		switch status {
		case StatusApproved:
			return []Move{MoveProcessing, MoveComplete}, TransferApply
		case StatusProcessing:
			return []Move{MoveComplete}, TransferApply
		case StatusCompleted:
			return nil, TransferDone
		}
		return nil, TransferConflict
	case TransferFailed:
		switch status {
		case StatusApproved:
			return []Move{MoveProcessing, MoveFail}, TransferApply
		case StatusProcessing:
			return []Move{MoveFail}, TransferApply
		case StatusFailed:
			return nil, TransferDone
		}
		return nil, TransferConflict
	}
	return nil, TransferWait
}

// ProcessorMove is the move m of ProcessorMoves as the processor makes it:
// method third_party and the transfer as reference for processing and
// completion; a failure restores the balance (the interface's
// restoreBalance: true), with the processor's reason.
func ProcessorMove(m Move, transferID, failure string) MoveArgs {
	ref := transferID
	a := MoveArgs{Move: m, AdminID: ProcessorActor, TransferID: transferID}
	switch m {
	case MoveProcessing:
		method := MethodThirdParty
		a.Method, a.Ref = &method, &ref
	case MoveComplete:
		a.Ref = &ref
	case MoveFail:
		reason := "the processor could not pay transfer " + transferID
		if failure != "" {
			reason += ": " + failure
		}
		a.Reason, a.Restore = &reason, true
	}
	return a
}
