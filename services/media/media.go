// Package media is the media service: photo uploads and downloads (contract
// section 5), the check other services make before referring to an upload,
// and the claim that keeps an upload once something refers to it.
//
// The bytes live in a blob store (blobs.go: files next to the database file
// in the embedded mode, GridFS or an S3-compatible bucket in production,
// chosen by MEDIA_BLOB_URL), streamed in and out: no upload is ever held whole in
// memory. What an upload is lives in the service's database, collection
// uploads, one document per storage id (stg_..., its _id and its blob key):
//
//	{ uploadedBy: <token sub>, contentType: <sniffed>, size, sha256: <hex>, createdAt: <epoch ms>,
//	  state: "pending" | "stored", referenced: <claimed by a service>, referencedAt }
//
// An upload is first a pending document reserving its bytes against the
// user's daily quota and the total cap (usageColl), then the bytes are
// streamed to the blob store, then the document is stored with its real size
// and digest. The sweeper (sweep.go) deletes uploads nothing claimed after
// MEDIA_UNREFERENCED_GRACE, and pending ones a crash left behind.
//
// Routes (declared, forwarded by the gateway):
//
//	POST /api/storage/upload        authenticated; body = the image, Content-Type image/*,
//	                                1 byte to 5 MiB, a PNG, JPEG, WebP or GIF by its magic
//	                                number, no Content-Encoding; answers { storageId };
//	                                per-user rate and daily quota: 429 RATE_LIMITED + Retry-After;
//	                                total cap reached: 503 UNAVAILABLE + Retry-After
//	GET  /api/storage/:storageId    public; the bytes, with the stored Content-Type, a strong
//	                                ETag (the quoted sha256), immutable caching and nosniff;
//	                                If-None-Match -> 304; a malformed or unknown id -> 404
package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/contracts/customers"
	contract "marketplace/libs/contracts/media"
	"marketplace/libs/contracts/reviews"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ids"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/media/domain"
	"marketplace/services/media/storage"
)

// Module is the media service.
// It follows the orders' and the reviews' events to learn which accounts are
// new (accounts.go).
var Module = service.Module{Name: contract.Service, Build: build, Settings: func() any { s := DefaultSettings(); return &s },
	Consumes: []string{customers.TopicOrders, reviews.Topic}}

const (
	uploadsColl = "uploads"
	usageColl   = "usage"
	usageID     = "stored" // the usage document: bytes of every upload kept or reserved

	statePending = "pending"
	stateStored  = "stored"

	// CacheControl is sent with every file: a storage id always names the same
	// bytes, so clients and CDNs may keep them for a year without asking again.
	CacheControl = "public, max-age=31536000, immutable"

	// maxConcurrentUploads bounds the uploads one instance stores at once.
	maxConcurrentUploads = 4
	uploadQueueWait      = 10 * time.Second
	// quotaWindow is the daily quota's window.
	quotaWindow = 24 * time.Hour
	// fullRetryAfter is the Retry-After of a refusal for the total cap.
	fullRetryAfter = time.Hour
)

type svc struct {
	env     service.Env
	set     Settings
	blobs   Blobs
	uploads chan struct{}
	rate    *uploadRate
	// reserve serialises the quota decisions of this instance (read the
	// user's last 24 hours, then reserve): concurrent uploads of one user
	// cannot all pass on the same reading.
	reserve sync.Mutex
	// accountsStatus is the health of the consumer that learns which
	// accounts are no longer new (accounts.go).
	accountsStatus *events.ConsumerStatus
	accounts       *storage.Accounts
}

func build(ctx context.Context, env service.Env) (*service.Built, error) {
	_, b, err := newService(ctx, env)
	return b, err
}

