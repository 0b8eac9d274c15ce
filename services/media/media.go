// Package media is the media service: photo uploads and downloads (contract
// section 5) and the check other services make before referring to an upload.
//
// Files live in GridFS (bucket "images": collections images.files and
// images.chunks) of the service's own database, written through lungo's GridFS
// API, which works the same on the embedded engine and on a real MongoDB
// deployment. A file's _id is its storage id (stg_...); its metadata records
// who uploaded it and what it is:
//
//	{ uploadedBy: <token sub>, contentType: <sniffed>, size, sha256: <hex>, uploadedAt: <epoch ms> }
//
// Routes (declared, forwarded by the gateway):
//
//	POST /api/storage/upload        authenticated; body = the image, Content-Type image/*,
//	                                1 byte to 5 MiB, a PNG, JPEG, WebP or GIF by its magic
//	                                number; answers { storageId }
//	GET  /api/storage/:storageId    public; the bytes, with the stored Content-Type, a strong
//	                                ETag (the quoted sha256), immutable caching and nosniff;
//	                                If-None-Match -> 304; a malformed or unknown id -> 404
package media

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/256dpi/lungo"
	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/media"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

// Module is the media service.
var Module = service.Module{Name: contract.Service, Build: build}

const (
	bucketName = "images"
	filesColl  = bucketName + ".files"

	// CacheControl is sent with every file: a storage id always names the same
	// bytes, so clients and CDNs may keep them for a year without asking again.
	CacheControl = "public, max-age=31536000, immutable"

	// maxConcurrentUploads bounds the uploads one instance stores at once: each
	// holds the image and the GridFS writer's buffer in memory.
	maxConcurrentUploads = 4
	uploadQueueWait      = 10 * time.Second
)

type svc struct {
	env     service.Env
	bucket  *lungo.Bucket
	uploads chan struct{}
}

func build(ctx context.Context, env service.Env) (*service.Built, error) {
	if env.Now == nil {
		env.Now = time.Now
	}
	s := &svc{
		env:     env,
		bucket:  lungo.NewBucket(env.DB, options.GridFSBucket().SetName(bucketName)),
		uploads: make(chan struct{}, maxConcurrentUploads),
	}
	// Uploads run in transactions, where indexes cannot be created: create the
	// bucket's indexes now.
	if err := s.bucket.EnsureIndexes(ctx, true); err != nil {
		return nil, fmt.Errorf("media: GridFS indexes: %w", err)
	}
	return &service.Built{
		Registry: ops.NewRegistry(contract.Service,
			ops.NewQuery(contract.OpCheckOwnership, ops.Internal,
				"For each storage id: whether the file exists and whether userId uploaded it (in the order asked).", s.checkOwnership),
		),
		Routes: []ops.Route{
			{Method: fiber.MethodPost, Path: contract.RouteUpload, Access: ops.Authenticated, Handler: s.upload, Doc: uploadDoc,
				Summary: "Upload an image (PNG, JPEG, WebP or GIF, at most 5 MiB; Content-Type image/*; the body is the image). Answers { storageId }."},
			{Method: fiber.MethodGet, Path: contract.RouteDownload, Access: ops.Public, Handler: s.download, Doc: downloadDoc,
				Summary: "The stored image, with its Content-Type, ETag and long-lived cache headers; If-None-Match answers 304."},
		},
	}, nil
}

// fileDoc is a GridFS files document of the bucket.
type fileDoc struct {
	ID       string   `bson:"_id"`
	Length   int64    `bson:"length"`
	Metadata fileMeta `bson:"metadata"`
}

type fileMeta struct {
	UploadedBy  string `bson:"uploadedBy"`
	ContentType string `bson:"contentType"`
	Size        int64  `bson:"size"`
	SHA256      string `bson:"sha256"`
	UploadedAt  int64  `bson:"uploadedAt"`
}

func invalidHeader(header, format string, args ...any) error {
	return apperr.New(apperr.InvalidArgument, format, args...).WithDetails(map[string]any{"header": header})
}

