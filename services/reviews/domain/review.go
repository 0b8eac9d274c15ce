// Package domain is the reviews service's bounded context: a review and what
// may happen to it (edit, delete, votes, flags, the store's response,
// moderation, the verification of its purchase), a store's statistics and
// their changes. Its methods hold the rules of interface section 2.1 and the
// platform contract (sections 4 and 9) and know nothing of storage: the
// repositories (package storage) load and save these values, the operations
// (package reviews) call the methods. Time is always a parameter (Unix
// milliseconds, from the service's clock).
package domain

import (
	"slices"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
)

// Review is a stored review (collection storeReviews). The sort keys of
// every list (createdAt, rating, wilson) are fields of it, written in the
// transaction of the change that moves them, so a keyset cursor sorts by
// stored values.
type Review struct {
	ID           string         `bson:"_id"`
	StoreID      string         `bson:"storeId"`
	StoreName    string         `bson:"storeName"` // as the catalog named it when the review was written (stores are never renamed)
	CustomerID   string         `bson:"customerId"`
	UserID       string         `bson:"userId"`       // the author's token sub
	CustomerName string         `bson:"customerName"` // the author's name when the review was written or last edited
	OrderID      string         `bson:"orderId,omitempty"`
	Rating       int            `bson:"rating"`
	Title        string         `bson:"title"`
	Comment      string         `bson:"comment"`
	PhotoIDs     []string       `bson:"photoIds"`
	Verified     bool           `bson:"isVerifiedPurchase"`
	VerifiedBy   string         `bson:"verifiedBy,omitempty"` // of a verified review: the order it uses (its document in verifiedOrders names the review); none before reviews named it
	Helpful      int            `bson:"helpfulCount"`
	NotHelpful   int            `bson:"notHelpfulCount"`
	Wilson       float64        `bson:"wilson"` // Wilson(Helpful, NotHelpful): most_helpful's key
	Response     *StoreResponse `bson:"storeResponse,omitempty"`
	Hidden       bool           `bson:"hidden"`
	Moderation   *Moderation    `bson:"moderation,omitempty"`
	Edits        []Version      `bson:"edits,omitempty"` // previous versions, oldest first (at most MaxEdits)
	CreatedAt    int64          `bson:"createdAt"`
	UpdatedAt    int64          `bson:"updatedAt"`
}

// Version is a review as it was before an edit.
type Version struct {
	Rating     int      `bson:"rating" json:"rating"`
	Title      string   `bson:"title" json:"title"`
	Comment    string   `bson:"comment" json:"comment"`
	PhotoIDs   []string `bson:"photoIds" json:"photoIds"`
	WrittenAt  int64    `bson:"writtenAt" json:"writtenAt"`   // when this version was written
	ReplacedAt int64    `bson:"replacedAt" json:"replacedAt"` // when the edit replaced it
}

// StoreResponse is the store's one response to a review.
type StoreResponse struct {
	Comment     string `bson:"comment"`
	RespondedAt int64  `bson:"respondedAt"`
	UpdatedAt   int64  `bson:"updatedAt,omitempty"`
	ByUserID    string `bson:"byUserId"`
}

// Moderation is the last visibility decision on a review.
type Moderation struct {
	Visible  bool   `bson:"visible" json:"visible"`
	ByUserID string `bson:"byUserId" json:"adminUserId"`
	// ByName is the administrator's name as their token stated it ("" when
	// it stated none, and on older decisions: docs/adr/0168). Moderation is
	// served to administrators only (ReviewDetail).
	ByName     string `bson:"byName,omitempty" json:"adminName,omitempty"`
	At         int64  `bson:"at" json:"at"`
	FlagID     string `bson:"flagId,omitempty" json:"flagId,omitempty"`
	AdminNotes string `bson:"adminNotes,omitempty" json:"adminNotes,omitempty"`
}

// Author is who writes a review: the caller's customer profile.
type Author struct {
	CustomerID string
	UserID     string
	Name       string
}

