package payouts

// Bulk payout decisions (docs/adr/0161): an administrator approves or
// rejects up to 50 payouts in one call. Every question to another service
// (whose store each payout's is now: the handover check) is asked before
// the transaction; then every move is made in ONE transaction, all or
// nothing, so a keyed retry replays one answer (docs/adr/0011) and a
// refusal of any payout changes none.

import (
	"context"
	"errors"
	"slices"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
)

// maxBulkPayouts bounds a bulk decision.
const maxBulkPayouts = 50

type bulkApproveArgs struct {
	PayoutIDs   []string `json:"payoutIds" op:"required,id=payouts,min=1,max=50"`
	AdminUserID string   `json:"adminUserId" op:"required,nonblank"`
	AdminNotes  *string  `json:"adminNotes" op:"max=2000,multiline"`
	// ConfirmHandover are the payouts (of those given) of stores handed
	// over since their request that are to be paid all the same (as
	// approvePayout's confirmHandover, one by one).
	ConfirmHandover []string `json:"confirmHandover" op:"id=payouts,max=50"`
}

type bulkRejectArgs struct {
	PayoutIDs       []string `json:"payoutIds" op:"required,id=payouts,min=1,max=50"`
	AdminUserID     string   `json:"adminUserId" op:"required,nonblank"`
	RejectionReason string   `json:"rejectionReason" op:"required,nonblank,max=1000,multiline"`
	AdminNotes      *string  `json:"adminNotes" op:"max=2000,multiline"`
}

// BulkDecision is approvePayouts' and rejectPayouts' answer: the payouts
// after the move, in the order given, and their requested amounts' sum.
type BulkDecision struct {
	Payouts []Payout `json:"payouts"`
	Total   float64  `json:"total"`
}

// Refused is one payout a bulk decision refused: its id, the refusal's code
// and reason (details.reason of the single move's refusal, when it has one)
// and message.
type Refused struct {
	PayoutID string `json:"payoutId"`
	Code     string `json:"code"`
	Reason   string `json:"reason,omitempty"`
	Message  string `json:"message"`
}

// checkUnique refuses a list naming a payout twice, and confirmations of
// payouts not in it.
func checkUnique(ids, confirm []string) error {
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			return apperr.Invalid("payoutIds", "names payout %s twice", id)
		}
		seen[id] = true
	}
	for _, id := range confirm {
		if !seen[id] {
			return apperr.Invalid("confirmHandover", "names payout %s, which is not in payoutIds", id)
		}
	}
	return nil
}

func (s *svc) approvePayouts(ctx context.Context, a *bulkApproveArgs) (*BulkDecision, error) {
	if err := checkUnique(a.PayoutIDs, a.ConfirmHandover); err != nil {
		return nil, err
	}
	owners, err := s.ownersNowOfPayouts(ctx, a.PayoutIDs)
	if err != nil {
		return nil, err
	}
	moves := make([]moveArgs, len(a.PayoutIDs))
	name := ops.ActingName(ctx, a.AdminUserID)
	for i, id := range a.PayoutIDs {
		owner, asked := owners[id]
		moves[i] = moveArgs{payoutID: id, MoveArgs: domain.MoveArgs{Move: domain.MoveApprove, AdminID: a.AdminUserID, AdminName: name, Notes: a.AdminNotes,
			ConfirmHandover: slices.Contains(a.ConfirmHandover, id), OwnerNow: owner, OwnerAsked: asked}}
	}
	return s.moveAll(ctx, moves)
}

func (s *svc) rejectPayouts(ctx context.Context, a *bulkRejectArgs) (*BulkDecision, error) {
	if err := checkUnique(a.PayoutIDs, nil); err != nil {
		return nil, err
	}
	moves := make([]moveArgs, len(a.PayoutIDs))
	name := ops.ActingName(ctx, a.AdminUserID)
	for i, id := range a.PayoutIDs {
		moves[i] = moveArgs{payoutID: id, MoveArgs: domain.MoveArgs{Move: domain.MoveReject, AdminID: a.AdminUserID, AdminName: name, Notes: a.AdminNotes,
			Reason: &a.RejectionReason}}
	}
	return s.moveAll(ctx, moves)
}

// moveAll makes every move in one transaction (applyMove each). A move
// refused (an answer of the client's: FAILED_PRECONDITION, NOT_FOUND,
// INVALID_ARGUMENT) is noted and the others still tried, so the answer
// lists every refusal; then, if any was refused, the transaction is
// abandoned (nothing changed) and the answer is FAILED_PRECONDITION
// bulk_refused with details.refused. Any other error aborts at once.
func (s *svc) moveAll(ctx context.Context, moves []moveArgs) (*BulkDecision, error) {
	out := &BulkDecision{Payouts: make([]Payout, len(moves))}
	err := s.tx(ctx, "the payouts", func(ctx context.Context) error {
		var refused []Refused
		var total money.Fils
		for i, m := range moves {
			p, w, err := s.applyMove(ctx, m.payoutID, m.MoveArgs)
			var ae *apperr.Error
			if err != nil && errors.As(err, &ae) && (ae.Code == apperr.FailedPrecondition || ae.Code == apperr.NotFound || ae.Code == apperr.InvalidArgument) {
				r := Refused{PayoutID: m.payoutID, Code: string(ae.Code), Message: ae.Message}
				if reason, ok := ae.Details["reason"].(string); ok {
					r.Reason = reason
				}
				refused = append(refused, r)
				continue
			}
			if err != nil {
				return err
			}
			out.Payouts[i] = payoutDetail(p, w, true)
			total += p.RequestedAmount
		}
		if len(refused) > 0 {
			return apperr.New(apperr.FailedPrecondition, "%d of the %d payouts cannot be moved (first: %s: %s); nothing was changed",
				len(refused), len(moves), refused[0].PayoutID, refused[0].Message).
				WithDetails(map[string]any{"reason": "bulk_refused", "refused": refused})
		}
		out.Total = total.AED()
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	_ = s.nameStoresOf(ctx, out.Payouts, false) // committed: never an error now
	return out, nil
}

// ownersNowOfPayouts is, for each payout that exists, the owner of its
// store as the catalog has it now ("" when it has no such store), asked
// once for all their stores, outside any transaction: the catalog
// unreachable is UNAVAILABLE (ownerNowOfPayout, for many).
func (s *svc) ownersNowOfPayouts(ctx context.Context, payoutIDs []string) (map[string]string, error) {
	stores, err := s.payouts.StoresOf(ctx, payoutIDs)
	if err != nil || len(stores) == 0 {
		return map[string]string{}, err
	}
	var storeIDs []string
	for _, st := range stores {
		if !slices.Contains(storeIDs, st) {
			storeIDs = append(storeIDs, st)
		}
	}
	cctx, cancel := context.WithTimeout(ctx, contactsTimeout)
	defer cancel()
	contacts, err := s.contacts(cctx, storeIDs)
	if err != nil {
		return nil, apperr.Wrap(err, apperr.Unavailable, "the catalog cannot confirm the owners of the payouts' stores now; try again")
	}
	out := make(map[string]string, len(stores))
	for id, st := range stores {
		out[id] = contacts[st].OwnerUserID
	}
	return out, nil
}
