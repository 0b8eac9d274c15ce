package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/gateway/convex"
	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/httpserver"
	"marketplace/libs/logtest"
	"marketplace/libs/ops"
	build "marketplace/libs/version"
)

// versionedService serves one public query, one internal one and a raw route,
// declaring the contract versions given (nil: none at all, as a build before
// the declarations).
func versionedService(t *testing.T, contracts *build.Contracts) string {
	t.Helper()
	v, _ := auth.NewHS256(secret, auth.Options{})
	reg := ops.NewRegistry("shop",
		ops.NewQuery("shop.items.hello", ops.Public, "", func(context.Context, *ops.NoArgs) (string, error) { return "hi", nil }),
		ops.NewQuery("shop.items.inside", ops.Internal, "", func(context.Context, *ops.NoArgs) (string, error) { return "in", nil }),
	)
	app := fiber.New()
	if contracts == nil {
		// A service built before the declarations: its GET /ops has no contracts.
		app.Use("/ops", func(c *fiber.Ctx) error {
			if err := c.Next(); err != nil {
				return err
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(c.Response().Body(), &m); err != nil {
				return err
			}
			delete(m, "contracts")
			b, _ := json.Marshal(m)
			c.Response().SetBodyRaw(b)
			return nil
		})
	}
	s := &ops.Server{Registry: reg, Verifier: v, Routes: []ops.Route{
		{Method: "GET", Path: "/shop/config", Access: ops.Public, Errors: ops.ErrorsSimple, Handler: func(c *fiber.Ctx) error {
			return c.JSON(fiber.Map{"ok": true})
		}},
	}}
	if contracts != nil {
		s.Contracts = *contracts
	}
	s.Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func versionGateway(t *testing.T, shopURL string, logs *logtest.Buffer) (*Gateway, string) {
	t.Helper()
	v, _ := auth.NewHS256(secret, auth.Options{})
	logger := slog.New(slog.NewJSONHandler(logs, nil))
	g := New(Config{Services: []string{"shop"}, UpstreamTimeout: 2 * time.Second, RefreshInterval: time.Hour},
		discovery.NewStatic(map[string]string{"shop": shopURL}), v, logger)
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	h := httpserver.Defaults()
	h.AccessLog = false
	app := g.App(h, logger)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return g, "http://" + ln.Addr().String()
}

// TestGatewayRefusesAContractMajorItDoesNotServe: a service that declares a
// public contract of another major than the gateway's is not routed: its
// operations (plain and through Convex's clients) and its raw routes answer
// UNAVAILABLE with reason contract_version_unsupported naming both versions,
// they leave the OpenAPI document, and the gateway logs it once however many
// refreshes see it.
func TestGatewayRefusesAContractMajorItDoesNotServe(t *testing.T) {
	built := build.BuiltContracts()
	served, _ := build.ParseSemver(built.Public)
	next := build.Semver{Major: served.Major + 1}.String()
	logs := &logtest.Buffer{}
	g, gw := versionGateway(t, versionedService(t, &build.Contracts{Public: next, Internal: built.Internal, Events: built.Events}), logs)

	wantServes := served.String()[:strings.IndexByte(served.String(), '.')] + ".x"
	st, body, _ := post(t, gw, "query", `{"path":"shop.items.hello"}`)
	var e struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		t.Fatalf("%d %s", st, body)
	}
	if st != http.StatusServiceUnavailable || e.Error.Code != "UNAVAILABLE" || e.Error.Details["reason"] != ops.ReasonContractVersionUnsupported ||
		e.Error.Details["declared"] != next || e.Error.Details["serves"] != wantServes || e.Error.Details["service"] != "shop" ||
		!strings.Contains(e.Error.Message, "public contract "+next) || !strings.Contains(e.Error.Message, "serves public contract "+wantServes) {
		t.Fatalf("operation of an unserved major: %d %s", st, body)
	}
	// The same through Convex's HTTP API.
	st, m := convexPost(t, gw, "/api/query", `{"path":"shop/items:hello","args":[{}]}`, convex.HeaderClient, "npm-1.48.0")
	if st != 200 || errorCode(m) != "UNAVAILABLE" || !strings.Contains(m["errorMessage"].(string), "public contract "+next) {
		t.Fatalf("Convex call of an unserved major: %d %v", st, m)
	}
	// Its raw route, in the route's error style.
	resp, err := http.Get(gw + "/shop/config")
	if err != nil {
		t.Fatal(err)
	}
	var simple map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&simple)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(simple["error"].(string), "public contract "+next) {
		t.Fatalf("raw route of an unserved major: %d %v", resp.StatusCode, simple)
	}
	// Internal operations stay unknown, as always.
	if st, body, _ := post(t, gw, "query", `{"path":"shop.items.inside"}`); st != 404 {
		t.Fatalf("internal operation: %d %s", st, body)
	}
	doc, err := g.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(doc), "shop.items.hello") || strings.Contains(string(doc), "/shop/config") {
		t.Fatal("the OpenAPI document lists what the gateway does not route")
	}

	// Logged once, at discovery: not again at the next refreshes.
	for range 2 {
		if err := g.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	var refused []map[string]any
	for _, r := range logs.Records(t) {
		if r["msg"] == "service refused: contract version not served" {
			refused = append(refused, r)
		}
	}
	if len(refused) != 1 {
		t.Fatalf("refusal logged %d times:\n%s", len(refused), logs.String())
	}
	if r := refused[0]; r["level"] != "ERROR" || r["service"] != "shop" || r["declared"] != next || r["serves"] != wantServes ||
		r["reason"] != ops.ReasonContractVersionUnsupported || r["operations"] != 1.0 || r["routes"] != 1.0 {
		t.Fatalf("refusal log line: %v", r)
	}
	if g.Ready(context.Background()) != nil {
		t.Fatal("a service that answered is not ready") // it answered; its calls are what is refused
	}
}

