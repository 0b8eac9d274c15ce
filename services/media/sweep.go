package media

import (
	"context"
	"time"

	"marketplace/services/media/domain"
)

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
// their upload, and pending ones older than domain.PendingGrace
// (domain.Abandonments): the metadata first (only while still abandoned: a
// claim racing the sweep wins), then the bytes. It answers how many it
// deleted.
func (s *svc) sweep(ctx context.Context) (int, error) {
	deleted := 0
	for _, a := range domain.Abandonments(s.env.Now(), s.set.UnreferencedGrace) {
		for {
			batch, err := s.uploads.Abandoned(ctx, a, sweepBatch)
			if err != nil {
				return deleted, err
			}
			gone := 0
			for i := range batch {
				if !a.Abandons(&batch[i]) {
					continue
				}
				ok, err := s.sweepOne(ctx, batch[i], a)
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

// sweepOne deletes u if a still abandons it, with its share of the total,
// then its bytes.
func (s *svc) sweepOne(ctx context.Context, u domain.Upload, a domain.Abandonment) (bool, error) {
	deleted, err := s.uploads.DeleteAbandoned(ctx, u, a)
	if err != nil || !deleted {
		return false, err
	}
	return true, s.blobs.Delete(ctx, u.ID)
}
