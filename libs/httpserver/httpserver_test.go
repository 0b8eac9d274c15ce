package httpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/logtest"
)

const secretText = "password=hunter2 at db-7"

// newTestApp builds an app with a body limit of 64 bytes and routes that exercise
// every error path.
func newTestApp(t *testing.T, checks ...Check) (*fiber.App, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	cfg := Defaults()
	cfg.BodyLimit = 64
	app := New("test", cfg, logger, checks)
	app.Get("/ok", func(c *fiber.Ctx) error { return c.SendString("fine") })
	app.Post("/echo", func(c *fiber.Ctx) error { return c.Send(c.Body()) })
	app.Get("/panic", func(c *fiber.Ctx) error { panic("boom: " + secretText) })
	app.Get("/apperr", func(c *fiber.Ctx) error {
		return apperr.New(apperr.FailedPrecondition, "store %s is closed", "st_1")
	})
	app.Get("/plain", func(c *fiber.Ctx) error { return errors.New(secretText) })
	app.Get("/wrapped", func(c *fiber.Ctx) error {
		return apperr.Wrap(errors.New(secretText), apperr.Unavailable, "catalog is unavailable")
	})
	app.Get("/refused", func(c *fiber.Ctx) error {
		return apperr.New(apperr.Unauthenticated, "token expired").WithDetails(map[string]any{"reason": "expired"})
	})
	app.Get("/fiber400", func(c *fiber.Ctx) error { return fiber.NewError(fiber.StatusBadRequest, "bad header") })
	app.Get("/rid", func(c *fiber.Ctx) error {
		rid, _ := c.Locals("requestid").(string)
		return c.SendString(rid)
	})
	app.Get("/things/:id", func(c *fiber.Ctx) error {
		c.Locals("op", "t.things.get")
		return c.SendString(c.Params("id"))
	})
	return app, logs
}

