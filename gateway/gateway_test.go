package gateway

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/gateway/convex"
	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/serviceauth"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

type echoArgs struct {
	Say *string `json:"say"`
}

// payoutsKey is the key of a service the fake service accepts internal calls
// from: a client that got hold of one of its assertions still cannot use it
// through the gateway.
var payoutsKey, _ = serviceauth.GenerateKey()

// payoutsAssertion is a valid assertion of "payouts" for the fake service.
func payoutsAssertion(t *testing.T) string {
	t.Helper()
	a, err := serviceauth.NewSigner("payouts", payoutsKey, nil).Assertion("fake")
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// fakeService serves a small registry on loopback; stop closes it.
func fakeService(t *testing.T, seen chan<- http.Header) (url string, stop func()) {
	v, _ := auth.NewHS256(secret, auth.Options{})
	reg := ops.NewRegistry("fake",
		ops.NewQuery("fake.things.echo", ops.Public, "", func(ctx context.Context, a *echoArgs) (string, error) {
			if a.Say != nil {
				return *a.Say, nil
			}
			return "", nil
		}),
		ops.NewQuery("fake.things.mine", ops.Authenticated, "", func(ctx context.Context, _ *ops.NoArgs) (string, error) { return ops.Caller(ctx).Sub, nil }),
		ops.NewMutation("fake.things.secret", ops.Internal, "", func(ctx context.Context, _ *ops.NoArgs) (string, error) { return "leak", nil }, ops.CalledBy("payouts")),
	)
	app := fiber.New()
	app.Use(func(c *fiber.Ctx) error {
		if seen != nil {
			h := http.Header{}
			c.Request().Header.VisitAll(func(k, v []byte) { h.Add(string(k), string(v)) })
			select {
			case seen <- h:
			default:
			}
		}
		return c.Next()
	})
	// "payouts" may call its internal operations, with a valid assertion.
	peers := serviceauth.NewVerifier("fake", map[string]ed25519.PublicKey{"payouts": payoutsKey.Public().(ed25519.PublicKey)}, nil)
	(&ops.Server{Registry: reg, Verifier: v, Peers: peers, Callers: []string{"payouts"}, Routes: fakeRoutes}).Mount(app)
	// Served, but not declared: the gateway must never reach it.
	app.Get("/undeclared", func(c *fiber.Ctx) error { return c.SendString("leak") })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	return "http://" + ln.Addr().String(), func() { _ = app.Shutdown() }
}

func startGateway(t *testing.T, cfg Config, res ops.Resolver) string {
	h := httpserver.Defaults()
	h.AccessLog = false
	return startGatewayServing(t, cfg, res, h)
}

// startGatewayServing is startGateway with the server's limits h.
func startGatewayServing(t *testing.T, cfg Config, res ops.Resolver, h httpserver.Config) string {
	v, _ := auth.NewHS256(secret, auth.Options{})
	logger := slog.New(slog.DiscardHandler)
	g := New(cfg, res, v, logger)
	_ = g.Refresh(context.Background())
	app := g.App(h, logger)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func post(t *testing.T, url, kind, body string, headers ...string) (int, string, http.Header) {
	req, _ := http.NewRequest("POST", url+"/api/"+kind, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

func TestGatewayRoutesForwardsAndHidesInternal(t *testing.T) {
	seen := make(chan http.Header, 16)
	url, stop := fakeService(t, seen)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))

	if st, body, _ := post(t, gw, "query", `{"path":"fake.things.echo","args":{"say":"hi"}}`); st != 200 || body != `"hi"` {
		t.Fatalf("echo: %d %s", st, body)
	}
	// The gateway never forwards a service's assertion a client might send:
	// internal operations stay unreachable even with a stolen one, which the
	// service itself accepts.
	stolen := payoutsAssertion(t)
	if st, body, _ := post(t, url, "mutation", `{"path":"fake.things.secret"}`, serviceauth.Header, stolen); st != 200 || body != `"leak"` {
		t.Fatalf("the assertion on the service itself: %d %s", st, body)
	}
	st, body, _ := post(t, gw, "mutation", `{"path":"fake.things.secret"}`, serviceauth.Header, stolen)
	if st != 404 || !strings.Contains(body, "NOT_FOUND") {
		t.Fatalf("internal op via gateway: %d %s", st, body)
	}
	if strings.Count(body, "secret") != 1 { // named once: the path the caller sent, never as a suggestion
		t.Fatalf("internal op suggested: %s", body)
	}
	// An unknown operation names the nearest public ones.
	st, body, _ = post(t, gw, "query", `{"path":"fake.things.ecoh"}`)
	if st != 404 || !strings.Contains(body, `did you mean fake.things.echo`) || !strings.Contains(body, `"suggestions":["fake.things.echo"`) {
		t.Fatalf("unknown op: %d %s", st, body)
	}
	if st, body, _ = post(t, gw, "query", `{"path":"nothing.like.it.at.all.zzzzzzzzzzzz"}`); st != 404 || strings.Contains(body, "suggestions") {
		t.Fatalf("far unknown op: %d %s", st, body)
	}
	tok, _ := auth.Mint(secret, "u1", nil, time.Minute, auth.Options{})
	for len(seen) > 0 {
		<-seen
	}
	if st, body, _ := post(t, gw, "query", `{"path":"fake.things.mine"}`, "Authorization", "Bearer "+tok, serviceauth.Header, stolen); st != 200 || body != `"u1"` {
		t.Fatalf("mine: %d %s", st, body)
	}
	h := <-seen
	if h.Get(serviceauth.Header) != "" || h.Get("Authorization") != "Bearer "+tok || h.Get(httpserver.HeaderRequestID) == "" {
		t.Fatalf("forwarded headers: %v", h)
	}
	// The gateway refuses an anonymous call to an authenticated operation itself.
	if st, body, _ := post(t, gw, "query", `{"path":"fake.things.mine"}`); st != 401 || !strings.Contains(body, "UNAUTHENTICATED") {
		t.Fatalf("anonymous: %d %s", st, body)
	}
	if st, _, _ := post(t, gw, "query", `{"path":"fake.things.echo","args":{"say":1}}`); st != 400 {
		t.Fatalf("bad args not refused by the service: %d", st)
	}
}

func TestGatewayUnavailableServiceIs503NotAHang(t *testing.T) {
	url, stop := fakeService(t, nil)
	res := discovery.NewStatic(map[string]string{"fake": url})
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second, RefreshInterval: time.Hour}, res)
	stop()
	start := time.Now()
	st, body, h := post(t, gw, "query", `{"path":"fake.things.echo"}`)
	if st != 503 || !strings.Contains(body, "UNAVAILABLE") || h.Get("Retry-After") == "" {
		t.Fatalf("dead upstream: %d %s", st, body)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %v", d)
	}
	// A service that never existed in discovery is unavailable too.
	res.Set("fake", "")
	if st, _, _ := post(t, gw, "query", `{"path":"fake.things.echo"}`); st != 503 {
		t.Fatalf("unresolvable: %d", st)
	}
}

