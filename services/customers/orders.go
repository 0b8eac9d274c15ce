package customers

import (
	"context"
	"errors"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/ids"
	"marketplace/libs/money"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/customers/domain"
)

// TopicOrders carries order.created and order.status_changed, keyed by order id.
const TopicOrders = contract.TopicOrders

type createOrderArgs struct {
	CustomerID      string                 `json:"customerId" op:"required,id=customers"`
	StoreID         string                 `json:"storeId" op:"required,id=stores"`
	PaymentIntentID string                 `json:"paymentIntentId" op:"required,nonblank,max=255"`
	DeliveryAddress domain.DeliveryAddress `json:"deliveryAddress" op:"required"`
	DeliveryType    string                 `json:"deliveryType" op:"required,nonblank,max=200"`
	DeliveryFee     money.Fils             `json:"deliveryFee" op:"required,min=0"`
	// What the processor charged, in the minor units of currency / 100 (AED for
	// aed): compared with the order's total.
	AmountPaid money.Fils `json:"amountPaid" op:"required,min=0"`
	Currency   string     `json:"currency" op:"required,nonblank,max=3"`
}

// CreatedOrder is createOrderFromCart's answer (the contract's).
type CreatedOrder = contract.CreatedOrder

// createOrderFromCart turns the customer's cart lines of one store into a paid
// order (domain.NewPaidOrder). At most one order exists per payment intent
// (unique index); the order, the removal of those cart lines and the
// order.created event commit together. A payment that finds no lines of the
// store is never refused (the customer was charged): it makes an order held
// for review with reason cart_empty.
func (s *svc) createOrderFromCart(ctx context.Context, a *createOrderArgs) (*CreatedOrder, error) {
	if o, err := s.orders.ByIntent(ctx, a.PaymentIntentID); err != nil || o != nil {
		if o != nil {
			return &CreatedOrder{OrderID: o.ID}, nil
		}
		return nil, err
	}
	p, err := s.profiles.Get(ctx, a.CustomerID)
	if err != nil {
		return nil, err
	}
	st, err := s.catalog.Store(ctx, a.StoreID)
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, apperr.New(apperr.NotFound, "store %s does not exist", a.StoreID)
	}
	// The cart may change between reading it and committing (the customer adds an
	// item): the transaction re-reads it and starts over if it did.
	return store.Retry(ctx, "the cart", func(ctx context.Context) (*CreatedOrder, error) {
		return s.tryCreateOrder(ctx, a, p, st)
	})
}

func (s *svc) tryCreateOrder(ctx context.Context, a *createOrderArgs, p *domain.Profile, st *catalog.Store) (*CreatedOrder, error) {
	lines, err := s.cart.Lines(ctx, p.ID, &a.StoreID)
	if err != nil {
		return nil, err
	}
	var c domain.Commission
	if len(lines) == 0 {
		// A concurrent delivery of the same payment may have just turned these
		// lines into the order.
		if o, err := s.orders.ByIntent(ctx, a.PaymentIntentID); err != nil || o != nil {
			if o != nil {
				return &CreatedOrder{OrderID: o.ID}, nil
			}
			return nil, err
		}
	} else if c, err = s.commission(ctx, a.StoreID, domain.PriceLines(lines, a.DeliveryFee)); err != nil {
		return nil, err
	}
	o := domain.NewPaidOrder(ids.New("orders"), p, domain.StoreRef{ID: st.ID, Name: st.Name, OwnerUserID: st.OwnerUserID}, lines,
		domain.Payment{IntentID: a.PaymentIntentID, DeliveryAddress: a.DeliveryAddress, DeliveryType: a.DeliveryType,
			DeliveryFee: a.DeliveryFee, AmountPaid: a.AmountPaid, Currency: a.Currency}, c, s.now())
	lineIDs := make([]string, len(lines))
	for i, l := range lines {
		lineIDs[i] = l.ID
	}
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		now, err := s.cart.Lines(ctx, p.ID, &a.StoreID)
		if err != nil {
			return err
		}
		if !domain.SameLines(lines, now) {
			return store.ErrConflict // (also when a concurrent delivery ordered them, or a line arrived)
		}
		if err := s.orders.Insert(ctx, &o); err != nil {
			return err
		}
		if err := s.cart.Delete(ctx, p.ID, lineIDs...); err != nil {
			return err
		}
		_, err = s.env.Outbox.Add(ctx, TopicOrders, contract.EventOrderCreated, o.ID, o.CreatedEvent())
		return err
	})
	if store.IsDuplicate(err) {
		// A concurrent delivery of the same payment created the order first.
		existing, ferr := s.orders.ByIntent(ctx, a.PaymentIntentID)
		if ferr != nil || existing == nil {
			return nil, errors.Join(err, ferr)
		}
		return &CreatedOrder{OrderID: existing.ID}, nil
	}
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	res := &CreatedOrder{OrderID: o.ID, Created: true}
	if r := o.PaymentReview; r != nil {
		msg := "paid order held for review: the payment does not match the order's total"
		if o.NothingToDeliver() {
			msg = "paid order held for review: the cart holds nothing of the store (a second payment of the cart, or a cart emptied before paying); to be cancelled and refunded"
		}
		s.env.Logger.WarnContext(ctx, msg, "orderId", o.ID, "paymentIntentId", o.PaymentIntentID, "customerId", o.CustomerID,
			"storeId", o.StoreID, "reason", r.Reason, "total", o.Total.AED(), "amountPaid", r.AmountPaid.AED(), "currency", r.Currency)
		res.HeldForReview, res.ReviewReason = true, r.Reason
	}
	return res, nil
}

