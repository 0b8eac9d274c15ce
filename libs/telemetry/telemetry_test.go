package telemetry

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// Setup replaces process-global providers, so these tests run sequentially
// and only check what each one installed last.

func TestSetupRequiresServiceName(t *testing.T) {
	if _, err := Setup(context.Background(), Config{}); err == nil {
		t.Fatal("want error for empty service name")
	}
}

func TestSetupWithoutEndpoint(t *testing.T) {
	tel, err := Setup(context.Background(), Config{ServiceName: "catalog"})
	if err != nil {
		t.Fatal(err)
	}
	if tel.Tracing {
		t.Error("tracing is on without an endpoint")
	}
	_, span := otel.Tracer("test").Start(context.Background(), "op")
	if !span.SpanContext().TraceID().IsValid() {
		t.Error("span without exporter should still carry a trace ID")
	}
	span.End()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := tel.Shutdown(ctx); err != nil {
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

	tel, err := Setup(context.Background(), Config{ServiceName: "catalog", OTLPEndpoint: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	if !tel.Tracing {
		t.Error("tracing is off with an endpoint")
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
	if err := tel.Shutdown(ctx); err != nil {
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
	app.Use(FiberMiddleware("catalog", nil))
	ok := func(c *fiber.Ctx) error { return c.SendStatus(http.StatusOK) }
	app.Get("/livez", ok)
	app.Get("/readyz", ok)
	app.Get("/metrics", ok)
	app.Get("/items", ok)

	for _, path := range []string{"/livez", "/readyz", "/metrics", "/items"} {
		resp, err := app.Test(httptest.NewRequest(http.MethodGet, path, nil))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}

	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("got %d spans, want 1 (probes and metrics skipped)", len(spans))
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

func TestFiberMiddlewareNamesSpansByOperation(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec)))
	otel.SetTextMapPropagator(propagation.TraceContext{})

	app := fiber.New()
	app.Use(FiberMiddleware("customers", func(c *fiber.Ctx) string {
		op, _ := c.Locals("op").(string)
		if op == "customers.orders.get" {
			return op
		}
		return "" // a name the program does not know
	}))
	app.Post("/api/query", func(c *fiber.Ctx) error {
		c.Locals("op", c.Get("X-Op"))
		return c.SendStatus(http.StatusOK)
	})
	// The caller's trace context is continued.
	parent := "00-0102030405060708090a0b0c0d0e0f10-0102030405060708-01"
	for _, op := range []string{"customers.orders.get", "made.up.name"} {
		req := httptest.NewRequest(http.MethodPost, "/api/query", nil)
		req.Header.Set("X-Op", op)
		req.Header.Set("traceparent", parent)
		resp, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	spans := rec.Ended()
	if len(spans) != 2 {
		t.Fatalf("got %d spans", len(spans))
	}
	if spans[0].Name() != "customers.orders.get" || spans[1].Name() != "/api/query" {
		t.Errorf("span names %q, %q", spans[0].Name(), spans[1].Name())
	}
	for _, s := range spans {
		if s.Parent().TraceID().String() != "0102030405060708090a0b0c0d0e0f10" || s.Parent().SpanID().String() != "0102030405060708" {
			t.Errorf("span %s: parent %v, want the caller's", s.Name(), s.Parent())
		}
	}
}

func TestInjectHTTP(t *testing.T) {
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}))
	var h fasthttp.RequestHeader
	InjectHTTP(context.Background(), &h)
	if n := h.Len(); n != 0 {
		t.Fatalf("without a span, %d headers were written", n)
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, SpanID: trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}, TraceFlags: trace.FlagsSampled,
	})
	InjectHTTP(trace.ContextWithSpanContext(context.Background(), sc), &h)
	if got := string(h.Peek("traceparent")); got != "00-0102030405060708090a0b0c0d0e0f10-0102030405060708-01" {
		t.Fatalf("traceparent %q", got)
	}
}

func TestMetricsHandlerAndListener(t *testing.T) {
	tel, err := Setup(context.Background(), Config{ServiceName: "catalog"})
	if err != nil {
		t.Fatal(err)
	}
	defer tel.Shutdown(context.Background())
	counter, err := otel.Meter("test").Int64Counter("marketplace.test.calls")
	if err != nil {
		t.Fatal(err)
	}
	counter.Add(context.Background(), 3, metric.WithAttributes(attribute.String("service", "catalog")))

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- ServeMetrics(ctx, ln, tel.Metrics) }()
	base := "http://" + ln.Addr().String()

	resp, err := http.Get(base + MetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		`marketplace_test_calls_total{service="catalog"} 3`, // the OpenTelemetry instrument
		`target_info{`,               // the resource
		`service_name="catalog"`,     // ... naming the program
		"go_goroutines ",             // the runtime
		"process_cpu_seconds_total ", // the process
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	if strings.Contains(string(body), "otel_scope_name") {
		t.Error("series carry otel_scope_* labels")
	}
	// Nothing else is served there.
	for _, path := range []string{"/", "/livez", "/metrics/x"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeMetrics: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ServeMetrics did not stop")
	}
}

func TestSetupWithTracerProvider(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tel, err := Setup(context.Background(), Config{ServiceName: "marketplace", TracerProvider: tp})
	if err != nil {
		t.Fatal(err)
	}
	if !tel.Tracing {
		t.Error("tracing is off with a tracer provider handed in")
	}
	_, span := otel.Tracer("test").Start(context.Background(), "op")
	span.End()
	if err := tel.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := exp.GetSpans(); len(got) != 1 || got[0].Name != "op" {
		t.Fatalf("recorded %v", got)
	}
	// The provider is its owner's: still usable after Shutdown.
	_, span = tp.Tracer("test").Start(context.Background(), "after")
	span.End()
	if got := exp.GetSpans(); len(got) != 2 {
		t.Fatalf("provider was shut down: %d spans", len(got))
	}
}
