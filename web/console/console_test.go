package console_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"marketplace/web/console"
	"marketplace/web/webtest"
)

func app(t *testing.T, cfg console.Config) *fiber.App {
	t.Helper()
	s, err := console.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := fiber.New()
	s.Mount(a)
	return a
}

func get(t *testing.T, a *fiber.App, method, target string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	req.Host = "console.example:8080"
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := a.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, body
}

var scriptTag = regexp.MustCompile(`<script\b[^>]*>`)

// TestConsoleRoutesAndHeaders: every path of both areas answers the app's
// index.html, revalidated on each load, under a policy that runs only the
// gateway's own scripts, connects only to the gateway (HTTP and WebSocket)
// and forbids framing; the hashed assets are immutable, gzip-encoded for
// clients that take it; anything else under /console/assets/ is 404.
func TestConsoleRoutesAndHeaders(t *testing.T) {
	a := app(t, console.Config{})
	index, err := os.ReadFile(filepath.Join("dist", "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/admin", "/admin/", "/admin/payouts", "/admin/payouts/po_1?x=1", "/store", "/store/", "/store/wallet"} {
		resp, body := get(t, a, http.MethodGet, p, nil)
		if resp.StatusCode != 200 || !bytes.Equal(body, index) {
			t.Fatalf("GET %s: %d, index.html served: %v", p, resp.StatusCode, bytes.Equal(body, index))
		}
		if ct := resp.Header.Get("Content-Type"); ct != "text/html; charset=utf-8" {
			t.Errorf("GET %s: Content-Type %q", p, ct)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", p, cc)
		}
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self';", "frame-ancestors 'none'", "object-src 'none'", "base-uri 'none'",
			"connect-src 'self' ws://console.example:8080 wss://console.example:8080;"} {
			if !strings.Contains(csp+";", want) {
				t.Errorf("GET %s: policy %q lacks %q", p, csp, want)
			}
		}
		if m := regexp.MustCompile(`script-src [^;]*`).FindString(csp); strings.Contains(m, "unsafe") || strings.Contains(m, "*") {
			t.Errorf("GET %s: scripts allowed beyond the gateway's own: %q", p, m)
		}
		for h, want := range map[string]string{"X-Frame-Options": "DENY", "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer"} {
			if got := resp.Header.Get(h); got != want {
				t.Errorf("GET %s: %s %q, want %q", p, h, got, want)
			}
		}
	}

	// No inline script: every <script> has a src, under /console/assets/.
	tags := scriptTag.FindAllString(string(index), -1)
	if len(tags) == 0 {
		t.Fatal("index.html loads no script")
	}
	var assets []string
	for _, tag := range tags {
		src := regexp.MustCompile(`\ssrc="([^"]+)"`).FindStringSubmatch(tag)
		if src == nil || !strings.HasPrefix(src[1], console.AssetsPrefix) {
			t.Fatalf("index.html has an inline or foreign script: %s", tag)
		}
		assets = append(assets, src[1])
	}
	assets = append(assets, regexp.MustCompile(`href="(/console/assets/[^"]+\.css)"`).FindStringSubmatch(string(index))[1])

	for _, asset := range assets {
		resp, plain := get(t, a, http.MethodGet, asset, nil)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Encoding") != "" {
			t.Fatalf("GET %s: %d, encoding %q", asset, resp.StatusCode, resp.Header.Get("Content-Encoding"))
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
			t.Errorf("GET %s: Cache-Control %q", asset, cc)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/javascript") && !strings.HasPrefix(ct, "text/css") {
			t.Errorf("GET %s: Content-Type %q", asset, ct)
		}
		resp, zipped := get(t, a, http.MethodGet, asset, map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
		if resp.Header.Get("Content-Encoding") != "gzip" || resp.Header.Get("Vary") != "Accept-Encoding" {
			t.Fatalf("GET %s with gzip accepted: encoding %q, vary %q", asset, resp.Header.Get("Content-Encoding"), resp.Header.Get("Vary"))
		}
		zr, err := gzip.NewReader(bytes.NewReader(zipped))
		if err != nil {
			t.Fatal(err)
		}
		unzipped, err := io.ReadAll(zr)
		if err != nil || !bytes.Equal(unzipped, plain) {
			t.Fatalf("GET %s: the gzip answer is not the file (%v)", asset, err)
		}
		if resp, _ := get(t, a, http.MethodGet, asset, map[string]string{"Accept-Encoding": "gzip;q=0"}); resp.Header.Get("Content-Encoding") != "" {
			t.Errorf("GET %s: gzip sent to a client that refuses it", asset)
		}
		// Revalidation by entity tag.
		if resp, body := get(t, a, http.MethodGet, asset, map[string]string{"If-None-Match": resp.Header.Get("ETag")}); resp.StatusCode != 304 || len(body) != 0 {
			t.Errorf("GET %s with its ETag: %d, %d bytes", asset, resp.StatusCode, len(body))
		}
		if resp, body := get(t, a, http.MethodHead, asset, nil); resp.StatusCode != 200 || len(body) != 0 {
			t.Errorf("HEAD %s: %d, %d bytes", asset, resp.StatusCode, len(body))
		}
	}

	for _, p := range []string{"/console/assets/missing.js", "/console/assets/", "/console/assets/../index.html", "/console/assets/%2e%2e/index.html"} {
		resp, _ := get(t, a, http.MethodGet, p, nil)
		if resp.StatusCode != 404 {
			t.Errorf("GET %s: %d, want 404", p, resp.StatusCode)
		}
	}

	// A Host header that is no host gets no WebSocket source of its own.
	req := httptest.NewRequest(http.MethodGet, "/admin/", nil)
	req.Host = "evil'host"
	resp, err := a.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != 200 || strings.Contains(csp, "evil") || !strings.Contains(csp, "connect-src 'self';") {
		t.Errorf("policy for a malformed Host: %d %q", resp.StatusCode, csp)
	}
}

