package program

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
	"marketplace/libs/config"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
	"marketplace/libs/logtest"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/serviceauth"
	"marketplace/libs/store"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

const devSecret = "0123456789abcdef-dev" // 20 characters

func TestLoad(t *testing.T) {
	cases := []struct {
		name  string
		env   map[string]string
		check func(t *testing.T, c Config)
	}{
		{"defaults", nil, func(t *testing.T, c Config) {
			if c.HTTPAddr != "127.0.0.1:8080" || c.DataDir != "./data" || c.LogLevel != "info" || !c.AccessLog ||
				c.BodyLimit != 6<<20 || c.ReadTimeout != 10*time.Second || c.WriteTimeout != 10*time.Second ||
				c.IdleTimeout != time.Minute {
				t.Errorf("defaults = %+v", c)
			}
			if c.ConsulAddr != "" || c.DevSecret != "" || c.JWKSURL != "" || len(c.KafkaBrokers) != 0 || len(c.ServiceAddrs) != 0 {
				t.Errorf("unset values filled: %+v", c)
			}
		}},
		{"overrides", map[string]string{
			"HTTP_ADDR": "0.0.0.0:9000", "DATA_DIR": "/var/lib/mp", "KAFKA_BROKERS": "k1:9092, k2:9092,",
			"ACCESS_LOG": "false", "HTTP_BODY_LIMIT": "1024", "HTTP_READ_TIMEOUT": "3s", "LOG_LEVEL": "DEBUG",
			"SERVICE_ADDRS": "catalog=http://127.0.0.1:1,orders=http://127.0.0.1:2",
		}, func(t *testing.T, c Config) {
			if c.HTTPAddr != "0.0.0.0:9000" || c.DataDir != "/var/lib/mp" || c.AccessLog || c.BodyLimit != 1024 ||
				c.ReadTimeout != 3*time.Second || c.LogLevel != "DEBUG" {
				t.Errorf("overrides = %+v", c)
			}
			if !reflect.DeepEqual(c.KafkaBrokers, []string{"k1:9092", "k2:9092"}) {
				t.Errorf("brokers = %q", c.KafkaBrokers)
			}
			if len(c.ServiceAddrs) != 2 {
				t.Errorf("service addrs = %q", c.ServiceAddrs)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(env(c.env))
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, cfg)
		})
	}
}

