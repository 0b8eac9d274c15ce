package customers

import (
	"context"
	"fmt"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	"marketplace/libs/events"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

type refundArgs struct {
	OrderID string `json:"orderId" op:"required,id=orders"`
	Reason  string `json:"reason" op:"required,nonblank,max=500"`
	// AED; omitted (and no lines): all that is left to refund.
	Amount *float64            `json:"amount" op:"min=0.01"`
	Lines  []domain.RefundLine `json:"lines" op:"max=100"`
}

// RefundAnswer is refundOrder's answer: the refund asked (requested until the
// processor confirms it) and what is left to refund after it (AED).
type RefundAnswer struct {
	RefundID         string  `json:"refundId"`
	Status           string  `json:"status" enum:"requested|succeeded|failed"`
	Amount           float64 `json:"amount"`
	RefundableAmount float64 `json:"refundableAmount"`
}

// refundOrder reserves a refund on an order and asks the processor for it
// (through the payments service, order.refund_requested): administrators any
// paid order, the store's owner their store's within the window
// (domain.Order.RequestRefund). The reservation and its event commit
// together; two refunds that together would exceed what was paid cannot both
// commit: the later one is judged again on the order as the first left it.
func (s *svc) refundOrder(ctx context.Context, a *refundArgs) (*RefundAnswer, error) {
	caller := ops.Caller(ctx)
	// A call without an Idempotency-Key identical to a refund still pending
	// is taken for a retry and refused (refund_duplicate): a keyed retry is
	// replayed by libs/ops, a new key asks for another refund.
	req := domain.RefundRequest{ID: ids.New("refunds"), Lines: a.Lines, Reason: a.Reason, By: caller.Sub, Admin: caller.IsAdmin(), Origin: domain.RefundByStore,
		Unkeyed: !ops.IdempotencyKeyed(ctx)}
	if req.Admin {
		req.Origin = domain.RefundByAdmin
	}
	if a.Amount != nil {
		f, err := money.FromAED(*a.Amount)
		if err != nil {
			return nil, apperr.New(apperr.InvalidArgument, "amount: %v", err).WithDetails(map[string]any{"field": "amount"})
		}
		req.Amount = &f
	}
	return store.Retry(ctx, "the order", func(ctx context.Context) (*RefundAnswer, error) {
		var out *RefundAnswer
		err := s.env.DB.Joined(ctx, func(ctx context.Context) error {
			var ev contract.RefundRequested
			err := s.orders.UpdateMoney(ctx, a.OrderID, func(o *domain.Order) error {
				r, e, err := o.RequestRefund(req, s.now())
				if err != nil {
					return err
				}
				ev = e
				out = &RefundAnswer{RefundID: r.ID, Status: r.Status, Amount: money.Major(int64(r.Amount), o.Currency()),
					RefundableAmount: money.Major(int64(o.Refundable()), o.Currency())}
				return nil
			})
			if err != nil {
				return err
			}
			_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventRefundRequested, a.OrderID, ev)
			return err
		})
		if err != nil {
			return nil, err
		}
		s.env.Relay.Kick()
		return out, nil
	})
}

type cancelMyOrderArgs struct {
	OrderID string `json:"orderId" op:"required,id=orders"`
}

// cancelMyOrder cancels the caller's own order before the store prepares it
// (pending or confirmed) and refunds what was paid in full.
func (s *svc) cancelMyOrder(ctx context.Context, a *cancelMyOrderArgs) (ops.Null, error) {
	caller := ops.Caller(ctx)
	return nil, s.cancel(ctx, a.OrderID, func(o *domain.Order) error {
		if !o.VisibleTo(caller.Sub, false) {
			return apperr.New(apperr.NotFound, "order %s does not exist", a.OrderID)
		}
		return o.CancelByCustomer()
	})
}

// cancel moves an order to cancelled for its customer after check, with its
// full refund when it was paid: the move, the refund's reservation and both
// events commit together.
func (s *svc) cancel(ctx context.Context, orderID string, check func(*domain.Order) error) error {
	caller := ops.Caller(ctx)
	return s.move(ctx, orderID, func(o *domain.Order) (contract.OrderEvent, error) {
		if err := check(o); err != nil {
			return contract.OrderEvent{}, err
		}
		return o.CancelAsCustomer(caller.Sub, s.now())
	})
}

// move runs a status move of an order and publishes its order.status_changed
// event; a move to cancelled of a paid order reserves its full refund and
// publishes order.refund_requested in the same transaction.
func (s *svc) move(ctx context.Context, orderID string, fn func(*domain.Order) (contract.OrderEvent, error)) error {
	err := s.env.DB.Joined(ctx, func(ctx context.Context) error {
		var ev contract.OrderEvent
		var refund *contract.RefundRequested
		err := s.orders.Update(ctx, orderID, func(o *domain.Order) (err error) {
			if ev, err = fn(o); err != nil {
				return err
			}
			refund = nil
			if o.Status == domain.StatusCancelled {
				refund = o.RefundOnCancel(ids.New("refunds"), ev.ChangedBy, s.now())
			}
			return nil
		})
		if err != nil {
			return err
		}
		if _, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventOrderStatusChanged, orderID, ev); err != nil {
			return err
		}
		if refund != nil {
			_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventRefundRequested, orderID, *refund)
		}
		return err
	})
	if err == nil {
		s.env.Relay.Kick()
	}
	return err
}

