package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/media"
	"marketplace/libs/ids"
)

var t0 = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// wantErr checks err's code, that its message holds text, and the details.
func wantErr(t *testing.T, name string, err error, code apperr.Code, text string, details map[string]any) {
	t.Helper()
	e := apperr.From(err)
	if err == nil || e.Code != code || !strings.Contains(e.Message, text) {
		t.Errorf("%s: %v, want %s containing %q", name, err, code, text)
		return
	}
	for k, v := range details {
		if e.Details[k] != v {
			t.Errorf("%s: details[%s] = %v, want %v (%v)", name, k, e.Details[k], v, e.Details)
		}
	}
}

// TestCheckContentType: an upload's Content-Type is image/*, in any case,
// spaces around it ignored; anything else is INVALID_ARGUMENT naming the
// header and quoting what was sent.
func TestCheckContentType(t *testing.T) {
	for _, ok := range []string{"image/png", "image/gif", "IMAGE/JPEG", " image/webp ", "image/anything"} {
		if err := CheckContentType(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "application/octet-stream", "text/html", "images/png", "image", " text/image/png"} {
		wantErr(t, bad, CheckContentType(bad), apperr.InvalidArgument,
			`Content-Type must be an image type (image/png, image/jpeg, image/webp or image/gif), not "`+bad+`"`,
			map[string]any{"header": "Content-Type"})
	}
}

// TestCheckContentEncoding: a compressed body is refused (its size and bytes
// could not be checked); none or identity (any case) is the image itself.
func TestCheckContentEncoding(t *testing.T) {
	for _, ok := range []string{"", " ", "identity", "IDENTITY", " Identity "} {
		if err := CheckContentEncoding(ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	for _, bad := range []string{"gzip", "br", "deflate", "identity, gzip"} {
		wantErr(t, bad, CheckContentEncoding(bad), apperr.InvalidArgument,
			`send the image's bytes without a Content-Encoding (got "`+bad+`")`, map[string]any{"header": "Content-Encoding"})
	}
}

// TestUploadSizes: 1 byte to 5 MiB. A declared length over 5 MiB or of 0 is
// refused before a byte is read; no declared length (chunked) is counted as
// it streams, and the byte past 5 MiB fails the read; an upload reserves its
// declared length, or 5 MiB without one.
func TestUploadSizes(t *testing.T) {
	for _, c := range []struct {
		n    int64
		text string
	}{
		{-1, ""}, {1, ""}, {contract.MaxUploadBytes, ""},
		{contract.MaxUploadBytes + 1, "the image is 5242881 bytes; at most 5 MiB (5242880 bytes) are accepted"},
		{7 << 20, "the image is 7340032 bytes"},
		{0, "the body is empty: send the image's bytes"},
	} {
		err := CheckDeclaredLength(c.n)
		if c.text == "" {
			if err != nil {
				t.Errorf("declared %d refused: %v", c.n, err)
			}
			continue
		}
		wantErr(t, "declared", err, apperr.InvalidArgument, c.text, nil)
	}
	wantErr(t, "too large", ErrTooLarge(0), apperr.InvalidArgument, "the image is larger than 5 MiB; at most 5 MiB (5242880 bytes) are accepted",
		map[string]any{"maxBytes": contract.MaxUploadBytes})
	wantErr(t, "not an image", ErrNotImage(), apperr.InvalidArgument, "the body is not a PNG, JPEG, WebP or GIF image", nil)
	for declared, want := range map[int64]int64{-1: contract.MaxUploadBytes, 0: contract.MaxUploadBytes, 1: 1, 4096: 4096, contract.MaxUploadBytes: contract.MaxUploadBytes} {
		if got := Reservation(declared); got != want {
			t.Errorf("Reservation(%d) = %d, want %d", declared, got, want)
		}
	}
}

// TestBodyStopsPastFiveMiB: exactly 5 MiB reads whole, counted and hashed;
// one byte more fails at that byte (ErrOverCap), and stays failed; a
// reader's own failure is kept apart from the cap.
func TestBodyStopsPastFiveMiB(t *testing.T) {
	exact := bytes.Repeat([]byte{7}, contract.MaxUploadBytes)
	b := NewBody(bytes.NewReader(exact))
	n, err := io.Copy(io.Discard, b)
	sum := sha256.Sum256(exact)
	if err != nil || n != contract.MaxUploadBytes || b.Size() != contract.MaxUploadBytes || b.Over() || b.SHA256() != hex.EncodeToString(sum[:]) {
		t.Fatalf("5 MiB: %d %v size %d over %v", n, err, b.Size(), b.Over())
	}
	b = NewBody(bytes.NewReader(append(exact, 1)))
	n, err = io.Copy(io.Discard, b)
	if !errors.Is(err, ErrOverCap) || !b.Over() || n > contract.MaxUploadBytes {
		t.Fatalf("5 MiB + 1: %d %v over %v", n, err, b.Over())
	}
	if k, err := b.Read(make([]byte, 10)); k != 0 || !errors.Is(err, ErrOverCap) {
		t.Fatalf("a read after the cap: %d %v", k, err)
	}
	broken := errors.New("the client went away")
	b = NewBody(io.MultiReader(bytes.NewReader([]byte("GIF89a")), iotestErr{broken}))
	if _, err := io.Copy(io.Discard, b); !errors.Is(err, broken) || !errors.Is(b.ReadErr(), broken) || b.Over() || b.Size() != 6 {
		t.Fatalf("a failing reader: %v %v", err, b.ReadErr())
	}
}

type iotestErr struct{ err error }

func (r iotestErr) Read([]byte) (int, error) { return 0, r.err }

// TestPendingThenStored: an upload is first pending (who, when, the bytes it
// reserves, unclaimed), then stored with its type, real size and digest;
// only a pending one is stored, and only a stored one exists.
func TestPendingThenStored(t *testing.T) {
	u := NewPending("stg_1", "user-7", contract.MaxUploadBytes, t0)
	want := Upload{ID: "stg_1", UploadedBy: "user-7", Size: contract.MaxUploadBytes, CreatedAt: t0.UnixMilli(), State: StatePending}
	if u != want {
		t.Fatalf("pending: %+v", u)
	}
	if u.Exists() || u.OwnedBy("user-7") {
		t.Fatal("a pending upload exists")
	}
	if err := u.Store(contract.TypeGIF, 42, "ab12"); err != nil {
		t.Fatal(err)
	}
	want.State, want.ContentType, want.Size, want.SHA256 = StateStored, contract.TypeGIF, 42, "ab12"
	if u != want || !u.Exists() || u.ETag() != `"ab12"` {
		t.Fatalf("stored: %+v", u)
	}
	if err := u.Store(contract.TypePNG, 1, "cd"); err == nil || u != want {
		t.Fatalf("stored twice: %v %+v", err, u)
	}
	if got := u.Usage(); got != (Usage{At: time.UnixMilli(t0.UnixMilli()), Size: 42}) {
		t.Fatalf("usage %+v", got)
	}
}

// TestOwnership: for each id, in the order asked (repeats included), whether
// the upload exists (stored: a pending one does not) and whether the user
// uploaded it.
func TestOwnership(t *testing.T) {
	found := []Upload{
		{ID: "mine", UploadedBy: "alice", State: StateStored},
		{ID: "theirs", UploadedBy: "bob", State: StateStored},
		{ID: "streaming", UploadedBy: "alice", State: StatePending},
	}
	got := Ownership([]string{"theirs", "mine", "unknown", "streaming", "mine"}, found, "alice")
	want := []contract.Ownership{
		{StorageID: "theirs", Exists: true},
		{StorageID: "mine", Exists: true, Owned: true},
		{StorageID: "unknown"},
		{StorageID: "streaming"},
		{StorageID: "mine", Exists: true, Owned: true},
	}
	if len(got) != len(want) {
		t.Fatalf("%+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if got := Ownership(nil, found, "alice"); len(got) != 0 {
		t.Fatalf("no ids: %+v", got)
	}
}

// TestClaim: a user claims only their own stored uploads; a claim keeps the
// upload for good (referenced) from its time; claiming again changes
// nothing, the first claim's time stays.
func TestClaim(t *testing.T) {
	cases := []struct {
		name    string
		u       Upload
		user    string
		claimed bool
	}{
		{"own, stored", Upload{UploadedBy: "alice", State: StateStored}, "alice", true},
		{"someone else's", Upload{UploadedBy: "bob", State: StateStored}, "alice", false},
		{"pending", Upload{UploadedBy: "alice", State: StatePending}, "alice", false},
		{"claimed already", Upload{UploadedBy: "alice", State: StateStored, Referenced: true, ReferencedAt: 5}, "alice", false},
	}
	for _, c := range cases {
		u := c.u
		if got := u.Claim(c.user, t0); got != c.claimed {
			t.Errorf("%s: claimed %v", c.name, got)
		}
		want := c.u
		if c.claimed {
			want.Referenced, want.ReferencedAt = true, t0.UnixMilli()
		}
		if u != want {
			t.Errorf("%s: %+v, want %+v", c.name, u, want)
		}
		if u.Claim(c.user, t0.Add(time.Hour)) || u != want {
			t.Errorf("%s: a second claim changed %+v", c.name, u)
		}
	}
}

// TestCheckStorageID: a malformed id, or an id of another kind, is a file
// that does not exist (NOT_FOUND "no file ...").
func TestCheckStorageID(t *testing.T) {
	if err := CheckStorageID(ids.New(contract.IDKind)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "nope", "stg_", ids.New("stores"), ids.New(contract.IDKind) + "0"} {
		wantErr(t, bad, CheckStorageID(bad), apperr.NotFound, `no file "`+bad+`"`, nil)
	}
}
