package gateway

import (
	"context"
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

	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

type echoArgs struct {
	Say *string `json:"say"`
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
		ops.NewMutation("fake.things.secret", ops.Internal, "", func(ctx context.Context, _ *ops.NoArgs) (string, error) { return "leak", nil }),
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
	(&ops.Server{Registry: reg, Verifier: v, InternalToken: "svc-token"}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	return "http://" + ln.Addr().String(), func() { _ = app.Shutdown() }
}

func startGateway(t *testing.T, cfg Config, res ops.Resolver) string {
	v, _ := auth.NewHS256(secret, auth.Options{})
	logger := slog.New(slog.DiscardHandler)
	g := New(cfg, res, v, logger)
	_ = g.Refresh(context.Background())
	h := httpserver.Defaults()
	h.AccessLog = false
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
	// The gateway strips the internal token a client might send: internal operations
	// stay unreachable even with a stolen token.
	st, body, _ := post(t, gw, "mutation", `{"path":"fake.things.secret"}`, ops.HeaderInternalToken, "svc-token")
	if st != 404 || !strings.Contains(body, "NOT_FOUND") {
		t.Fatalf("internal op via gateway: %d %s", st, body)
	}
	tok, _ := auth.Mint(secret, "u1", nil, time.Minute, auth.Options{})
	for len(seen) > 0 {
		<-seen
	}
	if st, body, _ := post(t, gw, "query", `{"path":"fake.things.mine"}`, "Authorization", "Bearer "+tok, ops.HeaderInternalToken, "svc-token"); st != 200 || body != `"u1"` {
		t.Fatalf("mine: %d %s", st, body)
	}
	h := <-seen
	if h.Get(ops.HeaderInternalToken) != "" || h.Get("Authorization") != "Bearer "+tok || h.Get(httpserver.HeaderRequestID) == "" {
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

func TestLimiterRefillsAndSweeps(t *testing.T) {
	l := newLimiter(10, 2)
	now := time.Now()
	if !l.allow("k", now) || !l.allow("k", now) || l.allow("k", now) {
		t.Fatal("burst")
	}
	if !l.allow("k", now.Add(150*time.Millisecond)) {
		t.Fatal("no refill")
	}
	l.sweep(now.Add(time.Hour))
	n := 0
	for i := range l.shards {
		n += len(l.shards[i].buckets)
	}
	if n != 0 {
		t.Fatalf("%d buckets left after sweep", n)
	}
	if !newLimiter(0, 0).allow("x", now) {
		t.Fatal("disabled limiter refused")
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

func TestProcessorRoutesAreExact(t *testing.T) {
	seen := make(chan http.Header, 16)
	url, stop := fakeService(t, seen)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, ProcessorService: "fake", UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	for len(seen) > 0 {
		<-seen // the routing table fetch
	}
	for _, p := range []string{"/processor/../api/mutation", "/processor/%2e%2e/ops", "/processor/other", "/PROCESSOR/webhook/x"} {
		req, _ := http.NewRequest("POST", gw+p, strings.NewReader(`{"path":"fake.things.secret"}`))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s answered %d", p, resp.StatusCode)
		}
	}
	select {
	case h := <-seen:
		t.Fatalf("a request reached the service: %v", h)
	default:
	}
}
