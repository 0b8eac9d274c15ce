package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Summary is what a run made and how to look at it: printed for people on
// stderr and as one JSON line on stdout.
type Summary struct {
	Seed           uint64   `json:"seed"`
	BaseURL        string   `json:"baseUrl"`
	Continued      bool     `json:"continued"` // an earlier run with this SEED was continued
	ElapsedSeconds float64  `json:"elapsedSeconds"`
	Counts         Counts   `json:"counts"`
	Calls          Calls    `json:"calls"`
	Users          []Login  `json:"users"`
	Try            []Try    `json:"try"`
	Notes          []string `json:"notes,omitempty"`
}

// Counts are the records the run made (or found made by the run it continued).
type Counts struct {
	Categories      int            `json:"categories"`
	Cities          int            `json:"cities"`
	Areas           int            `json:"areas"`
	Stores          int            `json:"stores"`
	ClosedStores    int            `json:"closedStores"`
	Products        int            `json:"products"`
	PriceChanges    int            `json:"priceChanges"`
	SoldOut         int            `json:"soldOut"`
	Customers       int            `json:"customers"`
	Addresses       int            `json:"addresses"`
	Orders          int            `json:"orders"`
	OrdersByStatus  map[string]int `json:"ordersByStatus"`
	DeclinedCards   int            `json:"declinedCards"`
	Reviews         int            `json:"reviews"`
	Votes           int            `json:"votes"`
	Flags           int            `json:"flags"`
	FlagsDecided    int            `json:"flagsDecided"`
	StoreResponses  int            `json:"storeResponses"`
	ReviewEdits     int            `json:"reviewEdits"`
	Payouts         int            `json:"payouts"`
	PayoutsByStatus map[string]int `json:"payoutsByStatus"`
}

// Calls counts the API calls of the run.
type Calls struct {
	Total       int64 `json:"total"`
	Replayed    int64 `json:"replayed"`    // answered from an earlier run's kept outcome
	Retried     int64 `json:"retried"`     // sent again after a transient failure
	RateLimited int64 `json:"rateLimited"` // answered 429 by the gateway
	RepaidOrder int64 `json:"repaidOrders"`
}

// Login is a ready-to-use development token.
type Login struct {
	Role  string `json:"role"` // admin, storeOwner, customer
	Env   string `json:"env"`  // the shell variable the calls use
	Sub   string `json:"sub"`
	Token string `json:"token"`
	About string `json:"about"`
}

// Try is a call to make next, a shell command as printed.
type Try struct {
	About   string `json:"about"`
	Command string `json:"command"`
}

func (s *seeder) counts() Counts {
	p := s.plan
	c := Counts{Categories: len(categories), Cities: len(cities), Stores: len(p.Stores), ClosedStores: len(p.Closed),
		Customers: len(p.Customers), Orders: len(p.Orders), OrdersByStatus: map[string]int{}, Reviews: len(p.Reviews), Votes: len(p.Votes),
		Flags: len(p.Flags), StoreResponses: len(p.Responses), ReviewEdits: len(p.Edits), Payouts: len(p.Payouts), PayoutsByStatus: map[string]int{}}
	for _, ct := range cities {
		c.Areas += len(ct.Areas)
	}
	for _, st := range p.Stores {
		c.Products += len(st.Products)
	}
	for _, ch := range p.Changes {
		if ch.Price > 0 {
			c.PriceChanges++
		} else {
			c.SoldOut++
		}
	}
	for _, cu := range p.Customers {
		c.Addresses += len(cu.Addresses)
	}
	for _, o := range p.Orders {
		c.OrdersByStatus[o.Final()]++
		if o.DeclineFirst {
			c.DeclinedCards++
		}
	}
	for _, f := range p.Flags {
		if f.Resolution != "" {
			c.FlagsDecided++
		}
	}
	for _, po := range p.Payouts {
		c.PayoutsByStatus[po.Final]++
	}
	return c
}

// showcase are the customer with the most orders and the open store with
// the most orders.
func (s *seeder) showcase() (customer, store int) {
	perCustomer, perStore := make([]int, len(s.plan.Customers)), make([]int, len(s.plan.Stores))
	for _, o := range s.plan.Orders {
		perCustomer[o.Customer]++
		perStore[o.Store]++
	}
	closed := map[int]bool{}
	for _, si := range s.plan.Closed {
		closed[si] = true
	}
	store = -1
	for i, n := range perStore {
		if !closed[i] && (store < 0 || n > perStore[store]) {
			store = i
		}
	}
	if store < 0 {
		store = 0
	}
	for i, n := range perCustomer {
		if n > perCustomer[customer] {
			customer = i
		}
	}
	return customer, store
}

