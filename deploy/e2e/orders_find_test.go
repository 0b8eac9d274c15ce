package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/store"
)

// Finding orders (issue 32, items 1 and 2; docs/adr/0159, 0160).
const (
	opListOrders       = "admins.orders.listOrders"
	opCountOrders      = "admins.orders.countOrders"
	opCountStoreOrders = "stores.orders.countStoreOrders"
	opGetOrder         = "stores.orders.getOrder"
	opSearchCustomers  = "admins.customers.searchCustomers"
)

// foundOrder is an order view with what the console's lists and order page
// read.
type foundOrder struct {
	ID                 string   `json:"_id"`
	CreationTime       int64    `json:"_creationTime"`
	Number             string   `json:"number"`
	StoreID            string   `json:"storeId"`
	StoreName          string   `json:"storeName"`
	CustomerID         string   `json:"customerId"`
	CustomerName       string   `json:"customerName"`
	Subtotal           float64  `json:"subtotal"`
	DeliveryFee        float64  `json:"deliveryFee"`
	Total              float64  `json:"total"`
	Status             string   `json:"status"`
	PaymentStatus      string   `json:"paymentStatus"`
	PlatformCommission *float64 `json:"platformCommission"`
	StoreEarnings      *float64 `json:"storeEarnings"`
	CommissionRate     *float64 `json:"commissionRate"`
	CommissionFixedFee *float64 `json:"commissionFixedFee"`
	RefundedAmount     float64  `json:"refundedAmount"`
	DeliveryAddress    struct {
		FullAddress    string `json:"fullAddress"`
		City           string `json:"city"`
		Area           string `json:"area"`
		PhoneNumber    string `json:"phoneNumber"`
		CityName       string `json:"cityName"`
		CityNameArabic string `json:"cityNameArabic"`
		AreaName       string `json:"areaName"`
	} `json:"deliveryAddress"`
	StatusHistory []struct {
		Status string `json:"status"`
		At     int64  `json:"at"`
		By     string `json:"by"`
		Role   string `json:"role"`
	} `json:"statusHistory"`
	Items []foundItem `json:"items"`
}

type foundItem struct {
	Name     string `json:"name"`
	Quantity int    `json:"quantity"`
}

type foundPage struct {
	Page           []foundOrder `json:"page"`
	IsDone         bool         `json:"isDone"`
	ContinueCursor string       `json:"continueCursor"`
}

type orderCount struct {
	Count  int  `json:"count"`
	Capped bool `json:"capped"`
}

// walkOrders reads a list operation page by page (per items each) to its end.
func walkOrders(t *testing.T, s *st.Sys, token, op string, args map[string]any, per int) []foundOrder {
	t.Helper()
	var out []foundOrder
	var cursor any
	for range 100 {
		a := map[string]any{"paginationOpts": map[string]any{"numItems": per, "cursor": cursor}}
		for k, v := range args {
			a[k] = v
		}
		p := okAs[foundPage](t, s.Query(token, op, a))
		if len(p.Page) > per {
			t.Fatalf("%s: a page of %d, asked %d", op, len(p.Page), per)
		}
		out = append(out, p.Page...)
		if p.IsDone {
			return out
		}
		cursor = p.ContinueCursor
	}
	t.Fatalf("%s never ends", op)
	return nil
}

func foundIDs(os []foundOrder) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = o.ID
	}
	return out
}

// orderOfBread adds q breads (12.35 each) to the cart and pays them with the
// 10.00 fee (paid: what is paid, in fils; 0 for exactly the total); the
// order as an administrator reads it. Orders are a few milliseconds apart,
// so their creation times differ.
func (sh *shop) orderOfBread(t *testing.T, intent string, q int, paid int64) foundOrder {
	t.Helper()
	okID(t, sh.s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": q}))
	if paid == 0 {
		paid = int64(1235*q + 1000)
	}
	sh.orderOf(t, intent, sh.storeA, paid)
	time.Sleep(3 * time.Millisecond)
	return okAs[foundOrder](t, sh.s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent}))
}

func expectOrders(t *testing.T, what string, got []foundOrder, want ...foundOrder) {
	t.Helper()
	if !slices.Equal(foundIDs(got), foundIDs(want)) {
		t.Errorf("%s: %v, want %v", what, foundIDs(got), foundIDs(want))
	}
}

