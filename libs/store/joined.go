package store

import (
	"context"
	"errors"

	"marketplace/libs/apperr"
)

// Joined runs fn in one transaction that every DB.Tx of d called inside it
// joins: the Tx's function runs in Joined's transaction instead of one of its
// own, so all of fn's writes, and whatever fn writes itself with the context
// it is handed, commit together or not at all. A keyed mutation runs so
// (libs/ops, idempotency.go): its kept answer commits with its effects.
//
// As with Tx, fn may run more than once (a write conflict at commit), so it
// must not have side effects outside the database that a second run would
// repeat. A Tx inside it whose function reports ErrConflict (a compare-and-set
// that missed: the transaction read a state another commit has since
// changed) cannot run again on the same snapshot, as store.Retry would run
// it: the whole of fn starts again in a new transaction, at most
// ContentionAttempts times (then UNAVAILABLE, reason "contention", nothing
// written). fn's error aborts the transaction: nothing fn wrote is kept.
func (d *DB) Joined(ctx context.Context, fn func(ctx context.Context) error) error {
	for range ContentionAttempts {
		err := d.Tx(ctx, func(ctx context.Context) error {
			return fn(context.WithValue(ctx, joinKey{}, d))
		})
		var r *restartError
		if !errors.As(err, &r) {
			return err
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return apperr.New(apperr.Unavailable, "the records this call changes kept changing while it was applied; try again").
		WithDetails(map[string]any{"reason": ReasonContention})
}

// InJoined reports whether ctx is inside d.Joined's function.
func (d *DB) InJoined(ctx context.Context) bool {
	j, _ := ctx.Value(joinKey{}).(*DB)
	return j == d
}

// joinKey marks the context of a DB.Joined function (its value: that DB).
type joinKey struct{}

// restartError makes DB.Joined run its function again in a new transaction.
// It does not unwrap to its cause: a store.Retry around the Tx that returned
// it must not run that Tx again on the same snapshot.
type restartError struct{ cause error }

func (e *restartError) Error() string {
	return "store: the enclosing transaction starts again: " + e.cause.Error()
}

// joined runs a Tx's function inside DB.Joined's transaction: its writes are
// the transaction's; a conflict starts the whole transaction again.
func joined(ctx context.Context, fn func(ctx context.Context) error) error {
	err := fn(ctx)
	if errors.Is(err, ErrConflict) {
		return &restartError{err}
	}
	return err
}
