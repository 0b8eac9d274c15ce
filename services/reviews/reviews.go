// Package reviews is the reviews service: customers' reviews of stores
// (interface section 4.2), their helpfulness votes, flags and moderation
// (platform contract section 4, admins.reviewModeration.*), the store's
// response, and per-store statistics.
//
// What it owns (its own database):
//
//	storeReviews      the reviews; the sort keys of every list are stored on them
//	reviewVotes       one vote per customer per review (unique index)
//	reviewFlags       one flag per customer per review (unique index), and its moderation
//	storeReviewStats  per store: count, sum, count per star and verified count of the
//	                  visible reviews, and a version that grows with every change a
//	                  list of the store's reviews shows
//	verifiedOrders    per order: the review it verifies, or that it was cancelled
//
// Every change of a review commits in one transaction with the change of its
// store's statistics and its event (outbox, topic "reviews"), so the statistics
// always equal a recount and no event is lost or sent for a change that did
// not happen. Who is calling is resolved by the registry: the caller's
// customer profile (through the customers service) for customers' operations,
// the store of the review and its owner (through the catalog) for the store's
// response. Whether a purchase is verified is asked of the customers service
// at the moment of the review, and withdrawn when the customers service
// confirms that the order it rests on was cancelled (the consumer of the
// orders topic, cancelled.go); photos are checked with the media service.
package reviews

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/cache"
	"marketplace/libs/contracts/catalog"
	"marketplace/libs/contracts/customers"
	"marketplace/libs/contracts/media"
	contract "marketplace/libs/contracts/reviews"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/page"
	"marketplace/libs/service"
	"marketplace/services/reviews/domain"
	"marketplace/services/reviews/storage"
)

// Module is the reviews service.
var Module = service.Module{Name: contract.Service, Build: build, Publishes: []string{contract.Topic},
	Consumes: []string{customers.TopicOrders}, // cancellations (cancelled.go)
	Calls:    []string{customers.Service, catalog.Service, media.Service}, Settings: func() any { return &Settings{} }}

// Settings are the reviews service's own, from the environment.
type Settings struct {
	// PublicBaseURL is where clients reach the gateway: photoUrls are
	// PublicBaseURL + /api/storage/<storageId>. The all-in-one fills it with
	// its own address when unset.
	PublicBaseURL string `env:"PUBLIC_BASE_URL"`
}

// Validate refuses a PUBLIC_BASE_URL that cannot start an absolute URL.
func (s *Settings) Validate() error {
	u := strings.TrimSpace(s.PublicBaseURL)
	if u == "" {
		return nil
	}
	p, err := url.Parse(u)
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.RawQuery != "" || p.Fragment != "" {
		return fmt.Errorf("PUBLIC_BASE_URL %q must be an absolute http(s) URL such as https://marketplace.example.com", u)
	}
	return nil
}

// DefaultPublicBaseURL is used by a reviews service on its own without
// PUBLIC_BASE_URL: the gateway's default address (HTTP_ADDR's default).
const DefaultPublicBaseURL = "http://127.0.0.1:8080"

// Listing cache: pages of a store's reviews, keyed by the store's statistics
// version (see getStoreReviews).
const (
	pageCacheTTL = time.Minute
	pageCacheMax = 5_000
	// votesCacheMax bounds the callers' vote sets kept (one per caller and store).
	votesCacheMax = 20_000
)

type svc struct {
	env           service.Env
	reviews       *storage.Reviews
	votes         *storage.Votes
	flags         *storage.Flags
	stats         *storage.Stats
	orders        *storage.Orders
	customers     *customers.Client
	catalog       *catalog.Client
	media         *media.Client
	publicBaseURL string
	pages         *cache.TTL[string, page.Result[ReviewItem]]
	callerVotes   *cache.TTL[string, map[string]bool] // a caller's votes on a store's reviews, by store version
	status        *events.ConsumerStatus              // the orders consumer's health (cancelled.go)
	unconfirmed   metric.Int64Counter                 // cancellations the customers service did not confirm
}

