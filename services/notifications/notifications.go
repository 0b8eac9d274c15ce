package notifications

import (
	"context"
	"errors"
	"time"

	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payments"
	payouts "marketplace/libs/contracts/payouts"
	"marketplace/libs/contracts/reviews"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/notifications/domain"
	"marketplace/services/notifications/storage"
)

// Module is the notifications service.
// It calls the catalog for a store's owner now (listForOrder's access).
var Module = service.Module{Name: "notifications", Build: build, Consumes: Topics, Calls: []string{catalog.Service}}

// GroupID is the consumer group of the service's event consumer.
const GroupID = "notifications"

// Topics followed.
var Topics = []string{customers.TopicOrders, payments.Topic, reviews.Topic, payouts.TopicPayouts, payouts.TopicWallets}

// handles are the event types domain.For maps, in the versions it reads.
var handles = events.Versions{
	domain.EventOrderCreated: {1}, domain.EventOrderStatusChanged: {1}, domain.EventPaymentFailed: {1}, domain.EventReviewFlagRaised: {1},
	domain.EventPayoutRequested: {1}, domain.EventPayoutApproved: {1}, domain.EventPayoutRejected: {1}, domain.EventPayoutProcessing: {1},
	domain.EventPayoutCompleted: {1}, domain.EventPayoutFailed: {1}, domain.EventPayoutCancelled: {1}, domain.EventWalletAdjusted: {1},
	domain.EventReviewStoreResponded: {1}, domain.EventReviewHidden: {1}, domain.EventReviewShown: {1},
	domain.EventOrderRefunded: {1}, domain.EventRefundFailed: {1}, domain.EventDisputeOpened: {1},
	domain.EventBankAccountChanged: {1},
}

// Notification is an inbox item as clients see it.
type Notification = domain.View

type svc struct {
	env           service.Env
	status        *events.ConsumerStatus
	clock         *inboxClock
	notifications *storage.Notifications
	catalog       *catalog.Client
}

func newSvc(env service.Env) *svc {
	if env.Now == nil {
		env.Now = time.Now
	}
	return &svc{env: env, status: events.NewConsumerStatus(0), clock: newInboxClock(), notifications: storage.NewNotifications(env.DB),
		catalog: catalog.NewClient(env.Calls)}
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := newSvc(env)
	return &service.Built{
		Background: []func(context.Context) error{s.consume},
		Checks:     []httpserver.Check{{Name: "consumer:" + GroupID, Fn: s.status.Check}},
		Registry: ops.NewRegistry("notifications",
			ops.NewQuery("notifications.inbox.list", ops.Authenticated,
				"The caller's notifications, newest first (sort oldest: oldest first); administrators also see the admin inbox. Optional filters: read (read|unread; unreadOnly true is read=unread), kind (orders|payments|payouts|reviews), from and to (creation time, epoch ms, inclusive; at most 366 days apart, else INVALID_ARGUMENT range_too_large). With read or kind, a page reads at most 10,000 notifications: it may hold fewer than asked and not be done (go on with its cursor).", s.list),
			ops.NewQuery("notifications.inbox.count", ops.Authenticated,
				"How many notifications notifications.inbox.list lists with the same filters (read, kind, from, to), counted up to 10,000: {count, capped} (capped: there may be more: past 10,000, or, with read or kind, among more than the newest 10,000 notifications read).", s.count),
			ops.NewMutation("notifications.inbox.markRead", ops.Authenticated,
				"Mark one of the caller's notifications (or, for administrators, an admin-inbox one) read.", s.markRead),
			ops.NewQuery("notifications.inbox.countUnread", ops.Authenticated,
				"How many of the caller's notifications are unread (administrators: with the admin inbox's), counted up to 100: {count, more} (more: there are more than 100).", s.countUnread),
			ops.NewQuery("stores.notifications.listForOrder", ops.StoreOwnerOrAdmin,
				"The notifications sent about one of the store's orders (store owner or administrator), newest first, at most 50: type, title and body (English), params, recipientRole (customer, store_owner, admin), eventTime, read. Those to the administrators' inbox (recipientRole admin) are listed to administrators only.", s.listForOrder,
				ops.StoreArg("storeId")),
		).WithResolvers(ops.Resolvers{Store: s.catalog.StoreRef}),
		Indexes: append(storage.Indexes(), events.ConsumerIndexes()...),
	}, nil
}

// Indexes are the notifications collection's indexes.
func Indexes() []store.Index { return storage.Indexes() }

func (s *svc) now() int64 { return s.env.Now().UnixMilli() }

// consume follows the event topics until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: GroupID, Topics: Topics,
		DB: s.env.DB, Handler: s.onEvent, Handles: handles, Publisher: s.env.Publisher, Logger: s.env.Logger, Status: s.status,
	})
}

// notificationsFor maps an event to the notifications it causes (domain.For).
func notificationsFor(env events.Envelope) ([]domain.Notification, error) {
	return domain.For(domain.Event{ID: env.ID, Type: env.Type, Time: env.Time, Data: env.Data})
}

