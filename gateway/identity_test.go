package gateway

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net"
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

// whoami is a service behind the gateway that holds only the gateway's public
// key: it cannot verify (or mint) users' tokens, only the gateway's word for
// who calls. It records the Authorization header of each call.
type whoami struct {
	url  string
	mu   sync.Mutex
	seen []string
}

func (w *whoami) last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.seen) == 0 {
		return "(none)"
	}
	return w.seen[len(w.seen)-1]
}

func startWhoami(t *testing.T, gatewayKey ed25519.PublicKey) *whoami {
	t.Helper()
	v, err := auth.NewGatewayVerifier(gatewayKey)
	if err != nil {
		t.Fatal(err)
	}
	who := func(ctx context.Context) string {
		id := ops.Caller(ctx)
		if id == nil {
			return "anonymous"
		}
		return id.Sub + "|" + strings.Join(id.Roles, ",")
	}
	reg := ops.NewRegistry("whoami",
		ops.NewQuery("whoami.me.get", ops.Authenticated, "", func(ctx context.Context, _ *ops.NoArgs) (string, error) { return who(ctx), nil }),
		ops.NewQuery("whoami.me.open", ops.Public, "", func(ctx context.Context, _ *ops.NoArgs) (string, error) { return who(ctx), nil }),
	)
	routes := []ops.Route{{Method: "POST", Path: "/whoami/raw", Access: ops.Authenticated, Handler: func(c *fiber.Ctx) error {
		return c.SendString(who(c.UserContext()))
	}}}
	w := &whoami{}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(func(c *fiber.Ctx) error {
		w.mu.Lock()
		w.seen = append(w.seen, c.Get(fiber.HeaderAuthorization))
		w.mu.Unlock()
		return c.Next()
	})
	(&ops.Server{Registry: reg, Verifier: auth.Cached(v, 100, time.Minute), Routes: routes}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	w.url = "http://" + ln.Addr().String()
	return w
}

// startSigningGateway is a gateway verifying users' development tokens that
// signs what it forwards with key (none: it forwards the users' tokens).
func startSigningGateway(t *testing.T, serviceURL string, key ed25519.PrivateKey) string {
	t.Helper()
	cfg := Config{Services: []string{"whoami"}, UpstreamTimeout: 5 * time.Second, RefreshInterval: time.Hour,
		Convex: convex.Config{MaxQueriesPerConnection: 100, MaxConnectionsPerCaller: 20}}
	v, _ := auth.NewHS256(secret, auth.Options{})
	logger := slog.New(slog.DiscardHandler)
	g := New(cfg, discovery.NewStatic(map[string]string{"whoami": serviceURL}), v, logger)
	if key != nil {
		g.SignIdentities(auth.NewIssuer(key))
	}
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	go g.Run(ctx)
	h := httpserver.Defaults()
	h.AccessLog = false
	app := g.App(h, logger)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go app.Listener(ln)
	t.Cleanup(func() {
		cancel()
		_ = app.Shutdown()
	})
	return "http://" + ln.Addr().String()
}

// Only the gateway verifies users' tokens: a service holding the gateway's
// public key alone serves every call the gateway forwards (operations, raw
// routes, Convex's HTTP calls and live queries) for the caller the gateway
// verified, with its roles; it never sees the user's token, and refuses a
// user's token sent to it directly as well as a token of another key.
func TestServicesTrustTheGatewaysSignatureOnly(t *testing.T) {
	key, err := serviceauth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	svc := startWhoami(t, pub)
	gw := startSigningGateway(t, svc.url, key)
	user := token(t, "u1", time.Hour, "admin")

	if st, body, _ := post(t, gw, "query", `{"path":"whoami.me.get"}`, "Authorization", "Bearer "+user); st != 200 || body != `"u1|admin"` {
		t.Fatalf("operation: %d %s", st, body)
	}
	// What the service got: the gateway's EdDSA token for u1, not the user's.
	fwd, ok := strings.CutPrefix(svc.last(), "Bearer ")
	if !ok || fwd == user {
		t.Fatalf("the service got %q", svc.last())
	}
	head, _ := base64.RawURLEncoding.DecodeString(strings.Split(fwd, ".")[0])
	var h struct{ Alg string }
	_ = json.Unmarshal(head, &h)
	gv, _ := auth.NewGatewayVerifier(pub)
	id, err := gv.Verify(context.Background(), fwd)
	if h.Alg != "EdDSA" || err != nil || id.Sub != "u1" || !id.IsAdmin() {
		t.Fatalf("forwarded token alg %q: %+v %v", h.Alg, id, err)
	}
	userID, _ := auth.NewHS256(secret, auth.Options{})
	if uid, _ := userID.Verify(context.Background(), user); !id.Expires.Equal(uid.Expires) {
		t.Errorf("the gateway's token expires at %v, the user's at %v", id.Expires, uid.Expires)
	}

	// Anonymous: nothing forwarded.
	if st, body, _ := post(t, gw, "query", `{"path":"whoami.me.open"}`); st != 200 || body != `"anonymous"` || svc.last() != "" {
		t.Fatalf("anonymous: %d %s, Authorization %q", st, body, svc.last())
	}
	// A raw route.
	if st, body, _ := do(t, "POST", gw+"/whoami/raw", "", "Authorization", "Bearer "+user); st != 200 || body != "u1|admin" {
		t.Fatalf("raw route: %d %s", st, body)
	}
	// Convex's HTTP client.
	cc := []string{convex.HeaderClient, "npm-" + convex.PinnedClient, "Authorization", "Bearer " + user}
	if st, m := convexPost(t, gw, "/api/query", `{"path":"whoami/me:get","args":{}}`, cc...); st != 200 || m["value"] != "u1|admin" {
		t.Fatalf("Convex HTTP: %d %v", st, m)
	}
	// A live query over the sync socket.
	c := dialSync(t, gw)
	connect(c, "who", token(t, "u2", time.Hour))
	modifyQuerySet(c, 0, add(0, "whoami/me:get", map[string]any{}))
	if m := answers(c, 0)[0]; m["type"] != "QueryUpdated" || m["value"] != "u2|" {
		t.Fatalf("live query: %v", m)
	}

	// Straight to the service, the user's token is worth nothing, nor is a
	// token signed by another key (a service's own, say).
	if st, body, _ := post(t, svc.url, "query", `{"path":"whoami.me.get"}`, "Authorization", "Bearer "+user); st != 401 {
		t.Fatalf("a user's token at the service: %d %s", st, body)
	}
	other, _ := serviceauth.GenerateKey()
	forged, err := auth.NewIssuer(other).Token(&auth.Identity{Sub: "admin-1", Roles: []string{"admin"}, Expires: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if st, body, _ := post(t, svc.url, "query", `{"path":"whoami.me.get"}`, "Authorization", "Bearer "+forged); st != 401 {
		t.Fatalf("another key's token at the service: %d %s", st, body)
	}

	// Without the gateway's signature the users' tokens reach the service
	// as they came, and it cannot take them.
	plain := startSigningGateway(t, svc.url, nil)
	if st, body, _ := post(t, plain, "query", `{"path":"whoami.me.get"}`, "Authorization", "Bearer "+user); st != 401 || svc.last() != "Bearer "+user {
		t.Fatalf("unsigned: %d %s", st, body)
	}
}