func TestRefreshKeepsRoutesOfAServiceThatIsDown(t *testing.T) {
	url, stop := fakeService(t, nil)
	res := discovery.NewStatic(map[string]string{"fake": url})
	g := New(Config{Services: []string{"fake"}}, res, nil, slog.New(slog.DiscardHandler))
	if err := g.Refresh(context.Background()); err != nil || g.Ready(context.Background()) != nil {
		t.Fatalf("first refresh: %v", err)
	}
	stop()
	if err := g.Refresh(context.Background()); err == nil {
		t.Fatal("refresh with the service down reported no error")
	}
	if _, ok := g.Operations()["fake.things.echo"]; !ok {
		t.Fatal("routes of a restarting service were dropped")
	}
	if _, ok := g.Operations()["fake.things.secret"]; ok {
		t.Fatal("internal operation entered the public table")
	}
	if err := g.Ready(context.Background()); err != nil {
		t.Fatalf("a service that answered once made the gateway unready: %v", err)
	}
	never := New(Config{Services: []string{"fake", "ghost"}}, res, nil, slog.New(slog.DiscardHandler))
	_ = never.Refresh(context.Background())
	if err := never.Ready(context.Background()); err == nil || !strings.Contains(err.Error(), "ghost") {
		t.Fatalf("ready before every service answered once: %v", err)
	}
}

