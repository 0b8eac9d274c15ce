package reviews

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"marketplace/libs/apperr"
)

func TestWilsonOrdersByConfidence(t *testing.T) {
	// Higher first, as most_helpful ranks them.
	ranked := []struct{ helpful, notHelpful int }{
		{100, 0},
		{30, 2}, // many votes, mostly helpful
		{10, 0},
		{3, 0}, // few votes, all helpful: below 30/2
		{5, 5},
		{1, 0},
		{1, 1},
		{0, 0}, // no votes, or none helpful: 0
	}
	for i := 1; i < len(ranked); i++ {
		a, b := ranked[i-1], ranked[i]
		if wa, wb := Wilson(a.helpful, a.notHelpful), Wilson(b.helpful, b.notHelpful); !(wa > wb) {
			t.Errorf("Wilson(%d,%d)=%.4f should rank above Wilson(%d,%d)=%.4f", a.helpful, a.notHelpful, wa, b.helpful, b.notHelpful, wb)
		}
	}
}

func TestWilsonValues(t *testing.T) {
	cases := []struct {
		helpful, notHelpful int
		want                float64
	}{
		{0, 0, 0},
		{0, 5, 0},
		{3, 0, 0.4385},   // (1 + z²/6 - z·sqrt(z²/12/3)) / (1 + z²/3)
		{30, 2, 0.7985},  // the example: above 3/0
		{50, 50, 0.4038}, // half, with many votes: near 0.5 from below
	}
	for _, c := range cases {
		if got := Wilson(c.helpful, c.notHelpful); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("Wilson(%d,%d) = %.4f, want %.4f", c.helpful, c.notHelpful, got, c.want)
		}
	}
	for h := 0; h <= 40; h++ {
		for n := 0; n <= 40; n++ {
			w := Wilson(h, n)
			if w < 0 || w > 1 || (h+n > 0 && w > float64(h)/float64(h+n)) {
				t.Fatalf("Wilson(%d,%d) = %v: outside [0, share of helpful]", h, n, w)
			}
			if h < 40 && Wilson(h+1, n) <= w {
				t.Fatalf("one more helpful vote did not raise Wilson(%d,%d)", h, n)
			}
		}
	}
}

func TestBayesianAverage(t *testing.T) {
	cases := []struct {
		count, sum int64
		want       float64
	}{
		{0, 0, PriorMean},
		{1, 5, (PriorReviews*PriorMean + 5) / (PriorReviews + 1)},
		{100, 450, (PriorReviews*PriorMean + 450) / (PriorReviews + 100)},
	}
	for _, c := range cases {
		if got := BayesianAverage(c.count, c.sum); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("BayesianAverage(%d,%d) = %v, want %v", c.count, c.sum, got, c.want)
		}
	}
	// One five-star review ranks below a hundred reviews averaging 4.5.
	if BayesianAverage(1, 5) >= BayesianAverage(100, 450) {
		t.Fatal("a single 5-star review outranks a hundred reviews of 4.5")
	}
	// With many reviews the store's own mean dominates.
	if got := BayesianAverage(100_000, 420_000); math.Abs(got-4.2) > 0.001 {
		t.Fatalf("BayesianAverage of 100,000 reviews averaging 4.2 = %v", got)
	}
}

func TestDeltas(t *testing.T) {
	var s Stats
	s = s.Apply(Add(5, true)).Apply(Add(3, false)).Apply(Add(5, false))
	want := Stats{Count: 3, Sum: 13, Verified: 1, Stars: [6]int64{0, 0, 0, 1, 0, 2}}
	if s != want {
		t.Fatalf("after three adds: %+v", s)
	}
	s = s.Apply(Rerate(5, 1))
	want = Stats{Count: 3, Sum: 9, Verified: 1, Stars: [6]int64{0, 1, 0, 1, 0, 1}}
	if s != want {
		t.Fatalf("after a rerate: %+v", s)
	}
	s = s.Apply(Remove(3, false)).Apply(Remove(1, true))
	want = Stats{Count: 1, Sum: 5, Verified: 0, Stars: [6]int64{0, 0, 0, 0, 0, 1}}
	if s != want {
		t.Fatalf("after two removes: %+v", s)
	}
	if !Rerate(4, 4).Zero() || Add(2, false).Zero() {
		t.Fatal("Zero")
	}
	if s.Average() != 5 || (Stats{}).Average() != 0 {
		t.Fatal("Average")
	}
	inc := Rerate(2, 4).inc()
	if len(inc) != 3 || inc["sum"] != 2 || inc["star2"] != -1 || inc["star4"] != 1 {
		t.Fatalf("inc = %v", inc)
	}
}

