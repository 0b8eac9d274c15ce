// Package httpserver is the Fiber server every program uses: explicit timeouts and
// body limit, panic recovery, request ids, structured access logs, liveness and
// readiness endpoints, errors rendered in the contract's body, graceful shutdown.
package httpserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/requestid"

	"marketplace/libs/apperr"
	"marketplace/libs/telemetry"
	"marketplace/libs/version"
)

// Config holds the server's limits.
type Config struct {
	ReadTimeout     time.Duration
	WriteTimeout    time.Duration
	IdleTimeout     time.Duration
	ShutdownTimeout time.Duration
	BodyLimit       int
	AccessLog       bool
	// AccessLogLevel is the level of the access lines (the zero value is
	// info). The all-in-one logs its services' at debug: the gateway's line
	// already tells of each call, once.
	AccessLogLevel slog.Level
	// Tracing adds OpenTelemetry server spans. Off when nothing exports them:
	// the middleware costs several percent of a cheap request.
	Tracing bool
	// Metrics, when set, is served on GET /metrics of the app: a service's
	// port is internal (the gateway never forwards /metrics). A program whose
	// port is public serves its metrics on a listener of its own instead
	// (telemetry.ServeMetrics) and leaves this nil.
	Metrics http.Handler
	// KnownOp tells which operation names a request may carry (c.Locals("op"))
	// are real: only those label metrics and name spans, so names a client
	// makes up never do. Nil knows none (requests are labelled by route).
	KnownOp func(op string) bool
	// StreamBody, when set, makes the server stream request bodies (fasthttp's
	// StreamRequestBody) for the requests it answers true for: their handler
	// reads c.Context().RequestBodyStream() as the bytes arrive and must bound
	// what it reads itself. Every other request's body is read here, before
	// any handler, at most BodyLimit bytes (413 beyond), as without it: a
	// streaming server does not apply BodyLimit on its own.
	StreamBody func(method, path string) bool
	// BodyTooLarge, when set, may answer a request whose body is over
	// BodyLimit (handled true); otherwise the answer is the contract's 400
	// INVALID_ARGUMENT "request body too large". Routes with an error shape
	// of their own (the processor's webhook) answer in theirs.
	BodyTooLarge func(c *fiber.Ctx) (handled bool, err error)
}

// Defaults are the limits used unless a program overrides them.
func Defaults() Config {
	return Config{
		ReadTimeout:     10 * time.Second,
		WriteTimeout:    10 * time.Second,
		IdleTimeout:     60 * time.Second,
		ShutdownTimeout: 10 * time.Second,
		BodyLimit:       1 << 20,
		AccessLog:       true,
	}
}

// Check is one readiness probe (database, broker, ...).
type Check struct {
	Name string
	Fn   func(context.Context) error
}

// HeaderRequestID carries the request id across services.
const HeaderRequestID = "X-Request-Id"

