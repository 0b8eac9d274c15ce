package telemetry

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// Setup replaces process-global providers, so these tests run sequentially
// and only check what each one installed last.

func TestSetupRequiresServiceName(t *testing.T) {
	if _, err := Setup(context.Background(), Config{}); err == nil {
		t.Fatal("want error for empty service name")
	}
}

func TestSetupWithoutEndpoint(t *testing.T) {
	shutdown, err := Setup(context.Background(), Config{ServiceName: "catalog"})
	if err != nil {
		t.Fatal(err)
	}
	_, span := otel.Tracer("test").Start(context.Background(), "op")
	if !span.SpanContext().TraceID().IsValid() {
		t.Error("span without exporter should still carry a trace ID")
	}
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func TestSetupExportsOverOTLPHTTP(t *testing.T) {
	var (
		mu    sync.Mutex
		posts = map[string]int{}
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		posts[r.Method+" "+r.URL.Path]++
		mu.Unlock()
		// An empty body is a valid (empty) protobuf export response.
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(http.StatusOK)
	}))
	defer srv.Close()

	shutdown, err := Setup(context.Background(), Config{ServiceName: "catalog", OTLPEndpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	_, span := otel.Tracer("test").Start(context.Background(), "op")
	span.End()
	counter, err := otel.Meter("test").Int64Counter("test.ops")
	if err != nil {
		t.Fatal(err)
	}
	counter.Add(context.Background(), 1)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}

	mu.Lock()
	defer mu.Unlock()
	if posts["POST /v1/traces"] == 0 {
		t.Errorf("no POST /v1/traces received; got %v", posts)
	}
	if posts["POST /v1/metrics"] == 0 {
		t.Errorf("no POST /v1/metrics received; got %v", posts)
	}
}

func TestSignalURLs(t *testing.T) {
	for _, tc := range []struct{ in, traces, metrics string }{
		{"http://collector:4318", "http://collector:4318/v1/traces", "http://collector:4318/v1/metrics"},
		{"collector:4318", "http://collector:4318/v1/traces", "http://collector:4318/v1/metrics"},
		{"https://otel.example.com/otlp/", "https://otel.example.com/otlp/v1/traces", "https://otel.example.com/otlp/v1/metrics"},
	} {
		tr, m, err := signalURLs(tc.in)
		if err != nil || tr != tc.traces || m != tc.metrics {
			t.Errorf("signalURLs(%q) = %q, %q, %v", tc.in, tr, m, err)
		}
	}
	for _, bad := range []string{"ftp://collector:4318", "http://"} {
		if _, _, err := signalURLs(bad); err == nil {
			t.Errorf("signalURLs(%q): want error", bad)
		}
	}
}

func TestFiberMiddlewareSkipsProbes(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))

	app := fiber.New()
	app.Use(FiberMiddleware("catalog"))
	ok := func(c *fiber.Ctx) error { return c.SendStatus(http.StatusOK) }
	app.Get("/livez", ok)
	app.Get("/readyz", ok)
	app.Get("/items", ok)

	for _, path := range []string{"/livez", "/readyz", "/items"} {
		resp, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}

	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("got %d spans, want 1 (probes skipped)", len(spans))
	}
	if got := spans[0].Name(); got != "/items" { // otelfiber names spans by route
		t.Errorf("span name = %q", got)
	}
}

func TestMongoMonitor(t *testing.T) {
	m := MongoMonitor()
	if m == nil || m.Started == nil || m.Succeeded == nil || m.Failed == nil {
		t.Fatalf("incomplete monitor: %+v", m)
	}
}
