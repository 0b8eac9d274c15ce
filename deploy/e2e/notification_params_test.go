package e2e

import (
	"maps"
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
)

type paramNote struct {
	ID            string            `json:"_id"`
	Type          string            `json:"type"`
	Title         string            `json:"title"`
	Body          string            `json:"body"`
	Params        map[string]string `json:"params"`
	RecipientRole string            `json:"recipientRole"`
	EventTime     int64             `json:"eventTime"`
	Read          bool              `json:"read"`
}

func paramInbox(t *testing.T, s *st.Sys, token string) []paramNote {
	t.Helper()
	var r struct {
		Page []paramNote `json:"page"`
	}
	st.MustOK(t, s.Query(token, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}})).Decode(t, &r)
	return r.Page
}

func noteOf(ns []paramNote, typ string) *paramNote {
	for i := range ns {
		if ns[i].Type == typ {
			return &ns[i]
		}
	}
	return nil
}

type unread struct {
	Count int  `json:"count"`
	More  bool `json:"more"`
}

// TestNotificationParams: inbox items carry params and the recipient's role
// beside the English title and body, which stay as they were.
func TestNotificationParams(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	sh.orderOf(t, "pi_params", sh.storeA, 8705)
	var mine, owners *paramNote
	eventually(t, "the order's notifications", func() bool {
		mine, owners = noteOf(paramInbox(t, s, sh.user), "order_created"), noteOf(paramInbox(t, s, sh.owner), "new_order")
		return mine != nil && owners != nil
	})
	if want := map[string]string{"storeName": "Bakery", "total": "87.05"}; !maps.Equal(mine.Params, want) || mine.RecipientRole != "customer" ||
		mine.Title != "Order confirmed" || mine.Body != "Your order from Bakery for AED 87.05 is confirmed." {
		t.Errorf("the customer's: %+v", mine)
	}
	if want := map[string]string{"storeName": "Bakery", "total": "87.05"}; !maps.Equal(owners.Params, want) || owners.RecipientRole != "store_owner" ||
		owners.Body != "New order for AED 87.05 at Bakery." {
		t.Errorf("the owner's: %+v", owners)
	}
}

// TestUnreadCount: countUnread counts the caller's unread notifications (an
// administrator's with the admin inbox's) and follows markRead.
func TestUnreadCount(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	count := func(token string) unread {
		return okAs[unread](t, s.Query(token, "notifications.inbox.countUnread", map[string]any{}))
	}
	if c := count(sh.user); c.Count != 0 || c.More {
		t.Fatalf("before any order: %+v", c)
	}
	o := sh.orderOf(t, "pi_unread", sh.storeA, 8705)
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o, "status": "preparing"}))
	eventually(t, "two unread for the customer", func() bool { return count(sh.user).Count == 2 })
	if c := count(sh.owner); c.Count != 1 {
		t.Errorf("the owner: %+v", c)
	}
	first := paramInbox(t, s, sh.user)[0]
	st.MustOK(t, s.Mutation(sh.user, "notifications.inbox.markRead", map[string]any{"notificationId": first.ID}))
	if c := count(sh.user); c.Count != 1 || c.More {
		t.Errorf("after one read: %+v", c)
	}
	// A held order asks the administrators: their count has the admin inbox's.
	sh.fillCart(t)
	sh.orderOf(t, "pi_unread_held", sh.storeA, 100)
	eventually(t, "the admin inbox's unread", func() bool { return count(sh.admin).Count == 1 })
	if c := count(s.Token("someone-else")); c.Count != 0 {
		t.Errorf("someone else: %+v", c)
	}
	expectError(t, s.Query("", "notifications.inbox.countUnread", map[string]any{}), "UNAUTHENTICATED")
}

