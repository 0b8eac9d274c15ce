package reviews

import (
	"marketplace/libs/contracts/media"
	contract "marketplace/libs/contracts/reviews"
)

// Collections of the reviews service's own database.
const (
	reviewsColl = "storeReviews"
	votesColl   = "reviewVotes"
	flagsColl   = "reviewFlags"
	statsColl   = "storeReviewStats"
	// verifiedOrdersColl holds one document per order (its id) that verifies
	// a review of its customer (the order's slot: the review's id), or that
	// the customers service confirmed cancelled (it never verifies). Every
	// write that gives, moves, frees or withdraws an order's verification
	// writes its document, so two of them never both succeed on one order.
	verifiedOrdersColl = "verifiedOrders"
)

// orderSlotDoc is an order's document in verifiedOrdersColl.
type orderSlotDoc struct {
	OrderID   string `bson:"_id"`
	ReviewID  string `bson:"reviewId,omitempty"`  // the verified review it verifies
	Cancelled bool   `bson:"cancelled,omitempty"` // confirmed cancelled: it verifies nothing
	UpdatedAt int64  `bson:"updatedAt"`
}

// reviewDoc is a stored review. The sort keys of every list (createdAt,
// rating, wilson) are fields of it, written in the transaction of the change
// that moves them, so a keyset cursor sorts by stored values.
type reviewDoc struct {
	ID           string          `bson:"_id"`
	StoreID      string          `bson:"storeId"`
	StoreName    string          `bson:"storeName"` // as the catalog named it when the review was written (stores are never renamed)
	CustomerID   string          `bson:"customerId"`
	UserID       string          `bson:"userId"`       // the author's token sub
	CustomerName string          `bson:"customerName"` // the author's name when the review was written or last edited
	OrderID      string          `bson:"orderId,omitempty"`
	Rating       int             `bson:"rating"`
	Title        string          `bson:"title"`
	Comment      string          `bson:"comment"`
	PhotoIDs     []string        `bson:"photoIds"`
	Verified     bool            `bson:"isVerifiedPurchase"`
	VerifiedBy   string          `bson:"verifiedBy,omitempty"` // of a verified review: the order it uses (its document in verifiedOrders names the review); none before reviews named it
	Helpful      int             `bson:"helpfulCount"`
	NotHelpful   int             `bson:"notHelpfulCount"`
	Wilson       float64         `bson:"wilson"` // Wilson(Helpful, NotHelpful): most_helpful's key
	Response     *storeResponse  `bson:"storeResponse,omitempty"`
	Hidden       bool            `bson:"hidden"`
	Moderation   *moderation     `bson:"moderation,omitempty"`
	Edits        []reviewVersion `bson:"edits,omitempty"` // previous versions, oldest first (at most MaxEdits)
	CreatedAt    int64           `bson:"createdAt"`
	UpdatedAt    int64           `bson:"updatedAt"`
}

// reviewVersion is a review as it was before an edit.
type reviewVersion struct {
	Rating     int      `bson:"rating" json:"rating"`
	Title      string   `bson:"title" json:"title"`
	Comment    string   `bson:"comment" json:"comment"`
	PhotoIDs   []string `bson:"photoIds" json:"photoIds"`
	WrittenAt  int64    `bson:"writtenAt" json:"writtenAt"`   // when this version was written
	ReplacedAt int64    `bson:"replacedAt" json:"replacedAt"` // when the edit replaced it
}

type storeResponse struct {
	Comment     string `bson:"comment"`
	RespondedAt int64  `bson:"respondedAt"`
	UpdatedAt   int64  `bson:"updatedAt,omitempty"`
	ByUserID    string `bson:"byUserId"`
}

// moderation is the last visibility decision on a review.
type moderation struct {
	Visible    bool   `bson:"visible" json:"visible"`
	ByUserID   string `bson:"byUserId" json:"adminUserId"`
	At         int64  `bson:"at" json:"at"`
	FlagID     string `bson:"flagId,omitempty" json:"flagId,omitempty"`
	AdminNotes string `bson:"adminNotes,omitempty" json:"adminNotes,omitempty"`
}

func (r reviewDoc) keyValues(o ordering) []any {
	out := make([]any, len(o.keys))
	for i, k := range o.keys {
		switch k.field {
		case "_id":
			out[i] = r.ID
		case "createdAt":
			out[i] = r.CreatedAt
		case "rating":
			out[i] = int64(r.Rating)
		case "wilson":
			out[i] = r.Wilson
		default:
			panic("reviews: no sort key " + k.field)
		}
	}
	return out
}

func (r *reviewDoc) event() contract.Review {
	return contract.Review{
		ReviewID: r.ID, StoreID: r.StoreID, StoreName: r.StoreName, CustomerID: r.CustomerID, CustomerUserID: r.UserID,
		OrderID: r.OrderID, Rating: r.Rating, IsVerifiedPurchase: r.Verified, Hidden: r.Hidden,
	}
}

