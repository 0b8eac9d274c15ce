// Package storage holds the notifications' repository: the only code that
// knows the collection, its filters and its indexes.
package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/notifications/domain"
)

const coll = "notifications"

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
		// Unread counts (countUnread): a user's, the admin inbox's.
		{Collection: coll, Keys: bson.D{{Key: "recipientUserId", Value: 1}, {Key: "read", Value: 1}}, Name: "user_unread"},
		{Collection: coll, Keys: bson.D{{Key: "recipientType", Value: 1}, {Key: "read", Value: 1}}, Name: "admin_unread"},
		// An order's notifications, newest first (listForOrder).
		{Collection: coll, Keys: bson.D{{Key: "data.orderId", Value: 1}, {Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_order_newest"},
	}
}

// Notifications is the repository of inbox items.
type Notifications struct {
	db   *store.DB
	scan int // records a filtered Inbox or Count reads at most (0: domain.MaxInboxScan)
}

func NewNotifications(db *store.DB) *Notifications { return &Notifications{db: db} }

// Has says whether the notification of k is stored. A duplicate is looked for
// first rather than caught as a unique-index violation: on MongoDB a failed
// insert aborts the whole transaction.
func (r *Notifications) Has(ctx context.Context, k domain.Key) (bool, error) {
	filter := bson.D{{Key: "eventId", Value: k.EventID}, {Key: "recipientType", Value: k.RecipientType}}
	if k.RecipientUserID != "" {
		filter = append(filter, bson.E{Key: "recipientUserId", Value: k.RecipientUserID})
	} else {
		filter = append(filter, bson.E{Key: "recipientUserId", Value: bson.M{"$exists": false}})
	}
	filter = append(filter, bson.E{Key: "type", Value: k.Type})
	err := r.db.Collection(coll).FindOne(ctx, filter).Err()
	if err == nil {
		return true, nil
	}
	if store.IsNotFound(err) {
		return false, nil
	}
	return false, err
}

// Insert stores new notifications with one insert.
func (r *Notifications) Insert(ctx context.Context, ns []domain.Notification) error {
	if len(ns) == 0 {
		return nil
	}
	docs := make([]any, len(ns))
	for i := range ns {
		docs[i] = ns[i]
	}
	_, err := r.db.Collection(coll).InsertMany(ctx, docs)
	return err
}

// Get loads one; domain.NotFound when missing.
func (r *Notifications) Get(ctx context.Context, id string) (*domain.Notification, error) {
	n, err := store.FindOne[domain.Notification](ctx, r.db.Collection(coll), bson.M{"_id": id})
	if err == nil && n == nil {
		return nil, domain.NotFound(id)
	}
	return n, err
}

// MarkRead saves n's read mark. Only an unread notification changes, so of
// two calls at once the first readAt stays.
func (r *Notifications) MarkRead(ctx context.Context, n *domain.Notification) error {
	_, err := r.db.Collection(coll).UpdateOne(ctx, bson.M{"_id": n.ID, "read": false},
		bson.M{"$set": bson.M{"read": true, "readAt": *n.ReadAt}})
	return err
}

// inboxQuery is userID's inbox (with admin, the admin inbox's too) as f
// selects it (domain.InboxFilter.Matches) with an index: a range of
// user_inbox_by_creation (and admin_inbox_by_creation) by creation time.
// The read mark and the kind are not on those indexes: they are checked on
// the range's records by Inbox and Count, which read at most
// domain.MaxInboxScan of them.
func inboxQuery(userID string, admin bool, f domain.InboxFilter) bson.M {
	own := bson.M{"recipientType": domain.RecipientUser, "recipientUserId": userID}
	filter := own
	if admin {
		filter = bson.M{"$or": bson.A{own, bson.M{"recipientType": domain.RecipientAdmin}}}
	}
	if r := f.Period.Range(); r != nil {
		return bson.M{"$and": bson.A{filter, bson.M{"creationTime": bson.M(r)}}}
	}
	return filter
}

// scanned says whether f needs records checked one by one (a read mark or
// a kind), not only a range.
func scanned(f domain.InboxFilter) bool { return f.Read != "" || f.Kind != "" }

// Inbox is one page of userID's notifications as f selects them, newest
// first (f.Oldest: oldest first); with admin, the admin inbox's too. With a
// read mark or a kind, a page reads at most r.scan records (page.FindWhere):
// it may then end short, not done, its cursor after the last record read.
func (r *Notifications) Inbox(ctx context.Context, userID string, admin bool, f domain.InboxFilter, o page.Opts) (page.Result[domain.Notification], error) {
	s := page.Sort{Field: "creationTime", Desc: !f.Oldest, Query: []any{f.Oldest, f.Read, f.Kind, f.Period.From, f.Period.To}}
	key := func(n *domain.Notification) (any, string) { return n.CreationTime, n.ID }
	if !scanned(f) {
		return page.Find(ctx, r.db.Collection(coll), inboxQuery(userID, admin, f), s, o, key)
	}
	return page.FindWhere(ctx, r.db.Collection(coll), inboxQuery(userID, admin, f), s, o, key, f.Matches, r.scanLimit())
}

func (r *Notifications) scanLimit() int {
	if r.scan > 0 {
		return r.scan
	}
	return domain.MaxInboxScan
}

// Count counts what Inbox lists with f, stopping at limit. With a read mark
// or a kind it reads at most r.scan records of the range, newest first
// (only their type, read mark and time), and counts those f selects;
// partial says the range holds more records than were read (the count is
// then the newest ones' only).
func (r *Notifications) Count(ctx context.Context, userID string, admin bool, f domain.InboxFilter, limit int64) (n int64, partial bool, err error) {
	q := inboxQuery(userID, admin, f)
	if !scanned(f) {
		n, err = r.db.Collection(coll).CountDocuments(ctx, q, options.Count().SetLimit(limit))
		return n, false, err
	}
	scan := r.scanLimit()
	ns, err := store.FindAll[domain.Notification](ctx, r.db.Collection(coll), q, options.Find().
		SetSort(bson.D{{Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(scan)+1).
		SetProjection(bson.M{"type": 1, "read": 1, "creationTime": 1}))
	if err != nil {
		return 0, false, err
	}
	if len(ns) > scan {
		ns, partial = ns[:scan], true
	}
	for i := range ns {
		if f.Matches(&ns[i]) && n < limit {
			n++
		}
	}
	return n, partial, nil
}

// CountUnread counts userID's unread notifications and, with admin, the
// admin inbox's, stopping past limit (each count is a range of user_unread
// or admin_unread).
func (r *Notifications) CountUnread(ctx context.Context, userID string, admin bool, limit int64) (int64, error) {
	n, err := r.db.Collection(coll).CountDocuments(ctx, bson.M{"recipientUserId": userID, "read": false, "recipientType": domain.RecipientUser},
		options.Count().SetLimit(limit))
	if err != nil || !admin || n >= limit {
		return n, err
	}
	m, err := r.db.Collection(coll).CountDocuments(ctx, bson.M{"recipientType": domain.RecipientAdmin, "read": false}, options.Count().SetLimit(limit-n))
	return n + m, err
}

// OfOrder is the newest notifications (at most limit) about an order of a
// store: a range of by_order_newest. Without admin, the notices to the
// administrators' inbox are left out (their review and failure reasons are
// the platform's).
func (r *Notifications) OfOrder(ctx context.Context, storeID, orderID string, admin bool, limit int) ([]domain.Notification, error) {
	filter := bson.M{"data.orderId": orderID, "data.storeId": storeID}
	if !admin {
		filter["recipientType"] = bson.M{"$ne": domain.RecipientAdmin}
	}
	return store.FindAll[domain.Notification](ctx, r.db.Collection(coll), filter,
		options.Find().SetSort(bson.D{{Key: "creationTime", Value: -1}, {Key: "_id", Value: -1}}).SetLimit(int64(limit)))
}