// TestGatewayRoutesTheMajorsItServes: a service at another minor or patch of
// the served major, at the built version, or declaring no version at all (a
// build before the declarations: version.Legacy) is routed as ever.
func TestGatewayRoutesTheMajorsItServes(t *testing.T) {
	built := build.BuiltContracts()
	served, _ := build.ParseSemver(built.Public)
	newer := build.Semver{Major: served.Major, Minor: served.Minor + 3, Patch: 2}.String()
	for name, c := range map[string]*build.Contracts{
		"built":   &built,
		"newer":   {Public: newer, Internal: newer, Events: newer},
		"legacy":  nil,
		"partial": {Internal: "7.0.0"}, // only the public contract decides
	} {
		t.Run(name, func(t *testing.T) {
			logs := &logtest.Buffer{}
			_, gw := versionGateway(t, versionedService(t, c), logs)
			if st, body, _ := post(t, gw, "query", `{"path":"shop.items.hello"}`); st != 200 || body != `"hi"` {
				t.Fatalf("%d %s", st, body)
			}
			resp, err := http.Get(gw + "/shop/config")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("raw route: %d", resp.StatusCode)
			}
			if strings.Contains(logs.String(), "contract version not served") {
				t.Fatalf("logged a refusal:\n%s", logs.String())
			}
		})
	}
}

// TestGatewayRefusesAnUnreadableContractVersion: a declared version that is
// not MAJOR.MINOR.PATCH is not guessed at.
func TestGatewayRefusesAnUnreadableContractVersion(t *testing.T) {
	_, gw := versionGateway(t, versionedService(t, &build.Contracts{Public: "v1"}), &logtest.Buffer{})
	st, body, _ := post(t, gw, "query", `{"path":"shop.items.hello"}`)
	if st != http.StatusServiceUnavailable || !strings.Contains(body, ops.ReasonContractVersionUnsupported) || !strings.Contains(body, `\"v1\", which is not MAJOR.MINOR.PATCH`) {
		t.Fatalf("%d %s", st, body)
	}
}
