package payouts

// What a dispute does to the store's wallet (docs/adr/0147). A
// payment.dispute_opened or payment.dispute_closed event only says which
// dispute changed: the payments service says what it is now
// (payments.money.getFacts, asked in prepare outside the transaction), the
// customers service what its order is, and the wallet is brought to that
// state once, whatever the order the events arrive in:
//
// A dispute of an order paid in another currency is in that currency: its
// amount is reversed (and held) as its AED counterpart (domain.AEDCum,
// docs/adr/0153).
//
//   - open: the store's share of the disputed amount (the D1 split given
//     what was reversed so far) moves into the disputed balance, from the
//     order's earning while it is still held (pending) first, the rest from
//     available (which may go negative). Before the order is credited nothing
//     is in the wallet: the share is held when the earning is credited.
//   - won: the held share is released as it was held: what the hold took
//     from the order's held earning goes back to that earning (pending),
//     released with it at its own release time; what came from available
//     goes back to available. An earning released meanwhile, or whose
//     release time has come, gets nothing back: that part goes to
//     available, where its release would have put it.
//   - lost: the held share leaves the disputed balance (what was held beyond
//     the store's share now, which another reversal since the opening can
//     make, goes back as a won dispute's does); the dispute counts as
//     reversed (D1: the commission is reversed with it); the dispute fee of
//     the wallet settings in force is frozen on it, charged to the store's
//     available balance (dispute_fee) or borne by the platform (a
//     platformDisputeFees record). Before the order is credited, the share
//     lowers the credit as a refund does.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"marketplace/libs/contracts/payments"
	contract "marketplace/libs/contracts/payouts"
	"marketplace/libs/events"
	"marketplace/libs/money"
	"marketplace/services/payouts/domain"
)

// disputeOf is the dispute id of a dispute event, "" for any other event.
func disputeOf(env events.Envelope) (disputeID, orderID string) {
	if env.Type != payments.EventDisputeOpened && env.Type != payments.EventDisputeClosed {
		return "", ""
	}
	var d payments.Dispute
	if events.DecodeData(env, &d) != nil {
		return "", ""
	}
	return d.DisputeID, d.OrderID
}

// askDisputes asks the payments service about disputeIDs (at most
// payments.MaxMoneyFacts a call).
func (s *svc) askDisputes(ctx context.Context, disputeIDs []string) (map[string]payments.Dispute, error) {
	out := map[string]payments.Dispute{}
	for len(disputeIDs) > 0 {
		n := min(len(disputeIDs), payments.MaxMoneyFacts)
		cctx, cancel := context.WithTimeout(ctx, confirmTimeout)
		f, err := s.moneyFacts(cctx, payments.MoneyFactsArgs{DisputeIDs: disputeIDs[:n]})
		cancel()
		if err != nil {
			return nil, fmt.Errorf("payouts: the payments service did not confirm %d disputes: %w", n, err)
		}
		for id, d := range f.Disputes {
			out[id] = d
		}
		disputeIDs = disputeIDs[n:]
	}
	return out, nil
}

// disputeFactOf is the payments service's dispute (nil: no such dispute):
// as prepare read it for the batch, else asked now.
func (s *svc) disputeFactOf(ctx context.Context, id string) (*payments.Dispute, error) {
	if c, _ := ctx.Value(confirmedKey{}).(*confirmed); c != nil && c.disputesAsked[id] {
		if c.disputesErr != nil {
			return nil, c.disputesErr
		}
		if d, ok := c.disputes[id]; ok {
			return &d, nil
		}
		return nil, nil
	}
	ds, err := s.askDisputes(ctx, []string{id})
	if err != nil {
		return nil, asHandlerError(err)
	}
	if d, ok := ds[id]; ok {
		return &d, nil
	}
	return nil, nil
}

// onDispute brings the wallet to the dispute as the payments service has it
// (see the top of this file). It runs in the consumer's transaction.
func (s *svc) onDispute(ctx context.Context, env events.Envelope, d payments.Dispute) error {
	skip := func(reason string, args ...any) error {
		s.countUnconfirmed(ctx, reason)
		s.env.Logger.WarnContext(ctx, "payouts: a dispute event the payments service does not confirm: nothing moved",
			append([]any{"eventId", env.ID, "disputeId", d.DisputeID, "eventOrderId", d.OrderID, "reason", reason}, args...)...)
		return nil
	}
	if d.DisputeID == "" {
		return skip(reasonDisputeUnconfirmed)
	}
	fact, err := s.disputeFactOf(ctx, d.DisputeID)
	if err != nil {
		return err
	}
	if fact == nil || fact.Amount <= 0 {
		return skip(reasonDisputeUnconfirmed)
	}
	f, err := s.factsOf(ctx, fact.OrderID)
	if err != nil {
		return err
	}
	if f == nil {
		return skip(reasonUnknownOrder, "orderId", fact.OrderID)
	}
	// The dispute is in the currency the order was paid in (an order paid
	// in another currency: reversed in AED in proportion, docs/adr/0153).
	if t := termsOf(f); !strings.EqualFold(currencyOr(fact.Currency), currencyOr(f.Currency)) || t.OtherCurrency() && f.AmountPaid <= 0 {
		return skip(reasonNotAED, "currency", fact.Currency, "orderCurrency", f.Currency)
	}
	return retryConflict(s.applyDispute(ctx, f.StoreName, f.StoreOwnerUserID, termsOf(f), fact))
}