func TestValidate(t *testing.T) {
	cases := []struct {
		name    string
		env     map[string]string
		wantErr string // empty: valid
	}{
		{"jwks and dev secret", map[string]string{"AUTH_JWKS_URL": "https://idp/jwks", "AUTH_DEV_SECRET": devSecret}, "not both"},
		{"short dev secret", map[string]string{"AUTH_DEV_SECRET": "short"}, "at least 16"},
		{"dev secret of 15", map[string]string{"AUTH_DEV_SECRET": strings.Repeat("s", 15)}, "at least 16"},
		{"dev secret of 16", map[string]string{"AUTH_DEV_SECRET": strings.Repeat("s", 16)}, ""},
		{"gateway key not a key", map[string]string{"AUTH_GATEWAY_KEY": "nope"}, "AUTH_GATEWAY_KEY"},
		{"gateway public key not a key", map[string]string{"AUTH_GATEWAY_PUBLIC_KEY": "bm9wZQ"}, "AUTH_GATEWAY_PUBLIC_KEY"},
		{"jwks without issuer and audience", map[string]string{"AUTH_JWKS_URL": "https://idp/jwks"}, "set AUTH_ISSUER and AUTH_AUDIENCE"},
		{"jwks without audience", map[string]string{"AUTH_JWKS_URL": "https://idp/jwks", "AUTH_ISSUER": "https://idp"}, "set AUTH_ISSUER and AUTH_AUDIENCE"},
		{"jwks with issuer and audience", map[string]string{"AUTH_JWKS_URL": "https://idp/jwks", "AUTH_ISSUER": "https://idp", "AUTH_AUDIENCE": "marketplace"}, ""},
		{"service addr without =", map[string]string{"SERVICE_ADDRS": "catalog=http://h:1,orders"}, `"orders" must be name=url`},
		{"service addr without name", map[string]string{"SERVICE_ADDRS": "=http://h:1"}, "must be name=url"},
		{"service addr without url", map[string]string{"SERVICE_ADDRS": "catalog="}, "must be name=url"},
		{"service addrs ok", map[string]string{"SERVICE_ADDRS": "catalog=http://h:1, orders=http://h:2/"}, ""},
		{"bad log level", map[string]string{"LOG_LEVEL": "verbose"}, `LOG_LEVEL "verbose"`},
		{"warning is not a level", map[string]string{"LOG_LEVEL": "warning"}, "LOG_LEVEL"},
		{"log level any case", map[string]string{"LOG_LEVEL": "Warn"}, ""},
		{"bad log format", map[string]string{"LOG_FORMAT": "pretty"}, `LOG_FORMAT "pretty" must be text or json`},
		{"log format text", map[string]string{"LOG_FORMAT": "text"}, ""},
		{"log format any case", map[string]string{"LOG_FORMAT": "JSON"}, ""},
		{"consul with a wildcard listen address", map[string]string{"CONSUL_HTTP_ADDR": "consul:8500", "HTTP_ADDR": "0.0.0.0:8080"}, "set ADVERTISE_ADDR"},
		{"consul with an empty host", map[string]string{"CONSUL_HTTP_ADDR": "consul:8500", "HTTP_ADDR": ":8080"}, "set ADVERTISE_ADDR"},
		{"consul with an advertised address", map[string]string{"CONSUL_HTTP_ADDR": "consul:8500", "HTTP_ADDR": "0.0.0.0:8080", "ADVERTISE_ADDR": "catalog:8080"}, ""},
		{"consul with a concrete listen address", map[string]string{"CONSUL_HTTP_ADDR": "consul:8500", "HTTP_ADDR": "10.0.0.5:8080"}, ""},
		{"the shared internal token", map[string]string{"INTERNAL_SERVICE_TOKEN": "anything"}, "INTERNAL_SERVICE_TOKEN is no longer read"},
		{"a service key that is not one", map[string]string{"SERVICE_KEY": "not a key!"}, "SERVICE_KEY: must be an Ed25519 key"},
		{"a service key too short", map[string]string{"SERVICE_KEY": "secret"}, "SERVICE_KEY: an Ed25519 seed is 32 bytes"},
		{"a service key ok", map[string]string{"SERVICE_KEY": testKey}, ""},
		{"public keys without a name", map[string]string{"SERVICE_PUBLIC_KEYS": "catalog=" + testPublic + ",AAAA"}, `SERVICE_PUBLIC_KEYS entry "AAAA"`},
		{"a public key that is not one", map[string]string{"SERVICE_PUBLIC_KEYS": "catalog=AAAA"}, "the key of catalog"},
		{"public keys ok", map[string]string{"SERVICE_PUBLIC_KEYS": "catalog=" + testPublic + ", payouts=" + testPublic, "INTERNAL_CALLERS": "payouts"}, ""},
		{"memory limit with a unit", map[string]string{"DB_MEMORY_LIMIT": "512MiB"}, ""},
		{"memory limit off", map[string]string{"DB_MEMORY_LIMIT": "off"}, ""},
		{"memory limit without a unit", map[string]string{"DB_MEMORY_LIMIT": "512"}, `DB_MEMORY_LIMIT="512": 512B is below the 32MiB the process itself needs; was a unit forgotten (512MiB)?`},
		{"memory limit in an unknown unit", map[string]string{"DB_MEMORY_LIMIT": "2 gigs"}, `DB_MEMORY_LIMIT="2 gigs": unknown unit "gigs"`},
		{"memory limit not a size", map[string]string{"DB_MEMORY_LIMIT": "plenty"}, `DB_MEMORY_LIMIT="plenty": not a size (give a size such as 512MiB or 2GiB`},
		{"memory limit above 100%", map[string]string{"DB_MEMORY_LIMIT": "120%"}, `DB_MEMORY_LIMIT="120%": a share of the memory is a number above 0 and at most 100`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load(env(c.env))
			switch {
			case c.wantErr == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
				t.Fatalf("error = %v, want one containing %q", err, c.wantErr)
			}
		})
	}
}