// newService builds the service and its declarations.
func newService(ctx context.Context, env service.Env) (*svc, *service.Built, error) {
	if env.Now == nil {
		env.Now = time.Now
	}
	set := DefaultSettings()
	if p, ok := env.Settings.(*Settings); ok && p != nil {
		set = *p
	}
	if err := set.Validate(); err != nil {
		return nil, nil, err
	}
	blobURL := set.BlobURL
	if blobURL == "" {
		var err error
		if blobURL, err = defaultBlobURL(env.DB); err != nil {
			return nil, nil, err
		}
	}
	blobs, err := OpenBlobs(ctx, blobURL, env.DB)
	if err != nil {
		return nil, nil, err
	}
	s := &svc{env: env, set: set, blobs: blobs, accounts: storage.NewAccounts(env.DB), uploads: make(chan struct{}, maxConcurrentUploads),
		rate: newUploadRate(set.UploadBurst, set.UploadInterval), accountsStatus: events.NewConsumerStatus(0)}
	if err := s.migrateGridFS(ctx); err != nil {
		return nil, nil, err
	}
	if err := s.ensureUsage(ctx); err != nil {
		return nil, nil, err
	}
	env.Logger.Info("media: blob store", "kind", blobs.Kind(), "dailyUploadBytes", set.DailyUploadBytes,
		"newAccountDailyUploadBytes", set.newAccountQuota(), "maxStoredBytes", set.MaxStoredBytes,
		"unreferencedGrace", set.UnreferencedGrace.String())
	return s, &service.Built{
		Registry: ops.NewRegistry(contract.Service,
			ops.NewQuery(contract.OpCheckOwnership, ops.Internal,
				"For each storage id: whether the file exists and whether userId uploaded it (in the order asked).", s.checkOwnership,
				ops.CalledBy()), // no service calls it (reviews claim their photos): kept in the contract, refused to all
			ops.NewMutation(contract.OpClaim, ops.Internal,
				"For each storage id: whether the file exists and whether userId uploaded it (in the order asked); the ones userId uploaded are marked referenced and kept for good.", s.claim,
				ops.CalledBy("reviews")),
		),
		Indexes: append([]store.Index{
			{Collection: uploadsColl, Keys: bson.D{{Key: "uploadedBy", Value: 1}, {Key: "createdAt", Value: 1}}, Name: "uploads_by_user"},
			{Collection: uploadsColl, Keys: bson.D{{Key: "referenced", Value: 1}, {Key: "createdAt", Value: 1}}, Name: "uploads_unreferenced"},
			{Collection: uploadsColl, Keys: bson.D{{Key: "state", Value: 1}, {Key: "createdAt", Value: 1}}, Name: "uploads_by_state"},
		}, events.ConsumerIndexes()...),
		Checks: []httpserver.Check{s.accountsCheck()},
		Routes: []ops.Route{
			{Method: fiber.MethodPost, Path: contract.RouteUpload, Access: ops.Authenticated, Handler: s.upload, Doc: uploadDoc, StreamBody: true,
				Summary: "Upload an image (PNG, JPEG, WebP or GIF, at most 5 MiB; Content-Type image/*; the body is the image). Answers { storageId }."},
			{Method: fiber.MethodGet, Path: contract.RouteDownload, Access: ops.Public, Handler: s.download, Doc: downloadDoc,
				Summary: "The stored image, with its Content-Type, ETag and long-lived cache headers; If-None-Match answers 304."},
		},
		Background: []func(context.Context) error{s.sweepLoop, s.consumeAccounts, func(ctx context.Context) error {
			<-ctx.Done()
			return blobs.Close()
		}},
	}, nil
}

// uploadRecord is an upload's metadata (collection uploads).
type uploadRecord struct {
	ID           string `bson:"_id"`
	UploadedBy   string `bson:"uploadedBy"`
	ContentType  string `bson:"contentType,omitempty"`
	Size         int64  `bson:"size"`
	SHA256       string `bson:"sha256,omitempty"`
	CreatedAt    int64  `bson:"createdAt"`
	State        string `bson:"state"`
	Referenced   bool   `bson:"referenced"`
	ReferencedAt int64  `bson:"referencedAt,omitempty"`
}

func invalidHeader(header, format string, args ...any) error {
	return apperr.New(apperr.InvalidArgument, format, args...).WithDetails(map[string]any{"header": header})
}

func errTooLarge(n int64) error {
	size := "larger than 5 MiB"
	if n > 0 {
		size = fmt.Sprintf("%d bytes", n)
	}
	return apperr.New(apperr.InvalidArgument, "the image is %s; at most 5 MiB (%d bytes) are accepted", size, contract.MaxUploadBytes).
		WithDetails(map[string]any{"maxBytes": contract.MaxUploadBytes})
}

func errEmpty() error {
	return apperr.New(apperr.InvalidArgument, "the body is empty: send the image's bytes")
}