// consume follows the payments service's refunds and disputes until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: GroupID, Topics: []string{payments.Topic},
		DB: s.env.DB, Handler: s.onEvent, Handles: consumed, Publisher: s.env.Publisher, Logger: s.env.Logger, Status: s.status,
		AfterCommit: s.env.Relay.Kick,
	})
}

// GroupID is the consumer group of the customers service's consumer.
const GroupID = "customers"

// consumed are the events the consumer follows, in the versions onEvent reads.
var consumed = events.Versions{payments.EventPaymentRefunded: {1}, payments.EventPaymentRefundFailed: {1},
	payments.EventDisputeOpened: {1}, payments.EventDisputeClosed: {1}}

// onEvent is the consumer's handler: ctx is its transaction, which also
// records the event id as processed.
func (s *svc) onEvent(ctx context.Context, env events.Envelope) error {
	switch env.Type {
	case payments.EventPaymentRefunded:
		var d payments.PaymentRefunded
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		return s.settleRefund(ctx, env, d.OrderID, d.PaymentIntentID, domain.Settlement{RefundID: d.RefundID, ProcessorRefundID: d.ProcessorRefundID,
			Succeeded: true, Amount: d.Amount})
	case payments.EventPaymentRefundFailed:
		var d payments.PaymentRefundFailed
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		return s.settleRefund(ctx, env, d.OrderID, d.PaymentIntentID, domain.Settlement{RefundID: d.RefundID, ProcessorRefundID: d.ProcessorRefundID,
			FailureReason: d.FailureReason})
	case payments.EventDisputeOpened, payments.EventDisputeClosed:
		var d payments.Dispute
		if err := events.DecodeData(env, &d); err != nil {
			return err
		}
		id, err := s.orderOf(ctx, env, d.OrderID, d.PaymentIntentID)
		if err != nil || id == "" {
			return err
		}
		var owed *contract.RefundRequested
		if err := s.orders.UpdateMoney(ctx, id, func(o *domain.Order) error {
			owed = nil
			if o.NoteDispute(d.DisputeID, d.Amount, d.Currency, d.Status) {
				o.UpdatedAt = s.now()
				// A cancelled order's refund waited for the dispute.
				owed = o.RefundOwed(ids.New("refunds"), s.now())
			}
			return nil
		}); err != nil || owed == nil {
			return err
		}
		_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventRefundRequested, id, *owed)
		return err
	}
	return nil
}

// orderOf is the order an event of the payments service names, by id or else
// by payment intent; "" (the event is acknowledged) when there is none.
func (s *svc) orderOf(ctx context.Context, env events.Envelope, orderID, intentID string) (string, error) {
	if orderID != "" && ids.Valid("orders", orderID) {
		return orderID, nil
	}
	o, err := s.orders.ByIntent(ctx, intentID)
	if err != nil {
		return "", err
	}
	if o == nil {
		s.env.Logger.WarnContext(ctx, "customers: a payments event names no order", "type", env.Type, "id", env.ID, "orderId", orderID, "paymentIntentId", intentID)
		return "", nil
	}
	return o.ID, nil
}

// settleRefund records the processor's outcome of a refund on its order and
// publishes order.refunded or order.refund_failed with it.
func (s *svc) settleRefund(ctx context.Context, env events.Envelope, orderID, intentID string, st domain.Settlement) error {
	if st.RefundID == "" {
		return fmt.Errorf("%s %s: no refundId", env.Type, env.ID)
	}
	id, err := s.orderOf(ctx, env, orderID, intentID)
	if err != nil || id == "" {
		return err
	}
	var ok *contract.OrderRefunded
	var failed *contract.RefundFailed
	var owed *contract.RefundRequested
	if err := s.orders.UpdateMoney(ctx, id, func(o *domain.Order) error {
		ok, failed = o.SettleRefund(st, s.now())
		owed = nil
		if failed != nil || ok != nil {
			// A cancelled order is refunded all that is left, whatever
			// failed or was reserved before its cancellation.
			owed = o.RefundOwed(ids.New("refunds"), s.now())
		}
		return nil
	}); err != nil {
		return err
	}
	switch {
	case ok != nil:
		_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventOrderRefunded, id, *ok)
	case failed != nil:
		_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventRefundFailed, id, *failed)
	}
	if err == nil && owed != nil {
		_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventRefundRequested, id, *owed)
	}
	return err
}
