package events

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// An event committed inside a trace is published in a producer span that is
// a child of the span that committed it, and processed in a consumer span
// that is a child of the producer span; the handler runs inside the latter.
// An event committed outside any trace is published without a span.
func TestEventContinuesTheTraceOfItsStateChange(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	otel.SetTracerProvider(tp)
	defer otel.SetTracerProvider(noop.NewTracerProvider()) // the other tests run without spans

	h := newHarness(t, "")
	var mu sync.Mutex
	handled := map[string]trace.SpanContext{}
	seen := make(chan string, 10)
	h.startConsumer("g1", h.db, func(ctx context.Context, env Envelope) error {
		mu.Lock()
		handled[env.ID] = trace.SpanContextFromContext(ctx)
		mu.Unlock()
		seen <- env.ID
		return nil
	}, 0)
	relay := NewRelay(h.db, h.pub, h.logger)
	h.startRelay(relay)

	ctx, change := tp.Tracer("test").Start(h.ctx, "state change")
	traced := h.commit(ctx, "ord_1", map[string]int{"n": 1})
	change.End()
	untraced := h.commit(h.ctx, "ord_2", map[string]int{"n": 2})
	relay.Kick()
	for range 2 {
		select {
		case <-seen:
		case <-time.After(8 * time.Second):
			t.Fatal("events not handled")
		}
	}

	var publish, process []sdktrace.ReadOnlySpan
	waitFor(t, 2*time.Second, func() bool {
		publish, process = nil, nil
		for _, s := range exp.GetSpans().Snapshots() {
			switch s.SpanKind() {
			case trace.SpanKindProducer:
				publish = append(publish, s)
			case trace.SpanKindConsumer:
				process = append(process, s)
			}
		}
		return len(publish) >= 1 && len(process) >= 2
	})
	if len(publish) != 1 {
		t.Fatalf("%d publish spans, want 1 (none for the untraced event)", len(publish))
	}
	p := publish[0]
	if p.Name() != "publish "+topic || p.Parent().SpanID() != change.SpanContext().SpanID() || p.SpanContext().TraceID() != change.SpanContext().TraceID() {
		t.Fatalf("publish span %q: parent %s, want the state change's %s", p.Name(), p.Parent().SpanID(), change.SpanContext().SpanID())
	}
	if !hasAttr(p.Attributes(), "messaging.message.id", traced.ID) {
		t.Errorf("publish span attributes %v", p.Attributes())
	}
	var tracedProcess sdktrace.ReadOnlySpan
	for _, s := range process {
		if hasAttr(s.Attributes(), "messaging.message.id", traced.ID) {
			tracedProcess = s
		}
	}
	if tracedProcess == nil {
		t.Fatal("no process span for the traced event")
	}
	if tracedProcess.Parent().SpanID() != p.SpanContext().SpanID() || tracedProcess.SpanContext().TraceID() != p.SpanContext().TraceID() {
		t.Fatalf("process span's parent %s, want the publish span %s", tracedProcess.Parent().SpanID(), p.SpanContext().SpanID())
	}
	mu.Lock()
	defer mu.Unlock()
	if handled[traced.ID].SpanID() != tracedProcess.SpanContext().SpanID() {
		t.Errorf("handler ran in span %s, want the process span %s", handled[traced.ID].SpanID(), tracedProcess.SpanContext().SpanID())
	}
	if handled[untraced.ID].TraceID() == change.SpanContext().TraceID() {
		t.Error("the untraced event joined the other's trace")
	}
	// On the wire the message carries the publish span's context.
	for _, m := range readTopic(t, h.broker.Addrs(), topic, 2) {
		env, _ := Decode(m.Value)
		tp := HeadersFromKafka(m.Headers)["traceparent"]
		switch env.ID {
		case traced.ID:
			if want := "00-" + p.SpanContext().TraceID().String() + "-" + p.SpanContext().SpanID().String() + "-01"; tp != want {
				t.Errorf("traceparent %q, want %q", tp, want)
			}
		case untraced.ID:
			if tp != "" {
				t.Errorf("untraced event carries traceparent %q", tp)
			}
		}
	}
}

