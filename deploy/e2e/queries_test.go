package e2e

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

const (
	opListHeldOrders = "admins.orders.listHeldOrders"
	opListMyStores   = "stores.catalog.listMyStores"
)

// walkPages calls a paginated query page after page (size items each) and
// returns every item's raw JSON, failing on a page larger than asked or a list
// that never ends.
func walkPages(t *testing.T, s *st.Sys, token, path string, size int, args map[string]any) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	cursor := any(nil)
	for range 20 {
		a := map[string]any{"paginationOpts": map[string]any{"numItems": size, "cursor": cursor}}
		for k, v := range args {
			a[k] = v
		}
		p := okAs[struct {
			Page           []json.RawMessage `json:"page"`
			IsDone         bool              `json:"isDone"`
			ContinueCursor string            `json:"continueCursor"`
		}](t, s.Query(token, path, a))
		if len(p.Page) > size {
			t.Fatalf("%s: a page of %d, asked %d", path, len(p.Page), size)
		}
		out = append(out, p.Page...)
		if p.IsDone {
			return out
		}
		cursor = p.ContinueCursor
	}
	t.Fatalf("%s: the list never ends", path)
	return nil
}

func itemIDs(t *testing.T, items []json.RawMessage) []string {
	t.Helper()
	out := make([]string, len(items))
	for i, raw := range items {
		var v struct {
			ID string `json:"_id"`
		}
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		out[i] = v.ID
	}
	return out
}

