package media

import (
	"context"
	"fmt"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
)

// migratedID is the usage document that records the adoption of the GridFS
// bucket's files when GridFS stays the blob store.
const migratedID = "gridfsAdopted"

// legacyFile is a files document of the GridFS bucket the service kept every
// upload in before blobs.go (bucket images, metadata written by that code).
type legacyFile struct {
	ID       string `bson:"_id"`
	Length   int64  `bson:"length"`
	Metadata struct {
		UploadedBy  string `bson:"uploadedBy"`
		ContentType string `bson:"contentType"`
		SHA256      string `bson:"sha256"`
		UploadedAt  int64  `bson:"uploadedAt"`
	} `bson:"metadata"`
}

// migrateGridFS brings uploads of the GridFS bucket "images" that have no
// uploads document yet under this service's bookkeeping: each gets its
// metadata document (referenced: it was uploaded before claims existed and a
// review may show it, so it is never swept), and, unless the blob store is
// GridFS itself, its bytes are copied to the blob store and the GridFS file
// deleted (the embedded engine then stops loading them at every start).
// Each file is copied, recorded, then deleted: a crash in between repeats
// the copy at the next start.
func (s *svc) migrateGridFS(ctx context.Context) (err error) {
	inPlace := s.blobs.Kind() == BlobGridFS
	if inPlace {
		// GridFS keeps serving: the bucket's files are adopted once (the
		// uploads made since are in the bucket with their own documents).
		err := s.env.DB.Collection(usageColl).FindOne(ctx, bson.M{"_id": migratedID}).Err()
		if err == nil || !store.IsNotFound(err) {
			return err
		}
	}
	files := s.env.DB.Collection(gridfsBucket + ".files")
	cur, err := files.Find(store.Scan(ctx, "media: the legacy GridFS files, read once at start to migrate them"), bson.M{})
	if err != nil {
		return err
	}
	var legacy []legacyFile
	if err := cur.All(ctx, &legacy); err != nil {
		return err
	}
	if inPlace {
		defer func() {
			if err == nil {
				_, err = s.env.DB.Collection(usageColl).UpdateOne(ctx, bson.M{"_id": migratedID}, bson.M{"$set": bson.M{"at": s.env.Now().UnixMilli()}},
					options.Update().SetUpsert(true))
			}
		}()
	}
	if len(legacy) == 0 {
		return nil
	}
	bucket := lungo.NewBucket(s.env.DB, options.GridFSBucket().SetName(gridfsBucket))
	moved := 0
	for _, f := range legacy {
		if !inPlace {
			r, err := bucket.OpenDownloadStream(ctx, f.ID)
			if err != nil {
				return fmt.Errorf("media: migrating %s: %w", f.ID, err)
			}
			err = s.blobs.Put(ctx, f.ID, r)
			_ = r.Close()
			if err != nil {
				return fmt.Errorf("media: migrating %s: %w", f.ID, err)
			}
		}
		doc := uploadRecord{ID: f.ID, UploadedBy: f.Metadata.UploadedBy, ContentType: f.Metadata.ContentType, Size: f.Length,
			SHA256: f.Metadata.SHA256, CreatedAt: f.Metadata.UploadedAt, State: stateStored, Referenced: true, ReferencedAt: f.Metadata.UploadedAt}
		if _, err := s.env.DB.Collection(uploadsColl).UpdateOne(ctx, bson.M{"_id": f.ID}, bson.M{"$setOnInsert": doc},
			options.Update().SetUpsert(true)); err != nil {
			return fmt.Errorf("media: migrating %s: %w", f.ID, err)
		}
		if !inPlace {
			if err := bucket.Delete(ctx, f.ID); err != nil {
				return fmt.Errorf("media: migrating %s: deleting the GridFS copy: %w", f.ID, err)
			}
		}
		moved++
	}
	if !inPlace {
		// The bucket's chunks are gone; the usage document is recounted.
		if _, err := s.env.DB.Collection(usageColl).DeleteOne(ctx, bson.M{"_id": usageID}); err != nil {
			return err
		}
	}
	s.env.Logger.Info("media: migrated GridFS uploads", "count", moved, "to", s.blobs.Kind())
	return nil
}
