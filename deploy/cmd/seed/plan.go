package main

// The plan: everything the seed will create, drawn up front from SEED by one
// random source in one fixed order, before any call is made. The phases then
// carry it out concurrently, so the content (names, prices, choices, counts)
// depends only on SEED and the sizes, never on timing; only the ids the
// server gives differ between runs.

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	orders "marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/payouts"
)

// Sizes are how much to create.
type Sizes struct {
	Stores    int `json:"stores"`
	Customers int `json:"customers"`
	Orders    int `json:"orders"`
	Reviews   int `json:"reviews"`
	Payouts   int `json:"payouts"`
}

// FullSizes are the sizes at SEED_SCALE=1.
var FullSizes = Sizes{Stores: 30, Customers: 200, Orders: 1000, Reviews: 2000, Payouts: 18}

// Scaled are the full sizes times scale, each at least what the plan needs
// to show every kind of record (a store, two customers, every payout state).
func Scaled(scale float64) Sizes {
	n := func(full, least int) int { return max(least, int(math.Round(float64(full)*scale))) }
	return Sizes{Stores: n(FullSizes.Stores, 1), Customers: n(FullSizes.Customers, 2), Orders: n(FullSizes.Orders, 0),
		Reviews: n(FullSizes.Reviews, 0), Payouts: n(FullSizes.Payouts, len(payoutStates))}
}

func (s Sizes) check() error {
	switch {
	case s.Stores < 1:
		return fmt.Errorf("stores must be at least 1 (got %d)", s.Stores)
	case s.Customers < 2:
		return fmt.Errorf("customers must be at least 2 (got %d): reviews are voted and flagged by other customers", s.Customers)
	case s.Orders < 0 || s.Reviews < 0 || s.Payouts < 0:
		return fmt.Errorf("orders, reviews and payouts cannot be negative (got %d, %d, %d)", s.Orders, s.Reviews, s.Payouts)
	case s.Payouts > 0 && s.Orders == 0:
		return fmt.Errorf("payouts need orders: earnings come from delivered orders")
	}
	return nil
}

// Plan is the whole demo world.
type Plan struct {
	Seed      uint64
	Sizes     Sizes // as asked
	Stores    []storePlan
	Customers []customerPlan
	Orders    []orderPlan
	Reviews   []reviewPlan
	Votes     []votePlan
	Flags     []flagPlan
	Responses []responsePlan
	Edits     []editPlan
	Payouts   []payoutPlan
	Closed    []int // stores their owners close at the end
	Changes   []productChange
	Notes     []string // where the plan could not give what was asked, and why
}

type storePlan struct {
	Name, OwnerSub, OwnerName, OwnerPhone string
	Category, City, Area                  int
	Tier                                  string
	Lat, Lng                              float64
	Products                              []productPlan
	popularity, quality                   float64
}

type productPlan struct {
	Name  string
	Price fils
}

type customerPlan struct {
	Sub, Name, Phone, Email string
	Addresses               []addressPlan
	activity                float64
}

type addressPlan struct {
	Name, FullAddress, Flat, Building, Landmark string
	City, Area                                  int
	Lat, Lng                                    string
	Default                                     bool
}

type orderPlan struct {
	Customer, Store, Address int
	Lines                    []linePlan
	Delivery                 string
	DeclineFirst             bool     // the first card is declined, the second pays
	Path                     []string // the statuses the store owner moves it to, after confirmed
}

type linePlan struct{ Product, Quantity int }

// Final is the status the order ends in.
func (o orderPlan) Final() string {
	if len(o.Path) == 0 {
		return statusConfirmed
	}
	return o.Path[len(o.Path)-1]
}

type reviewPlan struct {
	Customer, Store int
	Order           int // -1: a review without an order
	Rating          int
	Title, Comment  string
	Spam            bool
}

type votePlan struct {
	Review, Customer int
	Helpful          bool
}

type flagPlan struct {
	Review, Customer    int
	Reason, Description string
	Resolution          string // "" stays pending, dismiss or hide_review
}

type responsePlan struct {
	Review  int
	Comment string
}

type editPlan struct {
	Review  int
	Rating  int
	Comment string
}

