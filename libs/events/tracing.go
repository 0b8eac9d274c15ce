package events

// Tracing of an event's way: the outbox stores the trace context of the
// state change with the event (Outbox.Add), the relay publishes it in a
// producer span that continues that trace, and the consumer processes it in a
// span that is a child of the producer span (consumer.go). One trace thus runs
// from the request that changed the state to every consumer's handling, and
// into whatever the handler calls.

import (
	"context"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// startPublishSpans starts one producer span per message whose outbox entry
// carries a trace context (an event written outside any trace gets none, and
// nothing is spent on it), as a child of that context, and puts the span's
// own context into the message's headers for the consumer. end closes the
// spans with the publish's outcome.
func startPublishSpans(ctx context.Context, docs []outboxDoc, msgs []Message) (end func(error)) {
	var spans []trace.Span
	tracer := otel.Tracer(tracerName)
	for i, d := range docs {
		parent := ExtractTrace(ctx, d.Headers)
		if !trace.SpanContextFromContext(parent).IsValid() {
			continue
		}
		sctx, span := tracer.Start(parent, "publish "+d.Topic,
			trace.WithSpanKind(trace.SpanKindProducer),
			trace.WithAttributes(
				attribute.String("messaging.system", "kafka"),
				attribute.String("messaging.operation.type", "send"),
				attribute.String("messaging.destination.name", d.Topic),
				attribute.String("messaging.message.id", d.ID),
				attribute.String("messaging.kafka.message.key", d.Key),
			))
		h := make(map[string]string, len(d.Headers))
		for k, v := range d.Headers {
			h[k] = v
		}
		for k, v := range InjectTrace(sctx) {
			h[k] = v
		}
		msgs[i].Headers = h
		spans = append(spans, span)
	}
	return func(err error) {
		for _, s := range spans {
			if err != nil {
				s.RecordError(err)
				s.SetStatus(codes.Error, "publish failed")
			}
			s.End()
		}
	}
}
