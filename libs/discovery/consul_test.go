package discovery

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/consul/api"
)

// fakeConsul mimics the three Consul agent HTTP endpoints this package uses.
// The agent is mocked because no Consul agent can be installed or run on the
// machine these tests were written on; the real api client is still used, so
// request shapes and paths are the ones production sends.
type fakeConsul struct {
	t *testing.T

	mu            sync.Mutex
	registered    []api.AgentServiceRegistration
	registerQuery []string
	deregistered  []string
	healthCalls   map[string]int
	instances     map[string][]fakeInstance
	healthStatus  int // non-zero: answer health queries with this status
}

type fakeInstance struct {
	address, nodeAddress string
	port                 int
	passing              bool
}

func newFakeConsul(t *testing.T) (*fakeConsul, *httptest.Server) {
	f := &fakeConsul{t: t, healthCalls: map[string]int{}, instances: map[string][]fakeInstance{}}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeConsul) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	case r.Method == http.MethodPut && r.URL.Path == "/v1/agent/service/register":
		var reg api.AgentServiceRegistration
		if err := json.NewDecoder(r.Body).Decode(&reg); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		f.registered = append(f.registered, reg)
		f.registerQuery = append(f.registerQuery, r.URL.RawQuery)
	case r.Method == http.MethodPut && strings.HasPrefix(r.URL.Path, "/v1/agent/service/deregister/"):
		f.deregistered = append(f.deregistered, strings.TrimPrefix(r.URL.Path, "/v1/agent/service/deregister/"))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/health/service/"):
		name := strings.TrimPrefix(r.URL.Path, "/v1/health/service/")
		f.healthCalls[name]++
		if f.healthStatus != 0 {
			http.Error(w, "agent unavailable", f.healthStatus)
			return
		}
		// Like Consul, ?passing filters out instances with a failing check.
		passingOnly := r.URL.Query().Has("passing")
		if !passingOnly {
			f.t.Errorf("health query without ?passing: %s", r.URL)
		}
		out := []api.ServiceEntry{}
		for _, in := range f.instances[name] {
			if passingOnly && !in.passing {
				continue
			}
			out = append(out, api.ServiceEntry{
				Node:    &api.Node{Address: in.nodeAddress},
				Service: &api.AgentService{Service: name, Address: in.address, Port: in.port},
			})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(out)
	default:
		f.t.Errorf("unexpected request %s %s", r.Method, r.URL)
		http.NotFound(w, r)
	}
}

func (f *fakeConsul) calls(service string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.healthCalls[service]
}

func TestNewConsulRejectsEmptyAddress(t *testing.T) {
	if _, err := NewConsul("", nil); err == nil {
		t.Fatal("want error for empty address")
	}
}

func TestConsulRegisterDeregister(t *testing.T) {
	f, srv := newFakeConsul(t)
	c, err := NewConsul(srv.URL, nil) // "http://127.0.0.1:port" form
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	dereg, err := c.Register(ctx, Registration{
		Service:   "catalog",
		ID:        "catalog-1",
		Address:   "10.0.0.7",
		Port:      8080,
		HealthURL: "http://10.0.0.7:8080/readyz",
		Tags:      []string{"v1"},
	})
	if err != nil {
		t.Fatal(err)
	}

	f.mu.Lock()
	if len(f.registered) != 1 {
		f.mu.Unlock()
		t.Fatalf("registrations = %d, want 1", len(f.registered))
	}
	reg, query := f.registered[0], f.registerQuery[0]
	f.mu.Unlock()
	if reg.Name != "catalog" || reg.ID != "catalog-1" || reg.Address != "10.0.0.7" || reg.Port != 8080 {
		t.Errorf("registration = %+v", reg)
	}
	if len(reg.Tags) != 1 || reg.Tags[0] != "v1" {
		t.Errorf("tags = %v", reg.Tags)
	}
	if reg.Check == nil {
		t.Fatal("no check registered")
	}
	if reg.Check.HTTP != "http://10.0.0.7:8080/readyz" || reg.Check.Interval != "10s" ||
		reg.Check.Timeout != "2s" || reg.Check.DeregisterCriticalServiceAfter != "1m" {
		t.Errorf("check = %+v", reg.Check)
	}
	if !strings.Contains(query, "replace-existing-checks=true") {
		t.Errorf("register query = %q, want replace-existing-checks", query)
	}

	if err := dereg(ctx); err != nil {
		t.Fatal(err)
	}
	if err := dereg(ctx); err != nil { // second call is a no-op
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.deregistered) != 1 || f.deregistered[0] != "catalog-1" {
		t.Errorf("deregistered = %v, want [catalog-1]", f.deregistered)
	}
}

