package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// oidcClientID is the console's client at the test's OpenID provider.
const oidcClientID = "marketplace-console"

// startOpenIDProvider builds deploy/oidcprovider (zitadel/oidc's example
// server issuing the platform's tokens; a module of its own, from the module
// proxy) and runs it on loopback for the test; it answers the issuer.
func startOpenIDProvider(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "oidcprovider")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Dir = filepath.Join("..", "oidcprovider")
	build.Env = append(os.Environ(), "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the OpenID provider (deploy/oidcprovider, needs the module proxy or a filled module cache): %v\n%s", err, out)
	}
	// Loopback redirect URIs match on any port (RFC 8252, 7.3): the console's
	// port is the system's, chosen when it starts.
	// Access tokens of 20 s: the test sees one renewed with the refresh token.
	cmd := exec.Command(bin, "-addr", "127.0.0.1:0", "-client", oidcClientID, "-redirect", "http://127.0.0.1/admin/,http://127.0.0.1/store/", "-access-ttl", "20s")
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line := make(chan string, 1)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			if iss, ok := strings.CutPrefix(s.Text(), "issuer "); ok {
				line <- iss
			}
		}
	}()
	select {
	case iss := <-line:
		return iss
	case <-time.After(30 * time.Second):
		t.Fatal("the OpenID provider did not start within 30 s")
		return ""
	}
}

// TestConsoleSignInWithOpenIDProviderInBrowser: production sign-in, tested against a
// real OpenID provider on loopback. The system verifies tokens through the
// provider's keys (AUTH_JWKS_URL, AUTH_ISSUER, AUTH_AUDIENCE: no development
// secret), and the console names it (CONSOLE_OIDC_ISSUER,
// CONSOLE_OIDC_CLIENT_ID). In Chromium (web/console/e2e/oidc.test.mjs) an
// administrator signs in with the authorization code flow and PKCE through
// the provider's login screen and reaches the payout queue, with the
// provider's RS256 token the gateway accepts; a store owner signs in to the
// portal the same way and is told the console is not for them; when the
// owner's access token expires while a form is being filled, the console
// renews it with the provider's refresh token in the background (no dialog,
// no reload) and the form goes through. A sign-in link (#token=) carrying
// the owner's real token signs no one in, neither there nor on a second
// system that verifies the provider's tokens without naming the provider to
// the console: outside development mode only the OpenID flow signs in (the
// development links are tested in TestConsoleInBrowser).
func TestConsoleSignInWithOpenIDProviderInBrowser(t *testing.T) {
	t.Parallel() // journeys run two at a time (ADR 0176)
	dir := webtest.Install(t)
	node, _ := webtest.Node(t)
	chromium := webtest.Chromium(t)
	issuer := startOpenIDProvider(t)
	s := st.Start(t,
		st.WithEnv("AUTH_JWKS_URL", issuer+"/keys"),
		st.WithEnv("AUTH_ISSUER", issuer),
		st.WithEnv("AUTH_AUDIENCE", oidcClientID),
		st.WithEnv("CONSOLE_OIDC_ISSUER", issuer),
		st.WithEnv("CONSOLE_OIDC_CLIENT_ID", oidcClientID),
	)
	if s.DevSecret != "" {
		t.Fatal("the system has a development secret next to the identity provider")
	}
	jwksOnly := st.Start(t,
		st.WithEnv("AUTH_JWKS_URL", issuer+"/keys"),
		st.WithEnv("AUTH_ISSUER", issuer),
		st.WithEnv("AUTH_AUDIENCE", oidcClientID),
	)
	if jwksOnly.DevSecret != "" {
		t.Fatal("the second system has a development secret next to the identity provider")
	}
	webtest.Run(t, dir, webtest.BrowserRun, append(webtest.Screenshots(t),
		"CONSOLE_URL="+s.BaseURL,
		"JWKS_ONLY_URL="+jwksOnly.BaseURL,
		"CHROMIUM="+chromium,
		"OIDC_ISSUER="+issuer,
		"OIDC_CLIENT_ID="+oidcClientID,
	), node, "--test", "--test-reporter=spec", filepath.Join("e2e", "oidc.test.mjs"))
}
