package payouts

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

// Move is an administrator's move of a payout, named after its operation.
type Move string

const (
	MoveApprove    Move = "approvePayout"
	MoveReject     Move = "rejectPayout"
	MoveProcessing Move = "markPayoutAsProcessing"
	MoveComplete   Move = "completePayout"
	MoveFail       Move = "markPayoutAsFailed"
)

// moves is the table of section 3.1: the statuses a move starts from and the
// one it leads to. Nothing else moves a payout.
var moves = map[Move]struct {
	from []string
	to   string
}{
	MoveApprove:    {[]string{StatusRequested}, StatusApproved},
	MoveReject:     {[]string{StatusRequested}, StatusCancelled},
	MoveProcessing: {[]string{StatusApproved}, StatusProcessing},
	MoveComplete:   {[]string{StatusProcessing}, StatusCompleted},
	MoveFail:       {[]string{StatusApproved, StatusProcessing}, StatusFailed},
}

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

// OpenStatuses are the statuses of open payouts.
var OpenStatuses = []string{StatusRequested, StatusApproved, StatusProcessing}

// RestoresBalance reports whether m returns the requested amount to the
// store's available balance: a rejection always, a failure when the
// administrator asks for it.
func RestoresBalance(m Move, restore bool) bool {
	return m == MoveReject || (m == MoveFail && restore)
}

// TxStatusAfter is the status the payout's wallet transaction takes with m
// ("" leaves it as it is): approval completes it, a rejection cancels it, a
// failure with the balance restored fails it. With Effect, a restored amount
// and the transaction's status always agree.
func TxStatusAfter(m Move, restore bool) string {
	switch {
	case m == MoveApprove:
		return TxCompleted
	case m == MoveReject:
		return TxCancelled
	case m == MoveFail && restore:
		return TxFailed
	}
	return ""
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
