package domain

import (
	"cmp"
	"slices"

	"marketplace/libs/apperr"
	"marketplace/libs/money"
)

// A store's sales figures (stores.orders.getSalesSummary) are computed on
// read from its orders, never kept as running totals (docs/adr/0164): the
// orders are the one source, and a figure cannot drift from them.

// Granularities of a sales summary's buckets.
const (
	GranularityDay  = "day"
	GranularityWeek = "week"
)

// Bounds of a sales summary: the period (days), the orders read (the
// setting SALES_SUMMARY_MAX_ORDERS may lower it) and the top products.
const (
	MaxSalesDays   = 366
	MaxSalesOrders = 20000
	MaxTopProducts = 10
)

const (
	dayMs = int64(24 * 60 * 60 * 1000)
	// dubaiOffsetMs: the UAE keeps UTC+4 all year (no daylight saving), so
	// Dubai's calendar days are exact with a fixed offset.
	dubaiOffsetMs = int64(4 * 60 * 60 * 1000)
)

// DubaiDayStart is the start (epoch ms) of the Dubai calendar day ms falls in.
func DubaiDayStart(ms int64) int64 {
	local := ms + dubaiOffsetMs
	d := local / dayMs
	if local%dayMs < 0 {
		d--
	}
	return d*dayMs - dubaiOffsetMs
}

// DubaiWeekStart is the start (epoch ms) of the Dubai week ms falls in; weeks
// begin on Monday at midnight, Dubai time.
func DubaiWeekStart(ms int64) int64 {
	day := DubaiDayStart(ms)
	idx := (day + dubaiOffsetMs) / dayMs // days since Thursday 1 January 1970
	monday := ((idx+3)%7 + 7) % 7        // days since Monday
	return day - monday*dayMs
}

// CheckSalesPeriod refuses a reversed period, one longer than MaxSalesDays
// and an unknown granularity (INVALID_ARGUMENT).
func CheckSalesPeriod(from, to int64, granularity string) error {
	if from > to {
		return apperr.Invalid("to", "must not be before from (%d > %d)", from, to)
	}
	if to-from > MaxSalesDays*dayMs {
		return apperr.Invalid("to", "a summary covers at most %d days; ask for a shorter period", MaxSalesDays).
			WithDetails(map[string]any{"field": "to", "reason": "range_too_large", "maxDays": MaxSalesDays})
	}
	if granularity != GranularityDay && granularity != GranularityWeek {
		return apperr.Invalid("granularity", "must be day or week")
	}
	return nil
}

// TooManyOrders refuses a summary whose period holds more than max orders.
func TooManyOrders(max int) error {
	return apperr.New(apperr.FailedPrecondition, "the period has more than %d orders; ask for a shorter period", max).
		WithDetails(map[string]any{"reason": "too_many_orders", "maxOrders": max})
}

// SalesFigures are the figures of a bucket or of the whole period (AED).
// Orders, Gross, Earnings, Commission and Refunded are of the orders placed
// and not cancelled: Gross their totals, Earnings the store's share and
// Commission the platform's as frozen on each order, Refunded what was
// refunded of them so far. Cancelled counts the cancelled ones apart.
type SalesFigures struct {
	Orders     int     `json:"orders"`
	Gross      float64 `json:"gross"`
	Earnings   float64 `json:"earnings"`
	Commission float64 `json:"commission"`
	Refunded   float64 `json:"refunded"`
	Cancelled  int     `json:"cancelled"`
}

// SalesBucket is one day or week of a summary, from Start (epoch ms, Dubai
// midnight).
type SalesBucket struct {
	Start int64 `json:"start"`
	SalesFigures
}

// TopProduct is a product among the store's best sellers of the period.
type TopProduct struct {
	ProductID string  `json:"productId"`
	Name      string  `json:"name"`
	Quantity  int     `json:"quantity"`
	Revenue   float64 `json:"revenue"`
}

// SalesSummary is getSalesSummary's answer. ByStatus counts the orders
// placed in the period by their status now (cancelled included).
type SalesSummary struct {
	From        int64          `json:"from"`
	To          int64          `json:"to"`
	Granularity string         `json:"granularity"`
	Buckets     []SalesBucket  `json:"buckets"`
	Totals      SalesFigures   `json:"totals"`
	ByStatus    map[string]int `json:"byStatus"`
	TopProducts []TopProduct   `json:"topProducts"`
}