// applyDispute brings the order's money to the dispute fact. It runs in a
// transaction.
func (s *svc) applyDispute(ctx context.Context, storeName, ownerID string, t domain.Terms, fact *payments.Dispute) error {
	now := s.nowMs()
	om, err := s.orderMoneyOf(ctx, fact.OrderID, t)
	if err != nil {
		return err
	}
	if err := s.openWallet(ctx, domain.StoreInfo{ID: om.StoreID, Name: storeName, OwnerUserID: ownerID}); err != nil {
		return err
	}
	changed := false
	if om.Dispute(fact.DisputeID) == nil {
		d, err := om.OpenDispute(fact.DisputeID, fact.Amount, now)
		if err != nil {
			return err
		}
		changed = true
		if d.HeldApplied {
			if err := s.holdDispute(ctx, om, d, now); err != nil {
				return err
			}
		}
	}
	if d := om.Dispute(fact.DisputeID); d.Status == domain.DisputeOpen && (fact.Status == payments.DisputeWon || fact.Status == payments.DisputeLost) {
		var cfg domain.WalletSettings
		if fact.Status == payments.DisputeLost {
			c, err := s.walletSettings(ctx)
			if err != nil {
				return asHandlerError(err)
			}
			cfg = *c
		}
		c, err := om.CloseDispute(fact.DisputeID, fact.Status, cfg.DisputeFee, cfg.DisputeFeeChargedTo, now)
		if err != nil && !errors.Is(err, domain.ErrApplied) {
			return err
		}
		if err == nil {
			changed = true
			if err := s.closeDispute(ctx, om, fact.DisputeID, fact.Status, c, now); err != nil {
				return err
			}
		}
	}
	if !changed {
		return nil
	}
	return s.orders.Save(ctx, om)
}

// holdDispute moves the dispute d's held share into the disputed balance:
// from the order's held earning first, the rest from available.
func (s *svc) holdDispute(ctx context.Context, om *domain.OrderMoney, d *domain.OrderDispute, now int64) error {
	if d.Held <= 0 {
		return nil
	}
	takeID := "dispute:" + d.ID
	held, err := s.takeFromOrder(ctx, om, d.Held, takeID, now)
	if err != nil {
		return err
	}
	d.FromHeld = held
	_, _, err = s.moveWallet(ctx, walletMove{
		storeID: om.StoreID, kind: domain.KindDisputeHold, event: contract.EventWalletDisputeHeld,
		description: fmt.Sprintf("Dispute %s of order %s opened (%s AED disputed)", d.ID, om.ID, domain.AEDText(d.Amount)),
		refs:        domain.StatementRefs{OrderID: om.ID, DisputeID: d.ID},
		txs:         []moveTx{{domain.TxDisputeHoldHeld, held, takeID + ":hold_held"}, {domain.TxDisputeHold, d.Held - held, takeID + ":hold"}},
		meta:        map[string]string{"orderId": om.ID, "disputeId": d.ID, "takeId": takeID, "disputedAmount": domain.AEDText(d.Amount)},
		now:         now,
		ev: contract.WalletMoveEvent{Kind: contract.MoveDisputeHold, OrderID: om.ID, DisputeID: d.ID, Amount: d.Held,
			FromPending: held, FromAvailable: d.Held - held},
	})
	return err
}

