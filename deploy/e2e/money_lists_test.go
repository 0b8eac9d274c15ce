package e2e

import (
	"encoding/json"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// pagedIDs walks a paginated payouts list (op) with args, two at a time,
// and returns the ids in order.
func pagedIDs(t *testing.T, s *st.Sys, token, op string, args map[string]any) []string {
	t.Helper()
	var out []string
	var cursor any
	for {
		a := map[string]any{"paginationOpts": map[string]any{"numItems": 2, "cursor": cursor}}
		for k, v := range args {
			a[k] = v
		}
		p := okAs[payoutPage](t, s.Query(token, op, a))
		for _, x := range p.Page {
			out = append(out, x.ID)
		}
		if p.IsDone {
			return out
		}
		cursor = p.ContinueCursor
	}
}

// payoutList is a payouts list (op list) and its count (op count) asked
// with base args by each of tokens; a case names the payouts it expects by
// their index in ids.
type payoutList struct {
	t           *testing.T
	s           *st.Sys
	list, count string
	ids         []string
	base        map[string]any
	tokens      []string
}

// expect checks that the list with base and args, walked a page at a time
// by each token, is ids[want[0]], ids[want[1]]... in that order, and that
// the count of the same filters (without sort), asked by the first token,
// is len(want), not capped.
func (l payoutList) expect(what string, args map[string]any, want ...int) {
	t := l.t
	t.Helper()
	a := map[string]any{}
	for k, v := range l.base {
		a[k] = v
	}
	for k, v := range args {
		a[k] = v
	}
	for _, token := range l.tokens {
		got := pagedIDs(t, l.s, token, l.list, a)
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v of %v", what, got, want, l.ids)
		}
		for i := range got {
			if got[i] != l.ids[want[i]] {
				t.Fatalf("%s: %v, want %v of %v", what, got, want, l.ids)
			}
		}
	}
	delete(a, "sort")
	n := okAs[listCount](t, l.s.Query(l.tokens[0], l.count, a))
	if n.Count != len(want) || n.Capped {
		t.Fatalf("%s: count %+v, want %d", what, n, len(want))
	}
}

// TestStorePayoutList: the owner's payouts (stores.payouts.listPayouts),
// paged, newest first by default, oldest, by amount both ways; by status
// and an inclusive request-date range, the server's (another store's
// payouts never listed); amount sort with a range, a reversed range and
// one over 366 days refused; countPayouts counts the same filters; the
// store's owner and administrators only.
func TestStorePayoutList(t *testing.T) {
	const list, count = "stores.payouts.listPayouts", "stores.payouts.countPayouts"
	clock := newTestClock(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	s := st.Start(t, st.WithClock(clock.Now))
	w := newPayoutsWorld(t, s, true)
	other := newStore(t, s, w.admin, "Florist", "owner-1", "", "")
	w.credit(t, w.store, w.wallet, 5000)
	w.credit(t, other, w.getWallet(t, w.owner, other).ID, 5000)
	var ids []string
	var dates []int64
	for _, amount := range []float64{300, 100, 500, 200} {
		ids = append(ids, okID(t, w.request(w.owner, w.store, amount)))
		dates = append(dates, clock.Now().UnixMilli())
		okID(t, w.request(w.owner, other, amount+1))
		clock.Advance(time.Hour)
	}
	st.MustOK(t, w.move(opApprove, ids[2]))
	st.MustOK(t, w.move(opReject, ids[3], "rejectionReason", "r"))
	expect := payoutList{t: t, s: s, list: list, count: count, ids: ids,
		base: map[string]any{"storeId": w.store}, tokens: []string{w.owner, w.admin}}.expect
	expect("newest", nil, 3, 2, 1, 0)
	expect("oldest", map[string]any{"sort": "oldest"}, 0, 1, 2, 3)
	expect("amount_desc", map[string]any{"sort": "amount_desc"}, 2, 0, 3, 1)
	expect("amount_asc", map[string]any{"sort": "amount_asc"}, 1, 3, 0, 2)
	expect("requested", map[string]any{"status": "requested"}, 1, 0)
	expect("requested by amount", map[string]any{"status": "requested", "sort": "amount_asc"}, 1, 0)
	expect("range (inclusive)", map[string]any{"from": dates[1], "to": dates[2]}, 2, 1)
	expect("range, oldest", map[string]any{"from": dates[1], "sort": "oldest"}, 1, 2, 3)
	expect("range, one status", map[string]any{"from": dates[0], "to": dates[3], "status": "cancelled"}, 3)
	expect("nothing", map[string]any{"status": "completed"})

	bad := func(args map[string]any) st.Result {
		a := map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 2}}
		for k, v := range args {
			a[k] = v
		}
		return s.Query(w.owner, list, a)
	}
	expectReason(t, bad(map[string]any{"from": dates[0], "sort": "amount_desc"}), "INVALID_ARGUMENT", "sort_with_range")
	expectError(t, bad(map[string]any{"from": dates[3], "to": dates[0]}), "INVALID_ARGUMENT")
	expectReason(t, bad(map[string]any{"from": dates[0], "to": dates[0] + 367*24*3600*1000}), "INVALID_ARGUMENT", "range_too_large")
	expectError(t, bad(map[string]any{"status": "paid"}), "INVALID_ARGUMENT")
	expectError(t, bad(map[string]any{"sort": "biggest"}), "INVALID_ARGUMENT")
	expectError(t, bad(map[string]any{"from": -1}), "INVALID_ARGUMENT")
	expectReason(t, s.Query(w.owner, count, map[string]any{"storeId": w.store, "from": dates[0], "to": dates[0] + 367*24*3600*1000}), "INVALID_ARGUMENT", "range_too_large")
	for _, op := range []string{list, count} {
		a := map[string]any{"storeId": w.store}
		if op == list {
			a["paginationOpts"] = map[string]any{"numItems": 2}
		}
		expectError(t, s.Query(s.Token("owner-2"), op, a), "PERMISSION_DENIED")
	}
}

