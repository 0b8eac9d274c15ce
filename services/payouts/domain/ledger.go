package domain

import (
	"fmt"

	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/money"
)

// The ledger: every change of a wallet's balances is a wallet transaction
// written in the same database transaction as the change (or, for the one
// adjustment the interface records no transaction for, an entry of the
// adjustments journal), so the balances can always be recomputed from it.
// Effect is the whole arithmetic; Recompute applies it.

// Wallet transaction types. bonus and penalty are the interface's; the others
// are ours.
const (
	TxEarning       = "earning"        // an order's earnings, into pending (held)
	TxRelease       = "release"        // held earnings moved from pending to available
	TxPayout        = "payout"         // a payout request, out of available
	TxBonus         = "bonus"          // add_balance
	TxPenalty       = "penalty"        // deduct_balance
	TxPendingCredit = "pending_credit" // add_pending
	TxPendingDebit  = "pending_debit"  // deduct_pending

	// The money after the order (docs/adr/0147): refunds and disputes.
	TxRefundHeld      = "refund_held"       // a refund's store share taken from the order's held earning (pending)
	TxRefund          = "refund"            // a refund's store share taken from available (may make it negative: a debt)
	TxDisputeHoldHeld = "dispute_hold_held" // a dispute's store share moved from the held earning (pending) into disputed
	TxDisputeHold     = "dispute_hold"      // a dispute's store share moved from available into disputed
	TxDisputeRelease  = "dispute_release"   // a won dispute's share back from disputed to available
	TxDisputeReturn   = "dispute_return"    // a won dispute's share back from disputed to the held earning (pending)
	TxDisputeLoss     = "dispute_loss"      // a lost dispute's share debited from disputed
	TxDisputeFee      = "dispute_fee"       // a lost dispute's fee charged to the store, out of available
)

// Wallet transaction statuses. completed, cancelled and failed are the
// interface's; pending is a payout awaiting approval or an earning still held.
const (
	TxPending   = "pending"
	TxCompleted = "completed"
	TxCancelled = "cancelled"
	TxFailed    = "failed"
)

// Balances are a wallet's three balances, or a change of them. Available may
// be negative (a debt: refunds and disputes after the earning was released,
// docs/adr/0147); pending and disputed never are.
type Balances struct {
	Available money.Fils `bson:"available"`
	Pending   money.Fils `bson:"pending"`
	Disputed  money.Fils `bson:"disputed"`
}

// Plus is b changed by d.
func (b Balances) Plus(d Balances) Balances {
	return Balances{Available: b.Available + d.Available, Pending: b.Pending + d.Pending, Disputed: b.Disputed + d.Disputed}
}

// Neg is -b.
func (b Balances) Neg() Balances {
	return Balances{Available: -b.Available, Pending: -b.Pending, Disputed: -b.Disputed}
}

// Sum is available + pending + disputed: a statement's balance.
func (b Balances) Sum() money.Fils { return b.Available + b.Pending + b.Disputed }

// Valid reports whether pending and disputed are not negative (available
// may be: a debt).
func (b Balances) Valid() bool { return b.Pending >= 0 && b.Disputed >= 0 }

// Effect is what one wallet transaction of type typ in status does to the
// balances. A cancelled or failed transaction counts for nothing (its amount
// went back when it got that status); every other status counts in full:
//
//	earning         pending   +amount   (held, then released by a release)
//	release         pending   -amount, available +amount
//	payout          available -amount   (pending and completed alike)
//	bonus           available +amount
//	penalty         available -amount
//	pending_credit  pending   +amount
//	pending_debit   pending   -amount
//
// and those of the money after the order (docs/adr/0147):
//
//	refund_held        pending   -amount
//	refund             available -amount   (may make it negative)
//	dispute_hold_held  pending   -amount, disputed +amount
//	dispute_hold       available -amount, disputed +amount
//	dispute_release    disputed  -amount, available +amount
//	dispute_return     disputed  -amount, pending +amount (to the held earning)
//	dispute_loss       disputed  -amount
//	dispute_fee        available -amount
func Effect(typ, status string, amount money.Fils) Balances {
	if status == TxCancelled || status == TxFailed {
		return Balances{}
	}
	switch typ {
	case TxEarning, TxPendingCredit:
		return Balances{Pending: amount}
	case TxPendingDebit:
		return Balances{Pending: -amount}
	case TxRelease:
		return Balances{Available: amount, Pending: -amount}
	case TxBonus:
		return Balances{Available: amount}
	case TxPayout, TxPenalty:
		return Balances{Available: -amount}
	case TxRefundHeld:
		return Balances{Pending: -amount}
	case TxRefund, TxDisputeFee:
		return Balances{Available: -amount}
	case TxDisputeHoldHeld:
		return Balances{Pending: -amount, Disputed: amount}
	case TxDisputeHold:
		return Balances{Available: -amount, Disputed: amount}
	case TxDisputeRelease:
		return Balances{Disputed: -amount, Available: amount}
	case TxDisputeReturn:
		return Balances{Disputed: -amount, Pending: amount}
	case TxDisputeLoss:
		return Balances{Disputed: -amount}
	}
	return Balances{}
}

// MoveEffect is a move_pending_to_available adjustment: no wallet transaction
// (the interface records none, the store's total is unchanged), but an entry
// of the adjustments journal, so the ledger still sums per balance.
func MoveEffect(amount money.Fils) Balances {
	return Balances{Available: amount, Pending: -amount}
}

// Entry is one wallet transaction as the recomputation needs it.
type Entry struct {
	Type   string
	Status string
	Amount money.Fils
}

// Recompute is a wallet's balances from its transactions and the amounts of
// its move_pending_to_available adjustments.
func Recompute(entries []Entry, moves []money.Fils) Balances {
	var b Balances
	for _, e := range entries {
		b = b.Plus(Effect(e.Type, e.Status, e.Amount))
	}
	for _, m := range moves {
		b = b.Plus(MoveEffect(m))
	}
	return b
}

// AdjustmentOf is what an adjustWalletBalance of a kind does: the transaction
// it records ("" for none) and the change of the balances.
func AdjustmentOf(kind string, amount money.Fils) (txType string, delta Balances, err error) {
	switch kind {
	case contract.AdjustAddBalance:
		txType = TxBonus
	case contract.AdjustDeductBalance:
		txType = TxPenalty
	case contract.AdjustAddPending:
		txType = TxPendingCredit
	case contract.AdjustDeductPending:
		txType = TxPendingDebit
	case contract.AdjustMovePendingToAvailable:
		return "", MoveEffect(amount), nil
	default:
		return "", Balances{}, fmt.Errorf("unknown adjustment type %q", kind)
	}
	return txType, Effect(txType, TxCompleted, amount), nil
}