func TestRateLimitPerCaller(t *testing.T) {
	url, stop := fakeService(t, nil)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second, RateLimitRPS: 1, RateLimitBurst: 3}, discovery.NewStatic(map[string]string{"fake": url}))
	tokA, _ := auth.Mint(secret, "a", nil, time.Minute, auth.Options{})
	tokB, _ := auth.Mint(secret, "b", nil, time.Minute, auth.Options{})
	codes := []int{}
	for i := 0; i < 5; i++ {
		st, body, h := post(t, gw, "query", `{"path":"fake.things.echo"}`, "Authorization", "Bearer "+tokA)
		codes = append(codes, st)
		if st == 429 && (!strings.Contains(body, "RATE_LIMITED") || h.Get("Retry-After") == "") {
			t.Fatalf("429 body: %s", body)
		}
	}
	if codes[0] != 200 || codes[2] != 200 || codes[3] != 429 || codes[4] != 429 {
		t.Fatalf("caller a: %v", codes)
	}
	// Another caller has its own bucket.
	if st, _, _ := post(t, gw, "query", `{"path":"fake.things.echo"}`, "Authorization", "Bearer "+tokB); st != 200 {
		t.Fatalf("caller b limited by a: %d", st)
	}
}

// TestConcurrentCallersGetTheirOwnAnswers: responses must never be shared between
// requests (a pooled upstream buffer once leaked across callers).
func TestConcurrentCallersGetTheirOwnAnswers(t *testing.T) {
	url, stop := fakeService(t, nil)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 5 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	var wg sync.WaitGroup
	errs := make(chan string, 32)
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				say := fmt.Sprintf("worker-%d-call-%d-%s", w, i, strings.Repeat("x", w*7))
				st, body, _ := post(t, gw, "query", `{"path":"fake.things.echo","args":{"say":"`+say+`"}}`)
				if st != 200 || body != `"`+say+`"` {
					errs <- fmt.Sprintf("worker %d asked %q, got %d %s", w, say, st, body)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// fakeRoutes are the fake service's raw routes.
var fakeRoutes = []ops.Route{
	{Method: "POST", Path: "/processor/webhook", Access: ops.Public, Errors: ops.ErrorsSimple, Handler: func(c *fiber.Ctx) error {
		return c.SendString("got " + string(c.Body()) + " signed " + c.Get("processor-signature"))
	}},
	{Method: "GET", Path: "/processor/config", Access: ops.Public, Errors: ops.ErrorsSimple, Handler: func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"publishableKey": "pk"})
	}},
	{Method: "POST", Path: "/processor/signed", Access: ops.Public, Errors: ops.ErrorsSimple, SenderLimited: true, Handler: func(c *fiber.Ctx) error {
		return c.SendString("signed")
	}},
	// Ignores If-None-Match: the gateway answers the conditional request.
	{Method: "GET", Path: "/files/:id", Access: ops.Public, Handler: func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderETag, `"e-`+c.Params("id")+`"`)
		c.Set(fiber.HeaderCacheControl, "public, max-age=60")
		c.Set(fiber.HeaderXContentTypeOptions, "nosniff")
		c.Set("X-Secret-Header", "not for clients")
		c.Set(fiber.HeaderContentType, "image/png")
		return c.SendString("file " + c.Params("id") + " q=" + c.Query("q"))
	}},
	{Method: "POST", Path: "/files/upload", Access: ops.Authenticated, Handler: func(c *fiber.Ctx) error {
		return c.SendString(fmt.Sprintf("%s:%d", ops.Caller(c.UserContext()).Sub, len(c.Body())))
	}},
}