// Draft is what a customer asks addReview for, its text already cleaned
// (CleanText).
type Draft struct {
	StoreID, StoreName string
	OrderID            string
	Rating             int
	Title, Comment     string
	PhotoIDs           []string
}

// CheckDraft holds the rules of a new review that need nothing stored: a
// rating of 1 to 5 stars, a title or a comment, each photo once.
func CheckDraft(d Draft) error {
	if err := CheckRating(d.Rating); err != nil {
		return err
	}
	if err := CheckContent(d.Title, d.Comment); err != nil {
		return err
	}
	return CheckDistinct(d.PhotoIDs)
}

// Ratings run from MinRating to MaxRating stars.
const (
	MinRating = 1
	MaxRating = 5
)

// CheckRating refuses a rating outside 1 to 5 (the operations' declarations
// refuse it first, with the same words).
func CheckRating(rating int) error {
	switch {
	case rating < MinRating:
		return apperr.Invalid("rating", "must be at least %d", MinRating)
	case rating > MaxRating:
		return apperr.Invalid("rating", "must be at most %d", MaxRating)
	}
	return nil
}

// NewReview is review id of the draft by the author at now, verified or not
// as the verdict says (Verification).
func NewReview(id string, d Draft, a Author, v Verdict, now int64) *Review {
	return &Review{
		ID: id, StoreID: d.StoreID, StoreName: d.StoreName, CustomerID: a.CustomerID, UserID: a.UserID, CustomerName: a.Name,
		OrderID: d.OrderID, Rating: d.Rating, Title: d.Title, Comment: d.Comment, PhotoIDs: NonNil(d.PhotoIDs),
		Verified: v.Verified(), VerifiedBy: v.By, CreatedAt: now, UpdatedAt: now,
	}
}

// Created is the statistics change of a new review (it is visible).
func (r *Review) Created() Delta { return Add(r.Rating, r.Verified) }

// Event is the review as the reviews topic carries it.
func (r *Review) Event() contract.Review {
	return contract.Review{
		ReviewID: r.ID, StoreID: r.StoreID, StoreName: r.StoreName, CustomerID: r.CustomerID, CustomerUserID: r.UserID,
		OrderID: r.OrderID, Rating: r.Rating, IsVerifiedPurchase: r.Verified, Hidden: r.Hidden,
	}
}

// Clone is a copy of r that shares nothing a method changes with it.
func (r *Review) Clone() *Review {
	c := *r
	c.PhotoIDs = slices.Clone(r.PhotoIDs)
	c.Edits = slices.Clone(r.Edits)
	if r.Response != nil {
		resp := *r.Response
		c.Response = &resp
	}
	if r.Moderation != nil {
		m := *r.Moderation
		c.Moderation = &m
	}
	return &c
}

// ErrNoReview is the answer for a review that does not exist, and for one the
// caller may not see (no existence oracle).
func ErrNoReview(id string) error {
	return apperr.New(apperr.NotFound, "review %s does not exist", id)
}

// Viewer is who asks about a review: their token sub and whether they are an
// administrator (nil Viewer: anonymous).
type Viewer struct {
	Sub   string
	Admin bool
}

// SeenBy reports whether v may know of r: anyone while it is shown; once
// hidden by the moderators, its author and administrators only (getReview's
// rule).
func (r *Review) SeenBy(v *Viewer) bool {
	if !r.Hidden {
		return true
	}
	return v != nil && (v.Sub == r.UserID || v.Admin)
}

// IsAuthor reports whether customer customerID wrote r.
func (r *Review) IsAuthor(customerID string) bool {
	return customerID != "" && customerID == r.CustomerID
}

// CheckAuthor refuses anyone but r's author the action what ("edit",
// "delete").
func (r *Review) CheckAuthor(customerID, what string) error {
	if !r.IsAuthor(customerID) {
		return apperr.New(apperr.PermissionDenied, "only the review's author may %s it", what)
	}
	return nil
}

// Edit is updateReview's change: the fields given (nil: unchanged). A title
// or comment given as "" removes it; PhotoIDs non-nil replaces the photos
// (empty: none).
type Edit struct {
	Rating         *int
	Title, Comment *string
	PhotoIDs       []string
}

