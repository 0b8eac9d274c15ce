package store

import (
	"errors"

	"go.mongodb.org/mongo-driver/mongo"
	"go.mongodb.org/mongo-driver/x/mongo/driver/topology"
)

// IsUnreachable reports that the database did not answer (no server could
// be selected, a network error, a timeout, a client disconnected), as opposed
// to answering with an error: a failure that goes away by itself, which the
// operations endpoint answers UNAVAILABLE (ops.Registry.Invoke) so that
// callers wait and try again.
func IsUnreachable(err error) bool {
	if err == nil {
		return false
	}
	var sel topology.ServerSelectionError
	var selp *topology.ServerSelectionError
	return errors.As(err, &sel) || errors.As(err, &selp) || mongo.IsNetworkError(err) || mongo.IsTimeout(err) ||
		errors.Is(err, mongo.ErrClientDisconnected) || errors.Is(err, topology.ErrServerSelectionTimeout)
}