func TestStaticAddrs(t *testing.T) {
	cases := []struct {
		name  string
		addrs []string
		want  map[string]string
	}{
		{"none", nil, map[string]string{}},
		{"trims and strips slashes", []string{" catalog = http://127.0.0.1:1/ ", "orders=http://127.0.0.1:2//"},
			map[string]string{"catalog": "http://127.0.0.1:1", "orders": "http://127.0.0.1:2"}},
		{"url keeps its own =", []string{"media=http://h:3/x?a=b"}, map[string]string{"media": "http://h:3/x?a=b"}},
		{"last entry wins", []string{"catalog=http://a:1", "catalog=http://b:2"}, map[string]string{"catalog": "http://b:2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{ServiceAddrs: c.addrs}
			if got := cfg.StaticAddrs(); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("StaticAddrs = %v, want %v", got, c.want)
			}
		})
	}
}

func TestHTTP(t *testing.T) {
	base := map[string]string{
		"HTTP_READ_TIMEOUT": "1s", "HTTP_WRITE_TIMEOUT": "2s", "HTTP_IDLE_TIMEOUT": "3s",
		"HTTP_BODY_LIMIT": "4096", "ACCESS_LOG": "false",
	}
	cases := []struct {
		name        string
		otlp        string
		wantTracing bool
	}{
		{"no exporter, no tracing", "", false},
		{"exporter, tracing", "http://otel:4318", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": c.otlp}
			for k, v := range base {
				m[k] = v
			}
			cfg, err := Load(env(m))
			if err != nil {
				t.Fatal(err)
			}
			want := httpserver.Config{
				ReadTimeout: time.Second, WriteTimeout: 2 * time.Second, IdleTimeout: 3 * time.Second,
				ShutdownTimeout: httpserver.Defaults().ShutdownTimeout, BodyLimit: 4096, AccessLog: false, Tracing: c.wantTracing,
			}
			if got := cfg.HTTP(); !reflect.DeepEqual(got, want) {
				t.Fatalf("HTTP() = %+v, want %+v", got, want)
			}
		})
	}
}

