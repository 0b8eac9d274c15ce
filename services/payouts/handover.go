package payouts

// A store's handover (admins.catalog.updateStore giving it to another user)
// and the payouts its former owner requested to their own bank account
// (docs/adr/0065-store-handover-settles-payouts.md, 0066, 0067). The rules are in payoutstate.go
// (OnHandover, PaysOut, HandedOver, HandedOverSinceCheck); here is where
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

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
)

// handoverActor is the history's "by" of what a handover did to a payout:
// the payouts service, on the catalog's word (the catalog's events do not
// say which administrator changed the store).
const handoverActor = "system"

// settleHandover applies the store's ownership as the catalog has it now
// (ownerNow) to the store's open payouts: each one requested by another user
// is cancelled or flagged (OnHandover). It runs in the consumer's
// transaction, after the wallet recorded the catalog's answer; a store
// whose payouts are all its owner's is left as it is.
func (s *svc) settleHandover(ctx context.Context, storeID, ownerNow string) error {
	if ownerNow == "" {
		return nil
	}
	cur, err := s.env.DB.Collection(payoutsColl).Find(ctx, bson.M{"storeId": storeID, "status": bson.M{"$in": OpenStatuses}},
		options.Find().SetSort(bson.D{{Key: "requestDate", Value: 1}, {Key: "_id", Value: 1}}).
			SetProjection(bson.M{"status": 1, "ownerUserId": 1, "requestedBy": 1, "handedOverAt": 1}))
	if err != nil {
		return err
	}
	var ps []payoutDoc
	if err := cur.All(ctx, &ps); err != nil {
		return err
	}
	reason := ReasonHandedOver
	var cancelled, flagged []string
	for _, p := range ps {
		if p.owner() == ownerNow {
			continue
		}
		switch OnHandover(p.Status) {
		case HandoverCancel:
			if _, _, err := s.applyMove(ctx, moveArgs{move: MoveHandover, payoutID: p.ID, adminID: handoverActor, reason: &reason}); err != nil {
				return err
			}
			cancelled = append(cancelled, p.ID)
		case HandoverFlag:
			if p.HandedOverAt != nil {
				continue // flagged by an earlier handover (or this event, handled before)
			}
			now := s.nowMs()
			res, err := s.env.DB.Collection(payoutsColl).UpdateOne(ctx,
				bson.M{"_id": p.ID, "status": p.Status, "handedOverAt": bson.M{"$exists": false}},
				bson.M{"$set": bson.M{"handedOverAt": now, "updatedAt": now}, "$push": bson.M{"history": historyEntry{
					Action: string(MoveHandover), From: p.Status, To: p.Status, By: handoverActor, At: now, Reason: &reason,
				}}})
			if err != nil {
				return err
			}
			if res.ModifiedCount == 1 {
				flagged = append(flagged, p.ID)
			}
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
	var p payoutDoc
	err = s.env.DB.Collection(payoutsColl).FindOne(ctx, bson.M{"_id": payoutID}, options.FindOne().SetProjection(bson.M{"storeId": 1})).Decode(&p)
	if store.IsNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	cctx, cancel := context.WithTimeout(ctx, contactsTimeout)
	defer cancel()
	stores, err := s.contacts(cctx, []string{p.StoreID})
	if err != nil {
		return "", false, apperr.Wrap(err, apperr.Unavailable, "the catalog cannot confirm the owner of store %s now; try again", p.StoreID)
	}
	return stores[p.StoreID].OwnerUserID, true, nil
}

// handedOverRefusal answers a move that pays out a payout of a store handed
// over since its request, without the administrator's confirmation.
func handedOverRefusal(m Move, p *payoutDoc, ownerNow string) error {
	now := "has no owner in the catalog"
	if ownerNow != "" {
		now = "is " + ownerNow + "'s"
	}
	stop := "reject it (rejectPayout)"
	if m != MoveApprove {
		stop = "mark it failed (markPayoutAsFailed)"
	}
	details := map[string]any{"reason": "store_handed_over", "requestedBy": p.RequestedBy, "ownerUserIdAtRequest": p.owner(),
		"storeOwnerUserId": ownerNow, "argument": "confirmHandover"}
	if p.HandedOverAt != nil {
		details["handedOverAt"] = *p.HandedOverAt
	}
	return apperr.New(apperr.FailedPrecondition,
		"payout %s was requested by %s, the owner of store %s then, to their bank account; the store %s now (handed over): "+
			"to pay it all the same call %s again with confirmHandover: true, or %s",
		p.ID, p.owner(), p.StoreID, now, m, stop).WithDetails(details)
}

// handedOverSinceCheck answers a payout request whose store was handed to
// another owner between the caller's access check and the request's
// transaction.
func handedOverSinceCheck(storeID string) error {
	return apperr.New(apperr.PermissionDenied, "stores.payouts.requestPayout is for the store's owner: store %s was handed to another owner", storeID).
		WithDetails(map[string]any{"reason": "store_handed_over"})
}
