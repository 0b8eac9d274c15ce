// Package launch runs the distributed mode on one machine: a standalone broker
// (`marketplace broker`), every service of the module list and the gateway,
// each a process of its own binary, as `make run-distributed` does. Services
// find each other by static addresses (or Consul when CONSUL_HTTP_ADDR is
// set), each keeps its own database (MONGODB_URI, or with DB_EMBEDDED=true an
// embedded file per service), and the launcher merges their logs, each line
// prefixed with its program's name.
//
// A program that exits before it is ready at start stops everything and the
// launcher fails with its last lines. One that dies later is restarted (after
// 1 s, doubling while it keeps dying soon after start, up to 30 s); five
// restarts in a row that never get ready stop everything. SIGINT or SIGTERM
// stops the gateway first, then the services, then the broker, each with
// SIGTERM (SIGKILL after 20 s).
package launch

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"marketplace/deploy/modules"
	"marketplace/libs/config"
	"marketplace/libs/events"
	"marketplace/libs/program"
	"marketplace/libs/serviceauth"
	"marketplace/services/payments"
)

// BrokerReady starts the line `marketplace broker` prints on stderr once it
// accepts clients and every topic exists.
const BrokerReady = "broker ready at "

// Names of the processes that are not services.
const (
	Broker    = "broker"
	Gateway   = "gateway"
	Processor = "processor" // the payment processor simulator (`marketplace processor`)
	self      = "launch"
)

// The processor simulator of the distributed mode.
const (
	// ProcessorDir is its directory under DATA_DIR: its intents and the URL
	// file `marketplace pay` reads (the all-in-one's is DATA_DIR/processor-simulator).
	ProcessorDir = "distributed/processor-simulator"
	// EnvProcessorWebhookURL is where `marketplace processor` sends its
	// webhooks: the gateway's POST /processor/webhook.
	EnvProcessorWebhookURL = "PROCESSOR_WEBHOOK_URL"
	// SimulatorPublishableKey is its publishable key when
	// PROCESSOR_PUBLISHABLE_KEY is not set (a publishable key is no secret),
	// as in the all-in-one.
	SimulatorPublishableKey = "pk_test_simulator"
	// processorKeyFile keeps its secret key in DATA_DIR when
	// PROCESSOR_SECRET_KEY is not set: the all-in-one's file, so `make pay`
	// finds the key of either mode.
	processorKeyFile = "processor-secret-key"
)

// Options tailor a run; Getenv, Environ and Stdout come from the process.
type Options struct {
	// BinDir holds the binaries: marketplace (the broker), gateway and one per
	// service, named after it (`go build -o DIR ./deploy/cmd/... ./services/*/cmd/*`).
	BinDir string
	// BinFrom takes a program's binary from another directory than BinDir:
	// program name (a service, "gateway" or "marketplace") -> directory. Runs
	// that mix versions (make test-mixed-versions) use it.
	BinFrom map[string]string
	// Getenv reads the launcher's settings (program.Config: HTTP_ADDR is the
	// gateway's address, DATA_DIR, MONGODB_URI, DB_EMBEDDED, KAFKA_BROKERS,
	// CONSUL_HTTP_ADDR, AUTH_*).
	Getenv func(string) string
	// Environ is every program's base environment (os.Environ()); the
	// launcher's settings for each program replace what it names.
	Environ []string
	Stdout  io.Writer
	// BrokerPort is the broker's port; 0 picks a free one.
	BrokerPort int
	// OnReady is called once the gateway is ready.
	OnReady func(*System)
	// RestartDelay is the first wait before restarting a program that died;
	// 0 is 1 s.
	RestartDelay time.Duration
	// StartTimeout bounds how long a program may take to get ready; 0 is 60 s.
	StartTimeout time.Duration
	// StopTimeout is how long a program may take to stop before it is
	// killed; 0 is 20 s.
	StopTimeout time.Duration
}

// System describes a running distributed system.
type System struct {
	BaseURL       string            // the gateway
	Services      map[string]string // service name -> its own base URL
	Brokers       []string
	DevSecret     string // empty when an identity provider is configured
	WebhookSecret string // what the payments service checks processor signatures with
	ProcessorURL  string // the processor simulator; empty when PROCESSOR_API_URL names a processor
	ProcessorKey  string // its secret key (what the payments service calls with)
	procs         map[string]*proc

	// KafkaUsers are the SASL users of the broker of its own, by program
	// (the services' names, Gateway), each allowed only its topics and
	// groups (modules.KafkaACLs); none with KAFKA_BROKERS.
	KafkaUsers map[string]events.Credentials
}

