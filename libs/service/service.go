// Package service runs one bounded context as a program: its own database, its
// outbox relay, its operation endpoints and probes, with the same code whether the
// service is its own process (distributed mode) or one of many in the all-in-one.
package service

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"marketplace/libs/auth"
	"marketplace/libs/config"
	contractevents "marketplace/libs/contracts/events"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/liveset"
	"marketplace/libs/ops"
	"marketplace/libs/serviceauth"
	"marketplace/libs/store"
)

// Env is what a service is built from. Everything a service touches outside its
// own code comes through here: no globals, no environment reads.
type Env struct {
	Name      string
	Logger    *slog.Logger
	DB        *store.DB
	Outbox    *events.Outbox
	Relay     *events.Relay // Kick it after a transaction that added events
	Publisher events.Publisher
	Brokers   events.Brokers
	Calls     *ops.Client
	// Settings is the module's own typed settings (Module.Settings), loaded
	// from the environment; nil for a module without any.
	Settings any
	// Now is the clock: services read time through it, so tests can move it.
	Now func() time.Time
}

// LiveTopic is the topic the module's committed writes leave on for live
// queries (libs/liveset; liveset/tracking.go).
func (m Module) LiveTopic() string { return liveset.TopicOf(m.Name) }

// Built is a constructed service.
type Built struct {
	Registry   *ops.Registry
	Indexes    []store.Index
	Routes     []ops.Route                       // raw HTTP routes (webhooks, files): mounted here, listed by GET /ops, forwarded by the gateway
	Background []func(ctx context.Context) error // consumers and other loops
	Checks     []httpserver.Check                // extra readiness checks (consumers' health)
}

// Module is a bounded context the programs can run, declared once (in its own
// package) with what it publishes, consumes and calls; deploy/modules lists
// them, and the all-in-one's start order, the embedded broker's topics, the
// gateway's default service list and the API reference come from that list.
type Module struct {
	Name      string
	Build     func(ctx context.Context, env Env) (*Built, error)
	Publishes []string // topics it writes events to
	Consumes  []string // topics it follows
	Calls     []string // modules whose operations it calls
	// Settings, if set, makes the module's typed settings: a pointer to a
	// struct with config tags (env, default, secret), loaded from the
	// environment at start, logged with secrets masked, handed over as
	// Env.Settings.
	Settings func() any
	// Events, if set, are the versions of the event types it publishes
	// (tests); nil: those libs/contracts/events declares.
	Events events.Versions
}

// Options configure one running service.
type Options struct {
	Module    Module
	Listener  net.Listener
	DB        store.Options
	Brokers   events.Brokers
	Publisher events.Publisher // optional; defaults to a Kafka publisher on Brokers
	Resolver  ops.Resolver
	Verifier  auth.Verifier
	// Credentials prove this service's calls to others and verify theirs to
	// it (serviceauth). Without a key a module that declares Calls does not
	// start; without public keys or callers no other service may call its
	// internal operations, which it logs at start.
	Credentials serviceauth.Credentials
	Logger      *slog.Logger
	HTTP        httpserver.Config
	Getenv      func(string) string
	// Configure, if set, adjusts the module's loaded settings (the all-in-one
	// supplies development secrets it keeps in DATA_DIR).
	Configure func(settings any)
	// Now is the services' clock; nil is time.Now.
	Now func() time.Time
	// Ready is closed once the service accepts requests (optional).
	Ready chan<- struct{}
	// RelayFault, when set, is the relay's crash-test fault point (tests only).
	RelayFault func() error
	// OpenDB, if set, opens the database instead of store.Open (the
	// all-in-one opens every service's database at once, ahead of the
	// services, which start one after another).
	OpenDB func(context.Context, store.Options) (*store.DB, error)
}

