package storage

import (
	"context"
	"io"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
	"marketplace/services/media/domain"
)

// Legacy is the GridFS bucket "images" in which earlier versions kept every
// upload (docs/adr/0051-media-claims-and-sweeper.md: migrated at start).
type Legacy struct{ db *store.DB }

// NewLegacy is the bucket of db.
func NewLegacy(db *store.DB) *Legacy { return &Legacy{db: db} }

// Files are the bucket's files documents (read once at start).
func (r *Legacy) Files(ctx context.Context) ([]domain.LegacyFile, error) {
	return store.FindAll[domain.LegacyFile](store.Scan(ctx, "media: the legacy GridFS files, read once at start to migrate them"),
		r.db.Collection(gridfsBucket+".files"), bson.M{})
}

func (r *Legacy) bucket() *lungo.Bucket {
	return lungo.NewBucket(r.db, options.GridFSBucket().SetName(gridfsBucket))
}

// Open reads the bytes of the file id.
func (r *Legacy) Open(ctx context.Context, id string) (io.ReadCloser, error) {
	s, err := r.bucket().OpenDownloadStream(ctx, id)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Delete removes the file id and its chunks.
func (r *Legacy) Delete(ctx context.Context, id string) error {
	return r.bucket().Delete(ctx, id)
}
