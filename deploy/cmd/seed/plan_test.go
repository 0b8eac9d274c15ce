package main

import (
	"context"
	"math"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"marketplace/services/catalog"
	"marketplace/services/payouts"
)

var smallSizes = Sizes{Stores: 3, Customers: 10, Orders: 20, Reviews: 20, Payouts: 6}

// The same seed draws the same world; another seed another one.
func TestPlanIsDeterministic(t *testing.T) {
	for _, sizes := range []Sizes{smallSizes, FullSizes} {
		a, err := NewPlan(7, sizes)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := NewPlan(7, sizes)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("two plans of seed 7 at %+v differ", sizes)
		}
		c, _ := NewPlan(8, sizes)
		if reflect.DeepEqual(a.Stores, c.Stores) || reflect.DeepEqual(a.Orders, c.Orders) {
			t.Fatalf("seeds 7 and 8 drew the same stores or orders at %+v", sizes)
		}
	}
}

// The full plan has the sizes of the issue, real places, valid bank
// accounts and every kind of record.
func TestFullPlan(t *testing.T) {
	p, err := NewPlan(1, Scaled(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Stores) != 30 || len(p.Customers) != 200 || len(p.Orders) != 1000 || len(p.Reviews) != 2000 || len(p.Payouts) != 18 || len(p.Notes) != 0 {
		t.Fatalf("sizes: %d stores, %d customers, %d orders, %d reviews, %d payouts, notes %v",
			len(p.Stores), len(p.Customers), len(p.Orders), len(p.Reviews), len(p.Payouts), p.Notes)
	}
	names := map[string]bool{}
	for _, s := range p.Stores {
		if names[s.Name] {
			t.Errorf("store name %q twice", s.Name)
		}
		names[s.Name] = true
		area := cities[s.City].Areas[s.Area]
		if d := distanceKm(s.Lat, s.Lng, area.Lat, area.Lng); d > 1.5 {
			t.Errorf("store %s is %.1f km from the centre of %s", s.Name, d, area.Name)
		}
		if len(s.Products) < 6 || len(s.Products) > catalog.MaxProductsPerStore {
			t.Errorf("store %s has %d products (the catalog keeps at most %d a store)", s.Name, len(s.Products), catalog.MaxProductsPerStore)
		}
		for _, pr := range s.Products {
			if pr.Price < 100 || pr.Price%5 != 0 {
				t.Errorf("product %s costs %s", pr.Name, pr.Price)
			}
		}
	}
	statuses := map[string]int{}
	for _, o := range p.Orders {
		statuses[o.Final()]++
		for _, l := range o.Lines {
			if l.Product >= len(p.Stores[o.Store].Products) {
				t.Fatalf("order of store %d names product %d", o.Store, l.Product)
			}
		}
	}
	if statuses[statusDelivered] < 800 || statuses[statusCancelled] == 0 || statuses[statusPreparing] == 0 || statuses[statusOutForDelivery] == 0 || statuses[statusConfirmed] == 0 {
		t.Errorf("order statuses %v: most delivered, some of every other", statuses)
	}
	withOrder, spam := 0, 0
	reviewedOrder := map[int]bool{}
	for i, r := range p.Reviews {
		if r.Order >= 0 {
			if withOrder != i {
				t.Fatalf("review %d cites an order after a review without one: the seed adds those first", i)
			}
			withOrder++
			o := p.Orders[r.Order]
			if reviewedOrder[r.Order] || o.Final() != statusDelivered || o.Customer != r.Customer || o.Store != r.Store {
				t.Fatalf("review of order %d: %+v (order %+v)", r.Order, r, o)
			}
			reviewedOrder[r.Order] = true
		}
		if r.Spam {
			spam++
		}
		if r.Title == "" && r.Comment == "" {
			t.Fatalf("review without title and comment: %+v", r)
		}
	}
	if withOrder < 600 || spam == 0 {
		t.Errorf("%d reviews of delivered orders, %d spam", withOrder, spam)
	}
	for _, v := range p.Votes {
		if p.Reviews[v.Review].Customer == v.Customer {
			t.Fatalf("a vote on one's own review: %+v", v)
		}
	}
	payoutStatuses := map[string]int{}
	for _, po := range p.Payouts {
		payoutStatuses[po.Final]++
		if _, err := payouts.CheckUAEIBAN(po.IBAN); err != nil {
			t.Errorf("IBAN %s: %v", po.IBAN, err)
		}
	}
	for _, st := range payoutStates {
		if payoutStatuses[st] == 0 {
			t.Errorf("no payout ends %s: %v", st, payoutStatuses)
		}
	}
	if len(p.Closed) != 2 || len(p.Flags) == 0 || len(p.Responses) == 0 || len(p.Edits) == 0 || len(p.Changes) == 0 {
		t.Errorf("%d closed stores, %d flags, %d responses, %d edits, %d product changes", len(p.Closed), len(p.Flags), len(p.Responses), len(p.Edits), len(p.Changes))
	}
}

// Asked for more reviews than a small world can hold, the plan makes what
// it can and says so.
func TestPlanCapsReviews(t *testing.T) {
	p, err := NewPlan(1, Sizes{Stores: 1, Customers: 3, Orders: 2, Reviews: 50})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Reviews) > 2+3 || len(p.Notes) != 1 || !strings.Contains(p.Notes[0], "50 asked") {
		t.Fatalf("%d reviews, notes %v", len(p.Reviews), p.Notes)
	}
	seen := map[[2]int]bool{}
	for _, r := range p.Reviews {
		if r.Order < 0 {
			if seen[[2]int{r.Customer, r.Store}] {
				t.Fatalf("two reviews without an order by customer %d of store %d", r.Customer, r.Store)
			}
			seen[[2]int{r.Customer, r.Store}] = true
		}
	}
}

