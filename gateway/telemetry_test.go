package gateway

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
)

// With tracing on, a forwarded request carries the gateway's server span as
// its parent (operations and raw routes alike); requests are counted by the
// operations of the routing table, a made-up name under its route; and the
// public app never serves /metrics, whatever it is handed.
func TestGatewayTracesAndCountsByOperation(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	otel.SetTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))
	otel.SetTextMapPropagator(propagation.TraceContext{})
	reader := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))

	seen := make(chan http.Header, 16)
	url, stop := fakeService(t, seen)
	defer stop()
	v, _ := auth.NewHS256(secret, auth.Options{})
	logger := slog.New(slog.DiscardHandler)
	g := New(Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}), v, logger)
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := httpserver.Defaults()
	h.AccessLog, h.Tracing = false, true
	h.Metrics = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("leak")) })
	app := g.App(h, logger)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go app.Listener(ln)
	defer app.Shutdown()
	gw := "http://" + ln.Addr().String()
	for len(seen) > 0 { // the routing table's fetch of /ops
		<-seen
	}

	if st, body, _ := post(t, gw, "query", `{"path":"fake.things.echo","args":{"say":"hi"}}`); st != 200 || body != `"hi"` {
		t.Fatalf("echo: %d %s", st, body)
	}
	fwd := <-seen
	resp, err := http.Post(gw+"/processor/webhook", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	fwdRaw := <-seen
	if st, _, _ := post(t, gw, "query", `{"path":"made.up.name"}`); st != 404 {
		t.Fatalf("made-up operation: %d", st)
	}
	// The operations' own paths: a known one counted and traced by its
	// name, a made-up one under the family's route, its URL in neither.
	resp, err = http.Post(gw+"/api/query/fake/things/echo", "application/json", strings.NewReader(`{"say":"hi"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	<-seen
	for _, p := range []string{"/api/query/made/up/name", "/api/query/made/up/other", "/api/query/not.a.name"} {
		resp, err = http.Post(gw+p, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Fatalf("POST %s: %d", p, resp.StatusCode)
		}
	}
	resp, err = http.Get(gw + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("GET /metrics on the public port: %d", resp.StatusCode)
	}

	spans := map[string]trace.SpanContext{}
	for _, s := range exp.GetSpans().Snapshots() {
		if _, have := spans[s.Name()]; s.SpanKind() == trace.SpanKindServer && !have {
			spans[s.Name()] = s.SpanContext() // the first of a name: the calls above in order
		}
	}
	for name, hdr := range map[string]http.Header{"fake.things.echo": fwd, "POST /processor/webhook": fwdRaw} {
		sc, ok := spans[name]
		if !ok {
			t.Fatalf("no server span %q; spans %v", name, spans)
		}
		if want := "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"; hdr.Get("Traceparent") != want {
			t.Errorf("%s forwarded with traceparent %q, want the gateway span's %q", name, hdr.Get("Traceparent"), want)
		}
	}
	for name := range spans {
		if strings.Contains(name, "made") || strings.Contains(name, "not.a.name") {
			t.Errorf("a made-up operation name became a span name: %q", name)
		}
	}

	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if hist, ok := m.Data.(metricdata.Histogram[float64]); ok && m.Name == "marketplace.request.duration" {
				for _, dp := range hist.DataPoints {
					op, _ := dp.Attributes.Value(attribute.Key("operation"))
					code, _ := dp.Attributes.Value(attribute.Key("code"))
					svc, _ := dp.Attributes.Value(attribute.Key("service"))
					counts[svc.AsString()+" "+op.AsString()+" "+code.AsString()] += dp.Count
				}
			}
		}
	}
	for k, want := range map[string]uint64{
		"gateway fake.things.echo 200":        2,
		"gateway POST /processor/webhook 200": 1,
		"gateway POST /api/query 404":         1,
		"gateway POST /api/query/* 404":       3,
	} {
		if counts[k] != want {
			t.Errorf("%s counted %d times, want %d (all: %v)", k, counts[k], want, counts)
		}
	}
}
