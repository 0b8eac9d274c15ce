package gateway

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"marketplace/libs/config"
	"marketplace/libs/discovery"
)

// TestGatewayServesTheConsole: the gateway's public app serves both areas
// (any path under them answers the app's page), the hashed assets and the
// settings, with the console's policy and caching, before the raw routes;
// other methods on those paths are 405 and unknown assets 404.
func TestGatewayServesTheConsole(t *testing.T) {
	base := startGateway(t, Config{}, discovery.NewStatic(nil))
	do := func(method, path string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	var page string
	for _, p := range []string{"/admin/", "/admin/payouts", "/store", "/store/wallet"} {
		resp, body := do("GET", p)
		csp := resp.Header.Get("Content-Security-Policy")
		if resp.StatusCode != 200 || !strings.Contains(body, `<div id="root">`) || !strings.Contains(csp, "script-src 'self';") ||
			!strings.Contains(csp, "frame-ancestors 'none'") || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Fatalf("GET %s: %d %q, policy %q", p, resp.StatusCode, resp.Header.Get("Cache-Control"), csp)
		}
		page = body
	}
	script := regexp.MustCompile(`src="(/console/assets/[^"]+\.js)"`).FindStringSubmatch(page)
	if script == nil {
		t.Fatalf("no script in the page: %s", page)
	}
	if resp, _ := do("GET", script[1]); resp.StatusCode != 200 || resp.Header.Get("Cache-Control") != "public, max-age=31536000, immutable" {
		t.Fatalf("GET %s: %d %q", script[1], resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	if resp, body := do("GET", "/console/config.json"); resp.StatusCode != 200 || body != `{"oidc":null,"devSignIn":false}` {
		t.Fatalf("settings: %d %s", resp.StatusCode, body)
	}
	if resp, _ := do("GET", "/console/assets/nope.js"); resp.StatusCode != 404 {
		t.Fatalf("unknown asset: %d", resp.StatusCode)
	}
	if resp, _ := do("POST", "/admin/payouts"); resp.StatusCode != 405 || !strings.Contains(resp.Header.Get("Allow"), "GET") {
		t.Fatalf("POST to a console path: %d, Allow %q", resp.StatusCode, resp.Header.Get("Allow"))
	}
}

// TestConsoleSettingsAreChecked: the provider's settings go together, and
// a bad issuer stops the gateway's configuration from loading.
func TestConsoleSettingsAreChecked(t *testing.T) {
	load := func(env map[string]string) error {
		var c Config
		return config.Load(func(k string) string { return env[k] }, &c)
	}
	if err := load(map[string]string{"CONSOLE_OIDC_ISSUER": "https://id.example"}); err == nil || !strings.Contains(err.Error(), "CONSOLE_OIDC_CLIENT_ID") {
		t.Fatalf("an issuer without a client id: %v", err)
	}
	if err := load(map[string]string{"CONSOLE_OIDC_ISSUER": "http://id.example", "CONSOLE_OIDC_CLIENT_ID": "console"}); err == nil {
		t.Fatal("an http issuer off loopback was accepted")
	}
	if err := load(map[string]string{"CONSOLE_OIDC_ISSUER": "https://id.example", "CONSOLE_OIDC_CLIENT_ID": "console"}); err != nil {
		t.Fatal(err)
	}
}
