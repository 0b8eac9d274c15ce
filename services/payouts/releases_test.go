package payouts

import (
	"reflect"
	"testing"
	"time"

	"marketplace/services/payouts/domain"
)

// Releases group by the Dubai day of their release (20:30 UTC is the next
// day in Dubai), sum what each earning still holds (an earning released
// early in part counts its rest, one released in whole none), keep the
// earliest time of the day, and come earliest day first.
func TestGroupReleasesByDubaiDay(t *testing.T) {
	ms := func(d, h, m int) int64 { return time.Date(2026, 3, d, h, m, 0, 0, time.UTC).UnixMilli() }
	held := []domain.Transaction{
		{ReleaseAt: ms(31, 20, 30), HeldRemaining: 1000},  // 1 April in Dubai
		{ReleaseAt: ms(31, 19, 59), HeldRemaining: 2500},  // 31 March, 23:59 in Dubai
		{ReleaseAt: ms(31, 10, 0), HeldRemaining: 500},    // 31 March
		{ReleaseAt: ms(31, 22, 0), HeldRemaining: 0},      // released early in whole
		{ReleaseAt: ms(31, 21, 0), HeldRemaining: 12_345}, // 1 April
	}
	want := []UpcomingRelease{
		{Day: "2026-03-31", At: ms(31, 10, 0), Amount: 30, Count: 2},
		{Day: "2026-04-01", At: ms(31, 20, 30), Amount: 133.45, Count: 2},
	}
	if got := GroupReleases(held); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
	if got := GroupReleases(nil); len(got) != 0 || got == nil {
		t.Fatalf("none held: %#v", got)
	}
}
