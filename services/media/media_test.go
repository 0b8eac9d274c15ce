package media

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/bson"

	"marketplace/libs/auth"
	contract "marketplace/libs/contracts/media"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/store"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

type harness struct {
	app *fiber.App
	reg *ops.Registry
	db  *store.DB
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	ctx := context.Background()
	db, err := store.Open(ctx, store.Options{Name: "media", Memory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close(context.Background()) })
	logger := slog.New(slog.DiscardHandler)
	built, err := Module.Build(ctx, service.Env{Name: "media", Logger: logger, DB: db, Now: time.Now})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := auth.NewHS256(secret, auth.Options{})
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	cfg.BodyLimit = 6 << 20
	app := httpserver.New("media", cfg, logger, nil)
	(&ops.Server{Registry: built.Registry, Verifier: v, InternalToken: "svc", Routes: built.Routes}).Mount(app)
	return &harness{app: app, reg: built.Registry, db: db}
}

func (h *harness) do(t *testing.T, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := h.app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

func (h *harness) upload(t *testing.T, sub, contentType string, body []byte, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, contract.RouteUpload, bytes.NewReader(body))
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

var onePixelGIF = []byte("GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;")

// TestUploadStoresGridFSWithMetadata: an upload is a GridFS file of the
// service's own database (bucket images), its _id the storage id, with who
// uploaded it, the sniffed type, size, sha256 and time in its metadata.
func TestUploadStoresGridFSWithMetadata(t *testing.T) {
	h := newHarness(t)
	before := time.Now().UnixMilli()
	resp, body := h.upload(t, "user-7", "image/png", onePixelGIF)
	if resp.StatusCode != 200 {
		t.Fatalf("upload: %d %s", resp.StatusCode, body)
	}
	var up contract.Uploaded
	if err := json.Unmarshal(body, &up); err != nil || !strings.HasPrefix(up.StorageID, "stg_") {
		t.Fatalf("upload answered %s", body)
	}
	var f struct {
		ID       string   `bson:"_id"`
		Length   int64    `bson:"length"`
		Filename string   `bson:"filename"`
		Metadata fileMeta `bson:"metadata"`
	}
	ctx := context.Background()
	if err := h.db.Collection("images.files").FindOne(ctx, bson.M{"_id": up.StorageID}).Decode(&f); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(onePixelGIF)
	m := f.Metadata
	if f.Length != int64(len(onePixelGIF)) || m.UploadedBy != "user-7" || m.ContentType != "image/gif" || m.Size != int64(len(onePixelGIF)) ||
		m.SHA256 != hex.EncodeToString(sum[:]) || m.UploadedAt < before || m.UploadedAt > time.Now().UnixMilli() {
		t.Fatalf("files document: %+v", f)
	}
	if n, err := h.db.Collection("images.chunks").CountDocuments(ctx, bson.M{"files_id": up.StorageID}); err != nil || n != 1 {
		t.Fatalf("chunks: %d %v", n, err)
	}
	// Served back by the service itself, conditional requests included.
	resp, got := h.do(t, httptest.NewRequest(http.MethodGet, contract.DownloadPath+up.StorageID, nil))
	if resp.StatusCode != 200 || !bytes.Equal(got, onePixelGIF) || resp.Header.Get("Content-Type") != "image/gif" ||
		resp.Header.Get("ETag") != `"`+m.SHA256+`"` || resp.Header.Get("Cache-Control") != CacheControl || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("download: %d %v", resp.StatusCode, resp.Header)
	}
	req := httptest.NewRequest(http.MethodGet, contract.DownloadPath+up.StorageID, nil)
	req.Header.Set("If-None-Match", `W/"`+m.SHA256+`"`)
	if resp, got := h.do(t, req); resp.StatusCode != 304 || len(got) != 0 {
		t.Fatalf("conditional download: %d %q", resp.StatusCode, got)
	}
}

// TestUploadChecksHoldWithoutTheGateway: the service applies its own checks
// (a direct caller gets the same answers as one through the gateway), and
// refuses compressed bodies, whose size and bytes it could not check.
func TestUploadChecksHoldWithoutTheGateway(t *testing.T) {
	h := newHarness(t)
	big := make([]byte, contract.MaxUploadBytes+1)
	copy(big, "GIF89a")
	cases := []struct {
		name, sub, ct string
		body          []byte
		headers       []string
		status        int
		text          string
	}{
		{"anonymous", "", "image/gif", onePixelGIF, nil, 401, "UNAUTHENTICATED"},
		{"gzip", "u", "image/gif", onePixelGIF, []string{"Content-Encoding", "gzip"}, 400, "Content-Encoding"},
		{"too large", "u", "image/gif", big, nil, 400, "at most 5 MiB"},
		{"not an image", "u", "image/gif", []byte("GIF90a nope"), nil, 400, "not a PNG, JPEG, WebP or GIF"},
		{"not an image type", "u", "application/octet-stream", onePixelGIF, nil, 400, "Content-Type"},
		{"upper-case type", "u", "IMAGE/GIF", onePixelGIF, nil, 200, "storageId"},
	}
	for _, c := range cases {
		resp, body := h.upload(t, c.sub, c.ct, c.body, c.headers...)
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.text) {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, body)
		}
	}
}

// TestCheckOwnership runs the internal operation on the registry.
func TestCheckOwnership(t *testing.T) {
	h := newHarness(t)
	id := func(sub string) string {
		_, b := h.upload(t, sub, "image/gif", onePixelGIF)
		var up contract.Uploaded
		_ = json.Unmarshal(b, &up)
		return up.StorageID
	}
	a, b := id("alice"), id("bob")
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
}