// onEvent is the consumer's handler: ctx is its transaction.
func (s *svc) onEvent(ctx context.Context, env events.Envelope) error {
	ns, err := notificationsFor(env)
	if errors.Is(err, domain.ErrNotHandled) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.insert(ctx, ns)
}

// insert stores the notifications that are not stored yet, with one insert.
// It must run in a transaction.
func (s *svc) insert(ctx context.Context, ns []domain.Notification) error {
	var fresh []domain.Notification
	for _, n := range domain.Distinct(ns) {
		stored, err := s.notifications.Has(ctx, n.Key())
		if err != nil {
			return err
		}
		if stored {
			continue // this event already notified this recipient
		}
		n.Stamp(ids.New("notifications"), s.clock.next(n.Inbox(), s.now()))
		fresh = append(fresh, n)
	}
	return s.notifications.Insert(ctx, fresh)
}

type listArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	UnreadOnly     *bool     `json:"unreadOnly"`
	Read           *string   `json:"read" op:"enum=read|unread"`
	Kind           *string   `json:"kind" op:"enum=orders|payments|payouts|reviews"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=newest|oldest"`
}

// list pages the caller's inbox (administrators: with the admin inbox) as
// the optional filters select it (domain.InboxFilter), newest first unless
// sort is oldest.
func (s *svc) list(ctx context.Context, a *listArgs) (page.Result[Notification], error) {
	f, err := domain.NewInboxFilter(a.Read, a.Kind, a.Sort, a.UnreadOnly, a.From, a.To)
	if err != nil {
		return page.Result[Notification]{}, err
	}
	caller := ops.Caller(ctx)
	res, err := s.notifications.Inbox(ctx, caller.Sub, caller.IsAdmin(), f, a.PaginationOpts)
	if err != nil {
		return page.Result[Notification]{}, err
	}
	return page.Map(res, func(n *domain.Notification) Notification { return n.View() }), nil
}

type countArgs struct {
	Read *string `json:"read" op:"enum=read|unread"`
	Kind *string `json:"kind" op:"enum=orders|payments|payouts|reviews"`
	From *int64  `json:"from" op:"min=0"`
	To   *int64  `json:"to" op:"min=0"`
}

// count counts what list lists with the same filters, up to
// domain.MaxInboxCount (then capped): the console's page numbers.
func (s *svc) count(ctx context.Context, a *countArgs) (domain.InboxCount, error) {
	f, err := domain.NewInboxFilter(a.Read, a.Kind, nil, nil, a.From, a.To)
	if err != nil {
		return domain.InboxCount{}, err
	}
	caller := ops.Caller(ctx)
	n, partial, err := s.notifications.Count(ctx, caller.Sub, caller.IsAdmin(), f, domain.MaxInboxCount+1)
	if err != nil {
		return domain.InboxCount{}, err
	}
	return domain.InboxCountOf(n, partial), nil
}

type markReadArgs struct {
	NotificationID string `json:"notificationId" op:"required,id=notifications"`
}

func (s *svc) markRead(ctx context.Context, a *markReadArgs) (ops.Null, error) {
	caller := ops.Caller(ctx)
	n, err := s.notifications.Get(ctx, a.NotificationID)
	if err != nil {
		return nil, err
	}
	changed, err := n.MarkRead(caller.Sub, caller.IsAdmin(), s.now())
	if err != nil || !changed {
		return nil, err
	}
	return nil, s.notifications.MarkRead(ctx, n)
}

func (s *svc) countUnread(ctx context.Context, _ *ops.NoArgs) (domain.UnreadCount, error) {
	caller := ops.Caller(ctx)
	n, err := s.notifications.CountUnread(ctx, caller.Sub, caller.IsAdmin(), domain.MaxUnreadCount+1)
	if err != nil {
		return domain.UnreadCount{}, err
	}
	return domain.CountOf(n), nil
}

type listForOrderArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
	OrderID string `json:"orderId" op:"required,id=orders"`
}

// listForOrder: the notifications about one order of the store (the
// registry checked the caller owns the store or is an administrator); those
// of another store's order are not listed (data.storeId is part of the
// filter), so naming someone else's order shows nothing. The notices to the
// administrators' inbox (a payment under review with its reason, a failed
// refund with its reason) are the platform's: only an administrator sees
// them.
func (s *svc) listForOrder(ctx context.Context, a *listForOrderArgs) ([]domain.OrderNote, error) {
	ns, err := s.notifications.OfOrder(ctx, ops.StoreOf(ctx).ID, a.OrderID, ops.Caller(ctx).IsAdmin(), domain.MaxOrderNotes)
	if err != nil {
		return nil, err
	}
	out := make([]domain.OrderNote, len(ns))
	for i := range ns {
		out[i] = ns[i].Note()
	}
	return out, nil
}
