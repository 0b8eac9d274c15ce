package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/segmentio/kafka-go"
	"github.com/valyala/fasthttp"

	"marketplace/deploy/processor"
	"marketplace/deploy/system"
	"marketplace/libs/events"
)

// Event rows: the webhook load again, once the database already holds a
// given number of orders, with what the consumers make of it: the latency
// from order.created to its notification (the notifications consumer) and
// how far behind the consumer groups fall, the wallet's (payouts) among them.
var (
	eventStored = flag.String("event-stored", "", "comma-separated order counts (e.g. 1000,10000): for each, store orders up to it, then run the webhook load of -event-orders and measure the consumers (empty: no event rows)")
	eventOrders = flag.Int("event-orders", 1000, "webhook deliveries of each event row")
	eventsOnly  = flag.Bool("events-only", false, "run only the event rows (-event-stored, default 1000,10000)")
	eventProf   = flag.String("event-cpuprofile", "", "write a CPU profile of the last event row's load (deliveries until the consumers caught up) to this file")
)

// consumerGroups are the groups whose lag the event rows watch.
var consumerGroups = []string{"notifications", "payouts"}

type eventRow struct {
	stored     int
	deliveries row
	events     row
	maxLag     map[string]int64
	drain      time.Duration // from the last delivery to every group caught up
}

// eventStoredCounts parses -event-stored.
func eventStoredCounts() ([]int, error) {
	spec := *eventStored
	if spec == "" && *eventsOnly {
		spec = "1000,10000"
	}
	var out []int
	for _, f := range strings.Split(spec, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("-event-stored: %q is not a count", f)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchEvents runs the event rows. stored is how many orders earlier rows
// left in the database.
func benchEvents(base, secret string, brokers events.Brokers, token func(sub string) string, storeID, productID string, stored, conc int) ([]eventRow, error) {
	counts, err := eventStoredCounts()
	if err != nil {
		return nil, err
	}
	var rows []eventRow
	for i, want := range counts {
		if want > stored {
			fmt.Printf("event rows: storing %d more orders (%d in all)...\n", want-stored, want)
			if err := seedOrders(fmt.Sprintf("seed%d", i), base, secret, token, storeID, productID, want-stored, conc); err != nil {
				return nil, err
			}
			stored = want
		}
		// Start from caught-up consumers, so the row measures its own load.
		if _, err := waitCaughtUp(brokers, 5*time.Minute); err != nil {
			return nil, err
		}
		r := eventRow{stored: stored, maxLag: map[string]int64{}}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var mu sync.Mutex
		wg.Go(func() { // sample the groups' lag during the load
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-stop:
					return
				case <-t.C:
				}
				lags, err := groupLags(brokers)
				if err != nil {
					continue
				}
				mu.Lock()
				for g, l := range lags {
					r.maxLag[g] = max(r.maxLag[g], l)
				}
				mu.Unlock()
			}
		})
		buyers, err := setupBuyers(fmt.Sprintf("ev%d", i), base, token, productID, *eventOrders)
		if err != nil {
			close(stop)
			return nil, err
		}
		stopProfile := func() {}
		if i == len(counts)-1 {
			stopProfile = startProfile(*eventProf)
		}
		lat, elapsed, failures := deliverAll(fmt.Sprintf("ev%d", i), base, secret, storeID, buyers, conc)
		delivered := time.Now()
		r.deliveries = summarize(fmt.Sprintf("webhook, %d orders stored (c=%d)", stored, conc), lat, elapsed, failures)
		close(stop)
		wg.Wait()
		caught, err := waitCaughtUp(brokers, 5*time.Minute)
		stopProfile()
		if err != nil {
			return nil, err
		}
		r.drain = max(0, caught.Sub(delivered))
		r.events = eventLatency(base, buyers)
		stored += *eventOrders
		rows = append(rows, r)
	}
	return rows, nil
}

type benchBuyer struct{ token, customer string }

