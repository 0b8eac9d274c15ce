// Package console serves the administrators' console (/admin/) and the store
// owners' portal (/store/): one single-page app (React, Vite; the sources are
// beside this file) whose build, dist/, is committed and embedded here, so
// the gateway serves it and `make run` needs only Go.
//
// Every path under /admin/ and /store/ answers index.html (the app routes by
// path), never cached without revalidation; the hashed assets under
// /console/assets/ are immutable and cached for a year. Every answer carries
// a Content-Security-Policy that lets the page run only its own scripts (no
// inline script), talk only to the gateway that served it (HTTP and its
// WebSocket) and, when configured, the identity provider, and never be framed.
package console

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/httpserver/asset"
)

//go:embed dist
var dist embed.FS

// Paths the console is served at.
const (
	AdminPath    = "/admin/"
	StorePath    = "/store/"
	AssetsPrefix = "/console/assets/"
	ConfigPath   = "/console/config.json"
)

// Config is where production sign-in goes: the OpenID provider that issues
// the platform's tokens and the console's client id there. Without them the
// console offers the token screen only (development tokens).
type Config struct {
	OIDCIssuer   string `env:"CONSOLE_OIDC_ISSUER"`
	OIDCClientID string `env:"CONSOLE_OIDC_CLIENT_ID"`
	// PublicBaseURL is where review photos are served from (the reviews
	// service makes their URLs absolute on it): its origin joins img-src,
	// as the console may be opened on another name of the gateway.
	PublicBaseURL string `env:"PUBLIC_BASE_URL"`
	// DevSignIn is set by the program when the gateway accepts development
	// tokens (the development secret, no identity provider's keys): only
	// then does the console take a #token= sign-in link or a pasted token.
	// Elsewhere only the OpenID flow signs in, or a link could sign whoever
	// opens it in as someone else. Not a setting: it follows AUTH_*.
	DevSignIn bool
}

// Validate refuses half a provider and an issuer that is not an absolute
// https URL (http only on loopback, for tests and development).
func (c Config) Validate() error {
	if (c.OIDCIssuer == "") != (c.OIDCClientID == "") {
		return errors.New("CONSOLE_OIDC_ISSUER and CONSOLE_OIDC_CLIENT_ID go together: set both or neither")
	}
	if _, err := photoOrigin(c.PublicBaseURL); err != nil {
		return fmt.Errorf("PUBLIC_BASE_URL: %w", err)
	}
	if c.OIDCIssuer == "" {
		return nil
	}
	if _, err := issuerOrigin(c.OIDCIssuer); err != nil {
		return fmt.Errorf("CONSOLE_OIDC_ISSUER: %w", err)
	}
	return nil
}

// photoOrigin is the origin of PUBLIC_BASE_URL ("" when unset).
func photoOrigin(base string) (string, error) {
	if base == "" {
		return "", nil
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.User != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("%q is not an absolute http(s) URL without credentials", base)
	}
	return u.Scheme + "://" + u.Host, nil
}

func issuerOrigin(issuer string) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an absolute URL without credentials, query or fragment", issuer)
	}
	loopback := u.Hostname() == "localhost" || u.Hostname() == "127.0.0.1" || u.Hostname() == "::1"
	if u.Scheme != "https" && !(u.Scheme == "http" && loopback) {
		return "", fmt.Errorf("%q must use https (http only on loopback)", issuer)
	}
	return u.Scheme + "://" + u.Host, nil
}

type bundle struct {
	index  *asset.File
	assets map[string]*asset.File // by name under assets/
}

// load reads and compresses the embedded build once per process.
var load = sync.OnceValues(func() (*bundle, error) {
	b := &bundle{assets: map[string]*asset.File{}}
	index, err := dist.ReadFile("dist/index.html")
	if err != nil {
		return nil, fmt.Errorf("console: the build is missing (web/console/dist): %w", err)
	}
	b.index = asset.New(index, "text/html; charset=utf-8")
	err = fs.WalkDir(dist, "dist/assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		body, err := dist.ReadFile(p)
		if err != nil {
			return err
		}
		b.assets[strings.TrimPrefix(p, "dist/assets/")] = asset.New(body, asset.ContentType(p))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("console: %w", err)
	}
	return b, nil
})