// New builds the app with the common middleware and probes. Extra middleware
// runs after request ids, request metrics and tracing, and before the routes.
func New(name string, cfg Config, logger *slog.Logger, checks []Check, mw ...fiber.Handler) *fiber.App {
	app := fiber.New(fiber.Config{
		AppName:               name,
		ReadTimeout:           cfg.ReadTimeout,
		WriteTimeout:          cfg.WriteTimeout,
		IdleTimeout:           cfg.IdleTimeout,
		BodyLimit:             cfg.BodyLimit,
		DisableStartupMessage: true,
		ErrorHandler:          errorHandler(cfg.BodyTooLarge),
		StreamRequestBody:     cfg.StreamBody != nil,
	})
	// Request ids first, so every later line can name the request; the access log
	// outside the recoverer, so a request that panicked is logged with its 500.
	app.Use(requestid.New(requestid.Config{Header: HeaderRequestID}))
	app.Use(func(c *fiber.Ctx) error {
		c.Locals(loggerKey, logger) // for WriteError's log of internal errors
		return c.Next()
	})
	if cfg.StreamBody != nil {
		app.Use(boundBodies(cfg.BodyLimit, cfg.StreamBody))
	}
	if cfg.AccessLog {
		app.Use(accessLog(logger, cfg.AccessLogLevel))
	}
	// Outside the recoverer, so a request that panicked is counted with its 500.
	app.Use(newRequestMetrics(name, cfg.KnownOp).middleware())
	app.Use(recoverer())
	if cfg.Tracing {
		app.Use(telemetry.FiberMiddleware(name, func(c *fiber.Ctx) string { return knownOperation(c, cfg.KnownOp) }))
	}
	for _, m := range mw {
		app.Use(m)
	}
	app.Get("/livez", func(c *fiber.Ctx) error { return c.SendString("ok") })
	// The build this program runs (libs/version): which version and commit
	// answers here, for operators and for tests of mixed versions.
	app.Get("/version", func(c *fiber.Ctx) error { return c.JSON(version.Get()) })
	app.Get("/readyz", func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
		defer cancel()
		// At once, not one after another: a check that takes the whole
		// budget must not leave the others none (the all-in-one's checks
		// ask each service's /readyz, and a slow one would have every
		// service after it reported "context deadline exceeded").
		failed := map[string]string{}
		var mu sync.Mutex
		var wg sync.WaitGroup
		for _, ch := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { // off the handler's goroutine: the recoverer would not see it
					if v := recover(); v != nil {
						mu.Lock()
						failed[ch.Name] = fmt.Sprintf("panic: %v", v)
						mu.Unlock()
					}
				}()
				if err := ch.Fn(ctx); err != nil {
					mu.Lock()
					failed[ch.Name] = err.Error()
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if len(failed) > 0 {
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "not ready", "failed": failed})
		}
		return c.JSON(fiber.Map{"status": "ready"})
	})
	if cfg.Metrics != nil {
		mountMetrics(app, cfg.Metrics)
	}
	return app
}

// loggerKey holds the app's logger in each request's locals.
const loggerKey = "httpserver.logger"

// WriteError renders err as the contract's error body with its status. An
// INTERNAL answer is a bug or a failing dependency the client cannot see, so its
// cause is logged here, once, with the request id and operation: every error
// answer of an app built with New goes through this function.
func WriteError(c *fiber.Ctx, err error) error {
	logger, ok := c.Locals(loggerKey).(*slog.Logger)
	if !ok {
		logger = slog.Default()
	}
	if e := apperr.From(err); e.Code == apperr.Unauthenticated && e.Details["reason"] != nil {
		// A refused token says why in the log too (the access log has only the status).
		logger.InfoContext(c.UserContext(), "token refused", "method", c.Method(), "path", c.Path(),
			"request_id", c.Locals("requestid"), "reason", e.Details["reason"], "err", apperr.Describe(err))
	}
	if apperr.CodeOf(err) == apperr.Internal {
		attrs := []any{"method", c.Method(), "path", c.Path(), "request_id", c.Locals("requestid"), "err", apperr.Describe(err)}
		if op, ok := c.Locals("op").(string); ok {
			attrs = append(attrs, "op", op)
		}
		logger.ErrorContext(c.UserContext(), "internal error", attrs...)
	}
	status, body := apperr.Body(err)
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}

func errorHandler(tooLarge func(c *fiber.Ctx) (bool, error)) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		var fe *fiber.Error
		if errors.As(err, &fe) {
			msg := fe.Message
			if fe.Code == fiber.StatusRequestEntityTooLarge {
				if tooLarge != nil {
					if handled, err := tooLarge(c); handled {
						return err
					}
				}
				msg = BodyTooLargeMessage
			}
			if fe.Code == fiber.StatusMethodNotAllowed {
				return WriteMethodNotAllowed(c)
			}
			return WriteError(c, apperr.New(fiberCode(fe), "%s", msg))
		}
		return WriteError(c, err)
	}
}

// BodyTooLargeMessage is the message of the answer to a body over the limit.
const BodyTooLargeMessage = "request body too large"

