package customers

import "testing"

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
