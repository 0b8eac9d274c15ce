package domain

import (
	"cmp"
	"math"
	"slices"
	"time"

	"marketplace/libs/money"
)

// Dubai is the platform's time zone for "today" and "this month": the UAE
// keeps UTC+4 all year (no daylight saving), so a fixed zone is exact and
// needs no time zone database.
var Dubai = time.FixedZone("Asia/Dubai", 4*60*60)

// maxTopStores is how many stores topStoresByPayouts lists.
const maxTopStores = 10

// Windows are the day and the month, in Dubai, that now falls in, as
// [start, end) epoch milliseconds.
type Windows struct {
	DayStart, DayEnd     int64
	MonthStart, MonthEnd int64
}

// WindowsAt are the Dubai day and month of now.
func WindowsAt(now time.Time) Windows {
	l := now.In(Dubai)
	day := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, Dubai)
	month := time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, Dubai)
	return Windows{
		DayStart: day.UnixMilli(), DayEnd: day.AddDate(0, 0, 1).UnixMilli(),
		MonthStart: month.UnixMilli(), MonthEnd: month.AddDate(0, 1, 0).UnixMilli(),
	}
}

// StatPayout is what the statistics read of a payout.
type StatPayout struct {
	StoreID       string
	StoreName     string
	Status        string
	Amount        money.Fils // the requested amount
	RequestDate   int64
	CompletedDate int64 // 0 unless completed
}

// TopStore is an entry of topStoresByPayouts.
type TopStore struct {
	StoreID      string  `json:"storeId"`
	StoreName    string  `json:"storeName"`
	TotalPayouts int     `json:"totalPayouts"` // payouts completed this month
	TotalAmount  float64 `json:"totalAmount"`  // their requested amounts, AED
}

// Statistics is getPayoutStatistics' answer. Amounts are AED (requested
// amounts); averageProcessingTime is hours from request to completion.
type Statistics struct {
	TotalPendingRequests          int        `json:"totalPendingRequests"`
	TotalPendingAmount            float64    `json:"totalPendingAmount"`
	TotalProcessingRequests       int        `json:"totalProcessingRequests"`
	TotalProcessingAmount         float64    `json:"totalProcessingAmount"`
	TotalCompletedToday           int        `json:"totalCompletedToday"`
	TotalCompletedTodayAmount     float64    `json:"totalCompletedTodayAmount"`
	TotalCompletedThisMonth       int        `json:"totalCompletedThisMonth"`
	TotalCompletedThisMonthAmount float64    `json:"totalCompletedThisMonthAmount"`
	AverageProcessingTime         float64    `json:"averageProcessingTime"`
	TopStoresByPayouts            []TopStore `json:"topStoresByPayouts"`
}

// Summary is what the statistics are made of: open totals, all-time
// completion totals, and the completions of the Dubai day and month of now
// per store. It is built either from the payouts themselves (Summarize) or
// from the running totals kept with every move (storage.Totals).
type Summary struct {
	pendingCount, processingCount   int
	pendingAmount, processingAmount money.Fils
	completedCount                  int64
	processingMs                    int64 // the completed payouts' time from request to completion, summed
	todayCount, monthCount          int
	todayAmount, monthAmount        money.Fils
	stores                          map[string]*storeMonth
}

// storeMonth is one store's completions this month.
type storeMonth struct {
	name   string
	count  int
	amount money.Fils
}

func (sm *Summary) store(id string) *storeMonth {
	if sm.stores == nil {
		sm.stores = map[string]*storeMonth{}
	}
	a := sm.stores[id]
	if a == nil {
		a = &storeMonth{}
		sm.stores[id] = a
	}
	return a
}

// Summarize builds the summary of payouts at now:
//   - pending: requested or approved (open, not yet being paid);
//   - processing: processing;
//   - completed today / this month: completed within the Dubai day / month of now;
//   - the completed payouts' count and time from request to completion.
func Summarize(ps []StatPayout, now time.Time) Summary {
	w := WindowsAt(now)
	var sm Summary
	for _, p := range ps {
		switch p.Status {
		case StatusRequested, StatusApproved:
			sm.pendingCount++
			sm.pendingAmount += p.Amount
		case StatusProcessing:
			sm.processingCount++
			sm.processingAmount += p.Amount
		case StatusCompleted:
			sm.completedCount++
			sm.processingMs += max(0, p.CompletedDate-p.RequestDate)
			if p.CompletedDate >= w.DayStart && p.CompletedDate < w.DayEnd {
				sm.todayCount++
				sm.todayAmount += p.Amount
			}
			if p.CompletedDate >= w.MonthStart && p.CompletedDate < w.MonthEnd {
				sm.monthCount++
				sm.monthAmount += p.Amount
				a := sm.store(p.StoreID)
				a.count++
				a.amount += p.Amount
				if p.StoreName != "" {
					a.name = p.StoreName
				}
			}
		}
	}
	return sm
}