// TestDeltasEqualRecount: any sequence of adds, edits, deletes, hides and
// shows, applied as the service applies them, leaves the statistics equal to
// a recount of the reviews.
func TestDeltasEqualRecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for run := 0; run < 200; run++ {
		var reviews []RatedReview
		var s Stats
		for step := 0; step < 100; step++ {
			op := rng.IntN(5)
			if len(reviews) == 0 {
				op = 0
			}
			switch op {
			case 0: // add
				r := RatedReview{Rating: 1 + rng.IntN(5), Verified: rng.IntN(2) == 0}
				reviews = append(reviews, r)
				s = s.Apply(Add(r.Rating, r.Verified))
			case 1: // edit the rating
				i := rng.IntN(len(reviews))
				to := 1 + rng.IntN(5)
				if !reviews[i].Hidden {
					s = s.Apply(Rerate(reviews[i].Rating, to))
				}
				reviews[i].Rating = to
			case 2: // delete
				i := rng.IntN(len(reviews))
				if !reviews[i].Hidden {
					s = s.Apply(Remove(reviews[i].Rating, reviews[i].Verified))
				}
				reviews = append(reviews[:i], reviews[i+1:]...)
			case 3: // hide
				i := rng.IntN(len(reviews))
				if !reviews[i].Hidden {
					s = s.Apply(Remove(reviews[i].Rating, reviews[i].Verified))
					reviews[i].Hidden = true
				}
			case 4: // show
				i := rng.IntN(len(reviews))
				if reviews[i].Hidden {
					s = s.Apply(Add(reviews[i].Rating, reviews[i].Verified))
					reviews[i].Hidden = false
				}
			}
			if got := Recount(reviews); got != s {
				t.Fatalf("run %d step %d: statistics %+v, recount %+v", run, step, s, got)
			}
		}
	}
}

func TestCleanTextAndContent(t *testing.T) {
	str := func(s string) *string { return &s }
	if cleanText(nil) != nil || *cleanText(str("  hi \n")) != "hi" || *cleanText(str(" \t ")) != "" {
		t.Fatal("cleanText")
	}
	if checkContent("", "") == nil || checkContent("t", "") != nil || checkContent("", "c") != nil {
		t.Fatal("checkContent")
	}
}

func TestReviewOrdersEndWithTheID(t *testing.T) {
	names := make([]string, 0, len(reviewOrders))
	for name, o := range reviewOrders {
		names = append(names, name)
		if o.name != name || o.keys[len(o.keys)-1].field != "_id" {
			t.Errorf("order %s: %+v", name, o)
		}
	}
	sort.Strings(names)
	if len(names) != 5 {
		t.Fatalf("orders %v", names)
	}
}

