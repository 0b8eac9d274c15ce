package gateway

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	fws "github.com/fasthttp/websocket"
	"github.com/gofiber/fiber/v2"

	"marketplace/gateway/convex"
	"marketplace/libs/auth"
	"marketplace/libs/config"
	"marketplace/libs/discovery"
	"marketplace/libs/ops"
)

// The sync protocol version: convex-js opens /api/<its version>/sync. The
// pinned version and later 1.x ones are served, and so is /api/sync (no
// version); an older 1.x, another major or a path that is no version is
// answered with a FatalError naming what is served, and the socket closes
// without counting against any cap.
func TestSyncClientVersions(t *testing.T) {
	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, nil)
	for path, want := range map[string]string{
		"/api/1.47.9/sync":        "ClientVersionUnsupported: the convex npm package at version 1.47.9 is not supported",
		"/api/0.19.0/sync":        "ClientVersionUnsupported: the convex npm package at version 0.19.0",
		"/api/2.0.0/sync":         "ClientVersionUnsupported: the convex npm package at version 2.0.0",
		"/api/latest/sync":        `InvalidVersion: "latest" is not a client version`,
		"/api/1.48/sync":          `InvalidVersion: "1.48" is not a client version`,
		"/api/1.048.0/sync":       `InvalidVersion: "1.048.0" is not a client version`,
		"/api/1.47.0-beta.1/sync": "ClientVersionUnsupported",
	} {
		c := dialSyncPath(t, gw, "", path)
		m := c.expect("FatalError")
		if msg, _ := m["error"].(string); !strings.HasPrefix(msg, want) || !strings.Contains(msg, convex.PinnedClient) {
			t.Errorf("%s: %q; want %q... naming %s", path, msg, want, convex.PinnedClient)
		}
		c.closed()
	}
	if st := g.convex.Stats(); len(st.Sockets) != 0 {
		t.Fatalf("refused sockets counted: %v", st.Sockets)
	}
	for i, path := range []string{"/api/sync", "/api/" + convex.PinnedClient + "/sync", "/api/1.48.1/sync", "/api/1.99.3/sync", "/api/1.52.0-alpha.2/sync"} {
		c := dialSyncPath(t, gw, "", path)
		connect(c, "version-"+string(rune('a'+i)), "")
		modifyQuerySet(c, 0, add(0, "board/notes:count", map[string]any{}))
		if m := answers(c, 0)[0]; m["type"] != "QueryUpdated" {
			t.Fatalf("%s: %v", path, m)
		}
	}
}

// GATEWAY_CONVEX=off runs the gateway without the Convex layer: a request
// with a Convex-Client header gets the contract's shapes, and Convex's own
// routes (the sync socket, /api/run, /api/action) do not exist.
func TestGatewayWithoutConvexLayer(t *testing.T) {
	var gc Config
	env := map[string]string{"GATEWAY_CONVEX": "off"}
	if err := config.Load(func(k string) string { return env[k] }, &gc); err != nil || gc.ConvexLayer != "off" {
		t.Fatalf("GATEWAY_CONVEX=off: %q %v", gc.ConvexLayer, err)
	}
	env["GATEWAY_CONVEX"] = "no"
	if err := config.Load(func(k string) string { return env[k] }, &gc); err == nil || !strings.Contains(err.Error(), "GATEWAY_CONVEX") {
		t.Fatalf("GATEWAY_CONVEX=no: %v", err)
	}

	_, boardURL := startBoard(t, ops.Topics{})
	g, gw := startConvexGateway(t, boardURL, func(c *Config) { c.ConvexLayer = "off" })
	if g.convex != nil {
		t.Fatal("the layer was built")
	}
	cc := []string{convex.HeaderClient, "npm-" + convex.PinnedClient}
	user := token(t, "u-off", time.Hour)
	if st, body, _ := post(t, gw, "mutation", `{"path":"board.notes.add","args":{"text":"x"}}`, append(cc, "Authorization", "Bearer "+user)...); st != 200 || body != "1" {
		t.Fatalf("contract mutation with the header: %d %s", st, body)
	}
	if st, body, _ := post(t, gw, "query", `{"path":"board.notes.count","args":{}}`, cc...); st != 200 || body != "1" {
		t.Fatalf("contract query with the header: %d %s", st, body)
	}
	// Convex's body is not the contract's: its path is not an operation.
	if st, body, _ := post(t, gw, "query", `{"path":"board/notes:count","args":[{}],"format":"json"}`, cc...); st == 200 || strings.Contains(body, `"status"`) {
		t.Fatalf("Convex's shape answered: %d %s", st, body)
	}
	for _, r := range []struct{ method, path string }{
		{"GET", "/api/sync"}, {"GET", "/api/" + convex.PinnedClient + "/sync"}, {"POST", "/api/run/board/notes/count"}, {"POST", "/api/action"},
	} {
		if st, body, _ := do(t, r.method, gw+r.path, `{}`, cc...); st != 404 {
			t.Errorf("%s %s: %d %s; want 404", r.method, r.path, st, body)
		}
	}
	ws, resp, err := fws.DefaultDialer.Dial("ws"+strings.TrimPrefix(gw, "http")+"/api/"+convex.PinnedClient+"/sync", nil)
	if err == nil {
		ws.Close()
		t.Fatal("the sync socket opened")
	}
	if resp == nil || resp.StatusCode != 404 {
		t.Fatalf("the sync socket's handshake: %v", err)
	}
}

