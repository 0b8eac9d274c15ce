// Package program is what every binary's main shares: one typed configuration read
// from the environment, the logger, the token verifier, telemetry and discovery.
// A service's own binary (distributed mode) is a few lines around RunService.
package program

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"marketplace/libs/auth"
	"marketplace/libs/config"
	"marketplace/libs/discovery"
	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/service"
	"marketplace/libs/serviceauth"
	"marketplace/libs/store"
	"marketplace/libs/telemetry"
	"marketplace/libs/version"
)

// Config is the configuration every program reads.
type Config struct {
	HTTPAddr      string        `env:"HTTP_ADDR" default:"127.0.0.1:8080"`
	AdvertiseAddr string        `env:"ADVERTISE_ADDR"` // host:port other services reach this one at (Consul registration)
	PublicBaseURL string        `env:"PUBLIC_BASE_URL"`
	DataDir       string        `env:"DATA_DIR" default:"./data"`
	MongoURI      string        `env:"MONGODB_URI" secret:"true"`
	DBNamePrefix  string        `env:"DB_NAME_PREFIX"`                 // database name = prefix + service name (shared test servers)
	StartEmpty    []string      `env:"DB_START_EMPTY"`                 // services whose lost database file may start empty on purpose (store.EnvStartEmpty)
	EmbeddedDB    bool          `env:"DB_EMBEDDED"`                    // a service on its own may use a private embedded database file (local multi-process runs only)
	DBMemoryLimit string        `env:"DB_MEMORY_LIMIT" default:"auto"` // the embedded engine's live-heap limit (store.ParseMemoryLimit): a size, N%, auto, off
	ConsulAddr    string        `env:"CONSUL_HTTP_ADDR"`
	ServiceAddrs  []string      `env:"SERVICE_ADDRS"` // static discovery: name=http://host:port,...
	JWKSURL       string        `env:"AUTH_JWKS_URL"`
	Issuer        string        `env:"AUTH_ISSUER"`
	Audience      string        `env:"AUTH_AUDIENCE"`
	DevSecret     string        `env:"AUTH_DEV_SECRET" secret:"true"`
	OTLPEndpoint  string        `env:"OTEL_EXPORTER_OTLP_ENDPOINT"`
	MetricsAddr   string        `env:"METRICS_ADDR"` // a listener of its own for /metrics (see Metrics)
	LogLevel      string        `env:"LOG_LEVEL" default:"info"`
	LogFormat     string        `env:"LOG_FORMAT"` // text or json; unset: text on a terminal, else json
	NoColor       string        `env:"NO_COLOR"`   // set and not empty: no colours in text logs (no-color.org)
	AccessLog     bool          `env:"ACCESS_LOG" default:"true"`
	BodyLimit     int           `env:"HTTP_BODY_LIMIT" default:"6291456"` // 6 MiB: photo uploads of 5 MiB plus headers
	ReadTimeout   time.Duration `env:"HTTP_READ_TIMEOUT" default:"10s"`
	WriteTimeout  time.Duration `env:"HTTP_WRITE_TIMEOUT" default:"10s"`
	IdleTimeout   time.Duration `env:"HTTP_IDLE_TIMEOUT" default:"60s"`

	// Kafka: KAFKA_BROKERS, KAFKA_TLS_*, KAFKA_SASL_* (libs/events).
	events.KafkaSettings

	// A service's credentials for calls between services (libs/serviceauth):
	// its own Ed25519 private key, the public keys of the services, and the
	// services that may call its internal operations.
	ServiceKey      string   `env:"SERVICE_KEY" secret:"true"` // or SERVICE_KEY_FILE (libs/config)
	PublicKeys      []string `env:"SERVICE_PUBLIC_KEYS"`       // service=<base64 public key>,...
	InternalCallers []string `env:"INTERNAL_CALLERS"`

	// The gateway's Ed25519 key pair for the identities it forwards
	// (libs/auth's Issuer): the gateway signs with the private key, the
	// services verify with the public key, so with the development secret
	// only the gateway, which verifies the users' tokens, can mint one.
	GatewayKey       string `env:"AUTH_GATEWAY_KEY" secret:"true"` // the gateway's (or AUTH_GATEWAY_KEY_FILE)
	GatewayPublicKey string `env:"AUTH_GATEWAY_PUBLIC_KEY"`        // a service's
}

