package store

import (
	"errors"
	"fmt"

	"github.com/256dpi/lungo"
	"github.com/256dpi/lungo/boltstore"

	"marketplace/libs/apperr"
)

// ErrCorrupt marks a database file that cannot be read back as it was
// written (the file store's), or one emptied that held data (checkNotLost).
var ErrCorrupt = boltstore.ErrCorrupt

// engineStore is the file store as the engine calls it, its refusals in the
// project's terms: a document the file cannot keep (boltstore's
// UnstorableError: nested deeper than boltstore.MaxDepth, a null byte in a
// field name) is the request's fault, INVALID_ARGUMENT, as MongoDB's refusal
// is, with the same message.
type engineStore struct{ f *boltstore.Store }

func (s engineStore) Load() (*lungo.Catalog, error) { return s.f.Load() }
func (s engineStore) Store(c *lungo.Catalog) error  { return refusal(s.f.Store(c)) }
func (s engineStore) StoreChanges(base, c *lungo.Catalog, changes []lungo.Change) error {
	return refusal(s.f.StoreChanges(base, c, changes))
}

var _ lungo.ChangeStore = engineStore{}

func refusal(err error) error {
	var u *boltstore.UnstorableError
	if !errors.As(err, &u) {
		return err
	}
	return fmt.Errorf("store: %s: document %s: %w", u.Namespace, u.Document, apperr.New(apperr.InvalidArgument, "%s", u.Reason))
}
