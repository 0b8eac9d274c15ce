package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"strings"
	"time"

	"marketplace/libs/apperr"
	contract "marketplace/libs/contracts/media"
	"marketplace/libs/ids"
)

// An upload is first pending (its bytes reserved against the user's daily
// quota and the total cap while they stream in), then stored (its real size
// and digest known). Only a stored upload exists for clients.
const (
	StatePending = "pending"
	StateStored  = "stored"
)

// Upload is one upload's metadata (collection uploads, one document per
// storage id: its _id and its blob key). The bytes are in the blob store.
type Upload struct {
	ID           string `bson:"_id"`
	UploadedBy   string `bson:"uploadedBy"` // the token's sub
	ContentType  string `bson:"contentType,omitempty"`
	Size         int64  `bson:"size"`
	SHA256       string `bson:"sha256,omitempty"` // hex; the ETag
	CreatedAt    int64  `bson:"createdAt"`        // epoch ms
	State        string `bson:"state"`
	Referenced   bool   `bson:"referenced"` // claimed by a service: kept for good
	ReferencedAt int64  `bson:"referencedAt,omitempty"`
}

// NewPending is the pending upload id of user at now, reserving reserved
// bytes (Reservation) until its real size is known.
func NewPending(id, user string, reserved int64, now time.Time) Upload {
	return Upload{ID: id, UploadedBy: user, Size: reserved, CreatedAt: now.UnixMilli(), State: StatePending}
}

// Store turns a pending upload into a stored one of contentType, size bytes
// and the hex SHA-256 digest; an upload that is not pending is refused.
func (u *Upload) Store(contentType string, size int64, sha256Hex string) error {
	if u.State != StatePending {
		return errors.New("media: only a pending upload is stored")
	}
	u.State, u.ContentType, u.Size, u.SHA256 = StateStored, contentType, size, sha256Hex
	return nil
}

// Exists says whether clients see the upload: it is stored (a pending one is
// still streaming in, or was left by a crash).
func (u *Upload) Exists() bool { return u.State == StateStored }

// OwnedBy says whether the upload exists and user uploaded it.
func (u *Upload) OwnedBy(user string) bool { return u.Exists() && u.UploadedBy == user }

// Claim marks the upload referenced at now when user owns it and nothing
// claimed it yet (kept for good: the sweeper deletes only unreferenced
// uploads); it answers whether it changed. Claiming again changes nothing:
// the first claim's time stays.
func (u *Upload) Claim(user string, now time.Time) bool {
	if !u.OwnedBy(user) || u.Referenced {
		return false
	}
	u.Referenced, u.ReferencedAt = true, now.UnixMilli()
	return true
}

// ETag is the download's strong ETag: the quoted SHA-256 of the bytes.
func (u *Upload) ETag() string { return `"` + u.SHA256 + `"` }

// Usage is the upload counted against its user's daily quota.
func (u *Upload) Usage() Usage { return Usage{At: time.UnixMilli(u.CreatedAt), Size: u.Size} }

// Ownership answers, for each of storageIDs in the order asked, whether the
// upload exists (stored) and whether user uploaded it, from the uploads
// found among them.
func Ownership(storageIDs []string, found []Upload, user string) []contract.Ownership {
	byID := make(map[string]*Upload, len(found))
	for i := range found {
		if found[i].Exists() {
			byID[found[i].ID] = &found[i]
		}
	}
	out := make([]contract.Ownership, len(storageIDs))
	for i, id := range storageIDs {
		u, exists := byID[id]
		out[i] = contract.Ownership{StorageID: id, Exists: exists, Owned: exists && u.OwnedBy(user)}
	}
	return out
}

// CheckStorageID refuses an id that is not a storage id as a file that does
// not exist (NOT_FOUND).
func CheckStorageID(id string) error {
	if !ids.Valid(contract.IDKind, id) {
		return NotFound(id)
	}
	return nil
}

// NotFound is the answer for a storage id with no stored upload.
func NotFound(id string) error {
	return apperr.New(apperr.NotFound, "no file %q", id)
}

// What an upload's request must be before a byte is read: an image type, no
// encoding, a length of 1 byte to 5 MiB (contract section 5).

