package e2e

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

// getCSV answers a CSV route's status, rows (on 200) and body.
func getCSV(t *testing.T, s *st.Sys, token, path string, q url.Values) (int, [][]string, st.Result) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	r := s.Do("GET", path+"?"+q.Encode(), nil, h)
	if r.Status != 200 {
		return r.Status, nil, r
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Errorf("%s: Content-Type %q", path, ct)
	}
	if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") {
		t.Errorf("%s: Content-Disposition %q", path, cd)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
	if err != nil {
		t.Fatalf("%s: not CSV: %v\n%s", path, err, r.Body)
	}
	return r.Status, rows, r
}

func csvIDs(rows [][]string) []string {
	var out []string
	for _, r := range rows[1:] {
		out = append(out, r[1])
	}
	return out
}

// TestOrdersCSV: the orders exports hold exactly the list operations' rows
// for the same filters (the owner's without the held order, an
// administrator's with it; one store's or every store's; of one status),
// with names and amounts; a cell a spreadsheet would run as a formula is
// quoted; the period is required and at most 366 days (400 range_too_large);
// more rows than ORDERS_EXPORT_MAX_ROWS (lowered to 4) is 409 too_many_rows
// before any byte; anonymous 401, another owner or a non-administrator 403.
func TestOrdersCSV(t *testing.T) {
	s := st.Start(t, st.WithEnv("ORDERS_EXPORT_MAX_ROWS", "4"))
	sh := newShop(t, s)
	st.MustOK(t, s.Mutation(sh.user, "customers.profile.upsertMyProfile", map[string]any{"name": "=cmd|' /C calc'!A0"}))
	sh.orderOf(t, "pi_c0", sh.storeA, 8705)
	o1 := sh.orderOfBread(t, "pi_c1", 1, 0)
	o2 := sh.orderOfBread(t, "pi_c2", 2, 0)
	held := sh.orderOfBread(t, "pi_ch", 1, 100)
	sh.orderOfB(t)
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o2.ID, "status": "preparing"}))
	from, to := time.Now().Add(-time.Hour).UnixMilli(), time.Now().Add(time.Hour).UnixMilli()
	period := func(more ...string) url.Values {
		q := url.Values{"from": {fmt.Sprint(from)}, "to": {fmt.Sprint(to)}}
		for i := 0; i+1 < len(more); i += 2 {
			q.Set(more[i], more[i+1])
		}
		return q
	}
	storePath := "/api/stores/" + sh.storeA + "/orders.csv"
	list := func(token, op string, args map[string]any) []string {
		a := map[string]any{"from": from, "to": to}
		for k, v := range args {
			a[k] = v
		}
		return foundIDs(walkOrders(t, s, token, op, a, 100))
	}

	t.Run("rows are the list's", func(t *testing.T) {
		for _, c := range []struct {
			what, token, path string
			q                 url.Values
			op                string
			args              map[string]any
		}{
			{"the owner's store", sh.owner, storePath, period(), opListStoreOrders, map[string]any{"storeId": sh.storeA}},
			{"the owner's confirmed", sh.owner, storePath, period("status", "confirmed"), opListStoreOrders, map[string]any{"storeId": sh.storeA, "status": "confirmed"}},
			{"an administrator's store", sh.admin, storePath, period(), opListStoreOrders, map[string]any{"storeId": sh.storeA}},
			{"store A, every order", sh.admin, "/api/admin/orders.csv", period("storeId", sh.storeA), opListOrders, map[string]any{"storeId": sh.storeA}},
			{"every pending", sh.admin, "/api/admin/orders.csv", period("status", "pending"), opListOrders, map[string]any{"status": "pending"}},
			{"the customer's", sh.admin, "/api/admin/orders.csv", period("customerId", sh.customer, "status", "confirmed"), opListOrders,
				map[string]any{"customerId": sh.customer, "status": "confirmed"}},
			{"every order of the period", sh.admin, "/api/admin/orders.csv", url.Values{"from": {fmt.Sprint(o1.CreationTime)}, "to": {fmt.Sprint(held.CreationTime)}},
				opListOrders, map[string]any{"from": o1.CreationTime, "to": held.CreationTime}},
		} {
			status, rows, r := getCSV(t, s, c.token, c.path, c.q)
			if status != 200 {
				t.Fatalf("%s: %d %s", c.what, status, r.Body)
			}
			want := list(c.token, c.op, c.args)
			if len(want) == 0 || !slices.Equal(csvIDs(rows), want) {
				t.Errorf("%s: CSV %v, list %v", c.what, csvIDs(rows), want)
			}
			if c.what == "the owner's store" && slices.Contains(csvIDs(rows), held.ID) {
				t.Errorf("the owner's CSV holds the held order")
			}
		}
	})

	t.Run("another customer's", func(t *testing.T) {
		// A customer without orders: the export filters by customerId as
		// the list does, so both are empty (the period has 5 orders).
		other := okID(t, s.Mutation(s.Token("user-2"), "customers.profile.upsertMyProfile", map[string]any{"name": "Sara"}))
		status, rows, r := getCSV(t, s, sh.admin, "/api/admin/orders.csv", period("customerId", other))
		if status != 200 || len(rows) != 1 {
			t.Fatalf("another customer's CSV: %d %d rows %s", status, len(rows), r.Body)
		}
		if l := list(sh.admin, opListOrders, map[string]any{"customerId": other}); len(l) != 0 {
			t.Errorf("another customer's list %v", l)
		}
	})

	t.Run("a row", func(t *testing.T) {
		_, rows, _ := getCSV(t, s, sh.owner, storePath, period())
		want := []string{"number", "id", "date", "store", "customer", "city", "area", "items", "subtotal", "delivery_fee", "total", "commission", "earnings", "payment", "status", "refunded"}
		if !slices.Equal(rows[0], want) {
			t.Fatalf("header %v", rows[0])
		}
		var row []string
		for _, r := range rows[1:] {
			if r[1] == o2.ID {
				row = r
			}
		}
		if row == nil {
			t.Fatalf("no row of %s", o2.ID)
		}
		at, err := time.Parse(time.RFC3339, row[2])
		if err != nil || at.Unix() != o2.CreationTime/1000 || !strings.HasSuffix(row[2], "+04:00") {
			t.Errorf("date %q (%v), created %d", row[2], err, o2.CreationTime)
		}
		got := map[string]string{}
		for i, h := range want {
			got[h] = row[i]
		}
		for k, v := range map[string]string{"number": o2.Number, "store": "Bakery", "customer": "'=cmd|' /C calc'!A0", "city": "Dubai", "area": "Jumeirah",
			"items": "Bread x2", "subtotal": "24.70", "delivery_fee": "10.00", "total": "34.70", "payment": "paid", "status": "preparing", "refunded": "0.00"} {
			if got[k] != v {
				t.Errorf("%s = %q, want %q", k, got[k], v)
			}
		}
		if got["commission"] != fmt.Sprintf("%.2f", *o2.PlatformCommission) || got["earnings"] != fmt.Sprintf("%.2f", *o2.StoreEarnings) {
			t.Errorf("commission %s, earnings %s; order %v, %v", got["commission"], got["earnings"], *o2.PlatformCommission, *o2.StoreEarnings)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		newStore(t, s, sh.admin, "Elsewhere", "owner-2", "", "")
		day := int64(24 * 60 * 60 * 1000)
		for _, c := range []struct {
			what, token, path string
			q                 url.Values
			status            int
			code, reason      string
		}{
			{"anonymous", "", storePath, period(), 401, "UNAUTHENTICATED", ""},
			{"anonymous, every order", "", "/api/admin/orders.csv", period(), 401, "UNAUTHENTICATED", ""},
			{"another owner", s.Token("owner-2"), storePath, period(), 403, "PERMISSION_DENIED", ""},
			{"a customer", sh.user, storePath, period(), 403, "PERMISSION_DENIED", ""},
			{"an owner, every order", sh.owner, "/api/admin/orders.csv", period(), 403, "PERMISSION_DENIED", ""},
			{"367 days", sh.owner, storePath, url.Values{"from": {fmt.Sprint(from)}, "to": {fmt.Sprint(from + 367*day)}}, 400, "INVALID_ARGUMENT", "range_too_large"},
			{"no period", sh.owner, storePath, url.Values{}, 400, "INVALID_ARGUMENT", ""},
			{"to before from", sh.owner, storePath, url.Values{"from": {fmt.Sprint(to)}, "to": {fmt.Sprint(from)}}, 400, "INVALID_ARGUMENT", ""},
			{"a status that is none", sh.owner, storePath, period("status", "lost"), 400, "INVALID_ARGUMENT", ""},
			{"a store id that is none", sh.admin, "/api/admin/orders.csv", period("storeId", "nope"), 400, "INVALID_ARGUMENT", ""},
			{"a store that does not exist", sh.admin, "/api/admin/orders.csv", period("storeId", missingLike(sh.storeA)), 404, "NOT_FOUND", ""},
			{"a customer id that is none", sh.admin, "/api/admin/orders.csv", period("customerId", "nope"), 400, "INVALID_ARGUMENT", ""},
			{"a customer who does not exist", sh.admin, "/api/admin/orders.csv", period("customerId", missingLike(sh.customer)), 404, "NOT_FOUND", ""},
			{"5 rows over 4", sh.admin, "/api/admin/orders.csv", period(), 409, "FAILED_PRECONDITION", "too_many_rows"},
		} {
			status, _, r := getCSV(t, s, c.token, c.path, c.q)
			var e struct {
				Error struct {
					Code    string         `json:"code"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			_ = json.Unmarshal(r.Body, &e)
			if status != c.status || e.Error.Code != c.code || (c.reason != "" && e.Error.Details["reason"] != c.reason) {
				t.Errorf("%s: %d %s, want %d %s %s", c.what, status, r.Body, c.status, c.code, c.reason)
			}
			if c.reason == "too_many_rows" && e.Error.Details["maxRows"] != float64(4) {
				t.Errorf("too_many_rows details %v", e.Error.Details)
			}
		}
		// Exactly the cap is allowed.
		if status, rows, r := getCSV(t, s, sh.admin, "/api/admin/orders.csv", period("storeId", sh.storeA)); status != 200 || len(rows) != 5 {
			t.Errorf("store A's 4 orders: %d %d rows %s", status, len(rows), r.Body)
		}
	})
}