// ComputeStatistics is the statistics of payouts at now (Summarize).
func ComputeStatistics(ps []StatPayout, now time.Time) Statistics {
	return Summarize(ps, now).Statistics()
}

// Statistics turns a summary into the answer:
//   - averageProcessingTime: the mean time from request to completion of the
//     completed payouts, in hours (two decimals; 0 when there is none);
//   - topStoresByPayouts: the stores with the largest amounts completed this
//     month, at most 10, ties by count, then store id.
func (sm Summary) Statistics() Statistics {
	st := Statistics{
		TotalPendingRequests: sm.pendingCount, TotalPendingAmount: sm.pendingAmount.AED(),
		TotalProcessingRequests: sm.processingCount, TotalProcessingAmount: sm.processingAmount.AED(),
		TotalCompletedToday: sm.todayCount, TotalCompletedTodayAmount: sm.todayAmount.AED(),
		TotalCompletedThisMonth: sm.monthCount, TotalCompletedThisMonthAmount: sm.monthAmount.AED(),
	}
	if sm.completedCount > 0 {
		hours := float64(sm.processingMs) / float64(sm.completedCount) / float64(time.Hour/time.Millisecond)
		st.AverageProcessingTime = math.Round(hours*100) / 100
	}
	type top struct {
		id string
		a  *storeMonth
	}
	tops := make([]top, 0, len(sm.stores))
	for id, a := range sm.stores {
		if a.count > 0 {
			tops = append(tops, top{id, a})
		}
	}
	slices.SortFunc(tops, func(x, y top) int {
		return cmp.Or(cmp.Compare(y.a.amount, x.a.amount), cmp.Compare(y.a.count, x.a.count), cmp.Compare(x.id, y.id))
	})
	st.TopStoresByPayouts = make([]TopStore, 0, min(len(tops), maxTopStores))
	for _, t := range tops[:min(len(tops), maxTopStores)] {
		st.TopStoresByPayouts = append(st.TopStoresByPayouts, TopStore{StoreID: t.id, StoreName: t.a.name, TotalPayouts: t.a.count, TotalAmount: t.a.amount.AED()})
	}
	return st
}

// DubaiDay and DubaiMonth name the Dubai day and month of an instant
// ("2026-04-01", "2026-04"): the keys of the completion totals.
func DubaiDay(ms int64) string   { return time.UnixMilli(ms).In(Dubai).Format("2006-01-02") }
func DubaiMonth(ms int64) string { return time.UnixMilli(ms).In(Dubai).Format("2006-01") }

// Total is the running total of the payouts in one status (its id): how
// many, their requested amount, and for completed ones the time from request
// to completion, summed.
type Total struct {
	ID           string     `bson:"_id"` // the status
	Count        int64      `bson:"count"`
	Amount       money.Fils `bson:"amount"`
	ProcessingMs int64      `bson:"processingMs"`
}

// Day is the completions of one store on one Dubai day.
type Day struct {
	ID        string     `bson:"_id"` // day + "|" + storeId
	Day       string     `bson:"day"`
	Month     string     `bson:"month"`
	StoreID   string     `bson:"storeId"`
	StoreName string     `bson:"storeName"`
	Count     int64      `bson:"count"`
	Amount    money.Fils `bson:"amount"`
}

// SummaryOfTotals is the summary of every payout at now from the running
// totals and the completions of the Dubai month of now (days).
func SummaryOfTotals(totals []Total, days []Day, now time.Time) Summary {
	var sm Summary
	for _, t := range totals {
		switch t.ID {
		case StatusRequested, StatusApproved:
			sm.pendingCount += int(t.Count)
			sm.pendingAmount += t.Amount
		case StatusProcessing:
			sm.processingCount += int(t.Count)
			sm.processingAmount += t.Amount
		case StatusCompleted:
			sm.completedCount, sm.processingMs = t.Count, t.ProcessingMs
		}
	}
	today := DubaiDay(now.UnixMilli())
	for _, d := range days {
		if d.Day == today {
			sm.todayCount += int(d.Count)
			sm.todayAmount += d.Amount
		}
		sm.monthCount += int(d.Count)
		sm.monthAmount += d.Amount
		a := sm.store(d.StoreID)
		a.count += int(d.Count)
		a.amount += d.Amount
		if d.StoreName != "" {
			a.name = d.StoreName
		}
	}
	return sm
}
