package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
	"marketplace/libs/ids"
)

// Issue 29, item 4: the interface's verified-purchase rule (section 2.1,
// rules 2 and 3) with the contract's section 9 as corrected: a review citing
// the customer's own order of the store that is not cancelled, in any status
// (confirmed included), is verified; each order verifies at most one review;
// without orderId, a delivered order no verified review of the customer uses
// verifies one review; a cancelled order never verifies, also when it is
// cancelled after the review; a store's owner may not review it; another
// customer's order is answered as a missing one.

// addReviewAnswer adds a review and returns its id and addReview's message.
func addReviewAnswer(t *testing.T, s *st.Sys, token string, args map[string]any) (id, message string) {
	t.Helper()
	var out struct {
		ReviewID string `json:"reviewId"`
		Message  string `json:"message"`
	}
	st.MustOK(t, s.Mutation(token, opAddReview, args)).Decode(t, &out)
	return out.ReviewID, out.Message
}

// verifiedOfEach is whether each review is verified, as its author (token)
// sees it.
func verifiedOfEach(t *testing.T, s *st.Sys, token string, ids ...string) []bool {
	t.Helper()
	out := make([]bool, len(ids))
	for i, id := range ids {
		r := getReview(t, s, token, id)
		if r == nil {
			t.Fatalf("review %s is gone", id)
		}
		out[i] = r.IsVerifiedPurchase
	}
	return out
}

func wantVerified(t *testing.T, what string, got []bool, want ...bool) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s: verified %v, want %v", what, got, want)
	}
}

// sameCounts: no review was added or changed verification between a and b.
func sameCounts(a, b reviewStats) bool {
	return a.TotalReviews == b.TotalReviews && a.RatingSum == b.RatingSum && a.VerifiedReviews == b.VerifiedReviews
}

const unconfirmedCancellationsMetric = "marketplace_reviews_unconfirmed_cancellations_total"

