package e2e

import (
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
	expect := func(what string, args map[string]any, want ...int) {
		t.Helper()
		a := map[string]any{"storeId": w.store}
		for k, v := range args {
			a[k] = v
		}
		for _, token := range []string{w.owner, w.admin} {
			got := pagedIDs(t, s, token, list, a)
			if len(got) != len(want) {
				t.Fatalf("%s: %v, want %v of %v", what, got, want, ids)
			}
			for i := range got {
				if got[i] != ids[want[i]] {
					t.Fatalf("%s: %v, want %v of %v", what, got, want, ids)
				}
			}
		}
		delete(a, "sort")
		n := okAs[listCount](t, s.Query(w.owner, count, a))
		if n.Count != len(want) || n.Capped {
			t.Fatalf("%s: count %+v, want %d", what, n, len(want))
		}
	}
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
