package launch_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/deploy/system"
	"marketplace/libs/serviceauth"
	"marketplace/services/payments"
)

func TestMain(m *testing.M) {
	if isFake() {
		os.Exit(fakeMain())
	}
	os.Exit(m.Run())
}

var programs = append(modules.Names(), "gateway", "marketplace")

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// fixture is one launcher run on stand-ins.
type fixture struct {
	env     map[string]string
	records string
	out     *syncBuffer
	opts    launch.Options
}

func newFixture(t *testing.T, extra ...string) *fixture {
	f := &fixture{records: t.TempDir(), out: &syncBuffer{}}
	f.env = map[string]string{
		fakeEnv: "1", "FAKE_RECORDS": f.records, "DATA_DIR": t.TempDir(), "HTTP_ADDR": "127.0.0.1:0",
		"DB_EMBEDDED": "true", "LOG_LEVEL": "warn",
	}
	for i := 0; i+1 < len(extra); i += 2 {
		f.env[extra[i]] = extra[i+1]
	}
	f.opts = launch.Options{BinDir: fakeBin(t, programs), Stdout: f.out, RestartDelay: 20 * time.Millisecond,
		StartTimeout: 10 * time.Second, StopTimeout: 5 * time.Second}
	return f
}

// run starts the launcher; ready receives the system once the gateway is ready,
// done what Run returned.
func (f *fixture) run(ctx context.Context) (ready chan *launch.System, done chan error) {
	ready, done = make(chan *launch.System, 1), make(chan error, 1)
	o := f.opts
	o.Getenv = func(k string) string { return f.env[k] }
	for k, v := range f.env {
		o.Environ = append(o.Environ, k+"="+v)
	}
	o.OnReady = func(s *launch.System) { ready <- s }
	if err := writeFakeSettings(o.BinDir, f.env); err != nil {
		done <- err
		return ready, done
	}
	go func() { done <- launch.Run(ctx, o) }()
	return ready, done
}

// handle is a started launcher.
type handle struct {
	cancel context.CancelFunc
	ended  chan struct{} // closed once Run returned
	err    error         // what it returned
}

// wait returns what Run returned, failing the test if it does not return in time.
func (h *handle) wait(t *testing.T, within time.Duration) error {
	t.Helper()
	select {
	case <-h.ended:
		return h.err
	case <-time.After(within):
		t.Fatalf("the launcher did not return within %s", within)
	}
	return nil
}

// stop interrupts the launcher (as SIGINT does) and returns what Run returned.
func (h *handle) stop(t *testing.T) error {
	t.Helper()
	h.cancel()
	return h.wait(t, 30*time.Second)
}

func (f *fixture) start(t *testing.T) (*launch.System, *handle) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := f.run(ctx)
	h := &handle{cancel: cancel, ended: make(chan struct{})}
	go func() { h.err = <-done; close(h.ended) }()
	t.Cleanup(func() { h.stop(t) })
	select {
	case s := <-ready:
		return s, h
	case <-h.ended:
		t.Fatalf("launcher: %v\n%s", h.err, f.out)
	case <-time.After(30 * time.Second):
		t.Fatalf("not ready in 30s\n%s", f.out)
	}
	return nil, nil
}