func do(t *testing.T, method, url, body string, headers ...string) (int, string, http.Header) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// TestRawRoutesAreExact: only a declared method and path, exactly as sent,
// reaches the service: no prefix pass-through, no dot segments, no encoded
// characters, no other case, no trailing slash, no second segment for a
// parameter.
func TestRawRoutesAreExact(t *testing.T) {
	seen := make(chan http.Header, 16)
	url, stop := fakeService(t, seen)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	for len(seen) > 0 {
		<-seen // the routing table fetch
	}
	cases := []struct{ method, path string }{
		{"POST", "/processor/../api/mutation"},
		{"POST", "/processor/%2e%2e/ops"},
		{"POST", "/processor/other"},
		{"POST", "/PROCESSOR/webhook"},
		{"POST", "/processor/webhook/"},
		{"POST", "/processor/webhook/x"},
		{"POST", "/processor//webhook"},
		{"GET", "/processor/webhook"}, // declared for POST only: 405
		{"GET", "/files/a/b"},
		{"GET", "/files/.."},
		{"GET", "/files/../ops"},
		{"GET", "/files/%2e%2e"},
		{"GET", "/files/a%2Fb"},
		{"GET", "/files/a.b"},
		{"GET", "/files/"},
		{"GET", "/files/" + strings.Repeat("a", ops.MaxParamLength+1)},
		{"GET", "/undeclared"},
		{"GET", "/ops"},
		{"POST", "/files/x"}, // declared for GET only: 405
	}
	for _, c := range cases {
		st, body, h := do(t, c.method, gw+c.path, `{"path":"fake.things.secret"}`)
		want, code := 404, "NOT_FOUND"
		if c.path == "/processor/webhook" || c.path == "/files/x" {
			want, code = 405, "INVALID_ARGUMENT"
		}
		if st != want || !strings.Contains(body, code) || h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s %s answered %d %s", c.method, c.path, st, body)
		}
	}
	select {
	case h := <-seen:
		t.Fatalf("a request reached the service: %v", h)
	default:
	}
}

// TestRawRoutesForward: declared routes reach their service with their body,
// the headers they need and their query; the service's caching headers come
// back (nothing else it sets), a matching If-None-Match is a 304, and an
// authenticated route needs a valid token at the gateway already.
func TestRawRoutesForward(t *testing.T) {
	seen := make(chan http.Header, 16)
	url, stop := fakeService(t, seen)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	for len(seen) > 0 {
		<-seen
	}
	if st, body, _ := do(t, "POST", gw+"/processor/webhook", "{}", "processor-signature", "t=1,v1=ab", serviceauth.Header, payoutsAssertion(t)); st != 200 || body != "got {} signed t=1,v1=ab" {
		t.Fatalf("webhook: %d %s", st, body)
	}
	if h := <-seen; h.Get(serviceauth.Header) != "" || h.Get(httpserver.HeaderRequestID) == "" {
		t.Fatalf("forwarded headers: %v", h)
	}
	st, body, h := do(t, "GET", gw+"/files/ab-C_9?q=1", "")
	if st != 200 || body != "file ab-C_9 q=1" || h.Get("Content-Type") != "image/png" || h.Get("ETag") != `"e-ab-C_9"` ||
		h.Get("Cache-Control") != "public, max-age=60" || h.Get("X-Content-Type-Options") != "nosniff" ||
		h.Get("X-Secret-Header") != "" || h.Get("Access-Control-Allow-Origin") != "*" {
		t.Fatalf("file: %d %s %v", st, body, h)
	}
	for _, inm := range []string{`"e-ab-C_9"`, `W/"e-ab-C_9"`, `"other", "e-ab-C_9"`, "*"} {
		st, body, h = do(t, "GET", gw+"/files/ab-C_9", "", "If-None-Match", inm)
		if st != 304 || body != "" || h.Get("ETag") != `"e-ab-C_9"` || h.Get("Cache-Control") == "" {
			t.Fatalf("If-None-Match %s: %d %q %v", inm, st, body, h)
		}
	}
	if st, _, _ = do(t, "GET", gw+"/files/ab-C_9", "", "If-None-Match", `"other"`); st != 200 {
		t.Fatalf("a stale If-None-Match: %d", st)
	}
	if st, body, _ = do(t, "POST", gw+"/files/upload", "hello"); st != 401 || !strings.Contains(body, "UNAUTHENTICATED") {
		t.Fatalf("anonymous upload: %d %s", st, body)
	}
	if st, body, _ = do(t, "POST", gw+"/files/upload", "hello", "Authorization", "Bearer nonsense"); st != 401 || !strings.Contains(body, "UNAUTHENTICATED") {
		t.Fatalf("bad token: %d %s", st, body)
	}
	for len(seen) > 0 {
		<-seen
	}
	select {
	case h := <-seen:
		t.Fatalf("a refused upload reached the service: %v", h)
	default:
	}
	tok, _ := auth.Mint(secret, "u1", nil, time.Minute, auth.Options{})
	if st, body, _ = do(t, "POST", gw+"/files/upload", "hello", "Authorization", "Bearer "+tok); st != 200 || body != "u1:5" {
		t.Fatalf("upload: %d %s", st, body)
	}
	// A bad token on a public route is refused too, as on public operations;
	// the webhook's refusals keep its own body.
	st, body, _ = do(t, "POST", gw+"/processor/webhook", "{}", "Authorization", "Bearer nonsense")
	if st != 401 || !strings.HasPrefix(body, `{"error":"`) || strings.Contains(body, `"code"`) {
		t.Fatalf("webhook with a bad token: %d %s", st, body)
	}
}

