package telemetry

import (
	"context"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/baggage"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// requestHeaderCarrier lets the propagator write a fasthttp request's headers.
type requestHeaderCarrier struct{ h *fasthttp.RequestHeader }

var _ propagation.TextMapCarrier = requestHeaderCarrier{}

func (c requestHeaderCarrier) Get(key string) string { return string(c.h.Peek(key)) }
func (c requestHeaderCarrier) Set(key, value string) { c.h.Set(key, value) }
func (c requestHeaderCarrier) Keys() []string {
	var keys []string
	c.h.VisitAll(func(k, _ []byte) { keys = append(keys, string(k)) })
	return keys
}

// InjectHTTP writes the trace context of ctx (W3C traceparent, tracestate,
// baggage) into the headers of an outgoing request, so the callee's server
// span continues the caller's trace. Without a span or baggage in ctx it
// writes nothing and costs next to nothing.
func InjectHTTP(ctx context.Context, h *fasthttp.RequestHeader) {
	if !trace.SpanContextFromContext(ctx).IsValid() && baggage.FromContext(ctx).Len() == 0 {
		return
	}
	otel.GetTextMapPropagator().Inject(ctx, requestHeaderCarrier{h})
}
