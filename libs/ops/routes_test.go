package ops

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/auth"
)

func TestCompilePathRefusesUnsafeDeclarations(t *testing.T) {
	for _, p := range []string{
		"", "/", "relative", "/a/", "/a//b", "/a/../b", "/a/./b", "/..", "/a/:", "/a/:x/:x",
		"/a/:x.y", "/a b", "/a/%2e", "/a/*", "/a/b?c", "/é",
	} {
		if _, err := CompilePath(p); err == nil {
			t.Errorf("CompilePath(%q) accepted", p)
		}
	}
	for _, p := range []string{"/processor/webhook", "/api/storage/:storageId", "/a/:x/b/:y", "/v1.2/x_y-z"} {
		if _, err := CompilePath(p); err != nil {
			t.Errorf("CompilePath(%q): %v", p, err)
		}
	}
}

func TestPathPatternMatchesExactly(t *testing.T) {
	p, err := CompilePath("/api/storage/:storageId")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{
		"/api/storage/stg_0123abc":                    true,
		"/api/storage/A-b_9":                          true,
		"/api/storage/upload":                         true, // a literal-looking parameter is still one segment
		"/api/storage/" + strings.Repeat("a", 128):    true,
		"/api/storage/" + strings.Repeat("a", 129):    false,
		"/api/storage/":                               false,
		"/api/storage":                                false,
		"/api/storage/a/b":                            false,
		"/api/storage/a/":                             false,
		"/api/storage/..":                             false,
		"/api/storage/.":                              false,
		"/api/storage/a.b":                            false,
		"/api/storage/%2e%2e":                         false,
		"/api/storage/a%2Fb":                          false,
		"/api/storage/../../ops":                      false,
		"/API/storage/x":                              false,
		"/api/Storage/x":                              false,
		"api/storage/x":                               false,
		"//api/storage/x":                             false,
		"/api/storage/x?y":                            false, // a query is never part of the path handed in
		"/api/storage/x y":                            false,
		"/api/storage/x\x00":                          false,
		"/api/storage/stg_0123abc/../../../admin/ops": false,
	} {
		if got := p.Match(path); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
	exact, _ := CompilePath("/processor/webhook")
	for path, want := range map[string]bool{
		"/processor/webhook": true, "/processor/webhook/": false, "/processor/webhookx": false,
		"/processor": false, "/processor/webhook/x": false, "/PROCESSOR/webhook": false,
	} {
		if got := exact.Match(path); got != want {
			t.Errorf("exact Match(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestCheckRoutes(t *testing.T) {
	h := func(c *fiber.Ctx) error { return nil }
	ok := []Route{
		{Method: "POST", Path: "/api/storage/upload", Access: Authenticated, Handler: h},
		{Method: "GET", Path: "/api/storage/:id", Access: Public, Handler: h},
		{Method: "POST", Path: "/processor/webhook", Access: Public, Errors: ErrorsSimple, Handler: h},
		{Method: "GET", Path: "/api/admin/x.csv", Access: Admin, Handler: h},
		{Method: "GET", Path: "/api/stores/:storeId/x.csv", Access: StoreOwnerOrAdmin, StoreParam: "storeId", Handler: h},
		{Method: "GET", Path: "/api/stores/:storeId/y.csv", Access: StoreOwner, StoreParam: "storeId", Handler: h},
	}
	if err := CheckRoutes(ok); err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]Route{
		"method":     {Method: "PUT", Path: "/x", Access: Public, Handler: h},
		"access":     {Method: "GET", Path: "/x", Access: Customer, Handler: h},
		"no store":   {Method: "GET", Path: "/s/:storeId", Access: StoreOwnerOrAdmin, Handler: h},
		"not param":  {Method: "GET", Path: "/s/:storeId", Access: StoreOwnerOrAdmin, StoreParam: "id", Handler: h},
		"literal":    {Method: "GET", Path: "/s/storeId", Access: StoreOwner, StoreParam: "storeId", Handler: h},
		"stray":      {Method: "GET", Path: "/s/:storeId", Access: Admin, StoreParam: "storeId", Handler: h},
		"internal":   {Method: "GET", Path: "/x", Access: Internal, Handler: h},
		"style":      {Method: "GET", Path: "/x", Access: Public, Errors: "html", Handler: h},
		"reserved":   {Method: "GET", Path: "/ops", Access: Public, Handler: h},
		"matches":    {Method: "GET", Path: "/:page", Access: Public, Handler: h}, // would take /metrics
		"query":      {Method: "POST", Path: "/api/query", Access: Public, Handler: h},
		"op path":    {Method: "POST", Path: "/api/mutation/a/b/c", Access: Public, Handler: h},
		"run":        {Method: "POST", Path: "/api/run/a/b/c", Access: Public, Handler: h},
		"under":      {Method: "POST", Path: "/api/:kind/a/b", Access: Public, Handler: h}, // would take /api/query/a/b
		"index":      {Method: "GET", Path: "/", Access: Public, Handler: h},
		"docs":       {Method: "GET", Path: "/docs", Access: Public, Handler: h},
		"docs page":  {Method: "GET", Path: "/:page", Access: Public, Handler: h},
		"docs asset": {Method: "GET", Path: "/docs/assets/:name", Access: Public, Handler: h},
		"under docs": {Method: "GET", Path: "/:area/assets/x.js", Access: Public, Handler: h}, // would take /docs/assets/x.js
		"path":       {Method: "GET", Path: "/x/../y", Access: Public, Handler: h},
		"handler":    {Method: "GET", Path: "/x", Access: Public},
		"overlap":    {Method: "GET", Path: "/api/storage/thumbs", Access: Public, Handler: h},
	} {
		if err := CheckRoutes(append(append([]Route{}, ok...), bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestMountedRoutesApplyAccess: a service's routes verify a presented token
// (also on public routes), refuse anonymous callers of authenticated routes
// in the route's error style, and hand the caller to the handler.
func TestMountedRoutesApplyAccess(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v, _ := auth.NewHS256(secret, auth.Options{})
	who := func(c *fiber.Ctx) error {
		if id := Caller(c.UserContext()); id != nil {
			return c.SendString("hello " + id.Sub + " " + c.Params("name"))
		}
		return c.SendString("hello stranger " + c.Params("name"))
	}
	app := fiber.New()
	(&Server{Registry: NewRegistry("t"), Verifier: v, Routes: []Route{
		{Method: "GET", Path: "/pub/:name", Access: Public, Handler: who},
		{Method: "POST", Path: "/mine", Access: Authenticated, Handler: who},
		{Method: "POST", Path: "/hook", Access: Authenticated, Errors: ErrorsSimple, Handler: who},
	}}).Mount(app)
	tok, _ := auth.Mint(secret, "u1", nil, time.Minute, auth.Options{})
	call := func(method, path, token string) (int, string) {
		req := httptest.NewRequest(method, path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	cases := []struct {
		method, path, token string
		status              int
		body                string
	}{
		{"GET", "/pub/x", "", 200, "hello stranger x"},
		{"GET", "/pub/x", tok, 200, "hello u1 x"},
		{"GET", "/pub/x", "bad", 401, `"code":"UNAUTHENTICATED"`},
		{"POST", "/mine", "", 401, `"code":"UNAUTHENTICATED"`},
		{"POST", "/mine", tok, 200, "hello u1 "},
		{"POST", "/hook", "", 401, `{"error":"POST /hook needs a bearer token"}`},
	}
	for _, c := range cases {
		status, body := call(c.method, c.path, c.token)
		if status != c.status || !strings.Contains(body, c.body) {
			t.Errorf("%s %s (token %q) = %d %s, want %d %s", c.method, c.path, c.token, status, body, c.status, c.body)
		}
	}
	// GET /ops lists the routes.
	status, body := call(http.MethodGet, "/ops", "")
	if status != 200 || !strings.Contains(body, `"routes":[{"method":"GET","path":"/pub/:name","access":"public"}`) ||
		!strings.Contains(body, `{"method":"POST","path":"/hook","access":"authenticated","errors":"simple"}`) {
		t.Fatalf("GET /ops = %d %s", status, body)
	}
}

// TestRouteStoreAccessNeedsResolver: a registry without a Store resolver
// refuses a store route at start, as it refuses a store operation.
func TestRouteStoreAccessNeedsResolver(t *testing.T) {
	rs := []Route{{Method: "GET", Path: "/api/stores/:storeId/x.csv", Access: StoreOwnerOrAdmin, StoreParam: "storeId",
		Handler: func(c *fiber.Ctx) error { return nil }}}
	if err := NewRegistry("t").CheckRoutes(rs); err == nil || !strings.Contains(err.Error(), "store resolver") {
		t.Fatalf("no resolver: %v", err)
	}
	res := Resolvers{Store: func(context.Context, string) (*StoreRef, error) { return nil, nil }}
	if err := NewRegistry("t").WithResolvers(res).CheckRoutes(rs); err != nil {
		t.Fatal(err)
	}
}

// TestMountedRoutesCheckAdminAndStoreAccess: Admin and store routes refuse
// an anonymous caller (401), a caller without the role or not the store's
// owner (403), a store that does not exist (404), all before the handler
// runs, which then sees the resolved store (StoreOf).
func TestMountedRoutesCheckAdminAndStoreAccess(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v, _ := auth.NewHS256(secret, auth.Options{})
	ran := 0
	h := func(c *fiber.Ctx) error {
		ran++
		if st := StoreOf(c.UserContext()); st != nil {
			return c.SendString("store " + st.ID + " of " + st.OwnerUserID)
		}
		return c.SendString("admin " + Caller(c.UserContext()).Sub)
	}
	stores := map[string]*StoreRef{"sto_1": {ID: "sto_1", OwnerUserID: "owner1"}}
	reg := NewRegistry("t").WithResolvers(Resolvers{Store: func(_ context.Context, id string) (*StoreRef, error) {
		if id == "sto_broken" {
			return nil, apperr.New(apperr.Unavailable, "catalog is unavailable")
		}
		return stores[id], nil
	}})
	app := fiber.New()
	(&Server{Registry: reg, Verifier: v, Routes: []Route{
		{Method: "GET", Path: "/api/admin/x.csv", Access: Admin, Handler: h},
		{Method: "GET", Path: "/api/stores/:storeId/both.csv", Access: StoreOwnerOrAdmin, StoreParam: "storeId", Handler: h},
		{Method: "GET", Path: "/api/stores/:storeId/own.csv", Access: StoreOwner, StoreParam: "storeId", Handler: h},
		{Method: "GET", Path: "/hook/:storeId", Access: StoreOwnerOrAdmin, StoreParam: "storeId", Errors: ErrorsSimple, Handler: h},
	}}).Mount(app)
	mint := func(sub string, roles ...string) string {
		tok, _ := auth.Mint(secret, sub, roles, time.Minute, auth.Options{})
		return tok
	}
	owner, other, admin := mint("owner1"), mint("someone"), mint("boss", "admin")
	cases := []struct {
		path, token string
		status      int
		body        string
	}{
		{"/api/admin/x.csv", "", 401, `"code":"UNAUTHENTICATED"`},
		{"/api/admin/x.csv", owner, 403, `"code":"PERMISSION_DENIED"`},
		{"/api/admin/x.csv", admin, 200, "admin boss"},
		{"/api/stores/sto_1/both.csv", "", 401, `"code":"UNAUTHENTICATED"`},
		{"/api/stores/sto_1/both.csv", "bad", 401, `"code":"UNAUTHENTICATED"`},
		{"/api/stores/sto_1/both.csv", other, 403, `"code":"PERMISSION_DENIED"`},
		{"/api/stores/sto_1/both.csv", owner, 200, "store sto_1 of owner1"},
		{"/api/stores/sto_1/both.csv", admin, 200, "store sto_1 of owner1"},
		{"/api/stores/sto_2/both.csv", admin, 404, `"code":"NOT_FOUND"`},
		{"/api/stores/sto_broken/both.csv", owner, 503, `"code":"UNAVAILABLE"`},
		{"/api/stores/sto_1/own.csv", owner, 200, "store sto_1 of owner1"},
		{"/api/stores/sto_1/own.csv", admin, 403, `"code":"PERMISSION_DENIED"`},
		{"/hook/sto_1", other, 403, `{"error":"GET /hook/:storeId is for the store's owner or an administrator"}`},
	}
	for _, c := range cases {
		before := ran
		req := httptest.NewRequest("GET", c.path, nil)
		if c.token != "" {
			req.Header.Set("Authorization", "Bearer "+c.token)
		}
		resp, err := app.Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(b), c.body) {
			t.Errorf("GET %s (token %q) = %d %s, want %d %s", c.path, c.token, resp.StatusCode, b, c.status, c.body)
		}
		if ranNow := ran > before; ranNow != (c.status == 200) {
			t.Errorf("GET %s (token %q): handler ran %v", c.path, c.token, ranNow)
		}
	}
}
