package domain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
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
	if CleanText(nil) != nil || *CleanText(str("  hi \n")) != "hi" || *CleanText(str(" \t ")) != "" {
		t.Fatal("cleanText")
	}
	if CheckContent("", "") == nil || CheckContent("t", "") != nil || CheckContent("", "c") != nil {
		t.Fatal("checkContent")
	}
}

func TestVerification(t *testing.T) {
	// The author's order ord_c of the store, confirmed; delivered orders
	// ord_a and ord_b.
	cited := Purchase{OrderID: "ord_c", OrderExists: true, OrderOfCustomer: true, OrderOfStore: true, OrderStatus: "confirmed"}
	with := func(p Purchase, f func(p *Purchase)) Purchase { f(&p); return p }
	uses := func(kv ...any) map[string]Use {
		m := map[string]Use{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(Use)
		}
		return m
	}
	implicit := func(id string) Use { return Use{ReviewID: id} }
	citing := func(id string) Use { return Use{ReviewID: id, Cited: true} }
	ab := []string{"ord_a", "ord_b"}
	citeA := with(cited, func(p *Purchase) { p.OrderID, p.OrderStatus, p.Delivered = "ord_a", "delivered", ab })
	cases := []struct {
		name string
		p    Purchase
		want Verdict
		code apperr.Code
	}{
		// Who may review, and which order may be cited.
		{"the store's owner", Purchase{OwnStore: true, Delivered: ab}, Verdict{}, apperr.PermissionDenied},
		{"the store's owner citing their order", with(cited, func(p *Purchase) { p.OwnStore = true }), Verdict{}, apperr.PermissionDenied},
		{"the store's owner citing a missing order", Purchase{OwnStore: true, OrderID: "ord_x"}, Verdict{}, apperr.PermissionDenied},
		{"missing order", Purchase{OrderID: "ord_x"}, Verdict{}, apperr.NotFound},
		{"another customer's order", with(cited, func(p *Purchase) { p.OrderOfCustomer = false }), Verdict{}, apperr.NotFound},
		{"another customer's order of another store", with(cited, func(p *Purchase) { p.OrderOfCustomer, p.OrderOfStore = false, false }), Verdict{}, apperr.NotFound},
		{"another customer's cancelled order", with(cited, func(p *Purchase) { p.OrderOfCustomer, p.OrderStatus = false, "cancelled" }), Verdict{}, apperr.NotFound},
		{"own order of another store", with(cited, func(p *Purchase) { p.OrderOfStore = false }), Verdict{}, apperr.InvalidArgument},
		{"order already reviewed by the author", with(cited, func(p *Purchase) { p.OrderReviewed = true }), Verdict{}, apperr.AlreadyExists},
		{"order already cited by a verified review", with(cited, func(p *Purchase) { p.Uses = uses("ord_c", citing("rev_1")) }), Verdict{}, apperr.AlreadyExists},
		{"order already reviewed, and cancelled", with(cited, func(p *Purchase) { p.OrderReviewed, p.OrderStatus = true, "cancelled" }), Verdict{}, apperr.AlreadyExists},

		// Rule 2: the cited order verifies, in any status but cancelled.
		{"own confirmed order", cited, Verdict{By: "ord_c"}, ""},
		{"own pending order", with(cited, func(p *Purchase) { p.OrderStatus = "pending" }), Verdict{By: "ord_c"}, ""},
		{"own order being prepared", with(cited, func(p *Purchase) { p.OrderStatus = "preparing" }), Verdict{By: "ord_c"}, ""},
		{"own order out for delivery", with(cited, func(p *Purchase) { p.OrderStatus = "out_for_delivery" }), Verdict{By: "ord_c"}, ""},
		{"own delivered order", citeA, Verdict{By: "ord_a"}, ""},
		{"own confirmed order, every delivered order used", with(cited, func(p *Purchase) {
			p.Delivered, p.Uses = ab, uses("ord_a", implicit("rev_1"), "ord_b", citing("rev_2"))
		}), Verdict{By: "ord_c"}, ""},

		// A cancelled order never verifies.
		{"own cancelled order", with(cited, func(p *Purchase) { p.OrderStatus = "cancelled" }), Verdict{}, ""},
		{"own cancelled order, delivered orders unused", with(cited, func(p *Purchase) { p.OrderStatus, p.Delivered = "cancelled", ab }), Verdict{}, ""},
		{"own order confirmed when asked, cancelled since", with(cited, func(p *Purchase) { p.OrderCancelled = true }), Verdict{}, ""},

		// Each order verifies at most one review.
		{"own delivered order used by a review without orderId, another delivered free: it moves",
			with(citeA, func(p *Purchase) { p.Uses = uses("ord_a", implicit("rev_1")) }),
			Verdict{By: "ord_a", Move: &Move{ReviewID: "rev_1", From: "ord_a", To: "ord_b"}}, ""},
		{"own delivered order used by a review without orderId, none free",
			with(citeA, func(p *Purchase) { p.Uses = uses("ord_a", implicit("rev_1"), "ord_b", implicit("rev_2")) }), Verdict{}, ""},
		{"own delivered order used by a review without orderId, the other used by a citing one",
			with(citeA, func(p *Purchase) { p.Uses = uses("ord_a", implicit("rev_1"), "ord_b", citing("rev_2")) }), Verdict{}, ""},
		{"own delivered order used by a review without orderId, the only one",
			with(citeA, func(p *Purchase) { p.Delivered, p.Uses = []string{"ord_a"}, uses("ord_a", implicit("rev_1")) }), Verdict{}, ""},

		// Rule 3, refined: without orderId, a delivered order no verified review uses.
		{"no order, nothing delivered", Purchase{}, Verdict{}, ""},
		{"no order, confirmed orders only", Purchase{Delivered: []string{}}, Verdict{}, ""},
		{"no order, one delivered", Purchase{Delivered: []string{"ord_a"}}, Verdict{By: "ord_a"}, ""},
		{"no order, two delivered: the oldest", Purchase{Delivered: ab}, Verdict{By: "ord_a"}, ""},
		{"no order, the oldest used", Purchase{Delivered: ab, Uses: uses("ord_a", implicit("rev_1"))}, Verdict{By: "ord_b"}, ""},
		{"no order, the one delivered used", Purchase{Delivered: []string{"ord_a"}, Uses: uses("ord_a", implicit("rev_1"))}, Verdict{}, ""},
		{"no order, the one delivered cited by a verified review", Purchase{Delivered: []string{"ord_a"}, Uses: uses("ord_a", citing("rev_1"))}, Verdict{}, ""},
		{"no order, a confirmed order used, one delivered free", Purchase{Delivered: []string{"ord_a"}, Uses: uses("ord_c", citing("rev_1"))}, Verdict{By: "ord_a"}, ""},
		{"no order, both delivered used", Purchase{Delivered: ab, Uses: uses("ord_a", implicit("rev_1"), "ord_b", citing("rev_2"))}, Verdict{}, ""},

		// Verified reviews from before reviews named their order: each keeps
		// a delivered order no other review uses.
		{"no order, two delivered, one unnamed review", Purchase{Delivered: ab, Unnamed: 1}, Verdict{By: "ord_a"}, ""},
		{"no order, two delivered, two unnamed reviews", Purchase{Delivered: ab, Unnamed: 2}, Verdict{}, ""},
		{"no order, two delivered, one used, one unnamed", Purchase{Delivered: ab, Uses: uses("ord_a", citing("rev_1")), Unnamed: 1}, Verdict{}, ""},
		{"own delivered order, the only one, one unnamed review", with(citeA, func(p *Purchase) { p.Delivered, p.Unnamed = []string{"ord_a"}, 1 }), Verdict{}, ""},
		{"own delivered order, another free, one unnamed review", with(citeA, func(p *Purchase) { p.Unnamed = 1 }), Verdict{By: "ord_a"}, ""},
		{"own confirmed order, unnamed reviews on every delivered order", with(cited, func(p *Purchase) { p.Delivered, p.Unnamed = ab, 2 }), Verdict{By: "ord_c"}, ""},
		{"own delivered order used without orderId, the other kept by an unnamed review",
			with(citeA, func(p *Purchase) { p.Uses, p.Unnamed = uses("ord_a", implicit("rev_1")), 1 }), Verdict{}, ""},
		{"own delivered order used without orderId, a third free besides the unnamed review's",
			with(citeA, func(p *Purchase) {
				p.Delivered, p.Uses, p.Unnamed = []string{"ord_a", "ord_b", "ord_d"}, uses("ord_a", implicit("rev_1")), 1
			}), Verdict{By: "ord_a", Move: &Move{ReviewID: "rev_1", From: "ord_a", To: "ord_b"}}, ""},
	}
	for _, c := range cases {
		got, err := Verification(c.p)
		var code apperr.Code
		if err != nil {
			code = apperr.CodeOf(err)
		}
		if got.By != c.want.By || !reflect.DeepEqual(got.Move, c.want.Move) || code != c.code {
			t.Errorf("%s: %+v (move %+v), error %v; want %+v (move %+v), %q", c.name, got, got.Move, err, c.want, c.want.Move, c.code)
		}
		if got.Verified() != (c.want.By != "") {
			t.Errorf("%s: Verified() = %v", c.name, got.Verified())
		}
	}
	// A missing order and another customer's answer exactly alike.
	_, e1 := Verification(Purchase{OrderID: "ord_c"})
	_, e2 := Verification(with(cited, func(p *Purchase) { p.OrderOfCustomer = false }))
	if e1.Error() != e2.Error() || apperr.From(e1).Details != nil || apperr.From(e2).Details != nil {
		t.Errorf("a missing order answers %q, another customer's %q", e1, e2)
	}
}

