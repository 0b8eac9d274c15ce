package reviews

import (
	"context"

	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
)

// Flags and moderation. A flag is created pending and goes out as
// review.flag_raised (the administrators' inbox). The flagged review stays
// visible and counted until an administrator decides: resolveFlag dismisses
// the flag (the review stays) or hides the review, which resolves every
// pending flag of it; setReviewVisibility hides a review (resolving its
// pending flags the same way) or shows it again. Who decided, when, how and
// why is kept on each flag (resolution) and the last decision on the review
// (moderation).

type flagArgs struct {
	ReviewID    string  `json:"reviewId" op:"required,id=storeReviews"`
	Reason      string  `json:"reason" op:"required,enum=spam|inappropriate|fake|offensive|irrelevant|other"`
	Description *string `json:"description" op:"multiline,max=1000"`
}

// Flagged is flagReview's answer.
type Flagged struct {
	FlagID  string `json:"flagId"`
	Message string `json:"message"`
}

// flagReview records the caller's flag on a review (one per customer per
// review: ALREADY_EXISTS) and sends review.flag_raised with it.
func (s *svc) flagReview(ctx context.Context, a *flagArgs) (*Flagged, error) {
	c := ops.CustomerOf(ctx)
	f := flagDoc{ID: ids.New("reviewFlags"), ReviewID: a.ReviewID, CustomerID: c.ID, UserID: c.UserID, CustomerName: c.Name,
		Reason: a.Reason, Description: orEmpty(cleanText(a.Description)), Status: contract.FlagStatusPending, CreatedAt: s.now()}
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		r, err := s.reviewToActOn(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		switch {
		case r.CustomerID == c.ID:
			return apperr.New(apperr.FailedPrecondition, "you cannot flag your own review: edit or delete it instead")
		case r.Hidden:
			return apperr.New(apperr.FailedPrecondition, "review %s is already hidden by the moderators", r.ID)
		}
		f.StoreID = r.StoreID
		// Write the review too (while it is still shown), so a flag racing a
		// delete or a hide of it conflicts with them on MongoDB instead of
		// leaving a pending flag on a review that is gone or hidden.
		res, err := s.env.DB.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": r.ID, "hidden": false}, bson.M{"$inc": bson.M{"flagCount": 1}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 { // hidden or deleted meanwhile: as for a missing review
			return errNoReview(r.ID)
		}
		if _, err := s.env.DB.Collection(flagsColl).InsertOne(ctx, f); err != nil {
			return err
		}
		return s.publish(ctx, contract.EventFlagRaised, r.ID, contract.FlagRaised{
			FlagID: f.ID, ReviewID: r.ID, StoreID: r.StoreID, Reason: f.Reason, Description: f.Description, FlaggedByUserID: c.UserID,
		})
	})
	if store.IsDuplicate(err) {
		return nil, apperr.New(apperr.AlreadyExists, "you have already flagged review %s", a.ReviewID)
	}
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return &Flagged{FlagID: f.ID, Message: "Thank you: the review was reported to our moderators"}, nil
}

