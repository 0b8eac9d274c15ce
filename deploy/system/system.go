// Package system is the all-in-one mode: the gateway and every service in one
// process, each service with its own loopback listener and its own database, on
// engines that need no server (lungo files under DATA_DIR, an embedded Kafka
// broker) and static discovery. Like Mimir's -target=all: one list of modules
// (deploy/modules), one start order, one readiness answer.
package system

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace"

	"marketplace/deploy/modules"
	"marketplace/gateway"
	"marketplace/libs/config"
	"marketplace/libs/discovery"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/program"
	"marketplace/libs/service"
	"marketplace/libs/serviceauth"
	"marketplace/libs/store"
	"marketplace/libs/telemetry"
	"marketplace/libs/version"
	"marketplace/services/payments"
	"marketplace/services/reviews"
)

// Options tailor a run; the zero value (plus Getenv and Stdout) is `make run`.
type Options struct {
	Getenv   func(string) string
	Stdout   io.Writer    // JSON log lines only
	Stderr   io.Writer    // the human hints (how to mint a token, sign a webhook); nil is discarded
	Memory   bool         // keep everything in memory (tests)
	Listener net.Listener // the gateway's listener; default listens on HTTP_ADDR
	OnReady  func(Info)
	// RelayFault is handed to every service's outbox relay (crash tests).
	RelayFault func() error
	// Modules overrides the modules to run (tests of a partial system); nil runs all.
	Modules []service.Module
	// GatewayResolver, when set, wraps the discovery the gateway uses (and only
	// the gateway): tests make a service unreachable to it while it runs.
	GatewayResolver func(ops.Resolver) ops.Resolver
	// ServiceResolver, when set, wraps the discovery the services use to
	// call one another: tests hold a call in transit (a race made
	// deterministic).
	ServiceResolver func(ops.Resolver) ops.Resolver
	// Now, when set, is every service's clock (tests move time); nil is time.Now.
	Now func() time.Time
	// MemoryLimit, when set, is every embedded database's DB_MEMORY_LIMIT
	// instead of the setting's (tests read the heap their own way).
	MemoryLimit *store.MemoryLimit
	// TracerProvider, when set, receives every span of the system, and the
	// HTTP servers make server spans as with an OTLP endpoint (trace tests
	// record them with an in-memory exporter).
	TracerProvider trace.TracerProvider
}

// Info describes a running system.
type Info struct {
	BaseURL   string
	DevSecret string            // empty when an identity provider is configured
	Services  map[string]string // service name -> base URL
	// Brokers are the gateway's Kafka user: it reads every topic a service
	// publishes or consumes and describes the consumers' groups, and writes
	// nothing. Kafka has each program's own user, by name (the services',
	// modules.Gateway): tests write a topic as the service that publishes
	// it, as no other user may. With KAFKA_BROKERS all are the settings' user.
	Brokers events.Brokers
	Kafka   map[string]events.Brokers
	// The processor simulator's base URL and secret key; empty when
	// PROCESSOR_API_URL names a processor.
	ProcessorURL string
	ProcessorKey string
	// MetricsURL is where the process's metrics are served (every service's
	// and the gateway's, one registry): the metrics listener, never the
	// gateway's public port. Empty when they are not served.
	MetricsURL string
	// ServiceKeys are the services' private keys of this run (tests sign
	// calls as a service with them); nobody outside the process has them.
	ServiceKeys map[string]ed25519.PrivateKey
}

// Run starts everything and blocks until ctx is done. Once everything it
// started has closed, it logs how long the system ran.
func Run(ctx context.Context, o Options) error {
	var st runState
	err := run(ctx, o, &st)
	st.stopped(err)
	return err
}

// runState is what Run's last line tells: how long the system served.
type runState struct {
	logger *slog.Logger
	ready  time.Time // zero: it never served
}

