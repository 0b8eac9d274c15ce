package e2e

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/apperr"
	"marketplace/libs/contracts/media"
	"marketplace/libs/ids"
	"marketplace/libs/serviceauth"
)

// tinyImages are small valid images of the four accepted types.
func tinyImages(t *testing.T) map[string][]byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 2))
	img.Set(1, 1, color.RGBA{200, 30, 30, 255})
	enc := func(f func(*bytes.Buffer) error) []byte {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	return map[string][]byte{
		"image/png":  enc(func(b *bytes.Buffer) error { return png.Encode(b, img) }),
		"image/jpeg": enc(func(b *bytes.Buffer) error { return jpeg.Encode(b, img, nil) }),
		"image/gif":  enc(func(b *bytes.Buffer) error { return gif.Encode(b, img, nil) }),
		// A complete 1x1 lossless WebP.
		"image/webp": []byte("RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00\x2f\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"),
	}
}

func upload(s *st.Sys, token, contentType string, body []byte) st.Result {
	h := map[string]string{"Content-Type": contentType}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return s.Do("POST", "/api/storage/upload", bytes.NewReader(body), h)
}

func storageID(t *testing.T, r st.Result) string {
	t.Helper()
	st.MustOK(t, r)
	var u media.Uploaded
	r.Decode(t, &u)
	if !ids.Valid(media.IDKind, u.StorageID) {
		t.Fatalf("upload answered %s", r.Body)
	}
	return u.StorageID
}

func pngOfSize(n int) []byte {
	b := make([]byte, n)
	copy(b, "\x89PNG\r\n\x1a\n")
	return b
}

// TestMediaUploadAndDownload: each accepted type goes in and comes back
// byte for byte, with the type sniffed from the bytes, a strong ETag (the
// quoted sha256), a year of immutable caching, nosniff and CORS; a second GET
// with If-None-Match is a 304 without body; the download is public.
func TestMediaUploadAndDownload(t *testing.T) {
	s := st.Start(t)
	tok := s.Token("user-media-1")
	for typ, body := range tinyImages(t) {
		t.Run(typ, func(t *testing.T) {
			id := storageID(t, upload(s, tok, typ, body))
			r := s.Do("GET", "/api/storage/"+id, nil, nil)
			sum := sha256.Sum256(body)
			etag := `"` + hex.EncodeToString(sum[:]) + `"`
			if r.Status != 200 || !bytes.Equal(r.Body, body) {
				t.Fatalf("download: %d, %d bytes, want %d", r.Status, len(r.Body), len(body))
			}
			for h, want := range map[string]string{
				"Content-Type":                typ,
				"ETag":                        etag,
				"Cache-Control":               "public, max-age=31536000, immutable",
				"X-Content-Type-Options":      "nosniff",
				"Content-Length":              strconv.Itoa(len(body)),
				"Access-Control-Allow-Origin": "*",
			} {
				if got := r.Header.Get(h); got != want {
					t.Errorf("%s = %q, want %q", h, got, want)
				}
			}
			again := s.Do("GET", "/api/storage/"+id, nil, map[string]string{"If-None-Match": r.Header.Get("ETag")})
			if again.Status != 304 || len(again.Body) != 0 || again.Header.Get("ETag") != etag || again.Header.Get("Cache-Control") == "" {
				t.Fatalf("conditional GET: %d %q %v", again.Status, again.Body, again.Header)
			}
			if stale := s.Do("GET", "/api/storage/"+id, nil, map[string]string{"If-None-Match": `"0000"`}); stale.Status != 200 || !bytes.Equal(stale.Body, body) {
				t.Fatalf("GET with another ETag: %d", stale.Status)
			}
		})
	}

	// The stored type comes from the bytes, not from the client's header; the
	// URL other services build for a photo serves it.
	png := tinyImages(t)["image/png"]
	id := storageID(t, upload(s, tok, "image/jpeg", png))
	resp, err := s.HTTP.Get(media.URL(s.BaseURL, id))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("a PNG sent as image/jpeg: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
}

// TestMediaUploadRefusals: what is not an image of the accepted types, or is
// too large, or comes without a valid token, is refused with the contract's
// codes; exactly 5 MiB is still accepted.
func TestMediaUploadRefusals(t *testing.T) {
	s := st.Start(t)
	tok := s.Token("user-media-2")
	png := tinyImages(t)["image/png"]

	cases := []struct {
		name, token, contentType string
		body                     []byte
		code, message            string
	}{
		{"text body with an image type", tok, "image/png", []byte("hello, this is not an image"), "INVALID_ARGUMENT", "not a PNG, JPEG, WebP or GIF"},
		{"html body with an image type", tok, "image/gif", []byte("<html><script>alert(1)</script></html>"), "INVALID_ARGUMENT", "not a PNG, JPEG, WebP or GIF"},
		{"svg", tok, "image/svg+xml", []byte(`<svg xmlns="http://www.w3.org/2000/svg"/>`), "INVALID_ARGUMENT", "not a PNG, JPEG, WebP or GIF"},
		{"image body with a text type", tok, "text/plain", png, "INVALID_ARGUMENT", "Content-Type"},
		{"image body with a JSON type", tok, "application/json", png, "INVALID_ARGUMENT", "Content-Type"},
		{"no content type", tok, "", png, "INVALID_ARGUMENT", "Content-Type"},
		{"empty body", tok, "image/png", nil, "INVALID_ARGUMENT", "empty"},
		{"5 MiB + 1 byte", tok, "image/png", pngOfSize(5*1024*1024 + 1), "INVALID_ARGUMENT", "at most 5 MiB"},
		{"anonymous", "", "image/png", png, "UNAUTHENTICATED", ""},
		{"bad token", "not-a-token", "image/png", png, "UNAUTHENTICATED", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := upload(s, c.token, c.contentType, c.body)
			st.Expect(t, r, c.code)
			if !strings.Contains(string(r.Body), c.message) {
				t.Fatalf("message of %s: %s", c.name, r.Body)
			}
		})
	}

	// Exactly 5 MiB with a valid signature is accepted (only the signature
	// is checked) and comes back whole.
	big := pngOfSize(5 * 1024 * 1024)
	id := storageID(t, upload(s, tok, "image/png", big))
	r := s.Do("GET", "/api/storage/"+id, nil, nil)
	if r.Status != 200 || !bytes.Equal(r.Body, big) {
		t.Fatalf("5 MiB download: %d, %d bytes", r.Status, len(r.Body))
	}
}

