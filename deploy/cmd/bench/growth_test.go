package main

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The output of `make bench-engine` ends with issue 22's line, whose three
// ratios are those of the printed rows: a fake run's rows are parsed back
// and the ratios recomputed from them.
func TestGrowthOutputEndsWithTheRatiosOfItsRows(t *testing.T) {
	r := &growthResult{reviewsSmall: 2000, reviewsLarge: 20000, ordersSmall: 1000, ordersLarge: 100500, walletCount: 50,
		votesSmall:     row{name: "(g1) voteOnReview, 2000 reviews stored", rps: 600, p50: 80 * time.Millisecond, p99: 200 * time.Millisecond},
		votesLarge:     row{name: "(g2) voteOnReview, 20000 reviews stored", rps: 150, p50: 300 * time.Millisecond, p99: time.Second},
		ordersSmallRow: row{rps: 480, p50: 20 * time.Millisecond, p99: 90 * time.Millisecond},
		ordersBig:      row{rps: 48, p50: 200 * time.Millisecond, p99: 900 * time.Millisecond, errors: 2},
		walletOne:      row{rps: 900}, walletMany: row{rps: 630},
		coldP50: 12 * time.Millisecond, restart: 30 * time.Second, heapInUse: 3e9, storedBytes: 5e8, heapSmall: 2e8, storedSmall: 1e7,
		fills: []string{"2000 reviews through addReview"}}
	var out bytes.Buffer
	printGrowth(&out, r, 50, 5*time.Second, time.Second)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")

	rate := map[string]float64{}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 2 || !regexp.MustCompile(`^\(g[1-6]\)$`).MatchString(f[0]) {
			continue
		}
		// The rate is the first field after the name that is a number
		// followed by a duration (p50).
		for i := 1; i+1 < len(f); i++ {
			v, err := strconv.ParseFloat(f[i], 64)
			if _, derr := time.ParseDuration(f[i+1]); err == nil && derr == nil {
				rate[f[0]] = v
				break
			}
		}
	}
	if len(rate) != 6 {
		t.Fatalf("rows g1-g6 with a rate: %v in\n%s", rate, out.String())
	}
	last := lines[len(lines)-1]
	m := regexp.MustCompile(`^engine growth: votes 20k/2k (\d+\.\d\d), orders 100k/1k (\d+\.\d\d), wallets 50/1 (\d+\.\d\d)$`).FindStringSubmatch(last)
	if m == nil {
		t.Fatalf("the last line is %q", last)
	}
	want := []string{fmt.Sprintf("%.2f", rate["(g2)"]/rate["(g1)"]), fmt.Sprintf("%.2f", rate["(g4)"]/rate["(g3)"]), fmt.Sprintf("%.2f", rate["(g6)"]/rate["(g5)"])}
	if m[1] != want[0] || m[2] != want[1] || m[3] != want[2] || want[0] != "0.25" || want[1] != "0.10" || want[2] != "0.70" {
		t.Errorf("ratios %v, the rows give %v (want 0.25, 0.10, 0.70)", m[1:], want)
	}
	for _, w := range []string{"(g7) getStoreReviews after a change, 200 of 20000", "12ms", "(g8) restart with 100500 orders", "30s", "(g9) memory per stored byte", "6.00", "(g11) make seed"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the output lacks %q:\n%s", w, out.String())
		}
	}
}

func TestGrowthLineFormat(t *testing.T) {
	if got := growthLine(0.5, 1, 1.25); got != "engine growth: votes 20k/2k 0.50, orders 100k/1k 1.00, wallets 50/1 1.25" {
		t.Errorf("%q", got)
	}
}
