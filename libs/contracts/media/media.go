// Package media is the media context's contract: the storage routes clients
// use (POST /api/storage/upload, GET /api/storage/<storageId>) and the
// operation other services call to check uploads before referring to them (a
// review may attach only its author's own photos), with a typed client.
package media

import (
	"context"
	"strings"

	"marketplace/libs/ops"
)

// Service is the media module's name (discovery, calls).
const Service = "media"

// IDKind is the record kind of storage ids ("stg_...", random: ids.NewUnguessable).
const IDKind = "_storage"

// Routes of the media service, served through the gateway.
const (
	RouteUpload   = "/api/storage/upload"     // POST, authenticated, body = the image
	RouteDownload = "/api/storage/:storageId" // GET, public
	DownloadPath  = "/api/storage/"           // + storageId
)

// Limits and accepted types of an upload.
const (
	MaxUploadBytes = 5 * 1024 * 1024 // 5 MiB
)

// Content types stored (sniffed from the bytes, never taken from the client).
const (
	TypePNG  = "image/png"
	TypeJPEG = "image/jpeg"
	TypeWebP = "image/webp"
	TypeGIF  = "image/gif"
)

// Uploaded is the answer of an upload.
type Uploaded struct {
	StorageID string `json:"storageId"`
}

// URL is the absolute URL a stored file is served at (photoUrls), given the
// public base URL (PUBLIC_BASE_URL).
func URL(publicBaseURL, storageID string) string {
	return strings.TrimSuffix(publicBaseURL, "/") + DownloadPath + storageID
}

// OpCheckOwnership (internal query): for each storage id, whether the file
// exists and whether the given user uploaded it.
const OpCheckOwnership = "media.files.checkOwnership"

// OpClaim (internal mutation): as OpCheckOwnership, and the uploads the
// given user made among the ids are marked referenced: a service claims the
// photos it attaches (a review), and the media service keeps them for good.
// An upload nothing claims is deleted after the media service's grace period
// (MEDIA_UNREFERENCED_GRACE, 24 h by default). The arguments and the answer
// are OpCheckOwnership's.
const OpClaim = "media.files.claim"

// MaxOwnershipIDs bounds the ids of one OpCheckOwnership call.
const MaxOwnershipIDs = 10

// CheckOwnershipArgs are the arguments of OpCheckOwnership.
type CheckOwnershipArgs struct {
	StorageIDs []string `json:"storageIds" op:"required,min=1,max=10,id=_storage"`
	UserID     string   `json:"userId" op:"required,nonblank,max=200"`
}

// Ownership is one entry of OpCheckOwnership's answer, in the order asked.
type Ownership struct {
	StorageID string `json:"storageId"`
	Exists    bool   `json:"exists"`
	// Owned: the file exists and userId uploaded it.
	Owned bool `json:"owned"`
}

// Client calls the media service.
type Client struct{ calls *ops.Client }

// NewClient makes a client over calls.
func NewClient(calls *ops.Client) *Client { return &Client{calls: calls} }

// CheckOwnership asks, for each of storageIDs (at most MaxOwnershipIDs, each a
// well-formed storage id), whether it exists and userID uploaded it.
func (c *Client) CheckOwnership(ctx context.Context, userID string, storageIDs []string) ([]Ownership, error) {
	var out []Ownership
	err := c.calls.Query(ctx, Service, OpCheckOwnership, CheckOwnershipArgs{StorageIDs: storageIDs, UserID: userID}, &out)
	return out, err
}

// Claim checks storageIDs as CheckOwnership does and marks the ones userID
// uploaded as referenced (kept past the grace period). Claim what is
// attached, once it is checked: the answer is the same as CheckOwnership's.
func (c *Client) Claim(ctx context.Context, userID string, storageIDs []string) ([]Ownership, error) {
	var out []Ownership
	err := c.calls.Mutation(ctx, Service, OpClaim, CheckOwnershipArgs{StorageIDs: storageIDs, UserID: userID}, &out)
	return out, err
}

// NotOwned lists the ids of an answer that do not exist or belong to someone else.
func NotOwned(list []Ownership) []string {
	var out []string
	for _, o := range list {
		if !o.Owned {
			out = append(out, o.StorageID)
		}
	}
	return out
}
