package main

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"marketplace/deploy/processor"
)

// benchOrders: n buyers each with one cart line; n signed payment_intent.succeeded
// deliveries through the gateway with conc at a time (orders/s and latency of a
// delivery); then, from each buyer's inbox, the time from order.created
// (committed with the order) to its notification being stored.
// pace, when set, spaces the deliveries (a steady rate below capacity, so the
// event latency measured is the pipeline's, not a queue's).
func benchOrders(name, base, secret string, token func(sub string) string, storeID, productID string, n, conc int, pace time.Duration) (deliveries, events row, err error) {
	buyers, err := setupBuyers(name, base, token, productID, n)
	if err != nil {
		return row{}, row{}, err
	}

	lat := make([]time.Duration, n)
	var failures atomic.Int64
	start := time.Now()
	parallel(n, conc, func(i int) {
		if pace > 0 {
			time.Sleep(time.Until(start.Add(time.Duration(i) * pace)))
		}
		body := processor.Event(fmt.Sprintf("evt_%s_%d", name, i), "payment_intent.succeeded", processor.Payment{
			IntentID: fmt.Sprintf("pi_%s_%d", name, i), AmountFils: 2*2500 + 500, CustomerID: buyers[i].customer, StoreID: storeID, // two boxes and the fee
			Address:      processor.Address{FullAddress: "Tower 1", City: "Dubai", Area: "Marina", PhoneNumber: "+971500000000"},
			DeliveryType: "standard", DeliveryFee: "5.00",
		})
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		defer fasthttp.ReleaseRequest(req)
		defer fasthttp.ReleaseResponse(resp)
		req.SetRequestURI(base + "/processor/webhook")
		req.Header.SetMethod("POST")
		req.Header.SetContentType("application/json")
		req.Header.Set("processor-signature", processor.Sign(secret, body, time.Now()))
		req.SetBody(body)
		t0 := time.Now()
		err := fasthttp.DoTimeout(req, resp, 30*time.Second)
		lat[i] = time.Since(t0)
		if err != nil || resp.StatusCode() != 200 || !strings.HasPrefix(string(resp.Body()), "Order created") {
			failures.Add(1)
		}
	})
	elapsed := time.Since(start)
	deliveries = summarize(fmt.Sprintf("signed webhook -> order, via gateway (c=%d)", conc), lat, elapsed, failures.Load())

	// Event latency, read back from the inboxes once the last one has arrived
	// (polling every inbox meanwhile would compete with the consumer for the CPU).
	type note struct {
		Type      string `json:"type"`
		Created   int64  `json:"_creationTime"`
		EventTime int64  `json:"eventTime"`
	}
	evLat := make([]time.Duration, 0, n)
	var mu sync.Mutex
	var missing atomic.Int64
	waitAll := func(i int) {
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			raw, err := do(base+"/api/query", buyers[i].token, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})
			var pg struct {
				Page []note `json:"page"`
			}
			if err == nil && json.Unmarshal(raw, &pg) == nil {
				for _, x := range pg.Page {
					if x.Type == "order_created" {
						mu.Lock()
						evLat = append(evLat, time.Duration(x.Created-x.EventTime)*time.Millisecond)
						mu.Unlock()
						return
					}
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		missing.Add(1)
	}
	waitAll(n - 1)
	evLat, missing = evLat[:0], atomic.Int64{}
	parallel(n, 4, waitAll)
	events = summarize("order.created committed -> notification stored", evLat, 0, missing.Load())
	return deliveries, events, nil
}

// parallel runs f(0..n-1) on conc goroutines.
func parallel(n, conc int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < conc; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				f(i)
			}
		}()
	}
	wg.Wait()
}

// summarize makes a row of latencies; elapsed 0 leaves the rate out.
func summarize(name string, lat []time.Duration, elapsed time.Duration, errors int64) row {
	s := slices.Clone(lat)
	slices.Sort(s)
	r := row{name: name, errors: errors}
	if elapsed > 0 {
		r.rps = float64(len(s)) / elapsed.Seconds()
	}
	if len(s) > 0 {
		r.p50, r.p99 = s[len(s)/2], s[len(s)*99/100]
	}
	return r
}