// TestOrdersFilteredSortedCounted: listStoreOrders' and listOrders' filters
// (period inclusive at both ends, status, number, customer, store), the four
// sorts walked page by page, a cursor of one sort refused by another, counts
// capped (ORDERS_COUNT_MAX lowered to 3), held orders hidden from the store
// and listed to administrators, and who may.
func TestOrdersFilteredSortedCounted(t *testing.T) {
	s := st.Start(t, st.WithEnv("ORDERS_COUNT_MAX", "3"))
	sh := newShop(t, s)
	sh.orderOf(t, "pi_f0", sh.storeA, 8705) // the shop's cart: A1 x3, A2, the fee
	o0 := okAs[foundOrder](t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_f0"}))
	time.Sleep(3 * time.Millisecond)
	o1 := sh.orderOfBread(t, "pi_f1", 1, 0)     // 22.35
	o2 := sh.orderOfBread(t, "pi_f2", 5, 0)     // 71.75
	o3 := sh.orderOfBread(t, "pi_f3", 2, 0)     // 34.70
	held := sh.orderOfBread(t, "pi_fh", 3, 100) // 47.05, paid 1.00: held
	oB := okAs[foundOrder](t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": sh.orderOfB(t)}))
	if held.PaymentStatus != "under_review" || o2.Total != 71.75 || o0.Total != 87.05 {
		t.Fatalf("the world is not as planned: held %s, o2 %v, o0 %v", held.PaymentStatus, o2.Total, o0.Total)
	}
	store := func(more ...any) map[string]any {
		a := map[string]any{"storeId": sh.storeA}
		for i := 0; i+1 < len(more); i += 2 {
			a[more[i].(string)] = more[i+1]
		}
		return a
	}

	t.Run("sorts, page by page", func(t *testing.T) {
		for _, per := range []int{1, 2, 10} {
			expectOrders(t, "newest", walkOrders(t, s, sh.owner, opListStoreOrders, store(), per), o3, o2, o1, o0)
			expectOrders(t, "newest by name", walkOrders(t, s, sh.owner, opListStoreOrders, store("sort", "newest"), per), o3, o2, o1, o0)
			expectOrders(t, "oldest", walkOrders(t, s, sh.owner, opListStoreOrders, store("sort", "oldest"), per), o0, o1, o2, o3)
			expectOrders(t, "total_desc", walkOrders(t, s, sh.owner, opListStoreOrders, store("sort", "total_desc"), per), o0, o2, o3, o1)
			expectOrders(t, "total_asc", walkOrders(t, s, sh.owner, opListStoreOrders, store("sort", "total_asc"), per), o1, o3, o2, o0)
		}
		expectOrders(t, "admin's newest of the store", walkOrders(t, s, sh.admin, opListStoreOrders, store(), 2), held, o3, o2, o1, o0)
		expectOrders(t, "every order", walkOrders(t, s, sh.admin, opListOrders, nil, 2), oB, held, o3, o2, o1, o0)
		expectOrders(t, "every order, oldest", walkOrders(t, s, sh.admin, opListOrders, map[string]any{"sort": "oldest"}, 4), o0, o1, o2, o3, held, oB)
		expectOrders(t, "a store's by total", walkOrders(t, s, sh.admin, opListOrders, map[string]any{"storeId": sh.storeA, "sort": "total_asc"}, 2), o1, o3, held, o2, o0)
	})

	t.Run("period inclusive", func(t *testing.T) {
		expectOrders(t, "o1..o2", walkOrders(t, s, sh.owner, opListStoreOrders, store("from", o1.CreationTime, "to", o2.CreationTime), 10), o2, o1)
		expectOrders(t, "after o1..o2", walkOrders(t, s, sh.owner, opListStoreOrders, store("from", o1.CreationTime+1, "to", o2.CreationTime), 10), o2)
		expectOrders(t, "o1..before o2", walkOrders(t, s, sh.owner, opListStoreOrders, store("from", o1.CreationTime, "to", o2.CreationTime-1), 10), o1)
		expectOrders(t, "from o3", walkOrders(t, s, sh.owner, opListStoreOrders, store("from", o3.CreationTime), 10), o3)
		expectOrders(t, "to o0", walkOrders(t, s, sh.owner, opListStoreOrders, store("to", o0.CreationTime), 10), o0)
		// A period with a sort by total would walk the store's whole total
		// index: refused (the total sorts go with the store alone).
		expectReason(t, s.Query(sh.owner, opListStoreOrders, store("from", o1.CreationTime, "to", o2.CreationTime, "sort", "total_desc", "paginationOpts", map[string]any{"numItems": 1})), "INVALID_ARGUMENT", "sort_with_filter")
		expectReason(t, s.Query(sh.admin, opListOrders, map[string]any{"storeId": sh.storeA, "to": o2.CreationTime, "sort": "total_asc", "paginationOpts": map[string]any{"numItems": 1}}), "INVALID_ARGUMENT", "sort_with_filter")
		expectOrders(t, "every store's o3..oB", walkOrders(t, s, sh.admin, opListOrders, map[string]any{"from": o3.CreationTime, "to": oB.CreationTime}, 10), oB, held, o3)
		expectError(t, s.Query(sh.owner, opListStoreOrders, store("from", o2.CreationTime, "to", o1.CreationTime, "paginationOpts", map[string]any{"numItems": 5})), "INVALID_ARGUMENT", "to")
		expectError(t, s.Query(sh.owner, opListStoreOrders, store("from", -1, "paginationOpts", map[string]any{"numItems": 5})), "INVALID_ARGUMENT", "from")
	})

	t.Run("status, number, customer, store", func(t *testing.T) {
		st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o2.ID, "status": "preparing"}))
		expectOrders(t, "preparing", walkOrders(t, s, sh.owner, opListStoreOrders, store("status", "preparing"), 10), o2)
		for _, f := range [][]any{{"status", "confirmed"}, {"number", o3.Number}, {"customerId", sh.customer}} {
			expectReason(t, s.Query(sh.owner, opListStoreOrders, store(f[0], f[1], "sort", "total_asc", "paginationOpts", map[string]any{"numItems": 1})), "INVALID_ARGUMENT", "sort_with_filter")
			expectReason(t, s.Query(sh.admin, opListOrders, map[string]any{"storeId": sh.storeA, f[0].(string): f[1], "sort": "total_desc", "paginationOpts": map[string]any{"numItems": 1}}), "INVALID_ARGUMENT", "sort_with_filter")
		}
		expectOrders(t, "pending: the held one is not the store's", walkOrders(t, s, sh.owner, opListStoreOrders, store("status", "pending"), 10))
		expectOrders(t, "every pending", walkOrders(t, s, sh.admin, opListOrders, map[string]any{"status": "pending"}, 10), held)
		for _, typed := range []string{o3.Number, "#" + strings.ToLower(o3.Number), " #" + o3.Number + " "} {
			expectOrders(t, "number "+typed, walkOrders(t, s, sh.owner, opListStoreOrders, store("number", typed), 10), o3)
			expectOrders(t, "every store's number "+typed, walkOrders(t, s, sh.admin, opListOrders, map[string]any{"number": typed}, 10), o3)
		}
		expectOrders(t, "the held one's number, to its store", walkOrders(t, s, sh.owner, opListStoreOrders, store("number", held.Number), 10))
		expectOrders(t, "the held one's number", walkOrders(t, s, sh.admin, opListOrders, map[string]any{"number": held.Number}, 10), held)
		expectError(t, s.Query(sh.owner, opListStoreOrders, store("number", "12345", "paginationOpts", map[string]any{"numItems": 5})), "INVALID_ARGUMENT", "number")
		expectOrders(t, "the customer's", walkOrders(t, s, sh.owner, opListStoreOrders, store("customerId", sh.customer), 10), o3, o2, o1, o0)
		expectOrders(t, "another customer's", walkOrders(t, s, sh.owner, opListStoreOrders, store("customerId", missingLike(sh.customer)), 10))
		expectOrders(t, "the customer's everywhere", walkOrders(t, s, sh.admin, opListOrders, map[string]any{"customerId": sh.customer}, 10), oB, held, o3, o2, o1, o0)
		expectOrders(t, "store B's", walkOrders(t, s, sh.admin, opListOrders, map[string]any{"storeId": sh.storeB}, 10), oB)
		expectError(t, s.Query(sh.admin, opListOrders, map[string]any{"storeId": missingLike(sh.storeB), "paginationOpts": map[string]any{"numItems": 5}}), "NOT_FOUND")
		expectError(t, s.Query(sh.admin, opListOrders, map[string]any{"customerId": missingLike(sh.customer), "paginationOpts": map[string]any{"numItems": 5}}), "NOT_FOUND")
		expectError(t, s.Query(sh.admin, opListOrders, map[string]any{"sort": "total_desc", "paginationOpts": map[string]any{"numItems": 5}}), "INVALID_ARGUMENT", "sort")
		expectError(t, s.Query(sh.admin, opListOrders, map[string]any{"sort": "cheapest", "paginationOpts": map[string]any{"numItems": 5}}), "INVALID_ARGUMENT", "sort")
	})

	t.Run("a cursor serves its own sort only", func(t *testing.T) {
		cursorOf := func(sort any) string {
			a := store("paginationOpts", map[string]any{"numItems": 1})
			if sort != nil {
				a["sort"] = sort
			}
			p := okAs[foundPage](t, s.Query(sh.owner, opListStoreOrders, a))
			if p.IsDone || p.ContinueCursor == "" {
				t.Fatalf("sort %v: one order and done", sort)
			}
			return p.ContinueCursor
		}
		sorts := []any{nil, "oldest", "total_desc", "total_asc"}
		for _, from := range sorts {
			c := cursorOf(from)
			for _, to := range sorts {
				a := store("paginationOpts", map[string]any{"numItems": 1, "cursor": c})
				if to != nil {
					a["sort"] = to
				}
				r := s.Query(sh.owner, opListStoreOrders, a)
				if from == to {
					st.MustOK(t, r)
				} else {
					expectError(t, r, "INVALID_ARGUMENT", "cursor")
				}
			}
		}
	})

	t.Run("counts, capped", func(t *testing.T) {
		for _, c := range []struct {
			token, op string
			args      map[string]any
			want      orderCount
		}{
			{sh.owner, opCountStoreOrders, store(), orderCount{3, true}}, // 4, over ORDERS_COUNT_MAX=3
			{sh.admin, opCountStoreOrders, store(), orderCount{3, true}},
			{sh.owner, opCountStoreOrders, store("from", o1.CreationTime, "to", o2.CreationTime), orderCount{2, false}},
			{sh.owner, opCountStoreOrders, store("status", "preparing"), orderCount{1, false}},
			{sh.owner, opCountStoreOrders, store("status", "pending"), orderCount{0, false}},
			{sh.owner, opCountStoreOrders, store("number", o1.Number), orderCount{1, false}},
			{sh.owner, opCountStoreOrders, store("status", "confirmed"), orderCount{3, false}}, // exactly the cap
			{sh.admin, opCountOrders, map[string]any{}, orderCount{3, true}},
			{sh.admin, opCountOrders, map[string]any{"storeId": sh.storeB}, orderCount{1, false}},
			{sh.admin, opCountOrders, map[string]any{"status": "pending"}, orderCount{1, false}},
			{sh.admin, opCountOrders, map[string]any{"from": o3.CreationTime, "to": oB.CreationTime}, orderCount{3, false}},
		} {
			if got := okAs[orderCount](t, s.Query(c.token, c.op, c.args)); got != c.want {
				t.Errorf("%s %v: %+v, want %+v", c.op, c.args, got, c.want)
			}
		}
	})

	t.Run("who may", func(t *testing.T) {
		newStore(t, s, sh.admin, "Elsewhere", "owner-2", "", "")
		other, anon := s.Token("owner-2"), ""
		page := map[string]any{"numItems": 5}
		for _, tok := range []string{other, sh.user} {
			expectError(t, s.Query(tok, opListStoreOrders, store("sort", "oldest", "paginationOpts", page)), "PERMISSION_DENIED")
			expectError(t, s.Query(tok, opCountStoreOrders, store()), "PERMISSION_DENIED")
			expectError(t, s.Query(tok, opListOrders, map[string]any{"paginationOpts": page}), "PERMISSION_DENIED")
			expectError(t, s.Query(tok, opCountOrders, map[string]any{}), "PERMISSION_DENIED")
		}
		expectError(t, s.Query(sh.owner, opListOrders, map[string]any{"paginationOpts": page}), "PERMISSION_DENIED")
		expectError(t, s.Query(anon, opListOrders, map[string]any{"paginationOpts": page}), "UNAUTHENTICATED")
		expectError(t, s.Query(anon, opCountStoreOrders, store()), "UNAUTHENTICATED")
	})

	t.Run("names", func(t *testing.T) {
		for _, o := range walkOrders(t, s, sh.admin, opListOrders, nil, 10) {
			if o.CustomerName != "Noor" || o.Number != strings.ToUpper(o.ID[len(o.ID)-6:]) || o.StoreName == "" {
				t.Errorf("order %s: customer %q, number %q, store %q", o.ID, o.CustomerName, o.Number, o.StoreName)
			}
			// The shop's payments carry the city and area as text: shown as they are.
			if o.DeliveryAddress.City != "Dubai" || o.DeliveryAddress.CityName != "" || o.DeliveryAddress.AreaName != "" {
				t.Errorf("order %s's text address: %+v", o.ID, o.DeliveryAddress)
			}
		}
	})
}