// commission is the platform's commission on priced lines of a store, with
// the rules in force now (the platformconfig service's).
func (s *svc) commission(ctx context.Context, storeID string, pr domain.Priced) (domain.Commission, error) {
	c, err := s.commissions.Commission(ctx, storeID, pr.Subtotal, pr.DeliveryFee)
	if err != nil {
		return domain.Commission{}, err
	}
	out := domain.Commission{Rate: c.CommissionRate}
	for _, f := range []struct {
		dst *money.Fils
		v   float64
	}{{&out.Platform, c.PlatformCommission}, {&out.StoreEarnings, c.StoreEarnings}, {&out.FixedFee, c.FixedFee}} {
		if *f.dst, err = money.FromAED(f.v); err != nil {
			return domain.Commission{}, err
		}
	}
	return out, nil
}

type intentArgs struct {
	PaymentIntentID string `json:"paymentIntentId" op:"required,nonblank,max=255"`
}

// getOrderByPaymentIntent: the caller's own order; administrators see any.
// Another customer's payment answers null, exactly as a payment of no order
// (no existence oracle).
func (s *svc) getOrderByPaymentIntent(ctx context.Context, a *intentArgs) (*domain.OrderView, error) {
	o, err := s.orders.ByIntent(ctx, a.PaymentIntentID)
	if err != nil || o == nil {
		return nil, err
	}
	id := ops.Caller(ctx)
	if !o.VisibleTo(id.Sub, id.IsAdmin()) {
		return nil, nil // another customer's payment: as for one that made no order
	}
	return s.namedOne(ctx, o, id.IsAdmin())
}

type myOrdersArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

func (s *svc) getMyOrders(ctx context.Context, a *myOrdersArgs) (page.Result[domain.OrderView], error) {
	// Orders are the caller's by user id (copied from the profile), so no profile
	// lookup is needed: a user without one simply has none.
	r, err := s.orders.PageOfCustomer(ctx, ops.Caller(ctx).Sub, a.PaginationOpts)
	if err != nil {
		return page.Result[domain.OrderView]{}, err
	}
	return s.named(ctx, r, false)
}

type updateStatusArgs struct {
	OrderID string `json:"orderId" op:"required,id=orders"`
	Status  string `json:"status" op:"required,enum=pending|confirmed|preparing|out_for_delivery|delivered|cancelled"`
}

// storeOfOrder leads the access check of updateOrderStatus from the order to
// its store.
func (s *svc) storeOfOrder(ctx context.Context, orderID string) (string, error) {
	return s.orders.StoreOf(ctx, orderID)
}

// updateOrderStatus moves an order along its status machine (domain.Order.Move);
// the store's owner or an administrator may (the registry checked the caller
// against the store). The move and its order.status_changed event commit
// together, and a concurrent move of the same order cannot both succeed. A
// move to cancelled of a paid order refunds it in full (refunds.go).
func (s *svc) updateOrderStatus(ctx context.Context, a *updateStatusArgs) (ops.Null, error) {
	caller := ops.Caller(ctx)
	return nil, s.move(ctx, a.OrderID, func(o *domain.Order) (contract.OrderEvent, error) {
		return o.MoveNamed(a.Status, caller.Sub, caller.Name, caller.IsAdmin(), s.now())
	})
}

// getPurchaseFacts is for the reviews service: what it needs to decide a
// review's verified purchase, from the orders as committed, so a review sent
// right after updateOrderStatus(delivered) returned sees the delivery. The
// delivered orders (a cancelled order is never delivered) come oldest first:
// the reviews service verifies one review without orderId per delivered order
// that no verified review of the customer uses.
func (s *svc) getPurchaseFacts(ctx context.Context, a *contract.PurchaseFactsArgs) (*contract.PurchaseFacts, error) {
	var o *domain.Order
	if a.OrderID != nil {
		var err error
		if o, err = s.orders.Brief(ctx, *a.OrderID); err != nil {
			return nil, err
		}
	}
	n, delivered, err := s.orders.Delivered(ctx, a.CustomerID, a.StoreID)
	if err != nil {
		return nil, err
	}
	out := domain.PurchaseFacts(o, a.CustomerID, a.StoreID, n, delivered)
	return &out, nil
}
