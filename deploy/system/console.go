package system

import (
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"marketplace/libs/auth"
)

// ConsoleLinkTTL is how long a development sign-in link works: long enough
// to click it, short enough that one left in a terminal's scrollback soon
// signs no one in (`make console` prints fresh ones).
const ConsoleLinkTTL = time.Hour

// DevAdmin is the development administrator the start line signs in.
const DevAdmin = "admin-1"

// ConsoleLink is a development sign-in link to the console (area "admin",
// /admin/) or the portal ("store", /store/): a token minted with the
// development secret travels in the URL's fragment, which browsers never
// send to a server nor put in a Referer header; the app takes it out of the
// address bar at once. Only a system that accepts development tokens
// (AUTH_DEV_SECRET or DATA_DIR/dev-secret, no AUTH_JWKS_URL) has a secret to
// mint them with.
func ConsoleLink(baseURL, area, secret, sub string, roles []string, ttl time.Duration, o auth.Options) (string, error) {
	if area != "admin" && area != "store" {
		return "", fmt.Errorf("console link: unknown area %q (admin or store)", area)
	}
	if secret == "" {
		return "", fmt.Errorf("console link: no development secret: this system verifies tokens with an identity provider")
	}
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("console link: %q is not the gateway's http(s) URL", baseURL)
	}
	token, err := auth.Mint([]byte(secret), sub, roles, ttl, o)
	if err != nil {
		return "", err
	}
	u.Path = "/" + area + "/"
	u.RawQuery = ""
	u.Fragment = ""
	return u.String() + "#token=" + token, nil
}

// printConsoleLink adds the console's sign-in link to the start line's hints
// where development tokens are accepted.
func printConsoleLink(hints io.Writer, info Info, o auth.Options) {
	if info.DevSecret == "" {
		return
	}
	link, err := ConsoleLink(info.BaseURL, "admin", info.DevSecret, DevAdmin, []string{auth.RoleAdmin}, ConsoleLinkTTL, o)
	if err != nil {
		return
	}
	fmt.Fprintf(hints, "admin console, signed in as the development administrator %s for %s (make console prints fresh links, a store owner's too):\n  %s\n", DevAdmin, Lifetime(ConsoleLinkTTL), link)
}

// Lifetime writes a link's lifetime as people do: 1h, 30m, 1h30m.
func Lifetime(d time.Duration) string {
	s := strings.TrimSuffix(d.String(), "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
