// Package customers owns customer profiles and carts (and, next, orders).
package customers

import (
	"context"
	"fmt"

	"marketplace/libs/cache"
	"marketplace/libs/contracts/catalog"
	contract "marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	"marketplace/libs/contracts/platformconfig"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/services/customers/domain"
	"marketplace/services/customers/storage"
)

// Module is the customers service.
var Module = service.Module{Name: contract.Service, Build: build, Settings: func() any { s := DefaultSettings(); return &s }, Publishes: []string{contract.TopicOrders},
	Consumes: []string{payments.Topic}, Calls: []string{catalog.Service, platformconfig.Service}}

// Limits of a cart (domain.CanTake, domain.CheckNewLine hold them).
const (
	MaxQuantity  = domain.MaxQuantity  // of one product
	MaxCartLines = domain.MaxCartLines // distinct products
)

// CanMove reports whether an order may go from one status to another (the
// status machine: domain.CanMove).
func CanMove(from, to string) bool { return domain.CanMove(from, to) }

type svc struct {
	env service.Env
	// exports: one CSV export per caller at a time (ADR 0157).
	exports     httpserver.ExportSlots
	catalog     *catalog.Client
	commissions *platformconfig.Client
	profiles    *storage.Profiles
	cart        *storage.Cart
	orders      *storage.Orders
	placeNames  *cache.TTL[string, domain.PlaceName]
	set         Settings
	status      *events.ConsumerStatus
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, catalog: catalog.NewClient(env.Calls), commissions: platformconfig.NewClient(env.Calls),
		profiles: storage.NewProfiles(env.DB), cart: storage.NewCart(env.DB), orders: storage.NewOrders(env.DB),
		placeNames: newPlaceNames(), set: DefaultSettings(), status: events.NewConsumerStatus(0)}
	if p, ok := env.Settings.(*Settings); ok && p != nil {
		s.set = *p
	}
	return &service.Built{
		Registry: ops.NewRegistry("customers",
			ops.NewMutation("customers.profile.upsertMyProfile", ops.Authenticated, "Create or update the caller's customer profile.", s.upsertMyProfile),
			ops.NewQuery("customers.profile.getMyProfile", ops.Authenticated, "The caller's customer profile, or null.", s.getMyProfile),
			ops.NewMutation("customers.cart.addItem", ops.Customer, "Add a product to the caller's cart (again: more of it).", s.addItem),
			ops.NewQuery("customers.cart.getMyCart", ops.Customer, "The caller's cart, optionally one store's part, with its subtotal.", s.getMyCart),
			ops.NewMutation("customers.cart.removeItem", ops.Customer, "Remove a line from the caller's cart.", s.removeItem),
			ops.NewQuery("customers.profile.getProfiles", ops.Internal, "Profiles by id, in one call.", s.getProfiles, ops.CalledBy("payments")),
			ops.NewMutation("customers.cartToOrder.createOrderFromCart", ops.Internal, "Turn the customer's cart lines of a store into a paid order (once per payment intent); a payment that finds no lines of the store makes an order held for review (cart_empty).", s.createOrderFromCart, ops.CalledBy("payments")),
			ops.NewQuery("customers.orders.getOrderByPaymentIntent", ops.Authenticated, "The caller's order paid with a payment intent (administrators: anyone's), or null.", s.getOrderByPaymentIntent),
			ops.NewQuery("customers.orders.getMyOrders", ops.Customer, "The caller's orders, newest first.", s.getMyOrders),
			ops.NewQuery(contract.OpGetCheckoutQuote, ops.Internal, "The customer's cart lines of a store priced for checkout, with the delivery fee and the profile's phone (the payments service's payment intent).", s.getCheckoutQuote, ops.CalledBy("payments")),
			ops.NewQuery(contract.OpGetPurchaseFacts, ops.Internal, "Whether an order exists, is the customer's and of the store, and its status; and the customer's delivered orders of the store (how many, and the first 1,000, oldest first): the reviews service's verified purchase.", s.getPurchaseFacts, ops.CalledBy("reviews")),
			ops.NewQuery(contract.OpGetOrderFacts, ops.Internal, "Orders by id as their owner has them: store, status, total, commission, store earnings (fils), delivery time, payment and refunds; unknown ids absent (the payouts service credits earnings and reverses refunds only as confirmed here, the payments service asks the processor only for refunds confirmed here).", s.getOrderFacts, ops.CalledBy("payouts", "payments")),
			ops.NewQuery(contract.OpGetMoneyTotals, ops.Internal, "Sums of the money of every order paid in AED (fils): captured, refunded, taken back by lost disputes, still with undelivered orders, paid beyond the total of delivered ones; for the platform's reconciliation.", s.getMoneyTotals, ops.CalledBy("payouts")),
			ops.NewMutation("stores.orders.updateOrderStatus", ops.StoreOwnerOrAdmin, "Move an order along its status machine (store owner or administrator): one step at a time along pending, confirmed, preparing, out_for_delivery, delivered, or to cancelled from any status before delivered. Any other move is FAILED_PRECONDITION (details.reason status_not_allowed) naming the statuses allowed from the current one (details.current, details.requested, details.allowed).", s.updateOrderStatus,
				ops.StoreVia("orderId", s.storeOfOrder)),
			ops.NewQuery("stores.orders.listStoreOrders", ops.StoreOwnerOrAdmin, "A store's orders (store owner or administrator), newest first or as sort says (oldest, total_desc, total_asc; a cursor serves only its own sort; the total sorts go with no other filter: with status, from/to, number or customerId INVALID_ARGUMENT details.reason sort_with_filter, details.filters naming them), optionally of one status, created from..to (epoch ms, inclusive), of one order number (six hexadecimal digits, optionally after #: several orders may share one) or one customer; with the customer's name and the delivery places' names.", s.listStoreOrders,
				ops.StoreArg("storeId")),
			ops.NewQuery("stores.orders.countStoreOrders", ops.StoreOwnerOrAdmin, fmt.Sprintf("How many orders listStoreOrders lists with the same filters, up to %d (then capped: true).", domain.MaxCount), s.countStoreOrders,
				ops.StoreArg("storeId")),
			ops.NewQuery("stores.orders.getOrder", ops.StoreOwnerOrAdmin, "One order as its page shows it (store owner or administrator): the order with names, the commission's rate and fixed fee, its payment's disputes, and who moved it (statusHistory by and role: customer, store, administrator, system; byName to administrators and for the owner's own moves), and who resolved a held payment (paymentReview.resolvedBy; resolvedByName, the administrator's name, to administrators only). An order held for review is NOT_FOUND to its store.", s.getOrder,
				ops.StoreVia("orderId", s.storeOfOrder)),
			ops.NewQuery("admins.orders.listOrders", ops.Admin, "Every order (administrators; held ones too, a resolved one with who resolved it: paymentReview.resolvedBy and resolvedByName), with listStoreOrders' filters and sorts, optionally of one store; the total sorts need storeId and no other filter (INVALID_ARGUMENT sort_with_filter, as listStoreOrders).", s.listOrders),
			ops.NewQuery("admins.orders.countOrders", ops.Admin, fmt.Sprintf("How many orders listOrders lists with the same filters, up to %d (then capped: true).", domain.MaxCount), s.countOrders),
			ops.NewQuery("admins.customers.searchCustomers", ops.Admin, fmt.Sprintf("Customers (administrators) by a name's prefix (any case), an exact phone, email, user id or profile id: query %d to %d characters; at most %d, by name.", domain.MinSearchLength, domain.MaxSearchLength, domain.MaxSearchHits), s.searchCustomers),
			ops.NewMutation("admins.orders.refundOrder", ops.Admin, "Refund a paid order, fully or partly (administrators, any paid or held order, any time): amount in AED or lines (productId, quantity) priced as ordered, neither for all that is left to refund (the delivery fee goes with the last of the order), with a reason. The refund is reserved at once and asked of the processor; it takes effect when the processor confirms it (the order's refundedAmount and refundStatus). Above what is left to refund: FAILED_PRECONDITION (details.reason refund_exceeds_payment, details.refundableAmount; lines that complete the order are refunded with the delivery fee, and refused so when less is left: ask all that is left). Send an Idempotency-Key with each refund (a retry reuses it): a call without one that repeats a refund of the order still requested or already refunded, asked less than 10 minutes before by the same kind of caller with the same reason and the same amount, lines or all that is left, is taken for a retry and refused FAILED_PRECONDITION (details.reason refund_duplicate, details.refundId the earlier refund); a new key asks for another identical refund.", s.refundOrder),
			ops.NewMutation("stores.orders.refundOrder", ops.StoreOwnerOrAdmin, "Refund one of the store's orders, fully or partly, as admins.orders.refundOrder does (store owner: paid orders not held by the platform, from confirmed until 14 days after delivery; later FAILED_PRECONDITION details.reason refund_window_closed with deliveredAt and refundableUntil).", s.refundOrder,
				ops.StoreVia("orderId", s.storeOfOrder)),
			ops.NewMutation("customers.orders.cancelMyOrder", ops.Customer, "Cancel the caller's order before the store prepares it (pending or confirmed); what was paid is refunded in full.", s.cancelMyOrder),
			ops.NewQuery("stores.orders.getSalesSummary", ops.StoreOwnerOrAdmin, "A store's sales (store owner or administrator) of the orders placed from `from` to `to` (epoch ms, inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large) by Dubai day or week (granularity day|week, weeks from Monday; default day), computed from the orders: buckets {start, orders, gross, earnings, commission, refunded, cancelled} (AED; cancelled orders counted apart and in no sum; orders held for review left out; refunded of an order paid in another currency is its AED counterpart at the accepted rate, left out when the order has no amount paid), totals, byStatus (the period's orders by their status now) and topProducts (10 by revenue: productId, name, quantity, revenue). More than 20,000 orders in the period: FAILED_PRECONDITION too_many_orders.", s.getSalesSummary, ops.StoreArg("storeId")),
			ops.NewQuery("admins.orders.listHeldOrders", ops.Admin, "Orders whose payment is held for review and not yet confirmed or cancelled (administrators), newest first (sort newest, the default, or oldest), optionally of one store and placed from `from` to `to` (epoch ms, inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large).", s.listHeldOrders),
			ops.NewQuery("admins.orders.countHeldOrders", ops.Admin, fmt.Sprintf("How many orders listHeldOrders lists with the same filters (storeId, from, to), up to %d (then capped: true).", domain.MaxCount), s.countHeldOrders),
		).WithResolvers(ops.Resolvers{Customer: s.customerRef, Store: s.catalog.StoreRef}),
		Routes:     s.routes(),
		Indexes:    append(storage.Indexes(), events.ConsumerIndexes()...),
		Background: []func(context.Context) error{s.consume, s.backfill},
		Checks:     []httpserver.Check{{Name: "consumer:" + GroupID, Fn: s.status.Check}},
	}, nil
}

