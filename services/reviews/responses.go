package reviews

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/ops"
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
	comment := orEmpty(cleanText(&a.Comment))
	owner := ops.Caller(ctx).Sub
	var out StoreResponseView
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		r, err := s.reviewToActOn(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		if r.Hidden {
			return apperr.New(apperr.FailedPrecondition, "review %s is hidden by the moderators", r.ID)
		}
		now := s.now()
		var filter, set bson.M
		if update {
			filter = bson.M{"_id": r.ID, "storeResponse": bson.M{"$exists": true}}
			set = bson.M{"storeResponse.comment": comment, "storeResponse.updatedAt": now, "storeResponse.byUserId": owner}
		} else {
			filter = bson.M{"_id": r.ID, "storeResponse": bson.M{"$exists": false}}
			set = bson.M{"storeResponse": storeResponse{Comment: comment, RespondedAt: now, ByUserID: owner}}
		}
		res, err := s.env.DB.Collection(reviewsColl).UpdateOne(ctx, filter, bson.M{"$set": set})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			if update {
				return apperr.New(apperr.NotFound, "review %s has no store response yet: add one with addStoreResponse", r.ID)
			}
			return apperr.New(apperr.AlreadyExists, "the store has already responded to review %s: change it with updateStoreResponse", r.ID)
		}
		out = StoreResponseView{Comment: comment, RespondedAt: now}
		if update {
			out = StoreResponseView{Comment: comment, RespondedAt: r.Response.RespondedAt, UpdatedAt: now}
		}
		if err := s.changeStats(ctx, r.StoreID, Delta{}, now); err != nil { // the lists show responses
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