// stopped logs the shutdown line of a system that served.
func (st *runState) stopped(err error) {
	if st.logger == nil || st.ready.IsZero() {
		return // a start that failed: the error says it all
	}
	d := time.Since(st.ready)
	if d < time.Minute {
		d = d.Round(100 * time.Millisecond)
	} else {
		d = d.Round(time.Second)
	}
	if err != nil {
		st.logger.Error("marketplace stopped after "+d.String(), "uptime", d.String(), "err", err)
		return
	}
	st.logger.Info("marketplace stopped after "+d.String(), "uptime", d.String())
}

func run(ctx context.Context, o Options, st *runState) error {
	hints := o.Stderr
	if hints == nil {
		hints = io.Discard
	}
	cfg, err := program.Load(o.Getenv)
	if err != nil {
		return err
	}
	var gc gateway.Config
	if err := config.Load(o.Getenv, &gc); err != nil {
		return err
	}
	logger := cfg.Logger(o.Stdout).With("program", "marketplace")
	st.logger = logger
	if !o.Memory {
		if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
			return fmt.Errorf("DATA_DIR: %w", err)
		}
	}
	if cfg.JWKSURL == "" && cfg.DevSecret == "" {
		if cfg.DevSecret, err = secretFile(cfg.DataDir, devSecretFile, o.Memory); err != nil {
			return err
		}
		fmt.Fprintf(hints, "development auth: tokens signed with the secret in %s are accepted; mint one with: make token SUB=<user id> ROLES=admin\n",
			filepath.Join(cfg.DataDir, devSecretFile))
	}
	// Without a webhook secret in the environment the payments service gets the
	// development one kept in DATA_DIR, so `make sign-webhook` works as is.
	var configure func(any)
	webhookSecret, err := config.Lookup(o.Getenv, payments.EnvWebhookSecret)
	if err != nil {
		return err
	}
	if webhookSecret == "" {
		ws, err := secretFile(cfg.DataDir, webhookSecretFile, o.Memory)
		if err != nil {
			return err
		}
		webhookSecret = ws
		configure = func(settings any) {
			if p, ok := settings.(*payments.Settings); ok {
				p.WebhookSecret = ws
			}
		}
		fmt.Fprintf(hints, "development webhooks: signed with the secret in %s; sign a body with: make sign-webhook FILE=<body.json>\n",
			filepath.Join(cfg.DataDir, webhookSecretFile))
	}
	// The gateway's listener before the services: without PUBLIC_BASE_URL its
	// address is the public base URL, which the reviews service builds photo
	// URLs from.
	ln := o.Listener
	if ln == nil {
		if ln, err = listenHTTP(cfg.HTTPAddr); err != nil {
			return err
		}
	}
	serving := false
	defer func() {
		if !serving {
			ln.Close() // Serve closes it otherwise
		}
	}()
	baseURL := cfg.PublicBaseURL
	if baseURL == "" {
		baseURL = "http://" + ln.Addr().String()
	}
	// Review photos are absolute URLs on baseURL; the console lets its pages load them.
	if gc.Console.PublicBaseURL == "" {
		gc.Console.PublicBaseURL = baseURL
	}
	// Sign-in links and pasted tokens only where development tokens are taken.
	gc.Console.DevSignIn = cfg.DevelopmentTokens()
	// Without PROCESSOR_API_URL, payments go to the processor simulator, run
	// here on loopback; it sends its webhooks to this gateway.
	var sim *simulator
	if o.Getenv(payments.EnvAPIURL) == "" {
		if sim, err = startSimulator(ctx, o, cfg.DataDir, webhookSecret, "http://"+loopback(ln.Addr())+"/processor/webhook", logger); err != nil {
			return err
		}
		defer sim.stop()
		fmt.Fprintf(hints, "development payments: the processor simulator answers at %s; pay for an intent with: make pay INTENT=<paymentIntentId> [OUTCOME=failed]\n", sim.url)
	}
	withSecret := configure
	configure = func(settings any) {
		if withSecret != nil {
			withSecret(settings)
		}
		if r, ok := settings.(*reviews.Settings); ok && r.PublicBaseURL == "" {
			r.PublicBaseURL = baseURL
		}
		if p, ok := settings.(*payments.Settings); ok && sim != nil {
			p.APIURL, p.SecretKey = sim.url, sim.key
			if p.PublishableKey == "" {
				p.PublishableKey = sim.publishableKey
			}
		}
	}
	logger.Info("starting all-in-one", append(version.Get().Attrs(), "config", config.Describe(&cfg))...)
	verifier, err := cfg.Verifier(ctx)
	if err != nil {
		return err
	}
	tel, err := telemetry.Setup(ctx, telemetry.Config{ServiceName: "marketplace", OTLPEndpoint: cfg.OTLPEndpoint, TracerProvider: o.TracerProvider})
	if err != nil {
		return err
	}
	defer tel.Shutdown(context.Background())
	// One process, one registry: the services' metrics (labelled service=...)
	// and the gateway's are served together on the metrics listener; the
	// services' loopback ports do not serve them.
	httpCfg := cfg.HTTP()
	httpCfg.Tracing = tel.Tracing
	// One access line a call: the gateway's (method, path, operation,
	// status, duration). The services' lines of the same call, at debug.
	serviceHTTP := httpCfg
	serviceHTTP.AccessLogLevel = slog.LevelDebug
	_, metricsAddr, stopMetrics, err := cfg.Metrics(ctx, tel, true, logger)
	if err != nil {
		return err
	}
	defer stopMetrics()

	run := o.Modules
	if run == nil {
		run = modules.All
	}
	run, err = modules.StartOrder(run)
	if err != nil {
		return err
	}
	brokers, err := cfg.Kafka()
	if err != nil {
		return err
	}
	// Each program's Kafka user: with KAFKA_BROKERS, the one of the
	// settings for all; the embedded broker makes one per service and the
	// gateway for this run, each allowed only its own topics and groups
	// (modules.KafkaACLs), and a superuser for its own set-up that nobody
	// gets: no process on the machine can read the events or publish one,
	// and no service can publish on another's topic.
	kafkaOf := func(string) events.Brokers { return brokers }
	if len(brokers.Addrs) == 0 {
		if err := cfg.CheckEmbedded(); err != nil {
			return err
		}
		users := modules.KafkaUsers(withModules(modules.All, run))
		bo := events.BrokerOptions{Topics: modules.Topics(withModules(modules.All, run)),
			Users: []events.Credentials{events.NewUser("broker-admin")}, ACLUsers: users}
		if !o.Memory {
			bo.DataDir = filepath.Join(cfg.DataDir, "kafka")
		}
		b, err := events.StartBrokerWith(bo)
		if err != nil {
			return err
		}
		defer b.Close()
		own := map[string]events.Brokers{}
		for _, u := range users {
			own[u.Username] = b.BrokersAs(u.Credentials)
		}
		kafkaOf = func(name string) events.Brokers { return own[name] }
	}

	memLimit := o.MemoryLimit // one for every service: they share the heap
	if memLimit == nil {
		if memLimit, err = cfg.MemoryLimit(o.Getenv, logger, !o.Memory); err != nil {
			return err
		}
	}
	resolver := discovery.NewStatic(nil)
	var sres ops.Resolver = resolver
	if o.ServiceResolver != nil {
		sres = o.ServiceResolver(resolver)
	}
	info := Info{DevSecret: cfg.DevSecret, Services: map[string]string{}, Brokers: kafkaOf(modules.Gateway), Kafka: map[string]events.Brokers{}}
	for _, m := range withModules(modules.All, run) {
		info.Kafka[m.Name] = kafkaOf(m.Name)
	}
	info.Kafka[modules.Gateway] = kafkaOf(modules.Gateway)
	if metricsAddr != "" {
		info.MetricsURL = "http://" + metricsAddr + telemetry.MetricsPath
	}
	if sim != nil {
		info.ProcessorURL, info.ProcessorKey = sim.url, sim.key
	}
	if cfg.JWKSURL != "" {
		info.DevSecret = ""
	}
	// A key pair per service, new every run: each service signs its calls
	// with its own key, and accepts internal calls only from the modules
	// that declare calls to it.
	names := make([]string, len(run))
	for i, m := range run {
		names[i] = m.Name
	}
	serviceKeys, publicKeys, err := serviceauth.Pairs(names)
	if err != nil {
		return err
	}
	info.ServiceKeys = serviceKeys
	sctx, stopServices := context.WithCancel(context.WithoutCancel(ctx))
	// The services start one after another, each once the one before is
	// ready (the order of run), but their databases are opened all at once
	// from here: a restart reads every file at the same time, on every core,
	// instead of one file after another (docs/bench.md, row g8). A database
	// no service took (a start that failed first) is closed at the end.
	dbOptions := func(m service.Module) store.Options {
		dbo := store.Options{Name: cfg.DBNamePrefix + m.Name, URI: cfg.MongoURI, Memory: o.Memory && cfg.MongoURI == "",
			StartEmpty: slices.Contains(cfg.StartEmpty, m.Name), Service: m.Name, MemoryLimit: memLimit, Logger: logger.With("service", m.Name)}
		if !dbo.Memory && dbo.URI == "" {
			dbo.DataDir = filepath.Join(cfg.DataDir, "db")
		}
		return dbo
	}
	opens := make(map[string]*openingDB, len(run))
	for _, m := range run {
		opens[m.Name] = openAhead(sctx, dbOptions(m))
	}
	defer func() {
		for _, p := range opens {
			p.closeIfNotTaken()
		}
	}()
	var wg sync.WaitGroup
	errc := make(chan error, len(run))
	defer func() { stopServices(); wg.Wait() }()
	for _, m := range run {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		url := "http://" + ln.Addr().String()
		resolver.Set(m.Name, url)
		info.Services[m.Name] = url
		dbo := dbOptions(m)
		creds := serviceauth.Credentials{Key: serviceKeys[m.Name], Peers: publicKeys, Callers: modules.Callers(run, m.Name)}
		ready := make(chan struct{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := service.Run(sctx, service.Options{
				Module: m, Listener: ln, DB: dbo, Brokers: kafkaOf(m.Name), Resolver: sres, Verifier: verifier,
				Credentials: creds, Logger: logger, HTTP: serviceHTTP, Getenv: o.Getenv, Configure: configure,
				Ready: ready, RelayFault: o.RelayFault, Now: o.Now, OpenDB: opens[m.Name].take,
			})
			if err != nil {
				errc <- fmt.Errorf("%s: %w", m.Name, err)
			}
		}()
		select {
		case <-ready:
		case err := <-errc:
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}

	gc.Services = names
	gc.Convex.Brokers = kafkaOf(modules.Gateway) // live queries follow the services' events
	var gres ops.Resolver = resolver
	if o.GatewayResolver != nil {
		gres = o.GatewayResolver(resolver)
	}
	gw := gateway.New(gc, gres, verifier, logger)
	if err := gw.Refresh(ctx); err != nil {
		return fmt.Errorf("gateway routes: %w", err)
	}
	go gw.Run(sctx)
	info.BaseURL = baseURL
	app := gw.App(httpCfg, logger, serviceChecks(info.Services)...)
	gerr := make(chan error, 1)
	// A service that dies takes the process down (to be restarted whole) rather
	// than leaving a gateway that answers 503 for it forever.
	gctx, stopGateway := context.WithCancel(ctx)
	defer stopGateway()
	serving = true
	go func() { gerr <- httpserver.Serve(gctx, app, ln, httpCfg.ShutdownTimeout) }()
	// The ready line is a log line on stdout (JSON unless LOG_FORMAT=text or
	// a terminal) whose message holds "ready" and the URL, with the
	// summary's addresses; people get the summary on stderr too.
	sum := newSummary(info, cfg, o.Memory, o.Stdout)
	readyAttrs := []any{"url", info.BaseURL}
	if cfg.LogFormatOf(o.Stdout) == program.LogJSON { // in text, the summary follows on the same terminal
		readyAttrs = append(readyAttrs, sum.attrs()...)
	}
	logger.Info("marketplace ready at "+info.BaseURL, readyAttrs...)
	sum.print(hints)
	printConsoleLink(hints, info, cfg.AuthOptions())
	st.ready = time.Now()
	stopping := context.AfterFunc(ctx, func() {
		logger.Info("marketplace stopping: finishing the calls in flight, then closing the services, the broker and the databases")
	})
	defer stopping()
	if o.OnReady != nil {
		o.OnReady(info)
	}
	select {
	case err = <-gerr:
	case err = <-errc:
		logger.Error("a service stopped; stopping everything", "err", err)
		stopGateway()
		<-gerr
	}
	stopServices()
	wg.Wait()
	close(errc)
	for e := range errc {
		err = errors.Join(err, e)
	}
	return err
}

// withModules is ms and those of more that ms lacks (a test's own module).
func withModules(ms, more []service.Module) []service.Module {
	out := slices.Clone(ms)
	for _, m := range more {
		if !slices.ContainsFunc(out, func(o service.Module) bool { return o.Name == m.Name }) {
			out = append(out, m)
		}
	}
	return out
}

// Development secrets the all-in-one keeps in DATA_DIR when the environment sets
// none, so `make token` and `make sign-webhook` work against `make run` as is.
const (
	devSecretFile     = "dev-secret"
	webhookSecretFile = "webhook-secret"
)

// secretFile reads a development secret from DATA_DIR, creating it on first run
// (in memory mode: a fresh one each run).
func secretFile(dir, name string, memory bool) (string, error) {
	if memory {
		return randomHex(32), nil
	}
	p := filepath.Join(dir, name)
	if b, err := os.ReadFile(p); err == nil && len(strings.TrimSpace(string(b))) >= 16 {
		return strings.TrimSpace(string(b)), nil
	}
	s := randomHex(32)
	if err := os.WriteFile(p, []byte(s+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// readSecret is the environment's value of env, else the all-in-one's file.
func readSecret(getenv func(string) string, env, file string) (string, error) {
	if v, err := config.Lookup(getenv, env); err != nil || v != "" {
		return v, err
	}
	cfg, err := program.Load(getenv)
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(cfg.DataDir, file))
	if err != nil {
		return "", fmt.Errorf("no %s yet: start the system once with `make run` (or set %s): %w", file, env, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// DevSecret is the secret `make token` signs with.
func DevSecret(getenv func(string) string) (string, error) {
	return readSecret(getenv, "AUTH_DEV_SECRET", devSecretFile)
}

// WebhookSecret is the secret `make sign-webhook` signs with.
func WebhookSecret(getenv func(string) string) (string, error) {
	return readSecret(getenv, "PROCESSOR_WEBHOOK_SECRET", webhookSecretFile)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// listenHTTP opens the all-in-one's public listener. An address another
// program holds (8080 often is) is refused saying how to pick another port,
// as a newcomer's first `make run` may meet it.
func listenHTTP(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("%w: another program listens on %s (HTTP_ADDR); stop it, or run on another port, e.g. HTTP_ADDR=127.0.0.1:8090 make run (and MARKETPLACE_URL=http://127.0.0.1:8090 for marketplace call)", err, addr)
	}
	return ln, err
}

// openingDB is a database being opened ahead of its service.
type openingDB struct {
	done  chan struct{}
	db    *store.DB
	err   error
	taken atomic.Bool
}

func openAhead(ctx context.Context, opts store.Options) *openingDB {
	p := &openingDB{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.db, p.err = store.Open(ctx, opts)
	}()
	return p
}

// take is the service's open: it waits for the database opened ahead.
func (p *openingDB) take(ctx context.Context, _ store.Options) (*store.DB, error) {
	p.taken.Store(true)
	select {
	case <-p.done:
		return p.db, p.err
	case <-ctx.Done():
		// The open goes on; closeIfNotTaken cannot know the service gave
		// up, so the database is closed here once it is open.
		go func() {
			<-p.done
			if p.db != nil {
				p.db.Close(context.Background())
			}
		}()
		return nil, ctx.Err()
	}
}

// closeIfNotTaken closes a database no service took, once its open ended.
func (p *openingDB) closeIfNotTaken() {
	if p.taken.Load() {
		return
	}
	<-p.done
	if p.db != nil {
		p.db.Close(context.Background())
	}
}
