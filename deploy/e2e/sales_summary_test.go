package e2e

import (
	"math"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
)

const opSalesSummary = "stores.orders.getSalesSummary"

type salesFigures struct {
	Orders     int     `json:"orders"`
	Gross      float64 `json:"gross"`
	Earnings   float64 `json:"earnings"`
	Commission float64 `json:"commission"`
	Refunded   float64 `json:"refunded"`
	Cancelled  int     `json:"cancelled"`
}

type salesSummary struct {
	Buckets []struct {
		Start int64 `json:"start"`
		salesFigures
	} `json:"buckets"`
	Totals      salesFigures   `json:"totals"`
	ByStatus    map[string]int `json:"byStatus"`
	TopProducts []struct {
		ProductID string  `json:"productId"`
		Name      string  `json:"name"`
		Quantity  int     `json:"quantity"`
		Revenue   float64 `json:"revenue"`
	} `json:"topProducts"`
}

// sumOf adds up orders as the store lists them (not cancelled: counted apart).
func sumOf(os ...orderView) salesFigures {
	var f salesFigures
	for _, o := range os {
		if o.Status == "cancelled" {
			f.Cancelled++
			continue
		}
		f.Orders++
		f.Gross += o.Total
		f.Earnings += *o.StoreEarnings
		f.Commission += *o.PlatformComm
	}
	round := func(x float64) float64 { return math.Round(x*100) / 100 }
	f.Gross, f.Earnings, f.Commission = round(f.Gross), round(f.Earnings), round(f.Commission)
	return f
}

// TestSalesSummary: a store's sales by Dubai day and week over HTTP. Orders
// made a minute either side of midnight in Dubai (20:00 UTC) fall in two
// days and one week (Monday 30 March 2026); each bucket equals the sum of its
// orders as the store lists them; a cancelled order is counted apart, a held
// one not at all; 367 days are refused; a period of more orders than the
// bound (lowered here to 3) is too_many_orders; another owner is refused.
func TestSalesSummary(t *testing.T) {
	dubai := time.FixedZone("Dubai", 4*3600)
	clock := newTestClock(time.Date(2026, 3, 31, 23, 59, 0, 0, dubai)) // Tuesday
	s := st.Start(t, st.WithClock(clock.Now), st.WithEnv("SALES_SUMMARY_MAX_ORDERS", "3"))
	sh := newShop(t, s)
	const amountA = 8705
	before := sh.orderOf(t, "pi_before", sh.storeA, amountA) // 23:59 Tuesday
	clock.Set(time.Date(2026, 4, 1, 0, 1, 0, 0, dubai))
	sh.fillCart(t)
	after := sh.orderOf(t, "pi_after", sh.storeA, amountA) // 00:01 Wednesday
	sh.fillCart(t)
	cancelled := sh.orderOf(t, "pi_cancelled", sh.storeA, amountA)
	st.MustOK(t, s.Mutation(sh.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": cancelled, "status": "cancelled"}))
	sh.fillCart(t)
	sh.orderOf(t, "pi_held", sh.storeA, 100) // paid 1.00: held for review, not the store's yet
	byID := map[string]orderView{}
	var page storeOrdersPage
	st.MustOK(t, s.Query(sh.owner, opListStoreOrders, map[string]any{"storeId": sh.storeA, "paginationOpts": map[string]any{"numItems": 50, "cursor": nil}})).Decode(t, &page)
	for _, o := range page.Page {
		byID[o.ID] = o
	}
	if len(byID) != 3 {
		t.Fatalf("the store lists %d orders", len(byID))
	}

	tuesday := time.Date(2026, 3, 31, 0, 0, 0, 0, dubai).UnixMilli()
	wednesday := time.Date(2026, 4, 1, 0, 0, 0, 0, dubai).UnixMilli()
	endWednesday := wednesday + 24*3600*1000 - 1
	args := map[string]any{"storeId": sh.storeA, "from": tuesday, "to": endWednesday, "granularity": "day"}
	days := okAs[salesSummary](t, s.Query(sh.owner, opSalesSummary, args))
	if len(days.Buckets) != 2 || days.Buckets[0].Start != tuesday || days.Buckets[1].Start != wednesday {
		t.Fatalf("days %+v", days.Buckets)
	}
	if want := sumOf(byID[before]); days.Buckets[0].salesFigures != want {
		t.Errorf("Tuesday %+v, want the order before midnight %+v", days.Buckets[0].salesFigures, want)
	}
	if want := sumOf(byID[after], byID[cancelled]); days.Buckets[1].salesFigures != want || want.Orders != 1 || want.Cancelled != 1 {
		t.Errorf("Wednesday %+v, want %+v", days.Buckets[1].salesFigures, want)
	}
	if want := sumOf(byID[before], byID[after], byID[cancelled]); days.Totals != want || want.Gross != 174.1 {
		t.Errorf("totals %+v, want %+v", days.Totals, want)
	}
	if days.ByStatus["confirmed"] != 2 || days.ByStatus["cancelled"] != 1 || days.ByStatus["pending"] != 0 {
		t.Errorf("by status %v", days.ByStatus)
	}
	// Cake (40.00 each) leads Bread (3 x 12.35) in both orders; the cancelled one does not count.
	if tp := days.TopProducts; len(tp) != 2 || tp[0].ProductID != sh.productA2 || tp[0].Name != "Cake" || tp[0].Quantity != 2 || tp[0].Revenue != 80 ||
		tp[1].ProductID != sh.productA1 || tp[1].Quantity != 6 || tp[1].Revenue != 74.1 {
		t.Errorf("top products %+v", tp)
	}

	args["granularity"] = "week"
	weeks := okAs[salesSummary](t, s.Query(s.Token("admin-1", "admin"), opSalesSummary, args))
	monday := time.Date(2026, 3, 30, 0, 0, 0, 0, dubai).UnixMilli()
	if len(weeks.Buckets) != 1 || weeks.Buckets[0].Start != monday || weeks.Buckets[0].salesFigures != days.Totals {
		t.Errorf("weeks %+v, want one from Monday %d with %+v", weeks.Buckets, monday, days.Totals)
	}

	expectDetails(t, s.Query(sh.owner, opSalesSummary, map[string]any{"storeId": sh.storeA, "from": tuesday, "to": tuesday + 367*24*3600*1000}),
		"INVALID_ARGUMENT", map[string]any{"field": "to", "reason": "range_too_large"})
	expectError(t, s.Query(sh.owner, opSalesSummary, map[string]any{"storeId": sh.storeA, "from": tuesday, "to": endWednesday, "granularity": "month"}), "INVALID_ARGUMENT")
	expectError(t, s.Query(s.Token("owner-2"), opSalesSummary, map[string]any{"storeId": sh.storeA, "from": tuesday, "to": endWednesday}), "PERMISSION_DENIED")

	// A fourth order of the store in the period: more than the bound of 3.
	sh.fillCart(t)
	sh.orderOf(t, "pi_fourth", sh.storeA, amountA)
	expectReason(t, s.Query(sh.owner, opSalesSummary, map[string]any{"storeId": sh.storeA, "from": tuesday, "to": endWednesday}),
		"FAILED_PRECONDITION", "too_many_orders")
	// A shorter period answers.
	if d := okAs[salesSummary](t, s.Query(sh.owner, opSalesSummary, map[string]any{"storeId": sh.storeA, "from": tuesday, "to": wednesday - 1})); d.Totals.Orders != 1 {
		t.Errorf("Tuesday alone %+v", d.Totals)
	}
}
