package domain

import (
	"errors"
	"fmt"
	"time"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/money"
)

// AEDText is an amount as metadata text ("12.50").
func AEDText(f money.Fils) string { return fmt.Sprintf("%.2f", f.AED()) }

// StoreInfo is what the service knows of a store when it opens its wallet;
// empty fields are left as they are. Version is the catalog's version of the
// store when the info comes from its store.created or store.updated event,
// and 0 when it comes from elsewhere (an order's copy, a cached read), which
// may be older than what the wallet holds.
type StoreInfo struct {
	ID, Name, OwnerUserID, OwnerName, OwnerPhone string
	Version                                      int64
}

// ErrNoWallet is a repository's answer for a wallet that is not open.
var ErrNoWallet = errors.New("payouts: the wallet is not open")

// ShortOf is why balances have cannot take d (FAILED_PRECONDITION
// insufficient_balance, the available balance checked first), nil when they
// can: the no-overdraft rule.
func ShortOf(have, d Balances) error {
	switch {
	case d.Available < 0 && have.Available < -d.Available:
		return apperr.New(apperr.FailedPrecondition, "insufficient available balance: %.2f AED available, %.2f AED needed", have.Available.AED(), (-d.Available).AED()).
			WithDetails(map[string]any{"reason": "insufficient_balance", "balance": "available"})
	case d.Pending < 0 && have.Pending < -d.Pending:
		return apperr.New(apperr.FailedPrecondition, "insufficient pending balance: %.2f AED pending, %.2f AED needed", have.Pending.AED(), (-d.Pending).AED()).
			WithDetails(map[string]any{"reason": "insufficient_balance", "balance": "pending"})
	case d.Disputed < 0 && have.Disputed < -d.Disputed:
		return apperr.New(apperr.FailedPrecondition, "insufficient disputed balance: %.2f AED disputed, %.2f AED needed", have.Disputed.AED(), (-d.Disputed).AED()).
			WithDetails(map[string]any{"reason": "insufficient_balance", "balance": "disputed"})
	}
	return nil
}

// Reverse applies d, a reversal (a refund, a dispute's hold, release or
// loss, a dispute fee), to the wallet's balances at now. Unlike Change it
// lets the available balance go negative (a debt, docs/adr/0147); pending
// and disputed still never do (ShortOf on them alone).
func (w *Wallet) Reverse(d Balances, now int64) error {
	if err := ShortOf(w.Balances(), Balances{Pending: d.Pending, Disputed: d.Disputed}); err != nil {
		return err
	}
	w.apply(d, now)
	return nil
}

func (w *Wallet) apply(d Balances, now int64) {
	w.AvailableBalance += d.Available
	w.PendingBalance += d.Pending
	w.DisputedBalance += d.Disputed
	w.UpdatedAt = now
}

// InDebt is the refusal of a payout request while the wallet w (nil: not
// open) has a negative available balance: FAILED_PRECONDITION,
// details.reason wallet_in_debt, details.debt (AED). Nil when not in debt.
func InDebt(w *Wallet) error {
	if w == nil || w.AvailableBalance >= 0 {
		return nil
	}
	return apperr.New(apperr.FailedPrecondition, "the wallet is in debt: its available balance is %.2f AED; refunds and disputes took more than it held, and later earnings repay the %.2f AED first when they are released; no payout can be requested until then",
		w.AvailableBalance.AED(), w.Debt().AED()).
		WithDetails(map[string]any{"reason": "wallet_in_debt", "debt": w.Debt().AED(), "availableBalance": w.AvailableBalance.AED(),
			"pendingBalance": w.PendingBalance.AED(), "disputedBalance": w.DisputedBalance.AED()})
}

// NoWallet is the answer to a change d of a wallet that is not open: as of
// the zero wallet when d lowers a balance, else NOT_FOUND.
func NoWallet(walletID string, d Balances) error {
	if err := ShortOf(Balances{}, d); err != nil {
		return err
	}
	return apperr.New(apperr.NotFound, "wallet %s does not exist", walletID)
}

// Change applies d to the wallet's balances at now, refusing (ShortOf) a
// change that would overdraw either balance.
func (w *Wallet) Change(d Balances, now int64) error {
	if err := ShortOf(w.Balances(), d); err != nil {
		return err
	}
	w.apply(d, now)
	return nil
}

// Credit records an order's earnings: into the pending balance (held), and
// into the store's total earnings and orders.
func (w *Wallet) Credit(earnings money.Fils, now int64) error {
	if err := w.Change(Balances{Pending: earnings}, now); err != nil {
		return err
	}
	w.TotalEarnings += earnings
	w.TotalOrders++
	return nil
}

// SettleMove is what the payout move m (restore: the administrator's
// restoreBalance) does to the wallet: a rejection, a handover's cancellation
// and a failure that restores it return the amount to the available
// balance; a completion counts it in the total payouts and dates the last
// payout. It changes nothing for the other moves.
func (w *Wallet) SettleMove(m Move, restore bool, amount money.Fils, now int64) error {
	if RestoresBalance(m, restore) {
		if err := w.Change(Balances{Available: amount}, now); err != nil {
			return err
		}
	}
	if m == MoveComplete {
		w.TotalPayouts += amount
		w.LastPayoutDate = &now
		w.UpdatedAt = now
	}
	return nil
}

// WalletSettings are the platform configuration's wallet settings, in fils.
type WalletSettings struct {
	MinPayout, MaxPayout, ProcessingFee money.Fils
	HoldDays                            int
	// DisputeFee is charged for a lost dispute, to the store's available
	// balance when DisputeFeeChargedTo is "store", else borne by the
	// platform (docs/adr/0147).
	DisputeFee          money.Fils
	DisputeFeeChargedTo string
}

