package payouts

// Payouts through the processor (docs/adr/0150-payouts-through-the-processor.md;
// the rules are in domain/transfer.go):
//
//   - sendPayoutThroughProcessor records that the transfer is asked, asks
//     the payments service for it (payments.transfers.createTransfer: once
//     per payout, the processor's key payout:<payoutId>), then moves the
//     payout to processing (third_party, the transfer's po_ id). Each step
//     commits on its own, and no transaction waits on the network: a call
//     broken between the transfer and the move is healed by calling again
//     (the same transfer is answered), or by the processor's outcome.
//   - The consumer hears payment.transfer_paid / payment.transfer_failed,
//     asks the payments service what the transfer is (payments.money.getFacts:
//     the event's figures are never trusted) and completes the payout, or
//     fails it with its amount restored, by "processor".
//   - A move by hand of a payout sent through the processor has the payments
//     service void its transfer first (payments.transfers.voidTransfer), and
//     is refused when the transfer was claimed to be sent before
//     (processor_transfer_pending, processor_transfer_settled).

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/payments"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/services/payouts/domain"
)

// transferTimeout bounds the payments service's answer to a transfer: it
// asks the processor within 8 s.
const transferTimeout = 9 * time.Second

type sendArgs struct {
	PayoutID        string  `json:"payoutId" op:"required,id=payouts"`
	AdminUserID     string  `json:"adminUserId" op:"required,nonblank"`
	AdminNotes      *string `json:"adminNotes" op:"max=2000,multiline"`
	ConfirmHandover *bool   `json:"confirmHandover"`
}