func TestConsulRegisterDefaultsIDAndValidates(t *testing.T) {
	f, srv := newFakeConsul(t)
	c, err := NewConsul(strings.TrimPrefix(srv.URL, "http://"), nil) // "host:port" form
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(context.Background(), Registration{Service: "catalog", Port: 8080}); err == nil {
		t.Fatal("want error without health URL")
	}
	if _, err := c.Register(context.Background(), Registration{
		Service: "catalog", Address: "10.0.0.7", Port: 8080, HealthURL: "http://10.0.0.7:8080/readyz",
	}); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if got := f.registered[0].ID; got != "catalog-10.0.0.7-8080" {
		t.Errorf("default ID = %q", got)
	}
}

func TestConsulResolvePassingRoundRobinAndCache(t *testing.T) {
	f, srv := newFakeConsul(t)
	f.instances["catalog"] = []fakeInstance{
		{address: "10.0.0.2", port: 8080, passing: true},
		{address: "10.0.0.3", port: 8080, passing: false}, // critical: must never be returned
		{address: "", nodeAddress: "10.0.0.1", port: 9090, passing: true},
	}
	clock := time.Unix(1_700_000_000, 0)
	c, err := NewConsul(srv.URL, nil, WithTTL(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return clock }
	ctx := context.Background()

	var got []string
	for range 4 {
		u, err := c.Resolve(ctx, "catalog")
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, u)
	}
	want := []string{"http://10.0.0.1:9090", "http://10.0.0.2:8080", "http://10.0.0.1:9090", "http://10.0.0.2:8080"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("resolved %v, want %v", got, want)
	}
	if n := f.calls("catalog"); n != 1 {
		t.Fatalf("health calls within TTL = %d, want 1", n)
	}

	// Past the TTL the answer is refreshed and the new instance set is used.
	f.mu.Lock()
	f.instances["catalog"] = []fakeInstance{{address: "10.0.0.9", port: 80, passing: true}}
	f.mu.Unlock()
	clock = clock.Add(time.Minute + time.Second)
	u, err := c.Resolve(ctx, "catalog")
	if err != nil || u != "http://10.0.0.9:80" {
		t.Fatalf("after TTL: %q, %v", u, err)
	}
	if n := f.calls("catalog"); n != 2 {
		t.Fatalf("health calls after TTL = %d, want 2", n)
	}
}

func TestConsulResolveNoInstance(t *testing.T) {
	f, srv := newFakeConsul(t)
	f.instances["catalog"] = []fakeInstance{{address: "10.0.0.3", port: 8080, passing: false}}
	c, err := NewConsul(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"catalog", "unknown"} {
		if _, err := c.Resolve(context.Background(), name); !errors.Is(err, ErrNoInstance) {
			t.Errorf("Resolve(%q) err = %v, want ErrNoInstance", name, err)
		}
	}
}

func TestConsulResolveConsulDown(t *testing.T) {
	f, srv := newFakeConsul(t)
	f.instances["catalog"] = []fakeInstance{{address: "10.0.0.2", port: 8080, passing: true}}
	clock := time.Unix(1_700_000_000, 0)
	c, err := NewConsul(srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.now = func() time.Time { return clock }
	ctx := context.Background()

	if _, err := c.Resolve(ctx, "catalog"); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.healthStatus = http.StatusInternalServerError
	f.mu.Unlock()

	// Known service: last answer is reused.
	clock = clock.Add(DefaultTTL + time.Second)
	if u, err := c.Resolve(ctx, "catalog"); err != nil || u != "http://10.0.0.2:8080" {
		t.Fatalf("stale fallback: %q, %v", u, err)
	}
	// Never resolved before: nothing to fall back on.
	if _, err := c.Resolve(ctx, "orders"); !errors.Is(err, ErrNoInstance) {
		t.Fatalf("err = %v, want ErrNoInstance", err)
	}
}
