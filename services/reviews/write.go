package reviews

import (
	"context"
	"fmt"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

type addArgs struct {
	StoreID  string   `json:"storeId" op:"required,id=stores"`
	OrderID  *string  `json:"orderId" op:"id=orders"`
	Rating   int      `json:"rating" op:"required,min=1,max=5"`
	Title    *string  `json:"title" op:"max=200"`
	Comment  *string  `json:"comment" op:"multiline,max=5000"`
	PhotoIDs []string `json:"photoIds" op:"max=10,id=_storage"`
}

// Added is addReview's answer.
type Added struct {
	ReviewID string `json:"reviewId"`
	Message  string `json:"message"`
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// addReview writes the caller's review of a store. Verified purchase
// (domain.Verification, docs/adr/0069-verified-purchase.md): a store's owner may not review their own store
// (the owner read afresh from the catalog); a cited order must exist and be
// the caller's (else NOT_FOUND, the same answer for both) and be of the store
// (INVALID_ARGUMENT), and not reviewed by them already (ALREADY_EXISTS); it
// verifies the review unless it is cancelled or already verifies another
// review; without orderId, a delivered order no verified review uses does.
// The facts are asked of the customers service now, so a delivery that has
// returned counts; the uses are this service's, read in the transaction. The
// order that verifies a review has a document in verifiedOrders naming it,
// written in the review's transaction: two reviews racing for one order
// cannot both be verified (the loser starts over, and is decided again on
// what the winner wrote). The review, the statistics and review.created
// commit together.
func (s *svc) addReview(ctx context.Context, a *addArgs) (*Added, error) {
	draft := domain.Draft{StoreID: a.StoreID, OrderID: orEmpty(a.OrderID), Rating: a.Rating,
		Title: orEmpty(domain.CleanText(a.Title)), Comment: orEmpty(domain.CleanText(a.Comment)), PhotoIDs: a.PhotoIDs}
	if err := domain.CheckDraft(draft); err != nil {
		return nil, err
	}
	st, err := s.catalog.StoreNow(ctx, a.StoreID) // the owner as it is now, not as cached
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, apperr.New(apperr.NotFound, "store %s does not exist", a.StoreID)
	}
	draft.StoreID, draft.StoreName = st.ID, st.Name
	who := author(ctx)
	p := domain.Purchase{OwnStore: st.OwnerUserID != "" && st.OwnerUserID == ops.Caller(ctx).Sub}
	if err := domain.CheckOwner(p.OwnStore); err != nil { // before anything is asked
		return nil, err
	}
	facts, err := s.customers.PurchaseFacts(ctx, who.CustomerID, a.StoreID, draft.OrderID)
	if err != nil {
		return nil, err
	}
	p.OrderID = draft.OrderID
	p.OrderExists, p.OrderOfCustomer, p.OrderOfStore, p.OrderStatus = facts.OrderExists, facts.OrderOfCustomer, facts.OrderOfStore, facts.OrderStatus
	p.Delivered = facts.DeliveredOrderIDs
	if facts.DeliveredOrderIDs == nil && facts.DeliveredOrders > 0 {
		s.env.Logger.WarnContext(ctx, "reviews: the customers service does not name delivered orders (an older release): no delivered order verifies this review",
			"customerId", who.CustomerID, "storeId", a.StoreID, "deliveredOrders", facts.DeliveredOrders)
	}
	if err := domain.CheckOrder(p); err != nil { // the order's refusals, before the photos are claimed
		return nil, err
	}
	if err := s.checkPhotos(ctx, ops.Caller(ctx).Sub, a.PhotoIDs); err != nil {
		return nil, err
	}
	if err := s.stats.Ensure(ctx, a.StoreID, s.now()); err != nil {
		return nil, err
	}
	r, err := store.Retry(ctx, "your verified reviews of the store", func(ctx context.Context) (*domain.Review, error) {
		var r *domain.Review
		err := s.atomically(ctx, func(ctx context.Context) error {
			// The same order reviewed, or taken to verify another review,
			// meanwhile: a conflict, reported from inside the transaction (a
			// keyed call's enclosing transaction then starts again; store.Joined).
			var err error
			r, err = s.writeReview(ctx, draft, who, p)
			if store.IsDuplicate(err) {
				return store.ErrConflict
			}
			return err
		})
		if store.IsDuplicate(err) {
			return nil, store.ErrConflict // (one met at commit)
		}
		return r, err
	})
	if err != nil {
		return nil, err
	}
	s.env.Relay.Kick()
	msg := "Review added"
	if r.Verified {
		msg += " (verified purchase)"
	}
	return &Added{ReviewID: r.ID, Message: msg}, nil
}

// writeReview decides the review's verified purchase on the customers
// service's facts p and this service's records as they are in the
// transaction, and writes the review, the order that verifies it, the
// statistics and review.created. It starts from the draft on every attempt:
// nothing of an earlier attempt (a new id, a verdict) is kept.
func (s *svc) writeReview(ctx context.Context, draft domain.Draft, who domain.Author, p domain.Purchase) (*domain.Review, error) {
	var err error
	if p.Uses, p.Unnamed, err = s.reviews.VerifiedUses(ctx, who.CustomerID, draft.StoreID); err != nil {
		return nil, err
	}
	if draft.OrderID != "" { // (on MongoDB the unique index decides a race; this names it)
		if p.OrderReviewed, err = s.reviews.OrderReviewed(ctx, who.CustomerID, draft.OrderID); err != nil {
			return nil, err
		}
		if p.OrderCancelled, err = s.orders.Cancelled(ctx, draft.OrderID); err != nil {
			return nil, err
		}
	}
	v, err := domain.Verification(p)
	if err != nil {
		return nil, err
	}
	now := s.now()
	r := domain.NewReview(ids.New("storeReviews"), draft, who, v, now)
	if err := s.reviews.Insert(ctx, r); err != nil {
		return nil, err
	}
	if err := s.orders.Take(ctx, r.ID, v, now); err != nil {
		return nil, err
	}
	if err := s.stats.Change(ctx, r.StoreID, r.Created(), now); err != nil {
		return nil, err
	}
	return r, s.publish(ctx, contract.EventCreated, r.ID, r.Event())
}

// checkPhotos: every photo must be an upload of the caller (media's record of
// who uploaded it). An id of no upload is NOT_FOUND, someone else's upload
// PERMISSION_DENIED, each naming the photoIds[i] at fault. The caller's own
// uploads are claimed at the same time: the media service keeps them for good
// (an upload nothing claims is deleted after its grace period).
func (s *svc) checkPhotos(ctx context.Context, userID string, photoIDs []string) error {
	if len(photoIDs) == 0 {
		return nil
	}
	list, err := s.media.Claim(ctx, userID, photoIDs)
	if err != nil {
		return err
	}
	if len(list) != len(photoIDs) {
		return apperr.New(apperr.Internal, "media answered %d ownerships for %d photos", len(list), len(photoIDs))
	}
	for i, o := range list {
		field := fmt.Sprintf("photoIds[%d]", i)
		switch {
		case !o.Exists:
			return apperr.New(apperr.NotFound, "%s: no uploaded photo %s (upload it with POST /api/storage/upload first)", field, o.StorageID).
				WithDetails(map[string]any{"field": field})
		case !o.Owned:
			return apperr.New(apperr.PermissionDenied, "%s: photo %s was uploaded by someone else", field, o.StorageID).
				WithDetails(map[string]any{"field": field})
		}
	}
	return nil
}

type updateArgs struct {
	ReviewID string   `json:"reviewId" op:"required,id=storeReviews"`
	Rating   *int     `json:"rating" op:"min=1,max=5"`
	Title    *string  `json:"title" op:"max=200"`
	Comment  *string  `json:"comment" op:"multiline,max=5000"`
	PhotoIDs []string `json:"photoIds" op:"max=10,id=_storage"`
}

// updateReview changes the given fields of the caller's own review
// (domain.Review.Apply). A title or comment given as "" removes it (one of
// them must remain); photoIds replaces the photos (an empty array removes
// them). The version replaced is kept on the review for the moderators. A
// call that changes nothing writes nothing.
func (s *svc) updateReview(ctx context.Context, a *updateArgs) (*ReviewDetail, error) {
	who := author(ctx)
	edit := domain.Edit{Rating: a.Rating, Title: domain.CleanText(a.Title), Comment: domain.CleanText(a.Comment), PhotoIDs: a.PhotoIDs}
	r, err := s.reviewToActOn(ctx, a.ReviewID)
	if err != nil {
		return nil, err
	}
	if err := r.CheckAuthor(who.CustomerID, "edit"); err != nil {
		return nil, err
	}
	if err := domain.CheckEdit(edit); err != nil {
		return nil, err
	}
	if r.NewPhotos(edit) { // claimed before the transaction (a remote call)
		if err := s.checkPhotos(ctx, ops.Caller(ctx).Sub, a.PhotoIDs); err != nil {
			return nil, err
		}
	}
	var edited domain.Edited
	err = s.atomically(ctx, func(ctx context.Context) error {
		err := s.reviews.Update(ctx, a.ReviewID, func(rev *domain.Review) error {
			if err := seen(ctx, rev); err != nil {
				return err
			}
			var err error
			edited, err = rev.Apply(edit, who, s.now())
			r = rev
			return err
		})
		if err != nil || len(edited.Fields) == 0 {
			return err
		}
		if err := s.stats.Change(ctx, r.StoreID, edited.Delta, r.UpdatedAt); err != nil {
			return err
		}
		ev := r.Event()
		ev.PreviousRating, ev.ChangedFields, ev.ByUserID = edited.PreviousRating, edited.Fields, who.UserID
		return s.publish(ctx, contract.EventUpdated, r.ID, ev)
	})
	if err != nil {
		return nil, err
	}
	if len(edited.Fields) > 0 {
		s.env.Relay.Kick()
	}
	d := s.detail(r, true, false)
	return &d, nil
}

type reviewArgs struct {
	ReviewID string `json:"reviewId" op:"required,id=storeReviews"`
}

// deleteReview removes the caller's own review with its votes and flags, in
// one transaction with the statistics and review.deleted. The order a
// verified review used is free again.
func (s *svc) deleteReview(ctx context.Context, a *reviewArgs) (ops.Null, error) {
	who := author(ctx)
	deleted := false
	err := s.atomically(ctx, func(ctx context.Context) error {
		deleted = false
		r, err := s.reviewToActOn(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		d, err := r.Delete(who.CustomerID)
		if err != nil {
			return err
		}
		if err := s.reviews.Delete(ctx, r); err != nil {
			return err
		}
		if err := s.stats.Change(ctx, r.StoreID, d, s.now()); err != nil {
			return err
		}
		deleted = true
		ev := r.Event()
		ev.ByUserID = r.UserID
		return s.publish(ctx, contract.EventDeleted, r.ID, ev)
	})
	if err != nil {
		return nil, err
	}
	if deleted {
		s.env.Relay.Kick()
	}
	return nil, nil
}
