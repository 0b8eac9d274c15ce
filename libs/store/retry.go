package store

import (
	"context"
	"errors"

	"marketplace/libs/apperr"
)

// ErrConflict is what an attempt returns when a concurrent writer changed what
// it read (a compare-and-set that missed, a duplicate insert of a record that
// appeared meanwhile): Retry runs it again on the new state.
var ErrConflict = errors.New("store: changed concurrently")

// ContentionAttempts is how often Retry runs an attempt before giving up.
const ContentionAttempts = 5

// ReasonContention is the details.reason of the answer when Retry gave up.
const ReasonContention = "contention"

// Retry runs attempt until it returns anything but ErrConflict, at most
// ContentionAttempts times. When every attempt conflicted, the answer is
// UNAVAILABLE (details.reason "contention"): nothing was written, and the
// client may simply try again. what names the record in the message.
func Retry[T any](ctx context.Context, what string, attempt func(ctx context.Context) (T, error)) (T, error) {
	for range ContentionAttempts {
		v, err := attempt(ctx)
		if !errors.Is(err, ErrConflict) {
			return v, err
		}
		if ctx.Err() != nil {
			break
		}
	}
	var zero T
	return zero, apperr.New(apperr.Unavailable, "%s kept changing while this request was applied; try again", what).
		WithDetails(map[string]any{"reason": ReasonContention})
}