// Empty reports an edit that names no field.
func (e Edit) Empty() bool {
	return e.Rating == nil && e.Title == nil && e.Comment == nil && e.PhotoIDs == nil
}

// CheckEdit holds what an edit needs before anything is loaded: at least one
// field, each photo once.
func CheckEdit(e Edit) error {
	if e.Empty() {
		return apperr.Invalid("args", "give at least one of rating, title, comment, photoIds")
	}
	if e.Rating != nil {
		if err := CheckRating(*e.Rating); err != nil {
			return err
		}
	}
	return CheckDistinct(e.PhotoIDs)
}

// NewPhotos reports whether the edit replaces r's photos with others (they
// must then be checked with the media service).
func (r *Review) NewPhotos(e Edit) bool {
	return e.PhotoIDs != nil && !slices.Equal(e.PhotoIDs, r.PhotoIDs)
}

// Edited is what an edit changed: the fields, the rating before it, and the
// statistics change. No Fields: nothing changed (nothing is written).
type Edited struct {
	Fields         []string
	PreviousRating int
	Delta          Delta
}

// Apply edits r by its author (a, the customer; authorName is their name
// now): only the author edits; a review keeps a title or a comment; the
// version replaced is kept (at most MaxEdits, the oldest dropped); a hidden
// review's rating leaves the statistics as they are.
func (r *Review) Apply(e Edit, a Author, now int64) (Edited, error) {
	if err := r.CheckAuthor(a.CustomerID, "edit"); err != nil {
		return Edited{}, err
	}
	if e.Rating != nil {
		if err := CheckRating(*e.Rating); err != nil {
			return Edited{}, err
		}
	}
	out := Edited{PreviousRating: r.Rating}
	next := *r
	if e.Rating != nil && *e.Rating != r.Rating {
		next.Rating, out.Fields = *e.Rating, append(out.Fields, "rating")
	}
	if e.Title != nil && *e.Title != r.Title {
		next.Title, out.Fields = *e.Title, append(out.Fields, "title")
	}
	if e.Comment != nil && *e.Comment != r.Comment {
		next.Comment, out.Fields = *e.Comment, append(out.Fields, "comment")
	}
	if r.NewPhotos(e) {
		next.PhotoIDs, out.Fields = NonNil(slices.Clone(e.PhotoIDs)), append(out.Fields, "photoIds")
	}
	if len(out.Fields) == 0 {
		return out, nil
	}
	if err := CheckContent(next.Title, next.Comment); err != nil {
		return Edited{}, err
	}
	next.Edits = append(slices.Clone(r.Edits), Version{Rating: r.Rating, Title: r.Title, Comment: r.Comment,
		PhotoIDs: NonNil(r.PhotoIDs), WrittenAt: r.UpdatedAt, ReplacedAt: now})
	if len(next.Edits) > MaxEdits {
		next.Edits = next.Edits[len(next.Edits)-MaxEdits:]
	}
	next.UpdatedAt, next.CustomerName = now, a.Name
	if !r.Hidden {
		out.Delta = Rerate(r.Rating, next.Rating)
	}
	*r = next
	return out, nil
}

// Delete is the deletion of r by customer customerID: only the author
// deletes; a visible review leaves the statistics (a hidden one has left
// already).
func (r *Review) Delete(customerID string) (Delta, error) {
	if err := r.CheckAuthor(customerID, "delete"); err != nil {
		return Delta{}, err
	}
	if r.Hidden {
		return Delta{}, nil
	}
	return Remove(r.Rating, r.Verified), nil
}

// SetHidden hides (hidden) or shows r, recording the decision m: a review
// hidden leaves the statistics, one shown again comes back. changed is false
// (and nothing happens) when r is already in that state.
func (r *Review) SetHidden(hidden bool, m Moderation) (d Delta, changed bool) {
	if r.Hidden == hidden {
		return Delta{}, false
	}
	if hidden {
		d = Remove(r.Rating, r.Verified)
	} else {
		d = Add(r.Rating, r.Verified)
	}
	r.Hidden, r.Moderation = hidden, &m
	return d, true
}

