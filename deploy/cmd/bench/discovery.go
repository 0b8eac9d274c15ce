package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"marketplace/libs/events"
)

// Discovery rows: searchNearby over 1,000 stores spread over Dubai, Sharjah
// and Abu Dhabi (a tenth of them closed), at the configuration's default
// radius from ten points of those cities; and a store's order list, the first
// page of 20 of the bench store's orders (those the order rows stored),
// newest first, as its owner reads it.
const (
	searchStores    = 1000
	searchSetupConc = 16
	searchSeed      = 12
	storeOrdersPage = 20
)

var discoveryRowNames = []string{"searchNearby", "listStoreOrders"}

// searchCentres are the cities the stores are spread around, and their share.
var searchCentres = []struct {
	lat, lng float64
	share    float64
}{{25.2048, 55.2708, 0.5}, {25.3463, 55.4209, 0.25}, {24.4539, 54.3773, 0.25}}

// around is a point at most km from (lat, lng), uniform over the disc.
func around(r *rand.Rand, lat, lng, km float64) (float64, float64) {
	d := km * math.Sqrt(r.Float64()) / 111.195
	th := 2 * math.Pi * r.Float64()
	return lat + d*math.Cos(th), lng + d*math.Sin(th)/math.Cos(lat*math.Pi/180)
}

// benchSearch stores the 1,000 stores and measures searchNearby.
func benchSearch(base string, brokers events.Brokers, tok func(sub string, roles ...string) string, conns int, dur, warm time.Duration) (row, string, error) {
	admin := tok("bench-admin", "admin")
	r := rand.New(rand.NewPCG(searchSeed, searchSeed))
	type spot struct {
		lat, lng float64
		open     bool
	}
	spots := make([]spot, searchStores)
	for i := range spots {
		c, x := searchCentres[0], r.Float64()
		for _, cc := range searchCentres {
			if x < cc.share {
				c = cc
				break
			}
			x -= cc.share
		}
		lat, lng := around(r, c.lat, c.lng, 25)
		spots[i] = spot{lat: lat, lng: lng, open: r.IntN(10) != 0}
	}
	start := time.Now()
	var setupErr atomic.Value
	parallel(searchStores, searchSetupConc, func(i int) {
		_, err := do(base+"/api/mutation", admin, "admins.catalog.createStore", map[string]any{"name": fmt.Sprintf("Nearby %d", i),
			"ownerUserId": fmt.Sprintf("bench-nearby-owner-%d", i), "ownerName": "Owner", "ownerPhone": "+971500000000",
			"latitude": spots[i].lat, "longitude": spots[i].lng, "isOpen": spots[i].open})
		if err != nil {
			setupErr.Store(err)
		}
	})
	if e, ok := setupErr.Load().(error); ok {
		return row{}, "", fmt.Errorf("search setup: %w", e)
	}
	// Each store.created opens a wallet (payouts): let that settle first.
	if _, err := waitCaughtUp(brokers, 2*time.Minute); err != nil {
		return row{}, "", fmt.Errorf("search setup: %w", err)
	}
	fmt.Printf("search setup: %d stores stored in %v\n", searchStores, time.Since(start).Round(time.Millisecond))

	points := make([][]byte, 10)
	found := 0
	for i := range points {
		c := searchCentres[i%len(searchCentres)]
		lat, lng := around(r, c.lat, c.lng, 10)
		args := map[string]any{"latitude": lat, "longitude": lng}
		points[i] = body("catalog.stores.searchNearby", args)
		raw, err := do(base+"/api/query", admin, "catalog.stores.searchNearby", args)
		if err != nil {
			return row{}, "", fmt.Errorf("search setup: %w", err)
		}
		var hits []json.RawMessage
		if err := json.Unmarshal(raw, &hits); err != nil {
			return row{}, "", fmt.Errorf("search setup: %s: %w", raw, err)
		}
		found += len(hits)
	}
	note := fmt.Sprintf("searchNearby: %.0f stores found per search on average (default radius, 10 points)", float64(found)/float64(len(points)))
	return loadEach(fmt.Sprintf("(s1) searchNearby, %d stores, default radius", searchStores), base+"/api/query", tok("bench-user"), points, conns, dur, warm), note, nil
}

// benchStoreOrders measures the first page of the bench store's orders.
func benchStoreOrders(base, ownerToken, storeID string, orders, conns int, dur, warm time.Duration) row {
	page := body("stores.orders.listStoreOrders", map[string]any{"storeId": storeID, "paginationOpts": map[string]any{"numItems": storeOrdersPage, "cursor": nil}})
	return load(fmt.Sprintf("(s2) listStoreOrders, %d of %d, newest", storeOrdersPage, orders), base+"/api/query", ownerToken, page, conns, dur, warm)
}

// printDiscovery prints the discovery rows and their ratios to the trivial
// gateway row of the same run.
func printDiscovery(rows []row) {
	for _, r := range rows {
		fmt.Printf("%-46s %10.0f %10v %10v %7d\n", r.name, r.rps, r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond), r.errors)
	}
}

func printDiscoveryRatios(rows []row, trivial row) {
	for i, r := range rows {
		fmt.Printf("%s / gateway trivial throughput: %.2f\n", discoveryRowNames[i], r.rps/trivial.rps)
	}
}
