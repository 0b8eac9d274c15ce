package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// Reviews rows: getStoreReviewStats; getStoreReviews (20 per page,
// most_helpful, the first ten pages) of a store with 200 reviews among 2,000
// in the database, then among 20,000; addReview and voteOnReview throughput.
// The reviews go in through addReview itself (16 at a time; the embedded
// engine copies a collection on every insert), and the setup prints how long
// it took. Besides the rows, the notes give the latency of a list page right
// after a change (computed, not reused from the page cache).
const (
	reviewsPerStore  = 200
	reviewsSmall     = 2_000
	reviewSetupConc  = 16
	reviewPageSize   = 20
	reviewPages      = 10
	reviewVoters     = 50
	reviewColdProbes = 30
)

var reviewRowNames = []string{"review stats", "store reviews at 2,000", "store reviews at 20,000", "addReview", "voteOnReview"}

// reviewGoals are the goals of the rows (relative to the gateway's trivial row).
var reviewGoals = []string{" (goal >= 0.50)", " (goal >= 0.15)", "", "", ""}

// reviewBench holds the reviews rows' world between their two phases: the
// reads at 2,000 reviews run next to the other read rows; the 20,000 and the
// write rows run last (their setup grows the process's heap, and every row
// after it would pay for that in garbage collection).
type reviewBench struct {
	base          string
	tok           func(sub string, roles ...string) string
	admin, user   string
	large         int
	reviewers     []string
	voters        []string
	stores        []string
	target        string
	targetReviews []string
	notes         []string
	setupErr      atomic.Value
	mu            sync.Mutex
}

func (b *reviewBench) call(token, kind, path string, args any) (json.RawMessage, error) {
	return do(b.base+"/api/"+kind, token, path, args)
}

func (b *reviewBench) fail(err error) {
	if err != nil {
		b.setupErr.Store(err)
	}
}

func (b *reviewBench) failed() error {
	if e, ok := b.setupErr.Load().(error); ok {
		return fmt.Errorf("reviews setup: %w", e)
	}
	return nil
}

// newReviewBench makes the reviewers, voters (customers) and the stores.
func newReviewBench(base string, tok func(sub string, roles ...string) string, large int) (*reviewBench, error) {
	b := &reviewBench{base: base, tok: tok, admin: tok("bench-admin", "admin"), user: tok("bench-user"), large: large}
	profiles := func(prefix string, n int) []string {
		toks := make([]string, n)
		parallel(n, reviewSetupConc, func(i int) {
			toks[i] = tok(fmt.Sprintf("%s-%d", prefix, i))
			_, err := b.call(toks[i], "mutation", "customers.profile.upsertMyProfile", map[string]any{"name": fmt.Sprintf("%s %d", prefix, i)})
			b.fail(err)
		})
		return toks
	}
	b.reviewers = profiles("bench-reviewer", 100)
	b.voters = profiles("bench-voter", reviewVoters)
	// One store per 200 reviews of the largest database.
	b.stores = make([]string, max(large, reviewsSmall)/reviewsPerStore)
	parallel(len(b.stores), reviewSetupConc, func(i int) {
		raw, err := b.call(b.admin, "mutation", "admins.catalog.createStore", map[string]any{"name": fmt.Sprintf("Review Store %d", i),
			"ownerUserId": fmt.Sprintf("bench-review-owner-%d", i), "ownerName": "Owner", "ownerPhone": "+971500000000"})
		if err == nil {
			err = json.Unmarshal(raw, &b.stores[i])
		}
		b.fail(err)
	})
	b.target = b.stores[0]
	return b, b.failed()
}

// addReviews adds reviews [from, to) of the database: review i goes to store
// i % inUse, by reviewer i % reviewers.
func (b *reviewBench) addReviews(from, to, inUse int) time.Duration {
	start := time.Now()
	parallel(to-from, reviewSetupConc, func(k int) {
		i := from + k
		store := b.stores[i%inUse]
		raw, err := b.call(b.reviewers[i%len(b.reviewers)], "mutation", "stores.reviews.addReview", map[string]any{"storeId": store,
			"rating": 1 + i*7%5, "title": fmt.Sprintf("Review %d", i), "comment": "A bench review of a store, of some realistic length: the delivery was on time and the food was warm."})
		if err != nil {
			b.fail(err)
			return
		}
		if store == b.target {
			var out struct {
				ReviewID string `json:"reviewId"`
			}
			_ = json.Unmarshal(raw, &out)
			b.mu.Lock()
			b.targetReviews = append(b.targetReviews, out.ReviewID)
			b.mu.Unlock()
		}
	})
	return time.Since(start)
}

