package payouts

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"marketplace/libs/money"
	"marketplace/services/payouts/domain"
)

// The running totals give the same figures as the payouts themselves, after
// any sequence of requests and moves along the table, at any moment.
func TestTotalsAgreeWithThePayouts(t *testing.T) {
	ts := newTestSvc(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	start := time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC)
	var ps []*domain.Payout
	stores := []string{"sto_a", "sto_b", "sto_c"}
	check := func(now time.Time) {
		t.Helper()
		in := make([]domain.StatPayout, len(ps))
		for i, p := range ps {
			in[i] = domain.StatPayout{StoreID: p.StoreID, StoreName: p.StoreName, Status: p.Status, Amount: p.RequestedAmount, RequestDate: p.RequestDate}
			if p.CompletedDate != nil {
				in[i].CompletedDate = *p.CompletedDate
			}
		}
		sm, err := ts.totals.Summary(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		got, want := sm.Statistics(), domain.ComputeStatistics(in, now)
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
			p := &domain.Payout{ID: fmt.Sprint("p", step), StoreID: st, StoreName: "Store " + st, Status: domain.StatusRequested,
				RequestedAmount: money.Fils(100 + rng.IntN(100000)), RequestDate: now.UnixMilli()}
			ps = append(ps, p)
			if err := ts.db.Tx(ctx, func(ctx context.Context) error { return ts.totals.Count(ctx, p, "") }); err != nil {
				t.Fatal(err)
			}
		} else {
			p := ps[rng.IntN(len(ps))]
			var allowed []domain.Move
			for _, m := range []domain.Move{domain.MoveApprove, domain.MoveReject, domain.MoveProcessing, domain.MoveComplete, domain.MoveFail} {
				if domain.CanMove(m, p.Status) {
					allowed = append(allowed, m)
				}
			}
			if len(allowed) == 0 {
				continue
			}
			m := allowed[rng.IntN(len(allowed))]
			from := p.Status
			p.Status = m.To()
			if p.Status == domain.StatusCompleted {
				c := now.UnixMilli()
				p.CompletedDate = &c
			}
			if err := ts.db.Tx(ctx, func(ctx context.Context) error { return ts.totals.Count(ctx, p, from) }); err != nil {
				t.Fatal(err)
			}
		}
		if step%50 == 0 {
			check(now)
		}
	}
	completed := 0
	for _, p := range ps {
		if p.Status == domain.StatusCompleted {
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
