// Package telemetry sets up OpenTelemetry tracing and metrics once per
// program and hands out the instrumentation used by every service (Fiber
// server spans, MongoDB command spans, trace context on outgoing calls) and
// the Prometheus /metrics endpoint.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/prometheus/client_golang/prometheus/promhttp"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// Config is passed in by the caller; nothing here reads the environment.
type Config struct {
	ServiceName string
	// OTLPEndpoint is the OTEL_EXPORTER_OTLP_ENDPOINT value: a base URL such
	// as "http://otel-collector:4318" (or "otel-collector:4318", taken as
	// plain HTTP). "/v1/traces" and "/v1/metrics" are appended to its path.
	// Empty means nothing is exported over OTLP.
	OTLPEndpoint string
	// TracerProvider, when set, is installed instead of the one Setup would
	// build, and tracing counts as on: tests record spans with an in-memory
	// exporter this way. Its owner shuts it down.
	TracerProvider trace.TracerProvider
}

// Telemetry is what Setup installed.
type Telemetry struct {
	// Tracing is true when spans leave the process (an OTLP endpoint, or a
	// tracer provider handed in). Only then do HTTP servers make server spans:
	// the middleware costs a measurable share of a cheap request. Trace
	// context is propagated either way.
	Tracing bool
	// Metrics serves every metric of this process in the Prometheus text
	// format (GET /metrics).
	Metrics http.Handler

	shutdown func(context.Context) error
}

// Shutdown flushes pending spans and metrics; call it once on exit with a
// context bounding how long the flush may take.
func (t *Telemetry) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// Setup installs the global tracer and meter providers and the W3C
// trace-context + baggage propagator, all tagged with service.name, and a
// Prometheus registry of the process's own (its Go runtime and process
// metrics, and every OpenTelemetry instrument) behind Telemetry.Metrics.
//
// With an empty OTLPEndpoint, an SDK tracer provider is still installed but
// with no exporter: spans get real trace IDs (so they propagate downstream
// and can be logged for correlation) and are then dropped.
func Setup(ctx context.Context, cfg Config) (*Telemetry, error) {
	if cfg.ServiceName == "" {
		return nil, errors.New("telemetry: empty service name")
	}
	// Built from explicit attributes only: resource.Default() would also read
	// OTEL_* environment variables.
	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName(cfg.ServiceName)),
		resource.WithTelemetrySDK(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}

	reg, promReader, err := newPrometheus()
	if err != nil {
		return nil, err
	}
	traceOpts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res)}
	meterOpts := []sdkmetric.Option{sdkmetric.WithResource(res), sdkmetric.WithReader(promReader)}

	if cfg.OTLPEndpoint != "" {
		tracesURL, metricsURL, err := signalURLs(cfg.OTLPEndpoint)
		if err != nil {
			return nil, err
		}
		// Explicit URLs also take precedence over the exporters' own
		// OTEL_EXPORTER_OTLP_* environment lookups.
		traceExp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(tracesURL))
		if err != nil {
			return nil, fmt.Errorf("telemetry: trace exporter: %w", err)
		}
		metricExp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(metricsURL))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("telemetry: metric exporter: %w", err), traceExp.Shutdown(ctx))
		}
		traceOpts = append(traceOpts, sdktrace.WithBatcher(traceExp))
		meterOpts = append(meterOpts, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExp)))
	}

	var tp trace.TracerProvider = cfg.TracerProvider
	shutdownTraces := func(context.Context) error { return nil } // a provider handed in is its owner's
	if tp == nil {
		sdktp := sdktrace.NewTracerProvider(traceOpts...)
		tp, shutdownTraces = sdktp, sdktp.Shutdown
	}
	mp := sdkmetric.NewMeterProvider(meterOpts...)
	otel.SetTracerProvider(tp)
	otel.SetMeterProvider(mp)
	otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator(
		propagation.TraceContext{}, propagation.Baggage{},
	))

	return &Telemetry{
		Tracing: cfg.OTLPEndpoint != "" || cfg.TracerProvider != nil,
		Metrics: promhttp.HandlerFor(reg, promhttp.HandlerOpts{}),
		shutdown: func(ctx context.Context) error {
			// Both run even if one fails, so neither signal's tail is lost.
			return errors.Join(shutdownTraces(ctx), mp.Shutdown(ctx))
		},
	}, nil
}

// signalURLs applies the OTEL_EXPORTER_OTLP_ENDPOINT rule: signal paths are
// appended to the base URL's path.
func signalURLs(endpoint string) (traces, metrics string, err error) {
	if !strings.Contains(endpoint, "://") {
		endpoint = "http://" + endpoint
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return "", "", fmt.Errorf("telemetry: OTLP endpoint %q: %w", endpoint, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("telemetry: OTLP endpoint %q: want http(s)://host[:port][/path]", endpoint)
	}
	base := strings.TrimRight(u.Path, "/")
	t, m := *u, *u
	t.Path, m.Path = base+"/v1/traces", base+"/v1/metrics"
	t.RawPath, m.RawPath = "", ""
	return t.String(), m.String(), nil
}