// closeDispute makes the wallet's moves of a closed dispute (c).
func (s *svc) closeDispute(ctx context.Context, om *domain.OrderMoney, disputeID, outcome string, c domain.Closing, now int64) error {
	key := "dispute:" + disputeID
	refs := domain.StatementRefs{OrderID: om.ID, DisputeID: disputeID}
	meta := map[string]string{"orderId": om.ID, "disputeId": disputeID}
	if outcome == payments.DisputeWon {
		back, txs, err := s.releaseHeld(ctx, om, c.Release, c.FromHeld, key, ":return_held", ":release", meta, now)
		if err != nil {
			return err
		}
		_, _, err = s.moveWallet(ctx, walletMove{
			storeID: om.StoreID, kind: domain.KindDisputeRelease, event: contract.EventWalletDisputeRelease,
			description: fmt.Sprintf("Dispute %s of order %s won: released", disputeID, om.ID), refs: refs,
			txs:  txs,
			meta: meta, now: now,
			ev: contract.WalletMoveEvent{Kind: contract.MoveDisputeRelease, OrderID: om.ID, DisputeID: disputeID, Amount: c.Release,
				ToPending: back, ToAvailable: c.Release - back},
		})
		return err
	}
	// What was held beyond the share lost goes back as a won dispute's
	// does: from the held earning back to it first.
	_, returned, err := s.releaseHeld(ctx, om, c.Return, c.FromHeld, key, ":loss_return_held", ":loss_return", meta, now)
	if err != nil {
		return err
	}
	meta["commissionReversed"] = domain.AEDText(c.Commission)
	meta["disputeFee"], meta["feeChargedTo"] = domain.AEDText(c.Fee), c.ChargedTo
	ev := contract.WalletMoveEvent{Kind: contract.MoveDisputeLoss, OrderID: om.ID, DisputeID: disputeID, Amount: c.Store,
		Commission: c.Commission, DisputeFee: c.Fee, FeeChargedTo: c.ChargedTo}
	// One event for the loss and the store's fee, with the balances after
	// both: published with the fee's change when the store pays one.
	storePays := c.Fee > 0 && c.ChargedTo == domain.FeeChargedToStore
	_, txIDs, err := s.moveWallet(ctx, walletMove{
		storeID: om.StoreID, kind: domain.KindDisputeLoss, event: eventIf(!storePays, contract.EventWalletDisputeDebited),
		description: fmt.Sprintf("Dispute %s of order %s lost (commission reversed %s AED)", disputeID, om.ID, domain.AEDText(c.Commission)), refs: refs,
		txs:  append([]moveTx{{domain.TxDisputeLoss, c.Loss, key + ":loss"}}, append(returned, moveTx{domain.TxRefund, c.Extra, key + ":loss_rest"})...),
		meta: meta, now: now, ev: ev,
	})
	if err != nil {
		return err
	}
	if c.Fee <= 0 {
		return nil
	}
	if !storePays {
		return s.fees.Insert(ctx, &domain.PlatformFee{ID: disputeID, OrderID: om.ID, StoreID: om.StoreID, Amount: c.Fee, At: now})
	}
	ev.TransactionIDs = txIDs
	_, _, err = s.moveWallet(ctx, walletMove{
		storeID: om.StoreID, kind: domain.KindDisputeFee, event: contract.EventWalletDisputeDebited,
		description: fmt.Sprintf("Dispute fee of dispute %s (order %s)", disputeID, om.ID), refs: refs,
		txs: []moveTx{{domain.TxDisputeFee, c.Fee, key + ":fee"}}, meta: meta, now: now, ev: ev,
	})
	return err
}

// releaseHeld releases amount of a closed dispute's held share from the
// disputed balance: of it fromHeld (what the hold took from the order's
// held earning) back to that earning as returnToOrder allows (a
// dispute_return, source key key+heldSuffix), the rest to available (a
// dispute_release, key+availSuffix). It notes the return in meta and
// answers what went back to the earning and the two transactions.
func (s *svc) releaseHeld(ctx context.Context, om *domain.OrderMoney, amount, fromHeld money.Fils, key, heldSuffix, availSuffix string,
	meta map[string]string, now int64) (money.Fils, []moveTx, error) {
	back, err := s.returnToOrder(ctx, om, min(fromHeld, amount), key, now)
	if err != nil {
		return 0, nil, err
	}
	if back > 0 {
		meta["takeId"], meta["returnedToHeld"] = key, domain.AEDText(back)
	}
	return back, []moveTx{{domain.TxDisputeReturn, back, key + heldSuffix}, {domain.TxDisputeRelease, amount - back, key + availSuffix}}, nil
}

// returnToOrder gives back to the order's earning up to amount of what the
// take takeID took from it, if the earning is still held and its release
// time has not come (it is then released with the rest of the earning, at
// its own time); else nothing (the caller returns it to available: the
// earning was released meanwhile, or would have been). It returns how much
// went back.
func (s *svc) returnToOrder(ctx context.Context, om *domain.OrderMoney, amount money.Fils, takeID string, now int64) (money.Fils, error) {
	if amount <= 0 || om.EarningID == "" {
		return 0, nil
	}
	e, err := s.ledger.Get(ctx, om.EarningID)
	if err != nil || e == nil || e.Status != domain.TxPending || e.ReleaseAt <= now {
		return 0, err
	}
	if err := s.ledger.Return(ctx, e.ID, e.HeldRemaining, amount, takeID, now); err != nil {
		return 0, err
	}
	return amount, nil
}

// currencyOr is a currency as given, aed when none is ("": an order or
// dispute older than currencies).
func currencyOr(c string) string {
	if c == "" {
		return "aed"
	}
	return c
}

// eventIf is event when publish, else "" (no event: the change's event was
// published already).
func eventIf(publish bool, event string) string {
	if publish {
		return event
	}
	return ""
}