// TestVerificationSequences writes, withdraws and deletes reviews of one
// customer and store at random, applying each verdict as addReview does
// (moves included), and checks after every step what the rules promise:
// each order verifies at most one review; a review citing an order is
// verified by that order only; one without orderId only by a delivered one;
// a cancelled order verifies nothing; and a review is refused or unverified
// only when the rules say so.
func TestVerificationSequences(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 4))
	for round := 0; round < 300; round++ {
		type review struct {
			cited, by string
		}
		orders := []string{"ord_0", "ord_1", "ord_2", "ord_3", "ord_4"}
		status := map[string]string{}
		for _, o := range orders {
			status[o] = []string{"confirmed", "delivered", "delivered", "out_for_delivery"}[rng.IntN(4)]
		}
		reviews := map[string]*review{}
		n := 0
		facts := func(cited string) Purchase {
			p := Purchase{OrderID: cited, Uses: map[string]Use{}, Delivered: []string{}}
			if cited != "" {
				p.OrderExists, p.OrderOfCustomer, p.OrderOfStore, p.OrderStatus = true, true, true, status[cited]
			}
			for _, o := range orders {
				if status[o] == "delivered" {
					p.Delivered = append(p.Delivered, o)
				}
			}
			for id, r := range reviews {
				if r.cited == cited && cited != "" {
					p.OrderReviewed = true
				}
				if r.by != "" {
					p.Uses[r.by] = Use{ReviewID: id, Cited: r.by == r.cited}
				}
			}
			return p
		}
		for step := 0; step < 25; step++ {
			switch k := rng.IntN(10); {
			case k < 6: // a review, citing an order or not
				cited := ""
				if rng.IntN(2) == 0 {
					cited = orders[rng.IntN(len(orders))]
				}
				p := facts(cited)
				v, err := Verification(p)
				if err != nil {
					if apperr.CodeOf(err) != apperr.AlreadyExists || !p.OrderReviewed {
						t.Fatalf("round %d: %v for %+v", round, err, p)
					}
					continue
				}
				free := freeDelivered(p.Delivered, p.Uses, cited)
				switch {
				case cited != "" && status[cited] == "cancelled":
					if v.Verified() {
						t.Fatalf("round %d: cancelled %s verified a review", round, cited)
					}
				case cited != "":
					_, used := p.Uses[cited]
					if v.Verified() != (!used || len(free) > 0) {
						t.Fatalf("round %d: citing %s (used %v, free %v): %+v", round, cited, used, free, v)
					}
				default:
					if v.Verified() != (len(free) > 0) {
						t.Fatalf("round %d: without orderId (free %v): %+v", round, free, v)
					}
				}
				n++
				id := fmt.Sprintf("rev_%d", n)
				if m := v.Move; m != nil {
					if r := reviews[m.ReviewID]; r == nil || r.by != m.From || r.cited != "" {
						t.Fatalf("round %d: move %+v of %+v", round, m, r)
					}
					reviews[m.ReviewID].by = m.To
				}
				reviews[id] = &review{cited: cited, by: v.By}
			case k < 8: // a review deleted: its order is free
				for id := range reviews {
					delete(reviews, id)
					break
				}
			default: // an order cancelled (if not delivered): its review loses it
				o := orders[rng.IntN(len(orders))]
				if status[o] != "delivered" {
					status[o] = "cancelled"
					for _, r := range reviews {
						if r.by == o {
							r.by = ""
						}
					}
				}
			}
			used := map[string]bool{}
			for id, r := range reviews {
				switch {
				case r.by == "":
				case used[r.by]:
					t.Fatalf("round %d: order %s verifies two reviews", round, r.by)
				case status[r.by] == "cancelled":
					t.Fatalf("round %d: cancelled %s verifies %s", round, r.by, id)
				case r.cited != "" && r.by != r.cited:
					t.Fatalf("round %d: %s cites %s, verified by %s", round, id, r.cited, r.by)
				case r.cited == "" && status[r.by] != "delivered":
					t.Fatalf("round %d: %s without orderId verified by %s, %s", round, id, r.by, status[r.by])
				}
				used[r.by] = r.by != ""
			}
		}
	}
}