// PID is the process id of a program's current run (0 if it never ran).
func (s *System) PID(name string) int {
	p := s.procs[name]
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.pid
}

// Runs is how many times a program was started (restarts included).
func (s *System) Runs(name string) int {
	p := s.procs[name]
	if p == nil {
		return 0
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.runs
}

// Signal sends sig to a program's current run (tests kill a service with it).
func (s *System) Signal(name string, sig os.Signal) error {
	p := s.procs[name]
	if p == nil {
		return fmt.Errorf("launch: no program %q", name)
	}
	if !p.signal(sig) {
		return fmt.Errorf("launch: %s is not running", name)
	}
	return nil
}

// Development secrets kept in DATA_DIR when the environment sets none: the
// files the all-in-one keeps (deploy/system), so `make token` and `make
// sign-webhook` work against either mode.
const (
	devSecretFile     = "dev-secret"
	webhookSecretFile = "webhook-secret"
)

// Run starts every program and blocks until ctx is done (then stops them) or a
// program fails at start (then stops the others and returns why).
func Run(ctx context.Context, o Options) error {
	cfg, err := program.Load(o.Getenv)
	if err != nil {
		return err
	}
	// The programs write to the launcher's pipes, never to a terminal: when
	// the launcher's own output is one, they log text as `make run` does.
	if cfg.LogFormat == "" && program.IsTerminal(o.Stdout) {
		o.Environ = append(slices.Clone(o.Environ), "LOG_FORMAT="+program.LogText)
	}
	if o.RestartDelay <= 0 {
		o.RestartDelay = time.Second
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = 60 * time.Second
	}
	if o.StopTimeout <= 0 {
		o.StopTimeout = 20 * time.Second
	}
	order, err := modules.StartOrder(modules.All)
	if err != nil {
		return err
	}
	width := len(self)
	for _, n := range append(modules.Names(), Broker, Gateway, Processor) {
		width = max(width, len(n))
	}
	out := &output{w: o.Stdout, width: width}
	logf := func(format string, args ...any) { out.line(self, fmt.Sprintf(format, args...)) }

	// Binaries first: a missing one is a build step not taken.
	programs := append(modules.Names(), Gateway, "marketplace")
	for n := range o.BinFrom {
		if !slices.Contains(programs, n) {
			return fmt.Errorf("launch: a binary from elsewhere for %q, which is no program (programs: %s)", n, strings.Join(programs, ", "))
		}
	}
	bin := func(name string) (string, error) {
		dir := o.BinDir
		if d, ok := o.BinFrom[name]; ok {
			dir = d
		}
		p, err := filepath.Abs(filepath.Join(dir, name))
		if err != nil {
			return "", err
		}
		if st, err := os.Stat(p); err != nil || st.IsDir() {
			return "", fmt.Errorf("no binary %s: build the programs first (make run-distributed does: go build -o %s ./deploy/cmd/marketplace ./deploy/cmd/gateway ./services/*/cmd/*)", p, dir)
		}
		return p, nil
	}
	binaries := map[string]string{}
	for _, n := range programs {
		if binaries[n], err = bin(n); err != nil {
			return err
		}
	}

	// Databases: MongoDB when configured, embedded files only when asked for.
	if cfg.MongoURI == "" && !cfg.EmbeddedDB {
		return errors.New("set MONGODB_URI (each service gets its own database on that server), or DB_EMBEDDED=true for an embedded database file per service under DATA_DIR/distributed/db (one machine only)")
	}
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("DATA_DIR: %w", err)
	}
	dbDir := filepath.Join(dataDir, "distributed", "db")
	switch {
	case cfg.MongoURI != "":
		if cfg.EmbeddedDB {
			logf("MONGODB_URI is set: DB_EMBEDDED is ignored, every service uses its own database on that server")
		}
		logf("databases: one per service on MONGODB_URI (names %s<service>)", cfg.DBNamePrefix)
	default:
		logf("databases: DB_EMBEDDED=true, one embedded file per service under %s (one machine only; set MONGODB_URI for MongoDB)", dbDir)
	}

	// Secrets every program shares.
	devSecret := cfg.DevSecret
	if cfg.JWKSURL == "" && devSecret == "" {
		if devSecret, err = secretFile(dataDir, devSecretFile); err != nil {
			return err
		}
		logf("development auth: tokens signed with the secret in %s are accepted (make token SUB=<user id> ROLES=admin)", filepath.Join(dataDir, devSecretFile))
	}
	webhookSecret, err := config.Lookup(o.Getenv, payments.EnvWebhookSecret)
	if err != nil {
		return err
	}
	if webhookSecret == "" {
		if webhookSecret, err = secretFile(dataDir, webhookSecretFile); err != nil {
			return err
		}
		logf("development webhooks: signed with the secret in %s (make sign-webhook FILE=<body.json>)", filepath.Join(dataDir, webhookSecretFile))
	}
	// A key pair per service, new every run: each service signs its calls
	// with its own key and accepts internal calls only from the modules that
	// declare calls to it. The programs that are no service get none.
	serviceKeys, publicKeys, err := serviceauth.Pairs(modules.Names())
	if err != nil {
		return err
	}
	if cfg.ServiceKey != "" || len(cfg.PublicKeys) > 0 || len(cfg.InternalCallers) > 0 {
		logf("SERVICE_KEY, SERVICE_KEY_FILE, SERVICE_PUBLIC_KEYS and INTERNAL_CALLERS are ignored: every service gets a key of its own for this run")
	}

	// Addresses: the gateway's from HTTP_ADDR, free loopback ports for the
	// services and the broker, kept across restarts.
	gwHost, gwPort, err := net.SplitHostPort(cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("HTTP_ADDR: %w", err)
	}
	// One call for every port, so that none is handed out twice: the
	// services', the gateway's (used if HTTP_ADDR asks for any port) and the broker's.
	ports, err := freePorts(len(order) + 3)
	if err != nil {
		return err
	}
	if gwPort == "0" {
		gwPort = strconv.Itoa(ports[len(order)])
	}
	gwAddr := net.JoinHostPort(gwHost, gwPort)
	probeHost := gwHost
	if ip := net.ParseIP(gwHost); gwHost == "" || (ip != nil && ip.IsUnspecified()) {
		probeHost = "127.0.0.1"
	}
	sys := &System{
		BaseURL: "http://" + net.JoinHostPort(probeHost, gwPort), Services: map[string]string{},
		WebhookSecret: webhookSecret, procs: map[string]*proc{},
	}
	if cfg.JWKSURL == "" {
		sys.DevSecret = devSecret
	}
	publicURL := cfg.PublicBaseURL
	if publicURL == "" {
		publicURL = sys.BaseURL
	}
	serviceAddr := map[string]string{}
	var staticAddrs []string
	for i, m := range order {
		serviceAddr[m.Name] = net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[i]))
		sys.Services[m.Name] = "http://" + serviceAddr[m.Name]
		staticAddrs = append(staticAddrs, m.Name+"="+sys.Services[m.Name])
	}

	var brokerProc *proc
	brokers := cfg.KafkaBrokers
	// kafkaEnv is what each service and the gateway (only they) authenticate
	// with: with a broker of its own, a user each, made for this run, that
	// the broker allows only its topics and groups; with KAFKA_BROKERS they
	// read the KAFKA_ settings of the environment.
	kafkaEnv := func(string) map[string]string { return nil }
	if len(brokers) == 0 {
		if err := cfg.CheckEmbedded(); err != nil {
			return err
		}
		users := modules.KafkaUsers(modules.All)
		sys.KafkaUsers = map[string]events.Credentials{}
		creds := make([]events.Credentials, 0, len(users))
		for _, u := range users {
			sys.KafkaUsers[u.Username] = u.Credentials
			creds = append(creds, u.Credentials)
		}
		kafkaEnv = func(name string) map[string]string { return kafkaUserEnv(sys.KafkaUsers[name]) }
		// The broker learns them from a file only it and the launcher can
		// read, kept while the run lasts (a restarted broker reads it
		// again), never from its command line.
		usersFile := filepath.Join(dataDir, "distributed", BrokerUsersFile)
		if err := WriteBrokerUsers(usersFile, creds); err != nil {
			return err
		}
		defer os.Remove(usersFile)
		port := o.BrokerPort
		if port == 0 {
			port = ports[len(order)+1]
		}
		brokers = []string{net.JoinHostPort("127.0.0.1", strconv.Itoa(port))}
		kafkaDir := filepath.Join(dataDir, "distributed", "kafka")
		brokerProc = newProc(out, Broker, binaries["marketplace"],
			[]string{"broker", "-port", strconv.Itoa(port), "-data", kafkaDir, "-users", usersFile}, brokerEnv(o.Environ))
		brokerProc.readyLine = BrokerReady
		sys.procs[Broker] = brokerProc
	} else {
		logf("KAFKA_BROKERS is set: no broker of its own, the services use %s", strings.Join(brokers, ","))
	}
	sys.Brokers = brokers

	// The processor: without PROCESSOR_API_URL the payments service pays
	// through the processor simulator, a program of its own started before it,
	// which sends its webhooks to the gateway.
	var processorProc *proc
	processorEnv := map[string]string{}
	if u := o.Getenv(payments.EnvAPIURL); u == "" {
		if err := refuseLiveKeys(o.Getenv); err != nil {
			return err
		}
		key, err := config.Lookup(o.Getenv, payments.EnvSecretKey)
		if err != nil {
			return err
		}
		if key == "" {
			k, err := secretFile(dataDir, processorKeyFile)
			if err != nil {
				return err
			}
			key = "sk_test_" + k
		}
		pk := o.Getenv(payments.EnvPublishableKey)
		if pk == "" {
			pk = SimulatorPublishableKey
		}
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(ports[len(order)+2]))
		sys.ProcessorURL, sys.ProcessorKey = "http://"+addr, key
		processorEnv = map[string]string{payments.EnvAPIURL: sys.ProcessorURL, payments.EnvSecretKey: key, payments.EnvPublishableKey: pk}
		processorProc = newProc(out, Processor, binaries["marketplace"],
			[]string{"processor", "-data", filepath.Join(dataDir, ProcessorDir)}, withEnv(simulatorEnv(o.Environ), map[string]string{
				"HTTP_ADDR": addr, payments.EnvSecretKey: key, payments.EnvPublishableKey: pk, payments.EnvWebhookSecret: webhookSecret,
				EnvProcessorWebhookURL: sys.BaseURL + "/processor/webhook",
			}))
		processorProc.readyURL = sys.ProcessorURL + "/readyz"
		sys.procs[Processor] = processorProc
		logf("development payments: the processor simulator at %s; pay for an intent with: make pay INTENT=<paymentIntentId> [OUTCOME=failed]", sys.ProcessorURL)
	} else {
		logf("%s is set: no processor simulator, the payments service pays through %s", payments.EnvAPIURL, u)
	}

	// Discovery: static addresses, or Consul (each program registers itself).
	discovery := map[string]string{"SERVICE_ADDRS": strings.Join(staticAddrs, ",")}
	if cfg.ConsulAddr != "" {
		discovery = map[string]string{"SERVICE_ADDRS": ""}
		logf("discovery: Consul at %s (every program registers itself)", cfg.ConsulAddr)
	} else {
		logf("discovery: static addresses (SERVICE_ADDRS)")
	}
	// Users' tokens: only the gateway verifies them (with the development
	// secret, which mints any token, or the identity provider's keys), and
	// it forwards each call with a token of its own, signed with a key made
	// for this run; the services get only its public key, so none of them
	// can mint a token.
	gatewayAuth, serviceAuth, err := identityEnv(cfg.JWKSURL == "", devSecret)
	if err != nil {
		return err
	}

	publicKeyList := serviceauth.FormatPublicKeys(publicKeys)
	var services []*proc
	for _, m := range order {
		set := map[string]string{
			"HTTP_ADDR": serviceAddr[m.Name], "DATA_DIR": dbDir, "KAFKA_BROKERS": strings.Join(brokers, ","), "PUBLIC_BASE_URL": publicURL,
			// Its own key, every service's public key, and who may call it.
			"SERVICE_KEY": serviceauth.EncodePrivateKey(serviceKeys[m.Name]), "SERVICE_KEY_FILE": "", "SERVICE_PUBLIC_KEYS": publicKeyList,
			"INTERNAL_CALLERS": strings.Join(modules.Callers(modules.All, m.Name), ","), payments.EnvWebhookSecret: "", // the webhook secret is the payments service's alone
			// A service serves /metrics on its own port; one METRICS_ADDR
			// for all would be taken by the first (the gateway keeps it).
			"METRICS_ADDR": "", "ADVERTISE_ADDR": "",
		}
		if m.Name == payments.Module.Name {
			set[payments.EnvWebhookSecret] = webhookSecret
			merge(set, processorEnv)
		} else {
			set[payments.EnvSecretKey] = "" // the payments service's alone
		}
		if cfg.MongoURI == "" {
			set["DB_EMBEDDED"] = "true"
		}
		if cfg.ConsulAddr != "" {
			set["ADVERTISE_ADDR"] = serviceAddr[m.Name]
		}
		merge(set, discovery, serviceAuth, kafkaEnv(m.Name))
		p := newProc(out, m.Name, binaries[m.Name], nil, withEnv(o.Environ, set))
		p.readyURL = sys.Services[m.Name] + "/readyz"
		if brokerProc != nil {
			p.deps = append(p.deps, brokerProc)
		}
		if m.Name == payments.Module.Name && processorProc != nil {
			p.deps = append(p.deps, processorProc)
		}
		services = append(services, p)
		sys.procs[m.Name] = p
	}
	// Each service starts once the services it calls are ready.
	for i, m := range order {
		for _, c := range m.Calls {
			if d := sys.procs[c]; d != nil {
				services[i].deps = append(services[i].deps, d)
			}
		}
	}
	// The broker too: the gateway follows the services' topics (read only, no
	// consumer group) to push live queries to Convex clients.
	gwSet := map[string]string{"HTTP_ADDR": gwAddr, "ADVERTISE_ADDR": "", "KAFKA_BROKERS": strings.Join(brokers, ",")}
	if cfg.ConsulAddr != "" {
		gwSet["ADVERTISE_ADDR"] = net.JoinHostPort(probeHost, gwPort)
	}
	merge(gwSet, discovery, gatewayAuth, kafkaEnv(modules.Gateway))
	// The gateway gets no database, service key or processor secret.
	gw := newProc(out, Gateway, binaries[Gateway], nil, withEnv(o.Environ, gwSet,
		slices.Concat(credentialVars, []string{"MONGODB_URI", "DB_EMBEDDED", payments.EnvWebhookSecret, payments.EnvPublishableKey, payments.EnvSecretKey})...))
	gw.readyURL = sys.BaseURL + "/readyz"
	gw.deps = services
	sys.procs[Gateway] = gw

	all := slices.Clone(services)
	if processorProc != nil {
		all = append([]*proc{processorProc}, all...)
	}
	if brokerProc != nil {
		all = append([]*proc{brokerProc}, all...)
	}
	all = append(all, gw)
	for _, p := range all {
		addr := serviceAddr[p.name]
		switch p {
		case brokerProc:
			addr = brokers[0]
		case gw:
			addr = gwAddr
		case processorProc:
			addr = strings.TrimPrefix(sys.ProcessorURL, "http://")
		}
		logf("%-*s %s  (%s)", width, p.name, addr, p.path)
	}

	// Run them.
	sctx, stopSupervising := context.WithCancel(context.WithoutCancel(ctx))
	fatalc := make(chan error, len(all))
	sup := &supervisor{
		log: logf, startTimeout: o.StartTimeout, restartDelay: o.RestartDelay, stableAfter: 30 * time.Second,
		maxFailures: 5, stopTimeout: o.StopTimeout,
		fatal: func(err error) {
			select {
			case fatalc <- err:
			default:
			}
		},
	}
	for _, p := range all {
		go p.supervise(sctx, sup)
	}
	stopAll := func() error {
		stopSupervising()
		groups := [][]*proc{{gw}, services}
		if processorProc != nil {
			groups = append(groups, []*proc{processorProc})
		}
		if brokerProc != nil {
			groups = append(groups, []*proc{brokerProc})
		}
		var errs []error
		for _, g := range groups {
			var wg sync.WaitGroup
			for _, p := range g {
				wg.Add(1)
				go func() { defer wg.Done(); p.stop(sup) }()
			}
			wg.Wait()
			for _, p := range g {
				errs = append(errs, p.stopErr)
			}
		}
		return errors.Join(errs...)
	}

	start := time.Now()
	select {
	case <-gw.firstReady:
	case err := <-fatalc:
		logf("stopping everything: %v", err)
		return errors.Join(err, stopAll())
	case <-ctx.Done():
		logf("interrupted before the system was ready; stopping everything")
		return stopAll()
	}
	logf("marketplace ready at %s (distributed: %d services, the gateway and %s as separate processes, started in %s)",
		sys.BaseURL, len(services), brokerText(brokerProc, brokers), time.Since(start).Round(10*time.Millisecond))
	if o.OnReady != nil {
		o.OnReady(sys)
	}
	var fatal error
	select {
	case <-ctx.Done():
		logf("stopping: the gateway, then the services, then the processor simulator and the broker")
	case fatal = <-fatalc:
		logf("stopping everything: %v", fatal)
	}
	err = errors.Join(fatal, stopAll())
	if err == nil {
		logf("stopped")
	}
	return err
}

