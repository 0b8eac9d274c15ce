package payments

// Payouts through the processor (docs/adr/0150-payouts-through-the-processor.md):
// payments.transfers.createTransfer sends a payout's net amount to the
// store's bank account (the processor's POST /v1/payouts), once per payout;
// the processor's payout.paid / payout.failed settle the transfer and are
// published as payment.transfer_paid / payment.transfer_failed for the
// payouts service, which confirms them with payments.money.getFacts. The
// transfer's rules are in domain/transfer.go.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/stripe/stripe-go/v86"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/money"
	"marketplace/services/payments/domain"
)

// TransferKey is the processor's Idempotency-Key of a payout's transfer.
func TransferKey(payoutID string) string { return "payout:" + payoutID }

// Plain-text bodies of the payout webhooks' 200 answers.
const (
	textTransferPaid       = "Transfer paid"
	textTransferFailed     = "Transfer failed"
	textTransferSettled    = "Transfer already settled"
	textTransferNotOurs    = "Payout not sent by the marketplace: ignored"
	textTransferUnknown    = "Unknown transfer: ignored"
	reasonProcessorRefused = "processor_refused"
	reasonTransferVoided   = "transfer_voided"
)

// transferArgs are contract.TransferArgs as they travel: the contract's
// client sends amountFils as the whole number of fils money.Fils marshals
// to, which an operation's money.Fils argument would read as AED (100
// times the amount); read here as the integer it is.
type transferArgs struct {
	PayoutID          string `json:"payoutId" op:"required,id=payouts"`
	StoreID           string `json:"storeId" op:"required,id=stores"`
	Amount            int64  `json:"amountFils" op:"required"`
	IBAN              string `json:"iban" op:"required"`
	AccountHolderName string `json:"accountHolderName" op:"required"`
}

