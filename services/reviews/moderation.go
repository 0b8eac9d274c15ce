package reviews

import (
	"context"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
	"marketplace/services/reviews/storage"
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
	who := author(ctx)
	id, description := ids.New("reviewFlags"), orEmpty(domain.CleanText(a.Description))
	err := s.atomically(ctx, func(ctx context.Context) error {
		r, err := s.reviewToActOn(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		f, err := domain.NewFlag(id, r, who, a.Reason, description, s.now())
		if err != nil {
			return err
		}
		// Write the review too (while it is still shown), so a flag racing a
		// delete or a hide of it conflicts with them on MongoDB instead of
		// leaving a pending flag on a review that is gone or hidden.
		shown, err := s.reviews.MarkFlagged(ctx, r.ID)
		if err != nil {
			return err
		}
		if !shown { // hidden or deleted meanwhile: as for a missing review
			return domain.ErrNoReview(r.ID)
		}
		if err := s.flags.Insert(ctx, f); err != nil {
			return err
		}
		return s.publish(ctx, contract.EventFlagRaised, r.ID, contract.FlagRaised{
			FlagID: f.ID, ReviewID: r.ID, StoreID: r.StoreID, Reason: f.Reason, Description: f.Description, FlaggedByUserID: who.UserID,
		})
	})
	if store.IsDuplicate(err) {
		return nil, apperr.New(apperr.AlreadyExists, "you have already flagged review %s", a.ReviewID)
	}
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return &Flagged{FlagID: id, Message: "Thank you: the review was reported to our moderators"}, nil
}

type listFlagsArgs struct {
	Status         *string   `json:"status" op:"enum=pending|dismissed|resolved"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
	Sort           *string   `json:"sort" op:"enum=oldest|newest"`
	By             *string   `json:"by" op:"enum=report|decision"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// flagList is listFlags' and countFlags' list (the period checked:
// page.NewPeriod). by decision orders (and takes the period) by decision
// time: decisions only, so of status dismissed or resolved (else
// INVALID_ARGUMENT: pending flags have no decision).
func flagList(status *string, from, to *int64, sort, by *string) (storage.FlagList, error) {
	p, err := page.NewPeriod(from, to)
	if err != nil {
		return storage.FlagList{}, err
	}
	l := storage.FlagList{Status: orEmpty(status), Period: p, Newest: orEmpty(sort) == "newest", ByDecision: orEmpty(by) == "decision"}
	if l.ByDecision && l.Status != contract.FlagStatusDismissed && l.Status != contract.FlagStatusResolved {
		return storage.FlagList{}, apperr.Invalid("by", "decision lists one decided status: status dismissed or resolved")
	}
	return l, nil
}

// listFlags pages the flags, oldest first (a queue) unless sort is newest,
// optionally of one status and raised from..to (epoch ms, inclusive), each
// with its review as administrators see it.
func (s *svc) listFlags(ctx context.Context, a *listFlagsArgs) (page.Result[FlagView], error) {
	l, err := flagList(a.Status, a.From, a.To, a.Sort, a.By)
	if err != nil {
		return page.Result[FlagView]{}, err
	}
	res, err := s.flags.Page(ctx, l, a.PaginationOpts)
	if err != nil {
		return page.Result[FlagView]{}, err
	}
	reviewIDs := make([]string, 0, len(res.Page))
	for _, f := range res.Page {
		reviewIDs = append(reviewIDs, f.ReviewID)
	}
	byID, err := s.reviews.ByIDs(ctx, reviewIDs)
	if err != nil {
		return page.Result[FlagView]{}, err
	}
	return page.Map(res, func(f *domain.Flag) FlagView {
		v := FlagView{ID: f.ID, CreationTime: f.CreatedAt, ReviewID: f.ReviewID, StoreID: f.StoreID, Reason: f.Reason,
			Description: f.Description, Status: f.Status, Resolution: f.Resolution,
			FlaggedBy: FlaggedBy{CustomerID: f.CustomerID, UserID: f.UserID, Name: f.CustomerName}}
		if r := byID[f.ReviewID]; r != nil { // a review's flags go with it, so it is there
			v.Review = s.detail(r, false, true)
		}
		return v
	}), nil
}

type countFlagsArgs struct {
	Status *string `json:"status" op:"enum=pending|dismissed|resolved"`
	From   *int64  `json:"from" op:"min=0"`
	To     *int64  `json:"to" op:"min=0"`
	By     *string `json:"by" op:"enum=report|decision"`
}

// MaxFlagCount is where countFlags stops counting (capped).
const MaxFlagCount = 10_000

// FlagCount is countFlags' answer.
type FlagCount struct {
	Count  int  `json:"count"`
	Capped bool `json:"capped"` // more than MaxFlagCount; Count is MaxFlagCount
}

// countFlags counts what listFlags lists with the same filters, up to
// MaxFlagCount: the console's page numbers.
func (s *svc) countFlags(ctx context.Context, a *countFlagsArgs) (FlagCount, error) {
	l, err := flagList(a.Status, a.From, a.To, nil, a.By)
	if err != nil {
		return FlagCount{}, err
	}
	n, err := s.flags.Count(ctx, l, MaxFlagCount+1)
	if err != nil {
		return FlagCount{}, err
	}
	if n > MaxFlagCount {
		return FlagCount{Count: MaxFlagCount, Capped: true}, nil
	}
	return FlagCount{Count: int(n)}, nil
}

type resolveArgs struct {
	FlagID      string  `json:"flagId" op:"required,id=reviewFlags"`
	AdminUserID string  `json:"adminUserId" op:"required,nonblank"`
	Action      string  `json:"action" op:"required,enum=dismiss|hide_review"`
	AdminNotes  *string `json:"adminNotes" op:"multiline,max=2000"`
}

// resolveFlag decides a pending flag (another status: FAILED_PRECONDITION; of
// two administrators deciding at once, one does). dismiss: the flag is
// dismissed, the review stays. hide_review: the review is hidden (statistics
// updated, its author notified through review.hidden) and every pending flag
// of it is resolved; one review.flag_resolved goes out per flag.
func (s *svc) resolveFlag(ctx context.Context, a *resolveArgs) (ops.Null, error) {
	d := domain.Decision{Action: a.Action, AdminUserID: a.AdminUserID, AdminName: ops.ActingName(ctx, a.AdminUserID), AdminNotes: orEmpty(domain.CleanText(a.AdminNotes))}
	err := s.atomically(ctx, func(ctx context.Context) error {
		f, err := s.flags.Get(ctx, a.FlagID)
		if err != nil {
			return err
		}
		if err := f.CheckPending(); err != nil {
			return err
		}
		now := s.now()
		if d.Action == contract.ActionDismiss {
			if _, _, _, err := f.Decide(d, now); err != nil {
				return err
			}
			return s.settle(ctx, f)
		}
		r, err := s.reviews.Get(ctx, f.ReviewID)
		if err != nil {
			return err
		}
		_, others, m, err := f.Decide(d, now)
		if err != nil {
			return err
		}
		if err := s.settle(ctx, f); err != nil {
			return err
		}
		return s.hide(ctx, r.ID, others, true, m)
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	return nil, nil
}

// settle saves a flag's decision with its review.flag_resolved.
func (s *svc) settle(ctx context.Context, f *domain.Flag) error {
	if err := s.flags.Settle(ctx, f); err != nil {
		return err
	}
	return s.publish(ctx, contract.EventFlagResolved, f.ReviewID, f.Settled())
}

// hide hides (resolving the review's pending flags with res) or shows review
// reviewID with the decision m: the statistics lose or regain it and
// review.hidden or review.shown goes out. A review already in that state is
// left as it is (changed false).
func (s *svc) hide(ctx context.Context, reviewID string, res domain.Resolution, hidden bool, m domain.Moderation) error {
	if hidden {
		pending, err := s.flags.Pending(ctx, reviewID)
		if err != nil {
			return err
		}
		settled, err := domain.ResolveByHiding(pending, res)
		if err != nil {
			return err
		}
		for i := range settled {
			if err := s.settle(ctx, &settled[i]); err != nil {
				return err
			}
		}
	}
	var d domain.Delta
	var r *domain.Review
	changed := false
	err := s.reviews.Update(ctx, reviewID, func(rev *domain.Review) error {
		d, changed = rev.SetHidden(hidden, m)
		r = rev
		return nil
	})
	if err != nil || !changed {
		return err
	}
	if err := s.stats.Change(ctx, r.StoreID, d, m.At); err != nil {
		return err
	}
	ev := r.Event()
	ev.ByUserID, ev.AdminName, ev.FlagID, ev.AdminNotes = m.ByUserID, m.ByName, m.FlagID, m.AdminNotes
	return s.publish(ctx, domain.VisibilityEvent(hidden), r.ID, ev)
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
	notes := orEmpty(domain.CleanText(a.AdminNotes))
	changed := false
	err := s.atomically(ctx, func(ctx context.Context) error {
		r, err := s.reviews.Get(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		changed = r.Hidden == a.Visible
		if !changed {
			return nil
		}
		m, res := domain.VisibilityDecision(a.Visible, a.AdminUserID, ops.ActingName(ctx, a.AdminUserID), notes, s.now())
		return s.hide(ctx, r.ID, res, !a.Visible, m)
	})
	if err != nil {
		return nil, err
	}
	if changed {
		s.env.Relay.Kick()
	}
	return nil, nil
}