// Validate checks the settings that depend on each other.
func (c *Config) Validate() error {
	if c.JWKSURL != "" && c.DevSecret != "" {
		return errors.New("set AUTH_JWKS_URL or AUTH_DEV_SECRET, not both: a development secret must never be accepted next to the identity provider")
	}
	if c.JWKSURL != "" && (c.Issuer == "" || c.Audience == "") {
		return errors.New("with AUTH_JWKS_URL, set AUTH_ISSUER and AUTH_AUDIENCE: otherwise a token the identity provider issued for any other application would be accepted")
	}
	if c.DevSecret != "" && len(c.DevSecret) < 16 {
		return errors.New("AUTH_DEV_SECRET must be at least 16 characters")
	}
	if _, err := c.IdentityIssuer(); err != nil {
		return err
	}
	if _, err := c.gatewayPublicKey(); err != nil {
		return err
	}
	for _, s := range c.ServiceAddrs {
		if name, url, ok := strings.Cut(s, "="); !ok || name == "" || url == "" {
			return fmt.Errorf("SERVICE_ADDRS entry %q must be name=url", s)
		}
	}
	if c.ConsulAddr != "" && c.AdvertiseAddr == "" {
		if host, _, err := net.SplitHostPort(c.HTTPAddr); err != nil || host == "" || net.ParseIP(host).IsUnspecified() {
			return fmt.Errorf("with CONSUL_HTTP_ADDR, set ADVERTISE_ADDR: HTTP_ADDR %q is not an address other services can reach", c.HTTPAddr)
		}
	}
	if _, err := c.Kafka(); err != nil {
		return err
	}
	if _, _, err := store.ParseMemoryLimit(c.DBMemoryLimit, store.MemoryAvailable); err != nil {
		return err
	}
	if c.ServiceKey != "" {
		if _, err := serviceauth.ParsePrivateKey(c.ServiceKey); err != nil {
			return fmt.Errorf("SERVICE_KEY: %w", err)
		}
	}
	if _, err := serviceauth.ParsePublicKeys(c.PublicKeys); err != nil {
		return err
	}
	switch strings.ToLower(c.LogLevel) {
	case "debug", "info", "warn", "error":
	default:
		return fmt.Errorf("LOG_LEVEL %q must be debug, info, warn or error", c.LogLevel)
	}
	switch strings.ToLower(strings.TrimSpace(c.LogFormat)) {
	case "", LogText, LogJSON:
	default:
		return fmt.Errorf("LOG_FORMAT %q must be text or json (unset: text on a terminal, json otherwise)", c.LogFormat)
	}
	return nil
}

// Load reads the configuration.
func Load(getenv func(string) string) (Config, error) {
	var c Config
	for _, name := range []string{legacyInternalToken, legacyInternalToken + config.FileSuffix} {
		if getenv(name) == "" {
			continue
		}
		// Refused rather than ignored: an operator who sets it (or its file,
		// as any secret) expects calls between services to be authenticated
		// by it, and must learn that they are authenticated otherwise now.
		return c, fmt.Errorf("config: %s is no longer read: each service proves its calls with a key of its own. "+
			"Unset it, and give each service SERVICE_KEY (or SERVICE_KEY_FILE), SERVICE_PUBLIC_KEYS and INTERNAL_CALLERS "+
			"(marketplace keygen makes keys; make run and make run-distributed make them for you)", name)
	}
	err := config.Load(getenv, &c)
	return c, err
}

// legacyInternalToken is the shared token every service once proved its calls
// with; per-service keys replaced it.
const legacyInternalToken = "INTERNAL_SERVICE_TOKEN"

// Credentials are the service's credentials for calls between services, from
// SERVICE_KEY (or the file SERVICE_KEY_FILE names), SERVICE_PUBLIC_KEYS and
// INTERNAL_CALLERS.
func (c *Config) Credentials() (serviceauth.Credentials, error) {
	var cr serviceauth.Credentials
	if c.ServiceKey != "" {
		k, err := serviceauth.ParsePrivateKey(c.ServiceKey)
		if err != nil {
			return cr, fmt.Errorf("SERVICE_KEY: %w", err)
		}
		cr.Key = k
	}
	peers, err := serviceauth.ParsePublicKeys(c.PublicKeys)
	if err != nil {
		return cr, err
	}
	cr.Peers, cr.Callers = peers, c.InternalCallers
	return cr, nil
}

// HTTP are the server limits of the configuration.
func (c *Config) HTTP() httpserver.Config {
	h := httpserver.Defaults()
	h.ReadTimeout, h.WriteTimeout, h.IdleTimeout = c.ReadTimeout, c.WriteTimeout, c.IdleTimeout
	h.BodyLimit, h.AccessLog, h.Tracing = c.BodyLimit, c.AccessLog, c.OTLPEndpoint != ""
	return h
}

