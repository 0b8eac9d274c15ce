package telemetry

import (
	"github.com/gofiber/contrib/otelfiber/v2"
	"github.com/gofiber/fiber/v2"
	"go.mongodb.org/mongo-driver/event"
	"go.opentelemetry.io/contrib/instrumentation/go.mongodb.org/mongo-driver/mongo/otelmongo"
)

// FiberMiddleware returns otelfiber middleware producing server spans and
// HTTP metrics for service. Probe paths /livez and /readyz are skipped: they
// are polled every few seconds and would drown real traffic.
//
// It uses the global providers and propagator, which otel delegates lazily,
// so it may be created before or after Setup.
func FiberMiddleware(service string) fiber.Handler {
	return otelfiber.Middleware(
		otelfiber.WithServerName(service),
		otelfiber.WithNext(func(c *fiber.Ctx) bool {
			p := c.Path()
			return p == "/livez" || p == "/readyz"
		}),
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