// The programs get what each needs and no more; they start after the programs
// they call, the launcher says when the system is ready, and on interruption
// it stops the gateway first and the broker last.
func TestRunsEveryProgramWithItsSettings(t *testing.T) {
	t.Parallel()
	// A gateway key pair in the environment is replaced by one of the run.
	staleKey, err := serviceauth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "INTERNAL_CALLERS", "stale", "PROCESSOR_WEBHOOK_SECRET", "whsec_fixture", "AUTH_DEV_SECRET", "fixture-dev-secret-0123",
		"METRICS_ADDR", "127.0.0.1:19464", "ADVERTISE_ADDR", "somewhere:1", "PROCESSOR_SIMULATOR_WEBHOOK_DELAY", "2s",
		launch.EnvGatewayKey, serviceauth.EncodePrivateKey(staleKey), launch.EnvGatewayPublicKey, serviceauth.EncodePublicKey(staleKey.Public().(ed25519.PublicKey)))
	sys, h := f.start(t)
	recs := records(f.records)
	services := modules.Names()
	for _, n := range append(slices.Clone(services), "broker", "gateway", "processor") {
		if len(recs[n]) != 1 {
			t.Fatalf("%s ran %d times", n, len(recs[n]))
		}
	}
	broker := recs["broker"][0]
	if len(sys.Brokers) != 1 || !slices.Equal(broker.Args, []string{"broker", "-port", strings.TrimPrefix(sys.Brokers[0], "127.0.0.1:"),
		"-data", filepath.Join(f.env["DATA_DIR"], "distributed", "kafka"),
		"-users", filepath.Join(f.env["DATA_DIR"], "distributed", launch.BrokerUsersFile)}) {
		t.Errorf("broker args %q, brokers %v", broker.Args, sys.Brokers)
	}
	var static []string
	for _, n := range services {
		static = append(static, n+"="+sys.Services[n])
	}
	// Each service its own key, every service's public key, and as callers
	// the modules that declare calls to it.
	publicKeys := recs[services[0]][0].Env["SERVICE_PUBLIC_KEYS"]
	pubs, err := serviceauth.ParsePublicKeys(strings.Split(publicKeys, ","))
	if err != nil || len(pubs) != len(services) {
		t.Fatalf("SERVICE_PUBLIC_KEYS=%q: %v", publicKeys, err)
	}
	seen := map[string]bool{}
	for _, n := range services {
		env := recs[n][0].Env
		key, err := serviceauth.ParsePrivateKey(env["SERVICE_KEY"])
		if err != nil || !pubs[n].Equal(key.Public()) || seen[env["SERVICE_KEY"]] {
			t.Errorf("%s: SERVICE_KEY is not its own (%v)", n, err)
		}
		seen[env["SERVICE_KEY"]] = true
		if env["SERVICE_PUBLIC_KEYS"] != publicKeys {
			t.Errorf("%s: SERVICE_PUBLIC_KEYS=%q", n, env["SERVICE_PUBLIC_KEYS"])
		}
		callers, has := env["INTERNAL_CALLERS"]
		if want := strings.Join(modules.Callers(modules.All, n), ","); callers != want || has != (want != "") {
			t.Errorf("%s: INTERNAL_CALLERS=%q, want %q", n, callers, want)
		}
	}
	if c := recs["catalog"][0].Env["INTERNAL_CALLERS"]; c != "addresses,customers,notifications,payments,payouts,platformconfig,reviews" {
		t.Errorf("catalog: INTERNAL_CALLERS=%q", c)
	}
	for _, n := range services {
		env := recs[n][0].Env
		want := map[string]string{
			"HTTP_ADDR": strings.TrimPrefix(sys.Services[n], "http://"), "KAFKA_BROKERS": sys.Brokers[0],
			"DATA_DIR": filepath.Join(f.env["DATA_DIR"], "distributed", "db"), "DB_EMBEDDED": "true", "LOG_LEVEL": "warn",
			"PUBLIC_BASE_URL": sys.BaseURL,
		}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("%s: %s=%q, want %q", n, k, env[k], v)
			}
		}
		if got := strings.Split(env["SERVICE_ADDRS"], ","); !slices.Equal(slices.Sorted(slices.Values(got)), slices.Sorted(slices.Values(static))) {
			t.Errorf("%s: SERVICE_ADDRS=%q", n, env["SERVICE_ADDRS"])
		}
		for _, k := range []string{"METRICS_ADDR", "ADVERTISE_ADDR"} {
			if v, has := env[k]; has {
				t.Errorf("%s: %s=%q (one address for every program)", n, k, v)
			}
		}
		if secret, has := env[payments.EnvWebhookSecret]; (n == "payments") != has || (has && secret != "whsec_fixture") {
			t.Errorf("%s: %s=%q (the payments service's alone)", n, payments.EnvWebhookSecret, secret)
		}
		// The payments service pays through the processor simulator; no other
		// service gets its secret key.
		if key, has := env[payments.EnvSecretKey]; (n == "payments") != has || (has && key != sys.ProcessorKey) {
			t.Errorf("%s: %s=%q (the payments service's alone)", n, payments.EnvSecretKey, key)
		}
		if n == "payments" && (env[payments.EnvAPIURL] != sys.ProcessorURL || env[payments.EnvPublishableKey] != launch.SimulatorPublishableKey) {
			t.Errorf("payments: %s=%q %s=%q, want the simulator at %s", payments.EnvAPIURL, env[payments.EnvAPIURL],
				payments.EnvPublishableKey, env[payments.EnvPublishableKey], sys.ProcessorURL)
		}
	}
	// The processor simulator: a program of its own on its own address, with
	// the key the payments service calls with (kept in DATA_DIR, as the
	// all-in-one keeps it, for `make pay`), sending its signed webhooks to the
	// gateway; it gets no database, broker or service key.
	proc := recs["processor"][0]
	keyFile, _ := os.ReadFile(filepath.Join(f.env["DATA_DIR"], "processor-secret-key"))
	if !strings.HasPrefix(sys.ProcessorURL, "http://127.0.0.1:") || sys.ProcessorKey != "sk_test_"+strings.TrimSpace(string(keyFile)) ||
		!slices.Equal(proc.Args, []string{"processor", "-data", filepath.Join(f.env["DATA_DIR"], launch.ProcessorDir)}) ||
		proc.Env["HTTP_ADDR"] != strings.TrimPrefix(sys.ProcessorURL, "http://") || proc.Env[payments.EnvSecretKey] != sys.ProcessorKey ||
		proc.Env[payments.EnvWebhookSecret] != "whsec_fixture" || proc.Env[launch.EnvProcessorWebhookURL] != sys.BaseURL+"/processor/webhook" {
		t.Errorf("processor: url %q key %q args %q env %v", sys.ProcessorURL, sys.ProcessorKey, proc.Args, proc.Env)
	}
	// Of the fixture's environment it gets the log level and its own
	// settings (PROCESSOR_SIMULATOR_*) alone: none of the other programs'
	// settings or secrets (database, broker, keys, the development secret).
	if proc.Env["PROCESSOR_SIMULATOR_WEBHOOK_DELAY"] != "2s" {
		t.Errorf("the processor did not get PROCESSOR_SIMULATOR_WEBHOOK_DELAY: %v", proc.Env)
	}
	for k := range proc.Env {
		switch k {
		case "LOG_LEVEL", "HTTP_ADDR", payments.EnvSecretKey, payments.EnvPublishableKey, payments.EnvWebhookSecret, launch.EnvProcessorWebhookURL,
			"PROCESSOR_SIMULATOR_WEBHOOK_DELAY":
		default:
			t.Errorf("the processor got %s", k)
		}
	}
	credentials := []string{"SERVICE_KEY", "SERVICE_KEY_FILE", "SERVICE_PUBLIC_KEYS", "INTERNAL_CALLERS"}
	gw := recs["gateway"][0].Env
	for _, k := range append([]string{"MONGODB_URI", "DB_EMBEDDED", payments.EnvWebhookSecret, payments.EnvSecretKey}, credentials...) {
		if _, has := gw[k]; has {
			t.Errorf("the gateway got %s", k)
		}
	}
	// The broker gets none of the other programs' settings or secrets: of
	// the fixture's environment, the log level alone.
	if want := map[string]string{"LOG_LEVEL": "warn"}; !maps.Equal(broker.Env, want) {
		t.Errorf("the broker's environment %v, want %v", broker.Env, want)
	}
	if gw["KAFKA_BROKERS"] != sys.Brokers[0] { // it follows the topics for live queries
		t.Errorf("gateway KAFKA_BROKERS=%q, want %q", gw["KAFKA_BROKERS"], sys.Brokers[0])
	}
	if _, has := gw["ADVERTISE_ADDR"]; has || gw["METRICS_ADDR"] != "127.0.0.1:19464" {
		t.Errorf("gateway: ADVERTISE_ADDR=%q METRICS_ADDR=%q", gw["ADVERTISE_ADDR"], gw["METRICS_ADDR"])
	}
	if gw["HTTP_ADDR"] != strings.TrimPrefix(sys.BaseURL, "http://") || gw["AUTH_DEV_SECRET"] != "fixture-dev-secret-0123" ||
		!slices.Equal(slices.Sorted(slices.Values(strings.Split(gw["SERVICE_ADDRS"], ","))), slices.Sorted(slices.Values(static))) {
		t.Errorf("gateway env %v", gw)
	}
	if r, err := http.Get(sys.BaseURL + "/readyz"); err != nil || r.StatusCode != 200 {
		t.Errorf("the gateway's address does not answer: %v", err)
	}
	// Users' tokens: the gateway alone verifies them, and signs what it
	// forwards with a key of this run; the services get its public half and
	// nothing that mints a token (not the development secret, not the key).
	gwKey, err := serviceauth.ParsePrivateKey(gw[launch.EnvGatewayKey])
	if err != nil || gwKey.Equal(staleKey) {
		t.Fatalf("gateway: %s=%q (%v)", launch.EnvGatewayKey, gw[launch.EnvGatewayKey], err)
	}
	if v, has := gw[launch.EnvGatewayPublicKey]; has {
		t.Errorf("the gateway got %s=%q", launch.EnvGatewayPublicKey, v)
	}
	for _, n := range services {
		env := recs[n][0].Env
		for _, k := range []string{launch.EnvDevSecret, launch.EnvDevSecret + "_FILE", launch.EnvGatewayKey, launch.EnvGatewayKey + "_FILE"} {
			if v, has := env[k]; has {
				t.Errorf("%s got %s=%q: only the gateway verifies users' tokens", n, k, v)
			}
		}
		pub, err := serviceauth.ParsePublicKey(env[launch.EnvGatewayPublicKey])
		if err != nil || !pub.Equal(gwKey.Public()) {
			t.Errorf("%s: %s=%q is not the gateway's public key (%v)", n, launch.EnvGatewayPublicKey, env[launch.EnvGatewayPublicKey], err)
		}
	}

	// Start order: a program's first line comes after the ready lines of the
	// programs it waits for; every line is prefixed with its program's name.
	out := f.out.String()
	pos := func(re string) int {
		loc := regexp.MustCompile(re).FindStringIndex(out)
		if loc == nil {
			t.Fatalf("no line %q in\n%s", re, out)
		}
		return loc[0]
	}
	for _, m := range modules.All {
		first := pos(`(?m)^` + m.Name + ` *\| \{"msg":"fake ` + m.Name + ` started"\}$`)
		for _, c := range append(slices.Clone(m.Calls), "broker") {
			if r := pos(`(?m)^launch *\| ` + c + ` ready \(pid \d+\)$`); r > first {
				t.Errorf("%s started before %s was ready", m.Name, c)
			}
		}
		if pos(`(?m)^launch *\| `+m.Name+` ready`) > pos(`(?m)^gateway *\| `) {
			t.Errorf("the gateway started before %s was ready", m.Name)
		}
	}
	pos(`(?m)^broker *\| broker ready at 127\.0\.0\.1:\d+$`)
	if pos(`(?m)^launch *\| processor ready \(pid \d+\)$`) > pos(`(?m)^payments *\| \{"msg":"fake payments started"\}$`) {
		t.Errorf("payments started before the processor simulator was ready")
	}
	pos(`(?m)^launch *\| marketplace ready at ` + regexp.QuoteMeta(sys.BaseURL) + ` `)

	if err := h.stop(t); err != nil {
		t.Fatalf("a clean stop returned %v", err)
	}
	order := stops(f.records)
	if len(order) != len(services)+3 || order[0] != "gateway" || order[len(order)-2] != "processor" || order[len(order)-1] != "broker" {
		t.Fatalf("stop order %v: want the gateway first, then the services, then the processor, then the broker", order)
	}
	for n, rs := range records(f.records) {
		if alive(rs[0].PID) {
			t.Errorf("%s (pid %d) still runs", n, rs[0].PID)
		}
	}
}

