package domain

import (
	"slices"
	"testing"
)

func TestCanMove(t *testing.T) {
	all := []string{StatusPending, StatusConfirmed, StatusPreparing, StatusOutForDelivery, StatusDelivered, StatusCancelled}
	allowed := map[[2]string]bool{
		{StatusPending, StatusConfirmed}: true, {StatusConfirmed, StatusPreparing}: true,
		{StatusPreparing, StatusOutForDelivery}: true, {StatusOutForDelivery, StatusDelivered}: true,
		{StatusPending, StatusCancelled}: true, {StatusConfirmed, StatusCancelled}: true,
		{StatusPreparing, StatusCancelled}: true, {StatusOutForDelivery, StatusCancelled}: true,
	}
	for _, from := range all {
		for _, to := range all {
			if got := CanMove(from, to); got != allowed[[2]string{from, to}] {
				t.Errorf("CanMove(%s, %s) = %v", from, to, got)
			}
		}
	}
	if CanMove("bogus", StatusConfirmed) || CanMove(StatusConfirmed, "bogus") {
		t.Error("unknown statuses move")
	}
}

// TestNextStatuses: the statuses an illegal move's refusal names are exactly
// those CanMove allows, in the delivery path's order, cancelled last.
func TestNextStatuses(t *testing.T) {
	want := map[string][]string{
		StatusPending:        {StatusConfirmed, StatusCancelled},
		StatusConfirmed:      {StatusPreparing, StatusCancelled},
		StatusPreparing:      {StatusOutForDelivery, StatusCancelled},
		StatusOutForDelivery: {StatusDelivered, StatusCancelled},
		StatusDelivered:      {},
		StatusCancelled:      {},
	}
	for from, next := range want {
		if got := NextStatuses(from); !slices.Equal(got, next) {
			t.Errorf("NextStatuses(%s) = %v, want %v", from, got, next)
		}
		e := IllegalMove(from, StatusPending)
		if !slices.Equal(e.Details["allowed"].([]string), next) || e.Details["current"] != from {
			t.Errorf("IllegalMove(%s): %v", from, e.Details)
		}
	}
}