// TestListHeldOrders: administrators page the orders whose payment is held
// for review, newest first, optionally of one store, each as listStoreOrders
// shows it (the store's terms included); a paid order is never listed; a held
// order confirmed or cancelled leaves the list; anyone else is refused.
func TestListHeldOrders(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)                                 // owner-1: stores A and B; user-1's cart holds A1 x3, A2 x1, B x2
	pace := func() { time.Sleep(3 * time.Millisecond) } // distinct creation times: newest first is testable
	held1 := sh.orderOf(t, "pi_h1", sh.storeA, 100)     // paid 1.00 of 87.05: held
	pace()
	sh.fillCart(t)
	paid := sh.orderOf(t, "pi_paid", sh.storeA, 8705)
	pace()
	held2 := sh.orderOf(t, "pi_h2", sh.storeB, 100)
	pace()
	sh.fillCart(t)
	held3 := sh.orderOf(t, "pi_h3", sh.storeA, 200)

	list := func(t *testing.T, size int, args map[string]any) []string {
		t.Helper()
		return itemIDs(t, walkPages(t, s, sh.admin, opListHeldOrders, size, args))
	}
	expect := func(t *testing.T, got []string, want ...string) {
		t.Helper()
		if !slices.Equal(got, want) {
			t.Fatalf("held orders %v, want %v (paid order %s)", got, want, paid)
		}
	}

	t.Run("newest first, page by page, as listStoreOrders shows them", func(t *testing.T) {
		expect(t, list(t, 2, nil), held3, held2, held1)
		expect(t, list(t, 1, nil), held3, held2, held1)
		expect(t, list(t, 100, nil), held3, held2, held1)
		page := okAs[storeOrdersPage](t, s.Query(sh.admin, opListHeldOrders, map[string]any{"paginationOpts": map[string]any{"numItems": 10}}))
		var fromStore *orderView
		for _, o := range okAs[storeOrdersPage](t, s.Query(sh.admin, opListStoreOrders, map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 10}})).Page {
			if o.ID == held1 {
				fromStore = &o
			}
		}
		for _, o := range page.Page {
			if o.Status != "pending" || o.PaymentStatus != "under_review" || o.PaymentReview == nil || o.PaymentReview.Reason != "amount_mismatch" ||
				o.PaymentReview.ResolvedBy != "" || o.PlatformComm == nil || o.StoreEarnings == nil || len(o.Items) == 0 {
				t.Errorf("held order %+v (review %+v)", o, o.PaymentReview)
			}
			if o.ID == held1 && (fromStore == nil || o.Total != fromStore.Total || *o.StoreEarnings != *fromStore.StoreEarnings || o.AmountPaid == nil || *o.AmountPaid != 1) {
				t.Errorf("held order 1 %+v, listStoreOrders shows %+v", o, fromStore)
			}
		}
	})

	t.Run("of one store", func(t *testing.T) {
		expect(t, list(t, 1, map[string]any{"storeId": sh.storeA}), held3, held1)
		expect(t, list(t, 10, map[string]any{"storeId": sh.storeB}), held2)
		other := newStore(t, s, sh.admin, "Quiet Shop", "owner-2", "", "")
		expect(t, list(t, 10, map[string]any{"storeId": other}))
		expectError(t, s.Query(sh.admin, opListHeldOrders, map[string]any{"storeId": missingLike(sh.storeA), "paginationOpts": map[string]any{"numItems": 10}}), "NOT_FOUND")
		// A cursor of one store's is no page of every store's (ADR 0172).
		first := okAs[storeOrdersPage](t, s.Query(sh.admin, opListHeldOrders, map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 1}}))
		expectError(t, s.Query(sh.admin, opListHeldOrders, map[string]any{"paginationOpts": map[string]any{"numItems": 1, "cursor": first.ContinueCursor}}),
			"INVALID_ARGUMENT", "is not a cursor of this query")
	})

	t.Run("administrators only; arguments checked", func(t *testing.T) {
		args := map[string]any{"paginationOpts": map[string]any{"numItems": 10}}
		for _, tok := range []string{sh.owner, sh.user, s.Token("owner-2")} {
			expectError(t, s.Query(tok, opListHeldOrders, args), "PERMISSION_DENIED")
			expectError(t, s.Query(tok, opListHeldOrders, map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 10}}), "PERMISSION_DENIED")
		}
		expectError(t, s.Query("", opListHeldOrders, args), "UNAUTHENTICATED")
		for _, c := range []struct {
			field string
			args  map[string]any
		}{
			{"storeId", map[string]any{"storeId": sh.productA1, "paginationOpts": map[string]any{"numItems": 10}}},
			{"paginationOpts", map[string]any{}},
			{"paginationOpts.cursor", map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": "not-a-cursor"}}},
			{"status", map[string]any{"status": "pending", "paginationOpts": map[string]any{"numItems": 10}}},
		} {
			expectError(t, s.Query(sh.admin, opListHeldOrders, c.args), "INVALID_ARGUMENT", c.field)
		}
	})

	t.Run("a confirmed or cancelled held order leaves the list", func(t *testing.T) {
		move := func(order, status string) {
			t.Helper()
			st.MustOK(t, s.Mutation(sh.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": order, "status": status}))
		}
		move(held1, "confirmed")
		expect(t, list(t, 10, nil), held3, held2)
		move(held2, "cancelled")
		expect(t, list(t, 10, nil), held3)
		expect(t, list(t, 10, map[string]any{"storeId": sh.storeB}))
		expect(t, list(t, 10, map[string]any{"storeId": sh.storeA}), held3)
		// The confirmed one went on to the store; it stays off the list as it moves.
		st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": held1, "status": "preparing"}))
		move(held3, "cancelled")
		expect(t, list(t, 10, nil))
	})
}

// TestListMyStores: an authenticated caller pages the stores they own, by
// name, each as listStores shows it to them (their contact included); no one
// else's store is listed; a store handed over moves to its new owner's list.
func TestListMyStores(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s) // owner-1: Bakery and Florist
	owner2 := s.Token("owner-2")
	dates := newStore(t, s, sh.admin, "dates corner", "owner-1", "", "")
	candles := newStore(t, s, sh.admin, "Candles", "owner-1", "", "")
	other := newStore(t, s, sh.admin, "Another Bakery", "owner-2", "", "")

	mine := func(t *testing.T, token string, size int) []json.RawMessage {
		t.Helper()
		return walkPages(t, s, token, opListMyStores, size, nil)
	}
	expect := func(t *testing.T, got []json.RawMessage, want ...string) {
		t.Helper()
		if ids := itemIDs(t, got); !slices.Equal(ids, want) {
			t.Fatalf("stores %v, want %v", ids, want)
		}
	}

	t.Run("the owner's stores by name, page by page", func(t *testing.T) {
		for _, size := range []int{1, 3, 100} {
			expect(t, mine(t, sh.owner, size), sh.storeA, candles, dates, sh.storeB)
		}
		expect(t, mine(t, owner2, 2), other)
	})

	t.Run("as listStores shows them to their owner", func(t *testing.T) {
		listed := map[string]json.RawMessage{}
		for _, raw := range walkPages(t, s, sh.owner, "catalog.stores.listStores", 100, nil) {
			listed[itemIDs(t, []json.RawMessage{raw})[0]] = raw
		}
		for _, raw := range mine(t, sh.owner, 100) {
			id := itemIDs(t, []json.RawMessage{raw})[0]
			if string(raw) != string(listed[id]) {
				t.Errorf("listMyStores answers %s, listStores %s", raw, listed[id])
			}
			var v storeView
			if err := json.Unmarshal(raw, &v); err != nil || v.OwnerUserID != "owner-1" || v.OwnerName == nil || *v.OwnerName == "" {
				t.Errorf("store %s: %+v (%v)", id, v, err)
			}
		}
	})

	t.Run("nobody else's", func(t *testing.T) {
		expect(t, mine(t, sh.user, 10)) // a customer owns none
		expect(t, mine(t, sh.admin, 10))
		expectError(t, s.Query("", opListMyStores, map[string]any{"paginationOpts": map[string]any{"numItems": 10}}), "UNAUTHENTICATED")
		expectError(t, s.Query(sh.owner, opListMyStores, map[string]any{}), "INVALID_ARGUMENT", "paginationOpts")
		expectError(t, s.Query(sh.owner, opListMyStores, map[string]any{"ownerUserId": "owner-2", "paginationOpts": map[string]any{"numItems": 10}}), "INVALID_ARGUMENT", "ownerUserId")
	})

	t.Run("a store handed over moves to its new owner's list", func(t *testing.T) {
		st.MustOK(t, s.Mutation(sh.admin, "admins.catalog.updateStore", map[string]any{"storeId": sh.storeB, "ownerUserId": "owner-2"}))
		expect(t, mine(t, sh.owner, 2), sh.storeA, candles, dates)
		expect(t, mine(t, owner2, 2), other, sh.storeB)
	})
}