// The settings that choose the infrastructure: MongoDB instead of embedded
// files, Consul instead of static addresses, an outside Kafka instead of the
// broker.
func TestInfrastructureSettings(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "MONGODB_URI", "mongodb://db:27017/?replicaSet=rs0", "DB_EMBEDDED", "true",
		"KAFKA_BROKERS", "k1:9092,k2:9092", "PROCESSOR_API_URL", "https://processor.example", "PROCESSOR_SECRET_KEY", "sk_test_fixture")
	// Consul is set for the programs alone: the stand-ins do not register.
	sys, _ := f.start(t)
	recs := records(f.records)
	if len(recs["broker"]) != 0 {
		t.Errorf("a broker was started although KAFKA_BROKERS is set")
	}
	// A processor named: no simulator, the payments service pays through it.
	if pay := recs["payments"][0].Env; len(recs["processor"]) != 0 || sys.ProcessorURL != "" ||
		pay[payments.EnvAPIURL] != "https://processor.example" || pay[payments.EnvSecretKey] != "sk_test_fixture" {
		t.Errorf("PROCESSOR_API_URL is set, yet processor runs %d, ProcessorURL %q, payments env %v", len(recs["processor"]), sys.ProcessorURL, pay)
	}
	if !slices.Equal(sys.Brokers, []string{"k1:9092", "k2:9092"}) {
		t.Errorf("brokers %v", sys.Brokers)
	}
	for _, n := range modules.Names() {
		env := recs[n][0].Env
		if env["MONGODB_URI"] != "mongodb://db:27017/?replicaSet=rs0" || env["KAFKA_BROKERS"] != "k1:9092,k2:9092" {
			t.Errorf("%s: MONGODB_URI=%q KAFKA_BROKERS=%q", n, env["MONGODB_URI"], env["KAFKA_BROKERS"])
		}
	}
	if !strings.Contains(f.out.String(), "DB_EMBEDDED is ignored") {
		t.Errorf("no word that MONGODB_URI wins over DB_EMBEDDED")
	}

	t.Run("consul", func(t *testing.T) {
		f := newFixture(t, "CONSUL_HTTP_ADDR", "127.0.0.1:8500")
		f.start(t)
		recs := records(f.records)
		for _, n := range append(modules.Names(), "gateway") {
			env := recs[n][0].Env
			if _, has := env["SERVICE_ADDRS"]; has || env["CONSUL_HTTP_ADDR"] != "127.0.0.1:8500" || env["ADVERTISE_ADDR"] != env["HTTP_ADDR"] {
				t.Errorf("%s: SERVICE_ADDRS=%q CONSUL_HTTP_ADDR=%q ADVERTISE_ADDR=%q HTTP_ADDR=%q", n, env["SERVICE_ADDRS"],
					env["CONSUL_HTTP_ADDR"], env["ADVERTISE_ADDR"], env["HTTP_ADDR"])
			}
		}
	})

	t.Run("development secrets", func(t *testing.T) {
		// Those of the all-in-one's files, which make token and make sign-webhook read.
		f := newFixture(t)
		sys, _ := f.start(t)
		recs := records(f.records)
		getenv := func(k string) string { return map[string]string{"DATA_DIR": f.env["DATA_DIR"]}[k] }
		dev, err := system.DevSecret(getenv)
		if err != nil || dev != sys.DevSecret || recs["gateway"][0].Env["AUTH_DEV_SECRET"] != dev {
			t.Errorf("development secret %q (%v), the system's %q", dev, err, sys.DevSecret)
		}
		wh, err := system.WebhookSecret(getenv)
		if err != nil || wh != sys.WebhookSecret || recs["payments"][0].Env[payments.EnvWebhookSecret] != wh {
			t.Errorf("webhook secret %q (%v), the system's %q", wh, err, sys.WebhookSecret)
		}
	})

	t.Run("no database chosen", func(t *testing.T) {
		f := newFixture(t, "DB_EMBEDDED", "")
		ready, done := f.run(context.Background())
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "set MONGODB_URI") || !strings.Contains(err.Error(), "DB_EMBEDDED=true") {
				t.Fatalf("Run = %v", err)
			}
		case <-ready:
			t.Fatal("started without a database choice")
		}
		if len(records(f.records)) != 0 {
			t.Fatal("programs were started")
		}
	})

	t.Run("a missing binary", func(t *testing.T) {
		f := newFixture(t)
		os.Remove(filepath.Join(f.opts.BinDir, "reviews"))
		_, done := f.run(context.Background())
		if err := <-done; err == nil || !strings.Contains(err.Error(), "no binary") || !strings.Contains(err.Error(), "reviews") {
			t.Fatalf("Run = %v", err)
		}
	})
}

