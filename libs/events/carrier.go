package events

import (
	"context"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// InjectTrace returns the trace headers for the span in ctx (nil if none).
func InjectTrace(ctx context.Context) map[string]string {
	h := propagation.MapCarrier{} // trace context (W3C traceparent, tracestate, baggage) in message headers
	otel.GetTextMapPropagator().Inject(ctx, h)
	if len(h) == 0 {
		return nil
	}
	return h
}

// ExtractTrace returns ctx carrying the remote span context found in headers.
func ExtractTrace(ctx context.Context, headers map[string]string) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, propagation.MapCarrier(headers))
}

// HeadersFromKafka is a message's headers as a map (the last of a repeated
// key wins).
func HeadersFromKafka(hs []kafka.Header) map[string]string {
	m := make(map[string]string, len(hs))
	for _, h := range hs {
		m[h.Key] = string(h.Value)
	}
	return m
}

func headersToKafka(m map[string]string) []kafka.Header {
	if len(m) == 0 {
		return nil
	}
	hs := make([]kafka.Header, 0, len(m))
	for k, v := range m {
		hs = append(hs, kafka.Header{Key: k, Value: []byte(v)})
	}
	return hs
}
