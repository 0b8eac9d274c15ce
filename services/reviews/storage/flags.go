package storage

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// Flags is the repository of flags.
type Flags struct{ db *store.DB }

// NewFlags is the repository of flags on db.
func NewFlags(db *store.DB) *Flags { return &Flags{db: db} }

// Get is flag id, NOT_FOUND when there is none.
func (f *Flags) Get(ctx context.Context, id string) (*domain.Flag, error) {
	flag, err := store.FindOne[domain.Flag](ctx, f.db.Collection(flagsColl), bson.M{"_id": id})
	if err == nil && flag == nil {
		err = apperr.New(apperr.NotFound, "flag %s does not exist", id)
	}
	return flag, err
}

// Insert stores a new flag (a duplicate: the customer already flagged the
// review).
func (f *Flags) Insert(ctx context.Context, flag *domain.Flag) error {
	_, err := f.db.Collection(flagsColl).InsertOne(ctx, *flag)
	return err
}

// Settle saves a flag's decision (domain.Flag.Settle) while the flag is
// still pending as stored: of two decisions at once, one is kept, the other
// is FAILED_PRECONDITION.
func (f *Flags) Settle(ctx context.Context, flag *domain.Flag) error {
	u, err := f.db.Collection(flagsColl).UpdateOne(ctx, bson.M{"_id": flag.ID, "status": contract.FlagStatusPending},
		bson.M{"$set": bson.M{"status": flag.Status, "resolution": flag.Resolution}})
	if err != nil {
		return err
	}
	if u.ModifiedCount != 1 {
		return domain.ErrDecidedMeanwhile(flag.ID)
	}
	return nil
}

// Pending are the review's pending flags.
func (f *Flags) Pending(ctx context.Context, reviewID string) ([]domain.Flag, error) {
	return store.FindAll[domain.Flag](ctx, f.db.Collection(flagsColl), bson.M{"reviewId": reviewID, "status": contract.FlagStatusPending})
}

// FlagList is a list of flags (listFlags): of one status ("": all),
// raised in a period, oldest first (a queue) unless Newest. ByDecision (a
// decided status only: the service checks it): by decision time instead,
// the period on it too.
type FlagList struct {
	Status     string
	Period     page.Period
	Newest     bool
	ByDecision bool
}

// filter is the list's query: a range of by_status (with a status), of
// oldest (without), or of decided_by_status (ByDecision).
func (l FlagList) filter() bson.M {
	filter := bson.M{}
	if l.Status != "" {
		filter["status"] = l.Status
	}
	if r := l.Period.Range(); r != nil {
		if l.ByDecision {
			filter["resolution.resolvedAt"] = bson.M(r)
		} else {
			filter["createdAt"] = bson.M(r)
		}
	}
	return filter
}

// Page is a page of the list (its filter), in either direction.
func (f *Flags) Page(ctx context.Context, l FlagList, opts page.Opts) (page.Result[domain.Flag], error) {
	return findPage(ctx, f.db.Collection(flagsColl), l.filter(), l.order(), l.query(), opts, flagKeys)
}

// order is the list's order: by report or (ByDecision) decision time.
func (l FlagList) order() ordering {
	switch {
	case l.ByDecision && l.Newest:
		return flagDecidedNewest
	case l.ByDecision:
		return flagDecidedOldest
	case l.Newest:
		return flagNewest
	}
	return flagOrder
}

// query names the list (its order and filters): its cursors are valid for
// it only.
func (l FlagList) query() string {
	return fingerprint(l.order(), append([]string{l.Status}, periodParts(l.Period)...)...)
}

// Count counts the list's flags, stopping at limit: a range of by_status
// or oldest, or (neither a status nor a period) the first limit flags.
func (f *Flags) Count(ctx context.Context, l FlagList, limit int64) (int64, error) {
	filter := l.filter()
	if len(filter) == 0 {
		ctx = store.Scan(ctx, "every flag counted, stopping at the count's cap (limit records read at most)")
	}
	return f.db.Collection(flagsColl).CountDocuments(ctx, filter, options.Count().SetLimit(limit))
}