// createTransfer is payments.transfers.createTransfer: the payout's
// transfer, asked of the processor once. The transfer is recorded first
// (pending), then the processor is asked with the key payout:<payoutId>, so
// that a call again after any failure (ours, the network's, the processor's)
// finds the same transfer. A refusal by the processor (4xx) removes the
// record (nothing was sent) and is FAILED_PRECONDITION; the processor
// unreachable or failing is UNAVAILABLE, the record kept for the call again.
func (s *svc) createTransfer(ctx context.Context, args *transferArgs) (*contract.Transfer, error) {
	a := contract.TransferArgs{PayoutID: args.PayoutID, StoreID: args.StoreID, Amount: money.Fils(args.Amount), IBAN: args.IBAN, AccountHolderName: args.AccountHolderName}
	iban, holder := strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(a.IBAN), " ", "")), cleanText(a.AccountHolderName)
	switch {
	case a.Amount <= 0 || a.Amount > MaxCharge:
		return nil, apperr.Invalid("amountFils", "must be between 1 and %d fils", MaxCharge)
	case iban == "" || utf8.RuneCountInString(iban) > MaxMetadataValue:
		return nil, apperr.Invalid("iban", "must be an account number of at most %d characters", MaxMetadataValue)
	case holder == "" || utf8.RuneCountInString(holder) > MaxMetadataValue:
		return nil, apperr.Invalid("accountHolderName", "must be a name of at most %d characters", MaxMetadataValue)
	}
	if s.processor == nil {
		s.env.Logger.ErrorContext(ctx, "transfer refused: "+EnvSecretKey+" is not set", "payoutId", a.PayoutID)
		return nil, apperr.New(apperr.Unavailable, "transfers are not available: the payment processor is not configured")
	}
	t := domain.Transfer{PayoutID: a.PayoutID, StoreID: a.StoreID, Amount: a.Amount, IBAN: iban, AccountHolderName: holder,
		Status: domain.TransferPending, CreatedAt: s.env.Now().UTC()}
	existing, err := s.transfers.Claim(ctx, t)
	if err != nil {
		return nil, err
	}
	if existing != nil {
		if existing.Status == domain.TransferVoided {
			return nil, apperr.New(apperr.FailedPrecondition, "payout %s was moved by hand before its transfer was sent: it is not sent through the processor", a.PayoutID).
				WithDetails(map[string]any{"reason": reasonTransferVoided})
		}
		if !existing.SameRequest(t.StoreID, t.Amount, t.IBAN, t.AccountHolderName) {
			return nil, apperr.New(apperr.FailedPrecondition, "payout %s was sent through the processor for %s AED to another account or amount: it cannot be sent again differently",
				a.PayoutID, decimalAED(existing.Amount)).WithDetails(map[string]any{"reason": "transfer_differs", "transferId": existing.TransferID})
		}
		if existing.TransferID != "" {
			out := existing.Contract()
			return &out, nil
		}
		// Recorded, but the processor's answer was not: ask again, with
		// the same key.
		t = *existing
	}
	pctx, cancel := context.WithTimeout(ctx, processorDeadline)
	defer cancel()
	params := &stripe.PayoutCreateParams{
		Amount: stripe.Int64(int64(t.Amount)), Currency: stripe.String(Currency),
		Metadata: map[string]string{"payoutId": t.PayoutID, "storeId": t.StoreID, "iban": t.IBAN, "accountHolderName": t.AccountHolderName},
	}
	params.SetIdempotencyKey(TransferKey(t.PayoutID))
	po, err := s.processor.V1Payouts.Create(pctx, params)
	if err != nil {
		if se, refused := processorRefused(err); refused {
			if ferr := s.transfers.Forget(ctx, t.PayoutID); ferr != nil {
				return nil, ferr
			}
			s.env.Logger.WarnContext(ctx, "the processor refused a payout's transfer", "payoutId", t.PayoutID, "status", se.HTTPStatusCode,
				"code", se.Code, "param", se.Param, "message", se.Msg)
			return nil, apperr.New(apperr.FailedPrecondition, "the payment processor refused the transfer of payout %s: %s", t.PayoutID, se.Msg).
				WithDetails(map[string]any{"reason": reasonProcessorRefused, "processorCode": string(se.Code), "processorStatus": se.HTTPStatusCode})
		}
		s.env.Logger.WarnContext(ctx, "payment processor unavailable for a transfer", "payoutId", t.PayoutID, "err", err)
		return nil, apperr.New(apperr.Unavailable, "the payment processor is unavailable; send the payout again shortly (the same transfer is asked)")
	}
	if !strings.HasPrefix(po.ID, "po_") || po.Amount != int64(t.Amount) || string(po.Currency) != Currency {
		return nil, apperr.Wrap(errors.New("the processor answered payout "+strconv.Quote(po.ID)+" of "+strconv.FormatInt(po.Amount, 10)+" "+string(po.Currency)+
			" for "+strconv.FormatInt(int64(t.Amount), 10)+" aed"), apperr.Internal, "internal error")
	}
	rec, err := s.transfers.SetProcessorID(ctx, t.PayoutID, po.ID)
	if err != nil {
		return nil, err
	}
	if rec == nil || rec.TransferID != po.ID {
		return nil, apperr.Wrap(errors.New("payout "+t.PayoutID+": transfer recorded as another processor payout than "+po.ID), apperr.Internal, "internal error")
	}
	s.env.Logger.InfoContext(ctx, "payout sent through the processor", "payoutId", t.PayoutID, "transferId", po.ID, "storeId", t.StoreID, "amount", t.Amount.AED())
	out := rec.Contract()
	return &out, nil
}

// voidTransfer is payments.transfers.voidTransfer, asked by the payouts
// service before a move by hand of a payout sent through the processor:
// the payout's transfer is voided if createTransfer has not claimed it (it
// then never will: it answers transfer_voided), else answered as it is. The
// void and the claim are one insert of the same document, so of a move by
// hand and a transfer racing, one wins and the other is refused: a store is
// never paid both by its restored balance and by the processor.
func (s *svc) voidTransfer(ctx context.Context, a *contract.VoidTransferArgs) (*contract.TransferVoid, error) {
	existing, err := s.transfers.Void(ctx, a.PayoutID, s.env.Now().UTC())
	if err != nil {
		return nil, err
	}
	out := &contract.TransferVoid{PayoutID: a.PayoutID}
	if existing == nil || existing.Status == domain.TransferVoided {
		if existing == nil {
			s.env.Logger.InfoContext(ctx, "transfer voided before it was sent: the payout is moved by hand", "payoutId", a.PayoutID)
		}
		out.Voided = true
		return out, nil
	}
	tr := existing.Contract()
	out.Transfer = &tr
	return out, nil
}

