package domain

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/customers"
)

// Pure rules of reviews, without I/O: helpfulness ranking, the statistics and
// their changes, the text of a review, the verified purchase.

// Limits of a review (the interface leaves them open; docs/adr/0073-review-content.md).
const (
	MaxTitle       = 200   // characters, one line
	MaxComment     = 5_000 // characters, newlines allowed
	MaxPhotos      = 10
	MaxDescription = 1_000 // a flag's description
	MaxResponse    = 2_000 // a store's response
	MaxAdminNotes  = 2_000
	// MaxEdits previous versions are kept on a review; older ones are dropped.
	MaxEdits = 50
)

// wilsonZ is the normal quantile of a 95 % confidence interval.
const wilsonZ = 1.96

// Wilson is the lower bound of the Wilson score interval (95 %) of the share of
// helpful votes among helpful and notHelpful: a review with few votes ranks
// below one whose many votes say the same, so 30 helpful and 2 not helpful
// (0.80) ranks above 3 and 0 (0.44). No votes is 0.
func Wilson(helpful, notHelpful int) float64 {
	n := float64(helpful + notHelpful)
	if n <= 0 || helpful <= 0 {
		return 0 // (the formula gives a rounding error's worth above 0 without helpful votes)
	}
	p := float64(helpful) / n
	z2 := wilsonZ * wilsonZ
	lower := (p + z2/(2*n) - wilsonZ*math.Sqrt((p*(1-p)+z2/(4*n))/n)) / (1 + z2/n)
	return math.Max(0, lower)
}

// The Bayesian average's prior: as if every store also had PriorReviews
// reviews of PriorMean stars. A store with few reviews is pulled towards the
// middle of the scale; with many, its own average dominates.
const (
	PriorReviews = 10
	PriorMean    = 3.0
)

// BayesianAverage ranks stores fairly across review counts:
// (PriorReviews*PriorMean + sum) / (PriorReviews + count).
func BayesianAverage(count, sum int64) float64 {
	return (PriorReviews*PriorMean + float64(sum)) / (PriorReviews + float64(count))
}

// Stats are a store's statistics over its visible reviews.
type Stats struct {
	Count    int64
	Sum      int64
	Stars    [6]int64 // Stars[r]: visible reviews of r stars (index 0 unused)
	Verified int64
}

// Average is the mean rating, 0 without reviews.
func (s Stats) Average() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.Sum) / float64(s.Count)
}

// Delta is a change of Stats, applied with $inc in the transaction of the
// change of the review.
type Delta Stats

// Add is the delta of a review becoming visible (created, shown again).
func Add(rating int, verified bool) Delta {
	var d Delta
	d.Count, d.Sum = 1, int64(rating)
	d.Stars[rating] = 1
	if verified {
		d.Verified = 1
	}
	return d
}

// Remove is the delta of a visible review leaving (deleted, hidden).
func Remove(rating int, verified bool) Delta {
	return Add(rating, verified).negate()
}

// Rerate is the delta of a visible review's rating changing.
func Rerate(from, to int) Delta {
	var d Delta
	if from == to {
		return d
	}
	d.Sum = int64(to - from)
	d.Stars[from], d.Stars[to] = -1, 1
	return d
}

// Unverify is the delta of a visible review losing its verified purchase
// (the order it cited was cancelled).
func Unverify() Delta { return Delta{Verified: -1} }

func (d Delta) negate() Delta {
	out := Delta{Count: -d.Count, Sum: -d.Sum, Verified: -d.Verified}
	for i := range d.Stars {
		out.Stars[i] = -d.Stars[i]
	}
	return out
}

// Zero reports a delta that changes nothing.
func (d Delta) Zero() bool { return d == Delta{} }

// Apply is s changed by d.
func (s Stats) Apply(d Delta) Stats {
	s.Count += d.Count
	s.Sum += d.Sum
	s.Verified += d.Verified
	for i := range s.Stars {
		s.Stars[i] += d.Stars[i]
	}
	return s
}

// Recount is the statistics of a set of reviews as a full count gives them
// (the oracle the deltas are tested against).
func Recount(reviews []RatedReview) Stats {
	var s Stats
	for _, r := range reviews {
		if !r.Hidden {
			s = s.Apply(Add(r.Rating, r.Verified))
		}
	}
	return s
}

// RatedReview is what the statistics read of a review.
type RatedReview struct {
	Rating   int
	Verified bool
	Hidden   bool
}

// CleanText is a title, comment or note as given: absent (nil), or trimmed
// text; white space alone reads as "" (none).
func CleanText(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}

// CheckContent holds the rule that a review has a title or a comment.
func CheckContent(title, comment string) error {
	if title == "" && comment == "" {
		return apperr.Invalid("title", "a review needs a title or a comment (or both)")
	}
	return nil
}

// Purchase is what decides a review's verified purchase (interface 2.1 rules
// 2 and 3 with the contract's section 9; docs/adr/0069-verified-purchase.md): the store's
// owner as the catalog has it now, the customers service's facts about the
// cited order and the author's delivered orders of the store, and this
// service's own records: which orders the author's verified reviews of the
// store use, and the orders it learnt (from the customers service) were
// cancelled.
type Purchase struct {
	OwnStore bool // the author owns the reviewed store

	OrderID         string // the order cited, "" for none
	OrderExists     bool   // the cited order exists...
	OrderOfCustomer bool   // ...is the author's...
	OrderOfStore    bool   // ...and of the reviewed store
	OrderStatus     string // its status, as the customers service answered
	// OrderCancelled: the customers service has confirmed to this service
	// that the cited order was cancelled (after OrderStatus was read).
	OrderCancelled bool
	// OrderReviewed: the author already has a review citing the order.
	OrderReviewed bool

	// Delivered are the author's delivered orders of the store, oldest first.
	Delivered []string
	// Uses are the orders the author's verified reviews of the store use, by
	// order id.
	Uses map[string]Use
	// Unnamed counts verified reviews written before a review named the
	// order it uses (without orderId): each uses a delivered order not named.
	Unnamed int
}

