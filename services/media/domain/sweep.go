package domain

import "time"

// PendingGrace is how long an upload may stay pending: an upload streams for
// at most the server's read timeout, so an older one was left by a crash (its
// reservation and any bytes written are dropped).
const PendingGrace = time.Hour

// Abandonment is one reason the sweeper deletes an upload
// (docs/adr/0051-media-claims-and-sweeper.md): nothing claimed it within the
// grace after its upload, or (Pending) a crash left it pending for longer
// than PendingGrace. Before is the creation time, epoch ms, an upload must be
// older than.
type Abandonment struct {
	Pending bool
	Before  int64
}

// Abandonments are the sweeps at now, in the order they run: the uploads
// nothing claimed within grace (MEDIA_UNREFERENCED_GRACE), then the pending
// ones older than PendingGrace.
func Abandonments(now time.Time, grace time.Duration) []Abandonment {
	return []Abandonment{
		{Before: now.Add(-grace).UnixMilli()},
		{Pending: true, Before: now.Add(-PendingGrace).UnixMilli()},
	}
}

// Abandons says whether u is deleted for a: a claimed (referenced) upload is
// never deleted as unclaimed; a stored one never as pending.
func (a Abandonment) Abandons(u *Upload) bool {
	if u.CreatedAt >= a.Before {
		return false
	}
	if a.Pending {
		return u.State == StatePending
	}
	return !u.Referenced
}

// LegacyFile is a files document of the GridFS bucket "images" the service
// kept every upload in before the blob store (its metadata written by that
// code).
type LegacyFile struct {
	ID       string `bson:"_id"`
	Length   int64  `bson:"length"`
	Metadata struct {
		UploadedBy  string `bson:"uploadedBy"`
		ContentType string `bson:"contentType"`
		SHA256      string `bson:"sha256"`
		UploadedAt  int64  `bson:"uploadedAt"`
	} `bson:"metadata"`
}

// Adopted is the upload a legacy file becomes: stored, and referenced since
// its upload (it was uploaded before claims existed and a review may show
// it, so it is never swept).
func (f *LegacyFile) Adopted() Upload {
	return Upload{ID: f.ID, UploadedBy: f.Metadata.UploadedBy, ContentType: f.Metadata.ContentType, Size: f.Length,
		SHA256: f.Metadata.SHA256, CreatedAt: f.Metadata.UploadedAt, State: StateStored, Referenced: true, ReferencedAt: f.Metadata.UploadedAt}
}