func TestLoggerLevel(t *testing.T) {
	cases := []struct {
		level              string
		wantInfo, wantWarn bool
	}{
		{"debug", true, true},
		{"info", true, true},
		{"WARN", false, true},
		{"error", false, false},
	}
	for _, c := range cases {
		t.Run(c.level, func(t *testing.T) {
			var buf bytes.Buffer
			cfg := Config{LogLevel: c.level}
			l := cfg.Logger(&buf)
			l.Info("info-line")
			l.Warn("warn-line")
			out := buf.String()
			if strings.Contains(out, "info-line") != c.wantInfo || strings.Contains(out, "warn-line") != c.wantWarn {
				t.Fatalf("level %s wrote:\n%s", c.level, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if line != "" && !json.Valid([]byte(line)) {
					t.Fatalf("not a JSON line: %s", line)
				}
			}
		})
	}
}

func TestVerifier(t *testing.T) {
	ctx := context.Background()
	opts := auth.Options{Issuer: "https://idp.test", Audience: "marketplace"}
	mint := func(t *testing.T, secret, sub string, o auth.Options) string {
		t.Helper()
		tok, err := auth.Mint([]byte(secret), sub, []string{"admin"}, time.Minute, o)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	cfg := Config{DevSecret: devSecret, Issuer: opts.Issuer, Audience: opts.Audience}
	v, err := cfg.Verifier(ctx)
	if err != nil {
		t.Fatal(err)
	}

	good := mint(t, devSecret, "u1", opts)
	cases := []struct {
		name    string
		token   string
		wantSub string // empty: must be refused as UNAUTHENTICATED
	}{
		{"minted with the secret", good, "u1"},
		{"other secret", mint(t, "another-secret-of-20c", "u1", opts), ""},
		{"other audience", mint(t, devSecret, "u1", auth.Options{Issuer: opts.Issuer, Audience: "elsewhere"}), ""},
		{"other issuer", mint(t, devSecret, "u1", auth.Options{Issuer: "https://evil.test", Audience: opts.Audience}), ""},
		{"garbage", "not.a.token", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id, err := v.Verify(ctx, c.token)
			if c.wantSub == "" {
				if !apperr.Is(err, apperr.Unauthenticated) {
					t.Fatalf("Verify = %v, %v; want UNAUTHENTICATED", id, err)
				}
				return
			}
			if err != nil || id.Sub != c.wantSub || !id.IsAdmin() {
				t.Fatalf("Verify = %+v, %v", id, err)
			}
		})
	}

	// Cached: a repeated token is answered from the cache, which hands back the
	// identity it stored; the bare verifier builds a new one every time.
	a, err1 := v.Verify(ctx, good)
	b, err2 := v.Verify(ctx, good)
	if err1 != nil || err2 != nil || a != b {
		t.Fatalf("repeated verification not cached: %p %p %v %v", a, b, err1, err2)
	}

	t.Run("none configured", func(t *testing.T) {
		v, err := (&Config{}).Verifier(ctx)
		if err == nil || v != nil || !strings.Contains(err.Error(), "no identity provider") {
			t.Fatalf("Verifier = %v, %v; want an error", v, err)
		}
	})

	// A service behind the gateway: the gateway's public key alone, no
	// secret. It takes the gateway's tokens and none minted with a secret.
	t.Run("the gateway's public key only", func(t *testing.T) {
		key, _ := serviceauth.GenerateKey()
		gw := Config{GatewayKey: serviceauth.EncodePrivateKey(key)}
		issuer, err := gw.IdentityIssuer()
		if err != nil || issuer == nil {
			t.Fatal(err)
		}
		svc := Config{GatewayPublicKey: serviceauth.EncodePublicKey(key.Public().(ed25519.PublicKey))}
		v, err := svc.Verifier(ctx)
		if err != nil {
			t.Fatal(err)
		}
		tok, _ := issuer.Token(&auth.Identity{Sub: "u1", Roles: []string{"admin"}, Expires: time.Now().Add(time.Minute)})
		if id, err := v.Verify(ctx, tok); err != nil || id.Sub != "u1" || !id.IsAdmin() {
			t.Fatalf("the gateway's token: %+v %v", id, err)
		}
		if _, err := v.Verify(ctx, good); !apperr.Is(err, apperr.Unauthenticated) {
			t.Fatalf("a development token: %v", err)
		}
		// Beside the development secret (a service run by hand) both count.
		svc.DevSecret, svc.Issuer, svc.Audience = devSecret, opts.Issuer, opts.Audience
		if v, err = svc.Verifier(ctx); err != nil {
			t.Fatal(err)
		}
		for _, tk := range []string{tok, good} {
			if id, err := v.Verify(ctx, tk); err != nil || id.Sub != "u1" {
				t.Fatalf("both: %+v %v", id, err)
			}
		}
		if (&Config{}).DevelopmentTokens() || !(&Config{DevSecret: devSecret}).DevelopmentTokens() ||
			(&Config{DevSecret: devSecret, JWKSURL: "https://idp/jwks"}).DevelopmentTokens() {
			t.Error("DevelopmentTokens")
		}
	})
}

func TestDiscoveryStatic(t *testing.T) {
	ctx := context.Background()
	cfg := Config{ServiceAddrs: []string{"catalog=http://127.0.0.1:4001/"}}
	r, dereg, err := cfg.Discovery(ctx, "orders", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := r.(*discovery.Static); !ok {
		t.Fatalf("resolver is %T, want *discovery.Static", r)
	}
	if u, err := r.Resolve(ctx, "catalog"); err != nil || u != "http://127.0.0.1:4001" {
		t.Fatalf("Resolve(catalog) = %q, %v", u, err)
	}
	if _, err := r.Resolve(ctx, "payments"); !errors.Is(err, discovery.ErrNoInstance) {
		t.Fatalf("Resolve(payments) err = %v, want ErrNoInstance", err)
	}
	if err := dereg(ctx); err != nil {
		t.Fatalf("static deregistration = %v, want a no-op", err)
	}
}

// fakeConsul mimics the Consul agent's register and deregister endpoints.
// Consul is mocked because no Consul agent can be installed or run where these
// tests run; the real api client still sends production's requests.
type fakeConsul struct {
	t            *testing.T
	mu           sync.Mutex
	registered   []api.AgentServiceRegistration
	deregistered []string
	failRegister bool
}

func newFakeConsul(t *testing.T) (*fakeConsul, *httptest.Server) {
	f := &fakeConsul{t: t}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeConsul) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPut && r.URL.Path == "/v1/agent/service/register":
		if f.failRegister {
			http.Error(w, "agent unavailable", http.StatusInternalServerError)
			return
		}
		var reg api.AgentServiceRegistration
		if err := json.NewDecoder(r.Body).Decode(&reg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.registered = append(f.registered, reg)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v1/agent/service/deregister/"):
		f.deregistered = append(f.deregistered, strings.TrimPrefix(r.URL.Path, "/v1/agent/service/deregister/"))
	default:
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

func TestDiscoveryConsul(t *testing.T) {
	cases := []struct {
		name       string
		advertise  string
		httpAddr   string
		wantHost   string
		wantPort   int
		wantID     string
		wantHealth string
	}{
		{"advertise address", "10.1.2.3:9001", "0.0.0.0:8080", "10.1.2.3", 9001, "catalog-10.1.2.3-9001",
			"http://10.1.2.3:9001/readyz"},
		{"falls back to HTTP_ADDR", "", "10.9.9.9:8080", "10.9.9.9", 8080, "catalog-10.9.9.9-8080",
			"http://10.9.9.9:8080/readyz"},
		{"hostname", "catalog-0.catalog:8080", "0.0.0.0:8080", "catalog-0.catalog", 8080, "catalog-catalog-0.catalog-8080",
			"http://catalog-0.catalog:8080/readyz"},
		{"ipv6", "[fd00::7]:8080", "0.0.0.0:8080", "fd00::7", 8080, "catalog-fd00::7-8080",
			"http://[fd00::7]:8080/readyz"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			f, srv := newFakeConsul(t)
			cfg := Config{ConsulAddr: srv.URL, AdvertiseAddr: c.advertise, HTTPAddr: c.httpAddr,
				ServiceAddrs: []string{"orders=http://127.0.0.1:1"}}
			r, dereg, err := cfg.Discovery(ctx, "catalog", slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := r.(*discovery.Consul); !ok {
				t.Fatalf("resolver is %T, want *discovery.Consul (SERVICE_ADDRS must not win over Consul)", r)
			}
			f.mu.Lock()
			regs := append([]api.AgentServiceRegistration(nil), f.registered...)
			f.mu.Unlock()
			if len(regs) != 1 {
				t.Fatalf("%d registrations, want 1", len(regs))
			}
			reg := regs[0]
			if reg.Name != "catalog" || reg.Address != c.wantHost || reg.Port != c.wantPort || reg.ID != c.wantID {
				t.Errorf("registration = name %q address %q port %d id %q", reg.Name, reg.Address, reg.Port, reg.ID)
			}
			if reg.Check == nil || reg.Check.HTTP != c.wantHealth {
				t.Errorf("health check = %+v, want HTTP %s", reg.Check, c.wantHealth)
			}
			if err := dereg(ctx); err != nil {
				t.Fatal(err)
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.deregistered) != 1 || f.deregistered[0] != c.wantID {
				t.Errorf("deregistered = %v, want [%s]", f.deregistered, c.wantID)
			}
		})
	}
}

func TestDiscoveryConsulErrors(t *testing.T) {
	cases := []struct {
		name      string
		advertise string
		fail      bool
		wantErr   string
	}{
		{"advertise without port", "10.1.2.3", false, "ADVERTISE_ADDR"},
		{"advertise with bad port", "10.1.2.3:http", false, "port"},
		{"agent refuses", "10.1.2.3:9001", true, "register catalog"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, srv := newFakeConsul(t)
			f.failRegister = c.fail
			cfg := Config{ConsulAddr: srv.URL, AdvertiseAddr: c.advertise, HTTPAddr: "127.0.0.1:8080"}
			r, dereg, err := cfg.Discovery(context.Background(), "catalog", slog.New(slog.DiscardHandler))
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, c.wantErr)
			}
			if r != nil {
				t.Errorf("resolver %T returned with an error", r)
			}
			if dereg == nil || dereg(context.Background()) != nil {
				t.Error("the deregistration returned with an error must be a callable no-op")
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if len(f.registered) != 0 {
				t.Errorf("registered %v despite the error", f.registered)
			}
		})
	}
}

// A service on its own needs MONGODB_URI: without it each replica would open a
// private embedded database. DB_EMBEDDED=true allows it for local runs, loudly.
func TestRunServiceNeedsMongoDBUnlessEmbeddedIsAsked(t *testing.T) {
	m := service.Module{Name: "probe", Build: func(context.Context, service.Env) (*service.Built, error) {
		return &service.Built{Registry: ops.NewRegistry("probe")}, nil
	}}
	vars := map[string]string{"HTTP_ADDR": "127.0.0.1:0", "KAFKA_BROKERS": "127.0.0.1:1", "DATA_DIR": t.TempDir(), "AUTH_DEV_SECRET": devSecret}
	var out bytes.Buffer
	err := RunService(context.Background(), m, env(vars), &out)
	if err == nil || !strings.Contains(err.Error(), "MONGODB_URI is required") || !strings.Contains(err.Error(), "DB_EMBEDDED=true") {
		t.Fatalf("without MONGODB_URI: %v", err)
	}

	vars["DB_EMBEDDED"] = "true"
	var logs logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunService(ctx, m, env(vars), &logs) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "service listening") {
		if time.Now().After(deadline) {
			t.Fatalf("the embedded service did not start; logs:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("embedded run: %v", err)
	}
	if !strings.Contains(logs.String(), `"level":"WARN"`) || !strings.Contains(logs.String(), "DB_EMBEDDED=true") {
		t.Fatalf("the embedded database was not announced loudly:\n%s", logs.String())
	}
}

var (
	testPrivate, _ = serviceauth.GenerateKey()
	testKey        = serviceauth.EncodePrivateKey(testPrivate)
	testPublic     = serviceauth.EncodePublicKey(testPrivate.Public().(ed25519.PublicKey))
)

// The shared token is refused with the names of the settings that replace it.
func TestLegacyInternalTokenIsRefused(t *testing.T) {
	_, err := Load(env(map[string]string{"INTERNAL_SERVICE_TOKEN": "0123456789abcdef"}))
	for _, name := range []string{"SERVICE_KEY", "SERVICE_KEY_FILE", "SERVICE_PUBLIC_KEYS", "INTERNAL_CALLERS", "marketplace keygen"} {
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("the refusal does not name %s: %v", name, err)
		}
	}
	// Given as a file (a mounted Secret, as every secret could be) it is
	// refused alike, not silently ignored.
	_, err = Load(env(map[string]string{"INTERNAL_SERVICE_TOKEN_FILE": "/run/secrets/internal-token"}))
	if err == nil || !strings.Contains(err.Error(), "INTERNAL_SERVICE_TOKEN_FILE") || !strings.Contains(err.Error(), "SERVICE_KEY") {
		t.Errorf("INTERNAL_SERVICE_TOKEN_FILE: %v, want refused", err)
	}
}

// A service's key comes from SERVICE_KEY or from the file SERVICE_KEY_FILE
// names (base64 or PEM, as a mounted Secret holds it); the start line masks
// SERVICE_KEY.
func TestCredentials(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	der, _ := x509.MarshalPKCS8PrivateKey(testPrivate)
	pemFile := write("key.pem", string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
	for name, vars := range map[string]map[string]string{
		"SERVICE_KEY":              {"SERVICE_KEY": testKey},
		"SERVICE_KEY_FILE, base64": {"SERVICE_KEY_FILE": write("key", testKey+"\n")},
		"SERVICE_KEY_FILE, PEM":    {"SERVICE_KEY_FILE": pemFile},
	} {
		vars["SERVICE_PUBLIC_KEYS"], vars["INTERNAL_CALLERS"] = "payouts="+testPublic, "payouts"
		cfg, err := Load(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		c, err := cfg.Credentials()
		if err != nil || !c.Key.Equal(testPrivate) || !c.Peers["payouts"].Equal(testPrivate.Public()) || !reflect.DeepEqual(c.Callers, []string{"payouts"}) {
			t.Errorf("%s: %+v %v", name, c, err)
		}
		if d := config.Describe(&cfg); strings.Contains(d, testKey) {
			t.Errorf("%s: the start line shows the key: %s", name, d)
		}
	}
	for name, c := range map[string]struct{ file, want string }{
		"a missing file": {filepath.Join(dir, "nope"), "SERVICE_KEY_FILE"},
		"an empty file":  {write("empty", "\n"), "SERVICE_KEY_FILE"},
		"not a key":      {write("junk", "junk!"), "SERVICE_KEY: must be an Ed25519 key"},
	} {
		if _, err := Load(env(map[string]string{"SERVICE_KEY_FILE": c.file})); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := Load(env(map[string]string{"SERVICE_KEY": testKey, "SERVICE_KEY_FILE": pemFile})); err == nil {
		t.Error("SERVICE_KEY and SERVICE_KEY_FILE at once accepted")
	}
	cfg, _ := Load(env(nil))
	if c, err := cfg.Credentials(); err != nil || c.Key != nil || len(c.Peers) != 0 || len(c.Callers) != 0 {
		t.Fatalf("none set: %+v %v", c, err)
	}
}

// A service run on its own without keys: one that declares calls does not
// start (it names the setting and the command that makes a key); one with
// internal operations starts and warns that no service can call them; keys
// that cannot work stop the start.
func TestRunServiceWithoutKeys(t *testing.T) {
	internal := ops.NewMutation("probe.things.internal", ops.Internal, "", func(context.Context, *ops.NoArgs) (string, error) { return "ok", nil }, ops.CalledBy("payouts"))
	m := service.Module{Name: "probe", Calls: []string{"catalog"}, Build: func(context.Context, service.Env) (*service.Built, error) {
		return &service.Built{Registry: ops.NewRegistry("probe", internal)}, nil
	}}
	vars := map[string]string{"HTTP_ADDR": "127.0.0.1:0", "KAFKA_BROKERS": "127.0.0.1:1", "DATA_DIR": t.TempDir(), "AUTH_DEV_SECRET": devSecret, "DB_EMBEDDED": "true"}
	var out bytes.Buffer
	err := RunService(context.Background(), m, env(vars), &out)
	if err == nil || !strings.Contains(err.Error(), "calls catalog") || !strings.Contains(err.Error(), "set SERVICE_KEY or SERVICE_KEY_FILE") ||
		!strings.Contains(err.Error(), "marketplace keygen probe") {
		t.Fatalf("a caller without a key: %v", err)
	}

	vars["INTERNAL_CALLERS"] = "payouts"
	vars["SERVICE_KEY"] = testKey
	if err := RunService(context.Background(), m, env(vars), &out); err == nil || !strings.Contains(err.Error(), "INTERNAL_CALLERS names payouts") {
		t.Fatalf("a caller without a public key: %v", err)
	}
	other, _ := serviceauth.GenerateKey()
	vars["SERVICE_PUBLIC_KEYS"] = "payouts=" + testPublic + ",probe=" + serviceauth.EncodePublicKey(other.Public().(ed25519.PublicKey))
	if err := RunService(context.Background(), m, env(vars), &out); err == nil || !strings.Contains(err.Error(), "SERVICE_KEY is not the key") {
		t.Fatalf("a key that is not the published one: %v", err)
	}

	m.Calls = nil
	delete(vars, "SERVICE_KEY")
	delete(vars, "SERVICE_PUBLIC_KEYS")
	delete(vars, "INTERNAL_CALLERS")
	var logs logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunService(ctx, m, env(vars), &logs) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(logs.String(), "service listening") {
		if time.Now().After(deadline) {
			t.Fatalf("the service did not start; logs:\n%s", logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	warned := false
	for _, r := range logs.Records(t) {
		if r["level"] == "WARN" && strings.Contains(r["msg"].(string), "no other service can call this service's internal operations") &&
			strings.Contains(r["msg"].(string), "INTERNAL_CALLERS") {
			warned = true
		}
	}
	if !warned {
		t.Fatalf("no warning about the internal operations:\n%s", logs.String())
	}
}

func TestMemoryLimitSetting(t *testing.T) {
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	load := func(e map[string]string) Config {
		t.Helper()
		c, err := Load(env(e))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := load(map[string]string{"DB_MEMORY_LIMIT": "2GiB"})
	lim, err := c.MemoryLimit(env(nil), logger, false)
	if err != nil || lim.Bytes() != 2<<30 {
		t.Fatalf("2GiB: %v %v", lim.Bytes(), err)
	}
	c = load(map[string]string{"DB_MEMORY_LIMIT": "off"})
	if lim, err := c.MemoryLimit(env(nil), logger, false); err != nil || lim != nil {
		t.Fatalf("off: %v %v", lim, err)
	}
	// No limit on MongoDB: the engine's memory is not this process's.
	c = load(map[string]string{"DB_MEMORY_LIMIT": "2GiB", "MONGODB_URI": "mongodb://db:27017/?replicaSet=rs0"})
	if lim, err := c.MemoryLimit(env(nil), logger, false); err != nil || lim != nil {
		t.Fatalf("MongoDB: %v %v", lim, err)
	}
	// The default is auto: half the memory available, where it can be read.
	c = load(nil)
	if c.DBMemoryLimit != "auto" {
		t.Fatalf("default %q, want auto", c.DBMemoryLimit)
	}
	lim, err = c.MemoryLimit(env(nil), logger, false)
	if err != nil {
		t.Fatal(err)
	}
	if n, _, ok := store.MemoryAvailable(); ok {
		if want := int64(float64(n) * store.DefaultMemoryFraction); lim.Bytes() != want {
			t.Fatalf("auto: %d, want %d (half of %d)", lim.Bytes(), want, n)
		}
	} else if lim != nil {
		t.Fatalf("auto where the memory cannot be read: %d, want off", lim.Bytes())
	}
	// The runtime's soft limit: a quarter above, unless GOMEMLIMIT says.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	lim = store.NewMemoryLimit(1 << 30)
	if got := lim.SetRuntimeLimit(env(map[string]string{"GOMEMLIMIT": "3GiB"})); got != 0 {
		t.Fatalf("with GOMEMLIMIT set, the soft limit was set to %d", got)
	}
	if got := lim.SetRuntimeLimit(env(nil)); got != 5<<28 || debug.SetMemoryLimit(-1) != 5<<28 {
		t.Fatalf("soft limit %d, want %d", got, 5<<28)
	}
}