func errNotImage() error {
	return apperr.New(apperr.InvalidArgument, "the body is not a PNG, JPEG, WebP or GIF image")
}

// refuse writes err with a Retry-After of d.
func refuse(c *fiber.Ctx, err error, d time.Duration) error {
	c.Set(fiber.HeaderRetryAfter, strconv.FormatInt(domain.RetryAfterSeconds(d), 10))
	return httpserver.WriteError(c, err)
}

// upload answers POST /api/storage/upload.
func (s *svc) upload(c *fiber.Ctx) error {
	ctx := c.UserContext()
	caller := ops.Caller(ctx) // the route is authenticated: never nil here
	user := strings.Clone(caller.Sub)
	body := s.bodyReader(c)
	defer body.finish(c)
	ct := strings.ToLower(strings.TrimSpace(c.Get(fiber.HeaderContentType)))
	if !strings.HasPrefix(ct, "image/") {
		return httpserver.WriteError(c, invalidHeader(fiber.HeaderContentType,
			"Content-Type must be an image type (image/png, image/jpeg, image/webp or image/gif), not %q", c.Get(fiber.HeaderContentType)))
	}
	if enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding)); enc != "" && !strings.EqualFold(enc, "identity") {
		return httpserver.WriteError(c, invalidHeader(fiber.HeaderContentEncoding, "send the image's bytes without a Content-Encoding (got %q)", enc))
	}
	// The declared length decides what it can before a byte is read; a body
	// without one (chunked) is counted as it is read.
	declared := int64(c.Request().Header.ContentLength())
	switch {
	case declared > contract.MaxUploadBytes:
		body.abandon = declared > drainLimit // not worth reading: the connection ends with the answer
		return httpserver.WriteError(c, errTooLarge(declared))
	case declared == 0:
		return httpserver.WriteError(c, errEmpty())
	}
	now := s.env.Now()
	if ok, wait := s.rate.take(user, now); !ok {
		return refuse(c, apperr.New(apperr.RateLimited, "too many uploads: at most %d at once, then one every %s; retry in %d s",
			s.set.UploadBurst, s.set.UploadInterval, domain.RetryAfterSeconds(wait)).
			WithDetails(map[string]any{"limit": "uploadRate", "retryAfterSeconds": domain.RetryAfterSeconds(wait)}), wait)
	}
	select {
	case s.uploads <- struct{}{}:
		defer func() { <-s.uploads }()
	case <-time.After(uploadQueueWait):
		s.rate.giveBack(user)
		return refuse(c, apperr.New(apperr.Unavailable, "too many uploads at once; retry shortly"), 5*time.Second)
	case <-ctx.Done():
		s.rate.giveBack(user)
		return httpserver.WriteError(c, apperr.New(apperr.Unavailable, "the request ended"))
	}
	reserved := int64(contract.MaxUploadBytes)
	if declared > 0 {
		reserved = declared
	}
	id := ids.NewUnguessable(contract.IDKind) // served to anyone who knows it: not predictable
	if err := s.reserveUpload(ctx, id, caller, reserved, now); err != nil {
		s.rate.giveBack(user)
		var wait waitError
		if errors.As(err, &wait) {
			return refuse(c, wait.err, wait.after)
		}
		return httpserver.WriteError(c, err)
	}
	stored := false
	defer func() {
		if !stored {
			s.release(context.WithoutCancel(ctx), id, reserved)
		}
	}()

	// Stream the body to the blob store, sniffing its first bytes and
	// counting and hashing the rest: more than 5 MiB fails the read (and so
	// the write) at the byte past the cap.
	head := make([]byte, 12)
	n, err := io.ReadFull(body, head)
	switch {
	case n == 0 && (err == nil || errors.Is(err, io.EOF)):
		s.rate.giveBack(user)
		return httpserver.WriteError(c, errEmpty())
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.InvalidArgument, "reading the body failed"))
	}
	kind, ok := domain.Sniff(head[:n])
	if !ok {
		s.rate.giveBack(user)
		return httpserver.WriteError(c, errNotImage())
	}
	in := &capped{r: io.MultiReader(bytes.NewReader(head[:n]), body), max: contract.MaxUploadBytes, sum: sha256.New()}
	if err := s.blobs.Put(ctx, id, in); err != nil {
		if errors.Is(err, errOverCap) || in.over {
			s.rate.giveBack(user)
			return httpserver.WriteError(c, errTooLarge(0))
		}
		if in.readErr != nil {
			return httpserver.WriteError(c, apperr.Wrap(err, apperr.InvalidArgument, "reading the body failed"))
		}
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "storing the image failed"))
	}
	doc := uploadRecord{ID: id, UploadedBy: user, ContentType: kind, Size: in.n, SHA256: hex.EncodeToString(in.sum.Sum(nil)),
		CreatedAt: now.UnixMilli(), State: stateStored}
	err = s.env.DB.Tx(ctx, func(tx context.Context) error {
		res, err := s.env.DB.Collection(uploadsColl).UpdateOne(tx, bson.M{"_id": id, "state": statePending}, bson.M{"$set": bson.M{
			"state": stateStored, "contentType": doc.ContentType, "size": doc.Size, "sha256": doc.SHA256}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			return fmt.Errorf("media: the pending upload %s is gone", id)
		}
		_, err = s.env.DB.Collection(usageColl).UpdateOne(tx, bson.M{"_id": usageID}, bson.M{"$inc": bson.M{"bytes": doc.Size - reserved}})
		return err
	})
	if err != nil {
		_ = s.blobs.Delete(context.WithoutCancel(ctx), id)
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "storing the image failed"))
	}
	stored = true
	return c.JSON(contract.Uploaded{StorageID: id})
}