func build(_ context.Context, env service.Env) (*service.Built, error) {
	settings, _ := env.Settings.(*Settings)
	if settings == nil {
		settings = &Settings{}
	}
	if env.Now == nil {
		env.Now = time.Now
	}
	base := strings.TrimRight(strings.TrimSpace(settings.PublicBaseURL), "/")
	if base == "" {
		base = DefaultPublicBaseURL
		env.Logger.Warn("PUBLIC_BASE_URL is not set: photo URLs use " + DefaultPublicBaseURL)
	}
	s := &svc{
		env: env, reviews: storage.NewReviews(env.DB), votes: storage.NewVotes(env.DB), flags: storage.NewFlags(env.DB),
		stats: storage.NewStats(env.DB), orders: storage.NewOrders(env.DB), customers: customers.NewClient(env.Calls), catalog: catalog.NewClient(env.Calls), media: media.NewClient(env.Calls),
		publicBaseURL: base, pages: cache.New[string, page.Result[ReviewItem]](pageCacheTTL, pageCacheMax),
		callerVotes: cache.New[string, map[string]bool](pageCacheTTL, votesCacheMax),
		status:      events.NewConsumerStatus(0), unconfirmed: newUnconfirmedCounter(),
	}
	viaReview := ops.StoreVia("reviewId", s.storeOfReview)
	return &service.Built{
		Background: []func(context.Context) error{s.consume},
		Checks:     []httpserver.Check{s.consumerCheck()},
		Registry: ops.NewRegistry(contract.Service,
			ops.NewMutation("stores.reviews.addReview", ops.Customer, "Review a store as the caller (1 to 5 stars, a title or a comment, up to 10 of one's own photos; verified purchase decided by the service).", s.addReview),
			ops.NewMutation("stores.reviews.updateReview", ops.Customer, "Change the given fields of one's own review (previous versions are kept); returns the review.", s.updateReview),
			ops.NewMutation("stores.reviews.deleteReview", ops.Customer, "Delete one's own review with its votes and flags.", s.deleteReview),
			ops.NewQuery("stores.reviews.getStoreReviews", ops.Public, "A store's visible reviews, paginated: sortBy newest (default), oldest, highest_rating, lowest_rating or most_helpful; ratingFilter; verifiedOnly; from and to (written from..to, epoch ms, inclusive; at most 366 days apart, else INVALID_ARGUMENT range_too_large; only with sortBy newest or oldest, else INVALID_ARGUMENT sort_with_filter).", s.getStoreReviews),
			ops.NewQuery("stores.reviews.getStoreReviewStats", ops.Public, "A store's review statistics (count, average, distribution, verified count, Bayesian average).", s.getStoreReviewStats),
			ops.NewQuery("stores.reviews.getRatingHistory", ops.StoreOwnerOrAdmin, "A store's rating by week (store owner or administrator): the visible reviews written from `from` to `to` (epoch ms, inclusive; at most 366 days, else INVALID_ARGUMENT range_too_large) by Dubai week from Monday, weeks {weekStart, count, average (null without reviews)}. More than 20,000 reviews in the period: FAILED_PRECONDITION too_many_reviews.", s.getRatingHistory, ops.StoreArg("storeId")),
			ops.NewQuery("stores.reviews.getReview", ops.Public, "One review with its customer, store, photo URLs, canEdit, canDelete and the caller's vote, or null. Administrators also get its moderation (the last decision to hide or show it: visible, adminUserId, adminName when the administrator's token stated one, at, flagId, adminNotes) and edit history.", s.getReview),
			ops.NewQuery("stores.reviews.getCustomerReviews", ops.Customer, "The caller's reviews, newest first (paginated), with their stores and store responses.", s.getCustomerReviews),
			ops.NewMutation("stores.reviews.addStoreResponse", ops.StoreOwner, "The store's one response to a review (its owner only).", s.addStoreResponse, viaReview),
			ops.NewMutation("stores.reviews.updateStoreResponse", ops.StoreOwner, "Change the store's response to a review (its owner only).", s.updateStoreResponse, viaReview),
			ops.NewMutation("stores.reviews.voteOnReview", ops.Customer, "Vote a review helpful or not (one vote per customer, changeable; never one's own review).", s.voteOnReview),
			ops.NewMutation("stores.reviews.flagReview", ops.Customer, "Report a review to the moderators (one flag per customer per review).", s.flagReview),
			ops.NewQuery("admins.reviewModeration.listFlags", ops.Admin, "Review flags, oldest first (sort newest: newest first), optionally of one status and raised from `from` to `to` (epoch ms, inclusive; at most 366 days apart, else INVALID_ARGUMENT range_too_large), each with its review (paginated; the review's moderation names who hid or showed it last: adminUserId, and adminName when their token stated one). by decision: the decisions of one status (dismissed or resolved, else INVALID_ARGUMENT) ordered, and from/to taken, by decision time (resolution.resolvedAt) instead of report time.", s.listFlags),
			ops.NewQuery("admins.reviewModeration.countFlags", ops.Admin, "How many flags listFlags lists with the same filters (status, from, to, by), counted up to 10,000: {count, capped}.", s.countFlags),
			ops.NewMutation("admins.reviewModeration.resolveFlag", ops.Admin, "Decide a pending flag: dismiss it (the review stays) or hide the review (its pending flags are resolved, its author notified).", s.resolveFlag),
			ops.NewMutation("admins.reviewModeration.setReviewVisibility", ops.Admin, "Hide a review or show it again.", s.setReviewVisibility),
			ops.NewQuery("admins.reviewModeration.searchReviews", ops.Admin, fmt.Sprintf("Reviews of every store, hidden ones too (administrators), by query: %d to %d characters, at most %d words (else INVALID_ARGUMENT), every word found (any case, any part of a word) in the reviewer's name or in the title and comment; among the newest %d reviews (partial: true when there are older ones). At most %d, newest first, each with matchedBy (name or comment).", domain.MinSearchLength, domain.MaxSearchLength, domain.MaxSearchWords, domain.MaxSearchScan, domain.MaxSearchHits), s.searchReviews),
		).WithResolvers(ops.Resolvers{Customer: s.customers.CustomerRef, Store: s.catalog.StoreRef}),
		Indexes: storage.Indexes(),
	}, nil
}

