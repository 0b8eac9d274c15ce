package media

import (
	"errors"
	"fmt"
	"time"

	"marketplace/services/media/storage"
)

// Settings are the media service's own, from the environment (README,
// Configuration; docs/adr/0049-media-upload-limits.md: the numbers and why).
type Settings struct {
	// BlobURL names where the bytes go: file:///dir, s3://bucket?region=...
	// (any S3-compatible bucket: endpoint=..., use_path_style=true), gridfs
	// (GridFS of the service's MongoDB database) or mem:// (tests). Empty:
	// GridFS with a MongoDB server; with the embedded engine, a directory
	// next to its file (DATA_DIR/db/media.blobs in the all-in-one).
	BlobURL string `env:"MEDIA_BLOB_URL"`
	// UploadBurst uploads a user may make at once; one more every
	// UploadInterval after that.
	UploadBurst    int           `env:"MEDIA_UPLOAD_BURST" default:"5"`
	UploadInterval time.Duration `env:"MEDIA_UPLOAD_INTERVAL" default:"20s"`
	// DailyUploadBytes bounds the bytes one user stores in any 24 hours
	// (counted from the stored uploads, so it holds across restarts).
	DailyUploadBytes int64 `env:"MEDIA_DAILY_UPLOAD_BYTES" default:"104857600"`
	// NewAccountDailyUploadBytes is the daily quota of an account without an
	// order or a review yet (accounts.go); above DailyUploadBytes, that one.
	NewAccountDailyUploadBytes int64 `env:"MEDIA_NEW_ACCOUNT_DAILY_UPLOAD_BYTES" default:"10485760"`
	// MaxStoredBytes bounds the bytes of every upload kept (the disk or
	// bucket the service may fill); 0 is no bound.
	MaxStoredBytes int64 `env:"MEDIA_MAX_STORED_BYTES" default:"10737418240"`
	// UnreferencedGrace is how long an upload nothing refers to (no review
	// claimed it) is kept before the sweeper deletes it; SweepInterval is how
	// often the sweeper looks.
	UnreferencedGrace time.Duration `env:"MEDIA_UNREFERENCED_GRACE" default:"24h"`
	SweepInterval     time.Duration `env:"MEDIA_SWEEP_INTERVAL" default:"10m"`
}

// Validate refuses numbers that would turn a limit off by accident.
func (s *Settings) Validate() error {
	var errs []error
	if s.UploadBurst < 1 {
		errs = append(errs, fmt.Errorf("MEDIA_UPLOAD_BURST must be at least 1, not %d", s.UploadBurst))
	}
	if s.UploadInterval < 0 {
		errs = append(errs, errors.New("MEDIA_UPLOAD_INTERVAL must not be negative"))
	}
	if s.DailyUploadBytes < 1 {
		errs = append(errs, fmt.Errorf("MEDIA_DAILY_UPLOAD_BYTES must be positive, not %d", s.DailyUploadBytes))
	}
	if s.NewAccountDailyUploadBytes < 1 {
		errs = append(errs, fmt.Errorf("MEDIA_NEW_ACCOUNT_DAILY_UPLOAD_BYTES must be positive, not %d", s.NewAccountDailyUploadBytes))
	}
	if s.MaxStoredBytes < 0 {
		errs = append(errs, fmt.Errorf("MEDIA_MAX_STORED_BYTES must not be negative (0 is no bound), not %d", s.MaxStoredBytes))
	}
	if s.UnreferencedGrace < time.Minute {
		errs = append(errs, fmt.Errorf("MEDIA_UNREFERENCED_GRACE must be at least 1m (a client uploads before it refers), not %s", s.UnreferencedGrace))
	}
	if s.SweepInterval <= 0 {
		errs = append(errs, errors.New("MEDIA_SWEEP_INTERVAL must be positive"))
	}
	switch storage.BlobURLScheme(s.BlobURL) {
	case "", "file", "s3", "mem", storage.BlobGridFS:
	default:
		errs = append(errs, fmt.Errorf("MEDIA_BLOB_URL %q: use file:///dir, s3://bucket?region=..., gridfs or mem://", s.BlobURL))
	}
	return errors.Join(errs...)
}

// DefaultSettings are the settings with every default (tests, a module built
// without settings).
func DefaultSettings() Settings {
	return Settings{UploadBurst: 5, UploadInterval: 20 * time.Second, DailyUploadBytes: 100 << 20, NewAccountDailyUploadBytes: 10 << 20,
		MaxStoredBytes: 10 << 30, UnreferencedGrace: 24 * time.Hour, SweepInterval: 10 * time.Minute}
}