// now is the service's clock, in milliseconds.
func (s *svc) now() int64 { return s.env.Now().UnixMilli() }

type upsertProfileArgs struct {
	Name  string  `json:"name" op:"required,nonblank,max=200"`
	Phone *string `json:"phone" op:"nonblank,max=32"`
	Email *string `json:"email" op:"nonblank,max=254"`
}

func (s *svc) upsertMyProfile(ctx context.Context, a *upsertProfileArgs) (string, error) {
	e, err := domain.NewProfileEdit(a.Name, a.Phone, a.Email)
	if err != nil {
		return "", err
	}
	return s.profiles.Upsert(ctx, ops.Caller(ctx).Sub, e, s.now())
}

func (s *svc) getMyProfile(ctx context.Context, _ *ops.NoArgs) (*contract.Profile, error) {
	p, err := s.profiles.OfUser(ctx, ops.Caller(ctx).Sub)
	if p == nil {
		return nil, err
	}
	v := p.View()
	return &v, nil
}

// customerRef resolves the caller's profile for the access level Customer from
// this service's own records.
func (s *svc) customerRef(ctx context.Context, userID string) (*ops.CustomerRef, error) {
	p, err := s.profiles.OfUser(ctx, userID)
	if p == nil {
		return nil, err
	}
	return &ops.CustomerRef{ID: p.ID, UserID: p.UserID, Name: p.Name}, nil
}

type profilesArgs struct {
	CustomerIDs []string `json:"customerIds" op:"required,id=customers,max=500"`
}

// getProfiles is for other services: profiles by id, missing ids absent.
func (s *svc) getProfiles(ctx context.Context, a *profilesArgs) (map[string]contract.Profile, error) {
	ps, err := s.profiles.ByIDs(ctx, a.CustomerIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]contract.Profile, len(ps))
	for _, p := range ps {
		out[p.ID] = p.View()
	}
	return out, nil
}