// TestStatementEntriesByPeriod: a store's movements
// (stores.wallet.listStatementEntries) made within an inclusive period,
// newest or oldest first, paged two at a time, with a kind; a period with
// no movement is empty; a reversed period, one over 366 days and an
// unknown sort are refused.
func TestStatementEntriesByPeriod(t *testing.T) {
	const list = "stores.wallet.listStatementEntries"
	clock := newTestClock(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	s := st.Start(t, st.WithClock(clock.Now))
	w := newPayoutsWorld(t, s, true)
	var at []int64
	for _, amount := range []float64{10, 20, 30, 40, 50} {
		w.credit(t, w.store, w.wallet, amount)
		at = append(at, clock.Now().UnixMilli())
		clock.Advance(time.Hour)
	}
	all := allEntries(t, s, w.owner, map[string]any{"storeId": w.store})
	if len(all) != 5 {
		t.Fatalf("%d entries: %+v", len(all), all)
	}
	amounts := func(es []entryItem) []float64 {
		var out []float64
		for _, e := range es {
			out = append(out, e.Amount)
		}
		return out
	}
	expect := func(what string, args map[string]any, want ...float64) {
		t.Helper()
		a := map[string]any{"storeId": w.store}
		for k, v := range args {
			a[k] = v
		}
		got := amounts(allEntries(t, s, w.admin, a))
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v", what, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: %v, want %v", what, got, want)
			}
		}
	}
	expect("newest", nil, 50, 40, 30, 20, 10)
	expect("oldest", map[string]any{"sort": "oldest"}, 10, 20, 30, 40, 50)
	expect("period (inclusive)", map[string]any{"from": at[1], "to": at[3]}, 40, 30, 20)
	expect("period, oldest", map[string]any{"from": at[1], "to": at[3], "sort": "oldest"}, 20, 30, 40)
	expect("from only", map[string]any{"from": at[3] - 1}, 50, 40)
	expect("to only", map[string]any{"to": at[0]}, 10)
	expect("period and kind", map[string]any{"from": at[0], "to": at[4], "kind": "add_balance"}, 50, 40, 30, 20, 10)
	expect("period and another kind", map[string]any{"from": at[0], "to": at[4], "kind": "payout_request"})
	expect("between movements", map[string]any{"from": at[1] + 1, "to": at[2] - 1})
	expect("after the last", map[string]any{"from": at[4] + 1})
	expect("before the first", map[string]any{"to": at[0] - 1})

	bad := func(args map[string]any) st.Result {
		a := map[string]any{"storeId": w.store, "paginationOpts": map[string]any{"numItems": 2}}
		for k, v := range args {
			a[k] = v
		}
		return s.Query(w.owner, list, a)
	}
	expectError(t, bad(map[string]any{"from": at[3], "to": at[0]}), "INVALID_ARGUMENT")
	expectReason(t, bad(map[string]any{"from": at[0], "to": at[0] + 367*24*3600*1000}), "INVALID_ARGUMENT", "range_too_large")
	expectError(t, bad(map[string]any{"sort": "amount_desc"}), "INVALID_ARGUMENT")
	expectError(t, s.Query(s.Token("owner-2"), list, map[string]any{"storeId": w.store, "from": at[0], "paginationOpts": map[string]any{"numItems": 2}}), "PERMISSION_DENIED")
}

