package payouts

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"marketplace/libs/money"
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

// The running totals give the same figures as the payouts themselves, after
// any sequence of requests and moves along the table, at any moment.
func TestTotalsAgreeWithThePayouts(t *testing.T) {
	ts := newTestSvc(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC)
	var ps []*payoutDoc
	stores := []string{"sto_a", "sto_b", "sto_c"}
	check := func(now time.Time) {
		t.Helper()
		in := make([]StatPayout, len(ps))
		for i, p := range ps {
			in[i] = StatPayout{StoreID: p.StoreID, StoreName: p.StoreName, Status: p.Status, Amount: p.RequestedAmount, RequestDate: p.RequestDate}
			if p.CompletedDate != nil {
				in[i].CompletedDate = *p.CompletedDate
			}
		}
		sm, err := ts.summaryFromTotals(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		got, want := sm.statistics(), ComputeStatistics(in, now)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("at %v:\ntotals %+v\nscan   %+v", now, got, want)
		}
	}
	now := start
	for step := range 2000 {
		now = now.Add(time.Duration(rng.IntN(40)) * time.Minute)
		ts.clock.Set(now)
		if len(ps) == 0 || rng.IntN(3) == 0 {
			st := stores[rng.IntN(len(stores))]
			p := &payoutDoc{ID: fmt.Sprint("p", step), StoreID: st, StoreName: "Store " + st, Status: StatusRequested,
				RequestedAmount: money.Fils(100 + rng.IntN(100000)), RequestDate: now.UnixMilli()}
			ps = append(ps, p)
			if err := ts.db.Tx(ctx, func(ctx context.Context) error { return ts.countMove(ctx, p, "") }); err != nil {
				t.Fatal(err)
			}
		} else {
			p := ps[rng.IntN(len(ps))]
			var allowed []Move
			for _, m := range []Move{MoveApprove, MoveReject, MoveProcessing, MoveComplete, MoveFail} {
				if CanMove(m, p.Status) {
					allowed = append(allowed, m)
				}
			}
			if len(allowed) == 0 {
				continue
			}
			m := allowed[rng.IntN(len(allowed))]
			from := p.Status
			p.Status = m.To()
			if p.Status == StatusCompleted {
				c := now.UnixMilli()
				p.CompletedDate = &c
			}
			if err := ts.db.Tx(ctx, func(ctx context.Context) error { return ts.countMove(ctx, p, from) }); err != nil {
				t.Fatal(err)
			}
		}
		if step%50 == 0 {
			check(now)
		}
	}
	completed := 0
	for _, p := range ps {
		if p.Status == StatusCompleted {
			completed++
		}
	}
	if completed < 10 {
		t.Fatalf("only %d payouts completed: the comparison proves little", completed)
	}
	check(now)
	check(now.Add(36 * time.Hour)) // another day
	check(now.AddDate(0, 1, 0))    // another month
}
