package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// Votes is the repository of helpfulness votes.
type Votes struct{ db *store.DB }

// NewVotes is the repository of votes on db.
func NewVotes(db *store.DB) *Votes { return &Votes{db: db} }

// Of is the customer's vote on the review, nil when there is none.
func (v *Votes) Of(ctx context.Context, reviewID, customerID string) (*domain.Vote, error) {
	return store.FindOne[domain.Vote](ctx, v.db.Collection(votesColl), bson.M{"reviewId": reviewID, "customerId": customerID})
}

// Insert stores a first vote; the same customer's concurrent first vote on
// the review is store.ErrConflict (one vote per customer per review).
func (v *Votes) Insert(ctx context.Context, vote *domain.Vote) error {
	_, err := v.db.Collection(votesColl).InsertOne(ctx, *vote)
	if store.IsDuplicate(err) {
		return store.ErrConflict
	}
	return err
}

// Change turns the vote as loaded (was) into helpful, at now.
func (v *Votes) Change(ctx context.Context, was *domain.Vote, helpful bool, now int64) error {
	_, err := v.db.Collection(votesColl).UpdateOne(ctx, bson.M{"_id": was.ID, "isHelpful": was.IsHelpful},
		bson.M{"$set": bson.M{"isHelpful": helpful, "updatedAt": now}})
	return err
}

// OfUserInStore are a user's votes on a store's reviews: review id ->
// isHelpful.
func (v *Votes) OfUserInStore(ctx context.Context, userID, storeID string) (map[string]bool, error) {
	return v.find(ctx, bson.M{"userId": userID, "storeId": storeID})
}

// OfUser are a user's votes on the given reviews: review id -> isHelpful.
func (v *Votes) OfUser(ctx context.Context, userID string, reviewIDs []string) (map[string]bool, error) {
	if userID == "" || len(reviewIDs) == 0 {
		return map[string]bool{}, nil
	}
	return v.find(ctx, bson.M{"userId": userID, "reviewId": bson.M{"$in": reviewIDs}})
}

func (v *Votes) find(ctx context.Context, filter bson.M) (map[string]bool, error) {
	votes, err := store.FindAll[domain.Vote](ctx, v.db.Collection(votesColl), filter, options.Find().SetProjection(bson.M{"reviewId": 1, "isHelpful": 1}))
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, vote := range votes {
		out[vote.ReviewID] = vote.IsHelpful
	}
	return out, nil
}
