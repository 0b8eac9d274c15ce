package ids

import (
	"testing"
	"time"
)

func TestNewIsValidOnlyForItsKind(t *testing.T) {
	id := New("cities")
	if !Valid("cities", id) {
		t.Fatalf("%s not valid", id)
	}
	if Valid("areas", id) {
		t.Fatal("city id accepted as an area id")
	}
	for _, bad := range []string{"", "cty_", "cty_zz0000000000000000000000", id + "0", "x" + id[1:], "cty-" + id[4:]} {
		if Valid("cities", bad) {
			t.Errorf("%q accepted", bad)
		}
	}
	if Valid("nope", id) || Known("nope") || !Known("stores") {
		t.Fatal("unknown kind handling")
	}
	if d := time.Since(Time(id)); d < 0 || d > time.Minute {
		t.Fatalf("embedded time off by %v", d)
	}
}

func TestIdsOfAKindSortByCreation(t *testing.T) {
	a := New("stores")
	time.Sleep(1100 * time.Millisecond)
	b := New("stores")
	if !(a < b) {
		t.Fatalf("%s !< %s", a, b)
	}
}

func TestNewUnguessable(t *testing.T) {
	a, b := NewUnguessable("_storage"), NewUnguessable("_storage")
	if !Valid("_storage", a) || !Valid("_storage", b) || a == b {
		t.Fatalf("ids %s %s", a, b)
	}
	// Consecutive ObjectIDs share their process bytes; random ids do not.
	if a[4+8:4+8+10] == b[4+8:4+8+10] {
		t.Fatalf("consecutive ids share their middle bytes: %s %s", a, b)
	}
}
