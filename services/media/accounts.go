package media

import (
	"context"

	"marketplace/libs/auth"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/reviews"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/services/media/domain"
)

// New accounts upload less (issue 29). An account costs nothing to make, so
// a few hundred of them could fill the total cap within a day at the full
// daily quota. Until an account has an order or a review, its daily quota
// is MEDIA_NEW_ACCOUNT_DAILY_UPLOAD_BYTES (never above the full one); after,
// MEDIA_DAILY_UPLOAD_BYTES. Administrators have the full quota.
//
// Who has an order or a review is the customers' and the reviews services'
// fact. The media service learns it from their events (order.created on
// topic orders, review.created on topic reviews, each naming the customer's
// user), kept by storage.Accounts: an outbox publishes each event with the
// write it announces, consumers are at least once and idempotent, so no
// order or review is missed, and an account once established stays so. A
// call could not do it: the reviews service calls the media service (claim),
// and the modules' calls form no cycle. An order or review reaches the
// quota within the event latency (milliseconds).

const (
	// The accounts known to have an order or a review are kept by
	// storage.Accounts (collection establishedAccounts).
	// accountsGroup is the consumer group that fills it.
	accountsGroup = "media.accounts"
)

// accountEvents are the events that establish an account, in the versions
// onAccountEvent reads.
var accountEvents = events.Versions{customers.EventOrderCreated: {1}, reviews.EventCreated: {1}}

// onAccountEvent records the user an order.created or a review.created
// names as established (once; the first event stays). ctx is the consumer's
// transaction.
func (s *svc) onAccountEvent(ctx context.Context, env events.Envelope) error {
	var user, by string
	switch env.Type {
	case customers.EventOrderCreated:
		var o customers.OrderEvent
		if err := events.DecodeData(env, &o); err != nil {
			return err
		}
		user, by = o.CustomerUserID, domain.ByOrder
	case reviews.EventCreated:
		var r reviews.Review
		if err := events.DecodeData(env, &r); err != nil {
			return err
		}
		user, by = r.CustomerUserID, domain.ByReview
	default:
		return nil
	}
	a, ok := domain.Establish(user, by, env.ID, s.env.Now())
	if !ok {
		return nil // names nobody: nothing to learn
	}
	return s.accounts.Establish(ctx, a)
}

// consumeAccounts follows the orders' and the reviews' topics until ctx ends.
func (s *svc) consumeAccounts(ctx context.Context) error {
	return events.RunConsumer(ctx, events.ConsumerConfig{
		Brokers: s.env.Brokers, GroupID: accountsGroup, Topics: []string{customers.TopicOrders, reviews.Topic},
		DB: s.env.DB, Handler: s.onAccountEvent, Handles: accountEvents, Publisher: s.env.Publisher, Logger: s.env.Logger,
		Status: s.accountsStatus,
	})
}

// accountsCheck reports a stuck consumer, for readiness.
func (s *svc) accountsCheck() httpserver.Check {
	return httpserver.Check{Name: "consumer:" + accountsGroup, Fn: s.accountsStatus.Check}
}

// dailyQuotaOf is the daily upload quota of the caller (domain.QuotaOf):
// an administrator's is the full one; whether an account is established is
// asked only when the new accounts' quota is the smaller one.
func (s *svc) dailyQuotaOf(ctx context.Context, caller *auth.Identity) (domain.Quota, error) {
	established := caller.IsAdmin()
	if !established && s.set.newAccountQuota() < s.set.DailyUploadBytes {
		var err error
		if established, err = s.accounts.Established(ctx, caller.Sub); err != nil {
			return domain.Quota{}, err
		}
	}
	return domain.QuotaOf(established, s.set.DailyUploadBytes, s.set.NewAccountDailyUploadBytes), nil
}

// newAccountQuota is a new account's daily quota: never above the full one.
func (s *Settings) newAccountQuota() int64 {
	return domain.NewAccountQuota(s.DailyUploadBytes, s.NewAccountDailyUploadBytes)
}
