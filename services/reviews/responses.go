package reviews

import (
	"context"

	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/ops"
	"marketplace/services/reviews/domain"
)

type responseArgs struct {
	ReviewID string `json:"reviewId" op:"required,id=storeReviews"`
	Comment  string `json:"comment" op:"required,nonblank,multiline,max=2000"`
}

// addStoreResponse is the store's one response to a review, by its owner (the
// registry found the store through the review and checked the caller). It is
// one conditional update (no response yet), so of two concurrent responses
// one is stored and the other is ALREADY_EXISTS. The author hears of it
// through review.store_responded.
func (s *svc) addStoreResponse(ctx context.Context, a *responseArgs) (*StoreResponseView, error) {
	return s.respond(ctx, a, false)
}

// updateStoreResponse changes the store's response (NOT_FOUND while there is
// none); the author hears of it too.
func (s *svc) updateStoreResponse(ctx context.Context, a *responseArgs) (*StoreResponseView, error) {
	return s.respond(ctx, a, true)
}

func (s *svc) respond(ctx context.Context, a *responseArgs, update bool) (*StoreResponseView, error) {
	comment := orEmpty(domain.CleanText(&a.Comment))
	owner := ops.Caller(ctx).Sub
	var out StoreResponseView
	err := s.atomically(ctx, func(ctx context.Context) error {
		r, err := s.reviewToActOn(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		now := s.now()
		resp, err := r.Respond(comment, owner, update, now)
		if err != nil {
			return err
		}
		// One conditional update holds the rule against a concurrent
		// response, with the same answers.
		ok, err := s.reviews.SetResponse(ctx, r.ID, resp, update)
		if err != nil {
			return err
		}
		if !ok {
			if update {
				return domain.ErrNoResponse(r.ID)
			}
			return domain.ErrResponded(r.ID)
		}
		out = StoreResponseView{Comment: resp.Comment, RespondedAt: resp.RespondedAt, UpdatedAt: resp.UpdatedAt}
		if err := s.stats.Change(ctx, r.StoreID, domain.Delta{}, now); err != nil { // the lists show responses
			return err
		}
		return s.publish(ctx, contract.EventStoreResponded, r.ID, contract.StoreResponded{
			ReviewID: r.ID, StoreID: r.StoreID, StoreName: r.StoreName, CustomerUserID: r.UserID, Comment: comment,
			RespondedAt: now, Updated: update, RespondedByUserID: owner,
		})
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return &out, nil
}