// voteDoc is one customer's helpfulness vote on a review.
type voteDoc struct {
	ID         string `bson:"_id"`
	ReviewID   string `bson:"reviewId"`
	StoreID    string `bson:"storeId"`
	CustomerID string `bson:"customerId"`
	UserID     string `bson:"userId"`
	IsHelpful  bool   `bson:"isHelpful"`
	CreatedAt  int64  `bson:"createdAt"`
	UpdatedAt  int64  `bson:"updatedAt"`
}

// flagDoc is a customer's report of a review, and its moderation.
type flagDoc struct {
	ID           string      `bson:"_id"`
	ReviewID     string      `bson:"reviewId"`
	StoreID      string      `bson:"storeId"`
	CustomerID   string      `bson:"customerId"`
	UserID       string      `bson:"userId"`
	CustomerName string      `bson:"customerName"`
	Reason       string      `bson:"reason"`
	Description  string      `bson:"description"`
	Status       string      `bson:"status"`
	Resolution   *resolution `bson:"resolution,omitempty"`
	CreatedAt    int64       `bson:"createdAt"`
}

// resolution is who decided a flag, when, how and why.
type resolution struct {
	Action      string `bson:"action" json:"action"`
	AdminUserID string `bson:"adminUserId" json:"adminUserId"`
	ResolvedAt  int64  `bson:"resolvedAt" json:"resolvedAt"`
	AdminNotes  string `bson:"adminNotes,omitempty" json:"adminNotes,omitempty"`
	// Through: how the decision came (resolveFlag, resolveFlag of another flag
	// of the review, setReviewVisibility).
	Through string `bson:"through" json:"through"`
	ByFlag  string `bson:"byFlag,omitempty" json:"byFlagId,omitempty"`
}

func (f flagDoc) keyValues(o ordering) []any {
	out := make([]any, len(o.keys))
	for i, k := range o.keys {
		switch k.field {
		case "_id":
			out[i] = f.ID
		case "createdAt":
			out[i] = f.CreatedAt
		default:
			panic("reviews: no flag sort key " + k.field)
		}
	}
	return out
}

// statsDoc is a store's statistics over its visible reviews, changed in the
// transaction of every change of them. Version grows with every change of
// anything a list of the store's reviews shows (the listing cache's key).
type statsDoc struct {
	StoreID   string `bson:"_id"`
	Count     int64  `bson:"count"`
	Sum       int64  `bson:"sum"`
	Star1     int64  `bson:"star1"`
	Star2     int64  `bson:"star2"`
	Star3     int64  `bson:"star3"`
	Star4     int64  `bson:"star4"`
	Star5     int64  `bson:"star5"`
	Verified  int64  `bson:"verified"`
	Version   int64  `bson:"version"`
	UpdatedAt int64  `bson:"updatedAt"`
}

func (d *statsDoc) stats() Stats {
	return Stats{Count: d.Count, Sum: d.Sum, Verified: d.Verified, Stars: [6]int64{0, d.Star1, d.Star2, d.Star3, d.Star4, d.Star5}}
}

// inc is the $inc of a delta (zero fields left out).
func (d Delta) inc() map[string]int64 {
	m := map[string]int64{}
	put := func(k string, v int64) {
		if v != 0 {
			m[k] = v
		}
	}
	put("count", d.Count)
	put("sum", d.Sum)
	put("verified", d.Verified)
	for r := 1; r <= 5; r++ {
		put("star"+string(rune('0'+r)), d.Stars[r])
	}
	return m
}

// Views (what clients see).

// CustomerInfo is a review's author.
type CustomerInfo struct {
	ID   string `json:"_id"`
	Name string `json:"name"`
}

// StoreInfo is a review's store.
type StoreInfo struct {
	ID   string `json:"_id"`
	Name string `json:"name"`
}

// StoreResponseView is a store's response to a review.
type StoreResponseView struct {
	Comment     string `json:"comment"`
	RespondedAt int64  `json:"respondedAt"`
	UpdatedAt   int64  `json:"updatedAt,omitempty"`
}

// ReviewItem is a review in getStoreReviews (interface section 2.1).
type ReviewItem struct {
	ID                 string             `json:"_id"`
	CreationTime       int64              `json:"_creationTime"`
	StoreID            string             `json:"storeId"`
	Rating             int                `json:"rating"`
	Title              string             `json:"title,omitempty"`
	Comment            string             `json:"comment,omitempty"`
	PhotoURLs          []string           `json:"photoUrls"`
	IsVerifiedPurchase bool               `json:"isVerifiedPurchase"`
	HelpfulCount       int                `json:"helpfulCount"`
	NotHelpfulCount    int                `json:"notHelpfulCount"`
	StoreResponse      *StoreResponseView `json:"storeResponse,omitempty"`
	Customer           CustomerInfo       `json:"customer"`
	UserVote           *bool              `json:"userVote,omitempty"` // the caller's vote; absent when none (or anonymous)
	IsEdited           bool               `json:"isEdited"`
	UpdatedAt          int64              `json:"updatedAt"`
}

