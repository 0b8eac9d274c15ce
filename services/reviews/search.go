package reviews

// The administrators' search of reviews (docs/adr/0169): by words of a
// review's title and comment or of its reviewer's name, hidden reviews
// too. Bounded: at most domain.MaxSearchHits answers, reading at most
// domain.MaxSearchScan reviews, newest first.

import (
	"context"

	"marketplace/services/reviews/domain"
)

type searchReviewsArgs struct {
	Query string `json:"query" op:"required,max=400"`
}

// ReviewHit is a review a search found, and what of it matched (name or
// comment).
type ReviewHit struct {
	ID           string `json:"_id"`
	StoreID      string `json:"storeId"`
	StoreName    string `json:"storeName"`
	CustomerID   string `json:"customerId"`
	CustomerName string `json:"customerName"`
	Rating       int    `json:"rating"`
	Title        string `json:"title"`
	Comment      string `json:"comment"`
	Hidden       bool   `json:"hidden"`
	CreatedAt    int64  `json:"_creationTime"`
	MatchedBy    string `json:"matchedBy" enum:"name|comment"`
}

// ReviewHits are a search's answer: partial when the reviews it read
// stopped at domain.MaxSearchScan before the oldest.
type ReviewHits struct {
	Reviews []ReviewHit `json:"reviews"`
	Partial bool        `json:"partial"`
}

func (s *svc) searchReviews(ctx context.Context, a *searchReviewsArgs) (ReviewHits, error) {
	q, err := domain.NewReviewQuery(a.Query)
	if err != nil {
		return ReviewHits{}, err
	}
	rs, err := s.reviews.Newest(ctx, domain.MaxSearchScan+1) // one more: are there older ones?
	if err != nil {
		return ReviewHits{}, err
	}
	out := ReviewHits{Reviews: []ReviewHit{}, Partial: len(rs) > domain.MaxSearchScan}
	rs = rs[:min(len(rs), domain.MaxSearchScan)]
	for i := range rs {
		r := &rs[i]
		by := q.Match(r)
		if by == "" {
			continue
		}
		out.Reviews = append(out.Reviews, ReviewHit{ID: r.ID, StoreID: r.StoreID, StoreName: r.StoreName, CustomerID: r.CustomerID, CustomerName: r.CustomerName,
			Rating: r.Rating, Title: r.Title, Comment: r.Comment, Hidden: r.Hidden, CreatedAt: r.CreatedAt, MatchedBy: by})
		if len(out.Reviews) == domain.MaxSearchHits {
			break
		}
	}
	return out, nil
}
