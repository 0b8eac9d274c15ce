package clocktest

import (
	"testing"
	"time"
)

func TestClockMovesOnlyWhenTold(t *testing.T) {
	start := time.Date(2026, 3, 31, 23, 0, 0, 0, time.UTC)
	c := New(start)
	if !c.Now().Equal(start) {
		t.Fatalf("now %v, want %v", c.Now(), start)
	}
	c.Advance(2 * time.Hour)
	if want := start.Add(2 * time.Hour); !c.Now().Equal(want) {
		t.Fatalf("after Advance: %v, want %v", c.Now(), want)
	}
	c.Set(start)
	if !c.Now().Equal(start) {
		t.Fatalf("after Set: %v", c.Now())
	}
}
