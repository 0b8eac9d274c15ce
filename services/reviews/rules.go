package reviews

import (
	"math"
	"strings"

	"marketplace/libs/apperr"
	"marketplace/libs/contracts/customers"
)

// Pure rules of reviews, without I/O: helpfulness ranking, the statistics and
// their changes, the text of a review.

// Limits of a review (the interface leaves them open; decisions.md).
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

// cleanText is a title, comment or note as given: absent (nil), or trimmed
// text; white space alone reads as "" (none).
func cleanText(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	return &t
}

// checkContent holds the rule that a review has a title or a comment.
func checkContent(title, comment string) error {
	if title == "" && comment == "" {
		return apperr.Invalid("title", "a review needs a title or a comment (or both)")
	}
	return nil
}

// Purchase is what decides a review's verified purchase (decisions.md,
// Reviews): the facts of the customers service about the cited order and the
// customer's delivered orders of the store, and the customer's verified
// reviews of the store already written.
type Purchase struct {
	OrderID         string // the order cited, "" for none
	OrderExists     bool   // the cited order exists...
	OrderOfCustomer bool   // ...is the author's...
	OrderOfStore    bool   // ...and of the reviewed store
	OrderStatus     string
	DeliveredOrders int  // the author's delivered orders of the store
	VerifiedReviews int  // the author's verified reviews of the store so far
	OwnStore        bool // the author owns the reviewed store
}

// Verification decides whether a review is a verified purchase, or refuses
// it. A store's owner may not review their own store (PERMISSION_DENIED). A
// cited order that does not exist or is another customer's is NOT_FOUND, the
// same answer in both cases (another customer's order is not revealed); one
// of another store is INVALID_ARGUMENT. A cited order verifies only once it is
// delivered: a cancelled one never does, and one not delivered yet may still
// be cancelled (a review verified by it would then cite a cancelled order).
// Otherwise the review is verified while the author's verified reviews of the
// store are fewer than their delivered orders of it.
func Verification(p Purchase) (bool, error) {
	if p.OwnStore {
		return false, apperr.New(apperr.PermissionDenied, "you own this store: a store's owner may not review it")
	}
	if p.OrderID != "" {
		switch {
		case !p.OrderExists || !p.OrderOfCustomer:
			return false, ErrNoOrder(p.OrderID)
		case !p.OrderOfStore:
			return false, apperr.Invalid("orderId", "order %s is not from this store", p.OrderID)
		case p.OrderStatus != customers.StatusDelivered:
			return false, nil
		}
	}
	return p.VerifiedReviews < p.DeliveredOrders, nil
}

// ErrNoOrder is the answer for a cited order that does not exist, and for one
// of another customer.
func ErrNoOrder(orderID string) error {
	return apperr.New(apperr.NotFound, "order %s does not exist", orderID)
}

// FreeSlot is the verified slot a new verified review takes: the lowest of
// 1..delivered that no verified review of the author for the store holds
// (taken), 0 when there is none. The slot is unique per customer and store
// (an index), so of two reviews racing for the last slot one is verified.
func FreeSlot(delivered int, taken []int) int {
	used := make(map[int]bool, len(taken))
	for _, n := range taken {
		used[n] = true
	}
	for n := 1; n <= delivered; n++ {
		if !used[n] {
			return n
		}
	}
	return 0
}