// TestMediaDownloadNotFound: unknown and malformed ids are 404 with the
// contract's body; paths that only look like the route are never forwarded.
func TestMediaDownloadNotFound(t *testing.T) {
	s := st.Start(t)
	for _, p := range []string{
		"/api/storage/" + ids.New(media.IDKind), // well-formed, unknown
		"/api/storage/nope",                     // malformed
		"/api/storage/" + ids.New("stores"),     // another kind's id
		"/api/storage/stg_zz",                   // the prefix, malformed
		"/api/storage/upload",                   // the upload path, by GET
		"/api/storage/../ops",
		"/api/storage/%2e%2e/ops",
		"/api/storage/a/b",
		"/api/storage/",
		"/api/storage",
		"/api/storage/" + ids.New(media.IDKind) + "/",
	} {
		r := s.Do("GET", p, nil, nil)
		if r.Status != 404 || r.Code() != "NOT_FOUND" || r.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: %d %s", p, r.Status, r.Body)
		}
	}
	// POST to the download route: methods are exact too (405, with the method to use).
	r := s.Do("POST", "/api/storage/"+ids.New(media.IDKind), strings.NewReader("x"), map[string]string{"Authorization": "Bearer " + s.Token("u")})
	if r.Status != 405 || r.Code() != "INVALID_ARGUMENT" || r.Header.Get("Allow") != "GET" {
		t.Errorf("POST to the download route: %d allow=%q %s", r.Status, r.Header.Get("Allow"), r.Body)
	}
}