// BinFrom takes the binaries it names from their own directories (a run that
// mixes versions), the others from BinDir; a name that is no program, or a
// directory without the binary, stops the start before anything runs.
func TestBinariesFromAnotherDirectory(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	other := fakeBin(t, []string{"customers", "gateway"})
	f.opts.BinFrom = map[string]string{"customers": other, "gateway": other}
	f.start(t)
	recs := records(f.records)
	for _, n := range append(modules.Names(), "gateway", "broker", "processor") {
		dir := f.opts.BinDir
		if n == "customers" || n == "gateway" {
			dir = other
		}
		want := filepath.Join(dir, n)
		if n == "broker" || n == "processor" {
			want = filepath.Join(dir, "marketplace")
		}
		if len(recs[n]) != 1 || recs[n][0].Exe != want {
			t.Errorf("%s ran from %v, want %s", n, recs[n], want)
		}
	}

	for _, c := range []struct {
		from map[string]string
		want string
	}{
		{map[string]string{"customer": other}, `"customer", which is no program`},
		{map[string]string{"reviews": other}, "no binary " + filepath.Join(other, "reviews")},
	} {
		f := newFixture(t)
		f.opts.BinFrom = c.from
		_, done := f.run(context.Background())
		if err := <-done; err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("BinFrom %v: Run = %v, want %q", c.from, err, c.want)
		}
		if n := len(records(f.records)); n != 0 {
			t.Errorf("BinFrom %v: %d programs were started", c.from, n)
		}
	}
}