// Logger writes logs at the configured level to w: JSON lines, or with
// LOG_FORMAT=text (the default when w is a terminal) readable lines, in
// colour on a terminal unless NO_COLOR is set.
func (c *Config) Logger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(c.LogLevel))
	if c.LogFormatOf(w) == LogText {
		return slog.New(newTextHandler(w, lvl, c.NoColor == "" && IsTerminal(w)))
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: lvl}))
}

// AuthOptions are the issuer and audience checks.
func (c *Config) AuthOptions() auth.Options {
	return auth.Options{Issuer: c.Issuer, Audience: c.Audience}
}

// DevelopmentTokens reports whether tokens are verified with the development
// secret (no identity provider's keys): the console then takes sign-in links
// and pasted tokens (web/console's DevSignIn); elsewhere only its OpenID flow.
func (c *Config) DevelopmentTokens() bool { return c.JWKSURL == "" && c.DevSecret != "" }

// IdentityIssuer signs the identities the gateway forwards (AUTH_GATEWAY_KEY);
// nil when it is not set (the users' tokens are forwarded as they came).
func (c *Config) IdentityIssuer() (*auth.Issuer, error) {
	if c.GatewayKey == "" {
		return nil, nil
	}
	k, err := serviceauth.ParsePrivateKey(c.GatewayKey)
	if err != nil {
		return nil, fmt.Errorf("AUTH_GATEWAY_KEY: %w", err)
	}
	return auth.NewIssuer(k), nil
}

func (c *Config) gatewayPublicKey() (ed25519.PublicKey, error) {
	if c.GatewayPublicKey == "" {
		return nil, nil
	}
	k, err := serviceauth.ParsePublicKey(c.GatewayPublicKey)
	if err != nil {
		return nil, fmt.Errorf("AUTH_GATEWAY_PUBLIC_KEY: %w", err)
	}
	return k, nil
}

// Verifier builds the token verifier: the identity provider's JWKS, or the
// development secret, and the gateway's tokens (AUTH_GATEWAY_PUBLIC_KEY: a
// service behind the gateway, which needs neither of the others). None
// configured is an error for a single service; the all-in-one creates a
// development secret before calling this.
func (c *Config) Verifier(ctx context.Context) (auth.Verifier, error) {
	var v auth.Verifier
	var err error
	switch {
	case c.JWKSURL != "":
		v, err = auth.NewJWKS(ctx, c.JWKSURL, c.AuthOptions())
	case c.DevSecret != "":
		v, err = auth.NewHS256([]byte(c.DevSecret), c.AuthOptions())
	}
	if err != nil {
		return nil, err
	}
	pub, err := c.gatewayPublicKey()
	if err != nil {
		return nil, err
	}
	if pub != nil {
		gw, err := auth.NewGatewayVerifier(pub)
		if err != nil {
			return nil, err
		}
		v = auth.Either(gw, v)
	}
	if v == nil {
		return nil, errors.New("no identity provider: set AUTH_JWKS_URL (production), AUTH_DEV_SECRET (development) " +
			"or, for a service behind the gateway, AUTH_GATEWAY_PUBLIC_KEY")
	}
	return auth.Cached(v, 100_000, time.Minute), nil
}

// StaticAddrs parses SERVICE_ADDRS.
func (c *Config) StaticAddrs() map[string]string {
	m := map[string]string{}
	for _, s := range c.ServiceAddrs {
		name, url, _ := strings.Cut(s, "=")
		m[strings.TrimSpace(name)] = strings.TrimRight(strings.TrimSpace(url), "/")
	}
	return m
}

// Discovery builds the resolver (Consul when configured, else static addresses)
// and, with Consul, registers this program as service and returns its deregistration.
func (c *Config) Discovery(ctx context.Context, name string, logger *slog.Logger) (discovery.Resolver, func(context.Context) error, error) {
	noop := func(context.Context) error { return nil }
	if c.ConsulAddr == "" {
		return discovery.NewStatic(c.StaticAddrs()), noop, nil
	}
	cons, err := discovery.NewConsul(c.ConsulAddr, logger)
	if err != nil {
		return nil, noop, err
	}
	adv := c.AdvertiseAddr
	if adv == "" {
		adv = c.HTTPAddr
	}
	host, portS, err := net.SplitHostPort(adv)
	if err != nil {
		return nil, noop, fmt.Errorf("ADVERTISE_ADDR: %w", err)
	}
	port, _ := strconv.Atoi(portS)
	dereg, err := cons.Register(ctx, discovery.Registration{
		Service: name, Address: host, Port: port, HealthURL: fmt.Sprintf("http://%s/readyz", adv),
	})
	if err != nil {
		return nil, noop, err
	}
	return cons, dereg, nil
}