// TestMediaOwnershipCheck: the internal operation the reviews service calls
// before attaching photos (media.files.claim) tells, for each id, whether the
// file exists and whether the given user uploaded it; it is unreachable
// through the gateway and without the reviews service's assertion.
// media.files.checkOwnership, which answers the same without claiming, is
// declared for no caller (no service calls it): refused to every service,
// reviews included.
func TestMediaOwnershipCheck(t *testing.T) {
	s := st.Start(t)
	png := tinyImages(t)["image/png"]
	mine := storageID(t, upload(s, s.Token("alice"), "image/png", png))
	theirs := storageID(t, upload(s, s.Token("bob"), "image/png", png))
	unknown := ids.New(media.IDKind)

	client := media.NewClient(s.CallsAs("reviews"))
	ctx := context.Background()
	got, err := client.Claim(ctx, "alice", []string{mine, theirs, unknown, mine})
	if err != nil {
		t.Fatal(err)
	}
	want := []media.Ownership{
		{StorageID: mine, Exists: true, Owned: true},
		{StorageID: theirs, Exists: true, Owned: false},
		{StorageID: unknown, Exists: false, Owned: false},
		{StorageID: mine, Exists: true, Owned: true},
	}
	if len(got) != len(want) {
		t.Fatalf("answer %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if bad := media.NotOwned(got); len(bad) != 2 || bad[0] != theirs || bad[1] != unknown {
		t.Errorf("NotOwned = %v", bad)
	}
	if got, err := client.Claim(ctx, "bob", []string{theirs}); err != nil || !got[0].Owned {
		t.Errorf("bob's own upload: %+v %v", got, err)
	}

	// Arguments are checked: at most 10 ids, each a storage id.
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = mine
	}
	for name, ids := range map[string][]string{"eleven ids": eleven, "a malformed id": {"nope"}, "another kind": {ids.New("stores")}, "none": {}} {
		if _, err := client.Claim(ctx, "alice", ids); apperr.CodeOf(err) != apperr.InvalidArgument {
			t.Errorf("%s: %v", name, err)
		}
	}

	// Not reachable through the gateway, even with the reviews service's
	// assertion.
	args := map[string]any{"storageIds": []string{mine}, "userId": "alice"}
	st.Expect(t, s.Mutation(s.Token("alice"), media.OpClaim, args), "NOT_FOUND")
	b, _ := json.Marshal(map[string]any{"path": media.OpClaim, "args": args})
	reviews := s.Assertion("reviews", media.Service)
	st.Expect(t, s.Do("POST", "/api/mutation", bytes.NewReader(b), map[string]string{"Content-Type": "application/json", serviceauth.Header: reviews}), "NOT_FOUND")
	// Nor on the service's own address without it, or with the assertion of
	// a service that does not declare calls to media (payouts).
	for _, a := range []string{"", s.Assertion("payouts", media.Service)} {
		st.Expect(t, s.DoAt(s.Services[media.Service], "POST", "/api/mutation", bytes.NewReader(b), map[string]string{"Content-Type": "application/json", serviceauth.Header: a}), "NOT_FOUND")
	}
	r := s.DoAt(s.Services[media.Service], "POST", "/api/mutation", bytes.NewReader(b), map[string]string{"Content-Type": "application/json", serviceauth.Header: reviews})
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"owned":true`) {
		t.Fatalf("direct call with the reviews service's assertion: %d %s", r.Status, r.Body)
	}
	// checkOwnership: no caller, so the reviews service's call is refused
	// as an outsider's.
	if _, err := client.CheckOwnership(ctx, "alice", []string{mine}); apperr.CodeOf(err) != apperr.Internal {
		t.Errorf("checkOwnership as reviews: %v", err)
	}
	b, _ = json.Marshal(map[string]any{"path": media.OpCheckOwnership, "args": args})
	st.Expect(t, s.DoAt(s.Services[media.Service], "POST", "/api/query", bytes.NewReader(b), map[string]string{"Content-Type": "application/json", serviceauth.Header: reviews}), "NOT_FOUND")
}

// TestMediaUploadContentEncodingThroughGateway: the gateway forwards
// Content-Encoding with the body, so the media service's rule holds through
// it: a compressed upload is refused (INVALID_ARGUMENT naming the header)
// and nothing is stored; identity is no encoding at all.
func TestMediaUploadContentEncodingThroughGateway(t *testing.T) {
	s := st.Start(t)
	tok := s.Token("user-media-gzip")
	png := tinyImages(t)["image/png"]
	for _, enc := range []string{"gzip", "br", "deflate"} {
		r := s.Do("POST", "/api/storage/upload", bytes.NewReader(png),
			map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "image/png", "Content-Encoding": enc})
		st.Expect(t, r, "INVALID_ARGUMENT")
		if !strings.Contains(string(r.Body), "Content-Encoding") {
			t.Fatalf("%s: %s", enc, r.Body)
		}
	}
	r := s.Do("POST", "/api/storage/upload", bytes.NewReader(png),
		map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "image/png", "Content-Encoding": "identity"})
	storageID(t, r)
}

// TestMediaUploadLimitsThroughGateway: the per-user upload rate and daily
// quota answer 429 RATE_LIMITED with a Retry-After in seconds through the
// gateway; another user is not affected.
func TestMediaUploadLimitsThroughGateway(t *testing.T) {
	s := st.Start(t, st.WithEnv("MEDIA_UPLOAD_INTERVAL", "1h"), st.WithEnv("MEDIA_UPLOAD_BURST", "2"),
		st.WithEnv("MEDIA_DAILY_UPLOAD_BYTES", strconv.Itoa(3<<20)))
	png := tinyImages(t)["image/png"]
	tok := s.Token("user-media-eager")
	storageID(t, upload(s, tok, "image/png", png))
	storageID(t, upload(s, tok, "image/png", png))
	r := upload(s, tok, "image/png", png)
	st.Expect(t, r, "RATE_LIMITED")
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 3590 || ra > 3600 {
		t.Fatalf("Retry-After of the rate: %q", r.Header.Get("Retry-After"))
	}
	// The daily quota (3 MiB): 2 MiB stored, 2 MiB more is over until the first leaves the window.
	heavy := s.Token("user-media-heavy")
	storageID(t, upload(s, heavy, "image/png", pngOfSize(2<<20)))
	r = upload(s, heavy, "image/png", pngOfSize(2<<20))
	st.Expect(t, r, "RATE_LIMITED")
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 86000 || ra > 86400 || !strings.Contains(string(r.Body), "daily") {
		t.Fatalf("Retry-After of the quota: %q %s", r.Header.Get("Retry-After"), r.Body)
	}
	storageID(t, upload(s, s.Token("user-media-calm"), "image/png", png))
}

// TestMediaUnclaimedUploadsAreSwept: a photo a review attaches is claimed
// (the reviews service calls media.files.claim) and kept; an upload nothing
// refers to is deleted once MEDIA_UNREFERENCED_GRACE has passed on the
// services' clock.
func TestMediaUnclaimedUploadsAreSwept(t *testing.T) {
	clock := newTestClock(time.Now())
	s := st.Start(t, st.WithClock(clock.Now), st.WithEnv("MEDIA_SWEEP_INTERVAL", "100ms"))
	rs := newReviewShop(t, s)
	imgs := tinyImages(t)
	attached := storageID(t, upload(s, rs.user, "image/png", imgs["image/png"]))
	orphan := storageID(t, upload(s, rs.user, "image/gif", imgs["image/gif"]))
	addReviewOK(t, s, rs.user, reviewArgs(rs.storeA, 5, "photoIds", []string{attached}))

	clock.Advance(23 * time.Hour)
	time.Sleep(500 * time.Millisecond) // several sweeps
	if r := s.Do("GET", "/api/storage/"+orphan, nil, nil); r.Status != 200 {
		t.Fatalf("swept within the grace period: %d", r.Status)
	}
	clock.Advance(2 * time.Hour)
	deadline := time.Now().Add(10 * time.Second)
	for s.Do("GET", "/api/storage/"+orphan, nil, nil).Status != 404 {
		if time.Now().After(deadline) {
			t.Fatal("the unclaimed upload is still served 25 h after its upload")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := s.Do("GET", "/api/storage/"+attached, nil, nil); r.Status != 200 || !bytes.Equal(r.Body, imgs["image/png"]) {
		t.Fatalf("the review's photo: %d", r.Status)
	}
}

// TestMediaUploadStreamedThroughGateway: the gateway streams an upload's
// body on to the media service, which counts it as it arrives: a body
// without a Content-Length (chunked) of exactly 5 MiB is stored whole, one
// byte more is refused as too large (never a 500), as is a declared length
// over the gateway's body limit; the next upload still works.
func TestMediaUploadStreamedThroughGateway(t *testing.T) {
	s := st.Start(t)
	tok := s.Token("user-media-stream")
	h := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "image/png"}
	chunked := func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b)) } // no length: sent chunked
	whole := pngOfSize(media.MaxUploadBytes)
	id := storageID(t, s.Do("POST", "/api/storage/upload", chunked(whole), h))
	// Streamed back through the gateway too (an answer over 64 KiB), with its
	// length and headers; a conditional GET is still a 304.
	r := s.Do("GET", "/api/storage/"+id, nil, nil)
	if r.Status != 200 || !bytes.Equal(r.Body, whole) || r.Header.Get("Content-Length") != strconv.Itoa(len(whole)) ||
		r.Header.Get("Content-Type") != "image/png" || r.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("download of the streamed upload: %d, %d bytes, %v", r.Status, len(r.Body), r.Header)
	}
	for i := 0; i < 3; i++ { // the upstream connections stay usable
		if again := s.Do("GET", "/api/storage/"+id, nil, map[string]string{"If-None-Match": r.Header.Get("ETag")}); again.Status != 304 || len(again.Body) != 0 {
			t.Fatalf("conditional GET: %d", again.Status)
		}
		if again := s.Do("GET", "/api/storage/"+id, nil, nil); again.Status != 200 || !bytes.Equal(again.Body, whole) {
			t.Fatalf("GET again: %d, %d bytes", again.Status, len(again.Body))
		}
	}
	r = s.Do("POST", "/api/storage/upload", chunked(pngOfSize(media.MaxUploadBytes+1)), h)
	st.Expect(t, r, "INVALID_ARGUMENT")
	if !strings.Contains(string(r.Body), "at most 5 MiB") {
		t.Fatalf("5 MiB + 1, chunked: %s", r.Body)
	}
	r = s.Do("POST", "/api/storage/upload", bytes.NewReader(pngOfSize(7<<20)), h)
	st.Expect(t, r, "INVALID_ARGUMENT")
	if !strings.Contains(string(r.Body), "too large") {
		t.Fatalf("7 MiB declared: %s", r.Body)
	}
	// Refused by the gateway before it forwards anything (a bad token): the
	// client still gets the answer, not a reset connection.
	for i := 0; i < 3; i++ {
		r = s.Do("POST", "/api/storage/upload", bytes.NewReader(whole), map[string]string{"Authorization": "Bearer nonsense", "Content-Type": "image/png"})
		st.Expect(t, r, "UNAUTHENTICATED")
	}
	storageID(t, upload(s, tok, "image/png", tinyImages(t)["image/png"]))
}

// TestMediaNewAccountQuota: an account without an order or a review has the
// new accounts' daily quota (MEDIA_NEW_ACCOUNT_DAILY_UPLOAD_BYTES): over it,
// 429 RATE_LIMITED with Retry-After (details.reason new_account); once it has
// an order (paid through the webhook) or a review (one citing its photo), the
// full daily quota applies, learnt from the customers' and the reviews'
// events; an administrator has the full quota from the start.
func TestMediaNewAccountQuota(t *testing.T) {
	s := st.Start(t, st.WithEnv("MEDIA_DAILY_UPLOAD_BYTES", strconv.Itoa(4<<20)),
		st.WithEnv("MEDIA_NEW_ACCOUNT_DAILY_UPLOAD_BYTES", strconv.Itoa(1<<20)))
	rs := &reviewShop{shop: newShop(t, s)}
	tokens, customers := makeCustomers(t, s, "media-newcomer", 3)
	buyer, reviewer, stranger := tokens[0], tokens[1], tokens[2]
	photo := pngOfSize(600 << 10)
	newAccountRefusal := func(who string, tok string) {
		t.Helper()
		r := upload(s, tok, "image/png", photo)
		st.Expect(t, r, "RATE_LIMITED")
		var e struct {
			Error struct {
				Details map[string]any `json:"details"`
			} `json:"error"`
		}
		r.Decode(t, &e)
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 86000 || ra > 86400 ||
			e.Error.Details["reason"] != "new_account" || e.Error.Details["dailyUploadBytes"] != float64(1<<20) {
			t.Fatalf("%s over the new accounts' quota: Retry-After %q %s", who, r.Header.Get("Retry-After"), r.Body)
		}
	}
	var photos [3]string
	for i, tok := range tokens {
		photos[i] = storageID(t, upload(s, tok, "image/png", photo))
		newAccountRefusal(fmt.Sprint("newcomer ", i), tok)
	}

	// An order: the full quota, once the order's event has reached the media service.
	rs.orderOf(t, buyer, customers[0], rs.storeA)
	// A review citing the photo uploaded as a new account.
	addReviewOK(t, s, reviewer, reviewArgs(rs.storeB, 5, "photoIds", []string{photos[1]}))
	for who, tok := range map[string]string{"the buyer": buyer, "the reviewer": reviewer} {
		var r st.Result
		eventually(t, who+"'s full quota", func() bool {
			r = upload(s, tok, "image/png", photo)
			return r.Status == 200
		})
		storageID(t, r)
		// 1,200 KiB stored; 4 more make 3,600 KiB of the 4 MiB; one more is over.
		for range 4 {
			storageID(t, upload(s, tok, "image/png", photo))
		}
		r = upload(s, tok, "image/png", photo)
		st.Expect(t, r, "RATE_LIMITED")
		if strings.Contains(string(r.Body), "new_account") || !strings.Contains(string(r.Body), strconv.Itoa(4<<20)) {
			t.Errorf("%s over the full quota: %s", who, r.Body)
		}
	}
	newAccountRefusal("the stranger", stranger)
	admin := s.Token("admin-media", "admin")
	for range 3 {
		storageID(t, upload(s, admin, "image/png", photo))
	}
}
