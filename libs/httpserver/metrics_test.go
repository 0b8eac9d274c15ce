package httpserver

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"marketplace/libs/apperr"
)

// requestCounts collects the request histogram's counts by service,
// operation and code.
func requestCounts(t *testing.T, reader sdkmetric.Reader) map[[3]string]uint64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[[3]string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != requestDurationMetric {
				continue
			}
			if m.Unit != "s" {
				t.Errorf("unit %q, want s", m.Unit)
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is a %T", m.Name, m.Data)
			}
			for _, dp := range h.DataPoints {
				get := func(k string) string { v, _ := dp.Attributes.Value(attribute.Key(k)); return v.AsString() }
				out[[3]string{get("service"), get("operation"), get("code")}] += dp.Count
			}
		}
	}
	return out
}

func TestRequestMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))

	cfg := Defaults()
	cfg.AccessLog = false
	cfg.KnownOp = func(op string) bool { return op == "t.things.get" }
	cfg.Metrics = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "# the metrics\n") })
	app := New("things", cfg, slog.New(slog.DiscardHandler), nil)
	app.Get("/things/:id", func(c *fiber.Ctx) error {
		c.Locals("op", "t.things.get")
		return c.SendString(c.Params("id"))
	})
	app.Post("/api/query", func(c *fiber.Ctx) error {
		c.Locals("op", c.Get("X-Op")) // whatever a client sent
		return WriteError(c, errNotFoundOp)
	})
	app.Get("/panic", func(c *fiber.Ctx) error { panic("boom") })

	send := func(method, path string, hdr ...string) int {
		req := httptest.NewRequest(method, path, nil)
		if len(hdr) == 2 {
			req.Header.Set(hdr[0], hdr[1])
		}
		resp, _ := do(t, app, req)
		return resp.StatusCode
	}
	for i := range 3 {
		if got := send("GET", "/things/"+string(rune('a'+i))); got != 200 {
			t.Fatalf("GET /things: %d", got)
		}
	}
	send("POST", "/api/query", "X-Op", "made.up.one")
	send("POST", "/api/query", "X-Op", "made.up.two")
	send("GET", "/panic")
	send("GET", "/nowhere")
	send("POST", "/things/a") // a path that exists for GET only: 405
	for _, p := range []string{"/livez", "/readyz"} {
		send("GET", p)
	}
	resp, body := do(t, app, httptest.NewRequest("GET", "/metrics", nil))
	if resp.StatusCode != 200 || string(body) != "# the metrics\n" {
		t.Fatalf("GET /metrics: %d %q", resp.StatusCode, body)
	}

	want := map[[3]string]uint64{
		{"things", "t.things.get", "200"}:    3,
		{"things", "POST /api/query", "404"}: 2, // made-up operation names never become labels
		{"things", "GET /panic", "500"}:      1,
		{"things", "unmatched", "404"}:       1,
		{"things", "unmatched", "405"}:       1,
	}
	got := requestCounts(t, reader)
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%v: %d requests counted, want %d", k, got[k], n)
		}
	}
	for k, n := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected series %v = %d (probes and /metrics are not counted)", k, n)
		}
	}
}

func TestNoMetricsEndpointUnlessGiven(t *testing.T) {
	app := New("things", Defaults(), slog.New(slog.DiscardHandler), nil)
	resp, _ := do(t, app, httptest.NewRequest("GET", "/metrics", nil))
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("GET /metrics without a handler: %d", resp.StatusCode)
	}
}

var errNotFoundOp = apperr.New(apperr.NotFound, "unknown operation")