// upload answers POST /api/storage/upload.
func (s *svc) upload(c *fiber.Ctx) error {
	ctx := c.UserContext()
	caller := ops.Caller(ctx) // the route is authenticated: never nil here
	ct := strings.ToLower(strings.TrimSpace(c.Get(fiber.HeaderContentType)))
	if !strings.HasPrefix(ct, "image/") {
		return httpserver.WriteError(c, invalidHeader(fiber.HeaderContentType,
			"Content-Type must be an image type (image/png, image/jpeg, image/webp or image/gif), not %q", c.Get(fiber.HeaderContentType)))
	}
	if enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding)); enc != "" && !strings.EqualFold(enc, "identity") {
		return httpserver.WriteError(c, invalidHeader(fiber.HeaderContentEncoding, "send the image's bytes without a Content-Encoding"))
	}
	body := c.BodyRaw() // read and stored before the handler returns
	if len(body) == 0 {
		return httpserver.WriteError(c, apperr.New(apperr.InvalidArgument, "the body is empty: send the image's bytes"))
	}
	if len(body) > contract.MaxUploadBytes {
		return httpserver.WriteError(c, apperr.New(apperr.InvalidArgument,
			"the image is %d bytes; at most 5 MiB (%d bytes) are accepted", len(body), contract.MaxUploadBytes).
			WithDetails(map[string]any{"maxBytes": contract.MaxUploadBytes}))
	}
	kind, ok := Sniff(body)
	if !ok {
		return httpserver.WriteError(c, apperr.New(apperr.InvalidArgument, "the body is not a PNG, JPEG, WebP or GIF image"))
	}
	sum := sha256.Sum256(body)
	id := ids.NewUnguessable(contract.IDKind) // served to anyone who knows it: not predictable
	meta := fileMeta{UploadedBy: caller.Sub, ContentType: kind, Size: int64(len(body)), SHA256: hex.EncodeToString(sum[:]), UploadedAt: s.env.Now().UnixMilli()}

	select {
	case s.uploads <- struct{}{}:
		defer func() { <-s.uploads }()
	case <-time.After(uploadQueueWait):
		c.Set(fiber.HeaderRetryAfter, "5")
		return httpserver.WriteError(c, apperr.New(apperr.Unavailable, "too many uploads at once; retry shortly"))
	}
	// One transaction: the chunks and the files document appear together or
	// not at all (a process dying mid-upload leaves no orphan chunks).
	err := s.env.DB.Tx(ctx, func(tx context.Context) error {
		w, err := s.bucket.OpenUploadStreamWithID(tx, id, id, options.GridFSUpload().SetMetadata(meta))
		if err != nil {
			return err
		}
		if _, err := w.Write(body); err != nil {
			_ = w.Abort()
			return err
		}
		return w.Close()
	})
	if err != nil {
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "storing the image failed"))
	}
	return c.JSON(contract.Uploaded{StorageID: id})
}

func notFound(id string) error {
	return apperr.New(apperr.NotFound, "no file %q", id)
}

// download answers GET /api/storage/:storageId.
func (s *svc) download(c *fiber.Ctx) error {
	ctx := c.UserContext()
	id := strings.Clone(c.Params("storageId"))
	if !ids.Valid(contract.IDKind, id) {
		return httpserver.WriteError(c, notFound(id))
	}
	var f fileDoc
	err := s.bucket.GetFilesCollection(ctx).FindOne(ctx, bson.M{"_id": id}).Decode(&f)
	if isNotFound(err) {
		return httpserver.WriteError(c, notFound(id))
	}
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	etag := `"` + f.Metadata.SHA256 + `"`
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderCacheControl, CacheControl)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	if httpserver.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	r, err := s.bucket.OpenDownloadStream(ctx, id)
	if isNotFound(err) {
		return httpserver.WriteError(c, notFound(id))
	}
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	defer r.Close()
	buf := make([]byte, f.Length)
	if _, err := io.ReadFull(r, buf); err != nil {
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "reading the file failed"))
	}
	c.Set(fiber.HeaderContentType, f.Metadata.ContentType)
	return c.Send(buf) // Content-Length is the body's
}

func isNotFound(err error) bool {
	return store.IsNotFound(err) || errors.Is(err, lungo.ErrFileNotFound)
}

// checkOwnership answers media.files.checkOwnership.
func (s *svc) checkOwnership(ctx context.Context, a *contract.CheckOwnershipArgs) ([]contract.Ownership, error) {
	cur, err := s.bucket.GetFilesCollection(ctx).Find(ctx, bson.M{"_id": bson.M{"$in": a.StorageIDs}})
	if err != nil {
		return nil, err
	}
	var files []fileDoc
	if err := cur.All(ctx, &files); err != nil {
		return nil, err
	}
	owner := make(map[string]string, len(files))
	for _, f := range files {
		owner[f.ID] = f.Metadata.UploadedBy
	}
	out := make([]contract.Ownership, len(a.StorageIDs))
	for i, id := range a.StorageIDs {
		by, exists := owner[id]
		out[i] = contract.Ownership{StorageID: id, Exists: exists, Owned: exists && by == a.UserID}
	}
	return out, nil
}
