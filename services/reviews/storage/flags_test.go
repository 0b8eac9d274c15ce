package storage

import (
	"context"
	"fmt"
	"testing"

	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/page"
	"marketplace/services/reviews/domain"
)

// The decisions by decision time (FlagList.ByDecision): of one decided
// status, in the order they were decided (not reported), a page at a time
// over the cursor, the period on the decision time; counted alike.
func TestDecisionsOrderedByDecisionTime(t *testing.T) {
	ctx := context.Background()
	db, _, _ := memDB(t)
	flags := NewFlags(db)
	// Reported 1..4, decided in the other order; one pending, one dismissed.
	for i, decided := range []int64{40, 30, 20, 10} {
		f := &domain.Flag{ID: fmt.Sprintf("flg_%d", i+1), ReviewID: "rev_1", CustomerID: fmt.Sprintf("cus_%d", i), Status: contract.FlagStatusResolved,
			Resolution: &domain.Resolution{Action: contract.ActionHideReview, ResolvedAt: decided}, CreatedAt: int64(i + 1)}
		if err := flags.Insert(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []*domain.Flag{
		{ID: "flg_p", ReviewID: "rev_1", CustomerID: "cus_p", Status: contract.FlagStatusPending, CreatedAt: 5},
		{ID: "flg_d", ReviewID: "rev_1", CustomerID: "cus_d", Status: contract.FlagStatusDismissed, Resolution: &domain.Resolution{ResolvedAt: 25}, CreatedAt: 6},
	} {
		if err := flags.Insert(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	list := func(l FlagList) []string {
		var ids []string
		o := page.Opts{NumItems: 3}
		for {
			r, err := flags.Page(ctx, l, o)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range r.Page {
				ids = append(ids, f.ID)
			}
			if r.IsDone {
				return ids
			}
			o.Cursor = &r.ContinueCursor
		}
	}
	if got := fmt.Sprint(list(FlagList{Status: contract.FlagStatusResolved, ByDecision: true, Newest: true})); got != "[flg_1 flg_2 flg_3 flg_4]" {
		t.Errorf("newest decision first: %s", got)
	}
	if got := fmt.Sprint(list(FlagList{Status: contract.FlagStatusResolved, ByDecision: true})); got != "[flg_4 flg_3 flg_2 flg_1]" {
		t.Errorf("oldest decision first: %s", got)
	}
	if got := fmt.Sprint(list(FlagList{Status: contract.FlagStatusResolved, Newest: true})); got != "[flg_4 flg_3 flg_2 flg_1]" {
		t.Errorf("by report, newest first: %s", got)
	}
	// A cursor of the decisions' order is not one of the reports' order.
	first, err := flags.Page(ctx, FlagList{Status: contract.FlagStatusResolved, ByDecision: true, Newest: true}, page.Opts{NumItems: 2})
	if err != nil || first.IsDone {
		t.Fatalf("first page by decision: %+v %v", first, err)
	}
	if _, err := flags.Page(ctx, FlagList{Status: contract.FlagStatusResolved, Newest: true}, page.Opts{NumItems: 2, Cursor: &first.ContinueCursor}); err == nil {
		t.Error("a cursor by decision time accepted by the list by report time")
	}
	from, to := int64(15), int64(35)
	decided := FlagList{Status: contract.FlagStatusResolved, ByDecision: true, Newest: true, Period: page.Period{From: &from, To: &to}}
	if got := fmt.Sprint(list(decided)); got != "[flg_2 flg_3]" {
		t.Errorf("decided from 15 to 35: %s", got)
	}
	if n, err := flags.Count(ctx, decided, 100); err != nil || n != 2 {
		t.Errorf("count decided from 15 to 35: %d %v", n, err)
	}
}
