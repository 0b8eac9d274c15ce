// Package discovery lets marketplace services find each other by name.
//
// Static serves the all-in-one binary and tests; Consul serves production.
// Both return a base URL such as "http://127.0.0.1:41234" without a trailing
// slash, so callers can append request paths directly.
package discovery

import (
	"context"
	"errors"
)

// Resolver turns a service name into a base URL like "http://127.0.0.1:41234"
// (no trailing slash).
type Resolver interface {
	Resolve(ctx context.Context, service string) (string, error)
}

// ErrNoInstance is wrapped by every Resolve error meaning "nothing healthy to
// call right now", so callers can map it to UNAVAILABLE with errors.Is.
var ErrNoInstance = errors.New("discovery: no healthy instance")