// Who bears a lost dispute's fee.
const (
	FeeChargedToStore    = "store"
	FeeChargedToPlatform = "platform"
)

// DefaultWalletSettings are the platform's defaults for a new configuration:
// earnings fall back to them when no configuration can be read, rather than
// being refused.
var DefaultWalletSettings = WalletSettings{MinPayout: 100_00, MaxPayout: 50_000_00, ProcessingFee: 2_00, HoldDays: 7,
	DisputeFee: 15_00, DisputeFeeChargedTo: FeeChargedToStore}

// CheckAmount refuses a payout amount outside the settings (FAILED_PRECONDITION):
// below the minimum payout, above the maximum, or not above the processing
// fee. The message and details give the settings (AED) and the store's
// available balance (read only for a refusal), so the caller can pick an
// amount that passes from the answer alone.
func (c *WalletSettings) CheckAmount(amount money.Fils, available func() (money.Fils, error)) error {
	var msg, reason string
	switch {
	case amount < c.MinPayout:
		msg, reason = fmt.Sprintf("amount: the minimum payout is %.2f AED", c.MinPayout.AED()), "below_minimum_payout"
	case amount > c.MaxPayout:
		msg, reason = fmt.Sprintf("amount: the maximum payout is %.2f AED", c.MaxPayout.AED()), "above_maximum_payout"
	case amount <= c.ProcessingFee:
		msg, reason = fmt.Sprintf("amount: must exceed the processing fee of %.2f AED", c.ProcessingFee.AED()), "not_above_fee"
	default:
		return nil
	}
	have, err := available()
	if err != nil {
		return err
	}
	return apperr.New(apperr.FailedPrecondition, "%s (%.2f AED asked; payouts are from %.2f to %.2f AED, of which the processing fee of %.2f AED is kept; the store has %.2f AED available)",
		msg, amount.AED(), c.MinPayout.AED(), c.MaxPayout.AED(), c.ProcessingFee.AED(), have.AED()).
		WithDetails(map[string]any{
			"field": "amount", "reason": reason, "amount": amount.AED(), "minPayoutAmount": c.MinPayout.AED(), "maxPayoutAmount": c.MaxPayout.AED(),
			"processingFee": c.ProcessingFee.AED(), "availableBalance": have.AED(),
		})
}

// PayoutShortOf explains why a payout request's amount was refused by the
// wallet w as read in the request's transaction (nil: not open): the
// available balance does not cover it. When earnings are still held, it
// says so: how much is pending, the hold (pendingBalanceHoldDays) and when
// the oldest held earning (oldest, nil when none) is released, and that an
// administrator may release it earlier.
func PayoutShortOf(walletID string, w *Wallet, amount money.Fils, cfg *WalletSettings, oldest *Transaction) error {
	d := Balances{Available: -amount}
	if w == nil {
		return NoWallet(walletID, d)
	}
	if err := InDebt(w); err != nil {
		return err
	}
	if w.AvailableBalance >= amount {
		if err := ShortOf(w.Balances(), d); err != nil {
			return err
		}
		return errors.New("payouts: wallet change refused for no reason found")
	}
	details := map[string]any{
		"reason": "insufficient_balance", "balance": "available", "amount": amount.AED(),
		"availableBalance": w.AvailableBalance.AED(), "pendingBalance": w.PendingBalance.AED(), "pendingBalanceHoldDays": cfg.HoldDays,
		"disputedBalance": w.DisputedBalance.AED(),
	}
	msg := fmt.Sprintf("insufficient available balance: %.2f AED available, %.2f AED needed", w.AvailableBalance.AED(), amount.AED())
	if w.PendingBalance > 0 {
		msg += fmt.Sprintf("; %.2f AED pending: earnings are held %d days after delivery (pendingBalanceHoldDays)", w.PendingBalance.AED(), cfg.HoldDays)
		if oldest != nil {
			msg += fmt.Sprintf(", the oldest (%.2f AED) is released at %s", oldest.HeldRemaining.AED(), time.UnixMilli(oldest.ReleaseAt).UTC().Format(time.RFC3339))
			details["nextReleaseAt"], details["nextReleaseAmount"] = oldest.ReleaseAt, oldest.HeldRemaining.AED()
		}
		msg += "; an administrator may release held earnings earlier (admins.payoutOperations.adjustWalletBalance, move_pending_to_available)"
	}
	if w.DisputedBalance > 0 {
		msg += fmt.Sprintf("; %.2f AED is held by open disputes until they close", w.DisputedBalance.AED())
	}
	return apperr.New(apperr.FailedPrecondition, "%s", msg).WithDetails(details)
}

// Event is the wallet event of a change of w: its balances after it.
func (w *Wallet) Event(e contract.WalletEvent) contract.WalletEvent {
	e.WalletID, e.StoreID, e.StoreName, e.StoreOwnerUserID = w.ID, w.StoreID, w.StoreName, w.OwnerUserID
	e.Available, e.Pending = w.AvailableBalance, w.PendingBalance
	return e
}

// MoveEvent is the wallet move event (refunds, disputes) of a change of w:
// its balances after it.
func (w *Wallet) MoveEvent(e contract.WalletMoveEvent) contract.WalletMoveEvent {
	e.WalletID, e.StoreID, e.StoreName, e.StoreOwnerUserID = w.ID, w.StoreID, w.StoreName, w.OwnerUserID
	e.Available, e.Pending, e.Disputed = w.AvailableBalance, w.PendingBalance, w.DisputedBalance
	return e
}
