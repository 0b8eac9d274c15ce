package reviews

import (
	"context"
	"fmt"

	"marketplace/libs/apperr"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/services/reviews/domain"
	"marketplace/services/reviews/storage"
)

type listArgs struct {
	StoreID        string    `json:"storeId" op:"required,id=stores"`
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
	SortBy         *string   `json:"sortBy" op:"enum=newest|oldest|highest_rating|lowest_rating|most_helpful"`
	RatingFilter   *int      `json:"ratingFilter" op:"min=1,max=5"`
	VerifiedOnly   *bool     `json:"verifiedOnly"`
	From           *int64    `json:"from" op:"min=0"`
	To             *int64    `json:"to" op:"min=0"`
}

// checkStore answers NOT_FOUND for a store the catalog does not have.
func (s *svc) checkStore(ctx context.Context, storeID string) error {
	st, err := s.catalog.Store(ctx, storeID)
	if err != nil {
		return err
	}
	if st == nil {
		return apperr.New(apperr.NotFound, "store %s does not exist", storeID)
	}
	return nil
}

// getStoreReviews pages a store's visible reviews. Pages are kept in a cache
// keyed by the store's statistics version, which every change a list shows
// (a review added, edited, deleted, hidden or shown, a vote, a response)
// moves on in its own transaction: a page is reused only while nothing it
// shows has changed, on any instance. The caller's votes on the store's
// reviews are kept the same way, per caller (a vote moves the version on
// too). What was computed is kept only when the version read after computing
// it is the one read before (no change committed meanwhile).
func (s *svc) getStoreReviews(ctx context.Context, a *listArgs) (page.Result[ReviewItem], error) {
	period, err := page.NewPeriod(a.From, a.To)
	if err != nil {
		return page.Result[ReviewItem]{}, err
	}
	if err := domain.CheckListSort(orEmpty(a.SortBy), period.IsSet()); err != nil {
		return page.Result[ReviewItem]{}, err
	}
	l := storage.StoreList{StoreID: a.StoreID, SortBy: orEmpty(a.SortBy), Rating: a.RatingFilter, VerifiedOnly: a.VerifiedOnly != nil && *a.VerifiedOnly, Period: period}
	fp := l.Query()
	opts := a.PaginationOpts
	opts.NumItems = min(max(opts.NumItems, 1), page.MaxItems)

	version, exists, err := s.stats.Version(ctx, a.StoreID)
	if err != nil {
		return page.Result[ReviewItem]{}, err
	}
	if !exists {
		if err := s.checkStore(ctx, a.StoreID); err != nil {
			return page.Result[ReviewItem]{}, err
		}
	}
	key := fmt.Sprintf("%s|%d|%s|%d|%s", a.StoreID, version, fp, opts.NumItems, orEmpty(opts.Cursor))
	res, pageHit := s.pages.Get(key)
	if !pageHit {
		docs, err := s.reviews.PageOfStore(ctx, l, opts)
		if err != nil {
			return page.Result[ReviewItem]{}, err
		}
		res = page.Map(docs, s.item)
	}
	caller := ops.Caller(ctx)
	var votes map[string]bool
	votesHit := true
	votesKey := ""
	if caller != nil && len(res.Page) > 0 {
		votesKey = fmt.Sprintf("%s|%s|%d", caller.Sub, a.StoreID, version)
		if votes, votesHit = s.callerVotes.Get(votesKey); !votesHit {
			if votes, err = s.storeVotes(ctx, caller.Sub, a.StoreID); err != nil {
				return page.Result[ReviewItem]{}, err
			}
		}
	}
	if exists && (!pageHit || !votesHit) {
		if after, ok, err := s.stats.Version(ctx, a.StoreID); err == nil && ok && after == version {
			if !pageHit {
				s.pages.Put(key, res)
			}
			if !votesHit {
				s.callerVotes.Put(votesKey, votes)
			}
		}
	}
	return withVotes(res, votes), nil
}

// withVotes is a copy of the page with the caller's votes (cached pages are
// shared: never changed).
func withVotes(res page.Result[ReviewItem], votes map[string]bool) page.Result[ReviewItem] {
	if len(votes) == 0 {
		return res
	}
	out := res
	out.Page = make([]ReviewItem, len(res.Page))
	copy(out.Page, res.Page)
	for i := range out.Page {
		if v, ok := votes[out.Page[i].ID]; ok {
			out.Page[i].UserVote = &v
		}
	}
	return out
}

type storeArgs struct {
	StoreID string `json:"storeId" op:"required,id=stores"`
}

// getStoreReviewStats reads the store's statistics document (one read); a
// store without reviews has zeros, a store the catalog does not know is
// NOT_FOUND.
func (s *svc) getStoreReviewStats(ctx context.Context, a *storeArgs) (*StatsView, error) {
	d, err := s.stats.Of(ctx, a.StoreID)
	if err != nil {
		return nil, err
	}
	if d == nil {
		if err := s.checkStore(ctx, a.StoreID); err != nil {
			return nil, err
		}
		d = &domain.StoreStats{StoreID: a.StoreID}
	}
	v := statsView(a.StoreID, d)
	return &v, nil
}

// getReview is one review, or null for a review that does not exist. A hidden
// review is shown only to its author and to administrators (anyone else gets
// null, as for a missing one).
func (s *svc) getReview(ctx context.Context, a *reviewArgs) (*ReviewDetail, error) {
	r, err := s.reviews.Find(ctx, a.ReviewID)
	if err != nil || r == nil {
		return nil, err
	}
	caller := ops.Caller(ctx)
	author := caller != nil && caller.Sub == r.UserID
	admin := caller != nil && caller.IsAdmin()
	if r.Hidden && !author && !admin {
		return nil, nil
	}
	d := s.detail(r, author, admin)
	if caller != nil && !author {
		votes, err := s.userVotes(ctx, caller.Sub, []string{r.ID})
		if err != nil {
			return nil, err
		}
		if v, ok := votes[r.ID]; ok {
			d.UserVote = &v
		}
	}
	return &d, nil
}

type customerReviewsArgs struct {
	PaginationOpts page.Opts `json:"paginationOpts" op:"required"`
}

// getCustomerReviews pages the caller's own reviews, newest first, hidden ones
// included (isHidden says so), with their stores and store responses. A caller
// without a customer profile has none.
func (s *svc) getCustomerReviews(ctx context.Context, a *customerReviewsArgs) (page.Result[ReviewDetail], error) {
	c := ops.CustomerOf(ctx)
	if c == nil {
		return page.Result[ReviewDetail]{Page: []ReviewDetail{}, IsDone: true, ContinueCursor: orEmpty(a.PaginationOpts.Cursor)}, nil
	}
	docs, err := s.reviews.PageOfCustomer(ctx, c.ID, a.PaginationOpts)
	if err != nil {
		return page.Result[ReviewDetail]{}, err
	}
	return page.Map(docs, func(r *domain.Review) ReviewDetail { return s.detail(r, true, false) }), nil
}