// reads: 2,000 reviews (10 stores of 200), helpfulness votes on the
// store's, then the statistics and list rows.
func (b *reviewBench) reads(conns int, dur, warm time.Duration) ([]row, error) {
	if err := b.fillSmall(); err != nil {
		return nil, err
	}
	pages, err := reviewPagesOf(b.base, b.admin, b.target)
	if err != nil {
		return nil, err
	}
	waitReviewEvents(b.base, b.admin, b.voters[0], b.targetReviews[:20])
	stats := body("stores.reviews.getStoreReviewStats", map[string]any{"storeId": b.target})
	rows := []row{
		load("(r1) getStoreReviewStats", b.base+"/api/query", b.user, stats, conns, dur, warm),
		loadEach(fmt.Sprintf("(r2) getStoreReviews, 200 of %d, most_helpful", reviewsSmall), b.base+"/api/query", b.user, pages, conns, dur, warm),
	}
	b.notes = append(b.notes, coldListing(b.base, b.voters[1], b.targetReviews[0], pages[0], reviewsSmall))
	return rows, nil
}

// fillSmall stores the first 2,000 reviews (10 stores of 200) through
// addReview, and helpfulness votes on the target store's, and checks them.
func (b *reviewBench) fillSmall() error {
	took := b.addReviews(0, reviewsSmall, reviewsSmall/reviewsPerStore)
	b.notes = append(b.notes, fmt.Sprintf("reviews setup: %d reviews (%d stores of %d) stored in %v", reviewsSmall, reviewsSmall/reviewsPerStore, reviewsPerStore, took.Round(time.Millisecond)))
	// Votes, so most_helpful has an order to keep.
	parallel(len(b.targetReviews), reviewSetupConc, func(i int) {
		for v := 0; v < i%7; v++ {
			_, err := b.call(b.voters[(i+v)%len(b.voters)], "mutation", "stores.reviews.voteOnReview", map[string]any{"reviewId": b.targetReviews[i], "isHelpful": v%3 != 2})
			b.fail(err)
		}
	})
	if err := b.failed(); err != nil {
		return err
	}
	if len(b.targetReviews) != reviewsPerStore {
		return fmt.Errorf("reviews setup: the store has %d reviews, want %d", len(b.targetReviews), reviewsPerStore)
	}
	raw, err := b.call(b.admin, "query", "stores.reviews.getStoreReviewStats", map[string]any{"storeId": b.target})
	if err != nil {
		return err
	}
	var check struct {
		Total int `json:"totalReviews"`
	}
	_ = json.Unmarshal(raw, &check)
	if check.Total != reviewsPerStore {
		return errors.New("reviews setup: the statistics do not count every review: " + string(raw))
	}
	return nil
}

// rest: up to the large database, the list row again, then the writes.
func (b *reviewBench) rest(conns int, dur, warm time.Duration) ([]row, error) {
	var rows []row
	if b.large > reviewsSmall {
		took := b.addReviews(reviewsSmall, b.large, len(b.stores))
		b.notes = append(b.notes, fmt.Sprintf("reviews setup: %d more reviews (%d stores of %d in all) stored in %v",
			b.large-reviewsSmall, len(b.stores), reviewsPerStore, took.Round(time.Millisecond)))
		if err := b.failed(); err != nil {
			return nil, err
		}
		pages, err := reviewPagesOf(b.base, b.admin, b.target)
		if err != nil {
			return nil, err
		}
		waitReviewEvents(b.base, b.admin, b.voters[2], b.targetReviews[20:40])
		rows = append(rows, loadEach(fmt.Sprintf("(r3) getStoreReviews, 200 of %d, most_helpful", b.large), b.base+"/api/query", b.user, pages, conns, dur, warm))
		b.notes = append(b.notes, coldListing(b.base, b.voters[3], b.targetReviews[1], pages[0], b.large))
	} else {
		rows = append(rows, row{name: "(r3) getStoreReviews at 20,000", skipped: "-reviews-large <= 2000"})
	}
	// Writes, each request a real change. addReview: reviewer w reviews store
	// w (no orderId: no uniqueness to run into). voteOnReview: voteRow.
	stores := b.stores
	rows = append(rows, loadVaried("(r4) addReview", b.base+"/api/mutation", b.reviewers, conns, dur, warm, func(w, n int) []byte {
		return body("stores.reviews.addReview", map[string]any{"storeId": stores[w%len(stores)], "rating": 1 + n%5, "comment": "Throughput review"})
	}))
	rows = append(rows, b.voteRow("(r5) voteOnReview", conns, dur, warm))
	return rows, nil
}

// voteRow: voter w votes on review n/2 of its rotation among the target
// store's, helpful then not, so each request inserts or changes a vote.
func (b *reviewBench) voteRow(name string, conns int, dur, warm time.Duration) row {
	targets := b.targetReviews
	return loadVaried(name, b.base+"/api/mutation", b.voters, conns, dur, warm, func(w, n int) []byte {
		return body("stores.reviews.voteOnReview", map[string]any{"reviewId": targets[(w*7+n/2)%len(targets)], "isHelpful": n%2 == 0})
	})
}