// sendPayoutThroughProcessor sends an approved payout through the processor
// (see the top of this file) and returns the payout after it.
func (s *svc) sendPayoutThroughProcessor(ctx context.Context, a *sendArgs) (*Payout, error) {
	method := domain.MethodThirdParty
	m := domain.MoveArgs{Move: domain.MoveProcessing, AdminID: a.AdminUserID, AdminName: ops.ActingName(ctx, a.AdminUserID), Notes: a.AdminNotes, Method: &method, ConfirmHandover: isTrue(a.ConfirmHandover)}
	var err error
	if m.OwnerNow, m.OwnerAsked, err = s.ownerNowOfPayout(ctx, a.PayoutID); err != nil {
		return nil, err
	}
	// 1. The ask, recorded before the processor hears of it: from now on a
	// move by hand asks the payments service first. It commits on its own
	// even inside a keyed call's transaction (DB.Joined), which would hold it
	// until its end and drop it with a failure after the transfer was asked.
	var p *domain.Payout
	send := false
	dctx, dcancel := detached(ctx)
	defer dcancel()
	err = s.tx(dctx, "the payout", func(ctx context.Context) error {
		var err error
		p, err = s.payouts.Update(ctx, a.PayoutID, func(p *domain.Payout) (err error) {
			send, err = p.AskTransfer(m, s.nowMs())
			return err
		})
		return err
	})
	if err != nil {
		return nil, err
	}
	if !send { // sent before: answered as it is
		return s.payoutView(ctx, p)
	}
	// 2. The transfer, outside any transaction.
	tctx, cancel := context.WithTimeout(ctx, transferTimeout)
	defer cancel()
	tr, err := s.createTransfer(tctx, payments.TransferArgs{PayoutID: p.ID, StoreID: p.StoreID, Amount: p.NetAmount,
		IBAN: p.BankDetails.IBAN, AccountHolderName: p.BankDetails.AccountHolderName})
	if err != nil {
		s.env.Logger.WarnContext(ctx, "payouts: the transfer through the processor was not made", "payoutId", p.ID, "err", err)
		switch apperr.CodeOf(err) {
		case apperr.FailedPrecondition, apperr.Unavailable, apperr.RateLimited:
			return nil, err
		}
		return nil, apperr.Wrap(err, apperr.Unavailable, "the payments service could not send payout %s; try again (the same transfer is sent once)", p.ID)
	}
	if tr.PayoutID != p.ID || tr.TransferID == "" || tr.Amount != p.NetAmount || tr.StoreID != p.StoreID {
		return nil, apperr.Wrap(fmt.Errorf("payout %s of %d fils: the payments service answered transfer %+v", p.ID, p.NetAmount, *tr), apperr.Internal, "internal error")
	}
	// 3. The move to processing, recording the transfer. The processor's
	// outcome may have settled the payout meanwhile (the consumer moves an
	// approved payout itself): it is answered as it is.
	m.TransferID, m.Ref = tr.TransferID, &tr.TransferID
	var out *Payout
	err = s.tx(ctx, "the payout", func(ctx context.Context) error {
		out = nil
		cur, err := s.payouts.Get(ctx, p.ID)
		if err != nil {
			return err
		}
		if cur != nil && cur.Status != domain.StatusApproved && cur.TransferID == tr.TransferID {
			return nil // settled meanwhile: read below
		}
		moved, w, err := s.applyMove(ctx, p.ID, m)
		if err != nil {
			return err
		}
		d := payoutDetail(moved, w, true)
		out = &d
		return nil
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	s.env.Logger.InfoContext(ctx, "payouts: payout sent through the processor", "payoutId", p.ID, "transferId", tr.TransferID, "amount", p.NetAmount.AED())
	if out == nil {
		return s.payoutView(ctx, p)
	}
	_ = s.nameStores(ctx, []*PayoutItem{&out.PayoutItem}, false) // committed: never an error now
	return out, nil
}

// detached is a context for a transaction of its own, outside any the
// caller's ctx is in, within ctx's deadline.
func detached(ctx context.Context) (context.Context, context.CancelFunc) {
	if d, ok := ctx.Deadline(); ok {
		return context.WithDeadline(context.Background(), d)
	}
	return context.WithTimeout(context.Background(), transferTimeout)
}

// payoutView is the payout as an administrator's move answers it, read now.
func (s *svc) payoutView(ctx context.Context, p *domain.Payout) (*Payout, error) {
	return s.getPayout(ctx, &getPayoutArgs{PayoutID: p.ID})
}

// transferOfPayout is, for a move by hand of a payout sent through the
// processor, its transfer as the payments service settles it now, in m:
// the payments service voids the transfer if it has not claimed it to send
// (payments.transfers.voidTransfer: the transfer is then never sent, and
// the move may go on), else answers its status (the move is refused). The
// void and the transfer's claim are ordered by the payments service alone,
// so a move by hand racing sendPayoutThroughProcessor cannot both restore
// the balance and let the transfer go (docs/adr/0150). Nothing is voided
// for a payout never sent, nor for a move refused by a check that needs no
// transaction (domain.Payout.CheckFirst: the payout's status, and a store
// handed over without confirmHandover, m.OwnerNow asked before): the void
// is the last step before the move's transaction. A move the transaction
// still refuses after the void (the payout moved or flagged handed over
// meanwhile) leaves the void standing: the payout is then paid by hand
// only (docs/adr/0150). The payments service not answering is UNAVAILABLE: such a payout
// is never moved by hand on a transfer this service has not settled.
func (s *svc) transferOfPayout(ctx context.Context, payoutID string, m *domain.MoveArgs) error {
	if !domain.ByHandChecked(m.Move) {
		return nil
	}
	p, err := s.payouts.Get(ctx, payoutID)
	if p == nil || err != nil || p.TransferAskedAt == nil {
		return err
	}
	if err := p.CheckFirst(*m); err != nil {
		return err
	}
	tctx, cancel := context.WithTimeout(ctx, confirmTimeout)
	defer cancel()
	v, err := s.voidTransfer(tctx, payoutID)
	if err != nil {
		return apperr.Wrap(err, apperr.Unavailable, "the payments service cannot settle the transfer of payout %s now; try again", payoutID)
	}
	switch {
	case v.Voided:
		m.TransferStatus = domain.TransferVoided
		s.env.Logger.InfoContext(ctx, "payouts: a payout sent through the processor is moved by hand: its transfer was voided before it was sent",
			"payoutId", payoutID, "move", string(m.Move))
	case v.Transfer != nil && v.Transfer.PayoutID == payoutID:
		m.TransferStatus = v.Transfer.Status
	default:
		return apperr.Wrap(fmt.Errorf("payout %s: the payments service answered the void %+v", payoutID, *v), apperr.Internal, "internal error")
	}
	m.TransferAsked = true
	return nil
}

// transfersKey carries what prepareTransfers learnt to the handler.
type transfersKey struct{}

// askedTransfers is what prepareTransfers learnt of a batch's transfer
// events: asked holds every payout id asked about, facts those the payments
// service has, err its answer when it was an error other than transient.
type askedTransfers struct {
	asked map[string]bool
	facts map[string]payments.Transfer
	err   error
}

// transferEventOf is the payout id of a payment.transfer_paid or
// payment.transfer_failed whose id is a payout id, "" for any other event.
func transferEventOf(env events.Envelope) string {
	if env.Type != payments.EventTransferPaid && env.Type != payments.EventTransferFailed {
		return ""
	}
	var d struct {
		PayoutID string `json:"payoutId"`
	}
	if json.Unmarshal(env.Data, &d) != nil || !ids.Valid("payouts", d.PayoutID) {
		return ""
	}
	return d.PayoutID
}

// prepareTransfers asks the payments service, in one call, about the
// transfers of the batch's transfer events (outside the consumer's
// transaction); as prepare does for orders.
func (s *svc) prepareTransfers(ctx context.Context, envs []events.Envelope) (context.Context, error) {
	c := &askedTransfers{asked: map[string]bool{}}
	var list []string
	for _, env := range envs {
		if id := transferEventOf(env); id != "" && !c.asked[id] {
			c.asked[id] = true
			list = append(list, id)
		}
	}
	if len(list) == 0 {
		return ctx, nil
	}
	facts, err := s.askTransfers(ctx, list)
	if err != nil && transient(err) {
		return nil, err
	}
	c.facts, c.err = facts, err
	return context.WithValue(ctx, transfersKey{}, c), nil
}

// askTransfers asks the payments service about the transfers of payoutIDs
// (at most payments.MaxMoneyFacts a call).
func (s *svc) askTransfers(ctx context.Context, payoutIDs []string) (map[string]payments.Transfer, error) {
	out := map[string]payments.Transfer{}
	for start := 0; start < len(payoutIDs); start += payments.MaxMoneyFacts {
		part := payoutIDs[start:min(len(payoutIDs), start+payments.MaxMoneyFacts)]
		cctx, cancel := context.WithTimeout(ctx, confirmTimeout)
		facts, err := s.transferFacts(cctx, part)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("payouts: the payments service did not confirm %d transfers: %w", len(part), err)
		}
		for id, f := range facts {
			out[id] = f
		}
	}
	return out, nil
}

// transferOf is the payments service's transfer of the payout (nil: none):
// the one prepareTransfers read for the batch, else asked now.
func (s *svc) transferOf(ctx context.Context, payoutID string) (*payments.Transfer, error) {
	if c, _ := ctx.Value(transfersKey{}).(*askedTransfers); c != nil && c.asked[payoutID] {
		if c.err != nil {
			return nil, c.err
		}
		if f, ok := c.facts[payoutID]; ok {
			return &f, nil
		}
		return nil, nil
	}
	facts, err := s.askTransfers(ctx, []string{payoutID})
	if err != nil {
		return nil, asHandlerError(err)
	}
	if f, ok := facts[payoutID]; ok {
		return &f, nil
	}
	return nil, nil
}

// onTransferSettled settles a payout sent through the processor as the
// payments service has its transfer (domain.ProcessorMoves). The payments
// service's word is enough even where the ask is not recorded here: only
// this service asks it for transfers, each for one payout's store and net
// amount (checked). It runs in the consumer's transaction; a redelivery
// finds the payout settled and does nothing.
func (s *svc) onTransferSettled(ctx context.Context, env events.Envelope, payoutID string) error {
	skip := func(msg string, args ...any) error {
		s.env.Logger.WarnContext(ctx, "payouts: "+msg, append([]any{"eventId", env.ID, "type", env.Type, "payoutId", payoutID}, args...)...)
		return nil
	}
	if !ids.Valid("payouts", payoutID) {
		return skip("a transfer event without a payout id: nothing done")
	}
	f, err := s.transferOf(ctx, payoutID)
	if err != nil {
		return err
	}
	if f == nil {
		return skip("a transfer event the payments service does not confirm: nothing done")
	}
	p, err := s.payouts.Get(ctx, payoutID)
	if err != nil {
		return err
	}
	switch {
	case p == nil:
		return skip("a transfer of a payout this service does not have: nothing done", "transferId", f.TransferID)
	case f.TransferID == "" && f.Status != payments.TransferPending:
		return fmt.Errorf("%s %s: the payments service's transfer of payout %s is %s without a processor id", env.Type, env.ID, payoutID, f.Status)
	case f.StoreID != p.StoreID || f.Amount != p.NetAmount || (p.TransferID != "" && f.TransferID != p.TransferID):
		// Not this payout's transfer as recorded: parked for an operator.
		return fmt.Errorf("%s %s: payout %s (store %s, net %d fils, transfer %q) and its transfer (store %s, %d fils, %q) disagree",
			env.Type, env.ID, payoutID, p.StoreID, p.NetAmount, p.TransferID, f.StoreID, f.Amount, f.TransferID)
	}
	moves, verdict := domain.ProcessorMoves(p.Status, f.Status)
	switch verdict {
	case domain.TransferWait, domain.TransferDone:
		return nil
	case domain.TransferConflict:
		s.env.Logger.ErrorContext(ctx, "payouts: the processor's transfer contradicts the payout: nothing done, an operator's case",
			"eventId", env.ID, "payoutId", payoutID, "status", p.Status, "transferId", f.TransferID, "transferStatus", f.Status)
		return nil
	}
	failure := f.FailureMessage
	if f.FailureCode != "" {
		failure = f.FailureCode + " (" + f.FailureMessage + ")"
	}
	for _, mv := range moves {
		if _, _, err := s.applyMove(ctx, payoutID, domain.ProcessorMove(mv, f.TransferID, failure)); err != nil {
			return err
		}
	}
	s.env.Logger.InfoContext(ctx, "payouts: payout settled by the processor", "eventId", env.ID, "payoutId", payoutID,
		"transferId", f.TransferID, "transferStatus", f.Status)
	return nil
}