// setupBuyers makes n buyers, each with a cart of two boxes.
func setupBuyers(name, base string, token func(sub string) string, productID string, n int) ([]benchBuyer, error) {
	buyers := make([]benchBuyer, n)
	var failed atomic.Value
	parallel(n, 8, func(i int) {
		b := benchBuyer{token: token(fmt.Sprintf("bench-%s-buyer-%d", name, i))}
		raw, err := do(base+"/api/mutation", b.token, "customers.profile.upsertMyProfile", map[string]any{"name": fmt.Sprintf("Buyer %d", i)})
		if err == nil {
			err = json.Unmarshal(raw, &b.customer)
		}
		if err == nil {
			_, err = do(base+"/api/mutation", b.token, "customers.cart.addItem", map[string]any{"productId": productID, "quantity": 2})
		}
		if err != nil {
			failed.Store(err)
		}
		buyers[i] = b
	})
	if err, ok := failed.Load().(error); ok {
		return nil, fmt.Errorf("buyers: %w", err)
	}
	return buyers, nil
}

// deliverAll pays every buyer's cart through the webhook, conc at a time.
func deliverAll(name, base, secret, storeID string, buyers []benchBuyer, conc int) (lat []time.Duration, elapsed time.Duration, failures int64) {
	lat = make([]time.Duration, len(buyers))
	var failed atomic.Int64
	var first sync.Once
	start := time.Now()
	parallel(len(buyers), conc, func(i int) {
		t0 := time.Now()
		err := deliver(base, secret, fmt.Sprintf("%s_%d", name, i), buyers[i].customer, storeID)
		lat[i] = time.Since(t0)
		if err != nil {
			failed.Add(1)
			first.Do(func() {
				fmt.Printf("note: %s: a webhook delivery failed after %s: %v\n", name, lat[i].Round(time.Millisecond), err)
			})
		}
	})
	return lat, time.Since(start), failed.Load()
}

// seedOrders stores n orders through the webhook, as the load does, without
// measuring them.
func seedOrders(name, base, secret string, token func(sub string) string, storeID, productID string, n, conc int) error {
	buyers, err := setupBuyers(name, base, token, productID, n)
	if err != nil {
		return err
	}
	// A few failed deliveries (timeouts on a loaded machine) only make the
	// database a little smaller than asked.
	if _, _, failed := deliverAll(name, base, secret, storeID, buyers, conc); failed > 0 {
		if failed == int64(n) {
			return fmt.Errorf("storing orders: every webhook delivery failed")
		}
		fmt.Printf("event rows: %d of %d deliveries failed while storing orders\n", failed, n)
	}
	return nil
}

// eventLatency reads each buyer's order_created notification: the time from
// order.created (committed with the order) to the notification stored.
func eventLatency(base string, buyers []benchBuyer) row {
	type note struct {
		Type      string `json:"type"`
		Created   int64  `json:"_creationTime"`
		EventTime int64  `json:"eventTime"`
	}
	var mu sync.Mutex
	lat := make([]time.Duration, 0, len(buyers))
	var missing atomic.Int64
	parallel(len(buyers), 4, func(i int) {
		raw, err := do(base+"/api/query", buyers[i].token, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 10, "cursor": nil}})
		var pg struct {
			Page []note `json:"page"`
		}
		if err == nil && json.Unmarshal(raw, &pg) == nil {
			for _, x := range pg.Page {
				if x.Type == "order_created" {
					mu.Lock()
					lat = append(lat, time.Duration(x.Created-x.EventTime)*time.Millisecond)
					mu.Unlock()
					return
				}
			}
		}
		missing.Add(1)
	})
	return summarize("order.created committed -> notification stored", lat, 0, missing.Load())
}

