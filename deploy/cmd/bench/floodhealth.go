package main

import (
	"errors"
	"flag"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"
)

// The /health rows (issue 29, item 6): the gateway's /health probe, idle and
// under anonymous subscriptions opened from 10 loopback addresses
// (127.0.0.2 to 127.0.0.11: each is an IP address of its own to the
// gateway, so the per-address caps alone do not hold them), as a tester
// found it (5,000 subscriptions: CPU 3 % -> 58 %, p95 3.9 -> 51.6 ms). Both
// rows run with two votes a second on the store's reviews, which re-run the
// subscriptions. The sockets send their queries and the row starts without
// waiting for their first answers: the runs the flood asks for (first runs,
// then re-runs) are the load. Goal: /health's p95 under the flood at most
// twice its idle p95.
//
//	go run ./deploy/cmd/bench -engine none -flood-health                       # 5,000 subscriptions, 15 s rows
//	make bench BENCHFLAGS='-engine none -flood-health -flood-queries 1000 -flood-d 5s'
var floodHealth = flag.Bool("flood-health", false, "run only the /health rows: GET /health idle and under -flood-queries anonymous subscriptions from 127.0.0.2-127.0.0.11")

// healthAddresses are the flood's source addresses.
const healthAddresses = 10

type healthResult struct {
	idle, loaded                       probeStats
	cpuIdle, cpuLoaded                 float64
	sockets, closed                    int
	asked                              int
	answered, refused, updates, failed int64
	votesIdle, votesLoaded             int
}

func runFloodHealth(base string, tok func(sub string, roles ...string) string) error {
	res, err := benchFloodHealth(base, tok)
	if err != nil {
		return err
	}
	printFloodHealth(res)
	return nil
}

func benchFloodHealth(base string, tok func(sub string, roles ...string) string) (*healthResult, error) {
	limits := currentFloodLimits()
	world, err := newFloodWorld(base, tok)
	if err != nil {
		return nil, err
	}
	health := func(req *fasthttp.Request) {
		req.SetRequestURI(base + "/health")
		req.Header.SetMethod("GET")
	}
	res := &healthResult{}
	var votes atomic.Int64
	stopVotes := vote(base, world.voters, world.reviews, &votes)
	time.Sleep(time.Second)
	cpu := cpuMeter()
	res.idle = probeWith(*floodRate, *floodDur, health)
	res.cpuIdle = cpu()
	stopVotes()
	res.votesIdle = int(votes.Swap(0))

	// The flood: each address its anonymous sockets of distinct queries, up
	// to -flood-queries in all.
	var fc floodCounters
	var socks []*websocket.Conn
	defer func() {
		for _, c := range socks {
			c.Close()
		}
	}()
	next := 0
	perAddress := (*floodQueries + healthAddresses - 1) / healthAddresses
	for a := range healthAddresses {
		ip := fmt.Sprintf("127.0.0.%d", 2+a)
		end := min(next+perAddress, *floodQueries)
		for s := 0; s < limits.socketsPerIP && next < end; s++ {
			n := min(limits.queriesPerSocket, end-next)
			c, err := openFloodSocket(base, ip, world.store, next, n, &fc)
			if err != nil {
				return nil, fmt.Errorf("flood socket from %s: %w", ip, err)
			}
			socks = append(socks, c)
			next += n
		}
	}
	res.sockets, res.asked = len(socks), next
	stopVotes = vote(base, world.voters, world.reviews, &votes)
	time.Sleep(2 * time.Second)
	cpu = cpuMeter()
	res.loaded = probeWith(*floodRate, *floodDur, health)
	res.cpuLoaded = cpu()
	stopVotes()
	res.votesLoaded = int(votes.Swap(0))
	res.answered, res.refused, res.updates, res.failed = fc.answered.Load(), fc.refused.Load(), fc.updates.Load(), fc.closed.Load()
	return res, nil
}

// floodCounters count what the flood's sockets receive.
type floodCounters struct {
	answered, refused, updates, closed atomic.Int64
	last                               atomic.Int64 // unix nanoseconds of the last QueryUpdated
}

// openFloodSocket opens an anonymous socket from ip and subscribes n
// distinct getStoreReviews queries (numbers first..first+n-1) without
// waiting for their answers; a reader counts into fc the first answers, the
// refusals (QueryFailed), the later updates, and a socket the gateway closed.
func openFloodSocket(base, ip, store string, first, n int, fc *floodCounters) (*websocket.Conn, error) {
	queries := make([]liveQuery, n)
	for i := range queries {
		queries[i] = liveQuery{path: "stores/reviews:getStoreReviews", args: floodArgs(store, first+i)}
	}
	c, err := subscribeFrom(base, ip, "", queries)
	if err != nil {
		return nil, err
	}
	go func() {
		seen := map[int]bool{}
		for {
			var t liveTransition
			if err := c.ReadJSON(&t); err != nil {
				var ce *websocket.CloseError
				if errors.As(err, &ce) {
					fc.closed.Add(1) // closed by the gateway (a cap)
				}
				return
			}
			for _, m := range t.Modifications {
				switch m.Type {
				case "QueryUpdated":
					fc.last.Store(time.Now().UnixNano())
					if seen[m.QueryID] {
						fc.updates.Add(1)
					} else {
						seen[m.QueryID] = true
						fc.answered.Add(1)
					}
				case "QueryFailed":
					fc.refused.Add(1)
				}
			}
		}
	}()
	return c, nil
}

func printFloodHealth(r *healthResult) {
	fmt.Printf("\n/health under anonymous subscriptions from %d loopback addresses (127.0.0.2-127.0.0.%d); GET /health at %d/s, 2 votes/s on the store's reviews\n",
		healthAddresses, 1+healthAddresses, *floodRate)
	fmt.Printf("%-62s %9s %9s %9s %9s %6s %6s\n", "row", "p50", "p95", "p99", "max", "errors", "CPU")
	line := func(name string, s probeStats, cpu float64) {
		fmt.Printf("%-62s %9v %9v %9v %9v %6d %5.0f%%\n", name, s.p50.Round(10*time.Microsecond), s.p95.Round(10*time.Microsecond),
			s.p99.Round(10*time.Microsecond), s.max.Round(10*time.Microsecond), s.errors, cpu)
	}
	line("(l5) /health, idle", r.idle, r.cpuIdle)
	line(fmt.Sprintf("(l6) /health, %d anonymous subscriptions asked", r.asked), r.loaded, r.cpuLoaded)
	fmt.Printf("flood: %d subscriptions asked on %d sockets; by the row's end %d answered, %d refused by the caps (QueryFailed), %d sockets closed by the caps, %d updates pushed (%d votes)\n",
		r.asked, r.sockets, r.answered, r.refused, r.failed, r.updates, r.votesLoaded)
	if r.idle.p95 > 0 {
		fmt.Printf("/health p95 under the flood / idle: %.2f (goal <= 2.00)\n", float64(r.loaded.p95)/float64(r.idle.p95))
	}
}