// Run builds and serves the module until ctx is done, then stops it gracefully.
func Run(ctx context.Context, o Options) (err error) {
	serving := false
	defer func() {
		if !serving {
			o.Listener.Close() // Serve closes it otherwise
		}
	}()
	logger := o.Logger.With("service", o.Module.Name)
	signer, peers, err := credentials(o.Module, o.Credentials)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Module.Name, err)
	}
	if o.DB.Name == "" {
		o.DB.Name = o.Module.Name
	}
	if o.DB.Logger == nil {
		o.DB.Logger = logger
	}
	open := o.OpenDB
	if open == nil {
		open = store.Open
	}
	db, err := open(ctx, o.DB)
	if err != nil {
		return err
	}
	// Reads and writes recorded for live queries (libs/liveset), before
	// anything uses the database.
	live := liveset.Track(db)
	db.Use(live)
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = errors.Join(err, db.Close(cctx))
	}()

	if err := o.Brokers.CheckAtStart(ctx, o.Module.Name, logger); err != nil {
		return fmt.Errorf("%s: %w", o.Module.Name, err)
	}
	pub := o.Publisher
	if pub == nil {
		kp := events.NewKafkaPublisher(o.Brokers, logger)
		defer kp.Close()
		pub = kp
	}
	versions := o.Module.Events
	if versions == nil {
		versions = contractevents.Versions()
	}
	outbox := events.NewOutbox(db, o.Module.Name, versions)
	relay := events.NewRelay(db, pub, logger)
	if o.RelayFault != nil {
		relay.BeforePublish = o.RelayFault
	}
	// Every committed write leaves on the service's live topic, from the
	// outbox, in its transaction (liveset/tracking.go): live queries re-run by it.
	live.SetPublisher(&liveset.Publisher{Publish: outbox.AddWrites, After: relay.Kick})
	getenv := o.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var settings any
	if o.Module.Settings != nil {
		settings = o.Module.Settings()
		if err := config.Load(getenv, settings); err != nil {
			return fmt.Errorf("%s: %w", o.Module.Name, err)
		}
		if o.Configure != nil {
			o.Configure(settings)
		}
		logger.Info("settings", "settings", config.Describe(settings))
	}
	now := o.Now
	if now == nil {
		now = time.Now
	}
	// The start (start-up migrations, the declared indexes) writes even over
	// DB_MEMORY_LIMIT: a start refused would fail again at every restart,
	// while a started service still reads and deletes (store/memlimit.go).
	startCtx := store.AllowOverMemoryLimit(ctx, "the service's start")
	built, err := o.Module.Build(startCtx, Env{
		Name: o.Module.Name, Logger: logger, DB: db, Outbox: outbox, Relay: relay, Publisher: pub,
		Brokers: o.Brokers, Calls: ops.NewClient(o.Resolver, signer, 5*time.Second), Settings: settings, Now: now,
	})
	if err != nil {
		return fmt.Errorf("%s: build: %w", o.Module.Name, err)
	}
	built.Registry.WithUnreachable(store.IsUnreachable)
	if err := built.Registry.Check(); err != nil {
		return fmt.Errorf("%s: %w", o.Module.Name, err)
	}
	if err := built.Registry.CheckRoutes(built.Routes); err != nil {
		return fmt.Errorf("%s: %w", o.Module.Name, err)
	}
	if internal := built.Registry.InternalPaths(); len(internal) > 0 && (peers == nil || len(o.Credentials.Callers) == 0) {
		logger.Warn("no other service can call this service's internal operations: set SERVICE_PUBLIC_KEYS and INTERNAL_CALLERS (the services that call it)",
			"internal_operations", len(internal), "callers", o.Credentials.Callers, "public_keys", len(o.Credentials.Peers))
	}
	idem := ops.NewIdempotency(db, logger) // Idempotency-Key outcomes, in the service's own database
	idem.Owner = instanceName(o.Listener)
	idem.AfterCommit = relay.Kick
	if err := db.EnsureIndexes(startCtx, append(append(built.Indexes, outbox.Indexes()...), idemIndexes(idem)...)...); err != nil {
		return err
	}
	// Keys whose calls were cut off when this process's earlier run died are
	// free at once: nothing of this process is in flight yet.
	if n, err := idem.ReleaseAbandoned(startCtx); err != nil {
		return fmt.Errorf("%s: %w", o.Module.Name, err)
	} else if n > 0 {
		logger.Info("idempotency: freed the keys of calls cut off by the last stop", "keys", n)
	}

	stopObserving, err := observe(db, o.Module.Name)
	if err != nil {
		return fmt.Errorf("%s: metrics: %w", o.Module.Name, err)
	}
	defer stopObserving()

	checks := []httpserver.Check{{Name: "database", Fn: db.Ping}}
	if len(o.Brokers.Addrs) > 0 {
		checks = append(checks, httpserver.Check{Name: "broker", Fn: brokerCheck(o.Brokers, o.Module.Name)})
	}
	checks = append(checks, built.Checks...)
	hc := o.HTTP
	hc.KnownOp = ops.KnownOperations(built.Registry, built.Routes)
	hc.StreamBody = ops.StreamsBody(built.Routes)    // nil unless a route streams its body (media uploads)
	hc.BodyTooLarge = ops.BodyTooLarge(built.Routes) // the webhook's 413 in its own shape
	app := httpserver.New(o.Module.Name, hc, logger, checks)
	(&ops.Server{Registry: built.Registry, Verifier: o.Verifier, Peers: peers, Callers: o.Credentials.Callers, Logger: logger, Idempotency: idem, Routes: built.Routes,
		Topics: ops.Topics{Publishes: o.Module.Publishes, Consumes: o.Module.Consumes, Live: o.Module.LiveTopic()}}).Mount(app)

	bctx, stop := context.WithCancel(ctx)
	defer stop()
	var wg sync.WaitGroup
	loops := append([]func(context.Context) error{relay.Run, idem.Run}, built.Background...)
	for _, loop := range loops {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := loop(bctx); err != nil && !errors.Is(err, context.Canceled) {
				logger.Error("background loop stopped", "err", err)
			}
		}()
	}
	if o.Ready != nil {
		close(o.Ready)
	}
	logger.Info("service listening", "addr", o.Listener.Addr().String())
	serving = true
	err = httpserver.Serve(ctx, app, o.Listener, o.HTTP.ShutdownTimeout)
	stop()
	wg.Wait()
	return err
}

