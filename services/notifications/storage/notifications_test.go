package storage

import (
	"context"
	"fmt"
	"testing"

	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/notifications/domain"
)

func memoryDB(t *testing.T) *store.DB {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{Name: "notifications", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	return db
}

// CountUnread counts a user's unread notifications and, for an
// administrator, the admin inbox's, never past its limit (countUnread asks
// 101 to tell "more than 100"); read ones and other users' do not count.
func TestCountUnreadStopsAtItsLimit(t *testing.T) {
	ctx := context.Background()
	r := NewNotifications(memoryDB(t))
	var ns []domain.Notification
	add := func(n int, recipient, user string, read bool) {
		for i := 0; i < n; i++ {
			ns = append(ns, domain.Notification{ID: fmt.Sprintf("ntf_%d", len(ns)), RecipientType: recipient, RecipientUserID: user,
				Type: domain.TypeNewOrder, EventID: fmt.Sprintf("evt_%d", len(ns)), Read: read, CreationTime: int64(len(ns) + 1)})
		}
	}
	add(3, domain.RecipientUser, "u1", false)
	add(2, domain.RecipientUser, "u1", true)
	add(4, domain.RecipientUser, "u2", false)
	add(105, domain.RecipientAdmin, "", false)
	if err := r.Insert(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		user  string
		admin bool
		limit int64
		want  int64
	}{
		{"u1", false, 101, 3},
		{"u1", false, 2, 2},
		{"u1", true, 101, 101}, // 3 of their own, then the admin inbox up to the limit
		{"u1", true, 200, 108},
		{"u3", false, 101, 0},
		{"u3", true, 101, 101},
	} {
		n, err := r.CountUnread(ctx, c.user, c.admin, c.limit)
		if err != nil || n != c.want {
			t.Errorf("%s admin=%v limit %d: %d %v, want %d", c.user, c.admin, c.limit, n, err, c.want)
		}
	}
	if c := domain.CountOf(101); c.Count != 100 || !c.More {
		t.Errorf("101 unread: %+v", c)
	}
}

// OfOrder: the newest notifications about one order of one store, at most
// the limit; another store's (data.storeId) are not listed.
func TestOfOrderKeepsToTheStore(t *testing.T) {
	ctx := context.Background()
	r := NewNotifications(memoryDB(t))
	var ns []domain.Notification
	for i := 0; i < 5; i++ {
		store := "sto_a"
		if i == 4 {
			store = "sto_b"
		}
		ns = append(ns, domain.Notification{ID: fmt.Sprintf("ntf_%d", i), RecipientType: domain.RecipientUser, RecipientUserID: "u",
			Type: domain.TypeOrderStatus, EventID: fmt.Sprintf("evt_%d", i), CreationTime: int64(i + 1),
			Data: map[string]string{"orderId": "ord_1", "storeId": store}})
	}
	ns = append(ns, domain.Notification{ID: "ntf_other", RecipientType: domain.RecipientUser, RecipientUserID: "u", Type: domain.TypeOrderStatus,
		EventID: "evt_other", CreationTime: 9, Data: map[string]string{"orderId": "ord_2", "storeId": "sto_a"}})
	if err := r.Insert(ctx, ns); err != nil {
		t.Fatal(err)
	}
	got, err := r.OfOrder(ctx, "sto_a", "ord_1", true, 3)
	if err != nil || len(got) != 3 || got[0].ID != "ntf_3" || got[2].ID != "ntf_1" {
		t.Fatalf("%v %+v", err, got)
	}
	if got, _ := r.OfOrder(ctx, "sto_b", "ord_1", true, 50); len(got) != 1 || got[0].ID != "ntf_4" {
		t.Errorf("store B: %+v", got)
	}
}

// A read or kind filter is checked record by record: a page or a count reads
// at most the scan limit of the inbox's records, however few match. With 3
// matches among 30 records and a limit of 10, the count is of the newest 10
// and capped, and the pages go on by their cursors, each reading at most 10,
// until all 3 are listed.
func TestFilteredInboxReadsAtMostTheScanLimit(t *testing.T) {
	ctx := context.Background()
	r := NewNotifications(memoryDB(t))
	r.scan = 10
	var ns []domain.Notification
	for i := 0; i < 30; i++ {
		typ := domain.TypeNewOrder
		if i == 2 || i == 5 || i == 27 { // oldest first: 27 is among the newest 10
			typ = domain.TypeReviewFlagged
		}
		ns = append(ns, domain.Notification{ID: fmt.Sprintf("ntf_%02d", i), RecipientType: domain.RecipientAdmin,
			Type: typ, EventID: fmt.Sprintf("evt_%d", i), CreationTime: int64(i + 1)})
	}
	if err := r.Insert(ctx, ns); err != nil {
		t.Fatal(err)
	}
	f := domain.InboxFilter{Kind: domain.KindReviews}
	n, partial, err := r.Count(ctx, "admin", true, f, domain.MaxInboxCount+1)
	if err != nil || n != 1 || !partial {
		t.Fatalf("count read past the limit: %d partial=%v %v, want 1 of the newest 10, partial", n, partial, err)
	}
	if n, partial, _ := r.Count(ctx, "admin", true, domain.InboxFilter{}, domain.MaxInboxCount+1); n != 30 || partial {
		t.Errorf("unfiltered count (an index range): %d partial=%v", n, partial)
	}
	var got []string
	o := page.Opts{NumItems: 20}
	for pages := 1; ; pages++ {
		res, err := r.Inbox(ctx, "admin", true, f, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range res.Page {
			got = append(got, x.ID)
		}
		if pages == 1 && (len(res.Page) != 1 || res.IsDone) {
			t.Fatalf("first page read past the limit: %d items, done=%v", len(res.Page), res.IsDone)
		}
		if res.IsDone {
			if pages != 3 {
				t.Errorf("%d pages over 30 records read 10 at a time, want 3", pages)
			}
			break
		}
		if pages > 5 {
			t.Fatal("pages never end")
		}
		o.Cursor = &res.ContinueCursor
	}
	if want := []string{"ntf_27", "ntf_05", "ntf_02"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("listed %v, want %v", got, want)
	}
}
