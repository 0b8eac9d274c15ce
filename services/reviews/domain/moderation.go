package domain

import (
	"slices"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/reviews"
)

// Vote is one customer's helpfulness vote on a review (collection
// reviewVotes; one per customer per review).
type Vote struct {
	ID         string `bson:"_id"`
	ReviewID   string `bson:"reviewId"`
	StoreID    string `bson:"storeId"`
	CustomerID string `bson:"customerId"`
	UserID     string `bson:"userId"`
	IsHelpful  bool   `bson:"isHelpful"`
	CreatedAt  int64  `bson:"createdAt"`
	UpdatedAt  int64  `bson:"updatedAt"`
}

// VoteID is a vote's id: one per customer per review, by construction (and by
// the unique index).
func VoteID(reviewID, customerID string) string { return reviewID + ":" + customerID }

// Flag is a customer's report of a review, and its moderation (collection
// reviewFlags; one per customer per review).
type Flag struct {
	ID           string      `bson:"_id"`
	ReviewID     string      `bson:"reviewId"`
	StoreID      string      `bson:"storeId"`
	CustomerID   string      `bson:"customerId"`
	UserID       string      `bson:"userId"`
	CustomerName string      `bson:"customerName"`
	Reason       string      `bson:"reason"`
	Description  string      `bson:"description"`
	Status       string      `bson:"status"`
	Resolution   *Resolution `bson:"resolution,omitempty"`
	CreatedAt    int64       `bson:"createdAt"`
}

// Resolution is who decided a flag, when, how and why.
type Resolution struct {
	Action      string `bson:"action" json:"action"`
	AdminUserID string `bson:"adminUserId" json:"adminUserId"`
	// AdminName is the administrator's name as their token stated it ("" when
	// it stated none, and on older resolutions: docs/adr/0168).
	AdminName  string `bson:"adminName,omitempty" json:"adminName,omitempty"`
	ResolvedAt int64  `bson:"resolvedAt" json:"resolvedAt"`
	AdminNotes string `bson:"adminNotes,omitempty" json:"adminNotes,omitempty"`
	// Through: how the decision came (resolveFlag, resolveFlag of another flag
	// of the review, setReviewVisibility).
	Through string `bson:"through" json:"through"`
	ByFlag  string `bson:"byFlag,omitempty" json:"byFlagId,omitempty"`
}

// Where a flag's resolution came from.
const (
	ThroughResolveFlag = "resolveFlag"
	ThroughVisibility  = "setReviewVisibility"
)

// NewFlag is flag id of customer a on review r, pending. The flagger must be
// allowed to flag r (Review.CheckFlagger).
func NewFlag(id string, r *Review, a Author, reason, description string, now int64) (*Flag, error) {
	if err := r.CheckFlagger(a.CustomerID); err != nil {
		return nil, err
	}
	return &Flag{ID: id, ReviewID: r.ID, StoreID: r.StoreID, CustomerID: a.CustomerID, UserID: a.UserID, CustomerName: a.Name,
		Reason: reason, Description: description, Status: contract.FlagStatusPending, CreatedAt: now}, nil
}

// CheckPending refuses a decision on a flag that is no longer pending.
func (f *Flag) CheckPending() error {
	if f.Status != contract.FlagStatusPending {
		return apperr.New(apperr.FailedPrecondition, "flag %s was already %s", f.ID, f.Status)
	}
	return nil
}

// ErrDecidedMeanwhile is the answer when another decision on a pending flag
// committed first.
func ErrDecidedMeanwhile(flagID string) error {
	return apperr.New(apperr.FailedPrecondition, "flag %s was decided meanwhile", flagID)
}

// Settle decides a pending flag: status (dismissed or resolved) with res.
func (f *Flag) Settle(status string, res Resolution) error {
	if err := f.CheckPending(); err != nil {
		return err
	}
	f.Status, f.Resolution = status, &res
	return nil
}

// Settled is the event of f's decision.
func (f *Flag) Settled() contract.FlagResolved {
	res := f.Resolution
	return contract.FlagResolved{
		FlagID: f.ID, ReviewID: f.ReviewID, StoreID: f.StoreID, Reason: f.Reason, Status: f.Status, Action: res.Action,
		AdminUserID: res.AdminUserID, AdminNotes: res.AdminNotes, FlaggedByUserID: f.UserID, ResolvedAt: res.ResolvedAt,
	}
}

