package system_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	"marketplace/deploy/systemtest"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/service"
)

// The all-in-one's one readiness answer, the gateway's GET /readyz, asks each
// in-process service's own: a service whose check fails makes it 503 naming
// the service and why; ready again, 200. GET /livez answers 200 throughout.
func TestReadyzAsksEveryService(t *testing.T) {
	var broken atomic.Bool
	probe := service.Module{Name: "probe", Build: func(context.Context, service.Env) (*service.Built, error) {
		return &service.Built{Registry: ops.NewRegistry("probe"), Checks: []httpserver.Check{{Name: "thing", Fn: func(context.Context) error {
			if broken.Load() {
				return errors.New("the thing is broken")
			}
			return nil
		}}}}, nil
	}}
	s := systemtest.Start(t, systemtest.WithModules(probe))
	if r := s.Do("GET", "/readyz", nil, nil); r.Status != 200 || r.Map(t)["status"] != "ready" {
		t.Fatalf("readyz with every service ready: %d %s", r.Status, r.Body)
	}
	broken.Store(true)
	var answer struct {
		Status string            `json:"status"`
		Failed map[string]string `json:"failed"`
	}
	r := s.Do("GET", "/readyz", nil, nil)
	r.Decode(t, &answer)
	if r.Status != 503 || answer.Status != "not ready" || len(answer.Failed) != 1 ||
		answer.Failed["service:probe"] != "not ready: thing: the thing is broken" {
		t.Fatalf("readyz with the probe service not ready: %d %s", r.Status, r.Body)
	}
	if r := s.Do("GET", "/livez", nil, nil); r.Status != 200 {
		t.Fatalf("livez: %d %s", r.Status, r.Body)
	}
	broken.Store(false)
	if r := s.Do("GET", "/readyz", nil, nil); r.Status != 200 {
		t.Fatalf("readyz once ready again: %d %s", r.Status, r.Body)
	}
}

// One service whose check takes the whole readiness deadline leaves the
// others theirs: /readyz names only it (its own answer did not come in
// time), not every service checked after it ("quick" is asked after
// "probe"). The checks run at once.
func TestReadyzASlowServiceNamesOnlyItself(t *testing.T) {
	var slow atomic.Bool
	module := func(name string, check func(context.Context) error) service.Module {
		return service.Module{Name: name, Build: func(context.Context, service.Env) (*service.Built, error) {
			return &service.Built{Registry: ops.NewRegistry(name), Checks: []httpserver.Check{{Name: "thing", Fn: check}}}, nil
		}}
	}
	probe := module("probe", func(ctx context.Context) error {
		if slow.Load() {
			<-ctx.Done()
			return ctx.Err()
		}
		return nil
	})
	quick := module("quick", func(context.Context) error { return nil })
	s := systemtest.Start(t, systemtest.WithModules(probe, quick))
	if r := s.Do("GET", "/readyz", nil, nil); r.Status != 200 {
		t.Fatalf("readyz with every service ready: %d %s", r.Status, r.Body)
	}
	slow.Store(true)
	var answer struct {
		Failed map[string]string `json:"failed"`
	}
	r := s.Do("GET", "/readyz", nil, nil)
	r.Decode(t, &answer)
	if r.Status != 503 || len(answer.Failed) != 1 || answer.Failed["service:probe"] == "" {
		t.Fatalf("readyz with the probe service slow: %d %s (want only service:probe failed)", r.Status, r.Body)
	}
}
