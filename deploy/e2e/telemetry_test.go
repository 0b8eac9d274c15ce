package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"marketplace/deploy/processor"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/contracts/customers"
)

// spanAttr is a span's string attribute.
func spanAttr(s sdktrace.ReadOnlySpan, key string) string {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.Emit()
		}
	}
	return ""
}

// One trace follows a webhook delivery from the gateway through the payments
// service, its call to the customers service, the order.created event on
// Kafka and the notifications consumer: each span is a child of the one
// before it.
func TestTraceFollowsTheWebhookToTheNotification(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	s := st.Start(t, st.WithTracerProvider(tp))
	sh := newShop(t, s)
	exp.Reset()

	body := processor.Event("evt_trace", "payment_intent.succeeded", sh.payment("pi_trace"))
	r := deliver(s, body)
	if r.Status != 200 {
		t.Fatalf("delivery answered %d %s", r.Status, r.Body)
	}
	eventually(t, "customer notification", func() bool { return count(inbox(t, s, sh.user), "order_created") == 1 })

	// The notification is stored before the consumer's span ends, and a
	// publish span ends at the broker's acknowledgement, which may come after
	// the consumer read the record: wait for those spans too.
	var spans []sdktrace.ReadOnlySpan
	eventually(t, "the order event's publish and notifications consumer spans", func() bool {
		spans = exp.GetSpans().Snapshots()
		var published, processed bool
		for _, sp := range spans {
			published = published || sp.SpanKind() == trace.SpanKindProducer && sp.Name() == "publish "+customers.TopicOrders
			processed = processed || sp.SpanKind() == trace.SpanKindConsumer && spanAttr(sp, "messaging.consumer.group.name") == "notifications"
		}
		return published && processed
	})
	find := func(what string, match func(sdktrace.ReadOnlySpan) bool) sdktrace.ReadOnlySpan {
		t.Helper()
		var found []sdktrace.ReadOnlySpan
		for _, sp := range spans {
			if match(sp) {
				found = append(found, sp)
			}
		}
		if len(found) != 1 {
			var all []string
			for _, sp := range spans {
				all = append(all, fmt.Sprintf("%s %q server=%q parent=%s", sp.SpanKind(), sp.Name(), spanAttr(sp, "http.server_name"), sp.Parent().SpanID()))
			}
			t.Fatalf("%s: %d spans match, want 1; spans:\n%s", what, len(found), strings.Join(all, "\n"))
		}
		return found[0]
	}
	server := func(service, name string) func(sdktrace.ReadOnlySpan) bool {
		return func(sp sdktrace.ReadOnlySpan) bool {
			return sp.SpanKind() == trace.SpanKindServer && spanAttr(sp, "http.server_name") == service && sp.Name() == name
		}
	}
	gatewaySpan := find("gateway server span", server("gateway", "POST /processor/webhook"))
	paymentsSpan := find("payments server span", server("payments", "POST /processor/webhook"))
	callSpan := find("payments' call to customers", func(sp sdktrace.ReadOnlySpan) bool {
		return sp.SpanKind() == trace.SpanKindClient && spanAttr(sp, "peer.service") == "customers" &&
			sp.Parent().SpanID() == paymentsSpan.SpanContext().SpanID()
	})
	customersSpan := find("customers server span", func(sp sdktrace.ReadOnlySpan) bool {
		return sp.SpanKind() == trace.SpanKindServer && spanAttr(sp, "http.server_name") == "customers" && sp.Name() == callSpan.Name()
	})
	publishSpan := find("order event publish span", func(sp sdktrace.ReadOnlySpan) bool {
		return sp.SpanKind() == trace.SpanKindProducer && sp.Name() == "publish "+customers.TopicOrders &&
			sp.SpanContext().TraceID() == gatewaySpan.SpanContext().TraceID()
	})
	processSpan := find("notifications consumer span", func(sp sdktrace.ReadOnlySpan) bool {
		return sp.SpanKind() == trace.SpanKindConsumer && spanAttr(sp, "messaging.consumer.group.name") == "notifications" &&
			sp.Parent().SpanID() == publishSpan.SpanContext().SpanID()
	})

	chain := []struct {
		name         string
		span, parent sdktrace.ReadOnlySpan
	}{
		{"payments server span", paymentsSpan, gatewaySpan},
		{"call to customers", callSpan, paymentsSpan},
		{"customers server span", customersSpan, callSpan},
		{"publish span", publishSpan, customersSpan},
		{"notifications process span", processSpan, publishSpan},
	}
	traceID := gatewaySpan.SpanContext().TraceID()
	if gatewaySpan.Parent().IsValid() {
		t.Errorf("the gateway's span has parent %s; the delivery started the trace", gatewaySpan.Parent().SpanID())
	}
	for _, c := range chain {
		if c.span.SpanContext().TraceID() != traceID {
			t.Errorf("%s is in trace %s, want %s", c.name, c.span.SpanContext().TraceID(), traceID)
		}
		if c.span.Parent().SpanID() != c.parent.SpanContext().SpanID() {
			t.Errorf("%s (%q) has parent %s, want %q (%s)", c.name, c.span.Name(), c.span.Parent().SpanID(), c.parent.Name(), c.parent.SpanContext().SpanID())
		}
	}
	if got := spanAttr(processSpan, "cloudevents.event_type"); got != customers.EventOrderCreated {
		t.Errorf("process span event type %q", got)
	}
	// The consumer of another service on the same event is a child of the same publish span.
	for _, sp := range spans {
		if sp.SpanKind() == trace.SpanKindConsumer && sp.Parent().SpanID() == publishSpan.SpanContext().SpanID() &&
			sp.SpanContext().TraceID() != traceID {
			t.Errorf("consumer span of %s left the trace", spanAttr(sp, "messaging.consumer.group.name"))
		}
	}
}

var sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
var labelPair = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)

// sample is the value of the series of name whose labels include want, and
// whether there is exactly one such series.
func sample(text, name string, want map[string]string) (float64, bool) {
	var val float64
	n := 0
	for _, line := range strings.Split(text, "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil || m[1] != name {
			continue
		}
		labels := map[string]string{}
		for _, p := range labelPair.FindAllStringSubmatch(m[2], -1) {
			labels[p[1]] = p[2]
		}
		match := true
		for k, v := range want {
			if labels[k] != v {
				match = false
			}
		}
		if !match {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		val, n = v, n+1
	}
	return val, n == 1
}

func mustSample(t *testing.T, text, name string, labels map[string]string) float64 {
	t.Helper()
	v, ok := sample(text, name, labels)
	if !ok {
		t.Fatalf("no single series %s%v in the metrics", name, labels)
	}
	return v
}

// The process's /metrics, after some traffic: requests by operation and code
// with their latency histogram (gateway and services), the outbox backlog
// back to 0, the consumers' lag, dead-lettered events counted when a poison
// message is parked, and the collections' sizes. /metrics is reachable
// neither through the gateway's public port nor on a service's port.
func TestMetricsEndpoint(t *testing.T) {
	s := st.Start(t)
	if r := s.Do("GET", "/metrics", nil, nil); r.Status != 404 {
		t.Fatalf("GET /metrics through the gateway: %d %s", r.Status, r.Body)
	}
	if r := s.DoAt(s.Services["customers"], "GET", "/metrics", nil, nil); r.Status != 404 {
		t.Fatalf("GET /metrics on the customers service's own port: %d", r.Status)
	}

	const op = "catalog.categories.listCategories"
	okGateway := map[string]string{"service": "gateway", "operation": op, "code": "200"}
	okCatalog := map[string]string{"service": "catalog", "operation": op, "code": "200"}
	before := s.Metrics()
	g0, _ := sample(before, "marketplace_request_duration_seconds_count", okGateway)
	c0, _ := sample(before, "marketplace_request_duration_seconds_count", okCatalog)
	const calls = 7
	for range calls {
		st.MustOK(t, s.Query("", op, nil))
	}
	// Made-up operation names never become labels.
	s.Query("", "made.up.operation", nil)

	after := s.Metrics()
	if g := mustSample(t, after, "marketplace_request_duration_seconds_count", okGateway); g-g0 != calls {
		t.Errorf("gateway counted %v calls of %s, want %d", g-g0, op, calls)
	}
	if c := mustSample(t, after, "marketplace_request_duration_seconds_count", okCatalog); c-c0 != calls {
		t.Errorf("catalog counted %v calls of %s, want %d", c-c0, op, calls)
	}
	if inf := mustSample(t, after, "marketplace_request_duration_seconds_bucket", map[string]string{"service": "gateway", "operation": op, "code": "200", "le": "+Inf"}); inf < calls {
		t.Errorf("latency histogram's +Inf bucket %v < %d calls", inf, calls)
	}
	if sum := mustSample(t, after, "marketplace_request_duration_seconds_sum", okGateway); sum <= 0 || sum > 60 {
		t.Errorf("latency sum %v s", sum)
	}
	if strings.Contains(after, "made.up.operation") {
		t.Error("a made-up operation name became a label")
	}
	if n := mustSample(t, after, "marketplace_request_duration_seconds_count", map[string]string{"service": "gateway", "operation": "POST /api/query", "code": "404"}); n != 1 {
		t.Errorf("the unknown operation was counted %v times under POST /api/query", n)
	}

	// An order: events through the outboxes, one order stored.
	sh := newShop(t, s)
	if r := deliver(s, processor.Event("evt_m1", "payment_intent.succeeded", sh.payment("pi_m1"))); r.Status != 200 {
		t.Fatalf("delivery: %d %s", r.Status, r.Body)
	}
	eventually(t, "customer notification", func() bool { return count(inbox(t, s, sh.user), "order_created") == 1 })
	eventually(t, "every outbox empty", func() bool {
		text := s.Metrics()
		for _, svc := range []string{"catalog", "platformconfig", "customers", "payments", "notifications"} {
			b, ok := sample(text, "marketplace_outbox_backlog", map[string]string{"service": svc})
			age, ok2 := sample(text, "marketplace_outbox_oldest_age_seconds", map[string]string{"service": svc})
			if !ok || !ok2 || b != 0 || age != 0 {
				return false
			}
		}
		return true
	})
	text := s.Metrics()
	if n := mustSample(t, text, "marketplace_store_documents", map[string]string{"service": "customers", "collection": "orders"}); n != 1 {
		t.Errorf("customers.orders holds %v documents, want 1", n)
	}
	// The lag is what the consumer's last offset check saw (at start, then
	// every 10 s; a first check that found the group still joining is
	// repeated at the next).
	lagOf := map[string]string{"group": "notifications", "topic": customers.TopicOrders}
	var lag float64
	eventually(t, "consumer lag reported", func() bool {
		v, ok := sample(s.Metrics(), "marketplace_consumer_lag", lagOf)
		lag = v
		return ok
	})
	if lag < 0 {
		t.Errorf("consumer lag %v", lag)
	}
	dlq := map[string]string{"group": "notifications", "topic": customers.TopicOrders}
	if n := mustSample(t, text, "marketplace_events_dead_lettered_total", dlq); n != 0 {
		t.Fatalf("dead-lettered %v before any poison message", n)
	}

	// A message that is not an event is parked by each group that reads the
	// topic, in its own dead-letter topic, and counted under the topic it
	// came from.
	publish(t, s, customers.TopicOrders, "poison", []byte("not an event"))
	eventually(t, "poison message dead-lettered", func() bool {
		n, _ := sample(s.Metrics(), "marketplace_events_dead_lettered_total", dlq)
		return n == 1
	})
	time.Sleep(100 * time.Millisecond)
	if n := mustSample(t, s.Metrics(), "marketplace_events_dead_lettered_total", dlq); n != 1 {
		t.Errorf("dead-lettered %v, want 1", n)
	}
}