// A program that exits before it is ready at start stops everything, and the
// launcher fails with its last lines.
func TestAProgramDyingAtStartStopsEverything(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, env, program, want string
	}{
		{"exits", "FAKE_FAIL", "payments", "payments exited before it was ready: exit status 3"},
		{"never ready", "FAKE_NEVER_READY", "media", "media was stopped before it was ready: not ready in time"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, c.env, c.program)
			if c.env == "FAKE_NEVER_READY" {
				f.opts.StartTimeout = 3 * time.Second // the others get ready well within it
			}
			ready, done := f.run(context.Background())
			var err error
			select {
			case err = <-done:
			case <-ready:
				t.Fatal("the system became ready")
			case <-time.After(30 * time.Second):
				t.Fatal("the launcher did not give up")
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("Run = %v, want %q", err, c.want)
			}
			if c.env == "FAKE_FAIL" && !strings.Contains(err.Error(), "fake failure at start") {
				t.Errorf("the error does not quote the program's last lines: %v", err)
			}
			for n, rs := range records(f.records) {
				for _, r := range rs {
					if alive(r.PID) {
						t.Errorf("%s (pid %d) still runs", n, r.PID)
					}
				}
			}
			if len(records(f.records)["gateway"]) != 0 {
				t.Error("the gateway was started")
			}
		})
	}
}