// The read and write sets a service states on its answers (X-Live-Reads,
// X-Live-Writes) reach the Convex layer: in Invoke's outcome, and with the
// invalidation of a write through the contract's endpoints; they are never
// relayed to the client.
func TestLiveSetsReachTheLayer(t *testing.T) {
	reg := ops.NewRegistry("wall",
		ops.NewQuery("wall.notes.list", ops.Public, "", func(ctx context.Context, _ *ops.NoArgs) ([]string, error) { return []string{}, nil }),
		ops.NewMutation("wall.notes.add", ops.Public, "", func(ctx context.Context, _ *ops.NoArgs) (int, error) { return 1, nil }),
	)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(func(c *fiber.Ctx) error {
		err := c.Next()
		switch c.Path() {
		case "/api/query":
			c.Set(HeaderLiveReads, "notes:wall=1")
		case "/api/mutation":
			c.Set(HeaderLiveWrites, "notes:wall=1")
		}
		return err
	})
	v, _ := auth.NewHS256(secret, auth.Options{})
	(&ops.Server{Registry: reg, Verifier: v}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })

	g := New(Config{Services: []string{"wall"}, UpstreamTimeout: 2 * time.Second, RefreshInterval: time.Hour},
		discovery.NewStatic(map[string]string{"wall": "http://" + ln.Addr().String()}), v, slog.New(slog.DiscardHandler))
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	host := convexHost{g}
	if out := host.Invoke(context.Background(), convex.Call{Kind: ops.Query, Path: "wall.notes.list", Args: []byte(`{}`)}); out.Err != nil ||
		out.Service != "wall" || out.Reads != "notes:wall=1" || out.Writes != "" {
		t.Fatalf("query: %+v", out)
	}
	if out := host.Invoke(context.Background(), convex.Call{Kind: ops.Mutation, Path: "wall.notes.add", Args: []byte(`{}`)}); out.Err != nil ||
		out.Writes != "notes:wall=1" || out.Reads != "" {
		t.Fatalf("mutation: %+v", out)
	}
	if out := host.Invoke(context.Background(), convex.Call{Kind: ops.Query, Path: "wall.notes.nope"}); out.Err == nil || out.Service != "" {
		t.Fatalf("unknown: %+v", out)
	}

	var mu sync.Mutex
	var got []string
	g.invalidate = func(service, writes string) {
		mu.Lock()
		got = append(got, service+" "+writes)
		mu.Unlock()
	}
	gw := serveGateway(t, g)
	st, _, h := post(t, gw, "mutation", `{"path":"wall.notes.add","args":{}}`)
	if st != 200 {
		t.Fatalf("mutation: %d", st)
	}
	for _, name := range []string{HeaderLiveReads, HeaderLiveWrites} {
		if v := h.Get(name); v != "" {
			t.Errorf("%s relayed to the client: %q", name, v)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "wall notes:wall=1" {
		t.Fatalf("invalidations: %q", got)
	}
}