type payoutPlan struct {
	Store                  int
	Final                  string
	Share                  float64 // of the store's total earnings
	Restore                bool    // a failed payout's amount returns to the wallet
	Method, Reference      string
	BankName, Holder, IBAN string
	Reason                 string // rejection or failure reason
}

// Order and payout statuses, as the contracts name them.
const (
	statusConfirmed      = orders.StatusConfirmed
	statusPreparing      = orders.StatusPreparing
	statusOutForDelivery = orders.StatusOutForDelivery
	statusDelivered      = orders.StatusDelivered
	statusCancelled      = orders.StatusCancelled

	payoutRequested  = payouts.StatusRequested
	payoutApproved   = payouts.StatusApproved
	payoutProcessing = payouts.StatusProcessing
	payoutCompleted  = payouts.StatusCompleted
	payoutCancelled  = payouts.StatusCancelled
	payoutFailed     = payouts.StatusFailed
)

// payoutStates: the first payouts of a plan, one in every state.
var payoutStates = []string{payoutCompleted, payoutRequested, payoutApproved, payoutProcessing, payoutCancelled, payoutFailed}

type planner struct {
	r *rand.Rand
	p *Plan
}

// NewPlan draws the world for seed and sizes.
func NewPlan(seed uint64, sizes Sizes) (*Plan, error) {
	if err := sizes.check(); err != nil {
		return nil, err
	}
	g := &planner{r: rand.New(rand.NewPCG(seed, 0x6d61726b6574)), p: &Plan{Seed: seed, Sizes: sizes}}
	g.stores(sizes.Stores)
	g.customers(sizes.Customers)
	g.orders(sizes.Orders)
	g.reviews(sizes.Reviews)
	g.payouts(sizes.Payouts)
	g.touches()
	return g.p, nil
}

func (g *planner) chance(p float64) bool { return g.r.Float64() < p }