// bodyReader reads the request body: the connection's stream as it arrives
// (the route streams its body: ops.Route.StreamBody), else the body already
// read.
func (s *svc) bodyReader(c *fiber.Ctx) *requestBody {
	if c.Request().IsBodyStream() {
		return &requestBody{r: c.Context().RequestBodyStream(), stream: true}
	}
	return &requestBody{r: bytes.NewReader(c.Request().Body())}
}

// drainLimit is how much of a refused body is read and dropped so that the
// connection can carry the next request (the gateway sends at most
// HTTP_BODY_LIMIT, 6 MiB); a longer rest ends the connection instead.
const drainLimit = 8 << 20

// requestBody is the upload's body, noting when it has been read to its end.
type requestBody struct {
	r       io.Reader
	stream  bool
	ended   bool
	abandon bool // refused on its declared length: never read
}

func (b *requestBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if errors.Is(err, io.EOF) {
		b.ended = true
	}
	return n, err
}

// finish runs after the handler: a streamed body not read to its end (the
// upload was refused) is read and dropped up to drainLimit, so that the
// sender, which writes the whole body before it reads the answer, gets it;
// beyond that, or when abandoned, the connection ends with the answer.
func (b *requestBody) finish(c *fiber.Ctx) {
	if !b.stream || b.ended {
		return
	}
	if !b.abandon {
		_, _ = io.CopyN(io.Discard, b, drainLimit)
	}
	if !b.ended {
		c.Context().SetConnectionClose()
	}
}

var errOverCap = errors.New("media: the body is larger than the cap")

// capped reads r, counting and hashing, and fails past max bytes.
type capped struct {
	r       io.Reader
	max, n  int64
	sum     hash.Hash
	over    bool
	readErr error
}

func (c *capped) Read(p []byte) (int, error) {
	if c.over {
		return 0, errOverCap
	}
	if room := c.max + 1 - c.n; int64(len(p)) > room {
		p = p[:room]
	}
	k, err := c.r.Read(p)
	c.n += int64(k)
	if c.n > c.max {
		c.over = true
		return 0, errOverCap
	}
	c.sum.Write(p[:k])
	if err != nil && !errors.Is(err, io.EOF) {
		c.readErr = err
	}
	return k, err
}

// waitError is a refusal the client may retry after a while (Retry-After).
type waitError struct {
	err   error
	after time.Duration
}

func (w waitError) Error() string { return w.err.Error() }