func do(t *testing.T, app *fiber.App, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	resp, err := app.Test(req, 5000)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

type errBody struct {
	Error *struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func TestErrorsUseTheContractBody(t *testing.T) {
	app, logs := newTestApp(t)
	cases := []struct {
		name        string
		method      string
		path        string
		body        string
		wantStatus  int
		wantCode    string
		wantMessage string // exact when set
	}{
		{"unknown route", http.MethodGet, "/nope", "", 404, "NOT_FOUND", ""},
		{"wrong method", http.MethodPost, "/ok", "", 405, "INVALID_ARGUMENT", "method POST is not allowed on /ok; use GET, HEAD"},
		{"panic", http.MethodGet, "/panic", "", 500, "INTERNAL", "internal error"},
		{"apperr", http.MethodGet, "/apperr", "", 409, "FAILED_PRECONDITION", "store st_1 is closed"},
		{"plain error", http.MethodGet, "/plain", "", 500, "INTERNAL", "internal error"},
		{"wrapped cause hidden", http.MethodGet, "/wrapped", "", 503, "UNAVAILABLE", "catalog is unavailable"},
		{"fiber 4xx", http.MethodGet, "/fiber400", "", 400, "INVALID_ARGUMENT", "bad header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body io.Reader
			if c.body != "" {
				body = strings.NewReader(c.body)
			}
			resp, raw := do(t, app, httptest.NewRequest(c.method, c.path, body))
			if resp.StatusCode != c.wantStatus {
				t.Errorf("status = %d, want %d (body %s)", resp.StatusCode, c.wantStatus, raw)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("content type = %q", ct)
			}
			var b errBody
			if err := json.Unmarshal(raw, &b); err != nil || b.Error == nil {
				t.Fatalf("body %s is not an error body: %v", raw, err)
			}
			if b.Error.Code != c.wantCode {
				t.Errorf("code = %q, want %q", b.Error.Code, c.wantCode)
			}
			if c.wantMessage != "" && b.Error.Message != c.wantMessage {
				t.Errorf("message = %q, want %q", b.Error.Message, c.wantMessage)
			}
			if b.Error.Message == "" {
				t.Error("empty message")
			}
			if strings.Contains(string(raw), "hunter2") {
				t.Errorf("body leaks the internal error: %s", raw)
			}
			if got := resp.Header.Get(HeaderRequestID); got == "" {
				t.Error("no request id on the error response")
			}
		})
	}

	// The server survived the panic and still answers.
	if resp, raw := do(t, app, httptest.NewRequest(http.MethodGet, "/ok", nil)); resp.StatusCode != 200 || string(raw) != "fine" {
		t.Fatalf("after panic: %d %s", resp.StatusCode, raw)
	}
	// What the client must not see is in the logs for the operators, once per
	// internal answer, with the request id.
	var sawPanic, sawFailed, internal int
	for _, r := range logs.Records(t) {
		if r["msg"] != "internal error" {
			continue
		}
		internal++
		if r["request_id"] == nil || r["request_id"] == "" {
			t.Errorf("internal error logged without its request id: %v", r)
		}
		switch r["path"] {
		case "/panic":
			if err := r["err"].(string); strings.Contains(err, "hunter2") && strings.Contains(err, "goroutine") {
				sawPanic++
			}
		case "/plain":
			if strings.Contains(r["err"].(string), "hunter2") {
				sawFailed++
			}
		}
	}
	if sawPanic != 1 || sawFailed != 1 || internal != 2 {
		t.Errorf("panic logged %d times, plain error %d, internal errors %d; logs:\n%s", sawPanic, sawFailed, internal, logs)
	}
}

// serveLoopback runs app with Serve on a loopback listener until the test ends.
func serveLoopback(t *testing.T, app *fiber.App) string {
	t.Helper()
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, app, ln, 2*time.Second) }()
	t.Cleanup(func() {
		cancel()
		if err := waitErr(t, served, 5*time.Second, "Serve"); err != nil {
			t.Errorf("Serve = %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

// The body limit is enforced while fasthttp reads the request, before any
// handler, so it is tested over a real connection: app.Test reports the read
// error instead of the response.
func TestBodyLimit(t *testing.T) {
	app, _ := newTestApp(t)
	url := serveLoopback(t, app)
	client := &http.Client{Timeout: 5 * time.Second}
	cases := []struct {
		name       string
		size       int
		wantStatus int
		wantCode   string
	}{
		{"at the limit", 64, 200, ""},
		{"over the limit", 65, 400, "INVALID_ARGUMENT"},
		{"far over the limit", 4096, 400, "INVALID_ARGUMENT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			payload := strings.Repeat("y", c.size)
			resp, err := client.Post(url+"/echo", "text/plain", strings.NewReader(payload))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatal(err)
			}
			if resp.StatusCode != c.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, c.wantStatus, raw)
			}
			if c.wantCode == "" {
				if string(raw) != payload {
					t.Fatalf("echo = %q", raw)
				}
				return
			}
			var b errBody
			if err := json.Unmarshal(raw, &b); err != nil || b.Error == nil {
				t.Fatalf("body %s is not an error body: %v", raw, err)
			}
			if b.Error.Code != c.wantCode || b.Error.Message != "request body too large" {
				t.Fatalf("error = %+v", *b.Error)
			}
		})
	}
}

func TestRequestID(t *testing.T) {
	app, _ := newTestApp(t)
	cases := []struct {
		name, path, sent string
	}{
		{"generated", "/rid", ""},
		{"client id kept", "/rid", "client-req-42"},
		{"generated on 404", "/nope", ""},
		{"client id kept on 404", "/nope", "client-req-43"},
		{"generated on panic", "/panic", ""},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(http.MethodGet, c.path, nil)
			if c.sent != "" {
				req.Header.Set(HeaderRequestID, c.sent)
			}
			resp, raw := do(t, app, req)
			got := resp.Header.Get(HeaderRequestID)
			switch {
			case c.sent != "" && got != c.sent:
				t.Errorf("request id = %q, want the client's %q", got, c.sent)
			case c.sent == "" && len(got) < 16:
				t.Errorf("generated request id %q is too short", got)
			}
			if seen[got] {
				t.Errorf("request id %q reused", got)
			}
			seen[got] = true
			if c.path == "/rid" && string(raw) != got {
				t.Errorf("handler saw request id %q, response carries %q", raw, got)
			}
		})
	}
}

