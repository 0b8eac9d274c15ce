package gateway

import (
	"strings"
	"testing"
	"time"

	"marketplace/gateway/convex"
	"marketplace/libs/auth"
	"marketplace/libs/discovery"
	"marketplace/libs/ops"
)

// TestOperationURLs: each operation's own path (OperationURL) answers as
// /api/query and /api/mutation do, the URL naming the operation and the body
// its arguments: the value on success; section 2's statuses and error bodies
// otherwise (bad arguments, a body that is not an object, an unknown or
// malformed name, the other kind's family, a missing token, a wrong method);
// Convex's shapes with a Convex-Client header.
func TestOperationURLs(t *testing.T) {
	url, stop := fakeService(t, nil)
	defer stop()
	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	if got := OperationURL(ops.Query, "fake.things.echo"); got != "/api/query/fake/things/echo" {
		t.Fatalf("OperationURL: %s", got)
	}
	tok, _ := auth.Mint(secret, "u1", nil, time.Minute, auth.Options{})
	for _, c := range []struct {
		name, path, body string
		headers          []string
		status           int
		want             string
	}{
		{"success", "/api/query/fake/things/echo", `{"say":"hi"}`, nil, 200, `"hi"`},
		{"no body: no arguments", "/api/query/fake/things/echo", ``, nil, 200, `""`},
		{"with a token", "/api/query/fake/things/mine", `{}`, []string{"Authorization", "Bearer " + tok}, 200, `"u1"`},
		{"bad arguments", "/api/query/fake/things/echo", `{"say":1}`, nil, 400, `"code":"INVALID_ARGUMENT"`},
		{"unknown argument", "/api/query/fake/things/echo", `{"zz":1}`, nil, 400, `"field":"zz"`},
		{"the {path, args} form is not the body here", "/api/query/fake/things/echo", `{"path":"fake.things.echo","args":{}}`, nil, 400, `INVALID_ARGUMENT`},
		{"an array body", "/api/query/fake/things/echo", `[{"say":"hi"}]`, nil, 400, `one JSON object`},
		{"not JSON", "/api/query/fake/things/echo", `{"say":`, nil, 400, `one JSON object`},
		{"two values", "/api/query/fake/things/echo", `{} {}`, nil, 400, `one JSON object`},
		{"unknown operation", "/api/query/fake/things/ecoh", `{}`, nil, 404, `"suggestions":["fake.things.echo"`},
		{"a dotted name", "/api/query/fake.things.echo", `{}`, nil, 404, `unknown_operation`},
		{"an empty segment", "/api/query/fake//echo", `{}`, nil, 404, `unknown_operation`},
		{"one segment", "/api/query/fake", `{}`, nil, 404, `unknown_operation`},
		{"internal operation", "/api/mutation/fake/things/secret", `{}`, nil, 404, `unknown_operation`},
		{"a query on the mutation family", "/api/mutation/fake/things/echo", `{}`, nil, 400, `is a query`},
		{"missing token", "/api/query/fake/things/mine", `{}`, nil, 401, `UNAUTHENTICATED`},
		{"a bad token", "/api/query/fake/things/echo", `{}`, []string{"Authorization", "Bearer nope"}, 401, `UNAUTHENTICATED`},
		{"an empty Idempotency-Key", "/api/mutation/fake/things/echo", `{}`, []string{"Idempotency-Key", " "}, 400, `INVALID_ARGUMENT`},
		{"Convex's shape with its header", "/api/query/fake/things/echo", `{"say":"hi"}`, []string{convex.HeaderClient, "npm-1.48.0"}, 200, `{"status":"success","value":"hi"`},
		{"Convex's failure with its header", "/api/query/fake/things/echo", `{"say":1}`, []string{convex.HeaderClient, "npm-1.48.0"}, 200, `"status":"error"`},
		{"Convex's unknown with its header", "/api/query/fake/things/ecoh", `{}`, []string{convex.HeaderClient, "npm-1.48.0"}, 200, `"code":"NOT_FOUND"`},
		{"Convex's kind check with its header", "/api/mutation/fake/things/echo", `{}`, []string{convex.HeaderClient, "npm-1.48.0"}, 200, `"code":"INVALID_ARGUMENT"`},
	} {
		st, body, h := do(t, "POST", gw+c.path, c.body, append([]string{"Content-Type", "application/json"}, c.headers...)...)
		if st != c.status || !strings.Contains(body, c.want) {
			t.Errorf("%s: POST %s %s: %d %s (want %d with %s)", c.name, c.path, c.body, st, body, c.status, c.want)
		}
		if st >= 400 && !strings.HasPrefix(body, `{"error":{"code":`) {
			t.Errorf("%s: not the contract's error body: %s", c.name, body)
		}
		if h.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: no CORS headers", c.name)
		}
	}
	// The family answers POST only, and the preflight.
	if st, _, h := do(t, "GET", gw+"/api/query/fake/things/echo", ""); st != 405 || h.Get("Allow") != "POST" {
		t.Errorf("GET: %d allow %q", st, h.Get("Allow"))
	}
	if st, _, h := do(t, "OPTIONS", gw+"/api/mutation/fake/things/echo", ""); st != 204 || !strings.Contains(h.Get("Access-Control-Allow-Headers"), "Idempotency-Key") {
		t.Errorf("preflight: %d %v", st, h)
	}
}
