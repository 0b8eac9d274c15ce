package reviews

import (
	"context"
	"errors"

	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
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

// voteOnReview records the caller's vote, or changes it
// (domain.Review.Vote: never on one's own review). The vote and the review's
// counters and Wilson score move in one transaction, so concurrent voters are
// all counted and concurrent changes of one vote leave the counters equal to
// the votes. One vote per customer per review is a unique index; a
// concurrent first vote of the same customer starts the attempt over.
func (s *svc) voteOnReview(ctx context.Context, a *voteArgs) (*Voted, error) {
	who := author(ctx)
	return store.Retry(ctx, "the review's votes", func(ctx context.Context) (*Voted, error) {
		var out *Voted
		err := s.atomically(ctx, func(ctx context.Context) error {
			out = nil
			var prev *domain.Vote
			changed := false
			var r *domain.Review
			err := s.reviews.Update(ctx, a.ReviewID, func(rev *domain.Review) error {
				if err := seen(ctx, rev); err != nil {
					return err
				}
				if err := rev.CheckVoter(who.CustomerID); err != nil {
					return err
				}
				var err error
				if prev, err = s.votes.Of(ctx, rev.ID, who.CustomerID); err != nil {
					return err
				}
				var was *bool
				if prev != nil {
					was = &prev.IsHelpful
				}
				changed, err = rev.Vote(who.CustomerID, was, a.IsHelpful)
				r = rev
				return err
			})
			if err != nil {
				return err
			}
			out = &Voted{ReviewID: r.ID, HelpfulCount: r.Helpful, NotHelpfulCount: r.NotHelpful, UserVote: a.IsHelpful}
			if !changed {
				return nil // the same vote again changes nothing
			}
			now := s.now()
			if prev != nil {
				err = s.votes.Change(ctx, prev, a.IsHelpful, now)
			} else {
				err = s.votes.Insert(ctx, &domain.Vote{ID: domain.VoteID(r.ID, who.CustomerID), ReviewID: r.ID, StoreID: r.StoreID,
					CustomerID: who.CustomerID, UserID: who.UserID, IsHelpful: a.IsHelpful, CreatedAt: now, UpdatedAt: now})
			}
			if err != nil {
				return err
			}
			return s.stats.Change(ctx, r.StoreID, domain.Delta{}, now) // the lists show the counters
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

// storeVotes are a user's votes on a store's reviews: review id -> isHelpful.
func (s *svc) storeVotes(ctx context.Context, userID, storeID string) (map[string]bool, error) {
	return s.votes.OfUserInStore(ctx, userID, storeID)
}

// userVotes are the caller's votes on the given reviews: review id -> isHelpful.
func (s *svc) userVotes(ctx context.Context, userID string, reviewIDs []string) (map[string]bool, error) {
	return s.votes.OfUser(ctx, userID, reviewIDs)
}