// orderOfB pays the shop's store B lines (Roses x2 and the fee) and answers
// its payment intent.
func (sh *shop) orderOfB(t *testing.T) string {
	t.Helper()
	sh.orderOf(t, "pi_fb", sh.storeB, 2*9999+1000)
	return "pi_fb"
}

// TestOrderViewsNameThePlaces: an order whose payment carried catalog ids
// shows the city's and area's names (and the city's Arabic name) beside the
// ids, in every view that returns orders; one whose payment carried text
// keeps the text without names; the customer is named.
func TestOrderViewsNameThePlaces(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	city := newCity(t, s, sh.admin, "Dubai", "دبي")
	area := newArea(t, s, sh.admin, "Jumeirah", city)
	p := sh.payment("pi_named")
	p.Address.City, p.Address.Area = city, area
	if r := deliver(s, processor.Event("evt_pi_named", "payment_intent.succeeded", p)); r.Status != 200 {
		t.Fatalf("webhook: %d %s", r.Status, r.Body)
	}
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 1}))
	sh.orderOf(t, "pi_text", sh.storeA, 1235+1000)
	named := okAs[foundOrder](t, s.Query(sh.admin, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_named"}))
	check := func(what string, o foundOrder) {
		t.Helper()
		a := o.DeliveryAddress
		switch o.ID {
		case named.ID:
			if a.City != city || a.Area != area || a.CityName != "Dubai" || a.CityNameArabic != "دبي" || a.AreaName != "Jumeirah" {
				t.Errorf("%s: the named order's address %+v", what, a)
			}
		default:
			if a.City != "Dubai" || a.Area != "Jumeirah" || a.CityName != "" || a.AreaName != "" || a.CityNameArabic != "" {
				t.Errorf("%s: the text order's address %+v", what, a)
			}
		}
		if o.CustomerName != "Noor" {
			t.Errorf("%s: customer %q", what, o.CustomerName)
		}
	}
	check("getOrderByPaymentIntent", named)
	check("the customer's getOrderByPaymentIntent", okAs[foundOrder](t, s.Query(sh.user, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": "pi_named"})))
	check("getOrder", okAs[foundOrder](t, s.Query(sh.owner, opGetOrder, map[string]any{"orderId": named.ID})))
	lists := map[string][]foundOrder{
		"listStoreOrders": walkOrders(t, s, sh.owner, opListStoreOrders, map[string]any{"storeId": sh.storeA}, 10),
		"listOrders":      walkOrders(t, s, sh.admin, opListOrders, nil, 1),
		"getMyOrders":     walkOrders(t, s, sh.user, "customers.orders.getMyOrders", nil, 10),
	}
	for what, os := range lists {
		if len(os) != 2 {
			t.Errorf("%s: %d orders, want 2", what, len(os))
		}
		for _, o := range os {
			check(what, o)
		}
	}
	// A held order (listHeldOrders) is named too.
	hp := sh.payment("pi_named_held")
	hp.Address.City, hp.Address.Area, hp.AmountFils = city, area, 100
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 1}))
	if r := deliver(s, processor.Event("evt_pi_named_held", "payment_intent.succeeded", hp)); r.Status != 200 {
		t.Fatalf("webhook: %d %s", r.Status, r.Body)
	}
	heldPage := okAs[foundPage](t, s.Query(sh.admin, "admins.orders.listHeldOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 10}}))
	if len(heldPage.Page) != 1 || heldPage.Page[0].DeliveryAddress.AreaName != "Jumeirah" || heldPage.Page[0].CustomerName != "Noor" {
		t.Errorf("listHeldOrders: %+v", heldPage.Page)
	}
}

// TestGetOrder: the order page's data for its owner and administrators: the
// commission's terms, who moved it and as what; another owner refused; an
// order held for review NOT_FOUND to its store (as listing hides it) and
// shown to administrators.
func TestGetOrder(t *testing.T) {
	s := st.Start(t)
	sh := newShop(t, s)
	id := sh.orderOf(t, "pi_g1", sh.storeA, 8705)
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": id, "status": "preparing"}))
	st.MustOK(t, s.Mutation(sh.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": id, "status": "out_for_delivery"}))
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 1}))
	cancelled := sh.orderOf(t, "pi_g2", sh.storeA, 1235+1000)
	st.MustOK(t, s.Mutation(sh.user, "customers.orders.cancelMyOrder", map[string]any{"orderId": cancelled}))
	okID(t, s.Mutation(sh.user, "customers.cart.addItem", map[string]any{"productId": sh.productA1, "quantity": 1}))
	held := sh.orderOf(t, "pi_g3", sh.storeA, 100)

	for _, tok := range []string{sh.owner, sh.admin} {
		o := okAs[foundOrder](t, s.Query(tok, opGetOrder, map[string]any{"orderId": id}))
		if o.ID != id || o.Number == "" || o.CustomerName != "Noor" || o.Total != 87.05 || len(o.Items) != 2 || !slices.ContainsFunc(o.Items, func(it foundItem) bool { return it.Name == "Bread" }) ||
			o.PlatformCommission == nil || o.StoreEarnings == nil || o.CommissionRate == nil || *o.CommissionRate <= 0 || o.CommissionFixedFee == nil ||
			*o.PlatformCommission+*o.StoreEarnings != o.Total || o.DeliveryAddress.PhoneNumber == "" {
			t.Errorf("getOrder: %+v", o)
		}
		type who struct{ status, by, role string }
		var got []who
		for _, h := range o.StatusHistory {
			got = append(got, who{h.Status, h.By, h.Role})
		}
		want := []who{{"confirmed", "payments", "system"}, {"preparing", "owner-1", "store"}, {"out_for_delivery", "admin-1", "administrator"}}
		if !slices.Equal(got, want) {
			t.Errorf("history %+v, want %+v", got, want)
		}
		c := okAs[foundOrder](t, s.Query(tok, opGetOrder, map[string]any{"orderId": cancelled}))
		if last := c.StatusHistory[len(c.StatusHistory)-1]; last.Status != "cancelled" || last.By != "user-1" || last.Role != "customer" {
			t.Errorf("the customer's cancellation: %+v", last)
		}
	}
	// The customer's own view never says who moved it.
	for _, o := range walkOrders(t, s, sh.user, "customers.orders.getMyOrders", nil, 10) {
		for _, h := range o.StatusHistory {
			if h.By != "" || h.Role != "" {
				t.Errorf("the customer sees who moved %s: %+v", o.ID, h)
			}
		}
		if o.PlatformCommission != nil || o.CommissionRate != nil {
			t.Errorf("the customer sees the commission of %s", o.ID)
		}
	}

	expectError(t, s.Query(sh.owner, opGetOrder, map[string]any{"orderId": held}), "NOT_FOUND")
	if o := okAs[foundOrder](t, s.Query(sh.admin, opGetOrder, map[string]any{"orderId": held})); o.PaymentStatus != "under_review" {
		t.Errorf("the held order to an administrator: %+v", o)
	}
	newStore(t, s, sh.admin, "Elsewhere", "owner-2", "", "")
	expectError(t, s.Query(s.Token("owner-2"), opGetOrder, map[string]any{"orderId": id}), "PERMISSION_DENIED")
	expectError(t, s.Query(sh.user, opGetOrder, map[string]any{"orderId": id}), "PERMISSION_DENIED")
	expectError(t, s.Query("", opGetOrder, map[string]any{"orderId": id}), "UNAUTHENTICATED")
	expectError(t, s.Query(sh.admin, opGetOrder, map[string]any{"orderId": missingLike(id)}), "NOT_FOUND")
	expectError(t, s.Query(sh.admin, opGetOrder, map[string]any{"orderId": "ord_nope"}), "INVALID_ARGUMENT", "orderId")
	// Once an administrator confirms it, its store sees it.
	st.MustOK(t, s.Mutation(sh.admin, "stores.orders.updateOrderStatus", map[string]any{"orderId": held, "status": "confirmed"}))
	st.MustOK(t, s.Query(sh.owner, opGetOrder, map[string]any{"orderId": held}))
}

// TestCustomerSearch: administrators find customers by a name's prefix (any
// case), an exact phone, email, user id or profile id; at most 20; a query of
// one character refused; nobody else may.
func TestCustomerSearch(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	profile := func(user, name string, more ...string) string {
		a := map[string]any{"name": name}
		if len(more) > 0 {
			a["phone"] = more[0]
		}
		if len(more) > 1 {
			a["email"] = more[1]
		}
		return okID(t, s.Mutation(s.Token(user), "customers.profile.upsertMyProfile", a))
	}
	noor := profile("user-1", "Noor  Hassan", "+971501111111", "noor@example.com")
	noora := profile("user-2", "noora Ali")
	omar := profile("user-3", "Omar", "+971502222222")
	arabic := profile("user-4", "نور حسن")
	search := func(q string) []string {
		t.Helper()
		var ps []struct {
			ID string `json:"_id"`
		}
		st.MustOK(t, s.Query(admin, opSearchCustomers, map[string]any{"query": q})).Decode(t, &ps)
		out := make([]string, len(ps))
		for i, p := range ps {
			out[i] = p.ID
		}
		return out
	}
	for _, c := range []struct {
		q    string
		want []string
	}{
		{"noor", []string{noor, noora}},
		{"NOOR", []string{noor, noora}},
		{"Noor Has", []string{noor}},
		{"noor  hassan", []string{noor}},
		{"+971501111111", []string{noor}},
		{"+97150", nil}, // phones are exact
		{"noor@example.com", []string{noor}},
		{"user-3", []string{omar}},
		{omar, []string{omar}},
		{"نور", []string{arabic}},
		{"zz", nil},
	} {
		if got := search(c.q); !slices.Equal(got, c.want) {
			t.Errorf("search %q: %v, want %v", c.q, got, c.want)
		}
	}
	for i := range 25 {
		profile("many-"+string(rune('a'+i)), "Sam "+string(rune('a'+i)))
	}
	if got := search("sam"); len(got) != 20 {
		t.Errorf("search sam: %d, want at most 20", len(got))
	}
	expectError(t, s.Query(admin, opSearchCustomers, map[string]any{"query": "n"}), "INVALID_ARGUMENT", "query")
	expectError(t, s.Query(admin, opSearchCustomers, map[string]any{"query": "  n  "}), "INVALID_ARGUMENT", "query")
	expectError(t, s.Query(admin, opSearchCustomers, map[string]any{"query": strings.Repeat("n", 101)}), "INVALID_ARGUMENT", "query")
	expectError(t, s.Query(s.Token("user-1"), opSearchCustomers, map[string]any{"query": "noor"}), "PERMISSION_DENIED")
	expectError(t, s.Query("", opSearchCustomers, map[string]any{"query": "noor"}), "UNAUTHENTICATED")
}

// TestStoreSearch: listStores' search is a prefix of the name, any case,
// with the other filters and page by page.
func TestStoreSearch(t *testing.T) {
	s := st.Start(t)
	admin := s.Token("admin-1", "admin")
	food := newCategory(t, s, admin, "Food")
	bakery := newStore(t, s, admin, "Bakery", "owner-1", food, "")
	bakeHouse := newStore(t, s, admin, "Bake  House", "owner-2", "", "")
	newStore(t, s, admin, "Florist", "owner-3", "", "")
	newStore(t, s, admin, "Cake Bakery", "owner-4", "", "")
	search := func(per int, more ...any) []string {
		t.Helper()
		var out []string
		var cursor any
		for range 20 {
			a := map[string]any{"paginationOpts": map[string]any{"numItems": per, "cursor": cursor}}
			for i := 0; i+1 < len(more); i += 2 {
				a[more[i].(string)] = more[i+1]
			}
			var p struct {
				Page []struct {
					ID string `json:"_id"`
				} `json:"page"`
				IsDone         bool   `json:"isDone"`
				ContinueCursor string `json:"continueCursor"`
			}
			st.MustOK(t, s.Query("", "catalog.stores.listStores", a)).Decode(t, &p)
			for _, x := range p.Page {
				out = append(out, x.ID)
			}
			if p.IsDone {
				return out
			}
			cursor = p.ContinueCursor
		}
		t.Fatal("listStores never ends")
		return nil
	}
	for _, c := range []struct {
		args []any
		want []string
	}{
		{[]any{"search", "bak"}, []string{bakeHouse, bakery}},
		{[]any{"search", "BAKE H"}, []string{bakeHouse}},
		{[]any{"search", "bakery"}, []string{bakery}},
		{[]any{"search", "bak", "categoryId", food}, []string{bakery}},
		{[]any{"search", "x"}, nil},
	} {
		for _, per := range []int{1, 10} {
			if got := search(per, c.args...); !slices.Equal(got, c.want) {
				t.Errorf("listStores %v (%d a page): %v, want %v", c.args, per, got, c.want)
			}
		}
	}
	expectError(t, s.Query("", "catalog.stores.listStores", map[string]any{"search": " ", "paginationOpts": map[string]any{"numItems": 5}}), "INVALID_ARGUMENT", "search")
}

// TestOrderNumberSearch: orders made before orders kept their number, and
// profiles before they kept their name key, are given them by a background
// backfill at start: a search by number then finds the old order, and both
// of two orders whose ids end alike; a search by name finds the old profile.
func TestOrderNumberSearch(t *testing.T) {
	dir := t.TempDir()
	var admin, owner, storeA, oldID, twinID, number, customer string
	t.Run("first run", func(t *testing.T) {
		s := st.Start(t, st.WithDataDir(dir))
		sh := newShop(t, s)
		admin, owner, storeA, customer = sh.admin, sh.owner, sh.storeA, sh.customer
		oldID = sh.orderOf(t, "pi_old", sh.storeA, 8705)
		number = strings.ToUpper(oldID[len(oldID)-6:])
	})
	// As an older version left them: no number, no name key; and a second
	// order whose id ends as the first's (24 bits: it happens).
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "customers", DataDir: filepath.Join(dir, "db")})
	if err != nil {
		t.Fatal(err)
	}
	orders := db.Collection("orders")
	var doc bson.M
	if err := orders.FindOne(ctx, bson.M{"_id": oldID}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if doc["number"] != number {
		t.Fatalf("a new order's stored number %v, want %s", doc["number"], number)
	}
	twinID = "ord_" + strings.Repeat("0", 18) + strings.ToLower(number)
	twin := bson.M{}
	for k, v := range doc {
		twin[k] = v
	}
	twin["_id"], twin["paymentIntentId"], twin["creationTime"] = twinID, "pi_twin", doc["creationTime"].(int64)+1
	if _, err := orders.InsertOne(ctx, twin); err != nil {
		t.Fatal(err)
	}
	ctx = store.Scan(ctx, "the test rewinds every record to an older version's shape")
	if _, err := orders.UpdateMany(ctx, bson.M{}, bson.M{"$unset": bson.M{"number": ""}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Collection("customers").UpdateMany(ctx, bson.M{}, bson.M{"$unset": bson.M{"nameKey": ""}}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(ctx); err != nil {
		t.Fatal(err)
	}

	s := st.Start(t, st.WithDataDir(dir))
	find := func(token, op string, args map[string]any) []string {
		return foundIDs(walkOrders(t, s, token, op, args, 10))
	}
	both := []string{twinID, oldID}
	eventually(t, "the backfill numbers the old orders", func() bool {
		return slices.Equal(find(admin, opListOrders, map[string]any{"number": "#" + number}), both)
	})
	if got := find(owner, opListStoreOrders, map[string]any{"storeId": storeA, "number": strings.ToLower(number)}); !slices.Equal(got, both) {
		t.Errorf("the store's search by number: %v, want %v", got, both)
	}
	if c := okAs[orderCount](t, s.Query(admin, opCountOrders, map[string]any{"number": number})); c != (orderCount{2, false}) {
		t.Errorf("count by number: %+v", c)
	}
	eventually(t, "the backfill keys the old profiles' names", func() bool {
		var ps []struct {
			ID string `json:"_id"`
		}
		st.MustOK(t, s.Query(admin, opSearchCustomers, map[string]any{"query": "no"})).Decode(t, &ps)
		return len(ps) == 1 && ps[0].ID == customer
	})
}
