package domain

import (
	"fmt"
	"strings"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
)

// Order statuses (platform contract, section 4), as the contract names them.
const (
	StatusPending        = contract.StatusPending
	StatusConfirmed      = contract.StatusConfirmed
	StatusPreparing      = contract.StatusPreparing
	StatusOutForDelivery = contract.StatusOutForDelivery
	StatusDelivered      = contract.StatusDelivered
	StatusCancelled      = contract.StatusCancelled
)

// forward is the delivery path; each status may only move to the next one.
var forward = []string{StatusPending, StatusConfirmed, StatusPreparing, StatusOutForDelivery, StatusDelivered}

// CanMove reports whether an order may go from one status to another: one step
// along the delivery path, or to cancelled from any status before delivered.
func CanMove(from, to string) bool {
	if to == StatusCancelled {
		return from != StatusDelivered && from != StatusCancelled
	}
	for i := 0; i+1 < len(forward); i++ {
		if forward[i] == from {
			return forward[i+1] == to
		}
	}
	return false
}

// NextStatuses are the statuses an order may move to from status, in the
// order of the delivery path, cancelled last; none from delivered or
// cancelled (final).
func NextStatuses(from string) []string {
	next := []string{}
	for _, to := range append(forward[1:], StatusCancelled) {
		if CanMove(from, to) {
			next = append(next, to)
		}
	}
	return next
}

// ReasonStatusNotAllowed is details.reason of a move the status machine
// refuses.
const ReasonStatusNotAllowed = "status_not_allowed"

// IllegalMove is the refusal of a move from one status to another that
// CanMove refuses: the message and details name the statuses allowed from the
// current one, so a caller learns the machine from the answer.
func IllegalMove(from, to string) *apperr.Error {
	next := NextStatuses(from)
	msg := fmt.Sprintf("an order cannot move from %s to %s: ", from, to)
	if len(next) == 0 {
		msg += fmt.Sprintf("%s is final, no status follows it", from)
	} else {
		msg += fmt.Sprintf("from %s it may move to %s (one step at a time along %s, or to cancelled before delivered)",
			from, strings.Join(next, " or "), strings.Join(forward, ", "))
	}
	return apperr.New(apperr.FailedPrecondition, "%s", msg).WithDetails(map[string]any{
		"reason": ReasonStatusNotAllowed, "current": from, "requested": to, "allowed": next,
	})
}
