package main

// The phases: each carries out its part of the plan through the public API
// with a pool of workers and a progress bar. Every mutation has an
// Idempotency-Key made of SEED and the record's place in the plan, so a run
// that was cut off is continued by running it again: what was done is
// answered from the kept outcomes (with the same ids), the rest is done.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/sync/errgroup"
	"golang.org/x/time/rate"

	"marketplace/libs/auth"
)

// Config is a seed run.
type Config struct {
	BaseURL      string // the gateway
	SimulatorURL string // the processor simulator of the all-in-one
	DevSecret    string // signs the development tokens
	AuthOptions  auth.Options
	Seed         uint64
	Sizes        Sizes
	Workers      int
	RPS          float64 // calls per second per user (the gateway allows RATE_LIMIT_RPS per token subject)
	Burst        int
	WebhookRPS   float64 // payment confirmations per second (each sends a webhook from one address)
	Force        bool    // seed a system that holds data the seed did not make
	TokenTTL     time.Duration
	Stderr       io.Writer // progress bars and the human summary
	Stdout       io.Writer // one JSON line: the summary
	// onStep, when set, is told of every finished step (tests interrupt a run with it).
	onStep func(phase string)
}

// Defaults of a run.
const (
	DefaultURL        = "http://127.0.0.1:8080"
	DefaultWorkers    = 16
	DefaultRPS        = 40 // below the gateway's default RATE_LIMIT_RPS of 50
	DefaultBurst      = 20
	DefaultWebhookRPS = 40
	adminSub          = "seed-admin"
)

// ErrNotEmpty refuses a seed into a system that holds data the seed did not
// make: other data, a seed with another SEED or other sizes, or one made more
// than a day ago (the kept idempotency keys are gone).
var ErrNotEmpty = errors.New("the system already holds a platform configuration that this seed (this SEED and these sizes) did not create: " +
	"seed an empty system (stop `make run`, delete DATA_DIR, start it again), or set SEED_FORCE=1 to add the demo data to what is there")

type seeder struct {
	cfg   Config
	plan  *Plan
	c     *client
	sim   *simulator
	admin *user
	start time.Time

	resumed  bool // an earlier run with this SEED made the configuration: this one continues it
	configID string

	categoryIDs []string
	cityIDs     []string
	areaIDs     [][]string
	storeIDs    []string
	productIDs  [][]string
	customerIDs []string
	addressIDs  [][]string
	orderIDs    []string
	reviewIDs   []string
	flagIDs     []string
	payoutFils  []fils
	retriedPays atomic.Int64 // orders paid with a second intent (a webhook the gateway did not take)
}

// Seed carries out the plan for cfg and prints the summary.
func Seed(ctx context.Context, cfg Config) (*Summary, error) {
	plan, err := NewPlan(cfg.Seed, cfg.Sizes)
	if err != nil {
		return nil, err
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = 24 * time.Hour
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	// The keys name the plan (SEED and sizes): a run continues only a run of
	// the same plan.
	z := cfg.Sizes
	prefix := fmt.Sprintf("seed/%d/%d-%d-%d-%d-%d/", cfg.Seed, z.Stores, z.Customers, z.Orders, z.Reviews, z.Payouts)
	if cfg.Force {
		prefix += "force/"
	}
	s := &seeder{cfg: cfg, plan: plan, c: newClient(cfg, prefix), start: time.Now(),
		sim: &simulator{base: cfg.SimulatorURL, hc: httpClient(cfg.Workers), limit: rate.NewLimiter(rate.Limit(cfg.WebhookRPS), max(1, int(cfg.WebhookRPS/2)))}}
	defer s.c.hc.CloseIdleConnections()
	defer s.sim.hc.CloseIdleConnections()
	if err := s.c.addUser(adminSub, auth.RoleAdmin); err != nil {
		return nil, err
	}
	for _, u := range plan.Stores {
		if err := s.c.addUser(u.OwnerSub); err != nil {
			return nil, err
		}
	}
	for _, u := range plan.Customers {
		if err := s.c.addUser(u.Sub); err != nil {
			return nil, err
		}
	}
	s.admin = s.c.as(adminSub)
	if err := s.preflight(ctx); err != nil {
		return nil, err
	}
	for _, n := range plan.Notes {
		fmt.Fprintln(cfg.Stderr, "note: "+n)
	}
	phases := []struct {
		name string
		run  func(context.Context) error
	}{
		{"platform", s.platform}, {"cities & areas", s.locations}, {"stores & products", s.stores}, {"customers", s.customers},
		{"orders", s.orders}, {"reviews", s.reviews}, {"votes", s.votes}, {"responses & edits", s.responses},
		{"flags & moderation", s.flags}, {"wallets & payouts", s.payouts}, {"store updates", s.storeUpdates},
	}
	for _, p := range phases {
		if err := p.run(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted during %s: run the seed again with SEED=%d and the same sizes to continue where it stopped", p.name, cfg.Seed)
			}
			if errors.Is(err, ErrNotEmpty) {
				return nil, err
			}
			return nil, fmt.Errorf("%s: %w (once fixed, run the seed again with SEED=%d and the same sizes to continue)", p.name, err, cfg.Seed)
		}
	}
	sum := s.summary()
	if err := sum.print(cfg.Stderr, cfg.Stdout); err != nil {
		return nil, err
	}
	return sum, nil
}