// MemoryLimit is DB_MEMORY_LIMIT for the process's embedded databases, one
// for all of them (they share the heap); nil on MongoDB or when off. With
// soft, the Go runtime's soft memory limit is set a little above it
// (store.RuntimeLimitFactor), unless GOMEMLIMIT is set: processes, not tests
// (a test process runs many systems). It logs what was decided.
func (c *Config) MemoryLimit(getenv func(string) string, logger *slog.Logger, soft bool) (*store.MemoryLimit, error) {
	if c.MongoURI != "" {
		return nil, nil
	}
	n, how, err := store.ParseMemoryLimit(c.DBMemoryLimit, store.MemoryAvailable)
	if err != nil || n == 0 {
		if err == nil {
			logger.Info("embedded database memory limit: "+how, "DB_MEMORY_LIMIT", c.DBMemoryLimit)
		}
		return nil, err
	}
	lim := store.NewMemoryLimit(n)
	lim.Logger = logger
	var set int64
	if soft {
		set = lim.SetRuntimeLimit(getenv)
	}
	logger.Info("embedded database memory limit: "+how+"; writes that add data are refused while the live heap is at or above it",
		"DB_MEMORY_LIMIT", c.DBMemoryLimit, "limit_bytes", n, "runtime_soft_limit_bytes", set)
	return lim, nil
}

// RunService runs one module as its own process (distributed mode).
func RunService(ctx context.Context, m service.Module, getenv func(string) string, stdout io.Writer) error {
	cfg, err := Load(getenv)
	if err != nil {
		return err
	}
	logger := cfg.Logger(stdout).With("program", m.Name)
	logger.Info("starting", append(version.Get().Attrs(), "config", config.Describe(&cfg))...)
	tel, err := telemetry.Setup(ctx, telemetry.Config{ServiceName: m.Name, OTLPEndpoint: cfg.OTLPEndpoint})
	if err != nil {
		return err
	}
	defer tel.Shutdown(context.Background())
	httpCfg := cfg.HTTP()
	httpCfg.Tracing = tel.Tracing
	var stopMetrics func()
	if httpCfg.Metrics, _, stopMetrics, err = cfg.Metrics(ctx, tel, false, logger); err != nil {
		return err
	}
	defer stopMetrics()
	if len(cfg.KafkaBrokers) == 0 {
		return errors.New("KAFKA_BROKERS is required for a service on its own (the all-in-one embeds a broker)")
	}
	brokers, err := cfg.Kafka()
	if err != nil {
		return err
	}
	if cfg.MongoURI == "" {
		if !cfg.EmbeddedDB {
			return errors.New("MONGODB_URI is required for a service on its own: without it each process would open a private embedded database " +
				"file, and two replicas would be two databases. For a local multi-process run on one machine, set DB_EMBEDDED=true")
		}
		logger.Warn("DB_EMBEDDED=true: this process keeps its own embedded database file under DATA_DIR; run one replica only, never in production",
			"file", filepath.Join(cfg.DataDir, cfg.DBNamePrefix+m.Name+".lungo"))
	}
	verifier, err := cfg.Verifier(ctx)
	if err != nil {
		return err
	}
	creds, err := cfg.Credentials()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.HTTPAddr)
	if err != nil {
		return err
	}
	resolver, deregister, err := cfg.Discovery(ctx, m.Name, logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer deregister(context.Background())
	dbo := store.Options{Name: cfg.DBNamePrefix + m.Name, URI: cfg.MongoURI, DataDir: cfg.DataDir, StartEmpty: slices.Contains(cfg.StartEmpty, m.Name), Service: m.Name}
	if dbo.MemoryLimit, err = cfg.MemoryLimit(getenv, logger, true); err != nil {
		return err
	}
	if cfg.MongoURI != "" {
		dbo.Monitor = telemetry.MongoMonitor()
	}
	return service.Run(ctx, service.Options{
		Module: m, Listener: ln, DB: dbo, Brokers: brokers,
		Resolver: resolver, Verifier: verifier, Credentials: creds,
		Logger: logger, HTTP: httpCfg, Getenv: getenv,
	})
}

// Main is the whole body of a program's main: it runs run with the process's
// environment until SIGINT or SIGTERM, and exits non-zero with the error.
func Main(name string, run func(ctx context.Context, getenv func(string) string, stdout io.Writer) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
