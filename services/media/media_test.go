package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/256dpi/lungo"
	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/auth"
	"marketplace/libs/clocktest"
	contract "marketplace/libs/contracts/media"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
	"marketplace/services/media/domain"
	"marketplace/services/media/storage"
)

// The stored shape the tests read, named here as it is stored (not through
// the storage package): a change of name fails them.
const (
	uploadsColl = "uploads"
	usageColl   = "usage"
	usageID     = "stored" // the total of every upload kept or reserved
)

var secret = []byte("0123456789abcdef0123456789abcdef")

type harness struct {
	app   *fiber.App
	base  string // where app listens
	reg   *ops.Registry
	db    *store.DB
	svc   *svc
	clock *clocktest.Clock
	dir   string // the blob directory
	set   Settings
}

// newHarness builds the service on an in-memory database with its blobs in
// a temporary directory (fileblob), every limit at its default unless
// tune changes it.
func newHarness(t *testing.T, tune ...func(*Settings)) *harness {
	t.Helper()
	db, err := store.Open(context.Background(), store.Options{Name: "media", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	h := &harness{db: db, clock: clocktest.New(time.Now()), dir: t.TempDir(), set: DefaultSettings()}
	h.set.BlobURL = "file://" + filepath.ToSlash(h.dir)
	h.set.UploadInterval = 0 // the rate is tested on its own
	for _, f := range tune {
		f(&h.set)
	}
	h.start(t)
	return h
}

// start (re)builds the service on the harness's database and directory: a
// second call is a restart.
func (h *harness) start(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	logger := slog.New(slog.DiscardHandler)
	set := h.set
	s, built, err := newService(ctx, service.Env{Name: "media", Logger: logger, DB: h.db, Now: h.clock.Now, Settings: &set})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.db.EnsureIndexes(ctx, built.Indexes...); err != nil {
		t.Fatal(err)
	}
	v, _ := auth.NewHS256(secret, auth.Options{})
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	cfg.BodyLimit = 6 << 20
	cfg.StreamBody = ops.StreamsBody(built.Routes) // as service.Run does: the upload's body streams
	app := httpserver.New("media", cfg, logger, nil)
	(&ops.Server{Registry: built.Registry, Verifier: v, Routes: built.Routes}).Mount(app)
	if h.app != nil {
		_ = h.app.Shutdown()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	h.app, h.reg, h.base = app, built.Registry, "http://"+ln.Addr().String()
	h.svc = s
}

func (h *harness) do(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	// Over a real connection: a body of unknown length goes chunked.
	creq, err := http.NewRequest(req.Method, h.base+req.URL.RequestURI(), req.Body)
	if err != nil {
		t.Fatal(err)
	}
	creq.Header = req.Header
	if req.ContentLength > 0 {
		creq.ContentLength = req.ContentLength
	}
	resp, err := http.DefaultClient.Do(creq)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func (h *harness) uploadReader(t *testing.T, sub, contentType string, body io.Reader, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, contract.RouteUpload, body)
	req.Header.Set("Content-Type", contentType)
	if sub != "" {
		tok, _ := auth.Mint(secret, sub, nil, time.Minute, auth.Options{})
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return h.do(t, req)
}

func (h *harness) upload(t *testing.T, sub, contentType string, body []byte, headers ...string) (*http.Response, []byte) {
	t.Helper()
	return h.uploadReader(t, sub, contentType, bytes.NewReader(body), headers...)
}

// mustUpload uploads body and answers its storage id.
func (h *harness) mustUpload(t *testing.T, sub string, body []byte) string {
	t.Helper()
	resp, b := h.upload(t, sub, "image/gif", body)
	var up contract.Uploaded
	if resp.StatusCode != 200 || json.Unmarshal(b, &up) != nil || up.StorageID == "" {
		t.Fatalf("upload by %s: %d %s", sub, resp.StatusCode, b)
	}
	return up.StorageID
}

func (h *harness) record(t *testing.T, id string) (domain.Upload, bool) {
	t.Helper()
	var u domain.Upload
	err := h.db.Collection(uploadsColl).FindOne(context.Background(), bson.M{"_id": id}).Decode(&u)
	if store.IsNotFound(err) {
		return u, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return u, true
}

func (h *harness) usage(t *testing.T) int64 {
	t.Helper()
	var u struct {
		Bytes int64 `bson:"bytes"`
	}
	if err := h.db.Collection(usageColl).FindOne(context.Background(), bson.M{"_id": usageID}).Decode(&u); err != nil {
		t.Fatal(err)
	}
	return u.Bytes
}

var onePixelGIF = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

// gifOfSize is a body of n bytes starting with a GIF signature.
func gifOfSize(n int) []byte {
	b := make([]byte, n)
	copy(b, "GIF89a")
	return b
}

// TestUploadStoresBlobAndMetadata: an upload's bytes are a file of the blob
// directory named by its storage id, and nothing of them is in the database;
// its metadata document holds who uploaded it, the sniffed type, size,
// sha256, time, state and the referenced flag; the download streams it back
// with its headers, and If-None-Match is a 304.
func TestUploadStoresBlobAndMetadata(t *testing.T) {
	h := newHarness(t)
	id := h.mustUpload(t, "user-7", onePixelGIF)
	if !strings.HasPrefix(id, "stg_") {
		t.Fatalf("storage id %q", id)
	}
	onDisk, err := os.ReadFile(filepath.Join(h.dir, id))
	if err != nil || !bytes.Equal(onDisk, onePixelGIF) {
		t.Fatalf("blob file: %v %q", err, onDisk)
	}
	for _, c := range []string{"images.files", "images.chunks"} {
		if n, _ := h.db.Collection(c).CountDocuments(context.Background(), bson.M{}); n != 0 {
			t.Fatalf("%s holds %d documents: the bytes went to the database", c, n)
		}
	}
	u, ok := h.record(t, id)
	sum := sha256.Sum256(onePixelGIF)
	if !ok || u.UploadedBy != "user-7" || u.ContentType != "image/gif" || u.Size != int64(len(onePixelGIF)) ||
		u.SHA256 != hex.EncodeToString(sum[:]) || u.CreatedAt != h.clock.Now().UnixMilli() || u.State != domain.StateStored || u.Referenced {
		t.Fatalf("metadata: %+v", u)
	}
	if got := h.usage(t); got != int64(len(onePixelGIF)) {
		t.Fatalf("usage %d, want %d", got, len(onePixelGIF))
	}
	resp, got := h.do(t, httptest.NewRequest(http.MethodGet, contract.DownloadPath+id, nil))
	if resp.StatusCode != 200 || !bytes.Equal(got, onePixelGIF) || resp.Header.Get("Content-Type") != "image/gif" ||
		resp.Header.Get("ETag") != `"`+u.SHA256+`"` || resp.Header.Get("Cache-Control") != CacheControl || resp.Header.Get("X-Content-Type-Options") != "nosniff" ||
		resp.Header.Get("Content-Length") != strconv.Itoa(len(onePixelGIF)) {
		t.Fatalf("download: %d %v", resp.StatusCode, resp.Header)
	}
	req := httptest.NewRequest(http.MethodGet, contract.DownloadPath+id, nil)
	req.Header.Set("If-None-Match", `W/"`+u.SHA256+`"`)
	if resp, got := h.do(t, req); resp.StatusCode != 304 || len(got) != 0 {
		t.Fatalf("conditional download: %d %q", resp.StatusCode, got)
	}
}

// TestUploadChecksHoldWithoutTheGateway: the service applies its own checks
// (a direct caller gets the same answers as one through the gateway), and
// refuses compressed bodies, whose size and bytes it could not check. A body
// without a Content-Length is counted as it streams in: past 5 MiB it is
// refused as too large, and nothing of it stays.
func TestUploadChecksHoldWithoutTheGateway(t *testing.T) {
	h := newHarness(t)
	big := gifOfSize(contract.MaxUploadBytes + 1)
	cases := []struct {
		name, sub, ct string
		body          io.Reader
		headers       []string
		status        int
		text          string
	}{
		{"anonymous", "", "image/gif", bytes.NewReader(onePixelGIF), nil, 401, "UNAUTHENTICATED"},
		{"gzip", "u", "image/gif", bytes.NewReader(onePixelGIF), []string{"Content-Encoding", "gzip"}, 400, "Content-Encoding"},
		{"too large", "u", "image/gif", bytes.NewReader(big), nil, 400, "at most 5 MiB"},
		{"too large, no length", "u", "image/gif", io.MultiReader(bytes.NewReader(big)), nil, 400, "at most 5 MiB"},
		{"empty, no length", "u", "image/gif", io.MultiReader(), nil, 400, "empty"},
		{"7 MiB, no length", "u", "image/gif", io.MultiReader(bytes.NewReader(gifOfSize(7 << 20))), nil, 400, "at most 5 MiB"},
		{"7 MiB declared", "u", "image/gif", bytes.NewReader(gifOfSize(7 << 20)), nil, 400, "at most 5 MiB"},
		{"not an image", "u", "image/gif", bytes.NewReader([]byte("GIF90a nope")), nil, 400, "not a PNG, JPEG, WebP or GIF"},
		{"not an image type", "u", "application/octet-stream", bytes.NewReader(onePixelGIF), nil, 400, "Content-Type"},
		{"upper-case type", "u", "IMAGE/GIF", bytes.NewReader(onePixelGIF), nil, 200, "storageId"},
		{"5 MiB, no length", "u", "image/gif", io.MultiReader(bytes.NewReader(gifOfSize(contract.MaxUploadBytes))), nil, 200, "storageId"},
	}
	for _, c := range cases {
		resp, body := h.uploadReader(t, c.sub, c.ct, c.body, c.headers...)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.text) {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, body)
		}
	}
	// Two stored (1 pixel and 5 MiB); the refused ones left no file, no
	// document and no reservation.
	entries, _ := os.ReadDir(h.dir)
	var files []string
	for _, e := range entries {
		files = append(files, e.Name())
	}
	n, _ := h.db.Collection(uploadsColl).CountDocuments(context.Background(), bson.M{})
	if len(files) != 2 || n != 2 || h.usage(t) != int64(len(onePixelGIF)+contract.MaxUploadBytes) {
		t.Fatalf("after the refusals: files %v, %d documents, usage %d", files, n, h.usage(t))
	}
}

// TestUploadRateLimit: a user may upload MEDIA_UPLOAD_BURST at once, then one
// every MEDIA_UPLOAD_INTERVAL; beyond, 429 RATE_LIMITED with Retry-After in
// seconds. Other users are not affected.
func TestUploadRateLimit(t *testing.T) {
	h := newHarness(t, func(s *Settings) { s.UploadBurst, s.UploadInterval = 3, 20*time.Second })
	for i := 0; i < 3; i++ {
		h.mustUpload(t, "eager", onePixelGIF)
	}
	resp, body := h.upload(t, "eager", "image/gif", onePixelGIF)
	if resp.StatusCode != 429 || !strings.Contains(string(body), "RATE_LIMITED") || resp.Header.Get("Retry-After") != "20" {
		t.Fatalf("4th upload at once: %d Retry-After=%q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	h.mustUpload(t, "other", onePixelGIF)
	h.clock.Advance(15 * time.Second)
	if resp, _ := h.upload(t, "eager", "image/gif", onePixelGIF); resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "5" {
		t.Fatalf("15 s later: %d Retry-After=%q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	h.clock.Advance(5 * time.Second)
	h.mustUpload(t, "eager", onePixelGIF)
}

// TestDailyQuota: the bytes one user stores in 24 hours are bounded; the
// refusal is 429 RATE_LIMITED with a Retry-After that ends when the oldest
// uploads leave the window; the count comes from the stored metadata, so a
// restart does not reset it.
func TestDailyQuota(t *testing.T) {
	const size = 1 << 20
	h := newHarness(t, func(s *Settings) { s.DailyUploadBytes = 3 * size })
	for i := 0; i < 3; i++ {
		h.mustUpload(t, "heavy", gifOfSize(size))
		h.clock.Advance(time.Hour)
	}
	check := func(when string) {
		t.Helper()
		resp, body := h.upload(t, "heavy", "image/gif", gifOfSize(size))
		// The first upload was 3 h ago: it leaves the window in 21 h.
		if resp.StatusCode != 429 || !strings.Contains(string(body), "RATE_LIMITED") || !strings.Contains(string(body), "dailyUploadBytes") ||
			resp.Header.Get("Retry-After") != strconv.Itoa(21*3600) {
			t.Fatalf("%s: %d Retry-After=%q %s", when, resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	check("a 4th MiB")
	h.mustUpload(t, "light", gifOfSize(size)) // someone else's quota is their own
	h.start(t)                                // a restart
	check("after a restart")
	h.clock.Advance(21 * time.Hour)
	h.mustUpload(t, "heavy", gifOfSize(size))
}

// TestTotalCap: the bytes of every upload kept are bounded by
// MEDIA_MAX_STORED_BYTES: beyond, 503 UNAVAILABLE with Retry-After; deleting
// unreferenced uploads makes room again.
func TestTotalCap(t *testing.T) {
	const size = 1 << 20
	h := newHarness(t, func(s *Settings) { s.MaxStoredBytes = 2*size + 100 })
	a := h.mustUpload(t, "a", gifOfSize(size))
	h.mustUpload(t, "b", gifOfSize(size))
	resp, body := h.upload(t, "c", "image/gif", gifOfSize(size))
	if resp.StatusCode != 503 || !strings.Contains(string(body), "UNAVAILABLE") || !strings.Contains(string(body), "maxStoredBytes") ||
		resp.Header.Get("Retry-After") == "" {
		t.Fatalf("over the total cap: %d Retry-After=%q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	// A body without a Content-Length reserves the largest upload: refused too.
	if resp, _ := h.uploadReader(t, "c", "image/gif", io.MultiReader(bytes.NewReader(onePixelGIF))); resp.StatusCode != 503 {
		t.Fatalf("an unknown length over the total cap: %d", resp.StatusCode)
	}
	if _, ok := h.record(t, a); !ok {
		t.Fatal("the first upload is gone")
	}
	h.clock.Advance(h.set.UnreferencedGrace + time.Minute)
	if n, err := h.svc.sweep(context.Background()); err != nil || n != 2 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if h.usage(t) != 0 {
		t.Fatalf("usage after the sweep: %d", h.usage(t))
	}
	h.mustUpload(t, "c", gifOfSize(size))
}

// TestUnreferencedUploadsAreSwept: an upload nothing claims is deleted
// (metadata and bytes) once MEDIA_UNREFERENCED_GRACE has passed, not
// before; a claimed one is kept for good; a claim answers as the ownership
// check and claims only the caller's own uploads.
func TestUnreferencedUploadsAreSwept(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	kept, dropped, theirs := h.mustUpload(t, "alice", onePixelGIF), h.mustUpload(t, "alice", onePixelGIF), h.mustUpload(t, "bob", onePixelGIF)
	raw, _ := json.Marshal(contract.CheckOwnershipArgs{StorageIDs: []string{kept, theirs}, UserID: "alice"})
	res, err := h.reg.Invoke(ctx, ops.Mutation, contract.OpClaim, raw, true)
	if err != nil {
		t.Fatal(err)
	}
	got := res.([]contract.Ownership)
	if len(got) != 2 || got[0] != (contract.Ownership{StorageID: kept, Exists: true, Owned: true}) || got[1] != (contract.Ownership{StorageID: theirs, Exists: true}) {
		t.Fatalf("claim: %+v", got)
	}
	if _, err := h.reg.Invoke(ctx, ops.Mutation, contract.OpClaim, raw, false); err == nil {
		t.Fatal("the internal claim answered an outside call")
	}
	h.clock.Advance(h.set.UnreferencedGrace - time.Minute)
	if n, err := h.svc.sweep(ctx); err != nil || n != 0 {
		t.Fatalf("sweep within the grace period: %d %v", n, err)
	}
	h.clock.Advance(2 * time.Minute)
	if n, err := h.svc.sweep(ctx); err != nil || n != 2 {
		t.Fatalf("sweep after the grace period: %d %v", n, err)
	}
	for id, want := range map[string]bool{kept: true, dropped: false, theirs: false} {
		_, ok := h.record(t, id)
		_, ferr := os.Stat(filepath.Join(h.dir, id))
		resp, _ := h.do(t, httptest.NewRequest(http.MethodGet, contract.DownloadPath+id, nil))
		if ok != want || (ferr == nil) != want || (resp.StatusCode == 200) != want {
			t.Errorf("%s: kept=%v, record %v, file %v, download %d", id, want, ok, ferr, resp.StatusCode)
		}
	}
	if h.usage(t) != int64(len(onePixelGIF)) {
		t.Fatalf("usage after the sweep: %d", h.usage(t))
	}
	// Claiming a swept upload: it exists no more.
	raw, _ = json.Marshal(contract.CheckOwnershipArgs{StorageIDs: []string{dropped}, UserID: "alice"})
	res, err = h.reg.Invoke(ctx, ops.Mutation, contract.OpClaim, raw, true)
	if err != nil || res.([]contract.Ownership)[0].Exists {
		t.Fatalf("claim of a swept upload: %+v %v", res, err)
	}
}

// TestCheckOwnership runs the internal operation on the registry.
func TestCheckOwnership(t *testing.T) {
	h := newHarness(t)
	a, b := h.mustUpload(t, "alice", onePixelGIF), h.mustUpload(t, "bob", onePixelGIF)
	raw, _ := json.Marshal(contract.CheckOwnershipArgs{StorageIDs: []string{b, a}, UserID: "alice"})
	res, err := h.reg.Invoke(context.Background(), ops.Query, contract.OpCheckOwnership, raw, true)
	if err != nil {
		t.Fatal(err)
	}
	got := res.([]contract.Ownership)
	if len(got) != 2 || got[0] != (contract.Ownership{StorageID: b, Exists: true}) || got[1] != (contract.Ownership{StorageID: a, Exists: true, Owned: true}) {
		t.Fatalf("ownership: %+v", got)
	}
	if _, err := h.reg.Invoke(context.Background(), ops.Query, contract.OpCheckOwnership, raw, false); err == nil {
		t.Fatal("the internal operation answered an outside call")
	}
	if u, _ := h.record(t, a); u.Referenced {
		t.Fatal("the ownership check claimed an upload")
	}
}

// TestMigratesLegacyGridFS: uploads an earlier version kept in the GridFS
// bucket "images" move to the blob store at start (bytes, metadata, never
// swept) and leave the database.
func TestMigratesLegacyGridFS(t *testing.T) {
	h := newHarness(t)
	ctx := context.Background()
	bucket := lungo.NewBucket(h.db, options.GridFSBucket().SetName("images"))
	if err := bucket.EnsureIndexes(ctx, true); err != nil {
		t.Fatal(err)
	}
	const id = "stg_legacy00000000000000000000000"
	sum := sha256.Sum256(onePixelGIF)
	meta := bson.M{"uploadedBy": "old-user", "contentType": "image/gif", "size": len(onePixelGIF), "sha256": hex.EncodeToString(sum[:]), "uploadedAt": int64(1700000000000)}
	w, err := bucket.OpenUploadStreamWithID(ctx, id, id, options.GridFSUpload().SetMetadata(meta))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(onePixelGIF); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	h.start(t) // the restart migrates
	u, ok := h.record(t, id)
	if !ok || u.UploadedBy != "old-user" || u.Size != int64(len(onePixelGIF)) || !u.Referenced || u.State != domain.StateStored || u.CreatedAt != 1700000000000 {
		t.Fatalf("migrated metadata: %+v", u)
	}
	if b, err := os.ReadFile(filepath.Join(h.dir, id)); err != nil || !bytes.Equal(b, onePixelGIF) {
		t.Fatalf("migrated bytes: %v", err)
	}
	for _, c := range []string{"images.files", "images.chunks"} {
		if n, _ := h.db.Collection(c).CountDocuments(ctx, bson.M{}); n != 0 {
			t.Fatalf("%s still holds %d documents", c, n)
		}
	}
	if h.usage(t) != int64(len(onePixelGIF)) {
		t.Fatalf("usage after the migration: %d", h.usage(t))
	}
	h.clock.Advance(48 * time.Hour)
	if n, _ := h.svc.sweep(ctx); n != 0 {
		t.Fatal("a migrated upload was swept")
	}
}

// TestGridFSBlobs: the production GridFS store (MEDIA_BLOB_URL=gridfs)
// behind the same interface: upload, download, sweep.
func TestGridFSBlobs(t *testing.T) {
	h := newHarness(t, func(s *Settings) { s.BlobURL = storage.BlobGridFS })
	id := h.mustUpload(t, "g", onePixelGIF)
	if n, _ := h.db.Collection("images.files").CountDocuments(context.Background(), bson.M{"_id": id}); n != 1 {
		t.Fatal("not in GridFS")
	}
	resp, got := h.do(t, httptest.NewRequest(http.MethodGet, contract.DownloadPath+id, nil))
	if resp.StatusCode != 200 || !bytes.Equal(got, onePixelGIF) {
		t.Fatalf("download: %d", resp.StatusCode)
	}
	h.start(t) // the adoption of legacy files runs once, and not on our own
	if u, _ := h.record(t, id); u.Referenced {
		t.Fatal("a restart claimed an upload")
	}
	h.clock.Advance(h.set.UnreferencedGrace + time.Minute)
	if n, err := h.svc.sweep(context.Background()); err != nil || n != 1 {
		t.Fatalf("sweep: %d %v", n, err)
	}
	if n, _ := h.db.Collection("images.files").CountDocuments(context.Background(), bson.M{}); n != 0 {
		t.Fatal("the swept upload is still in GridFS")
	}
}

// TestDefaultBlobStoreNextToTheDatabaseFile: without MEDIA_BLOB_URL, the
// embedded engine's file gets its blobs in a directory next to it, and
// nothing of the bytes goes into the database file.
func TestDefaultBlobStoreNextToTheDatabaseFile(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "media", DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	set := DefaultSettings()
	s, _, err := newService(ctx, service.Env{Name: "media", Logger: slog.New(slog.DiscardHandler), DB: db, Settings: &set})
	if err != nil {
		t.Fatal(err)
	}
	if s.blobs.Kind() != "file" {
		t.Fatalf("default store %s", s.blobs.Kind())
	}
	big := gifOfSize(1 << 20)
	if err := s.blobs.Put(ctx, "stg_x", bytes.NewReader(big)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "media.blobs", "stg_x")); err != nil || !bytes.Equal(b, big) {
		t.Fatalf("blob file: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "media.lungo")); err == nil && fi.Size() > 512<<10 {
		t.Fatalf("the database file holds %d bytes", fi.Size())
	}
}