// preflight: the gateway and the simulator answer (a stopped `make run`
// is told at once, not after the retries).
func (s *seeder) preflight(ctx context.Context) error {
	for _, t := range []struct{ url, what string }{
		{s.c.base + "/livez", "the marketplace at " + s.c.base + " does not answer (is `make run` running? SEED_URL names another address)"},
		{s.sim.base + "/", "the processor simulator at " + s.sim.base + " does not answer (is `make run` running with this DATA_DIR?)"},
	} {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, t.url, nil)
		if err == nil {
			var resp *http.Response
			if resp, err = s.c.hc.Do(req); err == nil {
				resp.Body.Close()
			}
		}
		cancel()
		if err != nil {
			return fmt.Errorf("%s: %w", t.what, err)
		}
	}
	return nil
}

// bar is a phase's progress bar on stderr.
func (s *seeder) bar(name string, total int) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(s.cfg.Stderr),
		progressbar.OptionSetDescription(fmt.Sprintf("%-19s", name)),
		progressbar.OptionSetWidth(30),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(s.cfg.Stderr) }),
	)
}

// stage is part of a phase: step(i) for i in 0..n-1, on the worker pool.
type stage struct {
	n    int
	step func(ctx context.Context, i int, done func(int)) error
}

// phase runs its stages one after the other under a progress bar of total
// steps (a step adds what it did with done). The first error stops it.
func (s *seeder) phase(ctx context.Context, name string, total int, stages ...stage) error {
	bar := s.bar(name, total)
	done := func(k int) {
		_ = bar.Add(k)
		if s.cfg.onStep != nil {
			s.cfg.onStep(name)
		}
	}
	for _, st := range stages {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(s.cfg.Workers)
		for i := range st.n {
			if gctx.Err() != nil {
				break
			}
			g.Go(func() error { return st.step(gctx, i, done) })
		}
		if err := g.Wait(); err != nil {
			_ = bar.Exit()
			fmt.Fprintln(s.cfg.Stderr)
			return err
		}
	}
	if !bar.IsFinished() {
		_ = bar.Finish()
	}
	return nil
}

// named is a list of records with _id and name.
type named []struct {
	ID   string `json:"_id"`
	Name string `json:"name"`
}

func (n named) id(name string) string {
	for _, x := range n {
		if x.Name == name {
			return x.ID
		}
	}
	return ""
}

