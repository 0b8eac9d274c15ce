package httpserver

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"marketplace/libs/apperr"
	"marketplace/libs/telemetry"
)

// Request metrics: one histogram whose _count is the request counter.
//
//	marketplace_request_duration_seconds{service, operation, code}
//
// operation is the ops path ("customers.orders.getMyOrders") or a raw
// route's "METHOD /pattern" when the request named one the program knows
// (Config.KnownOp), else the matched Fiber route ("GET /ops"), else
// "unmatched": a name a client made up never becomes a label. code is the
// HTTP status.
const (
	requestDurationMetric = "marketplace.request.duration"
	unmatchedOperation    = "unmatched"
)

// requestMetrics records every request of one app.
type requestMetrics struct {
	service  string
	known    func(string) bool
	duration metric.Float64Histogram
	// attrs caches the attribute set of each (operation, code): requests
	// repeat a few dozen of them, and building a set allocates.
	attrs sync.Map // labelKey -> metric.MeasurementOption
}

type labelKey struct {
	operation string
	code      int
}

func newRequestMetrics(service string, known func(string) bool) *requestMetrics {
	m := &requestMetrics{service: service, known: known}
	h, err := otel.GetMeterProvider().Meter("marketplace/httpserver").Float64Histogram(requestDurationMetric,
		metric.WithUnit("s"),
		metric.WithDescription("Requests served, by operation and HTTP status, and how long they took."),
		metric.WithExplicitBucketBoundaries(telemetry.DurationBuckets...))
	if err != nil {
		otel.Handle(err)
	}
	m.duration = h
	return m
}

// middleware records each request once it is answered. Probes and the
// metrics endpoint itself are not counted.
func (m *requestMetrics) middleware() fiber.Handler {
	return func(c *fiber.Ctx) error {
		switch c.Path() {
		case "/livez", "/readyz", telemetry.MetricsPath:
			return c.Next()
		}
		start := time.Now()
		err := c.Next()
		if m.duration == nil {
			return err
		}
		k := labelKey{operation: operationOf(c, m.known, err), code: responseStatus(c, err)}
		opt, ok := m.attrs.Load(k)
		if !ok {
			// The name may point into the request's buffers: the cache keeps a copy.
			k.operation = strings.Clone(k.operation)
			opt, _ = m.attrs.LoadOrStore(k, metric.WithAttributeSet(attribute.NewSet(
				attribute.String("service", m.service),
				attribute.String("operation", k.operation),
				attribute.String("code", strconv.Itoa(k.code)),
			)))
		}
		m.duration.Record(c.UserContext(), time.Since(start).Seconds(), opt.(metric.MeasurementOption))
		return err
	}
}

// knownOperation is the operation a request ran if the program knows it, else "".
func knownOperation(c *fiber.Ctx, known func(string) bool) string {
	if op, ok := c.Locals("op").(string); ok && known != nil && known(op) {
		return op
	}
	return ""
}

// operationOf is the request's operation label (see the comment at the top),
// once the chain returned err. A request no endpoint took ends on Fiber's
// routing error, or in a middleware mounted on "/" (the gateway's catch-all
// of the raw routes, or the common middleware, which Fiber merges into one
// route): those are "unmatched", whatever path the client sent.
func operationOf(c *fiber.Ctx, known func(string) bool, err error) string {
	if op := knownOperation(c, known); op != "" {
		return op
	}
	var fe *fiber.Error
	if errors.As(err, &fe) && (fe.Code == fiber.StatusNotFound || fe.Code == fiber.StatusMethodNotAllowed) {
		return unmatchedOperation
	}
	if r := c.Route(); r != nil && r.Path != "/" {
		return r.Method + " " + r.Path
	}
	return unmatchedOperation
}

// responseStatus is the status a request is answered with once the error
// handler has rendered err (what the client sees).
func responseStatus(c *fiber.Ctx, err error) int {
	if err == nil {
		return c.Response().StatusCode()
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		if fe.Code == fiber.StatusMethodNotAllowed {
			return fe.Code
		}
		return fiberStatus(fe) // what errorHandler sends
	}
	return apperr.CodeOf(err).Status()
}

// mountMetrics serves h on GET /metrics of app.
func mountMetrics(app *fiber.App, h http.Handler) {
	app.Get(telemetry.MetricsPath, adaptor.HTTPHandler(h))
}
