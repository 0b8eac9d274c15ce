package ops

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"marketplace/libs/apperr"
)

func TestKnownOperations(t *testing.T) {
	known := KnownOperations(testRegistry(), []Route{{Method: "POST", Path: "/hooks/:id"}})
	for op, want := range map[string]bool{
		"t.ops.public": true, "t.ops.internal": true, "POST /hooks/:id": true,
		"t.ops.nope": false, "POST /hooks/1": false, "": false,
	} {
		if known(op) != want {
			t.Errorf("known(%q) = %v", op, !want)
		}
	}
}

// A call made inside a trace gets a client span, and the callee sees that
// span as its parent in the request's traceparent; a call outside any trace
// sends no trace context and makes no span.
func TestClientPropagatesTheTrace(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})

	var mu sync.Mutex
	var got []string
	app := fiber.New()
	app.Use(func(c *fiber.Ctx) error {
		mu.Lock()
		got = append(got, strings.Clone(c.Get("traceparent"))) // Get points into a reused buffer
		mu.Unlock()
		return c.Next()
	})
	(&Server{Registry: testRegistry()}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	defer app.Shutdown()
	c := NewClient(staticResolver{"t": "http://" + ln.Addr().String()}, nil, 2*time.Second)

	var s string
	if err := c.Query(context.Background(), "t", "t.ops.public", nil, &s); err != nil {
		t.Fatal(err)
	}
	ctx, parent := tp.Tracer("test").Start(context.Background(), "handler")
	if err := c.Query(ctx, "t", "t.ops.public", nil, &s); err != nil {
		t.Fatal(err)
	}
	// A failing call still ends its span, marked with the code.
	if err := c.Query(ctx, "t", "t.ops.nope", nil, &s); apperr.CodeOf(err) != apperr.Internal {
		t.Fatalf("unknown operation: %v", err)
	}
	parent.End()

	mu.Lock()
	defer mu.Unlock()
	if len(got) != 3 || got[0] != "" || got[1] == "" || got[2] == "" {
		t.Fatalf("traceparent headers received: %q", got)
	}
	var clients []sdktrace.ReadOnlySpan
	for _, s := range exp.GetSpans().Snapshots() {
		if s.SpanKind() == trace.SpanKindClient {
			clients = append(clients, s)
		}
	}
	if len(clients) != 2 {
		t.Fatalf("%d client spans, want 2 (none outside the trace)", len(clients))
	}
	for i, s := range clients {
		if s.Parent().SpanID() != parent.SpanContext().SpanID() || s.SpanContext().TraceID() != parent.SpanContext().TraceID() {
			t.Errorf("client span %s: parent %s, want the caller's span", s.Name(), s.Parent().SpanID())
		}
		want := "00-" + s.SpanContext().TraceID().String() + "-" + s.SpanContext().SpanID().String() + "-01"
		if got[i+1] != want {
			t.Errorf("call %d sent traceparent %q, want its client span %q", i+1, got[i+1], want)
		}
	}
	if clients[0].Name() != "t.ops.public" || clients[1].Name() != "t.ops.nope" {
		t.Errorf("span names %q, %q", clients[0].Name(), clients[1].Name())
	}
	if clients[1].Status().Code.String() != "Error" {
		t.Errorf("failed call's span status %v", clients[1].Status())
	}
}