// platform: the categories with their Arabic names, the platform
// configuration, and the commission of each category that has its own.
// First it finds out whether the system is empty, holds an earlier run of
// this SEED (continued), or holds other data (refused unless Force).
func (s *seeder) platform(ctx context.Context) error {
	var active *struct {
		ID string `json:"_id"`
	}
	if err := s.c.query(ctx, s.admin, "admins.platformAdmin.getActivePlatformConfig", nil, &active); err != nil {
		return err
	}
	if active != nil {
		var id string
		replayed, err := s.c.mutate(ctx, s.admin, "config", "admins.platformAdmin.createInitialPlatformConfig", map[string]any{"adminUserId": adminSub}, &id)
		switch {
		case err == nil:
			s.resumed, s.configID = replayed, id
		case codeOf(err) == "ALREADY_EXISTS" && s.cfg.Force:
			s.configID = active.ID
		case codeOf(err) == "ALREADY_EXISTS":
			return ErrNotEmpty
		default:
			return err
		}
	}
	if s.resumed {
		fmt.Fprintf(s.cfg.Stderr, "continuing the seed with SEED=%d that an earlier run started (what it did is answered from the kept idempotency keys)\n", s.cfg.Seed)
	}
	withRate := 0
	for _, c := range categories {
		if c.Commission > 0 {
			withRate++
		}
	}
	s.categoryIDs = make([]string, len(categories))
	var existing named // read once, when a category is found to exist
	lookup := func(ctx context.Context, name string) (string, error) {
		if existing == nil {
			if err := s.c.query(ctx, s.admin, "catalog.categories.listCategories", nil, &existing); err != nil {
				return "", err
			}
		}
		if id := existing.id(name); id != "" {
			return id, nil
		}
		return "", fmt.Errorf("category %q exists but is not listed", name)
	}
	return s.phase(ctx, "platform", len(categories)+1+withRate, stage{1, func(ctx context.Context, _ int, done func(int)) error {
		for i, c := range categories {
			var id string
			_, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("category/%d", i), "admins.catalog.createCategory", map[string]any{"name": c.Name, "nameArabic": c.Arabic}, &id)
			if codeOf(err) == "ALREADY_EXISTS" {
				id, err = lookup(ctx, c.Name)
			}
			if err != nil {
				return err
			}
			s.categoryIDs[i] = id
			done(1)
		}
		if s.configID == "" {
			_, err := s.c.mutate(ctx, s.admin, "config", "admins.platformAdmin.createInitialPlatformConfig", map[string]any{"adminUserId": adminSub}, &s.configID)
			if err != nil {
				return err
			}
		}
		done(1)
		for i, c := range categories {
			if c.Commission == 0 {
				continue
			}
			if _, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("commission/%d", i), "admins.platformAdmin.addCategoryCommission", map[string]any{
				"adminUserId": adminSub, "configId": s.configID, "categoryId": s.categoryIDs[i], "commissionRate": c.Commission}, nil); err != nil {
				return err
			}
			done(1)
		}
		return nil
	}})
}

// locations: the cities, then their areas.
func (s *seeder) locations(ctx context.Context) error {
	areas := 0
	for _, c := range cities {
		areas += len(c.Areas)
	}
	s.cityIDs = make([]string, len(cities))
	s.areaIDs = make([][]string, len(cities))
	return s.phase(ctx, "cities & areas", len(cities)+areas, stage{len(cities), func(ctx context.Context, ci int, done func(int)) error {
		c := cities[ci]
		var id string
		_, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("city/%d", ci), "admins.catalog.createCity", map[string]any{"name": c.Name, "nameArabic": c.Arabic}, &id)
		if codeOf(err) == "ALREADY_EXISTS" {
			var all named
			if err = s.c.query(ctx, s.admin, "catalog.locations.listCities", nil, &all); err == nil {
				if id = all.id(c.Name); id == "" {
					err = fmt.Errorf("city %q exists but is not listed", c.Name)
				}
			}
		}
		if err != nil {
			return err
		}
		s.cityIDs[ci] = id
		done(1)
		s.areaIDs[ci] = make([]string, len(c.Areas))
		var existing named
		for ai, a := range c.Areas {
			var id string
			_, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("area/%d/%d", ci, ai), "admins.catalog.createArea", map[string]any{"name": a.Name, "city": s.cityIDs[ci]}, &id)
			if codeOf(err) == "ALREADY_EXISTS" {
				err = nil
				if existing == nil {
					err = s.c.query(ctx, s.admin, "catalog.locations.listAreas", map[string]any{"city": s.cityIDs[ci]}, &existing)
				}
				if err == nil {
					if id = existing.id(a.Name); id == "" {
						err = fmt.Errorf("area %q exists but is not listed", a.Name)
					}
				}
			}
			if err != nil {
				return err
			}
			s.areaIDs[ci][ai] = id
			done(1)
		}
		return nil
	}})
}