// deliver sends one signed payment_intent.succeeded for the buyer's cart.
func deliver(base, secret, id, customer, storeID string) error {
	body := processor.Event("evt_"+id, "payment_intent.succeeded", processor.Payment{
		IntentID: "pi_" + id, AmountFils: 2*2500 + 500, CustomerID: customer, StoreID: storeID,
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
	if err := fasthttp.DoTimeout(req, resp, 60*time.Second); err != nil {
		return err
	}
	if resp.StatusCode() != 200 || !strings.HasPrefix(string(resp.Body()), "Order created") {
		return fmt.Errorf("webhook: %d %s", resp.StatusCode(), resp.Body())
	}
	return nil
}

// groupLags is how many records each consumer group has not committed yet,
// over all partitions of the topics it has offsets on.
func groupLags(brokers events.Brokers) (map[string]int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tr := brokers.Transport("bench")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: brokers.Addr(), Transport: tr, Timeout: 5 * time.Second}
	out := map[string]int64{}
	for _, g := range consumerGroups {
		committed, err := client.OffsetFetch(ctx, &kafka.OffsetFetchRequest{GroupID: g})
		if err != nil {
			return nil, err
		}
		if committed.Error != nil {
			return nil, committed.Error
		}
		req := map[string][]kafka.OffsetRequest{}
		have := map[string]map[int]int64{}
		for topic, ps := range committed.Topics {
			have[topic] = map[int]int64{}
			for _, p := range ps {
				req[topic] = append(req[topic], kafka.LastOffsetOf(p.Partition))
				have[topic][p.Partition] = p.CommittedOffset
			}
		}
		if len(req) == 0 {
			continue
		}
		ends, err := client.ListOffsets(ctx, &kafka.ListOffsetsRequest{Topics: req})
		if err != nil {
			return nil, err
		}
		for topic, ps := range ends.Topics {
			for _, p := range ps {
				if c := have[topic][p.Partition]; c >= 0 && p.LastOffset > c {
					out[g] += p.LastOffset - c
				}
			}
		}
	}
	return out, nil
}

// waitCaughtUp waits until no watched group has lag, and says when.
func waitCaughtUp(brokers events.Brokers, limit time.Duration) (time.Time, error) {
	deadline := time.Now().Add(limit)
	for {
		lags, err := groupLags(brokers)
		if err == nil {
			behind := int64(0)
			for _, l := range lags {
				behind += l
			}
			if behind == 0 {
				return time.Now(), nil
			}
		}
		if time.Now().After(deadline) {
			return time.Time{}, fmt.Errorf("consumers still behind after %v: %v (%v)", limit, lags, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// printEventRows prints the event rows.
func printEventRows(rows []eventRow) {
	for _, r := range rows {
		fmt.Printf("%-46s %10.0f %10v %10v %7d   (orders/s)\n", "(ev) "+r.deliveries.name,
			r.deliveries.rps, r.deliveries.p50.Round(time.Microsecond), r.deliveries.p99.Round(time.Microsecond), r.deliveries.errors)
		fmt.Printf("%-46s %10s %10v %10v %7d   (goal p99 < 200ms; ms resolution)\n", "     event latency during it", "", r.events.p50, r.events.p99, r.events.errors)
		var lags []string
		for _, g := range consumerGroups {
			lags = append(lags, fmt.Sprintf("%s %d", g, r.maxLag[g]))
		}
		fmt.Printf("%-46s %s; caught up %v after the last delivery\n", "     consumer lag (max)", strings.Join(lags, ", "), r.drain.Round(time.Millisecond))
	}
}

// runEventsOnly is `bench -events-only`: the event rows alone.
func runEventsOnly(info system.Info, secret string, tok func(sub string, roles ...string) string, storeID string, conc int) error {
	raw, err := do(info.BaseURL+"/api/mutation", tok("owner"), "stores.products.createProduct", map[string]any{"storeId": storeID, "name": "Bench Box", "price": 25})
	if err != nil {
		return err
	}
	var productID string
	_ = json.Unmarshal(raw, &productID)
	rows, err := benchEvents(info.BaseURL, secret, info.Brokers, func(sub string) string { return tok(sub) }, storeID, productID, 0, conc)
	if err != nil {
		return err
	}
	fmt.Printf("\n%s\n\n", time.Now().Format(time.RFC3339))
	printEventRows(rows)
	return nil
}
