package telemetry

import (
	"strings"

	"github.com/gofiber/contrib/otelfiber/v2"
	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/event"
	"go.opentelemetry.io/contrib/instrumentation/go.mongodb.org/mongo-driver/mongo/otelmongo"
	"go.opentelemetry.io/otel/metric/noop"
)

// FiberMiddleware returns otelfiber middleware producing server spans for
// service. Probe and metrics paths are skipped: they are polled every few
// seconds and would drown real traffic. A span is named after the operation
// the request ran when operation returns one (the ops path, or a raw route's
// "METHOD /pattern"), after the matched route otherwise. Its metrics are left
// out: the request metrics of package httpserver count every request, by
// operation, whether tracing is on or not.
//
// It uses the global tracer provider and propagator, which otel delegates
// lazily, so it may be created before or after Setup.
func FiberMiddleware(service string, operation func(*fiber.Ctx) string) fiber.Handler {
	return otelfiber.Middleware(
		otelfiber.WithServerName(service),
		otelfiber.WithNext(func(c *fiber.Ctx) bool {
			p := c.Path()
			return p == "/livez" || p == "/readyz" || p == MetricsPath
		}),
		otelfiber.WithSpanNameFormatter(func(c *fiber.Ctx) string {
			if operation != nil {
				if op := operation(c); op != "" {
					return strings.Clone(op) // it may point into the request's buffers, reused once it ends
				}
			}
			return c.Route().Path
		}),
		otelfiber.WithMeterProvider(noop.NewMeterProvider()),
		// Client IPs are personal data; keep them out of telemetry.
		otelfiber.WithCollectClientIP(false),
	)
}

// MongoMonitor returns the otelmongo command monitor for real MongoDB client
// options: options.Client().SetMonitor(telemetry.MongoMonitor()). Command
// bodies are not recorded (otelmongo's default), so documents stay out of
// spans.
func MongoMonitor() *event.CommandMonitor {
	return otelmongo.NewMonitor()
}