// stores: each store (the administrator opens it for its owner, with its
// place), then its products (its owner adds them).
func (s *seeder) stores(ctx context.Context) error {
	total := 0
	for _, st := range s.plan.Stores {
		total += 1 + len(st.Products)
	}
	n := len(s.plan.Stores)
	s.storeIDs, s.productIDs = make([]string, n), make([][]string, n)
	return s.phase(ctx, "stores & products", total, stage{n, func(ctx context.Context, i int, done func(int)) error {
		st := s.plan.Stores[i]
		var id string
		if _, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("store/%d", i), "admins.catalog.createStore", map[string]any{
			"name": st.Name, "ownerUserId": st.OwnerSub, "ownerName": st.OwnerName, "ownerPhone": st.OwnerPhone,
			"primaryCategoryId": s.categoryIDs[st.Category], "tier": st.Tier, "city": s.cityIDs[st.City], "area": s.areaIDs[st.City][st.Area],
			"latitude": st.Lat, "longitude": st.Lng, "isOpen": true,
		}, &id); err != nil {
			return err
		}
		s.storeIDs[i] = id
		done(1)
		owner := s.c.as(st.OwnerSub)
		s.productIDs[i] = make([]string, len(st.Products))
		for j, p := range st.Products {
			if _, err := s.c.mutate(ctx, owner, fmt.Sprintf("store/%d/product/%d", i, j), "stores.products.createProduct",
				map[string]any{"storeId": id, "name": p.Name, "price": p.Price}, &s.productIDs[i][j]); err != nil {
				return err
			}
			done(1)
		}
		return nil
	}})
}

// customers: each customer's profile, then their addresses.
func (s *seeder) customers(ctx context.Context) error {
	total := 0
	for _, c := range s.plan.Customers {
		total += 1 + len(c.Addresses)
	}
	n := len(s.plan.Customers)
	s.customerIDs, s.addressIDs = make([]string, n), make([][]string, n)
	return s.phase(ctx, "customers", total, stage{n, func(ctx context.Context, i int, done func(int)) error {
		c := s.plan.Customers[i]
		u := s.c.as(c.Sub)
		var id string
		if _, err := s.c.mutate(ctx, u, fmt.Sprintf("customer/%d", i), "customers.profile.upsertMyProfile",
			map[string]any{"name": c.Name, "phone": c.Phone, "email": c.Email}, &id); err != nil {
			return err
		}
		s.customerIDs[i] = id
		done(1)
		s.addressIDs[i] = make([]string, len(c.Addresses))
		for k, a := range c.Addresses {
			if _, err := s.c.mutate(ctx, u, fmt.Sprintf("customer/%d/address/%d", i, k), "customers.addresses.createAddress", map[string]any{
				"customerId": id, "name": a.Name, "fullAddress": a.FullAddress, "city": s.cityIDs[a.City], "area": s.areaIDs[a.City][a.Area],
				"flatVilaNumber": a.Flat, "buildingNameNumber": a.Building, "landmark": a.Landmark, "latitude": a.Lat, "longitude": a.Lng,
				"isDefault": a.Default,
			}, &s.addressIDs[i][k]); err != nil {
				return err
			}
			done(1)
		}
		return nil
	}})
}

// Payment methods of the processor's test mode (deploy/processor).
const (
	cardPays     = "pm_card_visa"
	cardDeclined = "pm_card_chargeDeclined"
)

// payAttempts bounds the intents tried for one order: the simulator sends its
// webhook once, so one the gateway did not take is paid again with a new
// intent.
const payAttempts = 3

// orders: each customer's orders one after the other (a customer has one
// cart), customers side by side. An order is its cart lines, a payment
// intent, the card form's confirmation with the processor (whose webhook
// makes the order), then the store owner's moves along its statuses.
func (s *seeder) orders(ctx context.Context) error {
	s.orderIDs = make([]string, len(s.plan.Orders))
	byCustomer := make([][]int, len(s.plan.Customers))
	for i, o := range s.plan.Orders {
		byCustomer[o.Customer] = append(byCustomer[o.Customer], i)
	}
	return s.phase(ctx, "orders", len(s.plan.Orders), stage{len(byCustomer), func(ctx context.Context, ci int, done func(int)) error {
		for _, oi := range byCustomer[ci] {
			if err := s.order(ctx, oi); err != nil {
				return fmt.Errorf("order %d: %w", oi, err)
			}
			done(1)
		}
		return nil
	}})
}