func TestProbes(t *testing.T) {
	ok := func(context.Context) error { return nil }
	var sawDeadline bool
	bounded := func(ctx context.Context) error {
		d, has := ctx.Deadline()
		sawDeadline = has && time.Until(d) <= 2*time.Second
		return nil
	}
	down := func(context.Context) error { return errors.New("dial tcp 127.0.0.1:9092: connection refused") }
	cases := []struct {
		name       string
		checks     []Check
		path       string
		wantStatus int
		wantBody   string            // exact, for non-JSON bodies
		wantState  string            // readiness "status"
		wantFailed map[string]string // readiness "failed"
	}{
		{"livez", []Check{{"database", down}}, "/livez", 200, "ok", "", nil},
		{"ready without checks", nil, "/readyz", 200, "", "ready", nil},
		{"ready when all pass", []Check{{"database", ok}, {"broker", ok}}, "/readyz", 200, "", "ready", nil},
		{"one failing", []Check{{"database", ok}, {"broker", down}}, "/readyz", 503, "", "not ready",
			map[string]string{"broker": "dial tcp 127.0.0.1:9092: connection refused"}},
		{"all failing", []Check{{"database", down}, {"broker", down}}, "/readyz", 503, "", "not ready",
			map[string]string{"database": "dial tcp 127.0.0.1:9092: connection refused", "broker": "dial tcp 127.0.0.1:9092: connection refused"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, _ := newTestApp(t, c.checks...)
			resp, raw := do(t, app, httptest.NewRequest(http.MethodGet, c.path, nil))
			if resp.StatusCode != c.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", resp.StatusCode, c.wantStatus, raw)
			}
			if c.wantState == "" {
				if string(raw) != c.wantBody {
					t.Fatalf("body = %q, want %q", raw, c.wantBody)
				}
				return
			}
			var got struct {
				Status string            `json:"status"`
				Failed map[string]string `json:"failed"`
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatalf("body %s: %v", raw, err)
			}
			if got.Status != c.wantState || len(got.Failed) != len(c.wantFailed) {
				t.Fatalf("readiness = %s, want status %q failed %v", raw, c.wantState, c.wantFailed)
			}
			for k, v := range c.wantFailed {
				if got.Failed[k] != v {
					t.Errorf("failed[%q] = %q, want %q", k, got.Failed[k], v)
				}
			}
		})
	}
	app, _ := newTestApp(t, Check{"database", bounded})
	if resp, _ := do(t, app, httptest.NewRequest(http.MethodGet, "/readyz", nil)); resp.StatusCode != 200 || !sawDeadline {
		t.Fatalf("checks must run with a deadline of at most 2s (status %d, deadline %v)", resp.StatusCode, sawDeadline)
	}
}

func TestAccessLog(t *testing.T) {
	cases := []struct {
		name       string
		method     string
		path       string
		rid        string
		wantStatus float64
		wantOp     string
	}{
		{"ok", http.MethodGet, "/ok", "rid-ok", 200, ""},
		{"op recorded", http.MethodGet, "/things/42", "rid-op", 200, "t.things.get"},
		{"apperr status", http.MethodGet, "/apperr", "rid-409", 409, ""},
		{"plain error status", http.MethodGet, "/plain", "rid-500", 500, ""},
		{"unknown route", http.MethodGet, "/nope", "rid-404", 404, ""},
		// A path that exists for another method: 405, and the log says so.
		{"wrong method", http.MethodDelete, "/ok", "rid-405", 405, ""},
		{"panic is logged with its 500", http.MethodGet, "/panic", "rid-panic", 500, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			app, logs := newTestApp(t)
			req := httptest.NewRequest(c.method, c.path, nil)
			req.Header.Set(HeaderRequestID, c.rid)
			resp, _ := do(t, app, req)
			if float64(resp.StatusCode) != c.wantStatus {
				t.Fatalf("response status = %d, want %v", resp.StatusCode, c.wantStatus)
			}
			var lines []map[string]any
			for _, r := range logs.Records(t) {
				if r["msg"] == "http" {
					lines = append(lines, r)
				}
			}
			if len(lines) != 1 {
				t.Fatalf("%d access log lines, want 1:\n%s", len(lines), logs)
			}
			l := lines[0]
			if l["method"] != c.method || l["path"] != c.path || l["status"] != c.wantStatus || l["request_id"] != c.rid {
				t.Errorf("access log = %v, want method %s path %s status %v request_id %s", l, c.method, c.path, c.wantStatus, c.rid)
			}
			if _, ok := l["ms"].(float64); !ok {
				t.Errorf("no duration in %v", l)
			}
			op, has := l["op"]
			switch {
			case c.wantOp == "" && has:
				t.Errorf("unexpected op %v", op)
			case c.wantOp != "" && op != c.wantOp:
				t.Errorf("op = %v, want %q", op, c.wantOp)
			}
		})
	}

	t.Run("disabled", func(t *testing.T) {
		logs := &logtest.Buffer{}
		cfg := Defaults()
		cfg.AccessLog = false
		app := New("test", cfg, slog.New(slog.NewJSONHandler(logs, nil)), nil)
		if resp, _ := do(t, app, httptest.NewRequest(http.MethodGet, "/livez", nil)); resp.StatusCode != 200 {
			t.Fatalf("status %d", resp.StatusCode)
		}
		if s := logs.String(); s != "" {
			t.Fatalf("access log written while disabled: %s", s)
		}
	})
}

