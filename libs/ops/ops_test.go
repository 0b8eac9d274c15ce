package ops

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
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
	"marketplace/libs/auth"
	"marketplace/libs/httpserver"
	"marketplace/libs/logtest"
)

type adminArgs struct {
	AdminUserID string `json:"adminUserId" op:"required,nonblank"`
}

func testRegistry() *Registry {
	echo := func(ctx context.Context, _ *NoArgs) (string, error) {
		if id := Caller(ctx); id != nil {
			return id.Sub, nil
		}
		return "anonymous", nil
	}
	return NewRegistry("t",
		NewQuery("t.ops.public", Public, "", echo),
		NewQuery("t.ops.authed", Authenticated, "", echo),
		NewMutation("t.ops.admin", Admin, "", func(ctx context.Context, a *adminArgs) (string, error) { return a.AdminUserID, nil }),
		NewMutation("t.ops.internal", Internal, "", echo, CalledBy("caller", "payouts")),
	)
}

func TestInvokeAppliesKindAccessAndAdminRules(t *testing.T) {
	r := testRegistry()
	anon := context.Background()
	user := auth.WithIdentity(anon, &auth.Identity{Sub: "u1"})
	admin := auth.WithIdentity(anon, &auth.Identity{Sub: "a1", Roles: []string{"admin"}})
	cases := []struct {
		name     string
		ctx      context.Context
		kind     Kind
		path     string
		args     string
		internal bool
		want     any
		code     apperr.Code
	}{
		{"public anonymous", anon, Query, "t.ops.public", "", false, "anonymous", ""},
		{"public sees caller", user, Query, "t.ops.public", "", false, "u1", ""},
		{"query via mutation", anon, Mutation, "t.ops.public", "", false, nil, apperr.InvalidArgument},
		{"unknown path", anon, Query, "t.ops.nope", "", false, nil, apperr.NotFound},
		{"authed needs token", anon, Query, "t.ops.authed", "", false, nil, apperr.Unauthenticated},
		{"authed ok", user, Query, "t.ops.authed", "", false, "u1", ""},
		{"admin anonymous", anon, Mutation, "t.ops.admin", `{"adminUserId":"a1"}`, false, nil, apperr.Unauthenticated},
		{"admin without role", user, Mutation, "t.ops.admin", `{"adminUserId":"u1"}`, false, nil, apperr.PermissionDenied},
		{"admin acting as another", admin, Mutation, "t.ops.admin", `{"adminUserId":"a2"}`, false, nil, apperr.PermissionDenied},
		{"admin bad args", admin, Mutation, "t.ops.admin", `{}`, false, nil, apperr.InvalidArgument},
		{"admin ok", admin, Mutation, "t.ops.admin", `{"adminUserId":"a1"}`, false, "a1", ""},
		{"internal from outside", admin, Mutation, "t.ops.internal", "", false, nil, apperr.NotFound},
		{"internal from a service", anon, Mutation, "t.ops.internal", "", true, "anonymous", ""},
	}
	for _, c := range cases {
		got, err := r.Invoke(c.ctx, c.kind, c.path, []byte(c.args), c.internal)
		if c.code != "" {
			if apperr.CodeOf(err) != c.code {
				t.Errorf("%s: got %v, want %s", c.name, err, c.code)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %v %v, want %v", c.name, got, err, c.want)
		}
	}
}

func TestRegistryDeclarations(t *testing.T) {
	for name, f := range map[string]func(){
		"duplicate": func() {
			op := NewQuery("a.b.c", Public, "", func(context.Context, *NoArgs) (int, error) { return 0, nil })
			NewRegistry("x", op, op)
		},
		"short path": func() {
			NewRegistry("x", NewQuery("a.b", Public, "", func(context.Context, *NoArgs) (int, error) { return 0, nil }))
		},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
	d := testRegistry().Describe()
	if len(d) != 4 || d[0].Path != "t.ops.admin" || d[0].Args[0].Name != "adminUserId" || !d[0].Args[0].Required {
		t.Fatalf("describe: %+v", d)
	}
	if NormalizePath("stores/reviews:addReview") != "stores.reviews.addReview" {
		t.Fatal("normalize")
	}
}

// TestServerAndClient starts a service endpoint on loopback and calls it with the
// service client, as another service would.
func TestServerAndClient(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	v, _ := auth.NewHS256(secret, auth.Options{})
	app := fiber.New()
	peers := newTestPeers(t, "t", "caller")
	(&Server{Registry: testRegistry(), Verifier: v, Peers: peers.verifier, Callers: []string{"caller"}}).Mount(app)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	defer app.Shutdown()
	res := staticResolver{"t": "http://" + ln.Addr().String()}
	ctx := context.Background()

	c := NewClient(res, peers.signer("caller"), 2*time.Second)
	var s string
	if err := c.Mutation(ctx, "t", "t.ops.internal", nil, &s); err != nil || s != "anonymous" {
		t.Fatalf("internal call: %q %v", s, err)
	}
	// Without an assertion the operation does not exist.
	// (To a service client that is a bug of its own: INTERNAL, not the client's NOT_FOUND.)
	outsider := NewClient(res, nil, 2*time.Second)
	if err := outsider.Mutation(ctx, "t", "t.ops.internal", nil, &s); apperr.CodeOf(err) != apperr.Internal {
		t.Fatalf("outsider reached internal op: %v", err)
	}
	// The caller's token travels with the call.
	tok, _ := auth.Mint(secret, "u7", nil, time.Minute, auth.Options{})
	uctx, err := Identify(ctx, v, "Bearer "+tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Query(uctx, "t", "t.ops.authed", nil, &s); err != nil || s != "u7" {
		t.Fatalf("forwarded identity: %q %v", s, err)
	}
	if err := c.Query(ctx, "t", "t.ops.authed", nil, &s); apperr.CodeOf(err) != apperr.Unauthenticated {
		t.Fatalf("anonymous call: %v", err)
	}
	if _, err := Identify(ctx, v, "Bearer junk"); apperr.CodeOf(err) != apperr.Unauthenticated {
		t.Fatalf("junk token: %v", err)
	}
	// An unknown or dead service is UNAVAILABLE, quickly.
	dead := NewClient(staticResolver{"t": "http://127.0.0.1:1"}, nil, time.Second)
	if err := dead.Query(ctx, "t", "t.ops.public", nil, &s); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("dead service: %v", err)
	}
	if err := c.Query(ctx, "nope", "t.ops.public", nil, &s); apperr.CodeOf(err) != apperr.Unavailable {
		t.Fatalf("unknown service: %v", err)
	}
}

type staticResolver map[string]string

func (s staticResolver) Resolve(_ context.Context, name string) (string, error) {
	if u, ok := s[name]; ok {
		return u, nil
	}
	return "", apperr.New(apperr.Unavailable, "no %s", name)
}

func TestParseRequest(t *testing.T) {
	for body, want := range map[string]string{
		`{"path":"a.b.c","args":{}}`:        "",
		`{"path":"a/b:c","format":"json"}`:  "",
		`{"path":"a.b.c","format":"xml"}`:   "format",
		`{"args":{}}`:                       "path: is required",
		`{"path":"a.b.c","other":1}`:        "other: unknown key",
		`{"PATH":"a.b.c"}`:                  "PATH: unknown key", // keys are case-sensitive
		`{"path":"a.b.c","Args":{}}`:        "Args: unknown key",
		`{"path":7}`:                        "path: must be a string",
		`null`:                              "must be a JSON object",
		`[1]`:                               "must be a JSON object",
		`{"path":"a.b.c"} {"path":"a.b.c"}`: "exactly one",
		`not json`:                          "must be a JSON object",
	} {
		r, err := ParseRequest([]byte(body))
		if want == "" {
			if err != nil || r.Path != "a.b.c" {
				t.Errorf("%s: %+v %v", body, r, err)
			}
			continue
		}
		if err == nil || apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", body, err, want)
		}
	}
}

// An operation failing with an internal error answers INTERNAL without its
// cause, and logs the cause once, with the request id and the operation.
func TestInternalErrorsAreLoggedWithTheirCause(t *testing.T) {
	var logs logtest.Buffer
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	cfg := httpserver.Defaults()
	cfg.AccessLog = false
	app := httpserver.New("t", cfg, logger, nil)
	reg := NewRegistry("t", NewMutation("t.ops.broken", Public, "", func(context.Context, *NoArgs) (any, error) {
		return nil, errors.New("open /data/db/catalog.lungo: read-only file system")
	}))
	(&Server{Registry: reg}).Mount(app)
	req := httptest.NewRequest(http.MethodPost, "/api/mutation", strings.NewReader(`{"path":"t.ops.broken"}`))
	req.Header.Set(httpserver.HeaderRequestID, "req-42")
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || strings.Contains(string(body), "read-only") {
		t.Fatalf("answer %d %s", resp.StatusCode, body)
	}
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		var m map[string]any
		if json.Unmarshal([]byte(l), &m) == nil && m["msg"] == "internal error" {
			lines = append(lines, m)
		}
	}
	if len(lines) != 1 || lines[0]["request_id"] != "req-42" || lines[0]["op"] != "t.ops.broken" ||
		!strings.Contains(lines[0]["err"].(string), "read-only file system") {
		t.Fatalf("internal error logs: %v\nall logs:\n%s", lines, logs.String())
	}
}

// TestEncodedBodiesAreNotInflated: the endpoint reads the body as sent; a
// compressed one is not JSON (INVALID_ARGUMENT), never inflated.
func TestEncodedBodiesAreNotInflated(t *testing.T) {
	app := fiber.New()
	(&Server{Registry: testRegistry()}).Mount(app)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	_, _ = zw.Write([]byte(`{"path":"t.ops.public","args":{}}`))
	_ = zw.Close()
	req := httptest.NewRequest("POST", "/api/query", bytes.NewReader(zipped.Bytes()))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 400 || !strings.Contains(string(b), "INVALID_ARGUMENT") {
		t.Fatalf("a gzip body: %d %s", resp.StatusCode, b)
	}
}