// TestRawRoutesRateLimited: raw routes share the per-caller limit; the
// webhook's 429 keeps its { error, retryAfter } body.
func TestRawRoutesRateLimited(t *testing.T) {
	url, stop := fakeService(t, nil)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second, RateLimitRPS: 0.01, RateLimitBurst: 1}, discovery.NewStatic(map[string]string{"fake": url}))
	if st, _, _ := do(t, "GET", gw+"/processor/config", ""); st != 200 {
		t.Fatalf("first: %d", st)
	}
	st, body, h := do(t, "POST", gw+"/processor/webhook", "{}")
	if st != 429 || body != `{"error":"too many requests; retry shortly","retryAfter":1}` || h.Get("Retry-After") != "1" {
		t.Fatalf("limited webhook: %d %s", st, body)
	}
	if st, body, _ = do(t, "GET", gw+"/files/x", ""); st != 429 || !strings.Contains(body, "RATE_LIMITED") {
		t.Fatalf("limited file: %d %s", st, body)
	}
	// A route whose sender is limited by its own checks is never limited here.
	for i := 0; i < 5; i++ {
		if st, body, _ = do(t, "POST", gw+"/processor/signed", "{}"); st != 200 || body != "signed" {
			t.Fatalf("sender-limited route %d: %d %s", i, st, body)
		}
	}
}

// TestRawRoutesOfADownService: a service that answered once keeps its routes
// while it is down (503, in each route's error style); the routes of a service
// that never answered are unknown (404) until it does.
func TestRawRoutesOfADownService(t *testing.T) {
	url, stop := fakeService(t, nil)
	res := discovery.NewStatic(map[string]string{"fake": url})
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second, RefreshInterval: time.Hour}, res)
	stop()
	for _, p := range []string{"/processor/webhook", "/processor/config"} {
		method := map[string]string{"/processor/webhook": "POST", "/processor/config": "GET"}[p]
		st, body, h := do(t, method, gw+p, "{}")
		if st != 503 || body != `{"error":"fake is unavailable; retry shortly","retryAfter":5}` || h.Get("Retry-After") != "5" {
			t.Fatalf("%s with the service down: %d %s", p, st, body)
		}
	}
	if st, body, _ := do(t, "GET", gw+"/files/x", ""); st != 503 || !strings.Contains(body, "UNAVAILABLE") {
		t.Fatalf("file with the service down: %d %s", st, body)
	}
	g := New(Config{Services: []string{"fake"}}, res, nil, slog.New(slog.DiscardHandler))
	_ = g.Refresh(context.Background())
	if len(g.Routes()) != 0 {
		t.Fatalf("routes of a service that never answered: %v", g.Routes())
	}
	url2, stop2 := fakeService(t, nil)
	defer stop2()
	res.Set("fake", url2)
	if err := g.Refresh(context.Background()); err != nil || len(g.Routes()) != len(fakeRoutes) {
		t.Fatalf("routes after the service answered: %v %v", err, g.Routes())
	}
	if err := g.Refresh(context.Background()); err != nil || len(g.Routes()) != len(fakeRoutes) {
		t.Fatalf("routes after a second refresh: %v %v", err, g.Routes())
	}
}

