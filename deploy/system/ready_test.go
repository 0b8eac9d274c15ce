package system

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan Info, 1)
	done := make(chan error, 1)
	env := map[string]string{"HTTP_ADDR": "127.0.0.1:0", "METRICS_ADDR": "127.0.0.1:0"}
	go func() {
		done <- Run(ctx, Options{Getenv: func(k string) string { return env[k] }, Memory: true, Stdout: io.Discard,
			Modules: []service.Module{probe}, OnReady: func(i Info) { ready <- i }})
	}()
	var info Info
	select {
	case info = <-ready:
	case err := <-done:
		t.Fatalf("run: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("not ready in 60 s")
	}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get(info.BaseURL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
		t.Fatalf("readyz with every service ready: %d %s", code, body)
	}
	broken.Store(true)
	code, body := get("/readyz")
	var answer struct {
		Status string            `json:"status"`
		Failed map[string]string `json:"failed"`
	}
	_ = json.Unmarshal([]byte(body), &answer)
	if code != 503 || answer.Status != "not ready" || answer.Failed["service:probe"] != "not ready: thing: the thing is broken" || len(answer.Failed) != 1 {
		t.Fatalf("readyz with the probe service not ready: %d %s", code, body)
	}
	if code, body := get("/livez"); code != 200 {
		t.Fatalf("livez: %d %s", code, body)
	}
	broken.Store(false)
	if code, body := get("/readyz"); code != 200 {
		t.Fatalf("readyz once ready again: %d %s", code, body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
}