func brokerText(p *proc, brokers []string) string {
	if p == nil {
		return "Kafka at " + strings.Join(brokers, ",")
	}
	return "the broker at " + brokers[0]
}

// kafkaVars are the settings of a Kafka client: the processor simulator gets
// none of them.
var kafkaVars = []string{"KAFKA_BROKERS", "KAFKA_TLS_ENABLED", "KAFKA_TLS_CA_FILE", "KAFKA_TLS_CERT_FILE", "KAFKA_TLS_KEY_FILE", "KAFKA_TLS_SERVER_NAME",
	"KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME", "KAFKA_SASL_USERNAME_FILE", "KAFKA_SASL_PASSWORD", "KAFKA_SASL_PASSWORD_FILE"}

// kafkaUserEnv are the settings that authenticate as user; the other KAFKA_
// settings of the environment are unset (the broker of its own speaks no
// TLS, and a _FILE beside its value would be refused).
func kafkaUserEnv(user events.Credentials) map[string]string {
	env := map[string]string{}
	for _, k := range kafkaVars[1:] {
		env[k] = ""
	}
	env["KAFKA_SASL_MECHANISM"], env["KAFKA_SASL_USERNAME"], env["KAFKA_SASL_PASSWORD"] = user.Mechanism, user.Username, user.Password
	return env
}

