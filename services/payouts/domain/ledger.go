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
)

// Wallet transaction statuses. completed, cancelled and failed are the
// interface's; pending is a payout awaiting approval or an earning still held.
const (
	TxPending   = "pending"
	TxCompleted = "completed"
	TxCancelled = "cancelled"
	TxFailed    = "failed"
)

// Balances are a wallet's two balances, or a change of them.
type Balances struct {
	Available money.Fils
	Pending   money.Fils
}

// Plus is b changed by d.
func (b Balances) Plus(d Balances) Balances {
	return Balances{Available: b.Available + d.Available, Pending: b.Pending + d.Pending}
}

// Valid reports whether no balance is negative.
func (b Balances) Valid() bool { return b.Available >= 0 && b.Pending >= 0 }

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
