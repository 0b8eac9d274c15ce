package ops

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestNearestIsCheapForLongNames: a "did you mean" costs the caller's name
// times each candidate's length at most when the two are near in length, and
// nothing more otherwise. The name comes from a request (an operation's path
// in a body of up to the gateway's 6 MiB, an argument's name): measured
// against every candidate in full, one anonymous request of 5.5 MB kept a
// core busy for a minute. The answers stay those of the full measure.
func TestNearestIsCheapForLongNames(t *testing.T) {
	var candidates []string
	for i := range 100 {
		candidates = append(candidates, fmt.Sprintf("area%d.module%d.someFunctionName%d", i%7, i%11, i))
	}
	candidates = append(candidates, "catalog.locations.listCities", "catalog.locations.listAreas")
	long := "a.b." + strings.Repeat("c", 6<<20)
	start := time.Now()
	if got := Nearest(long, candidates, 3); len(got) != 0 {
		t.Errorf("Nearest(6 MiB name) = %v, want none", got)
	}
	// The same function in another area still counts as near, however long
	// the rest of the name.
	if got := Nearest(strings.Repeat("x", 6<<20)+".listCities", candidates, 3); !slices.Equal(got, []string{"catalog.locations.listCities"}) {
		t.Errorf("Nearest(long prefix + .listCities) = %v", got)
	}
	var a sampleArgs
	err := Decode([]byte(`{"`+strings.Repeat("t", 6<<20)+`":1}`), &a)
	if err == nil || !strings.HasSuffix(err.Error(), "unknown argument") {
		t.Errorf("an unknown argument of 6 MiB: %v", err)
	}
	// Measured in full, these take minutes (155 s on a 2-core machine); the
	// length check makes them about a second. The bound leaves room for a
	// loaded machine under -race (3.6 s seen) and still fails the full measure.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("suggestions for 6 MiB names took %v: the edit distance is measured in full against names of other lengths", d)
	}
	// Near names are still found.
	if got := Nearest("catalog.locations.listcities", candidates, 3); len(got) == 0 || got[0] != "catalog.locations.listCities" {
		t.Errorf("Nearest(listcities) = %v", got)
	}
}
