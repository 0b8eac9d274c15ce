package media

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
)

// pendingGrace is how long a pending upload may stay pending: an upload
// streams for at most the server's read timeout, so an older one was left by
// a crash (its reservation and any bytes written are dropped).
const pendingGrace = time.Hour

// sweepBatch bounds the uploads one pass reads at once.
const sweepBatch = 200

// sweepLoop runs sweep every SweepInterval until ctx ends.
func (s *svc) sweepLoop(ctx context.Context) error {
	t := time.NewTicker(s.set.SweepInterval)
	defer t.Stop()
	for {
		if n, err := s.sweep(ctx); err != nil {
			s.env.Logger.Warn("media: sweeping unreferenced uploads failed", "err", err)
		} else if n > 0 {
			s.env.Logger.Info("media: deleted unreferenced uploads", "count", n)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// sweep deletes the uploads nothing claimed within UnreferencedGrace of
// their upload, and pending ones older than pendingGrace: the metadata
// first (only while still unreferenced: a claim racing the sweep wins), then
// the bytes. It answers how many it deleted.
func (s *svc) sweep(ctx context.Context) (int, error) {
	now := s.env.Now()
	deleted := 0
	for _, q := range []bson.M{
		{"referenced": false, "createdAt": bson.M{"$lt": now.Add(-s.set.UnreferencedGrace).UnixMilli()}},
		{"state": statePending, "createdAt": bson.M{"$lt": now.Add(-pendingGrace).UnixMilli()}},
	} {
		for {
			cur, err := s.env.DB.Collection(uploadsColl).Find(ctx, q, options.Find().SetLimit(sweepBatch).SetProjection(bson.M{"size": 1, "state": 1}))
			if err != nil {
				return deleted, err
			}
			var batch []uploadRecord
			if err := cur.All(ctx, &batch); err != nil {
				return deleted, err
			}
			gone := 0
			for _, u := range batch {
				ok, err := s.sweepOne(ctx, u, q)
				if err != nil {
					return deleted, err
				}
				if ok {
					gone++
				}
			}
			deleted += gone
			if len(batch) < sweepBatch || gone == 0 {
				break
			}
		}
	}
	return deleted, nil
}

// sweepOne deletes u if it still matches q, with its bytes and its share of
// the usage.
func (s *svc) sweepOne(ctx context.Context, u uploadRecord, q bson.M) (bool, error) {
	filter := bson.M{"_id": u.ID}
	for k, v := range q {
		filter[k] = v
	}
	deleted := false
	err := s.env.DB.Tx(ctx, func(tx context.Context) error {
		deleted = false
		res, err := s.env.DB.Collection(uploadsColl).DeleteOne(tx, filter)
		if err != nil || res.DeletedCount == 0 {
			return err
		}
		deleted = true
		_, err = s.env.DB.Collection(usageColl).UpdateOne(tx, bson.M{"_id": usageID}, bson.M{"$inc": bson.M{"bytes": -u.Size}})
		return err
	})
	if err != nil || !deleted {
		return false, err
	}
	return true, s.blobs.Delete(ctx, u.ID)
}
