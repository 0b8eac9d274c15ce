package domain

import (
	"reflect"
	"testing"

	"marketplace/libs/apperr"
)

// TestDistinct: one notification per event, recipient and type; the first
// is kept, in order.
func TestDistinct(t *testing.T) {
	a := Notification{EventID: "e1", RecipientType: RecipientUser, RecipientUserID: "u1", Type: TypeOrderCreated, Title: "first"}
	b := a
	b.Title = "second"
	c := a
	c.Type = TypeNewOrder
	d := Notification{EventID: "e1", RecipientType: RecipientAdmin, Type: TypeOrderCreated}
	got := Distinct([]Notification{a, b, c, d, d})
	if len(got) != 3 || got[0].Title != "first" || got[1].Type != TypeNewOrder || got[2].RecipientType != RecipientAdmin {
		t.Fatalf("%+v", got)
	}
	if a.Inbox() != "user/u1" || d.Inbox() != "admin/" {
		t.Fatalf("inboxes %q %q", a.Inbox(), d.Inbox())
	}
}

// TestStamp: a stored notification has its id and creation time; an event
// without a time is dated by the creation; data is never null.
func TestStamp(t *testing.T) {
	n := Notification{}
	n.Stamp("ntf_1", 500)
	if n.ID != "ntf_1" || n.CreationTime != 500 || n.EventTime != 500 || n.Data == nil || len(n.Data) != 0 {
		t.Fatalf("%+v", n)
	}
	m := Notification{EventTime: 100, Data: map[string]string{"orderId": "o"}}
	m.Stamp("ntf_2", 500)
	if m.EventTime != 100 || m.Data["orderId"] != "o" {
		t.Fatalf("%+v", m)
	}
}

// TestNextTime: the wall clock, but strictly after the inbox's last time.
func TestNextTime(t *testing.T) {
	cases := []struct {
		wall, last int64
		known      bool
		want       int64
	}{
		{1000, 0, false, 1000},
		{1000, 1000, true, 1001},
		{999, 1003, true, 1004},
		{1500, 1003, true, 1500},
		{1000, 2000, false, 1000},
	}
	for _, c := range cases {
		if got := NextTime(c.wall, c.last, c.known); got != c.want {
			t.Errorf("NextTime(%d, %d, %v) = %d, want %d", c.wall, c.last, c.known, got, c.want)
		}
	}
}

// TestMarkRead: a user marks their own notifications; administrators also
// the admin inbox's; a second mark keeps the first readAt.
func TestMarkRead(t *testing.T) {
	user := Notification{ID: "ntf_u", RecipientType: RecipientUser, RecipientUserID: "u1"}
	admin := Notification{ID: "ntf_a", RecipientType: RecipientAdmin}
	cases := []struct {
		name    string
		n       Notification
		caller  string
		isAdmin bool
		code    apperr.Code
		message string
	}{
		{"own", user, "u1", false, "", ""},
		{"another user's", user, "u2", false, apperr.PermissionDenied, "notification ntf_u belongs to another user"},
		{"another user's, even for an administrator", user, "adm", true, apperr.PermissionDenied, "notification ntf_u belongs to another user"},
		{"admin inbox, administrator", admin, "adm", true, "", ""},
		{"admin inbox, user", admin, "u1", false, apperr.PermissionDenied, "notification ntf_a is in the admin inbox"},
	}
	for _, c := range cases {
		n := c.n
		changed, err := n.MarkRead(c.caller, c.isAdmin, 42)
		if c.code != "" {
			if e := apperr.From(err); err == nil || e.Code != c.code || e.Message != c.message || changed || n.Read {
				t.Errorf("%s: %v changed=%v", c.name, err, changed)
			}
			continue
		}
		if err != nil || !changed || !n.Read || n.ReadAt == nil || *n.ReadAt != 42 {
			t.Errorf("%s: %v changed=%v %+v", c.name, err, changed, n)
		}
		changed, err = n.MarkRead(c.caller, c.isAdmin, 99)
		if err != nil || changed || *n.ReadAt != 42 {
			t.Errorf("%s, again: %v changed=%v readAt %d", c.name, err, changed, *n.ReadAt)
		}
	}
	if NotFound("ntf_x").Error() != "NOT_FOUND: notification ntf_x does not exist" {
		t.Fatal(NotFound("ntf_x"))
	}
}

// TestView: clients see data as an object even when none was stored.
func TestView(t *testing.T) {
	at := int64(7)
	n := Notification{ID: "ntf_1", CreationTime: 5, RecipientType: RecipientUser, RecipientUserID: "u1", Type: TypeOrderStatus,
		Title: "T", Body: "B", Priority: PriorityHigh, EventID: "e", EventType: "x", EventTime: 3, Read: true, ReadAt: &at}
	want := View{ID: "ntf_1", CreationTime: 5, RecipientType: RecipientUser, Type: TypeOrderStatus, Title: "T", Body: "B",
		Priority: PriorityHigh, Data: map[string]string{}, RecipientRole: RoleCustomer, Read: true, ReadAt: &at, EventTime: 3}
	if got := n.View(); !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v", got)
	}
	n.Params, n.RecipientRole = map[string]string{"storeName": "S"}, RoleStoreOwner
	if v := n.View(); v.Params["storeName"] != "S" || v.RecipientRole != RoleStoreOwner {
		t.Errorf("params and role not shown: %+v", v)
	}
}

// A notification written before roles were kept gets one from its recipient
// and type, none when they do not tell (a refund went to both sides).
func TestRoleOfOlderNotifications(t *testing.T) {
	for _, c := range []struct {
		recipient, typ, stored, want string
	}{
		{RecipientUser, TypeOrderStatus, "", RoleCustomer},
		{RecipientUser, TypeNewOrder, "", RoleStoreOwner},
		{RecipientUser, TypePayoutFailed, "", RoleStoreOwner},
		{RecipientAdmin, TypePaymentReview, "", RoleAdmin},
		{RecipientUser, TypeOrderRefunded, "", ""},
		{RecipientUser, TypeOrderRefunded, RoleStoreOwner, RoleStoreOwner},
	} {
		n := Notification{RecipientType: c.recipient, Type: c.typ, RecipientRole: c.stored}
		if got := n.Role(); got != c.want {
			t.Errorf("%s %s %q: %q, want %q", c.recipient, c.typ, c.stored, got, c.want)
		}
	}
	if c := CountOf(100); c.Count != 100 || c.More {
		t.Errorf("100: %+v", c)
	}
	if c := CountOf(101); c.Count != 100 || !c.More {
		t.Errorf("101: %+v", c)
	}
}
