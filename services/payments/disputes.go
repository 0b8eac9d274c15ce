package payments

// Disputes (docs/adr/0149-refunds-and-disputes-at-the-processor.md): the
// processor's charge.dispute.created and charge.dispute.closed become a
// dispute record and payment.dispute_opened / payment.dispute_closed (rules:
// domain/dispute.go), listed to administrators and store owners and told to
// the services that move money on them (payments.money.getFacts).

import (
	"context"
	"errors"

	"github.com/stripe/stripe-go/v86"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/payments"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/payments/domain"
	"marketplace/services/payments/storage"
)

// Plain-text bodies of the dispute events' 200 answers.
const (
	textDisputeOpened = "Dispute opened"
	textDisputeClosed = "Dispute closed: "
	textDisputeStatus = "Dispute status not acted on: "
)

// dispute handles charge.dispute.created and charge.dispute.closed.
func (s *svc) dispute(ctx context.Context, ev *event) answer {
	o, err := parseDispute(ev.Data.Object)
	if err != nil {
		return s.refuse(ctx, ev, err)
	}
	p := &paymentIntent{ID: o.PaymentIntent}
	outcome := ""
	if ev.Type == typeDisputeClosed {
		var ok bool
		if outcome, ok = domain.ClosedOutcome(o.Status); !ok {
			// An inquiry closed without a chargeback (warning_closed), say:
			// nothing was won or lost.
			s.env.Logger.WarnContext(ctx, "dispute closed with a status not acted on", "eventId", ev.ID, "disputeId", o.ID, "status", o.Status)
			return textAnswer(textDisputeStatus + o.Status)
		}
	}
	if a, done := s.alreadyProcessed(ctx, ev, p); done {
		return a
	}
	orderID, storeID, err := s.orderOfIntent(ctx, o.PaymentIntent)
	if err != nil {
		return s.fail(ctx, ev, p, err)
	}
	if storeID == "" {
		// An order made before the store was recorded with it: the
		// intent's metadata at the processor names it.
		if storeID, err = s.intentStore(ctx, o.PaymentIntent); err != nil {
			return s.fail(ctx, ev, p, err)
		}
	}
	now := s.env.Now().UTC().UnixMilli()
	fresh := domain.Dispute{ID: o.ID, PaymentIntentID: o.PaymentIntent, ChargeID: o.Charge, OrderID: orderID, StoreID: storeID,
		Amount: o.Amount, Currency: o.Currency, Reason: o.Reason, DueBy: o.DueBy, OpenedAt: o.Created}
	if fresh.OpenedAt == 0 {
		fresh.OpenedAt = now
	}
	var notes []func()
	text := textNothingNew
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		notes, text = notes[:0], textNothingNew
		cur, err := s.disputes.Get(ctx, o.ID)
		if err != nil {
			return err
		}
		status := domain.DisputeNone
		if cur != nil {
			status = cur.Status
		}
		var tell []domain.Dispute
		var next domain.Dispute
		switch domain.DisputeVerdictFor(status, outcome) {
		case domain.DisputeRecordOpen:
			next = fresh.Open("", 0)
			tell, text = []domain.Dispute{next}, textDisputeOpened
		case domain.DisputeRecordClosed:
			next = fresh.Open(outcome, now)
			tell, text = []domain.Dispute{fresh.Open("", 0), next}, textDisputeClosed+outcome
		case domain.DisputeClose:
			next = cur.Close(outcome, now)
			tell, text = []domain.Dispute{next}, textDisputeClosed+outcome
		case domain.DisputeContradict:
			notes = append(notes, func() {
				s.env.Logger.ErrorContext(ctx, "payments: a dispute closed again with another outcome: ignored", "disputeId", o.ID,
					"status", status, "outcome", outcome, "eventId", ev.ID)
			})
		}
		if tell != nil {
			if err := s.disputes.Save(ctx, cur, next); err != nil {
				return err
			}
			for _, d := range tell {
				typ := contract.EventDisputeOpened
				if d.Status != domain.DisputeOpen {
					typ = contract.EventDisputeClosed
				}
				if _, err := s.env.Outbox.Add(ctx, Topic, typ, d.PaymentIntentID, d.Contract()); err != nil {
					return err
				}
			}
			notes = append(notes, func() {
				s.env.Logger.InfoContext(ctx, "payments: dispute "+next.Status, "disputeId", next.ID, "orderId", next.OrderID, "storeId", next.StoreID,
					"paymentIntentId", next.PaymentIntentID, "amount", next.Amount.AED(), "eventId", ev.ID)
			})
		}
		return s.recordOnce(ctx, ev, p)
	})
	return s.settled(ctx, ev, p, err, notes, text)
}

// intentStore is the storeId of a payment intent's metadata at the
// processor.
func (s *svc) intentStore(ctx context.Context, intentID string) (string, error) {
	if s.processor == nil {
		return "", apperr.New(apperr.Unavailable, "the store of payment intent %s is not recorded and the processor is not configured", intentID)
	}
	pctx, cancel := context.WithTimeout(ctx, processorDeadline)
	defer cancel()
	pi, err := s.processor.V1PaymentIntents.Retrieve(pctx, intentID, nil)
	if err != nil {
		var se *stripe.Error
		if errors.As(err, &se) && se.HTTPStatusCode == 404 {
			return "", apperr.New(apperr.NotFound, "payment intent %s does not exist at the processor", intentID)
		}
		return "", s.processorFailure(ctx, err)
	}
	storeID := pi.Metadata["storeId"]
	if !ids.Valid("stores", storeID) {
		return "", apperr.Invalid("metadata.storeId", "payment intent %s at the processor names no store (%q)", intentID, storeID)
	}
	return storeID, nil
}

