package reviews

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/store"
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
// (Verification, docs/adr/0069-verified-purchase.md): a store's owner may not review their own store
// (the owner read afresh from the catalog); a cited order must exist and be the
// caller's (else NOT_FOUND, the same answer for both) and be of the store
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
	c := ops.CustomerOf(ctx)
	title, comment := orEmpty(cleanText(a.Title)), orEmpty(cleanText(a.Comment))
	if err := checkContent(title, comment); err != nil {
		return nil, err
	}
	if err := checkDistinct(a.PhotoIDs); err != nil {
		return nil, err
	}
	st, err := s.catalog.StoreNow(ctx, a.StoreID) // the owner as it is now, not as cached
	if err != nil {
		return nil, err
	}
	if st == nil {
		return nil, apperr.New(apperr.NotFound, "store %s does not exist", a.StoreID)
	}
	orderID := orEmpty(a.OrderID)
	p := Purchase{OwnStore: st.OwnerUserID != "" && st.OwnerUserID == ops.Caller(ctx).Sub}
	if _, err := Verification(p); err != nil { // the owner's refusal, before anything is asked
		return nil, err
	}
	facts, err := s.customers.PurchaseFacts(ctx, c.ID, a.StoreID, orderID)
	if err != nil {
		return nil, err
	}
	p.OrderID = orderID
	p.OrderExists, p.OrderOfCustomer, p.OrderOfStore, p.OrderStatus = facts.OrderExists, facts.OrderOfCustomer, facts.OrderOfStore, facts.OrderStatus
	p.Delivered = facts.DeliveredOrderIDs
	if facts.DeliveredOrderIDs == nil && facts.DeliveredOrders > 0 {
		s.env.Logger.WarnContext(ctx, "reviews: the customers service does not name delivered orders (an older release): no delivered order verifies this review",
			"customerId", c.ID, "storeId", a.StoreID, "deliveredOrders", facts.DeliveredOrders)
	}
	if _, err := Verification(p); err != nil { // the order's refusals, before the photos are checked
		return nil, err
	}
	if err := s.checkPhotos(ctx, ops.Caller(ctx).Sub, a.PhotoIDs); err != nil {
		return nil, err
	}
	if err := s.ensureStats(ctx, a.StoreID); err != nil {
		return nil, err
	}
	r, err := store.Retry(ctx, "your verified reviews of the store", func(ctx context.Context) (*reviewDoc, error) {
		now := s.now()
		r := reviewDoc{
			ID: ids.New("storeReviews"), StoreID: st.ID, StoreName: st.Name, CustomerID: c.ID, UserID: c.UserID, CustomerName: c.Name,
			OrderID: orderID, Rating: a.Rating, Title: title, Comment: comment, PhotoIDs: nonNil(a.PhotoIDs),
			CreatedAt: now, UpdatedAt: now,
		}
		err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
			// The same order reviewed, or taken to verify another review,
			// meanwhile: a conflict, reported from inside the transaction (a
			// keyed call's enclosing transaction then starts again; store.Joined).
			err := s.writeReview(ctx, &r, p, now)
			if store.IsDuplicate(err) {
				return store.ErrConflict
			}
			return err
		})
		if store.IsDuplicate(err) {
			return nil, store.ErrConflict // (one met at commit)
		}
		return &r, err
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

// writeReview decides r's verified purchase on the facts p and this
// service's records, and writes r, the order that verifies it, the
// statistics and review.created, in the caller's transaction. Everything it
// decides is decided again on each attempt (a transaction retried after a
// write conflict runs it again).
func (s *svc) writeReview(ctx context.Context, r *reviewDoc, p Purchase, now int64) error {
	c, storeID, orderID := ops.CustomerOf(ctx), r.StoreID, r.OrderID
	q := p
	var err error
	if q.Uses, q.Unnamed, err = s.verifiedUses(ctx, c.ID, storeID); err != nil {
		return err
	}
	if orderID != "" { // (on MongoDB the unique index decides a race; this names it)
		if q.OrderReviewed, err = s.exists(ctx, reviewsColl, bson.M{"customerId": c.ID, "orderId": orderID}); err != nil {
			return err
		}
		if q.OrderCancelled, err = s.exists(ctx, verifiedOrdersColl, bson.M{"_id": orderID, "cancelled": true}); err != nil {
			return err
		}
	}
	v, err := Verification(q)
	if err != nil {
		return err
	}
	r.Verified, r.VerifiedBy = v.Verified(), v.By
	if _, err := s.env.DB.Collection(reviewsColl).InsertOne(ctx, *r); err != nil {
		return err
	}
	if err := s.takeOrder(ctx, r.ID, v, now); err != nil {
		return err
	}
	if err := s.changeStats(ctx, r.StoreID, Add(r.Rating, r.Verified), now); err != nil {
		return err
	}
	return s.publish(ctx, contract.EventCreated, r.ID, r.event())
}