type orderRef struct {
	ID string `json:"_id"`
}

func (s *seeder) order(ctx context.Context, oi int) error {
	o := s.plan.Orders[oi]
	cust := s.c.as(s.plan.Customers[o.Customer].Sub)
	storeID := s.storeIDs[o.Store]
	for j, l := range o.Lines {
		if _, err := s.c.mutate(ctx, cust, fmt.Sprintf("order/%d/item/%d", oi, j), "customers.cart.addItem",
			map[string]any{"productId": s.productIDs[o.Store][l.Product], "quantity": l.Quantity}, nil); err != nil {
			return err
		}
	}
	var order *orderRef
	for attempt := 0; order == nil; attempt++ {
		if attempt == payAttempts {
			return fmt.Errorf("no order after %d payments: the webhook was refused each time (see the marketplace's log)", payAttempts)
		}
		var in struct {
			PaymentIntentID string `json:"paymentIntentId"`
			ClientSecret    string `json:"clientSecret"`
			PublishableKey  string `json:"publishableKey"`
		}
		if _, err := s.c.mutate(ctx, cust, fmt.Sprintf("order/%d/intent/%d", oi, attempt), "customers.checkout.createPaymentIntent",
			map[string]any{"storeId": storeID, "addressId": s.addressIDs[o.Customer][o.Address], "deliveryType": o.Delivery}, &in); err != nil {
			return err
		}
		if o.DeclineFirst && attempt == 0 {
			c, err := s.sim.confirm(ctx, in.PublishableKey, in.PaymentIntentID, in.ClientSecret, cardDeclined)
			if err != nil {
				return err
			}
			if c.Status != 402 && c.Code != "payment_intent_unexpected_state" {
				return fmt.Errorf("the processor answered a declined card with %d %s", c.Status, c.Code)
			}
		}
		c, err := s.sim.confirm(ctx, in.PublishableKey, in.PaymentIntentID, in.ClientSecret, cardPays)
		if err != nil {
			return err
		}
		// 400 payment_intent_unexpected_state: paid by an earlier run.
		if c.Status != 200 && c.Code != "payment_intent_unexpected_state" {
			return fmt.Errorf("the processor refused the payment of %s: %d %s", in.PaymentIntentID, c.Status, c.Code)
		}
		// The webhook was answered before the confirmation was: when it made
		// the order, the order is there. Otherwise wait a little for it.
		wait := 5 * time.Second
		if c.WebhookStatus == 200 {
			wait = 0
		}
		if order, err = s.orderOf(ctx, cust, in.PaymentIntentID, wait); err != nil {
			return err
		}
		if order == nil {
			s.retriedPays.Add(1)
		}
	}
	s.orderIDs[oi] = order.ID
	owner := s.c.as(s.plan.Stores[o.Store].OwnerSub)
	for _, st := range o.Path {
		if _, err := s.c.mutate(ctx, owner, fmt.Sprintf("order/%d/status/%s", oi, st), "stores.orders.updateOrderStatus",
			map[string]any{"orderId": order.ID, "status": st}, nil); err != nil {
			return err
		}
	}
	return nil
}

// orderOf is the order paid with an intent, polled for up to wait.
func (s *seeder) orderOf(ctx context.Context, cust *user, intent string, wait time.Duration) (*orderRef, error) {
	deadline := time.Now().Add(wait)
	for {
		var o *orderRef
		if err := s.c.query(ctx, cust, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent}, &o); err != nil {
			return nil, err
		}
		if o != nil || time.Now().After(deadline) {
			return o, nil
		}
		if err := sleep(ctx, 200*time.Millisecond); err != nil {
			return nil, err
		}
	}
}

// reviews: each review by its author, with its order when it has one. The
// reviews citing an order (the plan puts them first) are all in before any
// review without one: a review without an order is verified by a delivered
// order no verified review uses yet (contract section 9), so which review an
// order verifies must not depend on which worker is faster.
func (s *seeder) reviews(ctx context.Context) error {
	s.reviewIDs = make([]string, len(s.plan.Reviews))
	withOrder := 0
	for withOrder < len(s.plan.Reviews) && s.plan.Reviews[withOrder].Order >= 0 {
		withOrder++
	}
	add := func(offset int) func(ctx context.Context, i int, done func(int)) error {
		return func(ctx context.Context, i int, done func(int)) error { return s.review(ctx, offset+i, done) }
	}
	return s.phase(ctx, "reviews", len(s.plan.Reviews),
		stage{withOrder, add(0)}, stage{len(s.plan.Reviews) - withOrder, add(withOrder)})
}