// brokerVars are the variables of the environment the broker of its own
// gets: the system's basics, the Go runtime's and the log's settings. The
// launcher's environment holds the other programs' secrets (keys, database
// URIs, the processor's and the webhook's secrets); the broker needs none
// of them, and its users come from a file.
var brokerVars = []string{"PATH", "HOME", "USER", "TMPDIR", "TZ", "LANG", "LC_ALL",
	"GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT", "GOTRACEBACK", "GOCOVERDIR", "LOG_LEVEL", "LOG_FORMAT"}

// brokerEnv is the broker's environment: brokerVars of base, nothing else.
func brokerEnv(base []string) []string {
	var out []string
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); slices.Contains(brokerVars, k) {
			out = append(out, kv)
		}
	}
	return out
}

// simulatorEnv is the processor simulator's environment before its own
// settings: what the broker gets, the telemetry settings (OTEL_*) and its
// own (PROCESSOR_SIMULATOR_*, such as processor.EnvWebhookDelay). Like
// the broker it needs none of the other programs' settings or secrets, and
// an allowlist cannot miss the next one.
func simulatorEnv(base []string) []string {
	out := brokerEnv(base)
	for _, kv := range base {
		if strings.HasPrefix(kv, "OTEL_") || strings.HasPrefix(kv, "PROCESSOR_SIMULATOR_") {
			out = append(out, kv)
		}
	}
	return out
}