// reserveUpload decides the daily quota and the total cap for an upload of
// at most size bytes and records it as pending.
func (s *svc) reserveUpload(ctx context.Context, id string, caller *auth.Identity, size int64, now time.Time) error {
	user := caller.Sub
	quota, newAccount, err := s.dailyQuotaOf(ctx, caller)
	if err != nil {
		return err
	}
	s.reserve.Lock()
	defer s.reserve.Unlock()
	cur, err := s.env.DB.Collection(uploadsColl).Find(ctx, bson.M{"uploadedBy": user, "createdAt": bson.M{"$gt": now.Add(-quotaWindow).UnixMilli()}},
		options.Find().SetProjection(bson.M{"size": 1, "createdAt": 1}))
	if err != nil {
		return err
	}
	var recent []uploadRecord
	if err := cur.All(ctx, &recent); err != nil {
		return err
	}
	uses := make([]domain.Usage, len(recent))
	for i, u := range recent {
		uses[i] = domain.Usage{At: time.UnixMilli(u.CreatedAt), Size: u.Size}
	}
	if ok, wait := domain.DailyQuota(uses, size, quota, quotaWindow, now); !ok {
		details := map[string]any{"limit": "dailyUploadBytes", "dailyUploadBytes": quota, "retryAfterSeconds": domain.RetryAfterSeconds(wait)}
		if newAccount {
			details["reason"] = "new_account"
			return waitError{apperr.New(apperr.RateLimited, "daily upload quota reached: a new account uploads at most %d bytes in 24 hours until it has an order or a review (then %d); retry in %d s",
				quota, s.set.DailyUploadBytes, domain.RetryAfterSeconds(wait)).WithDetails(details), wait}
		}
		return waitError{apperr.New(apperr.RateLimited, "daily upload quota reached: at most %d bytes in 24 hours; retry in %d s",
			quota, domain.RetryAfterSeconds(wait)).WithDetails(details), wait}
	}
	full := false
	err = s.env.DB.Tx(ctx, func(tx context.Context) error {
		full = false
		filter := bson.M{"_id": usageID}
		if s.set.MaxStoredBytes > 0 {
			filter["bytes"] = bson.M{"$lte": s.set.MaxStoredBytes - size}
		}
		res, err := s.env.DB.Collection(usageColl).UpdateOne(tx, filter, bson.M{"$inc": bson.M{"bytes": size}})
		if err != nil {
			return err
		}
		if res.MatchedCount != 1 {
			full = true
			return nil
		}
		_, err = s.env.DB.Collection(uploadsColl).InsertOne(tx, uploadRecord{ID: id, UploadedBy: user, Size: size, CreatedAt: now.UnixMilli(), State: statePending})
		return err
	})
	if err != nil {
		return err
	}
	if full {
		return waitError{apperr.New(apperr.Unavailable, "the media storage is full (MEDIA_MAX_STORED_BYTES); retry later").
			WithDetails(map[string]any{"limit": "maxStoredBytes"}), fullRetryAfter}
	}
	return nil
}

// release drops a pending upload and its reservation (the upload failed).
func (s *svc) release(ctx context.Context, id string, reserved int64) {
	err := s.env.DB.Tx(ctx, func(tx context.Context) error {
		res, err := s.env.DB.Collection(uploadsColl).DeleteOne(tx, bson.M{"_id": id, "state": statePending})
		if err != nil || res.DeletedCount == 0 {
			return err
		}
		_, err = s.env.DB.Collection(usageColl).UpdateOne(tx, bson.M{"_id": usageID}, bson.M{"$inc": bson.M{"bytes": -reserved}})
		return err
	})
	if err != nil {
		s.env.Logger.Warn("media: releasing a failed upload", "storageId", id, "err", err) // the sweeper drops it later
	}
	if err := s.blobs.Delete(ctx, id); err != nil {
		s.env.Logger.Warn("media: deleting a failed upload's bytes", "storageId", id, "err", err)
	}
}

// ensureUsage creates the usage document, counting what is stored (once).
func (s *svc) ensureUsage(ctx context.Context) error {
	err := s.env.DB.Collection(usageColl).FindOne(ctx, bson.M{"_id": usageID}).Err()
	if err == nil || !store.IsNotFound(err) {
		return err
	}
	cur, err := s.env.DB.Collection(uploadsColl).Find(store.Scan(ctx, "media: the total of every upload, once, when the usage document is created"), bson.M{},
		options.Find().SetProjection(bson.M{"size": 1}))
	if err != nil {
		return err
	}
	var all []uploadRecord
	if err := cur.All(ctx, &all); err != nil {
		return err
	}
	var total int64
	for _, u := range all {
		total += u.Size
	}
	_, err = s.env.DB.Collection(usageColl).UpdateOne(ctx, bson.M{"_id": usageID}, bson.M{"$setOnInsert": bson.M{"bytes": total}},
		options.Update().SetUpsert(true))
	return err
}

