package e2e

import (
	"fmt"
	"slices"
	"sync/atomic"
	"testing"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
)

// Helpers of the reviews tests.

const (
	opAddReview       = "stores.reviews.addReview"
	opUpdateReview    = "stores.reviews.updateReview"
	opDeleteReview    = "stores.reviews.deleteReview"
	opStoreReviews    = "stores.reviews.getStoreReviews"
	opReviewStats     = "stores.reviews.getStoreReviewStats"
	opGetReview       = "stores.reviews.getReview"
	opCustomerReviews = "stores.reviews.getCustomerReviews"
	opAddResponse     = "stores.reviews.addStoreResponse"
	opUpdateResponse  = "stores.reviews.updateStoreResponse"
	opVote            = "stores.reviews.voteOnReview"
	opFlag            = "stores.reviews.flagReview"
	opListFlags       = "admins.reviewModeration.listFlags"
	opResolveFlag     = "admins.reviewModeration.resolveFlag"
	opVisibility      = "admins.reviewModeration.setReviewVisibility"
)

type reviewItem struct {
	ID                 string   `json:"_id"`
	CreationTime       int64    `json:"_creationTime"`
	StoreID            string   `json:"storeId"`
	Rating             int      `json:"rating"`
	Title              string   `json:"title"`
	Comment            string   `json:"comment"`
	PhotoURLs          []string `json:"photoUrls"`
	IsVerifiedPurchase bool     `json:"isVerifiedPurchase"`
	HelpfulCount       int      `json:"helpfulCount"`
	NotHelpfulCount    int      `json:"notHelpfulCount"`
	StoreResponse      *struct {
		Comment     string `json:"comment"`
		RespondedAt int64  `json:"respondedAt"`
		UpdatedAt   int64  `json:"updatedAt"`
	} `json:"storeResponse"`
	Customer struct {
		ID   string `json:"_id"`
		Name string `json:"name"`
	} `json:"customer"`
	UserVote *bool `json:"userVote"`
	IsEdited bool  `json:"isEdited"`
	// getReview, getCustomerReviews, listFlags
	Store *struct {
		ID   string `json:"_id"`
		Name string `json:"name"`
	} `json:"store"`
	IsHidden    bool   `json:"isHidden"`
	CanEdit     bool   `json:"canEdit"`
	CanDelete   bool   `json:"canDelete"`
	OrderID     string `json:"orderId"`
	EditHistory []struct {
		Rating     int    `json:"rating"`
		Title      string `json:"title"`
		Comment    string `json:"comment"`
		WrittenAt  int64  `json:"writtenAt"`
		ReplacedAt int64  `json:"replacedAt"`
	} `json:"editHistory"`
	Moderation *struct {
		Visible     bool   `json:"visible"`
		AdminUserID string `json:"adminUserId"`
		At          int64  `json:"at"`
		FlagID      string `json:"flagId"`
		AdminNotes  string `json:"adminNotes"`
	} `json:"moderation"`
}

type reviewPage struct {
	Page           []reviewItem `json:"page"`
	IsDone         bool         `json:"isDone"`
	ContinueCursor string       `json:"continueCursor"`
}

type reviewStats struct {
	StoreID            string           `json:"storeId"`
	TotalReviews       int64            `json:"totalReviews"`
	RatingSum          int64            `json:"ratingSum"`
	AverageRating      float64          `json:"averageRating"`
	RatingDistribution map[string]int64 `json:"ratingDistribution"`
	VerifiedReviews    int64            `json:"verifiedReviews"`
	BayesianAverage    float64          `json:"bayesianAverage"`
	BayesianPrior      struct {
		Reviews int     `json:"reviews"`
		Mean    float64 `json:"mean"`
	} `json:"bayesianPrior"`
}

type flagItem struct {
	ID           string `json:"_id"`
	CreationTime int64  `json:"_creationTime"`
	ReviewID     string `json:"reviewId"`
	StoreID      string `json:"storeId"`
	Reason       string `json:"reason"`
	Description  string `json:"description"`
	Status       string `json:"status"`
	FlaggedBy    struct {
		CustomerID string `json:"customerId"`
		UserID     string `json:"userId"`
	} `json:"flaggedBy"`
	Resolution *struct {
		Action      string `json:"action"`
		AdminUserID string `json:"adminUserId"`
		ResolvedAt  int64  `json:"resolvedAt"`
		AdminNotes  string `json:"adminNotes"`
		Through     string `json:"through"`
		ByFlagID    string `json:"byFlagId"`
	} `json:"resolution"`
	Review reviewItem `json:"review"`
}

// reviewArgs are addReview's arguments: a rating and a comment, plus extra.
func reviewArgs(storeID string, rating any, extra ...any) map[string]any {
	a := map[string]any{"storeId": storeID, "rating": rating, "comment": fmt.Sprintf("%v stars", rating)}
	for i := 0; i+1 < len(extra); i += 2 {
		a[extra[i].(string)] = extra[i+1]
	}
	return a
}

// addReviewOK adds a review and returns its id.
func addReviewOK(t testing.TB, s *st.Sys, token string, args map[string]any) string {
	t.Helper()
	var out struct {
		ReviewID string `json:"reviewId"`
		Message  string `json:"message"`
	}
	st.MustOK(t, s.Mutation(token, opAddReview, args)).Decode(t, &out)
	if out.ReviewID == "" || out.Message == "" {
		t.Fatalf("addReview answered %+v", out)
	}
	return out.ReviewID
}

func getReview(t testing.TB, s *st.Sys, token, id string) *reviewItem {
	t.Helper()
	return okAs[*reviewItem](t, s.Query(token, opGetReview, map[string]any{"reviewId": id}))
}

