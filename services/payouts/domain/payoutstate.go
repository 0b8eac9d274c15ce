package domain

import contract "marketplace/libs/contracts/payouts"

// Payout statuses (marketplace-interface section 3.1).
const (
	StatusRequested  = contract.StatusRequested
	StatusApproved   = contract.StatusApproved
	StatusProcessing = contract.StatusProcessing
	StatusCompleted  = contract.StatusCompleted
	StatusCancelled  = contract.StatusCancelled
	StatusFailed     = contract.StatusFailed
)

// Move is a move of a payout: an administrator's, named after its
// operation, or the store's handover (MoveHandover), which no operation
// makes.
type Move string

const (
	MoveApprove    Move = "approvePayout"
	MoveReject     Move = "rejectPayout"
	MoveProcessing Move = "markPayoutAsProcessing"
	MoveComplete   Move = "completePayout"
	MoveFail       Move = "markPayoutAsFailed"
	// MoveHandover cancels a payout still requested when its store is
	// handed to another owner (the catalog's store.updated, as the catalog
	// confirms it): the former owner's request to their bank account is not
	// paid by the new owner's store. It is the payouts service's, on the
	// catalog's word (handover.go).
	MoveHandover Move = "storeHandedOver"
)

// moves is the table of section 3.1, with the handover's cancellation: the
// statuses a move starts from and the one it leads to. Nothing else moves a
// payout.
var moves = map[Move]struct {
	from []string
	to   string
}{
	MoveApprove:    {[]string{StatusRequested}, StatusApproved},
	MoveReject:     {[]string{StatusRequested}, StatusCancelled},
	MoveProcessing: {[]string{StatusApproved}, StatusProcessing},
	MoveComplete:   {[]string{StatusProcessing}, StatusCompleted},
	MoveFail:       {[]string{StatusApproved, StatusProcessing}, StatusFailed},
	MoveHandover:   {[]string{StatusRequested}, StatusCancelled},
}

// ReasonHandedOver is the reason recorded on a payout the handover cancelled
// (its rejectionReason, its event's reason, its history entry's).
const ReasonHandedOver = "store handed over"

// From are the statuses m may start from.
func (m Move) From() []string { return moves[m].from }

// To is the status m leads to.
func (m Move) To() string { return moves[m].to }

// CanMove reports whether m may move a payout in status from.
func CanMove(m Move, from string) bool {
	for _, f := range moves[m].from {
		if f == from {
			return true
		}
	}
	return false
}

// Open reports whether a payout in status still awaits the administrators
// (getPendingPayouts' work queue).
func Open(status string) bool {
	return status == StatusRequested || status == StatusApproved || status == StatusProcessing
}

// StatusOpen is no payout's status: the lists' filter for the open ones
// (OpenStatuses), the queue's "all".
const StatusOpen = "open"

// OpenStatuses are the statuses of open payouts.
var OpenStatuses = []string{StatusRequested, StatusApproved, StatusProcessing}

// RestoresBalance reports whether m returns the requested amount to the
// store's available balance: a rejection and a handover's cancellation
// always, a failure when the administrator asks for it.
func RestoresBalance(m Move, restore bool) bool {
	return m == MoveReject || m == MoveHandover || (m == MoveFail && restore)
}

// TxStatusAfter is the status the payout's wallet transaction takes with m
// ("" leaves it as it is): approval completes it, a rejection cancels it, a
// failure with the balance restored fails it. With Effect, a restored amount
// and the transaction's status always agree.
func TxStatusAfter(m Move, restore bool) string {
	switch {
	case m == MoveApprove:
		return TxCompleted
	case m == MoveReject || m == MoveHandover:
		return TxCancelled
	case m == MoveFail && restore:
		return TxFailed
	}
	return ""
}

// Event is the payout event m publishes: the one its status leads to,
// except a handover's cancellation, which is payout.cancelled, not
// payout.rejected (no administrator rejected it; the former owner and the
// administrators hear of it).
func (m Move) Event() string {
	if m == MoveHandover {
		return contract.EventPayoutCancelled
	}
	return Event(m.To())
}

// Event is the payout event a status leads to.
func Event(status string) string {
	switch status {
	case StatusRequested:
		return contract.EventPayoutRequested
	case StatusApproved:
		return contract.EventPayoutApproved
	case StatusCancelled:
		return contract.EventPayoutRejected
	case StatusProcessing:
		return contract.EventPayoutProcessing
	case StatusCompleted:
		return contract.EventPayoutCompleted
	case StatusFailed:
		return contract.EventPayoutFailed
	}
	return ""
}

// What a store's handover does to each of its payouts whose owner at request
// is not the store's owner any more (docs/adr/0065-store-handover-settles-payouts.md).
type HandoverAction int

const (
	HandoverNone   HandoverAction = iota // final: nothing to do
	HandoverCancel                       // requested: cancelled (MoveHandover), the amount back to available
	HandoverFlag                         // approved or processing: flagged (handedOverAt); paying on needs a confirmation
)

// OnHandover is what a handover does to a payout in status.
func OnHandover(status string) HandoverAction {
	switch {
	case CanMove(MoveHandover, status):
		return HandoverCancel
	case Open(status):
		return HandoverFlag
	}
	return HandoverNone
}

// PaysOut reports whether m takes a payout on towards its bank account
// (approve, mark processing, complete): the moves that need the
// administrator's confirmation on a handed-over payout. Rejecting and
// failing it never do.
func PaysOut(m Move) bool {
	return m == MoveApprove || m == MoveProcessing || m == MoveComplete
}

// HandedOver reports whether a payout that ownerAtRequest requested is of a
// store handed over since: the payout is flagged (handedOverAt), or the
// store's owner now (as the catalog answers; "" when it has no such store)
// is another user.
func HandedOver(ownerAtRequest, ownerNow string, flagged bool) bool {
	return flagged || ownerNow != ownerAtRequest
}

// HandedOverSinceCheck reports whether a store whose owner an access check
// read as checkedOwner at the catalog's version checkedVersion has been
// handed over since, as the wallet's copy (walletOwner at walletVersion, both
// recorded from the catalog's answers) tells: the copy is newer than the
// check and names another owner. A check without a version (0: an older
// catalog) or a copy without an owner tells nothing.
func HandedOverSinceCheck(checkedOwner string, checkedVersion int64, walletOwner string, walletVersion int64) bool {
	return checkedVersion > 0 && walletVersion > checkedVersion && walletOwner != "" && walletOwner != checkedOwner
}