func notFound(id string) error {
	return apperr.New(apperr.NotFound, "no file %q", id)
}

// stored reads the metadata of a stored upload; nil when there is none.
func (s *svc) stored(ctx context.Context, id string) (*uploadRecord, error) {
	var u uploadRecord
	err := s.env.DB.Collection(uploadsColl).FindOne(ctx, bson.M{"_id": id}).Decode(&u)
	if store.IsNotFound(err) || (err == nil && u.State != stateStored) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &u, nil
}

// download answers GET /api/storage/:storageId, streaming the bytes from
// the blob store.
func (s *svc) download(c *fiber.Ctx) error {
	ctx := c.UserContext()
	id := strings.Clone(c.Params("storageId"))
	if !ids.Valid(contract.IDKind, id) {
		return httpserver.WriteError(c, notFound(id))
	}
	u, err := s.stored(ctx, id)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	if u == nil {
		return httpserver.WriteError(c, notFound(id))
	}
	etag := `"` + u.SHA256 + `"`
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderCacheControl, CacheControl)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	if httpserver.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	// Not the request's context: the response is written after the handler
	// returns, and the reader is closed then (fasthttp closes a body stream).
	r, err := s.blobs.Open(context.WithoutCancel(ctx), id)
	if errors.Is(err, errBlobNotFound) {
		s.env.Logger.Error("media: an upload's bytes are missing", "storageId", id)
		return httpserver.WriteError(c, notFound(id))
	}
	if err != nil {
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "reading the file failed"))
	}
	c.Set(fiber.HeaderContentType, u.ContentType)
	return c.SendStream(r, int(u.Size)) // Content-Length is the stored size
}

// ownership answers which of ids exist (stored) and which user uploaded.
func (s *svc) ownership(ctx context.Context, storageIDs []string, user string) ([]contract.Ownership, error) {
	cur, err := s.env.DB.Collection(uploadsColl).Find(ctx, bson.M{"_id": bson.M{"$in": storageIDs}},
		options.Find().SetProjection(bson.M{"uploadedBy": 1, "state": 1}))
	if err != nil {
		return nil, err
	}
	var files []uploadRecord
	if err := cur.All(ctx, &files); err != nil {
		return nil, err
	}
	owner := make(map[string]string, len(files))
	for _, f := range files {
		if f.State == stateStored {
			owner[f.ID] = f.UploadedBy
		}
	}
	out := make([]contract.Ownership, len(storageIDs))
	for i, id := range storageIDs {
		by, exists := owner[id]
		out[i] = contract.Ownership{StorageID: id, Exists: exists, Owned: exists && by == user}
	}
	return out, nil
}

// checkOwnership answers media.files.checkOwnership.
func (s *svc) checkOwnership(ctx context.Context, a *contract.CheckOwnershipArgs) ([]contract.Ownership, error) {
	return s.ownership(ctx, a.StorageIDs, a.UserID)
}

// claim answers media.files.claim: the uploads userId owns among the ids are
// marked referenced (kept for good: the sweeper deletes only unreferenced
// ones). Claiming again is harmless.
func (s *svc) claim(ctx context.Context, a *contract.CheckOwnershipArgs) ([]contract.Ownership, error) {
	out, err := s.ownership(ctx, a.StorageIDs, a.UserID)
	if err != nil {
		return nil, err
	}
	var owned []string
	for _, o := range out {
		if o.Owned {
			owned = append(owned, o.StorageID)
		}
	}
	if len(owned) == 0 {
		return out, nil
	}
	now := s.env.Now().UnixMilli()
	_, err = s.env.DB.Collection(uploadsColl).UpdateMany(ctx,
		bson.M{"_id": bson.M{"$in": owned}, "uploadedBy": a.UserID, "state": stateStored, "referenced": false},
		bson.M{"$set": bson.M{"referenced": true, "referencedAt": now}})
	if err != nil {
		return nil, err
	}
	// Swept between the reading and the marking: it exists no more.
	check, err := s.ownership(ctx, a.StorageIDs, a.UserID)
	if err != nil {
		return nil, err
	}
	return check, nil
}