// identityEnv is how the gateway and the services learn who calls: the
// gateway gets the development secret (dev) and the private key it signs
// the identities it forwards with, the services that key's public half and
// neither the secret nor the private key (an empty value drops a variable,
// and its _FILE, from the environment they inherit).
func identityEnv(dev bool, devSecret string) (gateway, services map[string]string, err error) {
	key, err := serviceauth.GenerateKey()
	if err != nil {
		return nil, nil, err
	}
	gateway = map[string]string{EnvGatewayKey: serviceauth.EncodePrivateKey(key), EnvGatewayPublicKey: ""}
	if dev {
		gateway[EnvDevSecret] = devSecret
	}
	services = map[string]string{EnvDevSecret: "", EnvGatewayKey: "",
		EnvGatewayPublicKey: serviceauth.EncodePublicKey(key.Public().(ed25519.PublicKey))}
	return gateway, services, nil
}

// The identity settings (libs/program) the launcher hands out.
const (
	EnvDevSecret        = "AUTH_DEV_SECRET"
	EnvGatewayKey       = "AUTH_GATEWAY_KEY"
	EnvGatewayPublicKey = "AUTH_GATEWAY_PUBLIC_KEY"
)

// credentialVars are the settings of a service's credentials: the launcher
// sets them for each service, and no other program gets them.
var credentialVars = []string{"SERVICE_KEY", "SERVICE_KEY_FILE", "SERVICE_PUBLIC_KEYS", "INTERNAL_CALLERS"}

