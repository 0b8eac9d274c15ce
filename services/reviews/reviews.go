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
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/apperr"
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
	"marketplace/libs/store"
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
	customers     *customers.Client
	catalog       *catalog.Client
	media         *media.Client
	publicBaseURL string
	pages         *cache.TTL[string, page.Result[ReviewItem]]
	votes         *cache.TTL[string, map[string]bool] // a caller's votes on a store's reviews, by store version
	statsMade     sync.Map                            // store ids whose statistics document exists (it is never deleted)
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
		env: env, customers: customers.NewClient(env.Calls), catalog: catalog.NewClient(env.Calls), media: media.NewClient(env.Calls),
		publicBaseURL: base, pages: cache.New[string, page.Result[ReviewItem]](pageCacheTTL, pageCacheMax),
		votes:  cache.New[string, map[string]bool](pageCacheTTL, votesCacheMax),
		status: events.NewConsumerStatus(0), unconfirmed: newUnconfirmedCounter(),
	}
	viaReview := ops.StoreVia("reviewId", s.storeOfReview)
	return &service.Built{
		Background: []func(context.Context) error{s.consume},
		Checks:     []httpserver.Check{s.consumerCheck()},
		Registry: ops.NewRegistry(contract.Service,
			ops.NewMutation("stores.reviews.addReview", ops.Customer, "Review a store as the caller (1 to 5 stars, a title or a comment, up to 10 of one's own photos; verified purchase decided by the service).", s.addReview),
			ops.NewMutation("stores.reviews.updateReview", ops.Customer, "Change the given fields of one's own review (previous versions are kept); returns the review.", s.updateReview),
			ops.NewMutation("stores.reviews.deleteReview", ops.Customer, "Delete one's own review with its votes and flags.", s.deleteReview),
			ops.NewQuery("stores.reviews.getStoreReviews", ops.Public, "A store's visible reviews, paginated: sortBy newest (default), oldest, highest_rating, lowest_rating or most_helpful; ratingFilter; verifiedOnly.", s.getStoreReviews),
			ops.NewQuery("stores.reviews.getStoreReviewStats", ops.Public, "A store's review statistics (count, average, distribution, verified count, Bayesian average).", s.getStoreReviewStats),
			ops.NewQuery("stores.reviews.getReview", ops.Public, "One review with its customer, store, photo URLs, canEdit, canDelete and the caller's vote, or null.", s.getReview),
			ops.NewQuery("stores.reviews.getCustomerReviews", ops.Customer, "The caller's reviews, newest first (paginated), with their stores and store responses.", s.getCustomerReviews),
			ops.NewMutation("stores.reviews.addStoreResponse", ops.StoreOwner, "The store's one response to a review (its owner only).", s.addStoreResponse, viaReview),
			ops.NewMutation("stores.reviews.updateStoreResponse", ops.StoreOwner, "Change the store's response to a review (its owner only).", s.updateStoreResponse, viaReview),
			ops.NewMutation("stores.reviews.voteOnReview", ops.Customer, "Vote a review helpful or not (one vote per customer, changeable; never one's own review).", s.voteOnReview),
			ops.NewMutation("stores.reviews.flagReview", ops.Customer, "Report a review to the moderators (one flag per customer per review).", s.flagReview),
			ops.NewQuery("admins.reviewModeration.listFlags", ops.Admin, "Review flags, oldest first, optionally of one status, each with its review (paginated).", s.listFlags),
			ops.NewMutation("admins.reviewModeration.resolveFlag", ops.Admin, "Decide a pending flag: dismiss it (the review stays) or hide the review (its pending flags are resolved, its author notified).", s.resolveFlag),
			ops.NewMutation("admins.reviewModeration.setReviewVisibility", ops.Admin, "Hide a review or show it again.", s.setReviewVisibility),
		).WithResolvers(ops.Resolvers{Customer: s.customers.CustomerRef, Store: s.catalog.StoreRef}),
		Indexes: append([]store.Index{
			// One review per order per customer (rule 5), held by the database.
			{Collection: reviewsColl, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "orderId", Value: 1}}, Unique: true,
				Partial: bson.M{"orderId": bson.M{"$exists": true}}, Name: "one_review_per_order"},
			// The lists (on MongoDB: the store's visible reviews in each order, the caller's reviews).
			{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_newest"},
			{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "rating", Value: -1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_rating"},
			// lowest_rating: the lowest first, the newest first among equals (the
			// mixed directions are not store_rating walked backwards).
			{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "rating", Value: 1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_rating_lowest"},
			{Collection: reviewsColl, Keys: bson.D{{Key: "storeId", Value: 1}, {Key: "hidden", Value: 1}, {Key: "wilson", Value: -1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "store_helpful"},
			{Collection: reviewsColl, Keys: bson.D{{Key: "customerId", Value: 1}, {Key: "createdAt", Value: -1}, {Key: "_id", Value: -1}}, Name: "by_customer"},
			// One vote and one flag per customer per review.
			{Collection: votesColl, Keys: bson.D{{Key: "reviewId", Value: 1}, {Key: "customerId", Value: 1}}, Unique: true, Name: "one_vote_per_customer"},
			{Collection: votesColl, Keys: bson.D{{Key: "userId", Value: 1}, {Key: "reviewId", Value: 1}}, Name: "by_user"},
			{Collection: votesColl, Keys: bson.D{{Key: "userId", Value: 1}, {Key: "storeId", Value: 1}}, Name: "by_user_store"},
			{Collection: flagsColl, Keys: bson.D{{Key: "reviewId", Value: 1}, {Key: "customerId", Value: 1}}, Unique: true, Name: "one_flag_per_customer"},
			{Collection: flagsColl, Keys: bson.D{{Key: "status", Value: 1}, {Key: "createdAt", Value: 1}, {Key: "_id", Value: 1}}, Name: "by_status"},
			// Every flag, oldest first (listFlags without a status).
			{Collection: flagsColl, Keys: bson.D{{Key: "createdAt", Value: 1}, {Key: "_id", Value: 1}}, Name: "oldest"},
			// (verifiedOrders is read and written by _id only.)
		}, events.ConsumerIndexes()...),
	}, nil
}

func (s *svc) now() int64 { return s.env.Now().UnixMilli() }

// review is a review by id, nil when there is none.
func (s *svc) review(ctx context.Context, id string) (*reviewDoc, error) {
	var r reviewDoc
	err := s.env.DB.Collection(reviewsColl).FindOne(ctx, bson.M{"_id": id}).Decode(&r)
	if store.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &r, nil
}

func errNoReview(id string) error {
	return apperr.New(apperr.NotFound, "review %s does not exist", id)
}

// existingReview is a review by id, NOT_FOUND when there is none.
func (s *svc) existingReview(ctx context.Context, id string) (*reviewDoc, error) {
	r, err := s.review(ctx, id)
	if err == nil && r == nil {
		err = errNoReview(id)
	}
	return r, err
}

// seesReview reports whether the caller may know of r: anyone while it is
// shown; once hidden by the moderators, its author and administrators only
// (getReview's rule).
func seesReview(ctx context.Context, r *reviewDoc) bool {
	if !r.Hidden {
		return true
	}
	caller := ops.Caller(ctx)
	return caller != nil && (caller.Sub == r.UserID || caller.IsAdmin())
}

// reviewToActOn is a review by id for an action of the caller: NOT_FOUND when
// there is none, and, with exactly the same answer, when it is hidden and the
// caller may not see it (no existence oracle: getReview answers null to them).
func (s *svc) reviewToActOn(ctx context.Context, id string) (*reviewDoc, error) {
	r, err := s.existingReview(ctx, id)
	if err == nil && !seesReview(ctx, r) {
		return nil, errNoReview(id)
	}
	return r, err
}

// storeOfReview leads the store owner's access check from a review to its
// store; a review hidden from the caller is NOT_FOUND, as a missing one.
func (s *svc) storeOfReview(ctx context.Context, reviewID string) (string, error) {
	var r reviewDoc
	err := s.env.DB.Collection(reviewsColl).FindOne(ctx, bson.M{"_id": reviewID},
		options.FindOne().SetProjection(bson.M{"storeId": 1, "hidden": 1, "userId": 1})).Decode(&r)
	if store.IsNotFound(err) || (err == nil && !seesReview(ctx, &r)) {
		return "", errNoReview(reviewID)
	}
	return r.StoreID, err
}

// ensureStats makes the store's statistics document (zeros) if it is missing,
// before a transaction changes it: an upsert inside transactions running
// concurrently could collide on the new document's id.
func (s *svc) ensureStats(ctx context.Context, storeID string) error {
	if _, ok := s.statsMade.Load(storeID); ok {
		return nil
	}
	_, err := s.env.DB.Collection(statsColl).UpdateOne(ctx, bson.M{"_id": storeID},
		bson.M{"$setOnInsert": bson.M{"count": 0, "sum": 0, "star1": 0, "star2": 0, "star3": 0, "star4": 0, "star5": 0,
			"verified": 0, "version": 0, "updatedAt": s.now()}},
		options.Update().SetUpsert(true))
	if err != nil && !store.IsDuplicate(err) { // a concurrent first review made it
		return err
	}
	if !s.env.DB.InJoined(ctx) { // else made only if the keyed call's transaction commits
		s.statsMade.Store(storeID, struct{}{})
	}
	return nil
}

// changeStats applies d to the store's statistics and moves their version on
// (a change the store's lists show), inside the caller's transaction.
func (s *svc) changeStats(ctx context.Context, storeID string, d Delta, now int64) error {
	inc := bson.M{"version": int64(1)}
	for k, v := range d.inc() {
		inc[k] = v
	}
	res, err := s.env.DB.Collection(statsColl).UpdateOne(ctx, bson.M{"_id": storeID}, bson.M{"$inc": inc, "$set": bson.M{"updatedAt": now}})
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 {
		return apperr.New(apperr.Internal, "the statistics of store %s are missing", storeID)
	}
	return nil
}

// publish adds an event of the review to the transaction's outbox.
func (s *svc) publish(ctx context.Context, eventType, reviewID string, data any) error {
	_, err := s.env.Outbox.Add(ctx, contract.Topic, eventType, reviewID, data)
	return err
}

// isAuthor reports whether the caller of a customer operation wrote r.
func isAuthor(ctx context.Context, r *reviewDoc) bool {
	c := ops.CustomerOf(ctx)
	return c != nil && c.ID == r.CustomerID
}

func errNotAuthor(what string) error {
	return apperr.New(apperr.PermissionDenied, "only the review's author may %s it", what)
}
