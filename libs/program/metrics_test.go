package program

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"marketplace/libs/logtest"
	"marketplace/libs/ops"
	"marketplace/libs/service"
	"marketplace/libs/telemetry"
)

func TestMetricsPlacement(t *testing.T) {
	tel, err := telemetry.Setup(context.Background(), telemetry.Config{ServiceName: "catalog"})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	logger := slog.New(slog.DiscardHandler)
	ctx := context.Background()

	// A service without METRICS_ADDR: on its own HTTP port.
	var c Config
	h, addr, stop, err := c.Metrics(ctx, tel, false, logger)
	if err != nil || h == nil || addr != "" {
		t.Fatalf("service without METRICS_ADDR: handler %v, addr %q, err %v", h != nil, addr, err)
	}
	stop()

	// METRICS_ADDR set: a listener of its own, for a service or a public program.
	for _, public := range []bool{false, true} {
		c.MetricsAddr = "127.0.0.1:0"
		h, addr, stop, err = c.Metrics(ctx, tel, public, logger)
		if err != nil || h != nil || addr == "" {
			t.Fatalf("METRICS_ADDR (public %v): handler %v, addr %q, err %v", public, h != nil, addr, err)
		}
		resp, err := http.Get("http://" + addr + telemetry.MetricsPath)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), "go_goroutines") {
			t.Fatalf("GET /metrics on %s: %d %.200s", addr, resp.StatusCode, body)
		}
		stop()
		if _, err := http.Get("http://" + addr + telemetry.MetricsPath); err == nil {
			t.Fatal("the metrics listener still answers after stop")
		}
	}

	// A METRICS_ADDR that cannot be had is an error, not a program without metrics.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	c.MetricsAddr = taken.Addr().String()
	if _, _, _, err := c.Metrics(ctx, tel, true, logger); err == nil || !strings.Contains(err.Error(), "METRICS_ADDR") {
		t.Fatalf("taken METRICS_ADDR: %v", err)
	}
}

// A service on its own serves its metrics on its own HTTP port: its requests
// by operation and code, its outbox and its collections.
func TestRunServiceServesMetrics(t *testing.T) {
	m := service.Module{Name: "probe", Build: func(context.Context, service.Env) (*service.Built, error) {
		return &service.Built{Registry: ops.NewRegistry("probe")}, nil
	}}
	vars := map[string]string{"HTTP_ADDR": "127.0.0.1:0", "KAFKA_BROKERS": "127.0.0.1:1", "DATA_DIR": t.TempDir(),
		"AUTH_DEV_SECRET": devSecret, "DB_EMBEDDED": "true"}
	var logs logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- RunService(ctx, m, env(vars), &logs) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	listening := regexp.MustCompile(`"msg":"service listening".*"addr":"([^"]+)"`)
	deadline := time.Now().Add(10 * time.Second)
	var addr string
	for addr == "" {
		if m := listening.FindStringSubmatch(logs.String()); m != nil {
			addr = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("the service did not start; logs:\n%s", logs.String())
		} else {
			time.Sleep(10 * time.Millisecond)
		}
	}
	get := func(path string) string {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
		}
		return string(b)
	}
	get("/ops")
	get("/ops")
	text := get("/metrics")
	for _, want := range []string{
		`marketplace_request_duration_seconds_count{code="200",operation="GET /ops",service="probe"} 2`,
		`marketplace_outbox_backlog{service="probe"} 0`,
		`marketplace_outbox_oldest_age_seconds{service="probe"} 0`,
		`marketplace_store_documents{collection="outbox",service="probe"} 0`,
		`target_info{service_name="probe"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s:\n%s", want, text)
		}
	}
}
