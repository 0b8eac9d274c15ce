// Package media is the media service: photo uploads and downloads (contract
// section 5), the check other services make before referring to an upload,
// and the claim that keeps an upload once something refers to it.
//
// The bytes live in a blob store (storage/blobs.go: files next to the
// database file in the embedded mode, GridFS or an S3-compatible bucket in
// production, chosen by MEDIA_BLOB_URL), streamed in and out: no upload is
// ever held whole in memory. What an upload is (domain.Upload) lives in the
// service's database, collection uploads, one document per storage id
// (stg_..., its _id and its blob key):
//
//	{ uploadedBy: <token sub>, contentType: <sniffed>, size, sha256: <hex>, createdAt: <epoch ms>,
//	  state: "pending" | "stored", referenced: <claimed by a service>, referencedAt }
//
// An upload is first a pending document reserving its bytes against the
// user's daily quota and the total cap (storage.Uploads.Reserve), then the
// bytes are streamed to the blob store, then the document is stored with its
// real size and digest. The sweeper (sweep.go) deletes uploads nothing
// claimed after MEDIA_UNREFERENCED_GRACE, and pending ones a crash left
// behind.
//
// Layout (docs/adr/0002-service-layout-domain-storage-operations.md): the
// rules in domain/, the repositories and blob stores in storage/, the
// operations here.
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
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

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
	"marketplace/services/media/domain"
	"marketplace/services/media/storage"
)

// Module is the media service.
// It follows the orders' and the reviews' events to learn which accounts are
// new (accounts.go).
var Module = service.Module{Name: contract.Service, Build: build, Settings: func() any { s := DefaultSettings(); return &s },
	Consumes: []string{customers.TopicOrders, reviews.Topic}}

const (
	// CacheControl is sent with every file: a storage id always names the same
	// bytes, so clients and CDNs may keep them for a year without asking again.
	CacheControl = "public, max-age=31536000, immutable"

	// maxConcurrentUploads bounds the uploads one instance stores at once.
	maxConcurrentUploads = 4
	uploadQueueWait      = 10 * time.Second
)

type svc struct {
	env   service.Env
	set   Settings
	blobs storage.Blobs
	slots chan struct{} // the uploads being stored (maxConcurrentUploads)
	rate  *uploadRate
	// reserve serialises the quota decisions of this instance (read the
	// user's last 24 hours, then reserve): concurrent uploads of one user
	// cannot all pass on the same reading.
	reserve sync.Mutex
	// accountsStatus is the health of the consumer that learns which
	// accounts are no longer new (accounts.go).
	accountsStatus *events.ConsumerStatus
	accounts       *storage.Accounts
	uploads        *storage.Uploads
	totals         *storage.Totals
	legacy         *storage.Legacy
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
		if blobURL, err = storage.DefaultBlobURL(env.DB); err != nil {
			return nil, nil, err
		}
	}
	blobs, err := storage.OpenBlobs(ctx, blobURL, env.DB)
	if err != nil {
		return nil, nil, err
	}
	s := &svc{env: env, set: set, blobs: blobs, slots: make(chan struct{}, maxConcurrentUploads),
		rate: newUploadRate(set.UploadBurst, set.UploadInterval), accountsStatus: events.NewConsumerStatus(0),
		accounts: storage.NewAccounts(env.DB), uploads: storage.NewUploads(env.DB), totals: storage.NewTotals(env.DB), legacy: storage.NewLegacy(env.DB)}
	if err := s.migrateGridFS(ctx); err != nil {
		return nil, nil, err
	}
	if err := s.totals.Ensure(ctx); err != nil {
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
		Indexes: append(storage.Indexes(), events.ConsumerIndexes()...),
		Checks:  []httpserver.Check{s.accountsCheck()},
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

// refuse writes w's error with its Retry-After.
func refuse(c *fiber.Ctx, w *domain.Wait) error {
	c.Set(fiber.HeaderRetryAfter, strconv.FormatInt(domain.RetryAfterSeconds(w.After), 10))
	return httpserver.WriteError(c, w.Err)
}

// upload answers POST /api/storage/upload.
func (s *svc) upload(c *fiber.Ctx) error {
	ctx := c.UserContext()
	caller := ops.Caller(ctx) // the route is authenticated: never nil here
	user := strings.Clone(caller.Sub)
	body := s.bodyReader(c)
	defer body.finish(c)
	if err := domain.CheckContentType(c.Get(fiber.HeaderContentType)); err != nil {
		return httpserver.WriteError(c, err)
	}
	if err := domain.CheckContentEncoding(c.Get(fiber.HeaderContentEncoding)); err != nil {
		return httpserver.WriteError(c, err)
	}
	// The declared length decides what it can before a byte is read; a body
	// without one (chunked) is counted as it is read.
	declared := int64(c.Request().Header.ContentLength())
	if err := domain.CheckDeclaredLength(declared); err != nil {
		body.abandon = declared > drainLimit // not worth reading: the connection ends with the answer
		return httpserver.WriteError(c, err)
	}
	now := s.env.Now()
	if ok, wait := s.rate.take(user, now); !ok {
		return refuse(c, domain.RateRefusal(s.set.UploadBurst, s.set.UploadInterval, wait))
	}
	select {
	case s.slots <- struct{}{}:
		defer func() { <-s.slots }()
	case <-time.After(uploadQueueWait):
		s.rate.giveBack(user)
		return refuse(c, domain.Busy())
	case <-ctx.Done():
		s.rate.giveBack(user)
		return httpserver.WriteError(c, apperr.New(apperr.Unavailable, "the request ended"))
	}
	reserved := domain.Reservation(declared)
	id := ids.NewUnguessable(contract.IDKind) // served to anyone who knows it: not predictable
	up := domain.NewPending(id, user, reserved, now)
	if err := s.reserveUpload(ctx, up, caller, now); err != nil {
		s.rate.giveBack(user)
		var wait *domain.Wait
		if errors.As(err, &wait) {
			return refuse(c, wait)
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
		return httpserver.WriteError(c, domain.ErrEmpty())
	case err != nil && !errors.Is(err, io.ErrUnexpectedEOF):
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.InvalidArgument, "reading the body failed"))
	}
	kind, ok := domain.Sniff(head[:n])
	if !ok {
		s.rate.giveBack(user)
		return httpserver.WriteError(c, domain.ErrNotImage())
	}
	in := domain.NewBody(io.MultiReader(bytes.NewReader(head[:n]), body))
	if err := s.blobs.Put(ctx, id, in); err != nil {
		if errors.Is(err, domain.ErrOverCap) || in.Over() {
			s.rate.giveBack(user)
			return httpserver.WriteError(c, domain.ErrTooLarge(0))
		}
		if in.ReadErr() != nil {
			return httpserver.WriteError(c, apperr.Wrap(err, apperr.InvalidArgument, "reading the body failed"))
		}
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "storing the image failed"))
	}
	err = up.Store(kind, in.Size(), in.SHA256())
	if err == nil {
		err = s.uploads.Complete(ctx, up, reserved)
	}
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

