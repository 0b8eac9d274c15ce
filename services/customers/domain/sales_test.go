package domain

import (
	"testing"
	"time"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// utc is an instant given in UTC.
func utc(s string) int64 {
	t, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		panic(err)
	}
	return t.UnixMilli()
}

func TestDubaiDayAndWeekStarts(t *testing.T) {
	// Dubai is UTC+4: its 29 November 2026 (a Sunday) starts at 20:00 UTC on the 28th.
	for _, c := range []struct {
		at, day, week string
	}{
		{"2026-11-28T19:59:59.999Z", "2026-11-27T20:00:00.000Z", "2026-11-22T20:00:00.000Z"}, // Saturday 23:59:59.999 Dubai
		{"2026-11-28T20:00:00.000Z", "2026-11-28T20:00:00.000Z", "2026-11-22T20:00:00.000Z"}, // Sunday 00:00 Dubai: still the week of Monday 23rd
		{"2026-11-29T19:59:59.999Z", "2026-11-28T20:00:00.000Z", "2026-11-22T20:00:00.000Z"}, // Sunday 23:59:59.999 Dubai
		{"2026-11-29T20:00:00.000Z", "2026-11-29T20:00:00.000Z", "2026-11-29T20:00:00.000Z"}, // Monday 00:00 Dubai: a new week
		{"2026-11-30T03:00:00.000Z", "2026-11-29T20:00:00.000Z", "2026-11-29T20:00:00.000Z"},
		{"1970-01-01T00:00:00.000Z", "1969-12-31T20:00:00.000Z", "1969-12-28T20:00:00.000Z"}, // Thursday; Monday 29 Dec 1969
	} {
		if got := DubaiDayStart(utc(c.at)); got != utc(c.day) {
			t.Errorf("day of %s = %s, want %s", c.at, time.UnixMilli(got).UTC(), c.day)
		}
		if got := DubaiWeekStart(utc(c.at)); got != utc(c.week) {
			t.Errorf("week of %s = %s, want %s", c.at, time.UnixMilli(got).UTC(), c.week)
		}
	}
}

func TestCheckSalesPeriod(t *testing.T) {
	from := utc("2026-01-01T00:00:00.000Z")
	for _, c := range []struct {
		name        string
		to          int64
		granularity string
		field       string
	}{
		{"a day", from + dayMs, "day", ""},
		{"366 days", from + 366*dayMs, "week", ""},
		{"366 days and a millisecond", from + 366*dayMs + 1, "day", "to"},
		{"reversed", from - 1, "day", "to"},
		{"unknown granularity", from + dayMs, "month", "granularity"},
	} {
		err := CheckSalesPeriod(from, c.to, c.granularity)
		if c.field == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if e := apperr.From(err); e.Code != apperr.InvalidArgument || e.Details["field"] != c.field {
			t.Errorf("%s: %v (details %v), want INVALID_ARGUMENT at %s", c.name, err, e.Details, c.field)
		}
	}
	if e := apperr.From(TooManyOrders(5)); e.Code != apperr.FailedPrecondition || e.Details["reason"] != "too_many_orders" {
		t.Errorf("TooManyOrders = %v %v", e, e.Details)
	}
}

func order(id, status string, at int64, total, earnings, commission, refunded money.Fils, items ...OrderItem) Order {
	return Order{ID: id, Status: status, PaymentStatus: PaymentPaid, CreationTime: at, Total: total, StoreEarnings: earnings,
		PlatformCommission: commission, RefundedAmount: refunded, Items: items}
}

func item(id, name string, qty int, line money.Fils) OrderItem {
	return OrderItem{ProductID: id, Name: name, Quantity: qty, LineTotal: line}
}