func (s *seeder) review(ctx context.Context, i int, done func(int)) error {
	r := s.plan.Reviews[i]
	args := map[string]any{"storeId": s.storeIDs[r.Store], "rating": r.Rating}
	if r.Order >= 0 {
		args["orderId"] = s.orderIDs[r.Order]
	}
	if r.Title != "" {
		args["title"] = r.Title
	}
	if r.Comment != "" {
		args["comment"] = r.Comment
	}
	var out struct {
		ReviewID string `json:"reviewId"`
	}
	if _, err := s.c.mutate(ctx, s.c.as(s.plan.Customers[r.Customer].Sub), fmt.Sprintf("review/%d", i), "stores.reviews.addReview", args, &out); err != nil {
		return fmt.Errorf("review %d: %w", i, err)
	}
	s.reviewIDs[i] = out.ReviewID
	done(1)
	return nil
}

// votes: other customers find reviews helpful or not.
func (s *seeder) votes(ctx context.Context) error {
	return s.phase(ctx, "votes", len(s.plan.Votes), stage{len(s.plan.Votes), func(ctx context.Context, i int, done func(int)) error {
		v := s.plan.Votes[i]
		if _, err := s.c.mutate(ctx, s.c.as(s.plan.Customers[v.Customer].Sub), fmt.Sprintf("vote/%d", i), "stores.reviews.voteOnReview",
			map[string]any{"reviewId": s.reviewIDs[v.Review], "isHelpful": v.Helpful}, nil); err != nil {
			return fmt.Errorf("vote %d: %w", i, err)
		}
		done(1)
		return nil
	}})
}

// responses: store owners answer reviews; some authors then edit theirs.
func (s *seeder) responses(ctx context.Context) error {
	n := len(s.plan.Responses)
	return s.phase(ctx, "responses & edits", n+len(s.plan.Edits), stage{n + len(s.plan.Edits), func(ctx context.Context, i int, done func(int)) error {
		if i < n {
			r := s.plan.Responses[i]
			owner := s.c.as(s.plan.Stores[s.plan.Reviews[r.Review].Store].OwnerSub)
			if _, err := s.c.mutate(ctx, owner, fmt.Sprintf("response/%d", i), "stores.reviews.addStoreResponse",
				map[string]any{"reviewId": s.reviewIDs[r.Review], "comment": r.Comment}, nil); err != nil {
				return fmt.Errorf("response %d: %w", i, err)
			}
		} else {
			e := s.plan.Edits[i-n]
			author := s.c.as(s.plan.Customers[s.plan.Reviews[e.Review].Customer].Sub)
			if _, err := s.c.mutate(ctx, author, fmt.Sprintf("edit/%d", i-n), "stores.reviews.updateReview",
				map[string]any{"reviewId": s.reviewIDs[e.Review], "rating": e.Rating, "comment": e.Comment}, nil); err != nil {
				return fmt.Errorf("edit %d: %w", i-n, err)
			}
		}
		done(1)
		return nil
	}})
}

// flags: customers report reviews; then a moderator decides some of the
// reports (all reports are in before any review is hidden).
func (s *seeder) flags(ctx context.Context) error {
	s.flagIDs = make([]string, len(s.plan.Flags))
	var decided []int
	for i, f := range s.plan.Flags {
		if f.Resolution != "" {
			decided = append(decided, i)
		}
	}
	report := stage{len(s.plan.Flags), func(ctx context.Context, i int, done func(int)) error {
		f := s.plan.Flags[i]
		var out struct {
			FlagID string `json:"flagId"`
		}
		if _, err := s.c.mutate(ctx, s.c.as(s.plan.Customers[f.Customer].Sub), fmt.Sprintf("flag/%d", i), "stores.reviews.flagReview",
			map[string]any{"reviewId": s.reviewIDs[f.Review], "reason": f.Reason, "description": f.Description}, &out); err != nil {
			return fmt.Errorf("flag %d: %w", i, err)
		}
		s.flagIDs[i] = out.FlagID
		done(1)
		return nil
	}}
	decide := stage{len(decided), func(ctx context.Context, k int, done func(int)) error {
		i := decided[k]
		if _, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("flag/%d/resolve", i), "admins.reviewModeration.resolveFlag", map[string]any{
			"flagId": s.flagIDs[i], "adminUserId": adminSub, "action": s.plan.Flags[i].Resolution,
			"adminNotes": "Checked against the review guidelines."}, nil); err != nil {
			return fmt.Errorf("resolving flag %d: %w", i, err)
		}
		done(1)
		return nil
	}}
	return s.phase(ctx, "flags & moderation", len(s.plan.Flags)+len(decided), report, decide)
}

