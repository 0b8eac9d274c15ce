package domain

import (
	"marketplace/libs/apperr"
	"marketplace/libs/page"
)

// Kinds group the notification types for an inbox's filter (the console's
// "kind"): what the notice is about.
const (
	KindOrders   = "orders"
	KindPayments = "payments"
	KindPayouts  = "payouts"
	KindReviews  = "reviews"
)

// kinds are the types of each kind; every type is of exactly one kind
// (TestEveryTypeHasOneKind).
var kinds = map[string][]string{
	KindOrders:   {TypeOrderCreated, TypeNewOrder, TypeOrderStatus, TypeOrderPaymentReview, TypePaymentReview},
	KindPayments: {TypePaymentFailed, TypeOrderRefunded, TypeRefundFailed, TypeDisputeOpened},
	KindPayouts: {TypePayoutRequested, TypePayoutApproved, TypePayoutRejected, TypePayoutProcessing, TypePayoutCompleted,
		TypePayoutFailed, TypePayoutCancelled, TypeWalletAdjusted, TypeBankAccountChanged},
	KindReviews: {TypeReviewFlagged, TypeReviewInvitation, TypeReviewResponse, TypeReviewHidden, TypeReviewShown},
}

// TypesOf are the notification types of a kind (nil for an unknown kind).
func TypesOf(kind string) []string { return kinds[kind] }

// InboxFilter selects an inbox's notifications (notifications.inbox.list):
// read or unread ones ("" both), of one kind ("" all), created in a period.
type InboxFilter struct {
	Read   string // "read", "unread" or ""
	Kind   string
	Period page.Period
	Oldest bool // oldest first (else newest first)
}

// NewInboxFilter checks the list's arguments (the registry checked the
// enums): the period (page.NewPeriod). unreadOnly, the older argument, is
// read as read=unread; with read=read it is INVALID_ARGUMENT.
func NewInboxFilter(read, kind, sort *string, unreadOnly *bool, from, to *int64) (InboxFilter, error) {
	p, err := page.NewPeriod(from, to)
	if err != nil {
		return InboxFilter{}, err
	}
	f := InboxFilter{Period: p, Oldest: sort != nil && *sort == "oldest"}
	if read != nil {
		f.Read = *read
	}
	if unreadOnly != nil && *unreadOnly {
		if f.Read == "read" {
			return InboxFilter{}, apperr.Invalid("unreadOnly", "contradicts read=read")
		}
		f.Read = "unread"
	}
	if kind != nil {
		f.Kind = *kind
	}
	return f, nil
}

// Matches says whether the filter selects n (the storage's query selects the same).
func (f InboxFilter) Matches(n *Notification) bool {
	if (f.Read == "read" && !n.Read) || (f.Read == "unread" && n.Read) || !f.Period.Contains(n.CreationTime) {
		return false
	}
	if f.Kind == "" {
		return true
	}
	for _, t := range kinds[f.Kind] {
		if n.Type == t {
			return true
		}
	}
	return false
}

// MaxInboxScan is how many records of an inbox a list page or a count with
// a read or kind filter reads at most: those filters are checked record by
// record (the indexes are by recipient and time), so a page may end short
// and a count be of the newest MaxInboxScan only (capped).
const MaxInboxScan = 10_000

// MaxInboxCount is where notifications.inbox.count stops counting (capped).
const MaxInboxCount = 10_000

// InboxCount is notifications.inbox.count's answer: at most MaxInboxCount,
// capped when there are more.
type InboxCount struct {
	Count  int  `json:"count"`
	Capped bool `json:"capped"`
}

// InboxCountOf caps n (counted up to MaxInboxCount+1) at MaxInboxCount;
// partial (the count read only the newest MaxInboxScan records) is capped
// too: there may be more.
func InboxCountOf(n int64, partial bool) InboxCount {
	if partial && n <= MaxInboxCount {
		return InboxCount{Count: int(n), Capped: true}
	}
	if n > MaxInboxCount {
		return InboxCount{Count: MaxInboxCount, Capped: true}
	}
	return InboxCount{Count: int(n)}
}