func listReviews(t testing.TB, s *st.Sys, token string, args map[string]any) reviewPage {
	t.Helper()
	return okAs[reviewPage](t, s.Query(token, opStoreReviews, args))
}

// allReviews walks every page of a store's list.
func allReviews(t testing.TB, s *st.Sys, token, storeID string, extra map[string]any) []reviewItem {
	t.Helper()
	var out []reviewItem
	var cursor any
	for range 1000 {
		args := map[string]any{"storeId": storeID, "paginationOpts": map[string]any{"numItems": 100, "cursor": cursor}}
		for k, v := range extra {
			args[k] = v
		}
		p := listReviews(t, s, token, args)
		out = append(out, p.Page...)
		if p.IsDone {
			return out
		}
		cursor = p.ContinueCursor
	}
	t.Fatal("the list never ended")
	return nil
}

func statsOf(t testing.TB, s *st.Sys, storeID string) reviewStats {
	t.Helper()
	return okAs[reviewStats](t, s.Query("", opReviewStats, map[string]any{"storeId": storeID}))
}

func listFlags(t testing.TB, s *st.Sys, admin string, status string) []flagItem {
	t.Helper()
	args := map[string]any{"paginationOpts": map[string]any{"numItems": 100, "cursor": nil}}
	if status != "" {
		args["status"] = status
	}
	var p struct {
		Page []flagItem `json:"page"`
	}
	st.MustOK(t, s.Query(admin, opListFlags, args)).Decode(t, &p)
	return p.Page
}

func reviewIDsOf(items []reviewItem) []string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = it.ID
	}
	return out
}

// reviewShop is a shop (admin-1, owner-1 with stores A and B, user-1 "Noor"
// with a cart) whose customer has an order of store A, still confirmed.
type reviewShop struct {
	*shop
	orderA string
}

var intentSeq atomic.Int64

func newReviewShop(t *testing.T, s *st.Sys) *reviewShop {
	t.Helper()
	sh := newShop(t, s)
	rs := &reviewShop{shop: sh}
	rs.orderA = rs.orderOf(t, sh.user, sh.customer, sh.storeA)
	return rs
}

// orderOf pays for the customer's cart lines of a store (adding a product of
// it first) and returns the order, confirmed.
func (rs *reviewShop) orderOf(t *testing.T, token, customerID, storeID string) string {
	t.Helper()
	product := rs.productA1
	if storeID == rs.storeB {
		product = rs.productB
	}
	// The customer's lines of that store, as the order will take them.
	cart := myCart(t, rs.s, token, storeID)
	if len(cart.Items) == 0 {
		okID(t, rs.s.Mutation(token, "customers.cart.addItem", map[string]any{"productId": product, "quantity": 1}))
		cart = myCart(t, rs.s, token, storeID)
	}
	total := int64(0)
	for _, it := range cart.Items {
		total += int64(it.UnitPrice*100+0.5) * int64(it.Quantity)
	}
	intent := fmt.Sprintf("pi_review_%d", intentSeq.Add(1))
	body := processor.Event("evt_"+intent, "payment_intent.succeeded", processor.Payment{
		IntentID: intent, AmountFils: total + 1000, CustomerID: customerID, StoreID: storeID,
		Address:      processor.Address{FullAddress: "Villa 7", City: "Dubai", Area: "Jumeirah", PhoneNumber: "+971501111111"},
		DeliveryType: "standard", DeliveryFee: "10.00",
	})
	if r := deliver(rs.s, body); r.Status != 200 {
		t.Fatalf("order of %s: %d %s", storeID, r.Status, r.Body)
	}
	o := okAs[map[string]any](t, rs.s.Query(token, "customers.orders.getOrderByPaymentIntent", map[string]any{"paymentIntentId": intent}))
	if o["status"] != "confirmed" {
		t.Fatalf("order %v", o)
	}
	return o["_id"].(string)
}

// deliverOrder moves a confirmed order to delivered, as its store's owner.
func (rs *reviewShop) deliverOrder(t *testing.T, orderID string) {
	t.Helper()
	for _, status := range []string{"preparing", "out_for_delivery", "delivered"} {
		st.MustOK(t, rs.s.Mutation(rs.owner, "stores.orders.updateOrderStatus", map[string]any{"orderId": orderID, "status": status}))
	}
}

// customers makes n customers ("<prefix>-<i>") with profiles.
func makeCustomers(t *testing.T, s *st.Sys, prefix string, n int) (tokens, customerIDs []string) {
	t.Helper()
	tokens, customerIDs = make([]string, n), make([]string, n)
	results := st.Concurrently(n, func(i int) st.Result {
		tokens[i] = s.Token(fmt.Sprintf("%s-%d", prefix, i))
		return s.Mutation(tokens[i], "customers.profile.upsertMyProfile", map[string]any{"name": fmt.Sprintf("%s %d", prefix, i)})
	})
	for i, r := range results {
		customerIDs[i] = okID(t, r)
	}
	return tokens, customerIDs
}

func boolp(b bool) *bool { return &b }

func sortedCopy(xs []string) []string {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// review is a new review of store A by the access matrix's customer.
func (w *accessWorld) review(t *testing.T) string {
	t.Helper()
	return addReviewOK(t, w.s, w.sh.user, map[string]any{"storeId": w.sh.storeA, "rating": 4, "comment": "Matrix review"})
}

// flag is another customer's new flag on a new review of the customer.
func (w *accessWorld) flag(t *testing.T) string {
	t.Helper()
	var f struct {
		FlagID string `json:"flagId"`
	}
	st.MustOK(t, w.s.Mutation(w.other.token, opFlag, map[string]any{"reviewId": w.review(t), "reason": "spam"})).Decode(t, &f)
	return f.FlagID
}