// forgeCancellation publishes, as an attacker with the customers service's
// Kafka credentials would, an order.status_changed event (to cancelled) for
// an order, keyed by it as the customers service keys its own.
func forgeCancellation(t *testing.T, s *st.Sys, orderID, customerID, storeID string) {
	t.Helper()
	data, _ := json.Marshal(map[string]any{
		"orderId": orderID, "customerId": customerID, "customerUserId": "user-1", "storeId": storeID, "storeName": "Bakery",
		"storeOwnerUserId": "owner-1", "totalFils": 2235, "platformCommissionFils": 100, "storeEarningsFils": 2135,
		"paymentStatus": "paid", "status": "cancelled", "from": "confirmed", "to": "cancelled", "changedBy": "owner-1",
	})
	id, err := events.NewID()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(events.Envelope{ID: id, Type: "order.status_changed", Source: "customers", Time: time.Now().UTC(), Subject: orderID, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	publish(t, s, "orders", orderID, raw)
}

func TestVerifiedPurchaseInterfaceRule(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	cancel := func(t *testing.T, orderID string) {
		t.Helper()
		st.MustOK(t, s.Mutation(rs.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": orderID, "status": "cancelled"}))
	}

	t.Run("a confirmed order cited verifies the review", func(t *testing.T) {
		before := statsOf(t, s, rs.storeA)
		id, msg := addReviewAnswer(t, s, rs.user, reviewArgs(rs.storeA, 5, "orderId", rs.orderA))
		wantVerified(t, "citing the confirmed order", verifiedOfEach(t, s, rs.user, id), true)
		if !strings.Contains(msg, "verified purchase") {
			t.Errorf("message %q", msg)
		}
		if sv := statsOf(t, s, rs.storeA); sv.TotalReviews != before.TotalReviews+1 || sv.VerifiedReviews != before.VerifiedReviews+1 {
			t.Fatalf("stats %+v then %+v", before, sv)
		}
		// verifiedOnly lists it.
		if got := reviewIDsOf(allReviews(t, s, "", rs.storeA, map[string]any{"verifiedOnly": true})); len(got) != 1 || got[0] != id {
			t.Fatalf("verifiedOnly: %v", got)
		}

		t.Run("cited twice: the second is ALREADY_EXISTS (rule 5), nothing stored", func(t *testing.T) {
			before := statsOf(t, s, rs.storeA)
			expectError(t, s.Mutation(rs.user, opAddReview, reviewArgs(rs.storeA, 1, "orderId", rs.orderA)), "ALREADY_EXISTS", rs.orderA)
			if sv := statsOf(t, s, rs.storeA); !sameCounts(sv, before) {
				t.Fatalf("stats %+v then %+v", before, sv)
			}
		})
	})

	t.Run("an order in any status before delivered verifies", func(t *testing.T) {
		tok, customer := newCustomer(t, s, "user-statuses")
		var reviews []string
		for _, path := range [][]string{{}, {"preparing"}, {"preparing", "out_for_delivery"}} {
			o := rs.orderOf(t, tok, customer, rs.storeA)
			for _, status := range path {
				st.MustOK(t, s.Mutation(rs.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": o, "status": status}))
			}
			reviews = append(reviews, addReviewOK(t, s, tok, reviewArgs(rs.storeA, 4, "orderId", o)))
		}
		wantVerified(t, "citing confirmed, preparing, out for delivery", verifiedOfEach(t, s, tok, reviews...), true, true, true)
		// None of them is delivered: a review without orderId is not verified.
		wantVerified(t, "without orderId", verifiedOfEach(t, s, tok, addReviewOK(t, s, tok, reviewArgs(rs.storeA, 3))), false)
	})

	t.Run("without orderId one delivered order verifies one review", func(t *testing.T) {
		tok, customer := newCustomer(t, s, "user-one-delivered")
		rs.deliverOrder(t, rs.orderOf(t, tok, customer, rs.storeB))
		first := addReviewOK(t, s, tok, reviewArgs(rs.storeB, 5, "title", "First"))
		second := addReviewOK(t, s, tok, reviewArgs(rs.storeB, 4, "title", "Second"))
		wantVerified(t, "two reviews of one delivered order", verifiedOfEach(t, s, tok, first, second), true, false)
		// The delivered order is used: cited now, it verifies nothing more
		// (the review without orderId has no other delivered order to move to).
		var o struct {
			Page []struct {
				ID string `json:"_id"`
			} `json:"page"`
		}
		st.MustOK(t, s.Query(tok, "customers.orders.getMyOrders", map[string]any{"paginationOpts": map[string]any{"numItems": 10}})).Decode(t, &o)
		if len(o.Page) != 1 {
			t.Fatalf("orders %+v", o)
		}
		cited := addReviewOK(t, s, tok, reviewArgs(rs.storeB, 3, "orderId", o.Page[0].ID))
		wantVerified(t, "after citing the used order", verifiedOfEach(t, s, tok, first, second, cited), true, false, false)
		if sv := statsOf(t, s, rs.storeB); sv.VerifiedReviews != 1 {
			t.Fatalf("stats %+v", sv)
		}
	})

	t.Run("a delivered order cited after a review without orderId took it: that review moves to another", func(t *testing.T) {
		tok, customer := newCustomer(t, s, "user-move")
		a := rs.orderOf(t, tok, customer, rs.storeB)
		rs.deliverOrder(t, a)
		b := rs.orderOf(t, tok, customer, rs.storeB)
		rs.deliverOrder(t, b)
		// The review without orderId takes the oldest delivered order, a;
		// citing a then verifies, and the first review moves to b.
		implicit := addReviewOK(t, s, tok, reviewArgs(rs.storeB, 5, "title", "Without the order"))
		citingA := addReviewOK(t, s, tok, reviewArgs(rs.storeB, 4, "orderId", a))
		wantVerified(t, "two delivered orders, two reviews", verifiedOfEach(t, s, tok, implicit, citingA), true, true)
		// Both delivered orders are used: b cited verifies nothing, nor does
		// a third review without orderId.
		citingB := addReviewOK(t, s, tok, reviewArgs(rs.storeB, 2, "orderId", b))
		third := addReviewOK(t, s, tok, reviewArgs(rs.storeB, 2, "title", "Third"))
		wantVerified(t, "after both are used", verifiedOfEach(t, s, tok, implicit, citingA, citingB, third), true, true, false, false)
	})

	t.Run("a cancelled order cited does not verify, the review is created", func(t *testing.T) {
		tok, customer := newCustomer(t, s, "user-cancelled")
		rs.deliverOrder(t, rs.orderOf(t, tok, customer, rs.storeA)) // a delivered order unused: still not the cancelled one's
		o := rs.orderOf(t, tok, customer, rs.storeA)
		cancel(t, o)
		id, msg := addReviewAnswer(t, s, tok, reviewArgs(rs.storeA, 1, "orderId", o))
		wantVerified(t, "citing the cancelled order", verifiedOfEach(t, s, tok, id), false)
		if strings.Contains(msg, "verified") {
			t.Errorf("message %q", msg)
		}
	})

	t.Run("an order cancelled after its review withdraws the verification", func(t *testing.T) {
		tok, customer := newCustomer(t, s, "user-cancels-later")
		o := rs.orderOf(t, tok, customer, rs.storeA)
		id := addReviewOK(t, s, tok, reviewArgs(rs.storeA, 5, "orderId", o))
		wantVerified(t, "citing the confirmed order", verifiedOfEach(t, s, tok, id), true)
		before := statsOf(t, s, rs.storeA)
		cancel(t, o)
		eventually(t, "the verification withdrawn", func() bool { return !getReview(t, s, tok, id).IsVerifiedPurchase })
		if sv := statsOf(t, s, rs.storeA); sv.VerifiedReviews != before.VerifiedReviews-1 || sv.TotalReviews != before.TotalReviews {
			t.Fatalf("stats %+v then %+v", before, sv)
		}
		if got := reviewIDsOf(allReviews(t, s, "", rs.storeA, map[string]any{"verifiedOnly": true})); strings.Contains(strings.Join(got, ","), id) {
			t.Fatalf("verifiedOnly still lists %s", id)
		}
	})

	t.Run("a forged cancellation changes nothing", func(t *testing.T) {
		tok, customer := newCustomer(t, s, "user-forged")
		o := rs.orderOf(t, tok, customer, rs.storeA)
		id := addReviewOK(t, s, tok, reviewArgs(rs.storeA, 5, "orderId", o))
		before, _ := sample(s.Metrics(), unconfirmedCancellationsMetric, map[string]string{"reason": "not_cancelled"})
		unknown, _ := sample(s.Metrics(), unconfirmedCancellationsMetric, map[string]string{"reason": "unknown_order"})
		forgeCancellation(t, s, o, customer, rs.storeA)
		forgeCancellation(t, s, ids.New("orders"), customer, rs.storeA)
		eventually(t, "the forged cancellations counted", func() bool {
			n, _ := sample(s.Metrics(), unconfirmedCancellationsMetric, map[string]string{"reason": "not_cancelled"})
			u, _ := sample(s.Metrics(), unconfirmedCancellationsMetric, map[string]string{"reason": "unknown_order"})
			return n >= before+1 && u >= unknown+1
		})
		wantVerified(t, "after the forged cancellation", verifiedOfEach(t, s, tok, id), true)
	})

	t.Run("a deleted review's order verifies the next review citing it", func(t *testing.T) {
		tok, customer := newCustomer(t, s, "user-deletes")
		o := rs.orderOf(t, tok, customer, rs.storeA)
		id := addReviewOK(t, s, tok, reviewArgs(rs.storeA, 2, "orderId", o))
		st.MustOK(t, s.Mutation(tok, opDeleteReview, map[string]any{"reviewId": id}))
		again := addReviewOK(t, s, tok, reviewArgs(rs.storeA, 4, "orderId", o))
		wantVerified(t, "citing it again", verifiedOfEach(t, s, tok, again), true)
	})

	t.Run("the store's owner may not review it: PERMISSION_DENIED", func(t *testing.T) {
		newProfile(t, s, rs.owner, "Owner One")
		before := statsOf(t, s, rs.storeB)
		expectError(t, s.Mutation(rs.owner, opAddReview, reviewArgs(rs.storeB, 5)), "PERMISSION_DENIED", "own")
		expectError(t, s.Mutation(rs.owner, opAddReview, reviewArgs(rs.storeB, 5, "orderId", rs.orderA)), "PERMISSION_DENIED", "own")
		if sv := statsOf(t, s, rs.storeB); !sameCounts(sv, before) {
			t.Fatalf("stats %+v then %+v", before, sv)
		}
	})

	t.Run("another customer's order is NOT_FOUND, as a missing one", func(t *testing.T) {
		tok, _ := newCustomer(t, s, "user-not-theirs")
		before := statsOf(t, s, rs.storeA)
		missing := missingLike(rs.orderA)
		sameAnswer(t, "citing another customer's order",
			s.Mutation(tok, opAddReview, reviewArgs(rs.storeA, 5, "orderId", rs.orderA)), rs.orderA,
			s.Mutation(tok, opAddReview, reviewArgs(rs.storeA, 5, "orderId", missing)), missing)
		expectError(t, s.Mutation(tok, opAddReview, reviewArgs(rs.storeA, 5, "orderId", rs.orderA)), "NOT_FOUND", "order")
		if sv := statsOf(t, s, rs.storeA); !sameCounts(sv, before) {
			t.Fatalf("stats %+v then %+v", before, sv)
		}
	})
}

// TestVerifiedPurchaseUnderConcurrency: reviews racing for the same orders
// never make one order verify two reviews. A customer with two delivered
// orders and a confirmed one sends, at once, six reviews without orderId,
// one citing the older delivered order and two citing the confirmed one:
// one of the last two is ALREADY_EXISTS, the other verified, and of the
// rest exactly two are verified whoever wins (the one citing the delivered
// order among them unless reviews without orderId took both orders first;
// one that took it before may move to the other). The second round sends
// them with Idempotency-Keys.
func TestVerifiedPurchaseUnderConcurrency(t *testing.T) {
	s := st.Start(t)
	rs := newReviewShop(t, s)
	for round := range 3 {
		tok, customer := newCustomer(t, s, fmt.Sprintf("user-race-%d", round))
		a := rs.orderOf(t, tok, customer, rs.storeB)
		rs.deliverOrder(t, a)
		rs.deliverOrder(t, rs.orderOf(t, tok, customer, rs.storeB))
		confirmed := rs.orderOf(t, tok, customer, rs.storeB)
		before := statsOf(t, s, rs.storeB)
		const n = 9
		results := st.Concurrently(n, func(i int) st.Result {
			args := reviewArgs(rs.storeB, 3, "title", fmt.Sprintf("Race %d", i))
			switch i {
			case 0:
				args = reviewArgs(rs.storeB, 5, "orderId", a)
			case 1, 2:
				args = reviewArgs(rs.storeB, 4, "orderId", confirmed)
			}
			if round == 1 { // keyed calls: each runs in one transaction with its key's record
				return keyed(t, s, tok, fmt.Sprintf("race-%d-%d", round, i), opAddReview, args)
			}
			return s.Mutation(tok, opAddReview, args)
		})
		if ok := st.CountOK(t, results[1:3], "ALREADY_EXISTS"); ok != 1 {
			t.Fatalf("round %d: %d reviews citing one order", round, ok)
		}
		var ids []string
		citingConfirmed := -1
		for i, r := range results {
			if (i == 1 || i == 2) && r.Status != 200 {
				continue
			}
			var out struct {
				ReviewID string `json:"reviewId"`
			}
			st.MustOK(t, r).Decode(t, &out)
			if i == 1 || i == 2 {
				citingConfirmed = len(ids)
			}
			ids = append(ids, out.ReviewID)
		}
		got := verifiedOfEach(t, s, tok, ids...)
		verified := 0
		for _, v := range got {
			if v {
				verified++
			}
		}
		// The two delivered orders and the confirmed one: three verified.
		if verified != 3 || !got[citingConfirmed] {
			t.Fatalf("round %d: verified %v (the review citing the confirmed order: %d)", round, got, citingConfirmed)
		}
		after := statsOf(t, s, rs.storeB)
		if after.TotalReviews-before.TotalReviews != int64(len(ids)) || after.VerifiedReviews-before.VerifiedReviews != 3 {
			t.Fatalf("round %d: stats %+v then %+v", round, before, after)
		}
	}
}