// sums are figures in fils while adding.
type sums struct {
	orders, cancelled                    int
	gross, earnings, commission, refunds money.Fils
}

func (s *sums) add(o *Order) {
	if o.Status == StatusCancelled {
		s.cancelled++
		return
	}
	s.orders++
	s.gross += o.Total
	s.earnings += o.StoreEarnings
	s.commission += o.PlatformCommission
	if r, ok := o.RefundedAED(); ok {
		s.refunds += r
	}
}

// RefundedAED is what was refunded of the order in AED (fils): the refunds
// themselves for an order paid in AED; for one paid in another currency
// (RefundedAmount in its minor units) their AED counterpart at the rate the
// administrator accepted, as the payouts service reverses them
// (aedCounterpart, docs/adr/0153). An order in another currency without its
// amount paid has no counterpart (payouts reverses nothing of it): ok
// false, left out of the sales' refunded.
func (o *Order) RefundedAED() (money.Fils, bool) {
	if o.Currency() == "aed" {
		return o.RefundedAmount, true
	}
	if o.AmountPaid == nil || *o.AmountPaid <= 0 {
		return 0, false
	}
	return aedCounterpart(o.Total, *o.AmountPaid, o.RefundedAmount), true
}

func (s sums) figures() SalesFigures {
	return SalesFigures{Orders: s.orders, Gross: s.gross.AED(), Earnings: s.earnings.AED(), Commission: s.commission.AED(),
		Refunded: s.refunds.AED(), Cancelled: s.cancelled}
}

// SummarizeSales sums a store's orders placed from from to to (epoch ms,
// inclusive) in Dubai days or weeks (from Monday): every bucket of the
// period, empty ones included, the first starting at the Dubai midnight (or
// Monday) on or before from. Orders outside the period and orders whose
// payment is held for review (the platform's to settle, unseen by the store)
// are left out; cancelled orders are counted apart and add nothing else.
// Orders are expected newest first: a product's name is that of its newest
// order.
func SummarizeSales(orders []Order, from, to int64, granularity string) SalesSummary {
	startOf := DubaiDayStart
	if granularity == GranularityWeek {
		startOf = DubaiWeekStart
	}
	step := dayMs
	if granularity == GranularityWeek {
		step = 7 * dayMs
	}
	var starts []int64
	index := map[int64]int{}
	for b := startOf(from); b <= to; b += step {
		index[b] = len(starts)
		starts = append(starts, b)
	}
	buckets := make([]sums, len(starts))
	var total sums
	byStatus := map[string]int{}
	for _, s := range append(forward[:len(forward):len(forward)], StatusCancelled) {
		byStatus[s] = 0
	}
	type top struct {
		id, name string
		qty      int
		revenue  money.Fils
	}
	tops := map[string]*top{}
	for i := range orders {
		o := &orders[i]
		if o.Held() || o.CreationTime < from || o.CreationTime > to {
			continue
		}
		byStatus[o.Status]++
		total.add(o)
		if j, ok := index[startOf(o.CreationTime)]; ok {
			buckets[j].add(o)
		}
		if o.Status == StatusCancelled {
			continue
		}
		for _, it := range o.Items {
			t := tops[it.ProductID]
			if t == nil {
				t = &top{id: it.ProductID, name: it.Name}
				tops[it.ProductID] = t
			}
			t.qty += it.Quantity
			t.revenue += it.LineTotal
		}
	}
	out := SalesSummary{From: from, To: to, Granularity: granularity, Buckets: make([]SalesBucket, len(starts)),
		Totals: total.figures(), ByStatus: byStatus, TopProducts: []TopProduct{}}
	for i, b := range starts {
		out.Buckets[i] = SalesBucket{Start: b, SalesFigures: buckets[i].figures()}
	}
	ranked := make([]*top, 0, len(tops))
	for _, t := range tops {
		ranked = append(ranked, t)
	}
	slices.SortFunc(ranked, func(x, y *top) int {
		return cmp.Or(cmp.Compare(y.revenue, x.revenue), cmp.Compare(y.qty, x.qty), cmp.Compare(x.id, y.id))
	})
	for _, t := range ranked[:min(len(ranked), MaxTopProducts)] {
		out.TopProducts = append(out.TopProducts, TopProduct{ProductID: t.id, Name: t.name, Quantity: t.qty, Revenue: t.revenue.AED()})
	}
	return out
}
