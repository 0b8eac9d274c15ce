package store

import (
	"context"
	"errors"

	"marketplace/libs/apperr"
)

// Joined runs fn in one transaction that every DB.Tx of d called inside it
// joins (DB.Tx does the same: Joined names the intent where a caller's
// writes and those of the calls it makes must commit together). A keyed
// mutation runs so (libs/ops, idempotency.go): its kept answer commits with
// its effects.
//
// fn may run more than once (a write conflict at commit), so it must not
// have side effects outside the database that a second run would repeat. A
// Tx inside it whose function reports ErrConflict (a compare-and-set that
// missed: the transaction read a state another commit has since changed)
// cannot run again on the same snapshot, as store.Retry would run it: the
// whole of fn starts again in a new transaction, at most ContentionAttempts
// times (then UNAVAILABLE, reason "contention", nothing written). fn's error
// aborts the transaction: nothing fn wrote is kept.
func (d *DB) Joined(ctx context.Context, fn func(ctx context.Context) error) error {
	return d.Tx(ctx, fn)
}

// contention is the answer once a transaction started again
// ContentionAttempts times.
func contention() error {
	return apperr.New(apperr.Unavailable, "the records this call changes kept changing while it was applied; try again").
		WithDetails(map[string]any{"reason": ReasonContention})
}

// InJoined reports whether ctx is inside a transaction of d (DB.Tx's or
// DB.Joined's function).
func (d *DB) InJoined(ctx context.Context) bool {
	j, _ := ctx.Value(joinKey{}).(*DB)
	return j == d
}

// joinKey marks the context of a transaction's function (its value: the DB).
type joinKey struct{}

// restartError makes DB.Joined run its function again in a new transaction.
// It does not unwrap to its cause: a store.Retry around the Tx that returned
// it must not run that Tx again on the same snapshot.
type restartError struct{ cause error }

func (e *restartError) Error() string {
	return "store: the enclosing transaction starts again: " + e.cause.Error()
}

// joined runs a Tx's function inside an enclosing transaction of the same DB:
// its writes are that transaction's; a conflict starts it again.
func joined(ctx context.Context, fn func(ctx context.Context) error) error {
	err := fn(ctx)
	if errors.Is(err, ErrConflict) {
		return &restartError{err}
	}
	return err
}
