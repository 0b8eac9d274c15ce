// Package reviews is the reviews context's contract: its events (topic
// "reviews"). The reviews service produces them; notifications consumes
// review.flag_raised.
package reviews

// Topic carries the reviews service's events, keyed by review id.
const Topic = "reviews"

// EventFlagRaised is published when a customer flags a review; data: FlagRaised.
const EventFlagRaised = "review.flag_raised"

// Flag reasons.
const (
	ReasonSpam          = "spam"
	ReasonInappropriate = "inappropriate"
	ReasonFake          = "fake"
	ReasonOffensive     = "offensive"
	ReasonIrrelevant    = "irrelevant"
	ReasonOther         = "other"
)

// FlagRaised is the data of review.flag_raised.
type FlagRaised struct {
	FlagID          string `json:"flagId"`
	ReviewID        string `json:"reviewId"`
	StoreID         string `json:"storeId"`
	Reason          string `json:"reason"`
	Description     string `json:"description"`
	FlaggedByUserID string `json:"flaggedByUserId"`
}