// VisibilityEvent is the event type of a visibility change to hidden.
func VisibilityEvent(hidden bool) string {
	if hidden {
		return contract.EventHidden
	}
	return contract.EventShown
}

// Unverify withdraws r's verified purchase (the order it used was
// cancelled): a visible review takes its verified count from the statistics.
func (r *Review) Unverify() Delta {
	was := r.Verified
	r.Verified, r.VerifiedBy = false, ""
	if r.Hidden || !was {
		return Delta{}
	}
	return Unverify()
}

// CheckVoter holds who may vote on r: never its author, never while hidden.
func (r *Review) CheckVoter(customerID string) error {
	switch {
	case r.IsAuthor(customerID):
		return apperr.New(apperr.FailedPrecondition, "you cannot vote on your own review")
	case r.Hidden:
		return apperr.New(apperr.FailedPrecondition, "review %s is hidden by the moderators", r.ID)
	}
	return nil
}

// Vote counts customer customerID's vote (helpful or not) on r, whose
// earlier vote was prev (nil: none): the same vote again changes nothing,
// a changed vote moves from one counter to the other, and the Wilson score
// follows the counters. changed reports a change of the counters.
func (r *Review) Vote(customerID string, prev *bool, helpful bool) (changed bool, err error) {
	if err := r.CheckVoter(customerID); err != nil {
		return false, err
	}
	if prev != nil && *prev == helpful {
		return false, nil
	}
	h, n := r.Helpful, r.NotHelpful
	if prev != nil {
		h, n = MoveVote(h, n, *prev, -1)
	}
	h, n = MoveVote(h, n, helpful, +1)
	r.Helpful, r.NotHelpful, r.Wilson = h, n, Wilson(h, n)
	return true, nil
}

// MoveVote adds by (+1 or -1) to the counter of one kind of vote.
func MoveVote(helpful, notHelpful int, isHelpful bool, by int) (int, int) {
	if isHelpful {
		return helpful + by, notHelpful
	}
	return helpful, notHelpful + by
}

// CheckFlagger holds who may flag r: not its author (they edit or delete
// it), and not once the moderators have hidden it.
func (r *Review) CheckFlagger(customerID string) error {
	switch {
	case r.IsAuthor(customerID):
		return apperr.New(apperr.FailedPrecondition, "you cannot flag your own review: edit or delete it instead")
	case r.Hidden:
		return apperr.New(apperr.FailedPrecondition, "review %s is already hidden by the moderators", r.ID)
	}
	return nil
}

// Respond sets the store's response on r by the store's owner (ownerUserID):
// one response, added once (ALREADY_EXISTS after) and then changed (NOT_FOUND
// before); never on a hidden review. It is the response as clients see it.
func (r *Review) Respond(comment, ownerUserID string, update bool, now int64) (StoreResponse, error) {
	if r.Hidden {
		return StoreResponse{}, apperr.New(apperr.FailedPrecondition, "review %s is hidden by the moderators", r.ID)
	}
	switch {
	case update && r.Response == nil:
		return StoreResponse{}, ErrNoResponse(r.ID)
	case !update && r.Response != nil:
		return StoreResponse{}, ErrResponded(r.ID)
	case update:
		r.Response.Comment, r.Response.UpdatedAt, r.Response.ByUserID = comment, now, ownerUserID
	default:
		r.Response = &StoreResponse{Comment: comment, RespondedAt: now, ByUserID: ownerUserID}
	}
	return *r.Response, nil
}

// ErrNoResponse is updateStoreResponse's answer while there is no response.
func ErrNoResponse(reviewID string) error {
	return apperr.New(apperr.NotFound, "review %s has no store response yet: add one with addStoreResponse", reviewID)
}

// ErrResponded is addStoreResponse's answer once there is one.
func ErrResponded(reviewID string) error {
	return apperr.New(apperr.AlreadyExists, "the store has already responded to review %s: change it with updateStoreResponse", reviewID)
}

// NonNil is xs, or an empty list for nil (stored as [], never null).
func NonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