// reviewPagesOf is the bodies of the first pages of the store's list, most
// helpful first, 20 a page.
func reviewPagesOf(base, token, storeID string) ([][]byte, error) {
	var out [][]byte
	var cursor any
	for range reviewPages {
		args := map[string]any{"storeId": storeID, "sortBy": "most_helpful", "paginationOpts": map[string]any{"numItems": reviewPageSize, "cursor": cursor}}
		out = append(out, body("stores.reviews.getStoreReviews", args))
		raw, err := do(base+"/api/query", token, "stores.reviews.getStoreReviews", args)
		if err != nil {
			return nil, err
		}
		var p struct {
			Page   []json.RawMessage `json:"page"`
			Cursor string            `json:"continueCursor"`
		}
		if err := json.Unmarshal(raw, &p); err != nil || len(p.Page) != reviewPageSize {
			return nil, fmt.Errorf("reviews setup: a page of %d reviews: %s", len(p.Page), raw)
		}
		cursor = p.Cursor
	}
	return out, nil
}

// waitReviewEvents lets the notifications consumer catch up with the setup's
// events (every review.created is read and recorded): the flags raised now
// reach the admin inbox only after what was queued before them on their
// partitions.
func waitReviewEvents(base, admin, flagger string, reviewIDs []string) {
	for _, id := range reviewIDs {
		_, _ = do(base+"/api/mutation", flagger, "stores.reviews.flagReview", map[string]any{"reviewId": id, "reason": "other", "description": "bench sentinel"})
	}
	count := func() int {
		raw, err := do(base+"/api/query", admin, "admins.reviewModeration.listFlags", map[string]any{"status": "pending", "paginationOpts": map[string]any{"numItems": 100, "cursor": nil}})
		if err != nil {
			return -1
		}
		var p struct {
			Page []json.RawMessage `json:"page"`
		}
		_ = json.Unmarshal(raw, &p)
		return len(p.Page)
	}
	want := count()
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		raw, err := do(base+"/api/query", admin, "notifications.inbox.list", map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}, "unreadOnly": true})
		if err != nil {
			continue
		}
		var p struct {
			Page []struct {
				Type string `json:"type"`
			} `json:"page"`
		}
		_ = json.Unmarshal(raw, &p)
		n := 0
		for _, x := range p.Page {
			if x.Type == "review_flagged" {
				n++
			}
		}
		if n >= want {
			return
		}
	}
}

// coldListing measures the first page right after a vote (the store changed,
// so the page is computed, not reused): one at a time.
func coldListing(base, voter, reviewID string, page []byte, total int) string {
	lat, err := coldListingLatencies(base, voter, reviewID, page)
	if err != nil {
		return "cold listing: " + err.Error()
	}
	return fmt.Sprintf("getStoreReviews right after a change (computed, not from the page cache), 200 of %d: p50 %v, max %v (one at a time)",
		total, lat[len(lat)/2].Round(time.Microsecond), lat[len(lat)-1].Round(time.Microsecond))
}

// coldListingLatencies is coldListing's latencies, sorted.
func coldListingLatencies(base, voter, reviewID string, page []byte) ([]time.Duration, error) {
	var lat []time.Duration
	for i := range reviewColdProbes {
		if _, err := do(base+"/api/mutation", voter, "stores.reviews.voteOnReview", map[string]any{"reviewId": reviewID, "isHelpful": i%2 == 0}); err != nil {
			return nil, err
		}
		req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
		req.SetRequestURI(base + "/api/query")
		req.Header.SetMethod("POST")
		req.Header.SetContentType("application/json")
		req.SetBody(page)
		t0 := time.Now()
		err := fasthttp.DoTimeout(req, resp, 30*time.Second)
		lat = append(lat, time.Since(t0))
		ok := err == nil && resp.StatusCode() == 200
		fasthttp.ReleaseRequest(req)
		fasthttp.ReleaseResponse(resp)
		if !ok {
			return nil, errors.New("a page failed")
		}
	}
	slices.Sort(lat)
	return lat, nil
}

// loadVaried is a closed loop of conns workers; worker w calls as
// tokens[w % len] with body(w, n) as its n-th request.
func loadVaried(name, url string, tokens []string, conns int, dur, warm time.Duration, bodyOf func(w, n int) []byte) row {
	hc := &fasthttp.Client{MaxConnsPerHost: conns, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	var measuring atomic.Bool
	var errs atomic.Int64
	stop := make(chan struct{})
	lat := make([][]time.Duration, conns)
	var wg sync.WaitGroup
	for w := 0; w < conns; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			req.SetRequestURI(url)
			req.Header.SetMethod("POST")
			req.Header.SetContentType("application/json")
			req.Header.Set("Authorization", "Bearer "+tokens[w%len(tokens)])
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				req.SetBody(bodyOf(w, n))
				t0 := time.Now()
				err := hc.Do(req, resp)
				d := time.Since(t0)
				if !measuring.Load() {
					continue
				}
				if err != nil || resp.StatusCode() != 200 {
					errs.Add(1)
					continue
				}
				lat[w] = append(lat[w], d)
			}
		}(w)
	}
	time.Sleep(warm)
	measuring.Store(true)
	start := time.Now()
	time.Sleep(dur)
	measuring.Store(false)
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return summarize(name, all, elapsed, errs.Load())
}
