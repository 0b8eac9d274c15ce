package discovery

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Static resolves from an in-memory table. It is safe for concurrent use and
// Set may be called after start, because in all-in-one mode services bind
// random loopback ports and only know their address once listening.
type Static struct {
	mu    sync.RWMutex
	addrs map[string]string
}

var _ Resolver = (*Static)(nil)

// NewStatic returns a Static seeded with a copy of m (service -> base URL).
// A nil m is fine.
func NewStatic(m map[string]string) *Static {
	s := &Static{addrs: make(map[string]string, len(m))}
	for service, baseURL := range m {
		s.Set(service, baseURL)
	}
	return s
}

// Set points service at baseURL; trailing slashes are dropped. An empty
// baseURL removes the service, so later Resolve calls fail with ErrNoInstance.
func (s *Static) Set(service, baseURL string) {
	baseURL = strings.TrimRight(baseURL, "/")
	s.mu.Lock()
	defer s.mu.Unlock()
	if baseURL == "" {
		delete(s.addrs, service)
		return
	}
	s.addrs[service] = baseURL
}

// Resolve returns the base URL set for service, or an error wrapping
// ErrNoInstance if none is set.
func (s *Static) Resolve(_ context.Context, service string) (string, error) {
	s.mu.RLock()
	baseURL, ok := s.addrs[service]
	s.mu.RUnlock()
	if !ok {
		return "", fmt.Errorf("%w: %q is not registered", ErrNoInstance, service)
	}
	return baseURL, nil
}