// TestConsoleSettings: production sign-in's settings reach the app (and the
// provider's origin the policy's connect-src) only when both are set and the
// issuer is an https URL (http on loopback).
func TestConsoleSettings(t *testing.T) {
	resp, body := get(t, app(t, console.Config{}), http.MethodGet, console.ConfigPath, nil)
	if resp.StatusCode != 200 || string(body) != `{"oidc":null,"devSignIn":false}` || resp.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("settings without a provider: %d %s %q", resp.StatusCode, body, resp.Header.Get("Cache-Control"))
	}
	// Development tokens (links, the token screen) only where the program
	// says the gateway takes them.
	if _, body := get(t, app(t, console.Config{DevSignIn: true}), http.MethodGet, console.ConfigPath, nil); string(body) != `{"oidc":null,"devSignIn":true}` {
		t.Fatalf("development settings: %s", body)
	}
	cfg := console.Config{OIDCIssuer: "https://id.example/realms/market", OIDCClientID: "console"}
	resp, body = get(t, app(t, cfg), http.MethodGet, console.ConfigPath, nil)
	var got struct {
		OIDC struct{ Issuer, ClientID string } `json:"oidc"`
	}
	if err := json.Unmarshal(body, &got); err != nil || got.OIDC.Issuer != cfg.OIDCIssuer || got.OIDC.ClientID != "console" {
		t.Fatalf("settings: %s (%v)", body, err)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, " https://id.example;") {
		t.Errorf("the provider's origin is not in connect-src: %q", csp)
	}
	for _, bad := range []console.Config{
		{OIDCIssuer: "https://id.example"},
		{OIDCClientID: "console"},
		{OIDCIssuer: "http://id.example", OIDCClientID: "c"},
		{OIDCIssuer: "id.example", OIDCClientID: "c"},
		{OIDCIssuer: "https://u:p@id.example", OIDCClientID: "c"},
	} {
		if _, err := console.New(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if _, err := console.New(console.Config{OIDCIssuer: "http://127.0.0.1:5556/dex", OIDCClientID: "c"}); err != nil {
		t.Errorf("a loopback issuer over http: %v", err)
	}
}

// The first load's budget: the script a browser fetches before the first
// screen of an area shows, gzipped.
const firstLoadBudget = 350 * 1024

type manifestChunk struct {
	File           string   `json:"file"`
	Src            string   `json:"src"`
	IsEntry        bool     `json:"isEntry"`
	IsDynamicEntry bool     `json:"isDynamicEntry"`
	Imports        []string `json:"imports"`
}

// TestConsoleFirstLoadSize: the entry's script and its static imports, with
// the largest screen's (any screen can be the first, by a link), gzipped,
// stay within 350 KB. The figure is printed (go test -v).
func TestConsoleFirstLoadSize(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("dist", ".vite", "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]manifestChunk
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	closure := func(key string, into map[string]bool) {
		var walk func(string)
		walk = func(k string) {
			c, ok := m[k]
			if !ok || into[c.File] {
				return
			}
			into[c.File] = true
			for _, i := range c.Imports {
				walk(i)
			}
		}
		walk(key)
	}
	gz := func(files map[string]bool) int {
		n := 0
		for f := range files {
			body, err := os.ReadFile(filepath.Join("dist", f))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
			zw.Write(body)
			zw.Close()
			n += buf.Len()
		}
		return n
	}
	entry := ""
	for k, c := range m {
		if c.IsEntry {
			entry = k
		}
	}
	if entry == "" {
		t.Fatal("no entry in the manifest")
	}
	var screens []string
	for k, c := range m {
		if c.IsDynamicEntry && (strings.HasPrefix(c.Src, "src/admin/") || strings.HasPrefix(c.Src, "src/store/")) {
			screens = append(screens, k)
		}
	}
	slices.Sort(screens)
	if len(screens) == 0 {
		t.Fatal("no screen chunks (src/admin/*, src/store/*) in the manifest")
	}
	for _, s := range screens {
		files := map[string]bool{}
		closure(entry, files)
		closure(s, files)
		size := gz(files)
		t.Logf("first load with %s: %d script files, %.1f KB gzipped (budget %d KB)", s, len(files), float64(size)/1024, firstLoadBudget/1024)
		if size > firstLoadBudget {
			t.Errorf("first load with %s is %d bytes of gzipped script, over the %d budget: split the screen or drop a dependency", s, size, firstLoadBudget)
		}
	}
}

// TestConsoleBuildIsFresh builds the app from its sources with the pinned
// packages (npm ci from package-lock.json, the type check, vite build) and
// compares the result with the committed dist/, file by file: the embedded
// build must be the sources' build. UPDATE_CONSOLE_DIST=1 writes it instead
// (npm run build in web/console does the same).
func TestConsoleBuildIsFresh(t *testing.T) {
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	webtest.Run(t, dir, 5*time.Minute, nil, node, filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "tsconfig.json")
	out := filepath.Join(t.TempDir(), "dist")
	if os.Getenv("UPDATE_CONSOLE_DIST") != "" {
		out = filepath.Join(dir, "dist")
	}
	webtest.Run(t, dir, 5*time.Minute, nil, node, filepath.Join("node_modules", "vite", "bin", "vite.js"), "build", "--outDir", out, "--emptyOutDir", "--logLevel", "warn")
	fresh, committed := tree(t, out), tree(t, filepath.Join(dir, "dist"))
	for name, body := range fresh {
		if have, ok := committed[name]; !ok {
			t.Errorf("dist/%s is missing: rebuild with `npm run build` in web/console (or UPDATE_CONSOLE_DIST=1 go test ./web/console -run TestConsoleBuildIsFresh) and commit dist/", name)
		} else if !bytes.Equal(have, body) {
			t.Errorf("dist/%s differs from a fresh build: rebuild and commit dist/", name)
		}
	}
	for name := range committed {
		if _, ok := fresh[name]; !ok {
			t.Errorf("dist/%s is not in a fresh build: delete it (a fresh build empties dist/)", name)
		}
	}
}

func tree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Review photos are absolute URLs on PUBLIC_BASE_URL (the reviews service
// builds them so), which need not be the host the console was opened on
// (localhost and 127.0.0.1 on `make run`, a second name of the gateway):
// img-src names that origin, or the browser blocks every photo.
func TestConsolePhotosFromThePublicURL(t *testing.T) {
	cfg := console.Config{PublicBaseURL: "http://127.0.0.1:8080/"}
	resp, _ := get(t, app(t, cfg), http.MethodGet, "/admin/moderation", nil)
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp+";", "img-src 'self' data: blob: http://127.0.0.1:8080;") {
		t.Errorf("the photos' origin is not in img-src: %q", csp)
	}
	resp, _ = get(t, app(t, console.Config{}), http.MethodGet, "/admin/moderation", nil)
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp+";", "img-src 'self' data: blob:;") {
		t.Errorf("img-src without a public URL: %q", csp)
	}
	for _, bad := range []string{"127.0.0.1:8080", "ftp://h.example", "https://u:p@h.example", "https://"} {
		if _, err := console.New(console.Config{PublicBaseURL: bad}); err == nil {
			t.Errorf("PUBLIC_BASE_URL %q accepted", bad)
		}
	}
}

// TestBrowserChecks runs the browser checks' own tests (e2e/checks.test.mjs)
// in Debian's Chromium: settled waits for a dialog whose fade starts two
// frames after it is added (and past a longer pause, given the quiet) and
// for content drawn in steps, and names a loader that never stops; a journey
// that fails with its dialog open, or passes leaving one, leaves the next a
// clean page (journeys). Skipped, loudly, without node 20.19+ (failed in CI:
// webtest.Node).
func TestBrowserChecks(t *testing.T) {
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	webtest.Run(t, dir, 5*time.Minute, []string{"CHROMIUM=" + chromium, "SCREENSHOTS=" + t.TempDir()},
		node, "--test", "--test-reporter=spec", filepath.Join("e2e", "checks.test.mjs"))
}

// TestConsoleRules runs the unit tests of the console's pure rules
// (e2e/rules.test.mjs: the payout queue's ticks never pass the server's
// bulk bound). Node only, no browser.
func TestConsoleRules(t *testing.T) {
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	webtest.Run(t, dir, 2*time.Minute, nil, node, "--test", "--test-reporter=spec", filepath.Join("e2e", "rules.test.mjs"))
}