// fiberCode maps Fiber's own errors (unknown route, wrong method, bad request) to
// the contract's codes.
// WriteMethodNotAllowed answers a request whose path exists for other
// methods: HTTP 405 with the Allow header Fiber set (or the one the caller
// set) and an INVALID_ARGUMENT body naming the methods to use.
func WriteMethodNotAllowed(c *fiber.Ctx) error {
	allow := string(c.Response().Header.Peek(fiber.HeaderAllow))
	msg := fmt.Sprintf("method %s is not allowed on %s", c.Method(), c.Path())
	if allow != "" {
		msg += "; use " + allow
	}
	_, body := apperr.Body(apperr.New(apperr.InvalidArgument, "%s", msg))
	c.Status(fiber.StatusMethodNotAllowed)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(body)
}

func fiberCode(fe *fiber.Error) apperr.Code {
	switch {
	case fe.Code == fiber.StatusNotFound:
		return apperr.NotFound
	case fe.Code >= 400 && fe.Code < 500:
		return apperr.InvalidArgument
	}
	return apperr.Internal
}

// fiberStatus is the status errorHandler answers a Fiber error with: the
// contract's status of its code (a body too large is INVALID_ARGUMENT, 400).
func fiberStatus(fe *fiber.Error) int { return fiberCode(fe).Status() }

func recoverer() fiber.Handler {
	return func(c *fiber.Ctx) (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = WriteError(c, apperr.Wrap(fmt.Errorf("panic: %v\n%s", r, debug.Stack()), apperr.Internal, "internal error"))
			}
		}()
		return c.Next()
	}
}

// routine are the paths polled by machines (the gateway's declarations fetch,
// probes): their successful answers are logged at debug.
var routine = map[string]bool{"/ops": true, "/livez": true, "/readyz": true, "/health": true, "/version": true, telemetry.MetricsPath: true}

func accessLog(logger *slog.Logger, base slog.Level) fiber.Handler {
	return func(c *fiber.Ctx) error {
		start := time.Now()
		err := c.Next()
		status := responseStatus(c, err)
		attrs := []any{"method", c.Method(), "path", c.Path(), "status", status,
			"ms", float64(time.Since(start).Microseconds()) / 1000, "request_id", c.Locals("requestid")}
		if op, ok := c.Locals("op").(string); ok {
			attrs = append(attrs, "op", op)
		}
		level := base
		if status < 400 && c.Method() == fiber.MethodGet && routine[c.Path()] {
			level = slog.LevelDebug // the gateway's route refresh and the probes, every few seconds
		}
		logger.Log(c.UserContext(), level, "http", attrs...)
		return err
	}
}

// Serve runs app on ln until ctx is done, then shuts down gracefully.
func Serve(ctx context.Context, app *fiber.App, ln net.Listener, shutdownTimeout time.Duration) error {
	errc := make(chan error, 1)
	go func() { errc <- app.Listener(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	err := app.ShutdownWithContext(sctx)
	// A shutdown that ran before the server registered ln closes nothing and
	// the server would then serve forever; closing ln makes it return at once.
	_ = ln.Close()
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return <-errc
}

// refusedBodyDrain bounds the bytes of a body refused as too large that are
// read and dropped before the answer, so that the sender, which writes its
// whole body before it reads, gets the answer instead of a reset connection;
// a longer body ends the connection unread.
const refusedBodyDrain = 16 << 20

// boundBodies reads the streamed body of every request stream does not
// accept, at most limit bytes: handlers then see c.Body() as on a server
// that does not stream. A larger body is 413 (read and dropped up to
// refusedBodyDrain) and ends the connection.
func boundBodies(limit int, stream func(method, path string) bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		req := c.Request()
		if !req.IsBodyStream() || stream(c.Method(), string(req.URI().PathOriginal())) {
			return c.Next()
		}
		tooLarge := func() error {
			_, _ = io.Copy(io.Discard, io.LimitReader(c.Context().RequestBodyStream(), refusedBodyDrain))
			c.Context().SetConnectionClose()
			return fiber.ErrRequestEntityTooLarge
		}
		if n := req.Header.ContentLength(); n > limit {
			return tooLarge()
		}
		body, err := io.ReadAll(io.LimitReader(c.Context().RequestBodyStream(), int64(limit)+1))
		if err != nil {
			c.Context().SetConnectionClose()
			return fiber.NewError(fiber.StatusBadRequest, "reading the request body failed")
		}
		if len(body) > limit {
			return tooLarge()
		}
		req.SetBodyRaw(body)
		return c.Next()
	}
}
