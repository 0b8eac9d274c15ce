package discovery

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/consul/api"
)

// DefaultTTL is how long Consul answers are reused. Short enough that a dead
// instance drops out quickly after its check turns critical, long enough that
// hot request paths do not query Consul on every call.
const DefaultTTL = 5 * time.Second

// Health check timings asked of the Consul agent for every registration.
const (
	checkInterval          = "10s"
	checkTimeout           = "2s"
	deregisterCriticalTime = "1m"
)

// Registration describes one instance of a service.
type Registration struct {
	Service string // logical name other services resolve, e.g. "catalog"
	// ID must be unique per instance on the agent; empty defaults to
	// "<service>-<address>-<port>".
	ID string
	// Address other services dial; empty lets Consul use the node address.
	Address   string
	Port      int
	HealthURL string // polled by the agent over HTTP; 2xx means passing
	Tags      []string
}

// ConsulOption tunes a Consul resolver.
type ConsulOption func(*Consul)

// WithTTL sets how long resolved instances are cached (DefaultTTL otherwise).
// A TTL <= 0 is ignored.
func WithTTL(ttl time.Duration) ConsulOption {
	return func(c *Consul) {
		if ttl > 0 {
			c.ttl = ttl
		}
	}
}

// Consul registers instances with a Consul agent and resolves healthy ones.
// It is safe for concurrent use.
type Consul struct {
	client *api.Client
	logger *slog.Logger
	ttl    time.Duration
	now    func() time.Time // swapped in tests to step over the TTL

	mu    sync.Mutex
	cache map[string]*cached
}

type cached struct {
	urls    []string // sorted so round-robin order is stable across refreshes
	expires time.Time
	next    int
}

var _ Resolver = (*Consul)(nil)

// NewConsul returns a resolver talking to the agent at addr (CONSUL_HTTP_ADDR
// form: "consul:8500" or "http://consul:8500"). No request is made here, so
// services can start before the agent is reachable. A nil logger discards.
func NewConsul(addr string, logger *slog.Logger, opts ...ConsulOption) (*Consul, error) {
	if addr == "" {
		// The api package would silently fall back to localhost or the
		// environment; make the caller say where Consul is.
		return nil, errors.New("discovery: empty consul address")
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	client, err := api.NewClient(&api.Config{Address: addr})
	if err != nil {
		return nil, fmt.Errorf("discovery: consul client for %q: %w", addr, err)
	}
	c := &Consul{
		client: client,
		logger: logger,
		ttl:    DefaultTTL,
		now:    time.Now,
		cache:  make(map[string]*cached),
	}
	for _, opt := range opts {
		opt(c)
	}
	return c, nil
}

// Register registers r with the agent together with an HTTP health check on
// r.HealthURL, and returns a function that deregisters it. The deregister
// function may be called more than once; calls after a success do nothing.
func (c *Consul) Register(ctx context.Context, r Registration) (deregister func(context.Context) error, err error) {
	if r.Service == "" || r.Port <= 0 || r.HealthURL == "" {
		return nil, fmt.Errorf("discovery: registration needs service, port and health URL (got %q, %d, %q)", r.Service, r.Port, r.HealthURL)
	}
	id := r.ID
	if id == "" {
		id = defaultID(r)
	}
	reg := &api.AgentServiceRegistration{
		ID:      id,
		Name:    r.Service,
		Address: r.Address,
		Port:    r.Port,
		Tags:    r.Tags,
		Check: &api.AgentServiceCheck{
			HTTP:                           r.HealthURL,
			Interval:                       checkInterval,
			Timeout:                        checkTimeout,
			DeregisterCriticalServiceAfter: deregisterCriticalTime,
		},
	}
	// ReplaceExistingChecks keeps re-registration with the same ID (a
	// restart) idempotent instead of piling up stale checks.
	opts := api.ServiceRegisterOpts{ReplaceExistingChecks: true}.WithContext(ctx)
	if err := c.client.Agent().ServiceRegisterOpts(reg, opts); err != nil {
		return nil, fmt.Errorf("discovery: register %s (%s): %w", r.Service, id, err)
	}
	c.logger.InfoContext(ctx, "registered with consul",
		"service", r.Service, "id", id, "address", r.Address, "port", r.Port, "health_url", r.HealthURL)

	var (
		mu   sync.Mutex
		done bool
	)
	return func(ctx context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		if done {
			return nil
		}
		q := (&api.QueryOptions{}).WithContext(ctx)
		if err := c.client.Agent().ServiceDeregisterOpts(id, q); err != nil {
			return fmt.Errorf("discovery: deregister %s (%s): %w", r.Service, id, err)
		}
		done = true
		c.logger.InfoContext(ctx, "deregistered from consul", "service", r.Service, "id", id)
		return nil
	}, nil
}

func defaultID(r Registration) string {
	parts := []string{r.Service}
	if r.Address != "" {
		parts = append(parts, r.Address)
	}
	parts = append(parts, strconv.Itoa(r.Port))
	return strings.Join(parts, "-")
}

// Resolve returns the base URL of a passing instance of service, rotating
// round-robin over the instances. Answers are cached for the TTL. If Consul
// cannot be reached but an earlier answer exists, that answer is reused (and
// kept for another TTL) rather than failing every call while Consul is down.
func (c *Consul) Resolve(ctx context.Context, service string) (string, error) {
	c.mu.Lock()
	if e := c.cache[service]; e != nil && c.now().Before(e.expires) {
		defer c.mu.Unlock()
		return e.pick(service)
	}
	c.mu.Unlock()

	// Queried without the lock so one slow lookup does not stall other
	// services; concurrent misses for the same service may both query.
	urls, err := c.lookup(ctx, service)

	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.cache[service]
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("discovery: resolve %q: %w", service, err)
		}
		if e != nil && len(e.urls) > 0 {
			e.expires = c.now().Add(c.ttl)
			c.logger.WarnContext(ctx, "consul lookup failed, using last known instances",
				"service", service, "instances", len(e.urls), "err", err)
			return e.pick(service)
		}
		return "", fmt.Errorf("%w: %q: consul lookup: %w", ErrNoInstance, service, err)
	}
	if e == nil {
		e = &cached{}
		c.cache[service] = e
	}
	e.urls = urls
	e.expires = c.now().Add(c.ttl)
	return e.pick(service)
}

// lookup asks the agent for instances whose checks all pass.
func (c *Consul) lookup(ctx context.Context, service string) ([]string, error) {
	q := (&api.QueryOptions{}).WithContext(ctx)
	entries, _, err := c.client.Health().Service(service, "", true, q)
	if err != nil {
		return nil, err
	}
	urls := make([]string, 0, len(entries))
	for _, se := range entries {
		if se.Service == nil || se.Service.Port <= 0 {
			continue
		}
		host := se.Service.Address
		if host == "" && se.Node != nil {
			// Consul's documented fallback: an empty service address means
			// the node's address.
			host = se.Node.Address
		}
		if host == "" {
			continue
		}
		urls = append(urls, "http://"+net.JoinHostPort(host, strconv.Itoa(se.Service.Port)))
	}
	slices.Sort(urls)
	return slices.Compact(urls), nil
}

// pick must be called with Consul.mu held.
func (e *cached) pick(service string) (string, error) {
	if len(e.urls) == 0 {
		return "", fmt.Errorf("%w: %q has no passing instance", ErrNoInstance, service)
	}
	u := e.urls[e.next%len(e.urls)]
	e.next = (e.next + 1) % len(e.urls)
	return u, nil
}
