package lungo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/mongo"
)

// WriteConflictCode is MongoDB's error code for a write conflict.
const WriteConflictCode = 112

// TransientTransactionError is the error label of an error after which the
// whole transaction may be run again (MongoDB's, which the driver's
// WithTransaction retries on).
const TransientTransactionError = "TransientTransactionError"

// ErrNoChangeStreams is Watch's error on an engine without an oplog
// (Options.NoOplog): the command error a standalone mongod, which has no
// oplog either, gives for a change stream.
var ErrNoChangeStreams = mongo.CommandError{
	Code:    40573,
	Name:    "Location40573",
	Message: "The $changeStream stage is only supported on replica sets",
}

// conflict returns the error of a commit that lost a write conflict: a
// mongo.CommandError as MongoDB returns it (code 112, WriteConflict, labelled
// TransientTransactionError), so that checks written for MongoDB hold.
func conflict(handle Handle, format string, args ...interface{}) error {
	return mongo.CommandError{
		Code:    WriteConflictCode,
		Name:    "WriteConflict",
		Message: fmt.Sprintf("write conflict in %s: %s; please retry your operation or multi-document transaction", handle.String(), fmt.Sprintf(format, args...)),
		Labels:  []string{TransientTransactionError},
	}
}

// IsWriteConflict reports whether err is (or wraps) a write conflict: a
// command error with code 112, from lungo or from a MongoDB server.
func IsWriteConflict(err error) bool {
	var ce mongo.CommandError
	return errors.As(err, &ce) && ce.Code == WriteConflictCode
}

// hasErrorLabel reports whether err or an error it wraps carries the label
// (as the driver's WithTransaction checks it).
func hasErrorLabel(err error, label string) bool {
	if err == nil {
		return false
	}
	if le, ok := err.(interface{ HasErrorLabel(string) bool }); ok && le.HasErrorLabel(label) {
		return true
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		return hasErrorLabel(u.Unwrap(), label)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			if hasErrorLabel(e, label) {
				return true
			}
		}
	}
	return false
}

// retryLimit bounds how long a transaction (WithTransaction) or a single
// write is run again after write conflicts: the driver's bound, 120 s (in
// nanoseconds; tests shorten it).
var retryLimit atomic.Int64

func init() {
	retryLimit.Store(int64(120 * time.Second))
}

// retryOver reports whether retries that started at start are over.
func retryOver(start time.Time) bool {
	return time.Since(start) > time.Duration(retryLimit.Load())
}

// backoff waits before attempt number n+1 (n from 0): a random time up to
// 1 ms × 1.5^n, at most 50 ms, so that writers that conflicted do not meet
// again at once. It returns the context's error if it ends first.
func backoff(ctx context.Context, n int) error {
	limit := float64(time.Millisecond)
	for i := 0; i < n && limit < float64(50*time.Millisecond); i++ {
		limit *= 1.5
	}
	limit = min(limit, float64(50*time.Millisecond))
	timer := time.NewTimer(time.Duration(rand.Int64N(int64(limit)) + 1))
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