// merge copies every map of from into dst.
func merge(dst map[string]string, from ...map[string]string) {
	for _, m := range from {
		for k, v := range m {
			dst[k] = v
		}
	}
}

// withEnv is base with the variables of set replaced (an empty value unsets)
// and those of drop removed, each in either form: a secret given as a file
// (NAME_FILE, libs/config) goes with its variable.
func withEnv(base []string, set map[string]string, drop ...string) []string {
	var out []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		name := strings.TrimSuffix(k, config.FileSuffix)
		if _, ok := set[k]; ok || slices.Contains(drop, k) {
			continue
		}
		if _, ok := set[name]; ok || slices.Contains(drop, name) {
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if set[k] != "" {
			out = append(out, k+"="+set[k])
		}
	}
	return out
}

// freePorts finds n distinct free ports on the loopback interface, from a
// random start below the kernel's ephemeral range. A port the kernel hands a
// listener on port 0 comes from that range, and once the listener is closed,
// any outgoing connection may take it as its local port before the program
// it was meant for binds it ("address already in use"); below the range, only
// a listener asking for that very port can.
func freePorts(n int) ([]int, error) {
	const low = 10000
	high := ephemeralLow()
	var lns []net.Listener
	defer func() {
		for _, ln := range lns {
			ln.Close()
		}
	}()
	var ports []int
	span := high - low
	start := mrand.IntN(span)
	for i := 0; i < span && len(ports) < n; i++ {
		port := low + (start+i)%span
		if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port))); err == nil {
			lns = append(lns, ln)
			ports = append(ports, port)
		}
	}
	if len(ports) < n {
		return nil, fmt.Errorf("launch: no free port: %d of %d found between %d and %d", len(ports), n, low, high)
	}
	return ports, nil
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// ip_local_port_range; 32768, its default, elsewhere).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if f := strings.Fields(string(b)); err == nil && len(f) == 2 {
		if n, err := strconv.Atoi(f[0]); err == nil && n > 10000+1000 {
			return n
		}
	}
	return 32768
}

// secretFile reads a development secret from dir, creating it on first use.
func secretFile(dir, name string) (string, error) {
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

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// refuseLiveKeys stops a start that would hand live processor keys to the
// simulator: without PROCESSOR_API_URL the payments service pays through it,
// so "payments" no card ever paid would be taken.
func refuseLiveKeys(getenv func(string) string) error {
	for _, name := range []string{payments.EnvSecretKey, payments.EnvPublishableKey} {
		v, err := config.Lookup(getenv, name) // the secret key may be a file
		if err != nil {
			return err
		}
		for _, live := range []string{"sk_live_", "rk_live_", "pk_live_"} {
			if strings.HasPrefix(v, live) {
				return fmt.Errorf("%s is a live key (%s...) but %s is not set, so the payments service would pay through the processor simulator with it: set %s=https://api.stripe.com to pay through the processor, or use test keys with the simulator",
					name, live, payments.EnvAPIURL, payments.EnvAPIURL)
			}
		}
	}
	return nil
}