// A program that dies after start is restarted on the same address; one that
// keeps failing at restart makes the launcher give up.
func TestRestarts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "FAKE_FAIL_RESTARTS", "media")
	sys, h := f.start(t)
	before := sys.PID("customers")
	if err := sys.Signal("customers", syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if !waitFor(ctx, func() bool {
		r, err := http.Get(sys.Services["customers"] + "/readyz")
		if err == nil {
			r.Body.Close()
		}
		return sys.Runs("customers") == 2 && err == nil && r.StatusCode == 200
	}) {
		t.Fatalf("customers not restarted: %d runs\n%s", sys.Runs("customers"), f.out)
	}
	if sys.PID("customers") == before || alive(before) {
		t.Fatalf("pid %d before, %d after", before, sys.PID("customers"))
	}
	if !strings.Contains(f.out.String(), "customers exited (signal: killed); restarting it in") {
		t.Errorf("the restart is not logged:\n%s", f.out)
	}

	// media fails every restart: the launcher gives up after five and stops all.
	if err := sys.Signal("media", syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := h.wait(t, 20*time.Second); err == nil || !strings.Contains(err.Error(), "giving up on media after 5 restarts") ||
		!strings.Contains(err.Error(), "fake failure on restart") {
		t.Fatalf("Run = %v", err)
	}
	if n := sys.Runs("media"); n != 6 {
		t.Errorf("media ran %d times, want 1 + 5 restarts", n)
	}
}

// A program that ignores SIGTERM is killed after the stop timeout, and the
// launcher says so.
func TestStopKillsAProgramThatDoesNotStop(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "FAKE_IGNORE_TERM", "notifications")
	f.opts.StopTimeout = 300 * time.Millisecond
	sys, h := f.start(t)
	pid := sys.PID("notifications")
	err := h.stop(t)
	if err == nil || !strings.Contains(err.Error(), "notifications did not stop within 300ms and was killed") {
		t.Fatalf("Run = %v", err)
	}
	if alive(pid) {
		t.Fatal("notifications still runs")
	}
	if slices.Contains(stops(f.records), "notifications") {
		t.Fatal("notifications recorded a clean stop")
	}
}

// The programs write to the launcher's pipes: when the launcher's own output
// is a terminal and LOG_FORMAT is unset, every program (the broker and the
// processor simulator too) gets LOG_FORMAT=text; LOG_FORMAT set is passed as
// it is.
func TestProgramsLogTextWhenTheLauncherIsOnATerminal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ set, want string }{{"", "text"}, {"json", "json"}} {
		var extra []string
		if c.set != "" {
			extra = []string{"LOG_FORMAT", c.set}
		}
		f := newFixture(t, extra...)
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Fatal(err)
		}
		go func() { _, _ = io.Copy(f.out, ptmx) }()
		f.opts.Stdout = tty
		_, h := f.start(t)
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
		tty.Close()
		ptmx.Close()
		for name, recs := range records(f.records) {
			if got := recs[0].Env["LOG_FORMAT"]; got != c.want {
				t.Errorf("LOG_FORMAT=%q, the launcher on a terminal: %s got LOG_FORMAT=%q, want %q", c.set, name, got, c.want)
			}
		}
	}
}