// TestRawRouteConflicts: a route another service already declared, or one
// the gateway cannot honour, is left out.
func TestRawRouteConflicts(t *testing.T) {
	url, stop := fakeService(t, nil)
	defer stop()
	other := fiber.New()
	other.Get("/ops", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"service": "other", "operations": []any{}, "routes": []ops.RouteDescriptor{
			{Method: "GET", Path: "/files/:name", Access: ops.Public},      // overlaps fake's /files/:id
			{Method: "GET", Path: "/files/../x", Access: ops.Public},       // invalid
			{Method: "GET", Path: "/api/query", Access: ops.Public},        // reserved
			{Method: "GET", Path: "/other/:id", Access: ops.Admin},         // unsupported access
			{Method: "GET", Path: "/other/:id", Access: ops.Authenticated}, // fine
		}})
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go other.Listener(ln)
	defer other.Shutdown()
	res := discovery.NewStatic(map[string]string{"fake": url, "other": "http://" + ln.Addr().String()})
	g := New(Config{Services: []string{"fake", "other"}}, res, nil, slog.New(slog.DiscardHandler))
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := g.Routes()
	if len(got) != len(fakeRoutes)+1 {
		t.Fatalf("routes: %v", got)
	}
	if _, ok := got["other GET /other/:id"]; !ok {
		t.Fatalf("the valid route of other is missing: %v", got)
	}
	if _, ok := got["fake GET /files/:id"]; !ok {
		t.Fatalf("the first declaration lost: %v", got)
	}
}

// The wrong method on a route the gateway serves is 405 with Allow; an
// unknown path stays 404.
func TestWrongMethodIs405(t *testing.T) {
	gw := startGateway(t, Config{Services: []string{}, UpstreamTimeout: time.Second}, discovery.NewStatic(map[string]string{}))
	for _, c := range []struct{ method, path, allow string }{
		{"GET", "/api/query", "POST"}, {"PUT", "/api/mutation", "POST"}, {"GET", "/api/run/a/b/c", "POST"},
		{"POST", "/health", "GET"}, {"DELETE", "/api/openapi.json", "GET"},
	} {
		req, _ := http.NewRequest(c.method, gw+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 405 || !strings.Contains(resp.Header.Get("Allow"), c.allow) || !strings.Contains(string(body), "INVALID_ARGUMENT") {
			t.Errorf("%s %s: %d allow=%q %s", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), body)
		}
	}
	resp, err := http.Get(gw + "/nowhere")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("unknown path: %d", resp.StatusCode)
	}
}

// TestEncodedBodies: an operation's body with a Content-Encoding is refused
// before anything reads (and would inflate) it, and never reaches the
// service; a raw route's request carries its Content-Encoding to the
// service, whose rule decides.
func TestEncodedBodies(t *testing.T) {
	seen := make(chan http.Header, 16)
	url, stop := fakeService(t, seen)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write([]byte(`{"path":"fake.things.echo","args":{"say":"hi"}}`))
	_ = zw.Close()
	for len(seen) > 0 {
		<-seen
	}
	st, body, _ := post(t, gw, "query", zipped.String(), "Content-Type", "application/json", "Content-Encoding", "gzip")
	if st != 400 || !strings.Contains(body, "INVALID_ARGUMENT") || !strings.Contains(body, "Content-Encoding") {
		t.Fatalf("a gzip operation body: %d %s", st, body)
	}
	select {
	case h := <-seen:
		t.Fatalf("a refused encoded body reached the service: %v", h)
	default:
	}
	// The Convex clients' endpoints read bodies too.
	for _, c := range []struct{ path, body string }{
		{"/api/query", zipped.String()},
		{"/api/run/fake/things/echo", zipped.String()},
	} {
		st, body, _ := do(t, "POST", gw+c.path, c.body, "Content-Type", "application/json", "Content-Encoding", "gzip", convex.HeaderClient, "npm-1.48.0")
		if !strings.Contains(body, "Content-Encoding") || st == 200 && !strings.Contains(body, `"error"`) {
			t.Fatalf("Convex %s with a gzip body: %d %s", c.path, st, body)
		}
	}
	select {
	case h := <-seen:
		t.Fatalf("a refused encoded Convex body reached the service: %v", h)
	default:
	}
	if st, body, _ = post(t, gw, "query", `{"path":"fake.things.echo","args":{"say":"hi"}}`, "Content-Type", "application/json", "Content-Encoding", "identity"); st != 200 {
		t.Fatalf("identity: %d %s", st, body)
	}
	<-seen
	tok, _ := auth.Mint(secret, "u1", nil, time.Minute, auth.Options{})
	if st, body, _ = do(t, "POST", gw+"/files/upload", zipped.String(), "Authorization", "Bearer "+tok, "Content-Encoding", "gzip"); st != 200 {
		t.Fatalf("raw route: %d %s", st, body)
	}
	if h := <-seen; h.Get("Content-Encoding") != "gzip" {
		t.Fatalf("the raw route's Content-Encoding was not forwarded: %v", h)
	}
}