func hasAttr(attrs []attribute.KeyValue, key, value string) bool {
	for _, a := range attrs {
		if string(a.Key) == key && a.Value.AsString() == value {
			return true
		}
	}
	return false
}

// gauges collects the int64 gauges and sums of reader by metric name and
// attribute set.
func collectInts(t *testing.T, reader sdkmetric.Reader) map[string]map[attribute.Distinct]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[attribute.Distinct]int64{}
	add := func(name string, set attribute.Set, v int64) {
		if out[name] == nil {
			out[name] = map[attribute.Distinct]int64{}
		}
		out[name][set.Equivalent()] = v
	}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			switch d := m.Data.(type) {
			case metricdata.Gauge[int64]:
				for _, dp := range d.DataPoints {
					add(m.Name, dp.Attributes, dp.Value)
				}
			case metricdata.Sum[int64]:
				for _, dp := range d.DataPoints {
					add(m.Name, dp.Attributes, dp.Value)
				}
			case metricdata.Gauge[float64]:
				for _, dp := range d.DataPoints {
					add(m.Name, dp.Attributes, int64(dp.Value*1000)) // milliseconds
				}
			}
		}
	}
	return out
}

func labels(kv ...string) attribute.Distinct {
	var attrs []attribute.KeyValue
	for i := 0; i < len(kv); i += 2 {
		attrs = append(attrs, attribute.String(kv[i], kv[i+1]))
	}
	set := attribute.NewSet(attrs...)
	return set.Equivalent()
}

func TestOutboxAndConsumerMetrics(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	otel.SetMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)))
	h := newHarness(t, "")
	stop, err := ObserveOutbox(h.db, "orders-svc")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	svc := labels("service", "orders-svc")

	// Empty: no backlog, no age.
	got := collectInts(t, reader)
	if b, ok := got["marketplace.outbox.backlog"][svc]; !ok || b != 0 || got["marketplace.outbox.oldest_age"][svc] != 0 {
		t.Fatalf("empty outbox: backlog %v (present %v), age %v ms", b, ok, got["marketplace.outbox.oldest_age"][svc])
	}

	// Three events waiting, the oldest for at least 50 ms.
	var ids []string
	for i := range 3 {
		ids = append(ids, h.commit(h.ctx, "ord_1", map[string]int{"n": i}).ID)
		if i == 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	got = collectInts(t, reader)
	if b := got["marketplace.outbox.backlog"][svc]; b != 3 {
		t.Fatalf("backlog %d, want 3", b)
	}
	if age := got["marketplace.outbox.oldest_age"][svc]; age < 50 || age > 5000 {
		t.Fatalf("oldest age %d ms, want at least 50", age)
	}

	// A consumer that parks the second event.
	poison := ids[1]
	rec := newRecorder()
	rec.fail = func(e Envelope) error {
		if e.ID == poison {
			return errors.New("cannot apply")
		}
		return nil
	}
	group := labels("group", "g1", "topic", topic)
	h.startConsumer("g1", h.db, rec.handle, 1, func(c *ConsumerConfig) { c.CheckInterval = 100 * time.Millisecond })
	waitFor(t, 5*time.Second, func() bool {
		_, ok := collectInts(t, reader)["marketplace.events.dead_lettered"][group]
		return ok
	})
	if n := collectInts(t, reader)["marketplace.events.dead_lettered"][group]; n != 0 {
		t.Fatalf("dead-lettered %d before any event was handled, want 0", n)
	}

	h.startRelay(NewRelay(h.db, h.pub, h.logger))
	rec.waitSeen(t, 8*time.Second, ids[0], ids[2])
	waitFor(t, 5*time.Second, func() bool {
		got := collectInts(t, reader)
		lag, lagSeen := got["marketplace.consumer.lag"][group]
		return got["marketplace.events.dead_lettered"][group] == 1 && got["marketplace.outbox.backlog"][svc] == 0 &&
			got["marketplace.outbox.oldest_age"][svc] == 0 && lagSeen && lag == 0
	})
}
