package storage

import (
	"context"
	"sync"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/store"
	"marketplace/services/reviews/domain"
)

// Stats is the repository of the stores' review statistics.
type Stats struct {
	db   *store.DB
	made sync.Map // store ids whose statistics document exists (it is never deleted)
}

// NewStats is the repository of statistics on db.
func NewStats(db *store.DB) *Stats { return &Stats{db: db} }

// Ensure makes the store's statistics document (zeros) if it is missing,
// before a transaction changes it: an upsert inside transactions running
// concurrently could collide on the new document's id.
func (s *Stats) Ensure(ctx context.Context, storeID string, now int64) error {
	if _, ok := s.made.Load(storeID); ok {
		return nil
	}
	_, err := s.db.Collection(statsColl).UpdateOne(ctx, bson.M{"_id": storeID},
		bson.M{"$setOnInsert": bson.M{"count": 0, "sum": 0, "star1": 0, "star2": 0, "star3": 0, "star4": 0, "star5": 0,
			"verified": 0, "version": 0, "updatedAt": now}},
		options.Update().SetUpsert(true))
	if err != nil && !store.IsDuplicate(err) { // a concurrent first review made it
		return err
	}
	if !s.db.InJoined(ctx) { // else made only if the keyed call's transaction commits
		s.made.Store(storeID, struct{}{})
	}
	return nil
}

// Change applies d to the store's statistics and moves their version on (a
// change the store's lists show: a zero d too), inside the caller's
// transaction.
func (s *Stats) Change(ctx context.Context, storeID string, d domain.Delta, now int64) error {
	update := bson.M{"$inc": inc(d), "$set": bson.M{"updatedAt": now}}
	res, err := s.db.Collection(statsColl).UpdateOne(ctx, bson.M{"_id": storeID}, update)
	if err != nil {
		return err
	}
	if res.MatchedCount != 1 {
		return apperr.New(apperr.Internal, "the statistics of store %s are missing", storeID)
	}
	return nil
}

// inc is the $inc of a delta with the version's step (zero fields left out).
func inc(d domain.Delta) bson.M {
	m := bson.M{"version": int64(1)}
	put := func(k string, v int64) {
		if v != 0 {
			m[k] = v
		}
	}
	put("count", d.Count)
	put("sum", d.Sum)
	put("verified", d.Verified)
	for r := 1; r <= 5; r++ {
		put("star"+string(rune('0'+r)), d.Stars[r])
	}
	return m
}

// Of is the store's statistics, nil when the store has never had a review.
func (s *Stats) Of(ctx context.Context, storeID string) (*domain.StoreStats, error) {
	return store.FindOne[domain.StoreStats](ctx, s.db.Collection(statsColl), bson.M{"_id": storeID})
}

// Version is the store's statistics version (0, false when it has none).
func (s *Stats) Version(ctx context.Context, storeID string) (int64, bool, error) {
	d, err := store.FindOne[domain.StoreStats](ctx, s.db.Collection(statsColl), bson.M{"_id": storeID}, options.FindOne().SetProjection(bson.M{"version": 1}))
	if d == nil {
		return 0, false, err
	}
	return d.Version, true, nil
}
