package events

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestCopiesAttributeIsBounded: an event is published in a few versions at
// once (the current one and those still in a deprecation window), so an
// envelope naming more copies than maxCopies is not one: it is refused at
// Decode (and dead-lettered by a consumer) at once, instead of costing a
// parse quadratic in its length at every look and a processed record as
// large as the message.
func TestCopiesAttributeIsBounded(t *testing.T) {
	entries := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("v%d:%064x", i+2, i)
		}
		return strings.Join(parts, ",")
	}
	if _, err := parseCopies(entries(maxCopies)); err != nil {
		t.Fatalf("%d copies: %v", maxCopies, err)
	}
	if _, err := parseCopies(entries(maxCopies + 1)); err == nil {
		t.Fatalf("%d copies accepted", maxCopies+1)
	}
	huge := `{"id":"evt_1","type":"order.created","copies":"` + entries(14000) + `","data":{}}`
	began := time.Now()
	if _, err := Decode([]byte(huge)); err == nil || !strings.Contains(err.Error(), "copies") {
		t.Fatalf("an envelope naming 14000 copies: %v", err)
	}
	if took := time.Since(began); took > time.Second {
		t.Fatalf("refusing it took %s", took)
	}
}
