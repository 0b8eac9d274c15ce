package ops

import (
	"context"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"marketplace/libs/apperr"
	"marketplace/libs/telemetry"
)

const tracerName = "marketplace/ops"

// Has reports whether path is one of the registry's operations (internal
// ones included): request metrics and span names take only these.
func (r *Registry) Has(path string) bool {
	_, ok := r.ops[path]
	return ok
}

// KnownOperations returns the predicate httpserver.Config.KnownOp wants for a
// service: its operations and its raw routes ("METHOD /pattern", the name
// mountRoutes gives a route's requests).
func KnownOperations(r *Registry, routes []Route) func(string) bool {
	names := make(map[string]bool, len(routes))
	for _, rt := range routes {
		names[rt.Method+" "+rt.Path] = true
	}
	return func(op string) bool { return names[op] || (r != nil && r.Has(op)) }
}

// startCallSpan starts the client span of a call to another service and
// writes its trace context into the request, so the callee's server span is
// its child. It does so only inside a trace (a caller that has a span: a
// traced request, a consumer's event), so an untraced program pays nothing.
// end records the call's outcome.
func startCallSpan(ctx context.Context, service, path string, h *fasthttp.RequestHeader) (end func(error)) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return func(error) {}
	}
	ctx, span := otel.Tracer(tracerName).Start(ctx, path,
		trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(
			attribute.String("rpc.system", "marketplace-ops"),
			attribute.String("rpc.service", service),
			attribute.String("rpc.method", path),
			attribute.String("peer.service", service),
		))
	telemetry.InjectHTTP(ctx, h)
	return func(err error) {
		if err != nil {
			code := apperr.CodeOf(err)
			span.SetAttributes(attribute.String("marketplace.error_code", string(code)))
			if code == apperr.Internal || code == apperr.Unavailable {
				span.SetStatus(codes.Error, string(code))
			}
		}
		span.End()
	}
}
