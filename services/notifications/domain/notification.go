package domain

import "marketplace/libs/apperr"

// Key identifies a notification among its event's: one per recipient and type
// (the unique index one_per_event_recipient_type holds it in the database).
type Key struct{ EventID, RecipientType, RecipientUserID, Type string }

// Key is n's identity among its event's notifications.
func (n *Notification) Key() Key {
	return Key{n.EventID, n.RecipientType, n.RecipientUserID, n.Type}
}

// Inbox names the inbox n is in: a user's, or the admin inbox.
func (n *Notification) Inbox() string { return n.RecipientType + "/" + n.RecipientUserID }

// Distinct keeps the first notification of each Key: the same recipient and
// type twice for one event (a customer who owns the store) is notified once.
func Distinct(ns []Notification) []Notification {
	seen := map[Key]bool{}
	var out []Notification
	for _, n := range ns {
		if k := n.Key(); !seen[k] {
			seen[k] = true
			out = append(out, n)
		}
	}
	return out
}

// Stamp gives a notification about to be stored its id and creation time; an
// event without a time is dated by the creation, and data is never null.
func (n *Notification) Stamp(id string, creationTime int64) {
	n.ID, n.CreationTime = id, creationTime
	if n.EventTime == 0 {
		n.EventTime = creationTime
	}
	if n.Data == nil {
		n.Data = map[string]string{}
	}
}

// NextTime is the creation time of a notification written at wall (Unix
// millis) in an inbox whose last one was given last (known: there was one
// lately): the wall clock, but strictly after last. An inbox is listed by
// creation time, the random id only breaking ties, so two notifications of one
// inbox in the same millisecond would otherwise come back in no particular
// order.
func NextTime(wall, last int64, known bool) int64 {
	if known && wall <= last {
		return last + 1
	}
	return wall
}

// NotFound is the answer for a notification id that names none.
func NotFound(id string) error {
	return apperr.New(apperr.NotFound, "notification %s does not exist", id)
}

// MarkRead marks n read for a caller (callerID, admin: an administrator): a
// user's own notification, or for administrators one of the admin inbox. It
// reports false when n was already read: a second call keeps the first readAt.
func (n *Notification) MarkRead(callerID string, admin bool, now int64) (bool, error) {
	switch n.RecipientType {
	case RecipientAdmin:
		if !admin {
			return false, apperr.New(apperr.PermissionDenied, "notification %s is in the admin inbox", n.ID)
		}
	default:
		if n.RecipientUserID != callerID {
			return false, apperr.New(apperr.PermissionDenied, "notification %s belongs to another user", n.ID)
		}
	}
	if n.Read {
		return false, nil
	}
	n.Read, n.ReadAt = true, &now
	return true, nil
}

// View is an inbox item as clients see it.
type View struct {
	ID            string            `json:"_id"`
	CreationTime  int64             `json:"_creationTime"`
	RecipientType string            `json:"recipientType"`
	Type          string            `json:"type"`
	Title         string            `json:"title"`
	Body          string            `json:"body"`
	Priority      string            `json:"priority"`
	Data          map[string]string `json:"data"`
	// Params render the title and body in the viewer's language (absent on
	// notifications written before they were kept: show Title and Body).
	Params        map[string]string `json:"params,omitempty"`
	RecipientRole string            `json:"recipientRole,omitempty"`
	Read          bool              `json:"read"`
	ReadAt        *int64            `json:"readAt,omitempty"`
	EventTime     int64             `json:"eventTime"`
}

// View is n as clients see it.
func (n *Notification) View() View {
	data := n.Data
	if data == nil {
		data = map[string]string{}
	}
	return View{
		ID: n.ID, CreationTime: n.CreationTime, RecipientType: n.RecipientType, Type: n.Type, Title: n.Title,
		Body: n.Body, Priority: n.Priority, Data: data, Params: n.Params, RecipientRole: n.Role(), Read: n.Read, ReadAt: n.ReadAt, EventTime: n.EventTime,
	}
}

// ownerTypes are the types only a store's owner receives.
var ownerTypes = map[string]bool{
	TypeNewOrder: true, TypePayoutApproved: true, TypePayoutRejected: true, TypePayoutProcessing: true, TypePayoutCompleted: true,
	TypePayoutFailed: true, TypePayoutCancelled: true, TypeWalletAdjusted: true, TypeBankAccountChanged: true,
}

// Role is what n's recipient is to its subject: as stored, or for a
// notification written before roles were kept, what its recipient and type
// say ("" when they do not: a refund went to the customer and the owner).
func (n *Notification) Role() string {
	switch {
	case n.RecipientRole != "":
		return n.RecipientRole
	case n.RecipientType == RecipientAdmin:
		return RoleAdmin
	case ownerTypes[n.Type]:
		return RoleStoreOwner
	case n.Type == TypeOrderRefunded:
		return ""
	}
	return RoleCustomer
}

// MaxOrderNotes is how many notifications of an order listForOrder shows.
const MaxOrderNotes = 50

// OrderNote is a notification about an order, as its store sees it among
// the order's: what was said to whom, and whether it was read.
type OrderNote struct {
	ID            string            `json:"_id"`
	Type          string            `json:"type"`
	Title         string            `json:"title"`
	Body          string            `json:"body"`
	Params        map[string]string `json:"params,omitempty"`
	RecipientRole string            `json:"recipientRole"`
	EventTime     int64             `json:"eventTime"`
	Read          bool              `json:"read"`
}

// Note is n among its order's notifications.
func (n *Notification) Note() OrderNote {
	return OrderNote{ID: n.ID, Type: n.Type, Title: n.Title, Body: n.Body, Params: n.Params, RecipientRole: n.Role(), EventTime: n.EventTime, Read: n.Read}
}

// MaxUnreadCount is where countUnread stops counting (more: true).
const MaxUnreadCount = 100

// UnreadCount is countUnread's answer: at most MaxUnreadCount, more when
// there are more.
type UnreadCount struct {
	Count int  `json:"count"`
	More  bool `json:"more"`
}

// CountOf caps n unread notifications at MaxUnreadCount.
func CountOf(n int64) UnreadCount {
	if n > MaxUnreadCount {
		return UnreadCount{Count: MaxUnreadCount, More: true}
	}
	return UnreadCount{Count: int(n)}
}
