package notifications

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// Module is the notifications service.
var Module = service.Module{Name: "notifications", Build: build, Consumes: Topics}

// GroupID is the consumer group of the service's event consumer.
const GroupID = "notifications"

const coll = "notifications"

type svc struct {
	env    service.Env
	status *events.ConsumerStatus
	clock  *inboxClock
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	s := &svc{env: env, status: events.NewConsumerStatus(0), clock: newInboxClock()}
	return &service.Built{
		Background: []func(context.Context) error{s.consume},
		Checks:     []httpserver.Check{{Name: "consumer:" + GroupID, Fn: s.status.Check}},
		Registry: ops.NewRegistry("notifications",
			ops.NewQuery("notifications.inbox.list", ops.Authenticated,
				"The caller's notifications, newest first; administrators also see the admin inbox.", s.list),
			ops.NewMutation("notifications.inbox.markRead", ops.Authenticated,
				"Mark one of the caller's notifications (or, for administrators, an admin-inbox one) read.", s.markRead),
		),
		Indexes: append(Indexes(), events.ConsumerIndexes()...),
	}, nil
}

// Indexes are the notifications collection's indexes.
func Indexes() []store.Index {
	return []store.Index{
		// One notification of a type per recipient per event, whatever happens to
		// the consumer's own dedupe records.
		{Collection: coll, Keys: bson.D{{Key: "eventId", Value: 1}, {Key: "recipientType", Value: 1},
			{Key: "recipientUserId", Value: 1}, {Key: "type", Value: 1}}, Unique: true, Name: "one_per_event_recipient_type"},
		// Inboxes newest first: by creation time (ids are random), the id breaking ties.
		{Collection: coll, Keys: bson.D{{Key: "recipientUserId", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "user_inbox_by_creation"},
		{Collection: coll, Keys: bson.D{{Key: "recipientType", Value: 1}, {Key: "creationTime", Value: 1}, {Key: "_id", Value: 1}}, Name: "admin_inbox_by_creation"},
	}
}

func now() int64 { return time.Now().UnixMilli() }

// consume follows the event topics until ctx ends.
func (s *svc) consume(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: GroupID, Topics: Topics,
		DB: s.env.DB, Handler: s.onEvent, Handles: handles, Publisher: s.env.Publisher, Logger: s.env.Logger, Status: s.status,
	})
}

// onEvent is the consumer's handler: ctx is its transaction.
func (s *svc) onEvent(ctx context.Context, env events.Envelope) error {
	ns, err := notificationsFor(env)
	if errors.Is(err, errNotHandled) {
		return nil
	}
	if err != nil {
		return err
	}
	return s.insert(ctx, ns)
}

// insert stores notifications that are not stored yet. A duplicate is looked
// for first rather than caught as a unique-index violation: on MongoDB a failed
// insert aborts the whole transaction. The new ones go in with one insert. It
// must run in a transaction.
func (s *svc) insert(ctx context.Context, ns []notificationDoc) error {
	c := s.env.DB.Collection(coll)
	var fresh []any
	seen := map[[4]string]bool{}
	for _, n := range ns {
		k := [4]string{n.EventID, n.RecipientType, n.RecipientUserID, n.Type}
		if seen[k] {
			continue // the same recipient and type twice for one event: once
		}
		seen[k] = true
		filter := bson.D{{Key: "eventId", Value: n.EventID}, {Key: "recipientType", Value: n.RecipientType}}
		if n.RecipientUserID != "" {
			filter = append(filter, bson.E{Key: "recipientUserId", Value: n.RecipientUserID})
		} else {
			filter = append(filter, bson.E{Key: "recipientUserId", Value: bson.M{"$exists": false}})
		}
		filter = append(filter, bson.E{Key: "type", Value: n.Type})
		err := c.FindOne(ctx, filter).Err()
		if err == nil {
			continue // this event already notified this recipient
		}
		if !store.IsNotFound(err) {
			return err
		}
		n.ID = ids.New("notifications")
		n.CreationTime = s.clock.next(n.RecipientType+"/"+n.RecipientUserID, now())
		if n.EventTime == 0 {
			n.EventTime = n.CreationTime
		}
		if n.Data == nil {
			n.Data = map[string]string{}
		}
		fresh = append(fresh, n)
	}
	if len(fresh) == 0 {
		return nil
	}
	_, err := c.InsertMany(ctx, fresh)
	return err
}

// Notification is an inbox item as clients see it.
type Notification struct {
	ID            string            `json:"_id"`
	CreationTime  int64             `json:"_creationTime"`
	RecipientType string            `json:"recipientType"`
	Type          string            `json:"type"`
	Title         string            `json:"title"`
	Body          string            `json:"body"`
	Priority      string            `json:"priority"`
	Data          map[string]string `json:"data"`
	Read          bool              `json:"read"`
	ReadAt        *int64            `json:"readAt,omitempty"`
	EventTime     int64             `json:"eventTime"`
}

func view(d *notificationDoc) Notification {
	data := d.Data
	if data == nil {
		data = map[string]string{}
	}
	return Notification{
		ID: d.ID, CreationTime: d.CreationTime, RecipientType: d.RecipientType, Type: d.Type, Title: d.Title,
		Body: d.Body, Priority: d.Priority, Data: data, Read: d.Read, ReadAt: d.ReadAt, EventTime: d.EventTime,
	}
}

type listArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	UnreadOnly     *bool     `json:"unreadOnly"`
}

func (s *svc) list(ctx context.Context, a *listArgs) (page.Result[Notification], error) {
	caller := ops.Caller(ctx)
	own := bson.M{"recipientType": RecipientUser, "recipientUserId": caller.Sub}
	filter := own
	if caller.IsAdmin() {
		filter = bson.M{"$or": bson.A{own, bson.M{"recipientType": RecipientAdmin}}}
	}
	if a.UnreadOnly != nil && *a.UnreadOnly {
		filter = bson.M{"$and": bson.A{filter, bson.M{"read": false}}}
	}
	res, err := page.Find(ctx, s.env.DB.Collection(coll), filter, page.Sort{Field: "creationTime", Desc: true}, a.PaginationOpts,
		func(d *notificationDoc) (any, string) { return d.CreationTime, d.ID })
	if err != nil {
		return page.Result[Notification]{}, err
	}
	return page.Map(res, view), nil
}

type markReadArgs struct {
	NotificationID string `json:"notificationId" op:"required,id=notifications"`
}

func (s *svc) markRead(ctx context.Context, a *markReadArgs) (ops.Null, error) {
	caller := ops.Caller(ctx)
	var d notificationDoc
	c := s.env.DB.Collection(coll)
	err := c.FindOne(ctx, bson.M{"_id": a.NotificationID}).Decode(&d)
	if store.IsNotFound(err) {
		return nil, apperr.New(apperr.NotFound, "notification %s does not exist", a.NotificationID)
	}
	if err != nil {
		return nil, err
	}
	switch d.RecipientType {
	case RecipientAdmin:
		if !caller.IsAdmin() {
			return nil, apperr.New(apperr.PermissionDenied, "notification %s is in the admin inbox", a.NotificationID)
		}
	default:
		if d.RecipientUserID != caller.Sub {
			return nil, apperr.New(apperr.PermissionDenied, "notification %s belongs to another user", a.NotificationID)
		}
	}
	if d.Read {
		return nil, nil
	}
	// Only an unread notification changes, so a second call keeps the first readAt.
	if _, err := c.UpdateOne(ctx, bson.M{"_id": d.ID, "read": false},
		bson.M{"$set": bson.M{"read": true, "readAt": now()}}); err != nil {
		return nil, err
	}
	return nil, nil
}