// weighted picks an index with probability proportional to its weight.
func (g *planner) weighted(weights []float64) int {
	total := 0.0
	for _, w := range weights {
		total += w
	}
	x := g.r.Float64() * total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

func pickFrom[T any](g *planner, xs []T) T { return xs[g.r.IntN(len(xs))] }

// price is a shop price in [lo, hi]: a step of 0.50, sometimes ending in .95 or .45.
func (g *planner) price(lo, hi fils) fils {
	p := lo + fils(g.r.Int64N(int64(hi-lo)/50+1))*50
	if p-5 >= lo && g.chance(0.3) {
		p -= 5
	}
	return p
}

// near is a point within about radius metres of (lat, lng), to 6 decimals.
func (g *planner) near(lat, lng, radius float64) (float64, float64) {
	dLat := (g.r.Float64()*2 - 1) * radius / 111_000
	dLng := (g.r.Float64()*2 - 1) * radius / (111_000 * math.Cos(lat*math.Pi/180))
	return round6(lat + dLat), round6(lng + dLng)
}

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func (g *planner) person() string { return pickFrom(g, firstNames) + " " + pickFrom(g, familyNames) }

func (g *planner) phone() string {
	return fmt.Sprintf("+971%s%07d", pickFrom(g, mobilePrefixes), g.r.IntN(10_000_000))
}

func cityWeights() []float64 {
	w := make([]float64, len(cities))
	for i, c := range cities {
		w[i] = c.Weight
	}
	return w
}

func (g *planner) stores(n int) {
	catWeights := make([]float64, len(categories))
	for i, c := range categories {
		catWeights[i] = c.Weight
	}
	names := map[string]bool{}
	for i := range n {
		s := storePlan{OwnerSub: fmt.Sprintf("seed%d-owner-%02d", g.p.Seed, i+1), OwnerName: g.person(), OwnerPhone: g.phone()}
		// The first stores cover every city, so even a small world has each.
		s.City = i
		if i >= len(cities) {
			s.City = g.weighted(cityWeights())
		}
		s.Category = g.weighted(catWeights)
		c, cat := cities[s.City], categories[s.Category]
		s.Area = g.r.IntN(len(c.Areas))
		area := c.Areas[s.Area]
		for try := 0; ; try++ {
			s.Name = pickFrom(g, cat.StoreNames) + " " + area.Name
			if try >= 10 {
				s.Name = fmt.Sprintf("%s %d", s.Name, i+1)
			}
			if !names[s.Name] {
				break
			}
		}
		names[s.Name] = true
		switch x := g.r.Float64(); {
		case x < 0.08:
			s.Tier = "enterprise"
		case x < 0.3:
			s.Tier = "premium"
		default:
			s.Tier = "basic"
		}
		s.Lat, s.Lng = g.near(area.Lat, area.Lng, 700)
		order := g.r.Perm(len(cat.Products))
		count := min(len(cat.Products), 6+g.r.IntN(7))
		for _, j := range order[:count] {
			pd := cat.Products[j]
			s.Products = append(s.Products, productPlan{Name: pd.Name, Price: g.price(pd.Min, pd.Max)})
		}
		s.popularity = 0.3 + g.r.ExpFloat64()
		s.quality = g.r.Float64()*2 - 1
		g.p.Stores = append(g.p.Stores, s)
	}
}

// asciiLetters keeps the letters a-z of a name, for e-mail addresses.
func asciiLetters(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (g *planner) customers(n int) {
	for i := range n {
		first, family := pickFrom(g, firstNames), pickFrom(g, familyNames)
		c := customerPlan{Sub: fmt.Sprintf("seed%d-customer-%03d", g.p.Seed, i+1), Name: first + " " + family, Phone: g.phone(),
			Email: fmt.Sprintf("%s.%s%d@example.com", asciiLetters(first), asciiLetters(family), i+1), activity: 0.1 + g.r.ExpFloat64()}
		home := g.weighted(cityWeights())
		count := 1
		if x := g.r.Float64(); x < 0.1 {
			count = 3
		} else if x < 0.4 {
			count = 2
		}
		used := map[string]bool{}
		for k := range count {
			city := home
			if k > 0 && g.chance(0.3) {
				city = g.weighted(cityWeights())
			}
			a := g.address(city)
			for used[a.Name] {
				a.Name = pickFrom(g, addressNames)
			}
			used[a.Name] = true
			if k == 0 {
				a.Name, a.Default = "Home", true
				used["Home"] = true
			}
			c.Addresses = append(c.Addresses, a)
		}
		g.p.Customers = append(g.p.Customers, c)
	}
}

func (g *planner) address(city int) addressPlan {
	c := cities[city]
	area := g.r.IntN(len(c.Areas))
	ar := c.Areas[area]
	lat, lng := g.near(ar.Lat, ar.Lng, 1200)
	a := addressPlan{Name: pickFrom(g, addressNames), City: city, Area: area, Lat: fmt.Sprintf("%.6f", lat), Lng: fmt.Sprintf("%.6f", lng),
		Landmark: "Near " + pickFrom(g, landmarks)}
	if g.chance(0.25) {
		a.Flat = fmt.Sprintf("Villa %d", 1+g.r.IntN(120))
		a.Building = fmt.Sprintf("Street %d", 1+g.r.IntN(40))
		a.FullAddress = fmt.Sprintf("%s, %s, %s, %s", a.Flat, a.Building, ar.Name, c.Name)
	} else {
		a.Flat = fmt.Sprintf("%d", (1+g.r.IntN(40))*100+1+g.r.IntN(12))
		a.Building = pickFrom(g, buildingNames) + " " + pickFrom(g, buildingWords)
		a.FullAddress = fmt.Sprintf("Flat %s, %s, %s, %s", a.Flat, a.Building, ar.Name, c.Name)
	}
	return a
}

func (g *planner) orders(n int) {
	if n == 0 {
		return
	}
	activity := make([]float64, len(g.p.Customers))
	for i, c := range g.p.Customers {
		activity[i] = c.activity
	}
	byCity := map[int][]int{}
	for i, s := range g.p.Stores {
		byCity[s.City] = append(byCity[s.City], i)
	}
	all := make([]int, len(g.p.Stores))
	for i := range all {
		all[i] = i
	}
	for range n {
		o := orderPlan{Customer: g.weighted(activity)}
		c := g.p.Customers[o.Customer]
		if len(c.Addresses) > 1 && g.chance(0.25) {
			o.Address = 1 + g.r.IntN(len(c.Addresses)-1)
		}
		// Stores of the delivery address's city; any store when it has none.
		near := byCity[c.Addresses[o.Address].City]
		if len(near) == 0 {
			near = all
		}
		weights := make([]float64, len(near))
		for k, si := range near {
			weights[k] = g.p.Stores[si].popularity
		}
		o.Store = near[g.weighted(weights)]
		st := g.p.Stores[o.Store]
		lines := 1 + g.weighted([]float64{0.25, 0.35, 0.25, 0.15})
		lines = min(lines, len(st.Products))
		expensive := categories[st.Category].Name == "Electronics" || categories[st.Category].Name == "Flowers & Gifts"
		for _, p := range g.r.Perm(len(st.Products))[:lines] {
			q := 1 + g.weighted([]float64{0.7, 0.2, 0.1})
			if expensive {
				q = 1
			}
			o.Lines = append(o.Lines, linePlan{Product: p, Quantity: q})
		}
		o.Delivery = orders.DeliveryStandard
		if g.chance(0.2) {
			o.Delivery = orders.DeliveryExpress
		}
		o.DeclineFirst = g.chance(0.03)
		full := []string{statusPreparing, statusOutForDelivery, statusDelivered}
		switch x := g.r.Float64(); {
		case x < 0.85:
			o.Path = full
		case x < 0.91: // cancelled: before preparing, while preparing, or on the way
			at := g.weighted([]float64{0.5, 0.35, 0.15})
			o.Path = append(slices.Clone(full[:at]), statusCancelled)
		case x < 0.93:
			o.Path = nil // still confirmed
		case x < 0.96:
			o.Path = full[:1]
		default:
			o.Path = full[:2]
		}
		g.p.Orders = append(g.p.Orders, o)
	}
}

// ratingFor draws a rating for a store of quality q (-1..1): most reviews
// are good, and better stores get better ones.
func (g *planner) ratingFor(q float64) int {
	base := []float64{0.06, 0.07, 0.12, 0.30, 0.45}
	w := make([]float64, 5)
	for k := range base {
		w[k] = base[k] * math.Exp(q*float64(k-2)*0.6)
	}
	return 1 + g.weighted(w)
}

func (g *planner) reviews(n int) {
	if n == 0 {
		return
	}
	var delivered []int
	reviewedPair := map[[2]int]bool{} // (customer, store) with a review without an order
	for i, o := range g.p.Orders {
		if o.Final() == statusDelivered {
			delivered = append(delivered, i)
		}
	}
	// Three in four delivered orders get their review (verified purchase).
	withOrder := min(n, int(math.Round(0.75*float64(len(delivered)))))
	chosen := slices.Clone(delivered)
	g.r.Shuffle(len(chosen), func(i, j int) { chosen[i], chosen[j] = chosen[j], chosen[i] })
	chosen = chosen[:withOrder]
	slices.Sort(chosen)
	for _, oi := range chosen {
		o := g.p.Orders[oi]
		g.p.Reviews = append(g.p.Reviews, g.review(o.Customer, o.Store, oi))
	}
	// The rest: reviews without an order, at most one per customer and store
	// (verified when the customer has a delivered order of the store).
	rest := n - withOrder
	pairs := len(g.p.Customers) * len(g.p.Stores)
	if rest > pairs {
		g.p.Notes = append(g.p.Notes, fmt.Sprintf("reviews: %d asked, %d made: %d delivered orders reviewed and one review without an order per customer and store (%d)",
			n, withOrder+pairs, withOrder, pairs))
		rest = pairs
	}
	spam := 0
	if rest >= 5 {
		spam = max(1, rest/100)
	}
	for k := 0; k < rest; k++ {
		var pair [2]int
		for {
			pair = [2]int{g.r.IntN(len(g.p.Customers)), g.r.IntN(len(g.p.Stores))}
			if !reviewedPair[pair] {
				break
			}
			if len(reviewedPair) > pairs/2 { // dense: walk to the next free pair
				for reviewedPair[pair] {
					idx := (pair[0]*len(g.p.Stores) + pair[1] + 1) % pairs
					pair = [2]int{idx / len(g.p.Stores), idx % len(g.p.Stores)}
				}
				break
			}
		}
		reviewedPair[pair] = true
		r := g.review(pair[0], pair[1], -1)
		if k < spam {
			r.Rating, r.Title, r.Comment, r.Spam = 5, "Great deals", pickFrom(g, spamComments), true
		}
		g.p.Reviews = append(g.p.Reviews, r)
	}
	g.reviewActivity()
}

func (g *planner) review(customer, store, order int) reviewPlan {
	r := reviewPlan{Customer: customer, Store: store, Order: order, Rating: g.ratingFor(g.p.Stores[store].quality)}
	hasTitle, hasComment := g.chance(0.85), g.chance(0.9)
	if !hasTitle && !hasComment {
		hasComment = true
	}
	if hasTitle {
		r.Title = pickFrom(g, reviewTitles[r.Rating])
	}
	if hasComment {
		r.Comment = pickFrom(g, reviewComments[r.Rating])
	}
	return r
}

// others are n distinct customers other than not.
func (g *planner) others(n, not int) []int {
	var out []int
	for _, c := range g.r.Perm(len(g.p.Customers)) {
		if len(out) == n {
			break
		}
		if c != not {
			out = append(out, c)
		}
	}
	return out
}

func (g *planner) reviewActivity() {
	flagged := 0
	for i, r := range g.p.Reviews {
		if r.Spam {
			// Reported as spam by two customers; a moderator hides it.
			for k, c := range g.others(2, r.Customer) {
				f := flagPlan{Review: i, Customer: c, Reason: "spam", Description: "Advertising, not a review."}
				if k == 0 {
					f.Resolution = "hide_review"
				}
				g.p.Flags = append(g.p.Flags, f)
			}
			continue
		}
		votes := g.weighted([]float64{0.35, 0.25, 0.15, 0.1, 0.15})
		if votes == 4 {
			votes = 4 + g.r.IntN(5)
		}
		for _, c := range g.others(votes, r.Customer) {
			p := 0.8
			if r.Rating < 3 {
				p = 0.55
			}
			g.p.Votes = append(g.p.Votes, votePlan{Review: i, Customer: c, Helpful: g.chance(p)})
		}
		if g.chance(0.03) || (flagged == 0 && i >= len(g.p.Reviews)/2) { // at least one report
			fr := pickFrom(g, flagReasons)
			f := flagPlan{Review: i, Customer: g.others(1, r.Customer)[0], Reason: fr.Reason, Description: fr.Description}
			// The first report waits for a moderator, the second is dismissed,
			// the others either.
			if flagged == 1 || (flagged > 1 && g.chance(0.4)) {
				f.Resolution = "dismiss"
			}
			g.p.Flags = append(g.p.Flags, f)
			flagged++
		}
		respond := 0.2
		switch {
		case r.Rating <= 2:
			respond = 0.7
		case r.Rating == 3:
			respond = 0.45
		}
		if g.chance(respond) {
			g.p.Responses = append(g.p.Responses, responsePlan{Review: i, Comment: pickFrom(g, storeResponses[r.Rating])})
		}
		if r.Rating <= 3 && r.Order >= 0 && g.chance(0.15) {
			g.p.Edits = append(g.p.Edits, editPlan{Review: i, Rating: r.Rating + 1,
				Comment: strings.TrimSpace(r.Comment + " Update: the store called me and sorted it out.")})
		}
	}
}

// iban is a valid UAE IBAN of the bank with code bank.
func (g *planner) iban(bank string) string {
	account := fmt.Sprintf("%016d", g.r.Int64N(1e16))
	bban := bank + account
	// ISO 13616: check digits = 98 - (BBAN + "AE00" as digits) mod 97.
	r := 0
	for _, c := range bban + "AE00" {
		if c >= 'A' && c <= 'Z' {
			r = (r*100 + int(c-'A') + 10) % 97
		} else {
			r = (r*10 + int(c-'0')) % 97
		}
	}
	return fmt.Sprintf("AE%02d%s", 98-r, bban)
}

// Payout sizes the plan assumes: the configuration's default minimum payout,
// and a floor of a store's earnings from an order (its subtotal less 8% and
// 4 AED: more than the commission at the highest rate and fixed fee the
// configuration has after the seed, even on the delivery fee).
const (
	planMinPayout = fils(100_00)
	// payoutShare of a store's earnings is paid out, split among its payouts;
	// payoutRoom of them bounds how many minimum payouts it may have, so
	// that the payouts raised to the minimum still fit in its earnings.
	payoutShare = 0.6
	payoutRoom  = 0.4
)

func (g *planner) payouts(n int) {
	if n == 0 {
		return
	}
	// The least each store earns from its delivered orders.
	earns := make([]float64, len(g.p.Stores))
	for _, o := range g.p.Orders {
		if o.Final() != statusDelivered {
			continue
		}
		var subtotal fils
		for _, l := range o.Lines {
			subtotal += g.p.Stores[o.Store].Products[l.Product].Price * fils(l.Quantity)
		}
		earns[o.Store] += 0.92*float64(subtotal) - 400
	}
	room := make([]int, len(g.p.Stores))
	ranked := make([]int, 0, len(g.p.Stores))
	for i, e := range earns {
		if room[i] = int(payoutRoom * e / float64(planMinPayout)); room[i] > 0 {
			ranked = append(ranked, i)
		}
	}
	// The stores that earned most request them, two each while they can.
	slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(earns[b], earns[a]) })
	top := ranked[:min(len(ranked), (n+1)/2)]
	per := map[int]int{}
	var stores []int
	for j := 0; j < n; j++ {
		st := -1
		for k := range len(top) {
			if cand := top[(j+k)%len(top)]; per[cand] < room[cand] {
				st = cand
				break
			}
		}
		for k := 0; st < 0 && k < len(ranked); k++ { // the top stores have no room left: the others
			if per[ranked[k]] < room[ranked[k]] {
				st = ranked[k]
			}
		}
		if st < 0 {
			g.p.Notes = append(g.p.Notes, fmt.Sprintf("payouts: %d asked, %d made: the delivered orders at this size earn no more payouts of %s AED", n, j, planMinPayout))
			break
		}
		per[st]++
		stores = append(stores, st)
	}
	for j, st := range stores {
		p := payoutPlan{Store: st}
		if j < len(payoutStates) {
			p.Final = payoutStates[j]
		} else {
			p.Final = payoutStates[g.weighted([]float64{0.4, 0.2, 0.1, 0.1, 0.1, 0.1})]
		}
		bank := pickFrom(g, banks)
		p.BankName, p.IBAN = bank.Name, g.iban(bank.Code)
		p.Holder = g.p.Stores[st].OwnerName
		p.Method = []string{"bank_transfer", "manual", "third_party"}[g.weighted([]float64{0.8, 0.1, 0.1})]
		p.Reference = fmt.Sprintf("FT%010d", g.r.Int64N(1e10))
		switch p.Final {
		case payoutFailed:
			p.Reason = pickFrom(g, failureReasons)
			p.Restore = j < len(payoutStates) || g.chance(0.5)
		case payoutCancelled:
			p.Reason = pickFrom(g, rejectionReasons)
		}
		p.Share = payoutShare / float64(per[st]) * (0.7 + 0.3*g.r.Float64())
		g.p.Payouts = append(g.p.Payouts, p)
	}
}

type productChange struct {
	Store, Product int
	Price          fils // 0: made unavailable instead
}

// touches: what changes after the orders: some stores close, some prices
// change (orders keep theirs), some products run out.
func (g *planner) touches() {
	if n := len(g.p.Stores); n >= 2 {
		for _, s := range g.r.Perm(n)[:max(1, n/15)] {
			g.p.Closed = append(g.p.Closed, s)
		}
		slices.Sort(g.p.Closed)
	}
	for si, s := range g.p.Stores {
		for pi, pr := range s.Products {
			switch x := g.r.Float64(); {
			case x < 0.05 || (si == 0 && pi == 0):
				change := 0.9 + 0.2*g.r.Float64()
				price := max(fils(100), fils(math.Round(float64(pr.Price)*change/50))*50)
				if price == pr.Price {
					price += 50
				}
				g.p.Changes = append(g.p.Changes, productChange{Store: si, Product: pi, Price: price})
			case x < 0.08 || (si == 0 && pi == 1):
				g.p.Changes = append(g.p.Changes, productChange{Store: si, Product: pi})
			}
		}
	}
}