// DisputeView is a dispute as the list operations show it: amounts in AED,
// times in epoch ms.
type DisputeView struct {
	DisputeID       string  `json:"disputeId"`
	PaymentIntentID string  `json:"paymentIntentId"`
	OrderID         string  `json:"orderId"`
	StoreID         string  `json:"storeId"`
	Amount          float64 `json:"amount"`
	Currency        string  `json:"currency"`
	Reason          string  `json:"reason"`
	Status          string  `json:"status" enum:"open|won|lost"`
	DueBy           int64   `json:"dueBy"`
	OpenedAt        int64   `json:"openedAt"`
	ClosedAt        *int64  `json:"closedAt"`
}

func disputeView(d *domain.Dispute) DisputeView {
	v := DisputeView{DisputeID: d.ID, PaymentIntentID: d.PaymentIntentID, OrderID: d.OrderID, StoreID: d.StoreID, Amount: d.Amount.AED(),
		Currency: d.Currency, Reason: d.Reason, Status: d.Status, DueBy: d.DueBy, OpenedAt: d.OpenedAt}
	if d.ClosedAt != 0 {
		closed := d.ClosedAt
		v.ClosedAt = &closed
	}
	return v
}

type disputesArgs struct {
	Status         *string   `json:"status" op:"enum=open|won|lost|closed"`
	StoreID        *string   `json:"storeId" op:"id=stores"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=due|newest|oldest"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

type storeDisputesArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	Status         *string   `json:"status" op:"enum=open|won|lost|closed"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=due|newest|oldest"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// maxDisputeDays is the longest openedAt range a list takes.
const maxDisputeDays = 366

// DisputeOrder is how a disputes list is sorted, from its arguments
// (docs/adr/0171): by deadline (due) only the open ones, and without a
// date range (no index serves a range of openedAt sorted by dueBy); the
// default is due for the open ones, newest otherwise. A reversed range or
// one over 366 days is refused. All INVALID_ARGUMENT.
func DisputeOrder(status, sort *string, from, to *int64) (byDue, desc bool, err error) {
	if from != nil && to != nil {
		if *from > *to {
			return false, false, apperr.Invalid("to", "must not be before from (%d > %d)", *from, *to)
		}
		if *to-*from > maxDisputeDays*24*60*60*1000 {
			return false, false, apperr.Invalid("to", "a list's date range covers at most %d days", maxDisputeDays).
				WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": maxDisputeDays})
		}
	}
	open := status != nil && *status == domain.DisputeOpen
	ranged := from != nil || to != nil
	s := deref(sort)
	if s == "" {
		if open && !ranged {
			return true, false, nil
		}
		return false, true, nil
	}
	if s == "due" {
		if !open {
			return false, false, apperr.Invalid("sort", "only the open disputes are listed by deadline (status open)").
				WithDetails(map[string]any{"field": "sort", "reason": "due_needs_open"})
		}
		if ranged {
			return false, false, apperr.Invalid("sort", "a date range lists by the date opened (newest or oldest)").
				WithDetails(map[string]any{"field": "sort", "reason": "sort_with_range"})
		}
		return true, false, nil
	}
	return false, s == "newest", nil
}

// listDisputes pages every store's disputes (admins.disputes.listDisputes).
func (s *svc) listDisputes(ctx context.Context, a *disputesArgs) (page.Result[DisputeView], error) {
	byDue, desc, err := DisputeOrder(a.Status, a.Sort, a.From, a.To)
	if err != nil {
		return page.Result[DisputeView]{}, err
	}
	r, err := s.disputes.Page(ctx, storage.DisputeFilter{StoreID: deref(a.StoreID), Status: deref(a.Status), From: a.From, To: a.To}, byDue, desc, a.PaginationOpts)
	if err != nil {
		return page.Result[DisputeView]{}, err
	}
	return page.Map(r, disputeView), nil
}

// listStoreDisputes pages one store's disputes (stores.disputes.listDisputes).
func (s *svc) listStoreDisputes(ctx context.Context, a *storeDisputesArgs) (page.Result[DisputeView], error) {
	byDue, desc, err := DisputeOrder(a.Status, a.Sort, a.From, a.To)
	if err != nil {
		return page.Result[DisputeView]{}, err
	}
	r, err := s.disputes.Page(ctx, storage.DisputeFilter{StoreID: ops.StoreOf(ctx).ID, OwnStore: true, Status: deref(a.Status), From: a.From, To: a.To}, byDue, desc, a.PaginationOpts)
	if err != nil {
		return page.Result[DisputeView]{}, err
	}
	return page.Map(r, disputeView), nil
}

// addDisputeFacts adds to out the disputes of ids that exist, as recorded
// (payments.money.getFacts, moneyfacts.go).
func (s *svc) addDisputeFacts(ctx context.Context, ids []string, out map[string]contract.Dispute) error {
	ds, err := s.disputes.Many(ctx, ids)
	if err != nil {
		return err
	}
	for id, d := range ds {
		out[id] = d.Contract()
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
