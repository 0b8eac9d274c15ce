package notifications

import "testing"

func TestInboxClockKeepsOneInboxInOrder(t *testing.T) {
	c := newInboxClock()
	steps := []struct {
		inbox      string
		wall, want int64
	}{
		{"user/u1", 1000, 1000},
		{"user/u1", 1000, 1001}, // same millisecond: after the last
		{"user/u1", 1000, 1002},
		{"user/u2", 1000, 1000}, // another inbox keeps the wall clock
		{"user/u1", 999, 1003},  // a clock stepping back never reorders
		{"user/u1", 1500, 1500}, // the wall clock ahead again: it wins
		{"admin/", 1500, 1500},
		{"admin/", 1500, 1501},
	}
	for i, s := range steps {
		if got := c.next(s.inbox, s.wall); got != s.want {
			t.Fatalf("step %d (%s at %d): %d, want %d", i, s.inbox, s.wall, got, s.want)
		}
	}
}
