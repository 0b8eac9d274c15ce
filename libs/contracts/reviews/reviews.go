// Package reviews is the reviews context's contract: its events (topic
// "reviews", keyed by review id) and their payloads. The reviews service
// produces them; notifications consumes review.flag_raised (the admin inbox),
// review.hidden, review.shown and review.store_responded (the review's author).
package reviews

// Service is the reviews module's name (discovery, calls).
const Service = "reviews"

// Topic carries the reviews service's events, keyed by review id.
const Topic = "reviews"

// Event types on Topic.
const (
	EventCreated        = "review.created"         // data: Review
	EventUpdated        = "review.updated"         // data: Review (PreviousRating, ChangedFields)
	EventDeleted        = "review.deleted"         // data: Review (its votes and flags went with it)
	EventHidden         = "review.hidden"          // data: Review (ByUserID, AdminName: the administrator; FlagID when hidden through a flag)
	EventShown          = "review.shown"           // data: Review (ByUserID, AdminName: the administrator)
	EventFlagRaised     = "review.flag_raised"     // data: FlagRaised
	EventFlagResolved   = "review.flag_resolved"   // data: FlagResolved
	EventStoreResponded = "review.store_responded" // data: StoreResponded
)

// Flag reasons.
const (
	ReasonSpam          = "spam"
	ReasonInappropriate = "inappropriate"
	ReasonFake          = "fake"
	ReasonOffensive     = "offensive"
	ReasonIrrelevant    = "irrelevant"
	ReasonOther         = "other"
)

// Flag statuses: created pending; an administrator dismisses it (the review
// stays) or resolves it by hiding the review.
const (
	FlagStatusPending   = "pending"
	FlagStatusDismissed = "dismissed"
	FlagStatusResolved  = "resolved"
)

// Moderation actions of admins.reviewModeration.resolveFlag.
const (
	ActionDismiss    = "dismiss"
	ActionHideReview = "hide_review"
)

// FlagRaised is the data of review.flag_raised.
type FlagRaised struct {
	FlagID          string `json:"flagId"`
	ReviewID        string `json:"reviewId"`
	StoreID         string `json:"storeId"`
	Reason          string `json:"reason" enum:"spam|inappropriate|fake|offensive|irrelevant|other"`
	Description     string `json:"description"`
	FlaggedByUserID string `json:"flaggedByUserId"`
}

// Review is the data of review.created, updated, deleted, hidden and shown:
// the review as it is after the change (before it, for deleted).
type Review struct {
	ReviewID           string `json:"reviewId"`
	StoreID            string `json:"storeId"`
	StoreName          string `json:"storeName"`
	CustomerID         string `json:"customerId"`
	CustomerUserID     string `json:"customerUserId"`
	OrderID            string `json:"orderId,omitempty"`
	Rating             int    `json:"rating"`
	IsVerifiedPurchase bool   `json:"isVerifiedPurchase"`
	Hidden             bool   `json:"hidden"`
	// review.updated: the rating before the change and the fields changed
	// (rating, title, comment, photoIds, by the author; isVerifiedPurchase,
	// without ByUserID, when the order the review cited was cancelled).
	PreviousRating int      `json:"previousRating,omitempty"`
	ChangedFields  []string `json:"changedFields,omitempty"`
	// Who made the change: the author, or the administrator who hid or showed it.
	ByUserID string `json:"byUserId,omitempty"`
	// review.hidden and review.shown: the administrator's name as their token
	// stated it (absent when it stated none: docs/adr/0168).
	AdminName string `json:"adminName,omitempty"`
	// review.hidden through a flag: the flag decided; and the administrator's notes.
	FlagID     string `json:"flagId,omitempty"`
	AdminNotes string `json:"adminNotes,omitempty"`
}

// FlagResolved is the data of review.flag_resolved, one per flag moved out of
// pending (hiding a review resolves each of its pending flags).
type FlagResolved struct {
	FlagID          string `json:"flagId"`
	ReviewID        string `json:"reviewId"`
	StoreID         string `json:"storeId"`
	Reason          string `json:"reason" enum:"spam|inappropriate|fake|offensive|irrelevant|other"`
	Status          string `json:"status" enum:"dismissed|resolved"`
	Action          string `json:"action" enum:"dismiss|hide_review"`
	AdminUserID     string `json:"adminUserId"`
	AdminNotes      string `json:"adminNotes,omitempty"`
	FlaggedByUserID string `json:"flaggedByUserId"`
	ResolvedAt      int64  `json:"resolvedAt"`
}

// StoreResponded is the data of review.store_responded: the store's first
// response (Updated false) or a change of it (Updated true).
type StoreResponded struct {
	ReviewID          string `json:"reviewId"`
	StoreID           string `json:"storeId"`
	StoreName         string `json:"storeName"`
	CustomerUserID    string `json:"customerUserId"` // the review's author
	Comment           string `json:"comment"`
	RespondedAt       int64  `json:"respondedAt"`
	Updated           bool   `json:"updated"`
	RespondedByUserID string `json:"respondedByUserId"`
}