func TestSummarizeSales(t *testing.T) {
	// Saturday 28 November 2026 00:00 Dubai to Monday 30 November 23:59:59.999 Dubai.
	from, to := utc("2026-11-27T20:00:00.000Z"), utc("2026-11-30T19:59:59.999Z")
	held := order("held", StatusPending, utc("2026-11-28T10:00:00.000Z"), 99900, 90000, 9900, 0, item("p1", "Held", 1, 99900))
	held.PaymentStatus = PaymentUnderReview
	orders := []Order{ // newest first, as the store reads them
		order("after", StatusDelivered, to+1, 50000, 45000, 5000, 0, item("p1", "Late", 1, 50000)),
		order("mon", StatusConfirmed, utc("2026-11-29T20:00:00.000Z"), 3000, 2700, 300, 0, item("p2", "Karak tea", 3, 3000)),
		order("sun-late", StatusDelivered, utc("2026-11-29T19:59:59.999Z"), 10000, 9000, 1000, 2500, item("p1", "Saffron cake", 2, 8000)),
		order("sun-cancelled", StatusCancelled, utc("2026-11-29T08:00:00.000Z"), 7000, 6300, 700, 7000, item("p3", "Dates", 7, 7000)),
		order("sun-early", StatusPreparing, utc("2026-11-28T20:00:00.000Z"), 2000, 1800, 200, 0, item("p2", "Tea", 2, 2000)),
		held,
		order("sat", StatusDelivered, utc("2026-11-28T19:59:59.999Z"), 4000, 3600, 400, 0, item("p1", "Cake", 1, 4000)),
		order("before", StatusDelivered, from-1, 80000, 72000, 8000, 0, item("p9", "Early", 1, 80000)),
	}
	got := SummarizeSales(orders, from, to, GranularityDay)
	want := []SalesBucket{
		{Start: utc("2026-11-27T20:00:00.000Z"), SalesFigures: SalesFigures{Orders: 1, Gross: 40, Earnings: 36, Commission: 4}},
		{Start: utc("2026-11-28T20:00:00.000Z"), SalesFigures: SalesFigures{Orders: 2, Gross: 120, Earnings: 108, Commission: 12, Refunded: 25, Cancelled: 1}},
		{Start: utc("2026-11-29T20:00:00.000Z"), SalesFigures: SalesFigures{Orders: 1, Gross: 30, Earnings: 27, Commission: 3}},
	}
	if len(got.Buckets) != len(want) {
		t.Fatalf("buckets %+v", got.Buckets)
	}
	for i := range want {
		if got.Buckets[i] != want[i] {
			t.Errorf("day %d = %+v, want %+v", i, got.Buckets[i], want[i])
		}
	}
	if w := (SalesFigures{Orders: 4, Gross: 190, Earnings: 171, Commission: 19, Refunded: 25, Cancelled: 1}); got.Totals != w {
		t.Errorf("totals %+v, want %+v", got.Totals, w)
	}
	wantStatus := map[string]int{"pending": 0, "confirmed": 1, "preparing": 1, "out_for_delivery": 0, "delivered": 2, "cancelled": 1}
	for s, n := range wantStatus {
		if got.ByStatus[s] != n {
			t.Errorf("byStatus[%s] = %d, want %d (%v)", s, got.ByStatus[s], n, got.ByStatus)
		}
	}
	if len(got.ByStatus) != len(wantStatus) {
		t.Errorf("byStatus %v", got.ByStatus)
	}
	// By revenue: p1 120 (3), p2 50 (5); the cancelled order's p3 and the held one's do not count.
	wantTop := []TopProduct{{ProductID: "p1", Name: "Saffron cake", Quantity: 3, Revenue: 120}, {ProductID: "p2", Name: "Karak tea", Quantity: 5, Revenue: 50}}
	if len(got.TopProducts) != len(wantTop) || got.TopProducts[0] != wantTop[0] || got.TopProducts[1] != wantTop[1] {
		t.Errorf("top %+v, want %+v", got.TopProducts, wantTop)
	}

	// Weeks from Monday: Saturday and Sunday are the week of Monday 23rd, Monday 30th starts the next.
	wk := SummarizeSales(orders, from, to, GranularityWeek)
	if len(wk.Buckets) != 2 || wk.Buckets[0].Start != utc("2026-11-22T20:00:00.000Z") || wk.Buckets[1].Start != utc("2026-11-29T20:00:00.000Z") {
		t.Fatalf("weeks %+v", wk.Buckets)
	}
	if w := (SalesFigures{Orders: 3, Gross: 160, Earnings: 144, Commission: 16, Refunded: 25, Cancelled: 1}); wk.Buckets[0].SalesFigures != w {
		t.Errorf("first week %+v, want %+v", wk.Buckets[0].SalesFigures, w)
	}
	if wk.Totals != got.Totals {
		t.Errorf("week totals %+v differ from day totals %+v", wk.Totals, got.Totals)
	}
}