func (s *seeder) summary() *Summary {
	ci, si := s.showcase()
	cust, st := s.plan.Customers[ci], s.plan.Stores[si]
	orders := 0
	for _, o := range s.plan.Orders {
		if o.Customer == ci {
			orders++
		}
	}
	sum := &Summary{Seed: s.cfg.Seed, BaseURL: s.c.base, Continued: s.resumed, ElapsedSeconds: time.Since(s.start).Seconds(), Counts: s.counts(),
		Calls: Calls{Total: s.c.n.calls.Load(), Replayed: s.c.n.replayed.Load(), Retried: s.c.n.retried.Load(), RateLimited: s.c.n.rateLimited.Load(),
			RepaidOrder: s.retriedPays.Load()},
		Notes: s.plan.Notes,
		Users: []Login{
			{Role: "admin", Env: "ADMIN_TOKEN", Sub: s.admin.Sub, Token: s.admin.Token, About: "administrator"},
			{Role: "storeOwner", Env: "OWNER_TOKEN", Sub: st.OwnerSub, Token: s.c.as(st.OwnerSub).Token,
				About: fmt.Sprintf("owner of %s (%s)", st.Name, s.storeIDs[si])},
			{Role: "customer", Env: "CUSTOMER_TOKEN", Sub: cust.Sub, Token: s.c.as(cust.Sub).Token,
				About: fmt.Sprintf("%s (%s), %d orders", cust.Name, s.customerIDs[ci], orders)},
		},
	}
	area := cities[st.City].Areas[st.Area]
	call := func(about, kind, token, path, args string) {
		auth := ""
		if token != "" {
			auth = ` -H "Authorization: Bearer $` + token + `"`
		}
		sum.Try = append(sum.Try, Try{About: about,
			Command: fmt.Sprintf(`curl -s %s/api/%s%s -d '{"path":"%s","args":%s}'`, s.c.base, kind, auth, path, args)})
	}
	storeID := s.storeIDs[si]
	call(fmt.Sprintf("open stores near %s, nearest first (no token needed)", area.Name), "query", "", "catalog.stores.searchNearby",
		fmt.Sprintf(`{"latitude":%g,"longitude":%g}`, st.Lat, st.Lng))
	call(fmt.Sprintf("the most helpful reviews of %s", st.Name), "query", "", "stores.reviews.getStoreReviews",
		fmt.Sprintf(`{"storeId":"%s","sortBy":"most_helpful","paginationOpts":{"numItems":3}}`, storeID))
	call("the customer's latest orders", "query", "CUSTOMER_TOKEN", "customers.orders.getMyOrders", `{"paginationOpts":{"numItems":3}}`)
	call("the customer's addresses", "query", "CUSTOMER_TOKEN", "customers.addresses.getCustomerAddresses", `{}`)
	status := statusDelivered // the store's orders of a status it has, in progress ones first
	for _, want := range []string{statusPreparing, statusOutForDelivery, statusConfirmed} {
		if slices.ContainsFunc(s.plan.Orders, func(o orderPlan) bool { return o.Store == si && o.Final() == want }) {
			status = want
			break
		}
	}
	call(fmt.Sprintf("the store's %s orders", strings.ReplaceAll(status, "_", " ")), "query", "OWNER_TOKEN", "stores.orders.listStoreOrders",
		fmt.Sprintf(`{"storeId":"%s","status":"%s","paginationOpts":{"numItems":5}}`, storeID, status))
	call("the store's wallet", "query", "OWNER_TOKEN", "stores.wallet.getWallet", fmt.Sprintf(`{"storeId":"%s"}`, storeID))
	call("payouts waiting for an administrator", "query", "ADMIN_TOKEN", "admins.payoutOperations.getPendingPayouts", `{}`)
	call("reported reviews waiting for a moderator", "query", "ADMIN_TOKEN", "admins.reviewModeration.listFlags",
		`{"status":"pending","paginationOpts":{"numItems":5}}`)
	return sum
}

// print writes the summary as one JSON line on machine (stdout, where every
// line is JSON), then for people on human (stderr).
func (sum *Summary) print(human, machine io.Writer) error {
	c := sum.Counts
	var b strings.Builder
	mode := ""
	if sum.Continued {
		mode = ", continuing an earlier run"
	}
	fmt.Fprintf(&b, "\nDemo data ready in %s (SEED=%d%s):\n", time.Duration(sum.ElapsedSeconds*float64(time.Second)).Round(100*time.Millisecond), sum.Seed, mode)
	fmt.Fprintf(&b, "  %d categories, %d cities, %d areas; %d stores (%d closed) with %d products (%d repriced, %d sold out)\n",
		c.Categories, c.Cities, c.Areas, c.Stores, c.ClosedStores, c.Products, c.PriceChanges, c.SoldOut)
	fmt.Fprintf(&b, "  %d customers with %d addresses; %d orders paid through the processor simulator (%s; %d first declined)\n",
		c.Customers, c.Addresses, c.Orders, byStatus(c.OrdersByStatus, []string{statusDelivered, statusCancelled, statusOutForDelivery, statusPreparing, statusConfirmed}), c.DeclinedCards)
	fmt.Fprintf(&b, "  %d reviews, %d votes, %d flags (%d decided), %d store responses, %d edits\n",
		c.Reviews, c.Votes, c.Flags, c.FlagsDecided, c.StoreResponses, c.ReviewEdits)
	fmt.Fprintf(&b, "  %d payouts (%s)\n", c.Payouts, byStatus(c.PayoutsByStatus, payoutStates))
	fmt.Fprintf(&b, "  %d API calls (%d answered from an earlier run, %d retried, %d rate-limited)\n",
		sum.Calls.Total, sum.Calls.Replayed, sum.Calls.Retried, sum.Calls.RateLimited)
	for _, n := range sum.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	b.WriteString("\nSign in as (development tokens, valid 24 h):\n")
	for _, u := range sum.Users {
		fmt.Fprintf(&b, "export %s=%s  # %s: %s\n", u.Env, u.Token, u.Sub, u.About)
	}
	b.WriteString("\nTry next:\n")
	for _, t := range sum.Try {
		fmt.Fprintf(&b, "# %s\n%s\n", t.About, t.Command)
	}
	if machine != nil { // first, so that people see their part last
		line, err := json.Marshal(sum)
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintln(machine, string(line)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(human, b.String())
	return err
}

func byStatus(m map[string]int, order []string) string {
	var parts []string
	for _, st := range order {
		if m[st] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", m[st], strings.ReplaceAll(st, "_", " ")))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
