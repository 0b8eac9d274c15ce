package media

import (
	"context"
	"fmt"

	"marketplace/services/media/storage"
)

// migrateGridFS brings uploads of the GridFS bucket "images" that have no
// uploads document yet under this service's bookkeeping: each gets its
// metadata document (domain.LegacyFile.Adopted: referenced, so it is never
// swept), and, unless the blob store is GridFS itself, its bytes are copied
// to the blob store and the GridFS file deleted (the embedded engine then
// stops loading them at every start). Each file is copied, recorded, then
// deleted: a crash in between repeats the copy at the next start.
func (s *svc) migrateGridFS(ctx context.Context) (err error) {
	inPlace := s.blobs.Kind() == storage.BlobGridFS
	if inPlace {
		// GridFS keeps serving: the bucket's files are adopted once (the
		// uploads made since are in the bucket with their own documents).
		if done, err := s.totals.Adopted(ctx); done || err != nil {
			return err
		}
	}
	legacy, err := s.legacy.Files(ctx)
	if err != nil {
		return err
	}
	if inPlace {
		defer func() {
			if err == nil {
				err = s.totals.MarkAdopted(ctx, s.env.Now().UnixMilli())
			}
		}()
	}
	if len(legacy) == 0 {
		return nil
	}
	moved := 0
	for i := range legacy {
		f := &legacy[i]
		if !inPlace {
			r, err := s.legacy.Open(ctx, f.ID)
			if err != nil {
				return fmt.Errorf("media: migrating %s: %w", f.ID, err)
			}
			err = s.blobs.Put(ctx, f.ID, r)
			_ = r.Close()
			if err != nil {
				return fmt.Errorf("media: migrating %s: %w", f.ID, err)
			}
		}
		if err := s.uploads.Adopt(ctx, f.Adopted()); err != nil {
			return fmt.Errorf("media: migrating %s: %w", f.ID, err)
		}
		if !inPlace {
			if err := s.legacy.Delete(ctx, f.ID); err != nil {
				return fmt.Errorf("media: migrating %s: deleting the GridFS copy: %w", f.ID, err)
			}
		}
		moved++
	}
	if !inPlace {
		// The bucket's chunks are gone; the total is counted again.
		if err := s.totals.Forget(ctx); err != nil {
			return err
		}
	}
	s.env.Logger.Info("media: migrated GridFS uploads", "count", moved, "to", s.blobs.Kind())
	return nil
}
