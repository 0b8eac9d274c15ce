package gateway

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"

	"github.com/gofiber/fiber/v2"

	"marketplace/gateway/convex"
	"marketplace/libs/config"
	"marketplace/libs/httpserver"
	"marketplace/libs/program"
	"marketplace/libs/telemetry"
	build "marketplace/libs/version"
)

// App builds the public server: common middleware, CORS on every response, the
// routes, and a readiness probe that waits for the routing table, and the
// checks of more (the all-in-one's: each in-process service's readiness). Its
// metrics are labelled by the operations of the routing table; /metrics is
// never served on this public port (program.Config.Metrics).
func (g *Gateway) App(h httpserver.Config, logger *slog.Logger, more ...httpserver.Check) *fiber.App {
	h.KnownOp, h.Metrics = g.knownOperation, nil
	h.StreamBody = g.streamsBody // uploads go on to the media service as they arrive
	h.BodyTooLarge = g.bodyTooLarge
	g.bodyLimit.Store(int64(h.BodyLimit))
	checks := append([]httpserver.Check{{Name: "routes", Fn: g.Ready}}, more...)
	app := httpserver.New("gateway", h, logger, checks, CORS())
	g.Mount(app)
	return app
}

// Run is the gateway as its own process (distributed mode), routing to
// GATEWAY_SERVICES or, when that is not set, to services (its binary passes
// every module of deploy/modules).
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer, services []string) error {
	pc, err := program.Load(getenv)
	if err != nil {
		return err
	}
	var gc Config
	if err := config.Load(getenv, &gc); err != nil {
		return err
	}
	if len(gc.Services) == 0 {
		gc.Services = services
	}
	if gc.Convex.Brokers, err = pc.Kafka(); err != nil {
		return err
	}
	if len(gc.Services) == 0 {
		return errors.New("the gateway routes to no service: set GATEWAY_SERVICES")
	}
	logger := pc.Logger(stdout).With("program", "gateway")
	logger.Info("starting", append(build.Get().Attrs(), "config", config.Describe(&pc), "gateway", config.Describe(&gc))...)
	// Kafka only refreshes live queries here, but credentials it refuses are
	// a mistake to stop at, as the services do.
	if err := gc.Convex.Brokers.CheckAtStart(ctx, convex.KafkaClientID, logger); err != nil {
		return err
	}
	tel, err := telemetry.Setup(ctx, telemetry.Config{ServiceName: "gateway", OTLPEndpoint: pc.OTLPEndpoint})
	if err != nil {
		return err
	}
	defer tel.Shutdown(context.Background())
	httpCfg := pc.HTTP()
	httpCfg.Tracing = tel.Tracing
	_, _, stopMetrics, err := pc.Metrics(ctx, tel, true, logger)
	if err != nil {
		return err
	}
	defer stopMetrics()
	verifier, err := pc.Verifier(ctx)
	if err != nil {
		return err
	}
	gc.Console.DevSignIn = pc.DevelopmentTokens()
	issuer, err := pc.IdentityIssuer()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", pc.HTTPAddr)
	if err != nil {
		return err
	}
	resolver, deregister, err := pc.Discovery(ctx, "gateway", logger)
	if err != nil {
		ln.Close()
		return err
	}
	defer deregister(context.Background())
	g := New(gc, resolver, verifier, logger)
	if issuer != nil {
		g.SignIdentities(issuer) // the services verify the gateway's word, not the users' tokens
	}
	if err := g.Refresh(ctx); err != nil {
		logger.Warn("starting with an incomplete routing table", "err", err)
	}
	go g.Run(ctx)
	logger.Info("gateway listening", "addr", ln.Addr().String())
	return httpserver.Serve(ctx, g.App(httpCfg, logger), ln, httpCfg.ShutdownTimeout)
}
