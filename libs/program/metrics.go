package program

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"marketplace/libs/telemetry"
)

// DefaultPublicMetricsAddr is where a program whose HTTP port is public (the
// gateway, the all-in-one) serves /metrics when METRICS_ADDR is not set:
// loopback only, so nothing outside the machine (or pod) reaches it.
// 9464 is the port OpenTelemetry's Prometheus exporters use by convention.
const DefaultPublicMetricsAddr = "127.0.0.1:9464"

// Metrics decides where the program's /metrics is served
// (docs/adr/0117-metrics.md):
//
//   - METRICS_ADDR set: on a listener of its own there, for every program,
//     served until ctx ends; the HTTP port does not serve it. A port that
//     cannot be had is an error.
//   - unset, a service (public false): on its own HTTP port, which is
//     internal (the gateway never forwards /metrics): the handler to mount is
//     returned.
//   - unset, a public port (the gateway, the all-in-one): on
//     DefaultPublicMetricsAddr; if that port is taken (a second program on the
//     machine), a warning, and the program runs without metrics.
//
// addr is where the listener of its own listens ("" when none); stop closes
// it and waits for it (call it before returning; it is never nil).
func (c *Config) Metrics(ctx context.Context, tel *telemetry.Telemetry, public bool, logger *slog.Logger) (onHTTP http.Handler, addr string, stop func(), err error) {
	stop = func() {}
	if c.MetricsAddr == "" && !public {
		return tel.Metrics, "", stop, nil
	}
	want := c.MetricsAddr
	if want == "" {
		want = DefaultPublicMetricsAddr
	}
	ln, err := net.Listen("tcp", want)
	if err != nil {
		if c.MetricsAddr != "" {
			return nil, "", stop, fmt.Errorf("METRICS_ADDR: %w", err)
		}
		logger.Warn("metrics are not served: the default metrics port is taken; set METRICS_ADDR", "addr", want, "err", err)
		return nil, "", stop, nil
	}
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := telemetry.ServeMetrics(sctx, ln, tel.Metrics); err != nil {
			logger.Error("metrics listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	logger.Info("metrics listening", "addr", ln.Addr().String(), "path", telemetry.MetricsPath)
	return nil, ln.Addr().String(), func() { cancel(); <-done }, nil
}