func TestSettingsValidate(t *testing.T) {
	for _, ok := range []string{"", "http://127.0.0.1:8080", "https://marketplace.example.com", "https://example.com/market/"} {
		if err := (&Settings{PublicBaseURL: ok}).Validate(); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"marketplace.example.com", "ftp://x", "https://", "https://x/?a=1", "http://x/#f"} {
		if err := (&Settings{PublicBaseURL: bad}).Validate(); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestVerification(t *testing.T) {
	own := Purchase{OrderID: "ord_1", OrderExists: true, OrderOfCustomer: true, OrderOfStore: true, OrderStatus: "delivered", DeliveredOrders: 1}
	with := func(f func(p *Purchase)) Purchase { p := own; f(&p); return p }
	cases := []struct {
		name     string
		p        Purchase
		verified bool
		code     apperr.Code
	}{
		{"own delivered order", own, true, ""},
		{"own delivered order, its slot already used", with(func(p *Purchase) { p.VerifiedReviews = 1 }), false, ""},
		{"own cancelled order, other orders delivered", with(func(p *Purchase) { p.OrderStatus = "cancelled"; p.DeliveredOrders = 3 }), false, ""},
		{"own pending order, one delivered order unused", with(func(p *Purchase) { p.OrderStatus = "pending" }), false, ""},
		{"own order out for delivery, other orders delivered", with(func(p *Purchase) { p.OrderStatus = "out_for_delivery"; p.DeliveredOrders = 3 }), false, ""},
		{"own pending order, nothing delivered", with(func(p *Purchase) { p.OrderStatus = "pending"; p.DeliveredOrders = 0 }), false, ""},
		{"no order, one delivered", Purchase{DeliveredOrders: 1}, true, ""},
		{"no order, one delivered, one verified review", Purchase{DeliveredOrders: 1, VerifiedReviews: 1}, false, ""},
		{"no order, five delivered, four verified", Purchase{DeliveredOrders: 5, VerifiedReviews: 4}, true, ""},
		{"no order, nothing delivered", Purchase{}, false, ""},
		{"missing order", with(func(p *Purchase) { p.OrderExists, p.OrderOfCustomer, p.OrderOfStore = false, false, false }), false, apperr.NotFound},
		{"another customer's order", with(func(p *Purchase) { p.OrderOfCustomer = false }), false, apperr.NotFound},
		{"another customer's order of another store", with(func(p *Purchase) { p.OrderOfCustomer, p.OrderOfStore = false, false }), false, apperr.NotFound},
		{"own order of another store", with(func(p *Purchase) { p.OrderOfStore = false }), false, apperr.InvalidArgument},
		{"the store's owner", Purchase{OwnStore: true, DeliveredOrders: 2}, false, apperr.PermissionDenied},
		{"the store's owner citing an order", with(func(p *Purchase) { p.OwnStore = true }), false, apperr.PermissionDenied},
	}
	for _, c := range cases {
		got, err := Verification(c.p)
		var code apperr.Code
		if err != nil {
			code = apperr.CodeOf(err)
		}
		if got != c.verified || code != c.code {
			t.Errorf("%s: verified %v, error %v; want %v, %q", c.name, got, err, c.verified, c.code)
		}
	}
	// A missing order and another customer's answer exactly alike.
	_, e1 := Verification(with(func(p *Purchase) { p.OrderExists, p.OrderOfCustomer, p.OrderOfStore = false, false, false }))
	_, e2 := Verification(with(func(p *Purchase) { p.OrderOfCustomer = false }))
	if e1.Error() != e2.Error() {
		t.Errorf("a missing order answers %q, another customer's %q", e1, e2)
	}
}

func TestVerifiedNeverOutnumberDelivered(t *testing.T) {
	// Reviews written one after another, with or without citing an order:
	// the verified ones never outnumber the delivered orders, and take
	// distinct slots 1..delivered.
	for delivered := 0; delivered <= 4; delivered++ {
		var taken []int
		for i := 0; i < 8; i++ {
			p := Purchase{DeliveredOrders: delivered, VerifiedReviews: len(taken)}
			v, err := Verification(p)
			if err != nil {
				t.Fatal(err)
			}
			if v {
				n := FreeSlot(delivered, taken)
				if n < 1 || n > delivered || slices.Contains(taken, n) {
					t.Fatalf("delivered %d, taken %v: slot %d", delivered, taken, n)
				}
				taken = append(taken, n)
			}
		}
		if len(taken) != delivered {
			t.Fatalf("%d delivered orders verified %d of 8 reviews", delivered, len(taken))
		}
	}
}

func TestFreeSlot(t *testing.T) {
	cases := []struct {
		delivered int
		taken     []int
		want      int
	}{
		{0, nil, 0},
		{1, nil, 1},
		{1, []int{1}, 0},
		{3, []int{1, 3}, 2}, // the review of slot 2 was deleted: its slot is free again
		{3, []int{2, 1, 3}, 0},
		{2, []int{5}, 1}, // a slot beyond the delivered orders (none can be) frees nothing
	}
	for _, c := range cases {
		if got := FreeSlot(c.delivered, c.taken); got != c.want {
			t.Errorf("FreeSlot(%d, %v) = %d, want %d", c.delivered, c.taken, got, c.want)
		}
	}
}
