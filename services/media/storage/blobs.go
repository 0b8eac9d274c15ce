package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/256dpi/lungo"
	"go.mongodb.org/mongo-driver/mongo/options"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob" // mem:// (tests)
	_ "gocloud.dev/blob/s3blob"  // s3://bucket?region=...&endpoint=... (S3-compatible buckets)
	"gocloud.dev/gcerrors"

	"marketplace/libs/store"
)

// Blobs holds the bytes of uploads, by storage id; their metadata lives in
// the service's database (Uploads). One interface, three stores chosen
// by MEDIA_BLOB_URL (Settings): files under a directory (the embedded
// mode's default, next to the database file), an S3-compatible bucket, or GridFS in the
// service's MongoDB database. Every implementation streams: nothing holds a
// whole file in memory.
type Blobs interface {
	// Put stores everything read from r under key. When r fails (too large,
	// not an image, the client went away) or the store does, nothing stays
	// under key and the error is returned.
	Put(ctx context.Context, key string, r io.Reader) error
	// Open reads the bytes under key; a missing key is ErrBlobNotFound.
	Open(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes key; a missing key is not an error.
	Delete(ctx context.Context, key string) error
	// Kind names the store in logs ("file", "s3", "mem", "gridfs").
	Kind() string
	Close() error
}

var ErrBlobNotFound = errors.New("media: no such blob")

// BlobGridFS is the MEDIA_BLOB_URL that keeps the bytes in GridFS (bucket
// "images") of the media service's own MongoDB database.
const BlobGridFS = "gridfs"

// OpenBlobs opens the store rawURL names: file:///abs/dir, s3://bucket?...,
// mem:// or gridfs (GridFS in db).
func OpenBlobs(ctx context.Context, rawURL string, db *store.DB) (Blobs, error) {
	if rawURL == BlobGridFS || rawURL == "gridfs://" {
		b := lungo.NewBucket(db, options.GridFSBucket().SetName(gridfsBucket))
		if err := b.EnsureIndexes(ctx, true); err != nil {
			return nil, fmt.Errorf("media: GridFS indexes: %w", err)
		}
		return &gridfsBlobs{b: b}, nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("media: MEDIA_BLOB_URL %q: %w", rawURL, err)
	}
	switch u.Scheme {
	case "file":
		dir := filepath.FromSlash(u.Path)
		if u.Host != "" || !filepath.IsAbs(dir) {
			return nil, fmt.Errorf("media: MEDIA_BLOB_URL %q: a file URL names an absolute directory (file:///var/lib/marketplace/media)", rawURL)
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("media: blob directory: %w", err)
		}
		// Temporary files next to the blobs: DATA_DIR may be another mount
		// than os.TempDir, and a rename across mounts fails. The metadata is
		// in the database, not in sidecar files.
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true, Metadata: fileblob.MetadataDontWrite})
		if err != nil {
			return nil, fmt.Errorf("media: blob directory: %w", err)
		}
		return &cloudBlobs{b: b, kind: "file"}, nil
	case "s3", "mem":
		b, err := blob.OpenBucket(ctx, rawURL)
		if err != nil {
			return nil, fmt.Errorf("media: MEDIA_BLOB_URL %q: %w", rawURL, err)
		}
		return &cloudBlobs{b: b, kind: u.Scheme}, nil
	}
	return nil, fmt.Errorf("media: MEDIA_BLOB_URL %q: use file:///dir, s3://bucket?region=..., mem:// or gridfs", rawURL)
}

// cloudBlobs is a gocloud.dev bucket (fileblob, s3blob, memblob).
type cloudBlobs struct {
	b    *blob.Bucket
	kind string
}

func (c *cloudBlobs) Kind() string { return c.kind }

func (c *cloudBlobs) Put(ctx context.Context, key string, r io.Reader) error {
	// Canceling the writer's context before Close discards the write.
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := c.b.NewWriter(wctx, key, &blob.WriterOptions{ContentType: "application/octet-stream", BufferSize: 256 << 10})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel()
		_ = w.Close()
		return err
	}
	return w.Close()
}

func (c *cloudBlobs) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := c.b.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, ErrBlobNotFound
	}
	return r, err
}

func (c *cloudBlobs) Delete(ctx context.Context, key string) error {
	err := c.b.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil
	}
	return err
}

func (c *cloudBlobs) Close() error { return c.b.Close() }

// gridfsBucket is the GridFS bucket of the gridfs store, and the one the
// service used before blobs (migrated from at start: Legacy).
const gridfsBucket = "images"

// gridfsBlobs keeps the bytes in GridFS: chunks of 255 KiB written as they
// are read. Meant for a real MongoDB deployment; on the embedded engine the
// chunks would sit in the engine's memory, which is why the embedded mode
// uses files.
type gridfsBlobs struct{ b *lungo.Bucket }

func (g *gridfsBlobs) Kind() string { return BlobGridFS }

func (g *gridfsBlobs) Put(ctx context.Context, key string, r io.Reader) error {
	w, err := g.b.OpenUploadStreamWithID(ctx, key, key)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		_ = w.Abort()
		return err
	}
	return w.Close()
}

func (g *gridfsBlobs) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := g.b.OpenDownloadStream(ctx, key)
	if errors.Is(err, lungo.ErrFileNotFound) || store.IsNotFound(err) {
		return nil, ErrBlobNotFound
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

func (g *gridfsBlobs) Delete(ctx context.Context, key string) error {
	err := g.b.Delete(ctx, key)
	if errors.Is(err, lungo.ErrFileNotFound) || store.IsNotFound(err) {
		return nil
	}
	return err
}

func (g *gridfsBlobs) Close() error { return nil }

// DefaultBlobURL is where the bytes go without MEDIA_BLOB_URL: GridFS on a
// MongoDB server (what every replica shares); with the embedded engine's
// file, a directory next to it (DATA_DIR/db/media.blobs in the all-in-one);
// memory with the in-memory engine.
func DefaultBlobURL(db *store.DB) (string, error) {
	switch {
	case !db.Embedded():
		return BlobGridFS, nil
	case db.InMemory():
		return "mem://", nil
	}
	abs, err := filepath.Abs(strings.TrimSuffix(db.File(), ".lungo") + ".blobs")
	if err != nil {
		return "", err
	}
	return "file://" + filepath.ToSlash(abs), nil
}

// BlobURLScheme is the scheme part of a MEDIA_BLOB_URL, for validation.
func BlobURLScheme(raw string) string {
	if raw == BlobGridFS {
		return BlobGridFS
	}
	s, _, _ := strings.Cut(raw, "://")
	return s
}
