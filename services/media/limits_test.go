package media

import (
	"testing"
	"time"
)

// TestUploadRateRule: burst uploads at once, then one per interval; the
// answer says how long until the next; users are apart; a refused upload
// given back is not counted; interval 0 is no limit.
func TestUploadRateRule(t *testing.T) {
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	r := newUploadRate(2, 10*time.Second)
	for i := 0; i < 2; i++ {
		if ok, _ := r.take("u", now); !ok {
			t.Fatalf("upload %d of the burst refused", i+1)
		}
	}
	if ok, wait := r.take("u", now); ok || wait != 10*time.Second {
		t.Fatalf("past the burst: ok=%v wait=%s", ok, wait)
	}
	if ok, _ := r.take("v", now); !ok {
		t.Fatal("another user refused")
	}
	if ok, wait := r.take("u", now.Add(4*time.Second)); ok || wait != 6*time.Second {
		t.Fatalf("4 s later: ok=%v wait=%s", ok, wait)
	}
	if ok, _ := r.take("u", now.Add(10*time.Second)); !ok {
		t.Fatal("refused after an interval")
	}
	r.giveBack("u")
	if ok, _ := r.take("u", now.Add(10*time.Second)); !ok {
		t.Fatal("an upload given back was still counted")
	}
	if ok, _ := r.take("u", now.Add(10*time.Second)); ok {
		t.Fatal("the burst refilled beyond its size")
	}
	off := newUploadRate(1, 0)
	for i := 0; i < 100; i++ {
		if ok, _ := off.take("u", now); !ok {
			t.Fatal("interval 0 limited")
		}
	}
}