type walletView struct {
	ID               string  `json:"_id"`
	AvailableBalance float64 `json:"availableBalance"`
	TotalEarnings    float64 `json:"totalEarnings"`
	TotalOrders      int     `json:"totalOrders"`
}

// earningsWait bounds the wait for the payouts service to credit the
// delivered orders (it follows the orders' events).
const earningsWait = 2 * time.Minute

// payouts: stores whose owners ask for payouts of their earnings, moved by
// an administrator to every state. Earnings are held for the configuration's
// pendingBalanceHoldDays (7) before they can be paid out, and nothing a
// caller can do makes days pass: an administrator releases, with a wallet
// adjustment (move_pending_to_available, recorded in the ledger with its
// reason), what the store's payouts need.
func (s *seeder) payouts(ctx context.Context) error {
	n := len(s.plan.Payouts)
	s.payoutFils = make([]fils, n)
	var cfg struct {
		WalletSettings struct {
			MinPayoutAmount float64 `json:"minPayoutAmount"`
			MaxPayoutAmount float64 `json:"maxPayoutAmount"`
		} `json:"walletSettings"`
	}
	if err := s.c.query(ctx, s.admin, "admins.platformAdmin.getActivePlatformConfig", nil, &cfg); err != nil {
		return err
	}
	minPayout, maxPayout := filsOf(cfg.WalletSettings.MinPayoutAmount), filsOf(cfg.WalletSettings.MaxPayoutAmount)
	delivered := make([]int, len(s.plan.Stores))
	for _, o := range s.plan.Orders {
		if o.Final() == statusDelivered {
			delivered[o.Store]++
		}
	}
	byStore := map[int][]int{}
	var stores []int
	for j, p := range s.plan.Payouts {
		if byStore[p.Store] == nil {
			stores = append(stores, p.Store)
		}
		byStore[p.Store] = append(byStore[p.Store], j)
	}
	slices.Sort(stores)
	return s.phase(ctx, "wallets & payouts", n, stage{len(stores), func(ctx context.Context, k int, done func(int)) error {
		si := stores[k]
		w, err := s.walletWhenCredited(ctx, si, delivered[si])
		if err != nil {
			return err
		}
		earnings := filsOf(w.TotalEarnings)
		var total fils
		for _, j := range byStore[si] {
			p := s.plan.Payouts[j]
			amount := fils(math.Floor(float64(earnings)*p.Share/1000)) * 1000 // whole tens of AED
			s.payoutFils[j] = min(maxPayout, max(minPayout, amount))
			total += s.payoutFils[j]
		}
		if total > earnings {
			return fmt.Errorf("store %q earned %s AED, too little for its %d payouts of at least %s AED: seed more orders (SEED_ORDERS) or fewer payouts (SEED_PAYOUTS)",
				s.plan.Stores[si].Name, earnings, len(byStore[si]), minPayout)
		}
		owner := s.c.as(s.plan.Stores[si].OwnerSub)
		storeID := s.storeIDs[si]
		if _, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("payouts/store/%d/release", si), "admins.payoutOperations.adjustWalletBalance", map[string]any{
			"storeId": storeID, "walletId": w.ID, "adjustmentType": "move_pending_to_available", "amount": total, "adminUserId": adminSub,
			"reason":     "Early release of held earnings for the store's payout requests",
			"adminNotes": "Demo data: the hold period (pendingBalanceHoldDays) has not passed in a new system.",
		}, nil); err != nil && !(reasonOf(err) == "insufficient_balance" && filsOf(w.AvailableBalance) >= total) {
			return err
		}
		for _, j := range byStore[si] {
			if err := s.payout(ctx, owner, j); err != nil {
				return fmt.Errorf("payout %d: %w", j, err)
			}
			done(1)
		}
		return nil
	}})
}