// TestHeldOrdersByPeriod: held payments (admins.orders.listHeldOrders)
// placed within an inclusive period, newest or oldest first, paged one at
// a time, of one store; countHeldOrders counts the same filters; a
// reversed period, one over 366 days, an unknown sort and a cursor of the
// other order are refused; administrators only.
func TestHeldOrdersByPeriod(t *testing.T) {
	const count = "admins.orders.countHeldOrders"
	s := st.Start(t)
	sh := newShop(t, s)
	pace := func() { time.Sleep(3 * time.Millisecond) }
	ids := []string{sh.orderOf(t, "pi_p1", sh.storeA, 100)} // paid 1.00 of 87.05: held
	pace()
	sh.fillCart(t)
	sh.orderOf(t, "pi_paid", sh.storeA, 8705) // paid in full: never listed
	pace()
	ids = append(ids, sh.orderOf(t, "pi_p2", sh.storeB, 100))
	pace()
	sh.fillCart(t)
	ids = append(ids, sh.orderOf(t, "pi_p3", sh.storeA, 200))
	times := map[string]int64{}
	for _, raw := range walkPages(t, s, sh.admin, opListHeldOrders, 10, nil) {
		var o struct {
			ID   string `json:"_id"`
			Time int64  `json:"_creationTime"`
		}
		if err := json.Unmarshal(raw, &o); err != nil {
			t.Fatal(err)
		}
		times[o.ID] = o.Time
	}
	at := func(i int) int64 { return times[ids[i]] }
	if len(times) != 3 || !(at(0) < at(1) && at(1) < at(2)) {
		t.Fatalf("held orders' times %v of %v", times, ids)
	}
	expect := func(what string, args map[string]any, want ...int) {
		t.Helper()
		got := itemIDs(t, walkPages(t, s, sh.admin, opListHeldOrders, 1, args))
		if len(got) != len(want) {
			t.Fatalf("%s: %v, want %v of %v", what, got, want, ids)
		}
		for i := range got {
			if got[i] != ids[want[i]] {
				t.Fatalf("%s: %v, want %v of %v", what, got, want, ids)
			}
		}
		a := map[string]any{}
		for k, v := range args {
			if k != "sort" {
				a[k] = v
			}
		}
		n := okAs[listCount](t, s.Query(sh.admin, count, a))
		if n.Count != len(want) || n.Capped {
			t.Fatalf("%s: count %+v, want %d", what, n, len(want))
		}
	}
	expect("newest", nil, 2, 1, 0)
	expect("oldest", map[string]any{"sort": "oldest"}, 0, 1, 2)
	expect("newest, said", map[string]any{"sort": "newest"}, 2, 1, 0)
	expect("period (inclusive)", map[string]any{"from": at(0), "to": at(1)}, 1, 0)
	expect("period, oldest", map[string]any{"from": at(1), "sort": "oldest"}, 1, 2)
	expect("until", map[string]any{"to": at(1) - 1}, 0)
	expect("period of a store", map[string]any{"from": at(0), "to": at(2), "storeId": sh.storeA, "sort": "oldest"}, 0, 2)
	expect("an empty period", map[string]any{"from": at(2) + 1})

	bad := func(args map[string]any) st.Result {
		a := map[string]any{"paginationOpts": map[string]any{"numItems": 1}}
		for k, v := range args {
			a[k] = v
		}
		return s.Query(sh.admin, opListHeldOrders, a)
	}
	day := int64(24 * 3600 * 1000)
	expectError(t, bad(map[string]any{"from": at(2), "to": at(0)}), "INVALID_ARGUMENT", "to")
	expectReason(t, bad(map[string]any{"from": at(0), "to": at(0) + 367*day}), "INVALID_ARGUMENT", "range_too_large")
	expectReason(t, s.Query(sh.admin, count, map[string]any{"from": at(0), "to": at(0) + 367*day}), "INVALID_ARGUMENT", "range_too_large")
	expectError(t, bad(map[string]any{"sort": "biggest"}), "INVALID_ARGUMENT", "sort")
	expectError(t, bad(map[string]any{"from": -1}), "INVALID_ARGUMENT", "from")
	expectError(t, s.Query(sh.admin, count, map[string]any{"storeId": missingLike(sh.storeA)}), "NOT_FOUND")
	// A cursor of one order is refused by the other.
	first := okAs[struct {
		IsDone         bool   `json:"isDone"`
		ContinueCursor string `json:"continueCursor"`
	}](t, bad(nil))
	if first.IsDone {
		t.Fatal("one of three held orders is the last page")
	}
	expectError(t, bad(map[string]any{"sort": "oldest", "paginationOpts": map[string]any{"numItems": 1, "cursor": first.ContinueCursor}}), "INVALID_ARGUMENT", "paginationOpts.cursor")
	for _, tok := range []string{sh.owner, sh.user} {
		expectError(t, s.Query(tok, opListHeldOrders, map[string]any{"from": at(0), "paginationOpts": map[string]any{"numItems": 1}}), "PERMISSION_DENIED")
		expectError(t, s.Query(tok, count, map[string]any{}), "PERMISSION_DENIED")
	}
	expectError(t, s.Query("", count, map[string]any{}), "UNAUTHENTICATED")
}

