package reviews

import (
	"context"
	"errors"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
	"marketplace/libs/store"
)

type voteArgs struct {
	ReviewID  string `json:"reviewId" op:"required,id=storeReviews"`
	IsHelpful bool   `json:"isHelpful" op:"required"`
}

// Voted is voteOnReview's answer: the review's counters after the vote.
type Voted struct {
	ReviewID        string `json:"reviewId"`
	HelpfulCount    int    `json:"helpfulCount"`
	NotHelpfulCount int    `json:"notHelpfulCount"`
	UserVote        bool   `json:"userVote"`
}

// voteOnReview records the caller's vote, or changes it. The vote and the
// review's counters and Wilson score move in one transaction, so concurrent
// voters are all counted and concurrent changes of one vote leave the counters
// equal to the votes. One vote per customer per review is a unique index; a
// concurrent first vote of the same customer starts the attempt over.
func (s *svc) voteOnReview(ctx context.Context, a *voteArgs) (*Voted, error) {
	c := ops.CustomerOf(ctx)
	return store.Retry(ctx, "the review's votes", func(ctx context.Context) (*Voted, error) {
		var out *Voted
		err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
			r, err := s.reviewToActOn(ctx, a.ReviewID)
			if err != nil {
				return err
			}
			switch {
			case r.CustomerID == c.ID:
				return apperr.New(apperr.FailedPrecondition, "you cannot vote on your own review")
			case r.Hidden:
				return apperr.New(apperr.FailedPrecondition, "review %s is hidden by the moderators", r.ID)
			}
			var v voteDoc
			err = s.env.DB.Collection(votesColl).FindOne(ctx, bson.M{"reviewId": r.ID, "customerId": c.ID}).Decode(&v)
			found := err == nil
			if err != nil && !store.IsNotFound(err) {
				return err
			}
			helpful, notHelpful := r.Helpful, r.NotHelpful
			now := s.now()
			switch {
			case found && v.IsHelpful == a.IsHelpful:
				out = &Voted{ReviewID: r.ID, HelpfulCount: helpful, NotHelpfulCount: notHelpful, UserVote: a.IsHelpful}
				return nil // the same vote again changes nothing
			case found:
				if _, err := s.env.DB.Collection(votesColl).UpdateOne(ctx, bson.M{"_id": v.ID, "isHelpful": v.IsHelpful},
					bson.M{"$set": bson.M{"isHelpful": a.IsHelpful, "updatedAt": now}}); err != nil {
					return err
				}
				helpful, notHelpful = moveVote(helpful, notHelpful, v.IsHelpful, -1)
			default:
				v = voteDoc{ID: voteID(r.ID, c.ID), ReviewID: r.ID, StoreID: r.StoreID, CustomerID: c.ID, UserID: c.UserID,
					IsHelpful: a.IsHelpful, CreatedAt: now, UpdatedAt: now}
				if _, err := s.env.DB.Collection(votesColl).InsertOne(ctx, v); err != nil {
					if store.IsDuplicate(err) {
						return store.ErrConflict // the same customer's concurrent first vote
					}
					return err
				}
			}
			helpful, notHelpful = moveVote(helpful, notHelpful, a.IsHelpful, +1)
			if _, err := s.env.DB.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": r.ID}, bson.M{"$set": bson.M{
				"helpfulCount": helpful, "notHelpfulCount": notHelpful, "wilson": Wilson(helpful, notHelpful),
			}}); err != nil {
				return err
			}
			out = &Voted{ReviewID: r.ID, HelpfulCount: helpful, NotHelpfulCount: notHelpful, UserVote: a.IsHelpful}
			return s.changeStats(ctx, r.StoreID, Delta{}, now) // the lists show the counters
		})
		if store.IsDuplicate(err) {
			err = store.ErrConflict
		}
		if errors.Is(err, store.ErrConflict) {
			return nil, store.ErrConflict
		}
		return out, err
	})
}

// voteID is a vote's id: one per customer per review, by construction (and by
// the unique index).
func voteID(reviewID, customerID string) string { return reviewID + ":" + customerID }

// moveVote adds by (+1 or -1) to the counter of one kind of vote.
func moveVote(helpful, notHelpful int, isHelpful bool, by int) (int, int) {
	if isHelpful {
		return helpful + by, notHelpful
	}
	return helpful, notHelpful + by
}

// storeVotes are a user's votes on a store's reviews: review id -> isHelpful.
func (s *svc) storeVotes(ctx context.Context, userID, storeID string) (map[string]bool, error) {
	return s.findVotes(ctx, bson.M{"userId": userID, "storeId": storeID})
}

// userVotes are the caller's votes on the given reviews: review id -> isHelpful.
func (s *svc) userVotes(ctx context.Context, userID string, reviewIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	if userID == "" || len(reviewIDs) == 0 {
		return out, nil
	}
	return s.findVotes(ctx, bson.M{"userId": userID, "reviewId": bson.M{"$in": reviewIDs}})
}

func (s *svc) findVotes(ctx context.Context, filter bson.M) (map[string]bool, error) {
	out := map[string]bool{}
	cur, err := s.env.DB.Collection(votesColl).Find(ctx, filter, options.Find().SetProjection(bson.M{"reviewId": 1, "isHelpful": 1}))
	if err != nil {
		return nil, err
	}
	var votes []voteDoc
	if err := cur.All(ctx, &votes); err != nil {
		return nil, err
	}
	for _, v := range votes {
		out[v.ReviewID] = v.IsHelpful
	}
	return out, nil
}