func TestSummarizeSalesEmptyDaysAndTopTen(t *testing.T) {
	from := utc("2026-11-01T20:00:00.000Z")
	to := from + 7*dayMs - 1
	var orders []Order
	for i := 0; i < 12; i++ { // product i sells i+1 at 1 AED
		orders = append(orders, order("o", StatusDelivered, from+int64(i)*1000, money.Fils(100*(i+1)), 0, 0, 0,
			item(string(rune('a'+i)), "n", i+1, money.Fils(100*(i+1)))))
	}
	s := SummarizeSales(orders, from, to, GranularityDay)
	if len(s.Buckets) != 7 || s.Buckets[0].Orders != 12 || s.Buckets[6].Orders != 0 || s.Buckets[6].Start != from+6*dayMs {
		t.Errorf("days %+v", s.Buckets)
	}
	if len(s.TopProducts) != MaxTopProducts || s.TopProducts[0].ProductID != "l" || s.TopProducts[9].ProductID != "c" {
		t.Errorf("top %+v", s.TopProducts)
	}
	if e := SummarizeSales(nil, from, to, GranularityWeek); len(e.TopProducts) != 0 || e.TopProducts == nil || len(e.Buckets) != 1 { // Monday 2 November to Sunday 8th: one week
		t.Errorf("empty %+v", e)
	}
}

// TestSalesRefundedInAED: refunded sums AED: an AED order's refunds as they
// are; one paid in another currency (RefundedAmount in its minor units) by
// its AED counterpart at the accepted rate (ADR 0153); one in another
// currency without its amount paid is left out.
func TestSalesRefundedInAED(t *testing.T) {
	day := DubaiDayStart(time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC).UnixMilli())
	paid := func(currency string, amount money.Fils) func(*Order) {
		return func(o *Order) {
			o.PaymentCurrency = currency
			if amount > 0 {
				o.AmountPaid = &amount
			}
		}
	}
	for _, c := range []struct {
		name     string
		refunded money.Fils
		with     func(*Order)
		want     float64
		counted  bool
	}{
		{"AED, recorded currency", 2500, paid("aed", 9000), 25, true},
		{"AED, before the currency was recorded", 2500, paid("", 0), 25, true},
		{"USD: half of 24.50 USD is half the 90.00 AED total", 1225, paid("usd", 2450), 45, true},
		{"USD: a cent is 3.67 fils, rounded once", 1, paid("usd", 2450), 0.04, true},
		{"USD: all of it is the whole total", 2450, paid("usd", 2450), 90, true},
		{"USD without its amount paid: left out", 1225, paid("usd", 0), 0, false},
	} {
		o := order("o1", StatusDelivered, day+1000, 9000, 8350, 650, c.refunded)
		c.with(&o)
		if _, ok := o.RefundedAED(); ok != c.counted {
			t.Errorf("%s: counted %v", c.name, ok)
		}
		got := SummarizeSales([]Order{o}, day, day+dayMs-1, GranularityDay)
		if got.Totals.Refunded != c.want || got.Buckets[0].Refunded != c.want {
			t.Errorf("%s: refunded %v (bucket %v), want %v", c.name, got.Totals.Refunded, got.Buckets[0].Refunded, c.want)
		}
	}
}