// Use is a verified review's use of an order.
type Use struct {
	ReviewID string
	Cited    bool // the review cites the order (orderId); else it took it without one
}

// Verdict is the outcome of Verification.
type Verdict struct {
	// By is the order that verifies the review, "" for an unverified review.
	By string
	// Move, when set, is a verified review without orderId that used By and
	// moves to another delivered order no review uses, so that the order a
	// review cites verifies it (rule 2) while each order still verifies one
	// review.
	Move *Move
}

// Verified reports a verified purchase.
func (v Verdict) Verified() bool { return v.By != "" }

// Move is a verified review moving from one order it uses to another.
type Move struct{ ReviewID, From, To string }

// Verification decides whether a review is a verified purchase, or refuses
// it, in this order:
//
//  1. A store's owner may not review their own store (PERMISSION_DENIED).
//  2. A cited order that does not exist or is another customer's is
//     NOT_FOUND, the same answer in both cases (another customer's order is
//     not revealed); the author's order of another store is
//     INVALID_ARGUMENT; one the author already reviewed is ALREADY_EXISTS
//     (one review per order per customer).
//  3. A cancelled order never verifies: the review is created, unverified.
//  4. The author's order of the store, in any other status (confirmed
//     included), verifies the review that cites it (rule 2), unless it
//     already verifies another of the author's reviews: each order verifies
//     at most one. When that other review took it without citing it, it
//     moves to a delivered order no review uses, if there is one, and the
//     cited order verifies the new review.
//  5. Without orderId the review is verified while the author has a
//     delivered order of the store that no verified review of theirs uses
//     (rule 3, refined), and then uses the oldest such order: one delivered
//     order gives one verified review, never several.
//
// Verified reviews from before reviews named their order (Unnamed) each keep
// one delivered order not named by the others.
func Verification(p Purchase) (Verdict, error) {
	if p.OwnStore {
		return Verdict{}, apperr.New(apperr.PermissionDenied, "you own this store: a store's owner may not review it")
	}
	if p.OrderID == "" {
		if free := freeDelivered(p.Delivered, p.Uses, ""); len(free) > p.Unnamed {
			return Verdict{By: free[0]}, nil
		}
		return Verdict{}, nil
	}
	switch {
	case !p.OrderExists || !p.OrderOfCustomer:
		return Verdict{}, ErrNoOrder(p.OrderID)
	case !p.OrderOfStore:
		return Verdict{}, apperr.Invalid("orderId", "order %s is not from this store", p.OrderID)
	case p.OrderReviewed || p.Uses[p.OrderID].Cited:
		return Verdict{}, ErrReviewedOrder(p.OrderID)
	case p.OrderCancelled || p.OrderStatus == customers.StatusCancelled:
		return Verdict{}, nil
	}
	// The delivered orders no review uses, besides the one cited: the
	// unnamed reviews keep p.Unnamed of them.
	free := freeDelivered(p.Delivered, p.Uses, p.OrderID)
	use, used := p.Uses[p.OrderID]
	switch {
	case !used && p.OrderStatus == customers.StatusDelivered && p.Unnamed > 0 && len(free) < p.Unnamed:
		return Verdict{}, nil // (an unnamed review may be the one this delivered order verifies)
	case !used:
		return Verdict{By: p.OrderID}, nil
	case len(free) > p.Unnamed:
		return Verdict{By: p.OrderID, Move: &Move{ReviewID: use.ReviewID, From: p.OrderID, To: free[0]}}, nil
	}
	return Verdict{}, nil
}

// freeDelivered are the delivered orders, in their order, that no review
// uses, except except.
func freeDelivered(delivered []string, uses map[string]Use, except string) []string {
	var out []string
	for _, id := range delivered {
		if _, used := uses[id]; !used && id != except {
			out = append(out, id)
		}
	}
	return out
}

// ErrNoOrder is the answer for a cited order that does not exist, and for one
// of another customer.
func ErrNoOrder(orderID string) error {
	return apperr.New(apperr.NotFound, "order %s does not exist", orderID)
}

// ErrReviewedOrder is the answer for a second review of one order by its
// customer (rule 5).
func ErrReviewedOrder(orderID string) error {
	return apperr.New(apperr.AlreadyExists, "you have already reviewed order %s", orderID)
}

// CheckDistinct refuses a photo given twice.
func CheckDistinct(photoIDs []string) error {
	for i, id := range photoIDs {
		if j := slices.Index(photoIDs[:i], id); j >= 0 {
			return apperr.Invalid(fmt.Sprintf("photoIds[%d]", i), "repeats photoIds[%d]", j)
		}
	}
	return nil
}

// CheckOwner is Verification's first refusal alone: a store's owner may not
// review their own store. addReview asks it before asking the customers
// service anything.
func CheckOwner(ownStore bool) error {
	_, err := Verification(Purchase{OwnStore: ownStore})
	return err
}

// CheckOrder is Verification's refusals that rest on the customers service's
// facts alone (the owner, the cited order's existence, customer and store):
// addReview asks it before the photos are claimed. The refusals that rest on
// this service's records are decided again in the review's transaction.
func CheckOrder(p Purchase) error {
	p.Uses, p.Unnamed, p.OrderReviewed, p.OrderCancelled = nil, 0, false, false
	_, err := Verification(p)
	return err
}