// Decision is an administrator's decision on a flag (resolveFlag).
type Decision struct {
	Action      string // contract.ActionDismiss or contract.ActionHideReview
	AdminUserID string
	AdminName   string // "" when the token stated none
	AdminNotes  string
}

// Decide applies d to the pending flag f at now: dismiss settles it
// dismissed (the review stays); hide_review settles it resolved and gives the
// resolution of the review's other pending flags and the moderation that
// hides the review (hide true).
func (f *Flag) Decide(d Decision, now int64) (hide bool, others Resolution, m Moderation, err error) {
	res := Resolution{Action: d.Action, AdminUserID: d.AdminUserID, AdminName: d.AdminName, ResolvedAt: now, AdminNotes: d.AdminNotes, Through: ThroughResolveFlag}
	if d.Action == contract.ActionDismiss {
		return false, Resolution{}, Moderation{}, f.Settle(contract.FlagStatusDismissed, res)
	}
	if err := f.Settle(contract.FlagStatusResolved, res); err != nil {
		return false, Resolution{}, Moderation{}, err
	}
	others = res
	others.ByFlag = f.ID
	return true, others, Moderation{Visible: false, ByUserID: d.AdminUserID, ByName: d.AdminName, At: now, FlagID: f.ID, AdminNotes: d.AdminNotes}, nil
}

// ResolveByHiding settles the pending flags of a review being hidden with
// res (its action hide_review): the flags changed.
func ResolveByHiding(pending []Flag, res Resolution) ([]Flag, error) {
	res.Action = contract.ActionHideReview
	out := slices.Clone(pending)
	for i := range out {
		if err := out[i].Settle(contract.FlagStatusResolved, res); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// VisibilityDecision is setReviewVisibility's: an administrator hides a
// review or shows it again. Hiding resolves its pending flags with the
// resolution it gives; both name the administrator adminName ("" for none).
func VisibilityDecision(visible bool, adminUserID, adminName, notes string, now int64) (Moderation, Resolution) {
	return Moderation{Visible: visible, ByUserID: adminUserID, ByName: adminName, At: now, AdminNotes: notes},
		Resolution{Action: contract.ActionHideReview, AdminUserID: adminUserID, AdminName: adminName, ResolvedAt: now, AdminNotes: notes, Through: ThroughVisibility}
}

// StoreStats are a store's statistics over its visible reviews (collection
// storeReviewStats), changed in the transaction of every change of them.
// Version grows with every change of anything a list of the store's reviews
// shows (the listing cache's key).
type StoreStats struct {
	StoreID   string `bson:"_id"`
	Count     int64  `bson:"count"`
	Sum       int64  `bson:"sum"`
	Star1     int64  `bson:"star1"`
	Star2     int64  `bson:"star2"`
	Star3     int64  `bson:"star3"`
	Star4     int64  `bson:"star4"`
	Star5     int64  `bson:"star5"`
	Verified  int64  `bson:"verified"`
	Version   int64  `bson:"version"`
	UpdatedAt int64  `bson:"updatedAt"`
}

// Stats are the statistics the document holds.
func (d *StoreStats) Stats() Stats {
	return Stats{Count: d.Count, Sum: d.Sum, Verified: d.Verified, Stars: [6]int64{0, d.Star1, d.Star2, d.Star3, d.Star4, d.Star5}}
}

// OrderSlot is an order's document in verifiedOrders: the review it
// verifies, or that the customers service confirmed it cancelled (it never
// verifies then). Every write that gives, moves, frees or withdraws an
// order's verification writes its document, so two of them never both
// succeed on one order.
type OrderSlot struct {
	OrderID   string `bson:"_id"`
	ReviewID  string `bson:"reviewId,omitempty"`  // the verified review it verifies
	Cancelled bool   `bson:"cancelled,omitempty"` // confirmed cancelled: it verifies nothing
	UpdatedAt int64  `bson:"updatedAt"`
}