// credentials makes m's signer (nil without a key) and the verifier of its
// callers' assertions (nil without public keys). A module that declares
// calls needs its key: without one every call it makes to an internal
// operation would fail, so it does not start.
func credentials(m Module, c serviceauth.Credentials) (*serviceauth.Signer, *serviceauth.Verifier, error) {
	if err := c.Check(m.Name); err != nil {
		return nil, nil, err
	}
	if c.Key == nil && len(m.Calls) > 0 {
		return nil, nil, fmt.Errorf("it calls %s, and proves its calls with a key of its own: set SERVICE_KEY or SERVICE_KEY_FILE (marketplace keygen %s makes one)",
			strings.Join(m.Calls, ", "), m.Name)
	}
	var signer *serviceauth.Signer
	if c.Key != nil {
		signer = serviceauth.NewSigner(m.Name, c.Key, nil)
	}
	var peers *serviceauth.Verifier
	if len(c.Peers) > 0 {
		peers = serviceauth.NewVerifier(m.Name, c.Peers, nil)
	}
	return signer, peers, nil
}

// brokerCheck proves a broker accepts this service (libs/events Check: its
// TLS and credentials too, and a refusal names the setting).
func brokerCheck(brokers events.Brokers, clientID string) func(context.Context) error {
	return func(ctx context.Context) error { return brokers.Check(ctx, clientID) }
}

// instanceName names this process among the service's replicas, the same
// across its restarts: its host and listening address (a replica restarted
// in place keeps both).
func instanceName(l net.Listener) string {
	host, err := os.Hostname()
	if err != nil {
		host = "unknown-host"
	}
	return host + "/" + l.Addr().String()
}

// idemIndexes are the idempotency records' indexes as the store declares them.
func idemIndexes(idem *ops.Idempotency) []store.Index {
	var out []store.Index
	for _, ix := range idem.Indexes() {
		out = append(out, store.Index(ix))
	}
	return out
}
