package events

import (
	"context"

	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
)

// HeaderCarrier lets the OpenTelemetry propagator read and write trace context
// (W3C traceparent, tracestate, baggage) in message headers, since kafka-go has
// no tracing integration of its own.
type HeaderCarrier map[string]string

var _ propagation.TextMapCarrier = HeaderCarrier(nil)

// Get returns the value for key, or "".
func (c HeaderCarrier) Get(key string) string { return c[key] }

// Set stores a value.
func (c HeaderCarrier) Set(key, value string) { c[key] = value }

// Keys lists the stored keys.
func (c HeaderCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// InjectTrace returns the trace headers for the span in ctx (nil if none).
func InjectTrace(ctx context.Context) map[string]string {
	h := HeaderCarrier{}
	otel.GetTextMapPropagator().Inject(ctx, h)
	if len(h) == 0 {
		return nil
	}
	return h
}

// ExtractTrace returns ctx carrying the remote span context found in headers.
func ExtractTrace(ctx context.Context, headers map[string]string) context.Context {
	return otel.GetTextMapPropagator().Extract(ctx, HeaderCarrier(headers))
}

func headersFromKafka(hs []kafka.Header) map[string]string {
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