// reserveUpload decides the daily quota and the total cap for up (pending,
// its size the most it may be) and records it. A refusal the client may retry
// is a *domain.Wait.
func (s *svc) reserveUpload(ctx context.Context, up domain.Upload, caller *auth.Identity, now time.Time) error {
	quota, err := s.dailyQuotaOf(ctx, caller)
	if err != nil {
		return err
	}
	s.reserve.Lock()
	defer s.reserve.Unlock()
	recent, err := s.uploads.Since(ctx, up.UploadedBy, now.Add(-domain.QuotaWindow).UnixMilli())
	if err != nil {
		return err
	}
	uses := make([]domain.Usage, len(recent))
	for i := range recent {
		uses[i] = recent[i].Usage()
	}
	if err := quota.Check(uses, up.Size, now); err != nil {
		return err
	}
	full, err := s.uploads.Reserve(ctx, up, s.set.MaxStoredBytes)
	if err != nil {
		return err
	}
	if full {
		return domain.StorageFull()
	}
	return nil
}

// release drops a pending upload and its reservation (the upload failed).
func (s *svc) release(ctx context.Context, id string, reserved int64) {
	if err := s.uploads.Release(ctx, id, reserved); err != nil {
		s.env.Logger.Warn("media: releasing a failed upload", "storageId", id, "err", err) // the sweeper drops it later
	}
	if err := s.blobs.Delete(ctx, id); err != nil {
		s.env.Logger.Warn("media: deleting a failed upload's bytes", "storageId", id, "err", err)
	}
}

// download answers GET /api/storage/:storageId, streaming the bytes from
// the blob store.
func (s *svc) download(c *fiber.Ctx) error {
	ctx := c.UserContext()
	id := strings.Clone(c.Params("storageId"))
	if err := domain.CheckStorageID(id); err != nil {
		return httpserver.WriteError(c, err)
	}
	u, err := s.uploads.Get(ctx, id)
	if err != nil {
		return httpserver.WriteError(c, err)
	}
	if u == nil || !u.Exists() {
		return httpserver.WriteError(c, domain.NotFound(id))
	}
	etag := u.ETag()
	c.Set(fiber.HeaderETag, etag)
	c.Set(fiber.HeaderCacheControl, CacheControl)
	c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
	if httpserver.ETagMatches(c.Get(fiber.HeaderIfNoneMatch), etag) {
		return c.SendStatus(fiber.StatusNotModified)
	}
	// Not the request's context: the response is written after the handler
	// returns, and the reader is closed then (fasthttp closes a body stream).
	r, err := s.blobs.Open(context.WithoutCancel(ctx), id)
	if errors.Is(err, storage.ErrBlobNotFound) {
		s.env.Logger.Error("media: an upload's bytes are missing", "storageId", id)
		return httpserver.WriteError(c, domain.NotFound(id))
	}
	if err != nil {
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "reading the file failed"))
	}
	c.Set(fiber.HeaderContentType, u.ContentType)
	return c.SendStream(r, int(u.Size)) // Content-Length is the stored size
}

// checkOwnership answers media.files.checkOwnership: for each storage id,
// in the order asked, whether it exists and whether userId uploaded it.
func (s *svc) checkOwnership(ctx context.Context, a *contract.CheckOwnershipArgs) ([]contract.Ownership, error) {
	found, err := s.uploads.Find(ctx, a.StorageIDs)
	if err != nil {
		return nil, err
	}
	return domain.Ownership(a.StorageIDs, found, a.UserID), nil
}

// claim answers media.files.claim: the uploads userId owns among the ids are
// marked referenced (kept for good: the sweeper deletes only unreferenced
// ones). Claiming again is harmless.
func (s *svc) claim(ctx context.Context, a *contract.CheckOwnershipArgs) ([]contract.Ownership, error) {
	found, err := s.uploads.Find(ctx, a.StorageIDs)
	if err != nil {
		return nil, err
	}
	now := s.env.Now()
	var claimed []string
	for i := range found {
		if found[i].Claim(a.UserID, now) {
			claimed = append(claimed, found[i].ID)
		}
	}
	if len(claimed) == 0 {
		return domain.Ownership(a.StorageIDs, found, a.UserID), nil
	}
	if err := s.uploads.Claim(ctx, a.UserID, claimed, now.UnixMilli()); err != nil {
		return nil, err
	}
	// Swept between the reading and the marking: it exists no more.
	return s.checkOwnership(ctx, a)
}
