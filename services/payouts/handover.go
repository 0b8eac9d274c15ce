package payouts

// A store's handover (admins.catalog.updateStore giving it to another user)
// and the payouts its former owner requested to their own bank account
// (docs/adr/0065-store-handover-settles-payouts.md, 0066, 0067). The rules are in domain/payoutstate.go
// (domain: OnHandover, PaysOut, HandedOver, HandedOverSinceCheck,
// Payout.Apply, Payout.HandoverAction, Payout.FlagHandover); here is where
// they meet the data:
//
//   - The consumer hears every store.created and store.updated, asks the
//     catalog what the store is now (confirm.go), and then settles the
//     store's open payouts against the owner the catalog answered
//     (settleHandover), in the consumer's transaction: a payout still
//     requested by another user is cancelled (MoveHandover: the amount back
//     to the available balance, its transaction cancelled, payout.cancelled
//     for the former owner and the administrators); one approved or
//     processing is flagged (handedOverAt). The catalog commits the change
//     with its event (its outbox), the consumer records the event as
//     handled in the same transaction as what it does, and each change is
//     conditional on the state it changes (the status, the flag unset), so
//     an event is never lost and a redelivery or a replay cancels, refunds
//     or flags nothing twice.
//   - The moves that pay out (approve, mark processing, complete) ask the
//     catalog whose store it is before their transaction (ownerNowOfPayout):
//     a payout flagged, or whose requester is not the store's owner now (the
//     handover not heard yet), needs confirmHandover: true, and is refused
//     FAILED_PRECONDITION store_handed_over without it.
//   - requestPayout refuses a request whose access check the wallet's copy
//     of the store has overtaken with another owner (HandedOverSinceCheck):
//     the handover's cancellation ran between the check and the request's
//     transaction, and would otherwise miss the new payout.

import (
	"context"

	"marketplace/libs/apperr"
	"marketplace/services/payouts/domain"
)

// settleHandover applies the store's ownership as the catalog has it now
// (ownerNow) to the store's open payouts: each one requested by another user
// is cancelled or flagged (domain.Payout.HandoverAction). It runs in the
// consumer's transaction, after the wallet recorded the catalog's answer; a
// store whose payouts are all its owner's is left as it is.
func (s *svc) settleHandover(ctx context.Context, storeID, ownerNow string) error {
	if ownerNow == "" {
		return nil
	}
	open, err := s.payouts.OpenIDsOf(ctx, storeID)
	if err != nil {
		return err
	}
	reason := domain.ReasonHandedOver
	var cancelled, flagged []string
	for _, id := range open {
		var action domain.HandoverAction
		wasFlagged := false
		_, err := s.payouts.Update(ctx, id, func(p *domain.Payout) error {
			action = p.HandoverAction(ownerNow)
			if action == domain.HandoverFlag {
				// Flagged once: by an earlier handover (or this event,
				// handled before) it is left as it is.
				wasFlagged = p.FlagHandover(s.nowMs())
			}
			return nil
		})
		if err != nil {
			return err
		}
		switch {
		case action == domain.HandoverCancel:
			if _, _, err := s.applyMove(ctx, id, domain.MoveArgs{Move: domain.MoveHandover, AdminID: domain.HandoverActor, Reason: &reason}); err != nil {
				return err
			}
			cancelled = append(cancelled, id)
		case wasFlagged:
			flagged = append(flagged, id)
		}
	}
	if len(cancelled) > 0 || len(flagged) > 0 {
		s.env.Logger.InfoContext(ctx, "payouts: the store was handed over: its former owner's open payouts settled",
			"storeId", storeID, "ownerUserId", ownerNow, "cancelled", cancelled, "flagged", flagged)
	}
	return nil
}

// ownerNowOfPayout is the owner of the payout's store as the catalog has it
// now ("" when it has no such store), read outside any transaction; asked
// is false when the payout does not exist (the move's transaction answers
// NOT_FOUND). The catalog unreachable is UNAVAILABLE: a move that pays out
// is never made on an owner this service has not confirmed.
func (s *svc) ownerNowOfPayout(ctx context.Context, payoutID string) (owner string, asked bool, err error) {
	storeID, err := s.payouts.StoreOf(ctx, payoutID)
	if storeID == "" || err != nil {
		return "", false, err
	}
	cctx, cancel := context.WithTimeout(ctx, contactsTimeout)
	defer cancel()
	stores, err := s.contacts(cctx, []string{storeID})
	if err != nil {
		return "", false, apperr.Wrap(err, apperr.Unavailable, "the catalog cannot confirm the owner of store %s now; try again", storeID)
	}
	return stores[storeID].OwnerUserID, true, nil
}