// walletWhenCredited is the store's wallet once it holds the earnings of
// its delivered orders.
func (s *seeder) walletWhenCredited(ctx context.Context, si, delivered int) (walletView, error) {
	deadline := time.Now().Add(earningsWait)
	for {
		var w walletView
		if err := s.c.query(ctx, s.admin, "stores.wallet.getWallet", map[string]any{"storeId": s.storeIDs[si]}, &w); err != nil {
			return w, err
		}
		if w.TotalOrders >= delivered {
			return w, nil
		}
		if time.Now().After(deadline) {
			return w, fmt.Errorf("store %q: the wallet holds the earnings of %d orders after %s, %d were delivered (is the payouts service following the orders' events?)",
				s.plan.Stores[si].Name, w.TotalOrders, earningsWait, delivered)
		}
		if err := sleep(ctx, 250*time.Millisecond); err != nil {
			return w, err
		}
	}
}

// payout: the owner's request, then the administrator's moves to its state.
func (s *seeder) payout(ctx context.Context, owner *user, j int) error {
	p := s.plan.Payouts[j]
	var id string
	if _, err := s.c.mutate(ctx, owner, fmt.Sprintf("payout/%d", j), "stores.payouts.requestPayout", map[string]any{
		"storeId": s.storeIDs[p.Store], "amount": s.payoutFils[j],
		"bankDetails": map[string]any{"IBAN": p.IBAN, "bankName": p.BankName, "accountHolderName": p.Holder},
	}, &id); err != nil {
		return err
	}
	move := func(name string, args map[string]any) error {
		args["payoutId"], args["adminUserId"] = id, adminSub
		_, err := s.c.mutate(ctx, s.admin, fmt.Sprintf("payout/%d/%s", j, name), "admins.payoutOperations."+name, args, nil)
		return err
	}
	var steps []func() error
	approve := func() error { return move("approvePayout", map[string]any{"adminNotes": "Bank details verified."}) }
	processing := func() error {
		return move("markPayoutAsProcessing", map[string]any{"processingMethod": p.Method, "transactionReference": p.Reference})
	}
	switch p.Final {
	case payoutApproved:
		steps = []func() error{approve}
	case payoutProcessing:
		steps = []func() error{approve, processing}
	case payoutCompleted:
		steps = []func() error{approve, processing, func() error {
			return move("completePayout", map[string]any{"adminNotes": "Transfer confirmed by the bank."})
		}}
	case payoutCancelled:
		steps = []func() error{func() error { return move("rejectPayout", map[string]any{"rejectionReason": p.Reason}) }}
	case payoutFailed:
		steps = []func() error{approve, processing, func() error {
			return move("markPayoutAsFailed", map[string]any{"failureReason": p.Reason, "restoreBalance": p.Restore})
		}}
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// storeUpdates: after the orders, some owners close their stores, change
// prices (the orders keep theirs) or mark products sold out.
func (s *seeder) storeUpdates(ctx context.Context) error {
	nc := len(s.plan.Closed)
	n := nc + len(s.plan.Changes)
	return s.phase(ctx, "store updates", n, stage{n, func(ctx context.Context, i int, done func(int)) error {
		if i < nc {
			si := s.plan.Closed[i]
			if _, err := s.c.mutate(ctx, s.c.as(s.plan.Stores[si].OwnerSub), fmt.Sprintf("store/%d/close", si), "stores.catalog.updateMyStore",
				map[string]any{"storeId": s.storeIDs[si], "isOpen": false}, nil); err != nil {
				return err
			}
		} else {
			c := s.plan.Changes[i-nc]
			args := map[string]any{"productId": s.productIDs[c.Store][c.Product]}
			if c.Price > 0 {
				args["price"] = c.Price
			} else {
				args["isAvailable"] = false
			}
			if _, err := s.c.mutate(ctx, s.c.as(s.plan.Stores[c.Store].OwnerSub), fmt.Sprintf("store/%d/product/%d/change", c.Store, c.Product),
				"stores.products.updateProduct", args, nil); err != nil {
				return err
			}
		}
		done(1)
		return nil
	}})
}