// Server answers the console's routes.
type Server struct {
	b        *bundle
	settings []byte // GET /console/config.json
	provider string // the identity provider's origin, for connect-src
	photos   string // PUBLIC_BASE_URL's origin, for img-src
}

// New checks the configuration and the embedded build.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	b, err := load()
	if err != nil {
		return nil, err
	}
	s := &Server{b: b}
	s.photos, _ = photoOrigin(cfg.PublicBaseURL)
	type oidc struct {
		Issuer   string `json:"issuer"`
		ClientID string `json:"clientId"`
	}
	settings := struct {
		OIDC      *oidc `json:"oidc"`
		DevSignIn bool  `json:"devSignIn"`
	}{DevSignIn: cfg.DevSignIn}
	if cfg.OIDCIssuer != "" {
		settings.OIDC = &oidc{Issuer: cfg.OIDCIssuer, ClientID: cfg.OIDCClientID}
		s.provider, _ = issuerOrigin(cfg.OIDCIssuer)
	}
	if s.settings, err = json.Marshal(settings); err != nil {
		return nil, err
	}
	return s, nil
}

// Mount adds the console's routes (GET and HEAD) to r.
func (s *Server) Mount(r fiber.Router) {
	for _, area := range []string{"/admin", "/store"} {
		r.Get(area, s.handleIndex)
		r.Get(area+"/*", s.handleIndex)
	}
	r.Get(AssetsPrefix+"*", s.handleAsset)
	r.Get(ConfigPath, s.handleSettings)
}

// A Host header as browsers send it: a name or IPv4 address, or an IPv6
// address in brackets, with an optional port. Anything else gets no
// WebSocket source of its own in the policy ('self' still applies).
var hostPattern = regexp.MustCompile(`^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$`)

// policy is the Content-Security-Policy of every console answer.
func (s *Server) policy(host string) string {
	connect := "'self'"
	if hostPattern.MatchString(host) {
		// 'self' covers ws: and wss: of the page's host in CSP Level 3; some
		// browsers still want the WebSocket origins spelled out.
		connect += " ws://" + host + " wss://" + host
	}
	if s.provider != "" {
		connect += " " + s.provider
	}
	img := "'self' data: blob:"
	if s.photos != "" {
		img += " " + s.photos
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		// Mantine sets style attributes and CSS variables at run time.
		"style-src 'self' 'unsafe-inline'",
		"img-src " + img,
		"font-src 'self' data:",
		"connect-src " + connect,
		"manifest-src 'self'",
		"base-uri 'none'",
		"form-action 'self'",
		"object-src 'none'",
		"frame-ancestors 'none'",
	}, "; ")
}

func (s *Server) secure(c *fiber.Ctx) {
	c.Set("Content-Security-Policy", s.policy(string(c.Request().Host())))
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
}

func (s *Server) handleIndex(c *fiber.Ctx) error {
	s.secure(c)
	// Revalidated on every load, so a new build is picked up at once; its
	// assets have new names.
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return asset.Send(c, s.b.index)
}

func (s *Server) handleAsset(c *fiber.Ctx) error {
	s.secure(c)
	name := strings.TrimPrefix(string(c.Request().URI().PathOriginal()), AssetsPrefix)
	f, ok := s.b.assets[name]
	if !ok {
		c.Set(fiber.HeaderCacheControl, "no-store")
		return httpserver.WriteError(c, apperr.New(apperr.NotFound, "no such console asset"))
	}
	// Hashed names: a changed file is a new name.
	c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	return asset.Send(c, f)
}

func (s *Server) handleSettings(c *fiber.Ctx) error {
	s.secure(c)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(s.settings)
}