func TestExtraMiddlewareRunsAfterRequestID(t *testing.T) {
	var sawRID string
	mw := func(c *fiber.Ctx) error {
		sawRID, _ = c.Locals("requestid").(string)
		c.Set("X-Extra", "1")
		return c.Next()
	}
	app := New("test", Defaults(), slog.New(slog.DiscardHandler), nil, mw)
	req := httptest.NewRequest(http.MethodGet, "/livez", nil)
	req.Header.Set(HeaderRequestID, "rid-mw")
	resp, _ := do(t, app, req)
	if resp.Header.Get("X-Extra") != "1" || sawRID != "rid-mw" {
		t.Fatalf("middleware header %q, saw request id %q", resp.Header.Get("X-Extra"), sawRID)
	}
}

func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	return ln
}

func waitErr(t *testing.T, ch <-chan error, d time.Duration, what string) error {
	t.Helper()
	select {
	case err := <-ch:
		return err
	case <-time.After(d):
		t.Fatalf("%s did not finish within %v", what, d)
		return nil
	}
}

func TestServeShutsDownGracefully(t *testing.T) {
	started := make(chan struct{})
	app := New("test", Defaults(), slog.New(slog.DiscardHandler), nil)
	app.Get("/slow", func(c *fiber.Ctx) error {
		close(started)
		time.Sleep(300 * time.Millisecond)
		return c.SendString("done")
	})
	ln := listen(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, app, ln, 5*time.Second) }()

	type result struct {
		status int
		body   string
		err    error
	}
	got := make(chan result, 1)
	client := &http.Client{Timeout: 5 * time.Second}
	url := "http://" + ln.Addr().String()
	go func() {
		resp, err := client.Get(url + "/slow")
		if err != nil {
			got <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- result{resp.StatusCode, string(b), err}
	}()
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("slow request never reached the handler")
	}
	cancel()

	select {
	case r := <-got:
		if r.err != nil || r.status != 200 || r.body != "done" {
			t.Fatalf("in-flight request: %d %q %v", r.status, r.body, r.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("in-flight request did not complete")
	}
	if err := waitErr(t, served, 5*time.Second, "Serve"); err != nil {
		t.Fatalf("Serve = %v, want nil", err)
	}
	// Stopped: nothing accepts connections any more.
	if c, err := net.DialTimeout("tcp", ln.Addr().String(), time.Second); err == nil {
		c.Close()
		t.Fatal("listener still accepts connections after shutdown")
	}
}

// A context cancelled before the server got going must still stop Serve: the
// shutdown may run before the server has registered the listener.
func TestServeStopsWhenCancelledAtOnce(t *testing.T) {
	for i := range 20 {
		app := New("test", Defaults(), slog.New(slog.DiscardHandler), nil)
		ln := listen(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		served := make(chan error, 1)
		go func() { served <- Serve(ctx, app, ln, time.Second) }()
		if err := waitErr(t, served, 3*time.Second, "Serve with a cancelled context"); err != nil {
			t.Fatalf("round %d: Serve = %v, want nil", i, err)
		}
	}
}

// A refused token is logged with its reason: the access log shows only 401.
func TestRefusedTokensAreLoggedWithTheirReason(t *testing.T) {
	app, logs := newTestApp(t)
	resp, body := do(t, app, httptest.NewRequest(http.MethodGet, "/refused", nil))
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"reason":"expired"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	for _, r := range logs.Records(t) {
		if r["msg"] == "token refused" && r["reason"] == "expired" && r["path"] == "/refused" {
			return
		}
	}
	t.Fatalf("no 'token refused' log line with its reason:\n%s", logs.String())
}

// The wrong method on an existing route is 405 with Allow and a contract body.
func TestWrongMethodIs405(t *testing.T) {
	app, _ := newTestApp(t)
	resp, body := do(t, app, httptest.NewRequest(http.MethodPut, "/echo", nil))
	var eb errBody
	_ = json.Unmarshal(body, &eb)
	if resp.StatusCode != 405 || eb.Error == nil || eb.Error.Code != "INVALID_ARGUMENT" || !strings.Contains(resp.Header.Get("Allow"), "POST") ||
		!strings.Contains(eb.Error.Message, "PUT") {
		t.Fatalf("%d allow=%q %s", resp.StatusCode, resp.Header.Get("Allow"), body)
	}
}

// Probes and the gateway's declarations fetch are logged at debug when they
// succeed, so a level-info log is not flooded every few seconds.
func TestRoutinePollsAreLoggedAtDebug(t *testing.T) {
	app, logs := newTestApp(t)
	do(t, app, httptest.NewRequest(http.MethodGet, "/readyz", nil))
	do(t, app, httptest.NewRequest(http.MethodGet, "/ok", nil))
	var paths []any
	for _, r := range logs.Records(t) {
		if r["msg"] == "http" {
			paths = append(paths, r["path"])
		}
	}
	if len(paths) != 1 || paths[0] != "/ok" {
		t.Fatalf("access log at info: %v", paths)
	}
}

// TestStreamedBodies: with Config.StreamBody, the requests it names get
// their body as a stream, of any length (the handler bounds it); every other
// request still gets its body whole and bounded by BodyLimit, whether it
// declares its length or is chunked.
func TestStreamedBodies(t *testing.T) {
	cfg := Defaults()
	cfg.AccessLog = false
	cfg.BodyLimit = 64
	cfg.StreamBody = func(method, path string) bool { return method == fiber.MethodPost && path == "/stream" }
	app := New("test", cfg, slog.New(slog.DiscardHandler), nil)
	app.Post("/echo", func(c *fiber.Ctx) error { return c.Send(c.Body()) })
	app.Post("/stream", func(c *fiber.Ctx) error {
		if !c.Request().IsBodyStream() {
			return c.SendString("not a stream")
		}
		n, err := io.Copy(io.Discard, c.Context().RequestBodyStream())
		if err != nil {
			return err
		}
		return c.SendString(fmt.Sprintf("streamed %d", n))
	})
	url := serveLoopback(t, app)
	client := &http.Client{Timeout: 5 * time.Second}
	chunked := func(s string) io.Reader { return io.MultiReader(strings.NewReader(s)) } // no length: sent chunked
	cases := []struct {
		name, path string
		body       io.Reader
		status     int
		want       string
	}{
		{"within the limit", "/echo", strings.NewReader(strings.Repeat("y", 64)), 200, strings.Repeat("y", 64)},
		{"over the limit", "/echo", strings.NewReader(strings.Repeat("y", 65)), 400, "request body too large"},
		{"chunked, within", "/echo", chunked("hello"), 200, "hello"},
		{"chunked, over", "/echo", chunked(strings.Repeat("y", 65)), 400, "request body too large"},
		{"streamed route", "/stream", strings.NewReader(strings.Repeat("z", 4096)), 200, "streamed 4096"},
		{"streamed route, chunked", "/stream", chunked(strings.Repeat("z", 5000)), 200, "streamed 5000"},
	}
	for _, c := range cases {
		resp, err := client.Post(url+c.path, "text/plain", c.body)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(raw), c.want) {
			t.Errorf("%s: %d %s", c.name, resp.StatusCode, raw)
		}
	}
}
