package ids

import (
	"encoding/binary"
	"encoding/hex"
	"math/bits"
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
}

// objectIDParts reads 24 hex digits as an ObjectID would be: a 4-byte time
// in seconds, 5 process bytes, a 3-byte counter.
func objectIDParts(t *testing.T, id string) (secs uint32, process string, counter uint32) {
	t.Helper()
	b, err := hex.DecodeString(id[len(id)-24:])
	if err != nil {
		t.Fatal(err)
	}
	return binary.BigEndian.Uint32(b[:4]), hex.EncodeToString(b[4:9]), uint32(b[9])<<16 | uint32(b[10])<<8 | uint32(b[11])
}

// TestIdsRevealNothing: ids made one after another carry no time, no shared
// process bytes and no counter. An ObjectID fails each check: consecutive
// ones hold the current time, the same 5 process bytes and counters one apart.
func TestIdsRevealNothing(t *testing.T) {
	for _, kind := range []string{"orders", "payouts", "walletTransactions", "storeReviews", "customers", "customerAddresses", "_storage"} {
		const n = 64
		now := uint32(time.Now().Unix())
		plausibleTimes, sameProcess, counterSteps, differingBits := 0, 0, 0, 0
		prev := New(kind)
		for range n {
			id := New(kind)
			if !Valid(kind, id) || id == prev {
				t.Fatalf("%s: ids %s %s", kind, prev, id)
			}
			s1, p1, c1 := objectIDParts(t, prev)
			s2, p2, c2 := objectIDParts(t, id)
			if s2+60 >= now && s2 <= now+60 {
				plausibleTimes++
			}
			if p1 == p2 {
				sameProcess++
			}
			if c2-c1 < 16 || s1 == s2 && c2 > c1 && c2-c1 < 1<<10 {
				counterSteps++
			}
			a, _ := hex.DecodeString(prev[len(prev)-24:])
			b, _ := hex.DecodeString(id[len(id)-24:])
			for i := range a {
				differingBits += bits.OnesCount8(a[i] ^ b[i])
			}
			prev = id
		}
		// Random: a time within two minutes of now by chance about n/2^25
		// times, a repeat of 40 bits or a small counter step almost never.
		if plausibleTimes > 1 || sameProcess > 0 || counterSteps > 1 {
			t.Errorf("%s: of %d consecutive ids, %d hold the current time, %d share their process bytes, %d step a counter",
				kind, n, plausibleTimes, sameProcess, counterSteps)
		}
		// About half of the 96 bits differ between neighbours (an ObjectID: a few).
		if avg := float64(differingBits) / n; avg < 36 || avg > 60 {
			t.Errorf("%s: consecutive ids differ in %.1f of 96 bits on average", kind, avg)
		}
	}
}