// TestPayoutQueueList: the payout queue's list (admins.payoutOperations.
// listPayouts with status requested, or open: requested, approved or
// processing) by an inclusive request-date range,
// newest, oldest or by amount, of one store, paged two at a time; and
// admins.payoutOperations.countPayouts counting the same filters (a period
// over 366 days refused); administrators only.
func TestPayoutQueueList(t *testing.T) {
	const list, count = "admins.payoutOperations.listPayouts", "admins.payoutOperations.countPayouts"
	clock := newTestClock(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	s := st.Start(t, st.WithClock(clock.Now))
	w := newPayoutsWorld(t, s, true)
	other := newStore(t, s, w.admin, "Florist", "owner-1", "", "")
	w.credit(t, w.store, w.wallet, 5000)
	w.credit(t, other, w.getWallet(t, w.owner, other).ID, 5000)
	var ids []string // the store's, then the other's, by turns
	var dates []int64
	for _, amount := range []float64{300, 100, 500} {
		ids = append(ids, okID(t, w.request(w.owner, w.store, amount)))
		ids = append(ids, okID(t, w.request(w.owner, other, amount+1)))
		dates = append(dates, clock.Now().UnixMilli())
		clock.Advance(time.Hour)
	}
	st.MustOK(t, w.move(opApprove, ids[4])) // 500 of the store: no longer requested
	expect := payoutList{t: t, s: s, list: list, count: count, ids: ids,
		base: map[string]any{"status": "requested"}, tokens: []string{w.admin}}.expect
	// Same request time for a pair: the id breaks the tie, so compare sets
	// of one store where times tie.
	expect("requested of the store, newest", map[string]any{"storeId": w.store}, 2, 0)
	expect("requested of the store, oldest", map[string]any{"storeId": w.store, "sort": "oldest"}, 0, 2)
	expect("requested of the other, by amount", map[string]any{"storeId": other, "sort": "amount_desc"}, 5, 1, 3)
	expect("requested of the other, by amount up", map[string]any{"storeId": other, "sort": "amount_asc"}, 3, 1, 5)
	expect("requested in a period (inclusive)", map[string]any{"storeId": other, "from": dates[1], "to": dates[2]}, 5, 3)
	expect("requested in a period, oldest", map[string]any{"storeId": w.store, "from": dates[0], "to": dates[2], "sort": "oldest"}, 0, 2)
	expect("approved", map[string]any{"status": "approved"}, 4)
	expect("open of the store (the queue's all), newest", map[string]any{"status": "open", "storeId": w.store}, 4, 2, 0)
	expect("open of the store, oldest", map[string]any{"status": "open", "storeId": w.store, "sort": "oldest"}, 0, 2, 4)
	expect("open of the store, by amount", map[string]any{"status": "open", "storeId": w.store, "sort": "amount_desc"}, 4, 0, 2)
	expect("open of the store in a period", map[string]any{"status": "open", "storeId": w.store, "from": dates[1], "to": dates[2]}, 4, 2)
	st.MustOK(t, w.move(opReject, ids[0], "rejectionReason", "r"))
	expect("open of the store, one rejected", map[string]any{"status": "open", "storeId": w.store}, 4, 2)
	n := okAs[listCount](t, s.Query(w.admin, count, map[string]any{"status": "requested", "from": dates[1], "to": dates[2]}))
	if n.Count != 3 || n.Capped {
		t.Fatalf("requested of every store in a period: count %+v, want 3", n)
	}
	if open := okAs[listCount](t, s.Query(w.admin, count, map[string]any{"status": "open"})); open.Count != 5 {
		t.Fatalf("open payouts: count %+v, want 5", open)
	}
	if all := okAs[listCount](t, s.Query(w.admin, count, map[string]any{})); all.Count != 6 {
		t.Fatalf("every payout: count %+v, want 6", all)
	}
	day := int64(24 * 3600 * 1000)
	expectReason(t, s.Query(w.admin, count, map[string]any{"from": dates[0], "to": dates[0] + 367*day}), "INVALID_ARGUMENT", "range_too_large")
	expectError(t, s.Query(w.admin, count, map[string]any{"from": dates[2], "to": dates[0]}), "INVALID_ARGUMENT", "to")
	expectError(t, s.Query(w.admin, count, map[string]any{"status": "paid"}), "INVALID_ARGUMENT", "status")
	expectError(t, s.Query(w.admin, count, map[string]any{"storeId": "x"}), "INVALID_ARGUMENT", "storeId")
	expectError(t, s.Query(w.owner, count, map[string]any{"status": "requested"}), "PERMISSION_DENIED")
	expectError(t, s.Query("", count, map[string]any{}), "UNAUTHENTICATED")
}