// processorRefused reports an error that is the processor's refusal of what
// was asked (a 4xx other than our key refused, a rate limit, a concurrent
// request with the same key or a key conflict): asking again will not change
// it, and the processor made nothing. Anything else (unreachable, 5xx,
// 401/403, 409, 429, an idempotency error) may pass later, or may hide a
// payout the processor made: the transfer is kept.
func processorRefused(err error) (*stripe.Error, bool) {
	var se *stripe.Error
	if !errors.As(err, &se) || se.Type == stripe.ErrorTypeIdempotency {
		return se, false
	}
	switch c := se.HTTPStatusCode; c {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusConflict, http.StatusTooManyRequests:
		return se, false
	default:
		return se, c >= 400 && c < 500
	}
}

// addTransferFacts adds to out the transfers of payoutIDs this service has,
// by payout id (payments.money.getFacts: moneyfacts.go).
func (s *svc) addTransferFacts(ctx context.Context, payoutIDs []string, out map[string]contract.Transfer) error {
	if len(payoutIDs) == 0 {
		return nil
	}
	ts, err := s.transfers.Of(ctx, payoutIDs)
	if err != nil {
		return err
	}
	for i := range ts {
		if ts[i].Status != domain.TransferVoided { // voided: never a transfer
			out[ts[i].PayoutID] = ts[i].Contract()
		}
	}
	return nil
}

// processorPayout is the data.object of the payout.* events.
type processorPayout struct {
	ID, Currency, Status, FailureCode, FailureMessage string
	Amount                                            money.Fils
	PayoutID, StoreID                                 string // metadata
}

// parsePayout reads a processor payout: its id, amount (minor units),
// currency, status, failure and the metadata the transfer gave it.
func parsePayout(raw json.RawMessage) (*processorPayout, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, apperr.Invalid("data.object", "must be a payout object")
	}
	var obj struct {
		ID             string            `json:"id"`
		Amount         json.RawMessage   `json:"amount"`
		Currency       string            `json:"currency"`
		Status         string            `json:"status"`
		FailureCode    *string           `json:"failure_code"`
		FailureMessage *string           `json:"failure_message"`
		Metadata       map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, apperr.New(apperr.InvalidArgument, "data.object is not a payout: %v", err)
	}
	p := &processorPayout{ID: strings.TrimSpace(obj.ID), Currency: strings.ToLower(strings.TrimSpace(obj.Currency)), Status: obj.Status,
		PayoutID: strings.TrimSpace(obj.Metadata["payoutId"]), StoreID: strings.TrimSpace(obj.Metadata["storeId"])}
	if !strings.HasPrefix(p.ID, "po_") {
		return nil, apperr.Invalid("data.object.id", "must be a payout id (po_…), got %q", p.ID)
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(obj.Amount)), 10, 64)
	if err != nil || n <= 0 || n > money.MaxAED*100 {
		return nil, apperr.Invalid("data.object.amount", "must be a whole positive JSON number of minor units, got %s", obj.Amount)
	}
	p.Amount = money.Fils(n)
	if obj.FailureCode != nil {
		p.FailureCode = cleanText(*obj.FailureCode)
	}
	if obj.FailureMessage != nil {
		p.FailureMessage = cleanText(*obj.FailureMessage)
	}
	return p, nil
}