func (s *svc) now() int64 { return s.env.Now().UnixMilli() }

// viewer is the caller as a review's visibility sees them (nil: anonymous).
func viewer(ctx context.Context) *domain.Viewer {
	c := ops.Caller(ctx)
	if c == nil {
		return nil
	}
	return &domain.Viewer{Sub: c.Sub, Admin: c.IsAdmin()}
}

// author is the caller of a customer operation as the author of a review,
// vote or flag.
func author(ctx context.Context) domain.Author {
	c := ops.CustomerOf(ctx)
	if c == nil {
		return domain.Author{}
	}
	return domain.Author{CustomerID: c.ID, UserID: c.UserID, Name: c.Name}
}

// seen is rev when the caller may know of it, else the answer for a missing
// review (no existence oracle: getReview answers null to them).
func seen(ctx context.Context, rev *domain.Review) error {
	if !rev.SeenBy(viewer(ctx)) {
		return domain.ErrNoReview(rev.ID)
	}
	return nil
}

// reviewToActOn is a review by id for an action of the caller: NOT_FOUND when
// there is none, and, with exactly the same answer, when it is hidden and the
// caller may not see it.
func (s *svc) reviewToActOn(ctx context.Context, id string) (*domain.Review, error) {
	r, err := s.reviews.Get(ctx, id)
	if err == nil {
		err = seen(ctx, r)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// storeOfReview leads the store owner's access check from a review to its
// store; a review hidden from the caller is NOT_FOUND, as a missing one.
func (s *svc) storeOfReview(ctx context.Context, reviewID string) (string, error) {
	r, err := s.reviews.Visibility(ctx, reviewID)
	if err != nil {
		return "", err
	}
	if r == nil || !r.SeenBy(viewer(ctx)) {
		return "", domain.ErrNoReview(reviewID)
	}
	return r.StoreID, nil
}

// atomically runs fn in one transaction that every repository call inside it
// joins (store.DB.Joined); inside a keyed call's (libs/ops runs it inside
// Joined) fn joins that one. A write conflict runs fn again from the start,
// on fresh loads: fn must leave nothing of an earlier run behind.
func (s *svc) atomically(ctx context.Context, fn func(ctx context.Context) error) error {
	if s.env.DB.InJoined(ctx) {
		return s.env.DB.Tx(ctx, fn)
	}
	return s.env.DB.Joined(ctx, fn)
}

// publish adds an event of the review to the transaction's outbox.
func (s *svc) publish(ctx context.Context, eventType, reviewID string, data any) error {
	_, err := s.env.Outbox.Add(ctx, contract.Topic, eventType, reviewID, data)
	return err
}
