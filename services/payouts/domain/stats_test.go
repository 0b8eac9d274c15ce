package domain

import (
	"testing"
	"time"
)

func TestWindowsAreDubaiDays(t *testing.T) {
	// 20:30 UTC on 31 March is 00:30 on 1 April in Dubai.
	w := WindowsAt(time.Date(2026, 3, 31, 20, 30, 0, 0, time.UTC))
	if got := time.UnixMilli(w.DayStart).UTC(); !got.Equal(time.Date(2026, 3, 31, 20, 0, 0, 0, time.UTC)) {
		t.Fatalf("day starts %v", got)
	}
	if got := time.UnixMilli(w.MonthStart).UTC(); !got.Equal(time.Date(2026, 3, 31, 20, 0, 0, 0, time.UTC)) {
		t.Fatalf("month starts %v", got)
	}
	if got := time.UnixMilli(w.MonthEnd).UTC(); !got.Equal(time.Date(2026, 4, 30, 20, 0, 0, 0, time.UTC)) {
		t.Fatalf("month ends %v", got)
	}
	if w.DayEnd-w.DayStart != 24*3600*1000 {
		t.Fatal("a Dubai day is 24 hours, all year")
	}
}

func TestComputeStatistics(t *testing.T) {
	now := time.Date(2026, 3, 31, 20, 30, 0, 0, time.UTC) // 1 April, 00:30 in Dubai
	ms := func(t time.Time) int64 { return t.UnixMilli() }
	h := time.Hour
	ps := []StatPayout{
		{StoreID: "sto_a", StoreName: "A", Status: StatusRequested, Amount: 10000},
		{StoreID: "sto_a", StoreName: "A", Status: StatusApproved, Amount: 20000},
		{StoreID: "sto_b", StoreName: "B", Status: StatusProcessing, Amount: 30000},
		// Completed 10 minutes ago (1 April in Dubai, 31 March in UTC): today.
		{StoreID: "sto_b", StoreName: "B", Status: StatusCompleted, Amount: 40000, RequestDate: ms(now.Add(-10*h - 10*time.Minute)), CompletedDate: ms(now.Add(-10 * time.Minute))},
		// Completed 40 minutes ago: 31 March in Dubai, last month.
		{StoreID: "sto_a", StoreName: "A", Status: StatusCompleted, Amount: 50000, RequestDate: ms(now.Add(-20*h - 40*time.Minute)), CompletedDate: ms(now.Add(-40 * time.Minute))},
	}
	st := ComputeStatistics(ps, now)
	if st.TotalPendingRequests != 2 || st.TotalPendingAmount != 300 || st.TotalProcessingRequests != 1 || st.TotalProcessingAmount != 300 {
		t.Fatalf("open figures %+v", st)
	}
	if st.TotalCompletedToday != 1 || st.TotalCompletedTodayAmount != 400 || st.TotalCompletedThisMonth != 1 || st.TotalCompletedThisMonthAmount != 400 {
		t.Fatalf("completed figures %+v", st)
	}
	if st.AverageProcessingTime != 15 { // (10 h + 20 h) / 2
		t.Fatalf("average %v", st.AverageProcessingTime)
	}
	if len(st.TopStoresByPayouts) != 1 || st.TopStoresByPayouts[0] != (TopStore{StoreID: "sto_b", StoreName: "B", TotalPayouts: 1, TotalAmount: 400}) {
		t.Fatalf("top stores %+v", st.TopStoresByPayouts)
	}

	// Top stores: by amount this month, then count, then id; at most 10.
	var many []StatPayout
	for i := range 12 {
		id := string(rune('a' + i))
		for range i%3 + 1 {
			many = append(many, StatPayout{StoreID: "sto_" + id, StoreName: id, Status: StatusCompleted, Amount: 1000, CompletedDate: ms(now)})
		}
	}
	many = append(many, StatPayout{StoreID: "sto_z", Status: StatusCompleted, Amount: 3000, CompletedDate: ms(now)})
	top := ComputeStatistics(many, now).TopStoresByPayouts
	if len(top) != 10 {
		t.Fatalf("%d top stores", len(top))
	}
	if top[0].StoreID != "sto_c" || top[0].TotalAmount != 30 || top[0].TotalPayouts != 3 || top[4].StoreID != "sto_z" {
		t.Fatalf("order %+v", top)
	}
	for i := 1; i < len(top); i++ {
		if top[i].TotalAmount > top[i-1].TotalAmount {
			t.Fatalf("not sorted by amount: %+v", top)
		}
	}
	if empty := ComputeStatistics(nil, now); empty.AverageProcessingTime != 0 || empty.TopStoresByPayouts == nil {
		t.Fatalf("empty statistics %+v", empty)
	}
}