func invalidHeader(header, format string, args ...any) error {
	return apperr.New(apperr.InvalidArgument, format, args...).WithDetails(map[string]any{"header": header})
}

// CheckContentType refuses a Content-Type that is not image/* (any case,
// spaces around it ignored).
func CheckContentType(raw string) error {
	if !strings.HasPrefix(strings.ToLower(strings.TrimSpace(raw)), "image/") {
		return invalidHeader("Content-Type",
			"Content-Type must be an image type (image/png, image/jpeg, image/webp or image/gif), not %q", raw)
	}
	return nil
}

// CheckContentEncoding refuses a compressed body (whose size and bytes the
// service could not check): only none or identity.
func CheckContentEncoding(raw string) error {
	if enc := strings.TrimSpace(raw); enc != "" && !strings.EqualFold(enc, "identity") {
		return invalidHeader("Content-Encoding", "send the image's bytes without a Content-Encoding (got %q)", enc)
	}
	return nil
}

// CheckDeclaredLength decides what the declared length can before a byte is
// read: over 5 MiB is too large, 0 is empty; a negative one (none declared:
// chunked) is counted as it is read (Body).
func CheckDeclaredLength(n int64) error {
	switch {
	case n > contract.MaxUploadBytes:
		return ErrTooLarge(n)
	case n == 0:
		return ErrEmpty()
	}
	return nil
}

// Reservation is what an upload of declared length reserves against the
// quota and the cap: the declared length, or the largest upload when none is
// declared.
func Reservation(declared int64) int64 {
	if declared > 0 {
		return declared
	}
	return contract.MaxUploadBytes
}

// ErrTooLarge refuses an image of n bytes (0: counted past the cap as it
// streamed in).
func ErrTooLarge(n int64) error {
	size := "larger than 5 MiB"
	if n > 0 {
		size = fmt.Sprintf("%d bytes", n)
	}
	return apperr.New(apperr.InvalidArgument, "the image is %s; at most 5 MiB (%d bytes) are accepted", size, contract.MaxUploadBytes).
		WithDetails(map[string]any{"maxBytes": contract.MaxUploadBytes})
}

// ErrEmpty refuses an empty body.
func ErrEmpty() error {
	return apperr.New(apperr.InvalidArgument, "the body is empty: send the image's bytes")
}

// ErrNotImage refuses a body whose signature is not an accepted image's (Sniff).
func ErrNotImage() error {
	return apperr.New(apperr.InvalidArgument, "the body is not a PNG, JPEG, WebP or GIF image")
}

// ErrOverCap is the read error of a Body past 5 MiB.
var ErrOverCap = errors.New("media: the body is larger than the cap")

// Body reads an upload's bytes, counting and hashing them; the read of the
// byte past 5 MiB fails (ErrOverCap), and so does every read after it.
type Body struct {
	r       io.Reader
	max, n  int64
	sum     hash.Hash
	over    bool
	readErr error
}

// NewBody reads r, at most 5 MiB of it.
func NewBody(r io.Reader) *Body {
	return &Body{r: r, max: contract.MaxUploadBytes, sum: sha256.New()}
}

func (b *Body) Read(p []byte) (int, error) {
	if b.over {
		return 0, ErrOverCap
	}
	if room := b.max + 1 - b.n; int64(len(p)) > room {
		p = p[:room]
	}
	k, err := b.r.Read(p)
	b.n += int64(k)
	if b.n > b.max {
		b.over = true
		return 0, ErrOverCap
	}
	b.sum.Write(p[:k])
	if err != nil && !errors.Is(err, io.EOF) {
		b.readErr = err
	}
	return k, err
}

// Size is the bytes read so far.
func (b *Body) Size() int64 { return b.n }

// Over says the body went past 5 MiB.
func (b *Body) Over() bool { return b.over }

// ReadErr is the reader's own failure (the client went away), if any.
func (b *Body) ReadErr() error { return b.readErr }

// SHA256 is the hex digest of the bytes read.
func (b *Body) SHA256() string { return hex.EncodeToString(b.sum.Sum(nil)) }