func TestSizes(t *testing.T) {
	if got := Scaled(0.01); got != (Sizes{Stores: 1, Customers: 2, Orders: 10, Reviews: 20, Payouts: 6}) {
		t.Errorf("Scaled(0.01) = %+v", got)
	}
	for _, bad := range []Sizes{{Stores: 0, Customers: 2}, {Stores: 1, Customers: 1}, {Stores: 1, Customers: 2, Orders: -1}, {Stores: 1, Customers: 2, Payouts: 6}} {
		if _, err := NewPlan(1, bad); err == nil {
			t.Errorf("sizes %+v accepted", bad)
		}
	}
}

// The flags default to the environment; bad values are refused with their
// name; the development secret and the simulator come from DATA_DIR.
func TestConfigure(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "processor-simulator"), 0o700); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"dev-secret": "0123456789abcdef0123456789abcdef\n", "processor-simulator/url": "http://127.0.0.1:4242\n",
		"processor-secret-key": "feedfacefeedfacefeedface\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"DATA_DIR": dir, "SEED": "9", "SEED_SCALE": "0.1", "SEED_ORDERS": "55", "SEED_URL": "http://127.0.0.1:9999", "SEED_FORCE": "1"}
	getenv := func(k string) string { return env[k] }
	cfg, err := configure([]string{"-reviews", "33"}, getenv, &strings.Builder{})
	if err != nil {
		t.Fatal(err)
	}
	want := Sizes{Stores: 3, Customers: 20, Orders: 55, Reviews: 33, Payouts: 6}
	if cfg.Seed != 9 || cfg.Sizes != want || cfg.BaseURL != "http://127.0.0.1:9999" || !cfg.Force ||
		cfg.DevSecret != "0123456789abcdef0123456789abcdef" || cfg.SimulatorURL != "http://127.0.0.1:4242" || cfg.RPS != DefaultRPS {
		t.Fatalf("config %+v", cfg)
	}
	if cfg, err = configure([]string{"-seed", "3", "-orders", "0", "-payouts", "0"}, getenv, &strings.Builder{}); err != nil || cfg.Seed != 3 || cfg.Sizes.Orders != 0 {
		t.Fatalf("flags over the environment: %+v, %v", cfg, err)
	}
	for k, v := range map[string]string{"SEED": "x", "SEED_SCALE": "-1", "SEED_STORES": "many", "SEED_FORCE": "perhaps", "SEED_RPS": "0"} {
		bad := map[string]string{"DATA_DIR": dir, k: v}
		if _, err := configure(nil, func(k string) string { return bad[k] }, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), k) {
			t.Errorf("%s=%s: %v", k, v, err)
		}
	}
	if _, err := configure(nil, func(k string) string { return map[string]string{"DATA_DIR": t.TempDir()}[k] }, &strings.Builder{}); err == nil ||
		!strings.Contains(err.Error(), "make run") {
		t.Errorf("no all-in-one in DATA_DIR: %v", err)
	}
}

// distanceKm is the great-circle distance between two points.
func distanceKm(lat1, lng1, lat2, lng2 float64) float64 {
	rad := math.Pi / 180
	dLat, dLng := (lat2-lat1)*rad, (lng2-lng1)*rad
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(lat1*rad)*math.Cos(lat2*rad)*math.Sin(dLng/2)*math.Sin(dLng/2)
	return 6371 * 2 * math.Asin(math.Sqrt(a))
}

// Without a running system the seed says so at once.
func TestSeedTellsWhenNothingAnswers(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + ln.Addr().String()
	ln.Close()
	start := time.Now()
	_, err = Seed(context.Background(), Config{BaseURL: addr, SimulatorURL: addr, DevSecret: "0123456789abcdef", Seed: 1, Sizes: smallSizes,
		RPS: DefaultRPS, Burst: DefaultBurst, WebhookRPS: DefaultWebhookRPS})
	if err == nil || !strings.Contains(err.Error(), "make run") || time.Since(start) > 5*time.Second {
		t.Fatalf("after %s: %v", time.Since(start), err)
	}
}
