package customers

import contract "marketplace/libs/contracts/customers"

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