// payoutEvent settles a payout's transfer from payout.paid or payout.failed
// (the table of domain/transfer.go) and publishes its outcome, in one
// transaction. A payout the marketplace did not send (no payoutId in its
// metadata: the platform's own payouts to its bank) or does not know is
// acknowledged and ignored; one that contradicts its transfer (another
// processor payout, amount or currency) is refused (400).
func (s *svc) payoutEvent(ctx context.Context, ev *event) answer {
	po, err := parsePayout(ev.Data.Object)
	if err != nil {
		return s.refuse(ctx, ev, err)
	}
	outcome := domain.TransferOutcome(ev.Type)
	log := func(msg string, args ...any) {
		s.env.Logger.InfoContext(ctx, msg, append([]any{"eventId", ev.ID, "eventType", ev.Type, "transferId", po.ID, "payoutId", po.PayoutID}, args...)...)
	}
	if po.Status != "" && po.Status != outcome {
		return s.refuse(ctx, ev, apperr.Invalid("data.object.status", "is %q in a %s event", po.Status, ev.Type))
	}
	if po.PayoutID == "" {
		log("webhook payout event without a marketplace payout ignored")
		return textAnswer(textTransferNotOurs)
	}
	t, err := s.transfers.Get(ctx, po.PayoutID)
	if err != nil {
		return s.failPayout(ctx, ev, po, err)
	}
	switch {
	case t == nil || t.Status == domain.TransferVoided:
		// A voided transfer was never asked of the processor: an event of
		// it is not one of ours.
		s.env.Logger.WarnContext(ctx, "webhook payout event of a transfer not recorded here ignored", "eventId", ev.ID, "eventType", ev.Type,
			"transferId", po.ID, "payoutId", po.PayoutID, "voided", t != nil)
		return textAnswer(textTransferUnknown)
	case t.TransferID != "" && t.TransferID != po.ID:
		return s.refuse(ctx, ev, apperr.Invalid("data.object.id", "payout %s was sent as %s, not %s", t.PayoutID, t.TransferID, po.ID))
	case po.Amount != t.Amount || po.Currency != Currency:
		return s.refuse(ctx, ev, apperr.Invalid("data.object.amount", "payout %s was sent for %d %s, the event says %d %s", t.PayoutID, t.Amount, Currency, po.Amount, po.Currency))
	}
	ignore := func(status string) answer {
		// The settling commit may not be on disk yet (the embedded engine's
		// group commit): answer once it is.
		if err := s.env.DB.WaitDurable(ctx); err != nil {
			return s.failPayout(ctx, ev, po, err)
		}
		if domain.LateFailure(status, ev.Type) {
			s.env.Logger.WarnContext(ctx, "payout.failed after the transfer was paid: ignored; the payout stays completed (an operator's case)",
				"eventId", ev.ID, "transferId", po.ID, "payoutId", po.PayoutID, "failureCode", po.FailureCode, "failureMessage", po.FailureMessage)
		} else {
			log("webhook payout event of a settled transfer ignored", "status", status)
		}
		return textAnswer(textTransferSettled)
	}
	if domain.TransferVerdict(t.Status, ev.Type) == domain.IgnoreEvent {
		return ignore(t.Status)
	}
	now := s.env.Now().UTC()
	settled := *t
	settled.TransferID, settled.Status, settled.SettledAt = po.ID, outcome, &now
	if outcome == domain.TransferFailed {
		settled.FailureCode, settled.FailureMessage = po.FailureCode, po.FailureMessage
	}
	kind := contract.EventTransferPaid
	if outcome == domain.TransferFailed {
		kind = contract.EventTransferFailed
	}
	var status string
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		ok, err := s.transfers.Settle(ctx, t.PayoutID, po.ID, outcome, settled.FailureCode, settled.FailureMessage, ev.ID, now)
		if err != nil {
			return err
		}
		if !ok {
			return errAlreadyRecorded
		}
		_, err = s.env.Outbox.Add(ctx, Topic, kind, t.PayoutID, settled.Contract())
		return err
	})
	if errors.Is(err, errAlreadyRecorded) {
		if cur, gerr := s.transfers.Get(ctx, t.PayoutID); gerr == nil && cur != nil {
			status = cur.Status
		}
		return ignore(status)
	}
	if err != nil {
		return s.failPayout(ctx, ev, po, err)
	}
	s.env.Relay.Kick()
	log("transfer settled", "status", outcome, "amount", t.Amount.AED())
	if outcome == domain.TransferFailed {
		return textAnswer(textTransferFailed)
	}
	return textAnswer(textTransferPaid)
}

// failPayout answers a failed step of a payout event with its error's status.
func (s *svc) failPayout(ctx context.Context, ev *event, po *processorPayout, err error) answer {
	a := failure(err, ev.ID)
	s.env.Logger.ErrorContext(ctx, "webhook payout event failed", "eventId", ev.ID, "eventType", ev.Type, "transferId", po.ID,
		"payoutId", po.PayoutID, "status", a.status, "err", err)
	return a
}