// ReviewDetail is getReview's and getCustomerReviews' review: the item with
// its store and what the caller may do.
type ReviewDetail struct {
	ReviewItem
	Store     StoreInfo `json:"store"`
	IsHidden  bool      `json:"isHidden"`
	CanEdit   bool      `json:"canEdit"`
	CanDelete bool      `json:"canDelete"`
	// Administrators also see the moderation record and the previous versions.
	Moderation  *moderation     `json:"moderation,omitempty"`
	EditHistory []reviewVersion `json:"editHistory,omitempty"`
	OrderID     string          `json:"orderId,omitempty"` // author and administrators
}

func (s *svc) item(r *reviewDoc) ReviewItem {
	it := ReviewItem{
		ID: r.ID, CreationTime: r.CreatedAt, StoreID: r.StoreID, Rating: r.Rating, Title: r.Title, Comment: r.Comment,
		PhotoURLs: make([]string, len(r.PhotoIDs)), IsVerifiedPurchase: r.Verified, HelpfulCount: r.Helpful,
		NotHelpfulCount: r.NotHelpful, Customer: CustomerInfo{ID: r.CustomerID, Name: r.CustomerName},
		IsEdited: len(r.Edits) > 0, UpdatedAt: r.UpdatedAt,
	}
	for i, id := range r.PhotoIDs {
		it.PhotoURLs[i] = media.URL(s.publicBaseURL, id)
	}
	if r.Response != nil {
		it.StoreResponse = &StoreResponseView{Comment: r.Response.Comment, RespondedAt: r.Response.RespondedAt, UpdatedAt: r.Response.UpdatedAt}
	}
	return it
}

// detail is the review for a caller: author (their own review), admin.
func (s *svc) detail(r *reviewDoc, author, admin bool) ReviewDetail {
	d := ReviewDetail{ReviewItem: s.item(r), Store: StoreInfo{ID: r.StoreID, Name: r.StoreName}, IsHidden: r.Hidden,
		CanEdit: author, CanDelete: author}
	if author || admin {
		d.OrderID = r.OrderID
	}
	if admin {
		d.Moderation, d.EditHistory = r.Moderation, r.Edits
	}
	return d
}

// FlagView is a flag in listFlags, with its review.
type FlagView struct {
	ID           string       `json:"_id"`
	CreationTime int64        `json:"_creationTime"`
	ReviewID     string       `json:"reviewId"`
	StoreID      string       `json:"storeId"`
	Reason       string       `json:"reason"`
	Description  string       `json:"description,omitempty"`
	Status       string       `json:"status"`
	FlaggedBy    FlaggedBy    `json:"flaggedBy"`
	Resolution   *resolution  `json:"resolution,omitempty"`
	Review       ReviewDetail `json:"review"`
}

// FlaggedBy is the customer who flagged.
type FlaggedBy struct {
	CustomerID string `json:"customerId"`
	UserID     string `json:"userId"`
	Name       string `json:"name"`
}

// StatsView is getStoreReviewStats' answer.
type StatsView struct {
	StoreID            string           `json:"storeId"`
	TotalReviews       int64            `json:"totalReviews"`
	RatingSum          int64            `json:"ratingSum"`
	AverageRating      float64          `json:"averageRating"`
	RatingDistribution map[string]int64 `json:"ratingDistribution"` // "1".."5" -> visible reviews with that rating
	VerifiedReviews    int64            `json:"verifiedReviews"`
	BayesianAverage    float64          `json:"bayesianAverage"`
	BayesianPrior      PriorView        `json:"bayesianPrior"`
	UpdatedAt          int64            `json:"updatedAt"`
}

// PriorView states the Bayesian average's prior.
type PriorView struct {
	Reviews int     `json:"reviews"`
	Mean    float64 `json:"mean"`
}

func statsView(storeID string, d *statsDoc) StatsView {
	st := d.stats()
	v := StatsView{
		StoreID: storeID, TotalReviews: st.Count, RatingSum: st.Sum, AverageRating: st.Average(),
		RatingDistribution: map[string]int64{}, VerifiedReviews: st.Verified, BayesianAverage: BayesianAverage(st.Count, st.Sum),
		BayesianPrior: PriorView{Reviews: PriorReviews, Mean: PriorMean}, UpdatedAt: d.UpdatedAt,
	}
	for r := 1; r <= 5; r++ {
		v.RatingDistribution[string(rune('0'+r))] = st.Stars[r]
	}
	return v
}