type listFlagsArgs struct {
	Status         *string   `json:"status" op:"enum=pending|dismissed|resolved"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// listFlags pages the flags, oldest first (a queue), optionally of one
// status, each with its review as administrators see it.
func (s *svc) listFlags(ctx context.Context, a *listFlagsArgs) (page.Result[FlagView], error) {
	filter := bson.M{}
	status := ""
	if a.Status != nil {
		status = *a.Status
		filter["status"] = status
	}
	res, err := findPage[flagDoc](ctx, s.env.DB.Collection(flagsColl), filter, flagOrder, fingerprint(flagOrder, status), a.PaginationOpts)
	if err != nil {
		return page.Result[FlagView]{}, err
	}
	reviewIDs := make([]string, 0, len(res.Page))
	for _, f := range res.Page {
		reviewIDs = append(reviewIDs, f.ReviewID)
	}
	byID := map[string]*reviewDoc{}
	if len(reviewIDs) > 0 {
		cur, err := s.env.DB.Collection(reviewsColl).Find(ctx, bson.M{"_id": bson.M{"$in": reviewIDs}})
		if err != nil {
			return page.Result[FlagView]{}, err
		}
		var rs []reviewDoc
		if err := cur.All(ctx, &rs); err != nil {
			return page.Result[FlagView]{}, err
		}
		for i := range rs {
			byID[rs[i].ID] = &rs[i]
		}
	}
	return page.Map(res, func(f *flagDoc) FlagView {
		v := FlagView{ID: f.ID, CreationTime: f.CreatedAt, ReviewID: f.ReviewID, StoreID: f.StoreID, Reason: f.Reason,
			Description: f.Description, Status: f.Status, Resolution: f.Resolution,
			FlaggedBy: FlaggedBy{CustomerID: f.CustomerID, UserID: f.UserID, Name: f.CustomerName}}
		if r := byID[f.ReviewID]; r != nil { // a review's flags go with it, so it is there
			v.Review = s.detail(r, false, true)
		}
		return v
	}), nil
}

type resolveArgs struct {
	FlagID      string  `json:"flagId" op:"required,id=reviewFlags"`
	AdminUserID string  `json:"adminUserId" op:"required,nonblank"`
	Action      string  `json:"action" op:"required,enum=dismiss|hide_review"`
	AdminNotes  *string `json:"adminNotes" op:"multiline,max=2000"`
}

// Where a flag's resolution came from.
const (
	throughResolveFlag = "resolveFlag"
	throughVisibility  = "setReviewVisibility"
)

// resolveFlag decides a pending flag (another status: FAILED_PRECONDITION; of
// two administrators deciding at once, one does). dismiss: the flag is
// dismissed, the review stays. hide_review: the review is hidden (statistics
// updated, its author notified through review.hidden) and every pending flag
// of it is resolved; one review.flag_resolved goes out per flag.
func (s *svc) resolveFlag(ctx context.Context, a *resolveArgs) (ops.Null, error) {
	notes := orEmpty(cleanText(a.AdminNotes))
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		var f flagDoc
		err := s.env.DB.Collection(flagsColl).FindOne(ctx, bson.M{"_id": a.FlagID}).Decode(&f)
		if store.IsNotFound(err) {
			return apperr.New(apperr.NotFound, "flag %s does not exist", a.FlagID)
		}
		if err != nil {
			return err
		}
		if f.Status != contract.FlagStatusPending {
			return apperr.New(apperr.FailedPrecondition, "flag %s was already %s", f.ID, f.Status)
		}
		now := s.now()
		res := resolution{Action: a.Action, AdminUserID: a.AdminUserID, ResolvedAt: now, AdminNotes: notes, Through: throughResolveFlag}
		if a.Action == contract.ActionDismiss {
			return s.settleFlags(ctx, []flagDoc{f}, contract.FlagStatusDismissed, res)
		}
		r, err := s.existingReview(ctx, f.ReviewID)
		if err != nil {
			return err
		}
		if err := s.settleFlags(ctx, []flagDoc{f}, contract.FlagStatusResolved, res); err != nil {
			return err
		}
		res.ByFlag = f.ID
		if err := s.settlePending(ctx, r.ID, res); err != nil {
			return err
		}
		return s.setHidden(ctx, r, true, moderation{Visible: false, ByUserID: a.AdminUserID, At: now, FlagID: f.ID, AdminNotes: notes})
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return nil, nil
}

// settleFlags moves pending flags to status with res, each with its
// review.flag_resolved. A flag no longer pending (decided concurrently) is
// FAILED_PRECONDITION.
func (s *svc) settleFlags(ctx context.Context, flags []flagDoc, status string, res resolution) error {
	for _, f := range flags {
		u, err := s.env.DB.Collection(flagsColl).UpdateOne(ctx, bson.M{"_id": f.ID, "status": contract.FlagStatusPending},
			bson.M{"$set": bson.M{"status": status, "resolution": res}})
		if err != nil {
			return err
		}
		if u.ModifiedCount != 1 {
			return apperr.New(apperr.FailedPrecondition, "flag %s was decided meanwhile", f.ID)
		}
		if err := s.publish(ctx, contract.EventFlagResolved, f.ReviewID, contract.FlagResolved{
			FlagID: f.ID, ReviewID: f.ReviewID, StoreID: f.StoreID, Reason: f.Reason, Status: status, Action: res.Action,
			AdminUserID: res.AdminUserID, AdminNotes: res.AdminNotes, FlaggedByUserID: f.UserID, ResolvedAt: res.ResolvedAt,
		}); err != nil {
			return err
		}
	}
	return nil
}

// settlePending resolves every pending flag of a review (it is being hidden).
func (s *svc) settlePending(ctx context.Context, reviewID string, res resolution) error {
	cur, err := s.env.DB.Collection(flagsColl).Find(ctx, bson.M{"reviewId": reviewID, "status": contract.FlagStatusPending})
	if err != nil {
		return err
	}
	var pending []flagDoc
	if err := cur.All(ctx, &pending); err != nil {
		return err
	}
	res.Action = contract.ActionHideReview
	return s.settleFlags(ctx, pending, contract.FlagStatusResolved, res)
}

// setHidden hides or shows a review: the statistics lose or regain it and
// review.hidden or review.shown goes out. A review already in that state is
// left as it is.
func (s *svc) setHidden(ctx context.Context, r *reviewDoc, hidden bool, m moderation) error {
	if r.Hidden == hidden {
		return nil
	}
	if _, err := s.env.DB.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": r.ID, "hidden": r.Hidden},
		bson.M{"$set": bson.M{"hidden": hidden, "moderation": m}}); err != nil {
		return err
	}
	d, eventType := Add(r.Rating, r.Verified), contract.EventShown
	if hidden {
		d, eventType = Remove(r.Rating, r.Verified), contract.EventHidden
	}
	if err := s.changeStats(ctx, r.StoreID, d, m.At); err != nil {
		return err
	}
	r.Hidden, r.Moderation = hidden, &m
	ev := r.event()
	ev.ByUserID, ev.FlagID, ev.AdminNotes = m.ByUserID, m.FlagID, m.AdminNotes
	return s.publish(ctx, eventType, r.ID, ev)
}

type visibilityArgs struct {
	ReviewID    string  `json:"reviewId" op:"required,id=storeReviews"`
	AdminUserID string  `json:"adminUserId" op:"required,nonblank"`
	Visible     bool    `json:"visible" op:"required"`
	AdminNotes  *string `json:"adminNotes" op:"multiline,max=2000"`
}

// setReviewVisibility hides a review (its pending flags are resolved as by
// hide_review) or shows it again; setting the state it has changes nothing.
func (s *svc) setReviewVisibility(ctx context.Context, a *visibilityArgs) (ops.Null, error) {
	notes := orEmpty(cleanText(a.AdminNotes))
	changed := false
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		r, err := s.existingReview(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		changed = r.Hidden == a.Visible
		if !changed {
			return nil
		}
		now := s.now()
		if !a.Visible {
			res := resolution{Action: contract.ActionHideReview, AdminUserID: a.AdminUserID, ResolvedAt: now, AdminNotes: notes, Through: throughVisibility}
			if err := s.settlePending(ctx, r.ID, res); err != nil {
				return err
			}
		}
		return s.setHidden(ctx, r, !a.Visible, moderation{Visible: a.Visible, ByUserID: a.AdminUserID, At: now, AdminNotes: notes})
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.env.Relay.Kick()
	}
	return nil, nil
}
