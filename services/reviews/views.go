package reviews

import (
	"marketplace/libs/contracts/media"
	"marketplace/services/reviews/domain"
)

// Views: what clients see of the domain's values.

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
	Moderation  *domain.Moderation `json:"moderation,omitempty"`
	EditHistory []domain.Version   `json:"editHistory,omitempty"`
	OrderID     string             `json:"orderId,omitempty"` // author and administrators
}

func (s *svc) item(r *domain.Review) ReviewItem {
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
func (s *svc) detail(r *domain.Review, author, admin bool) ReviewDetail {
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
	ID           string             `json:"_id"`
	CreationTime int64              `json:"_creationTime"`
	ReviewID     string             `json:"reviewId"`
	StoreID      string             `json:"storeId"`
	Reason       string             `json:"reason"`
	Description  string             `json:"description,omitempty"`
	Status       string             `json:"status"`
	FlaggedBy    FlaggedBy          `json:"flaggedBy"`
	Resolution   *domain.Resolution `json:"resolution,omitempty"`
	Review       ReviewDetail       `json:"review"`
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

func statsView(storeID string, d *domain.StoreStats) StatsView {
	st := d.Stats()
	v := StatsView{
		StoreID: storeID, TotalReviews: st.Count, RatingSum: st.Sum, AverageRating: st.Average(),
		RatingDistribution: map[string]int64{}, VerifiedReviews: st.Verified, BayesianAverage: domain.BayesianAverage(st.Count, st.Sum),
		BayesianPrior: PriorView{Reviews: domain.PriorReviews, Mean: domain.PriorMean}, UpdatedAt: d.UpdatedAt,
	}
	for r := 1; r <= 5; r++ {
		v.RatingDistribution[string(rune('0'+r))] = st.Stars[r]
	}
	return v
}