// takeOrder records, in the transaction of review reviewID, the order that
// verifies it (v.By; nothing for an unverified review), and moves the review
// that used it without citing it to its new order (v.Move). Each write names
// the order's document, so a concurrent writer of the same order conflicts:
// an insert of a document that appeared meanwhile is a duplicate, a move whose
// review no longer holds its order is ErrConflict.
func (s *svc) takeOrder(ctx context.Context, reviewID string, v Verdict, now int64) error {
	if !v.Verified() {
		return nil
	}
	orders := s.env.DB.Collection(verifiedOrdersColl)
	if m := v.Move; m != nil {
		res, err := orders.UpdateOne(ctx, bson.M{"_id": m.From, "reviewId": m.ReviewID},
			bson.M{"$set": bson.M{"reviewId": reviewID, "updatedAt": now}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			return store.ErrConflict
		}
		if _, err := orders.InsertOne(ctx, orderSlotDoc{OrderID: m.To, ReviewID: m.ReviewID, UpdatedAt: now}); err != nil {
			return err
		}
		res, err = s.env.DB.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": m.ReviewID, "verifiedBy": m.From},
			bson.M{"$set": bson.M{"verifiedBy": m.To}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			return store.ErrConflict
		}
		return nil
	}
	_, err := orders.InsertOne(ctx, orderSlotDoc{OrderID: v.By, ReviewID: reviewID, UpdatedAt: now})
	return err
}

// verifiedUses are the orders the customer's verified reviews of the store
// use, and how many of those reviews were verified before reviews named the
// order they use (a review of that time citing an order uses it).
func (s *svc) verifiedUses(ctx context.Context, customerID, storeID string) (map[string]Use, int, error) {
	cur, err := s.env.DB.Collection(reviewsColl).Find(ctx, bson.M{"customerId": customerID, "storeId": storeID, "isVerifiedPurchase": true},
		options.Find().SetProjection(bson.M{"orderId": 1, "verifiedBy": 1}))
	if err != nil {
		return nil, 0, err
	}
	var rs []struct {
		ID         string `bson:"_id"`
		OrderID    string `bson:"orderId"`
		VerifiedBy string `bson:"verifiedBy"`
	}
	if err := cur.All(ctx, &rs); err != nil {
		return nil, 0, err
	}
	uses, unnamed := make(map[string]Use, len(rs)), 0
	for _, r := range rs {
		switch {
		case r.VerifiedBy != "":
			uses[r.VerifiedBy] = Use{ReviewID: r.ID, Cited: r.VerifiedBy == r.OrderID}
		case r.OrderID != "":
			uses[r.OrderID] = Use{ReviewID: r.ID, Cited: true}
		default:
			unnamed++
		}
	}
	return uses, unnamed, nil
}

// exists reports whether coll has a document matching filter.
func (s *svc) exists(ctx context.Context, coll string, filter bson.M) (bool, error) {
	err := s.env.DB.Collection(coll).FindOne(ctx, filter, options.FindOne().SetProjection(bson.M{"_id": 1})).Err()
	if store.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// checkDistinct refuses a photo given twice.
func checkDistinct(photoIDs []string) error {
	for i, id := range photoIDs {
		if j := slices.Index(photoIDs[:i], id); j >= 0 {
			return apperr.Invalid(fmt.Sprintf("photoIds[%d]", i), "repeats photoIds[%d]", j)
		}
	}
	return nil
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

// updateReview changes the given fields of the caller's own review. A title
// or comment given as "" removes it (one of them must remain); photoIds
// replaces the photos (an empty array removes them). The version replaced is
// kept on the review (rating, title, comment, photos, when it was written and
// replaced) for the moderators. A call that changes nothing writes nothing.
func (s *svc) updateReview(ctx context.Context, a *updateArgs) (*ReviewDetail, error) {
	r, err := s.reviewToActOn(ctx, a.ReviewID)
	if err != nil {
		return nil, err
	}
	if !isAuthor(ctx, r) {
		return nil, errNotAuthor("edit")
	}
	if a.Rating == nil && a.Title == nil && a.Comment == nil && a.PhotoIDs == nil {
		return nil, apperr.Invalid("args", "give at least one of rating, title, comment, photoIds")
	}
	if err := checkDistinct(a.PhotoIDs); err != nil {
		return nil, err
	}
	title, comment := cleanText(a.Title), cleanText(a.Comment)
	if a.PhotoIDs != nil && !slices.Equal(a.PhotoIDs, r.PhotoIDs) {
		if err := s.checkPhotos(ctx, ops.Caller(ctx).Sub, a.PhotoIDs); err != nil {
			return nil, err
		}
	}
	c := ops.CustomerOf(ctx)
	var changed []string
	err = s.env.DB.Tx(ctx, func(ctx context.Context) error {
		r, err = s.reviewToActOn(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		next := *r
		changed = nil
		if a.Rating != nil && *a.Rating != r.Rating {
			next.Rating, changed = *a.Rating, append(changed, "rating")
		}
		if title != nil && *title != r.Title {
			next.Title, changed = *title, append(changed, "title")
		}
		if comment != nil && *comment != r.Comment {
			next.Comment, changed = *comment, append(changed, "comment")
		}
		if a.PhotoIDs != nil && !slices.Equal(a.PhotoIDs, r.PhotoIDs) {
			next.PhotoIDs, changed = nonNil(a.PhotoIDs), append(changed, "photoIds")
		}
		if len(changed) == 0 {
			return nil
		}
		if err := checkContent(next.Title, next.Comment); err != nil {
			return err
		}
		now := s.now()
		next.Edits = append(slices.Clone(r.Edits), reviewVersion{Rating: r.Rating, Title: r.Title, Comment: r.Comment,
			PhotoIDs: nonNil(r.PhotoIDs), WrittenAt: r.UpdatedAt, ReplacedAt: now})
		if len(next.Edits) > MaxEdits {
			next.Edits = next.Edits[len(next.Edits)-MaxEdits:]
		}
		next.UpdatedAt, next.CustomerName = now, c.Name
		if _, err := s.env.DB.Collection(reviewsColl).UpdateOne(ctx, bson.M{"_id": r.ID}, bson.M{"$set": bson.M{
			"rating": next.Rating, "title": next.Title, "comment": next.Comment, "photoIds": next.PhotoIDs,
			"edits": next.Edits, "updatedAt": now, "customerName": next.CustomerName,
		}}); err != nil {
			return err
		}
		var d Delta
		if !r.Hidden {
			d = Rerate(r.Rating, next.Rating)
		}
		if err := s.changeStats(ctx, r.StoreID, d, now); err != nil {
			return err
		}
		ev := next.event()
		ev.PreviousRating, ev.ChangedFields, ev.ByUserID = r.Rating, changed, c.UserID
		*r = next
		return s.publish(ctx, contract.EventUpdated, r.ID, ev)
	})
	if err != nil {
		return nil, err
	}
	if len(changed) > 0 {
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
	var gone reviewDoc
	err := s.env.DB.Tx(ctx, func(ctx context.Context) error {
		r, err := s.reviewToActOn(ctx, a.ReviewID)
		if err != nil {
			return err
		}
		if !isAuthor(ctx, r) {
			return errNotAuthor("delete")
		}
		if _, err := s.env.DB.Collection(reviewsColl).DeleteOne(ctx, bson.M{"_id": r.ID}); err != nil {
			return err
		}
		if _, err := s.env.DB.Collection(votesColl).DeleteMany(ctx, bson.M{"reviewId": r.ID}); err != nil {
			return err
		}
		if _, err := s.env.DB.Collection(flagsColl).DeleteMany(ctx, bson.M{"reviewId": r.ID}); err != nil {
			return err
		}
		if r.VerifiedBy != "" { // the order it used verifies the author's next review
			if _, err := s.env.DB.Collection(verifiedOrdersColl).DeleteOne(ctx, bson.M{"_id": r.VerifiedBy, "reviewId": r.ID}); err != nil {
				return err
			}
		}
		var d Delta
		if !r.Hidden {
			d = Remove(r.Rating, r.Verified)
		}
		if err := s.changeStats(ctx, r.StoreID, d, s.now()); err != nil {
			return err
		}
		gone = *r
		ev := r.event()
		ev.ByUserID = r.UserID
		return s.publish(ctx, contract.EventDeleted, r.ID, ev)
	})
	if err != nil {
		return nil, err
	}
	if gone.ID != "" {
		s.env.Relay.Kick()
	}
	return nil, nil
}