// TestOrderNotificationsListed: listForOrder shows what was said about one
// order of the store, to whom, and whether it was read; never another
// order's or another store's, and not to another owner.
func TestOrderNotificationsListed(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	o1 := sh.orderOf(t, "pi_notes_1", sh.storeA, 8705)
	sh.fillCart(t)
	o2 := sh.orderOf(t, "pi_notes_2", sh.storeA, 8705)
	oB := sh.orderOf(t, "pi_notes_b", sh.storeB, 4*9999+1000) // B x4 (two fills) and the fee
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o1, "status": "preparing"}))
	list := func(token, store, order string) st.Result {
		return s.Query(token, "stores.notifications.listForOrder", map[string]any{"storeId": store, "orderId": order})
	}
	var notes []paramNote
	eventually(t, "order 1's three notifications", func() bool {
		notes = okAs[[]paramNote](t, list(sh.owner, sh.storeA, o1))
		return len(notes) == 3
	})
	roles := map[string]string{}
	for _, n := range notes {
		roles[n.Type] = n.RecipientRole
		if n.Params == nil || n.EventTime == 0 || n.Title == "" {
			t.Errorf("note %+v", n)
		}
	}
	if want := map[string]string{"order_status": "customer", "order_created": "customer", "new_order": "store_owner"}; !maps.Equal(roles, want) {
		t.Errorf("roles %v, want %v", roles, want)
	}
	if notes[0].Type != "order_status" || notes[0].Params["status"] != "preparing" {
		t.Errorf("newest first: %+v", notes)
	}
	// Read marks follow: the owner reads theirs.
	mineNote := noteOf(notes, "new_order")
	st.MustOK(t, s.Mutation(sh.owner, "notifications.inbox.markRead", map[string]any{"notificationId": mineNote.ID}))
	read := 0
	for _, n := range okAs[[]paramNote](t, list(sh.admin, sh.storeA, o1)) {
		if (n.ID == mineNote.ID) != n.Read {
			t.Errorf("read marks: %+v", n)
		}
		if n.Read {
			read++
		}
	}
	if read != 1 {
		t.Errorf("%d read, want the owner's one", read)
	}
	eventually(t, "order 2's", func() bool { return len(okAs[[]paramNote](t, list(sh.owner, sh.storeA, o2))) == 2 })
	// Store B's order named under store A: nothing; under B: its own.
	eventually(t, "store B's order", func() bool { return len(okAs[[]paramNote](t, list(sh.owner, sh.storeB, oB))) == 2 })
	if ns := okAs[[]paramNote](t, list(sh.owner, sh.storeA, oB)); len(ns) != 0 {
		t.Errorf("store B's order under store A: %+v", ns)
	}
	expectError(t, list(s.Token("owner-2"), sh.storeA, o1), "PERMISSION_DENIED")
	expectError(t, list(sh.user, sh.storeA, o1), "PERMISSION_DENIED")

	// A payment that does not match its order: the administrators' notice
	// (payment_review, with the amounts) is theirs; the store's owner sees
	// the order's other notices only.
	held := sh.orderOfBread(t, "pi_notes_held", 1, 100)
	var adminNotes []paramNote
	eventually(t, "the held order's notices", func() bool {
		adminNotes = okAs[[]paramNote](t, list(sh.admin, sh.storeA, held.ID))
		return noteOf(adminNotes, "payment_review") != nil && noteOf(adminNotes, "order_payment_review") != nil
	})
	if n := noteOf(adminNotes, "payment_review"); n.RecipientRole != "admin" {
		t.Errorf("the administrators' notice: %+v", n)
	}
	ownerNotes := okAs[[]paramNote](t, list(sh.owner, sh.storeA, held.ID))
	for _, n := range ownerNotes {
		if n.RecipientRole == "admin" {
			t.Errorf("the owner sees the administrators' notice %+v", n)
		}
	}
	if noteOf(ownerNotes, "order_payment_review") == nil || len(ownerNotes) != len(adminNotes)-1 {
		t.Errorf("the owner's notices %+v, the administrators' %+v", ownerNotes, adminNotes)
	}
}

// TestBankAccountChangedNotifiesTheOwner: saving the store's payout bank
// account tells its owner at once, high priority, with the account's last
// four characters and the time (a security notice against account
// takeover); nobody else hears of it.
func TestBankAccountChangedNotifiesTheOwner(t *testing.T) {
	s := st.Start(t)
	w := newPayoutsWorld(t, s, true)
	st.MustOK(t, s.Mutation(w.owner, "stores.payouts.setBankAccount", map[string]any{"storeId": w.store,
		"bankDetails": map[string]any{"IBAN": secondIBAN, "bankName": "ADCB", "accountHolderName": "Sara Al Marri"}}))
	var n *paramNote
	eventually(t, "the owner's notice", func() bool {
		n = noteOf(paramInbox(t, s, w.owner), "bank_account_changed")
		return n != nil
	})
	if n.Params["ibanLast4"] != "9101" || n.Params["byOwner"] != "true" || n.Params["changedAt"] == "" || n.RecipientRole != "store_owner" ||
		n.Title != "Bank account changed" || !strings.Contains(n.Body, "ending 9101 on ") || !strings.Contains(n.Body, "(Dubai time)") ||
		strings.Contains(n.Body, secondIBAN) {
		t.Errorf("notice %+v", n)
	}
	var raw struct {
		Page []notification `json:"page"`
	}
	st.MustOK(t, s.Query(w.owner, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}})).Decode(t, &raw)
	for _, x := range raw.Page {
		if x.Type == "bank_account_changed" && (x.Priority != "high" || x.Data["walletId"] != w.wallet || x.Data["storeId"] != w.store) {
			t.Errorf("notice %+v", x)
		}
	}
	if ns := paramInbox(t, s, w.admin); noteOf(ns, "bank_account_changed") != nil {
		t.Errorf("the administrators were told: %+v", ns)
	}
}
