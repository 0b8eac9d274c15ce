package reviews

import (
	"context"

	"marketplace/libs/ops"
	"marketplace/services/reviews/domain"
)

type ratingHistoryArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
	From    int64  `json:"from" op:"required,min=0"`
	To      int64  `json:"to" op:"required,min=0"`
}

// getRatingHistory is the store's rating by Dubai week (domain.HistoryOf),
// computed on read from its visible reviews with one bounded range of the
// index store_newest: more than domain.MaxHistoryReviews in the period is
// refused, never averaged in part.
func (s *svc) getRatingHistory(ctx context.Context, a *ratingHistoryArgs) (*domain.RatingHistory, error) {
	if err := domain.CheckHistoryPeriod(a.From, a.To); err != nil {
		return nil, err
	}
	rs, err := s.reviews.RatingsOf(ctx, ops.StoreOf(ctx).ID, a.From, a.To, domain.MaxHistoryReviews+1)
	if err != nil {
		return nil, err
	}
	if len(rs) > domain.MaxHistoryReviews {
		return nil, domain.TooManyReviews(domain.MaxHistoryReviews)
	}
	h := domain.HistoryOf(rs, a.From, a.To)
	return &h, nil
}
