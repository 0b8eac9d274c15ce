// Package apidocs serves the API reference page, GET /docs: the gateway's
// OpenAPI document (GET /api/openapi.json) rendered in the browser by
// Scalar's API Reference (scalar/, vendored and embedded here, so nothing is
// loaded from elsewhere), and GET /, a small index of what the gateway serves
// (HTML for browsers, JSON for clients that prefer it).
//
// The page's Content-Security-Policy allows the gateway's own scripts only
// (no inline script, no eval), requests to the gateway only, and styles from
// the gateway and inline ones: the renderer (Vue, and the libraries bundled
// with it) injects several <style> elements, only one of which takes a
// nonce, and writes style attributes; a style cannot run script.
package apidocs

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/httpserver/asset"
)

// Version is the vendored renderer's: @scalar/api-reference (scalar/README.md).
const Version = "1.76.0"

// Paths the reference is served at.
const (
	DocsPath     = "/docs"
	AssetsPrefix = "/docs/assets/"
	IndexPath    = "/"
)

var (
	//go:embed scalar/standalone.js
	scalarJS []byte
	//go:embed docs.js
	docsJS []byte
	//go:embed docs.css
	docsCSS []byte
)

// The assets by name under AssetsPrefix: the renderer under a name that
// carries its version (cached for good), the page's own script and style
// (revalidated).
var (
	scalarName = "scalar-api-reference-" + Version + ".js"
	assets     = sync.OnceValue(func() map[string]*asset.File {
		return map[string]*asset.File{
			scalarName: asset.New(scalarJS, "text/javascript; charset=utf-8"),
			"docs.js":  asset.New(docsJS, "text/javascript; charset=utf-8"),
			"docs.css": asset.New(docsCSS, "text/css; charset=utf-8"),
		}
	})
)

// Link is one entry of the index.
type Link struct {
	Href  string `json:"href"`
	Title string `json:"title"`
}

// Server answers /, /docs and the reference's assets.
type Server struct {
	page  *asset.File // GET /docs
	links func() []Link
}

// New serves the reference of the document at specURL (a path on the same
// gateway); links lists the index's entries, asked at each request of GET /
// (the gateway lists the routes it serves).
func New(specURL string, links func() []Link) *Server {
	var b strings.Builder
	if err := docsPage.Execute(&b, map[string]string{
		"Spec": specURL, "Scalar": AssetsPrefix + scalarName, "Init": AssetsPrefix + "docs.js", "Style": AssetsPrefix + "docs.css",
	}); err != nil {
		panic(err) // a fixed template and strings: cannot fail
	}
	return &Server{page: asset.New([]byte(b.String()), fiber.MIMETextHTMLCharsetUTF8), links: links}
}

// Mount adds the routes (GET and HEAD) to r.
func (s *Server) Mount(r fiber.Router) {
	r.Get(IndexPath, s.handleIndex)
	r.Get(DocsPath, s.handleDocs)
	r.Get(AssetsPrefix+"*", s.handleAsset)
}

var docsPage = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marketplace API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="{{.Style}}">
</head>
<body>
<noscript>The API reference needs JavaScript; the OpenAPI document itself is at <a href="{{.Spec}}">{{.Spec}}</a>.</noscript>
<div id="app" data-openapi-url="{{.Spec}}"></div>
<script src="{{.Init}}"></script>
<script src="{{.Scalar}}"></script>
</body>
</html>
`))

func (s *Server) handleDocs(c *fiber.Ctx) error {
	secure(c, docsPolicy)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return asset.Send(c, s.page)
}

func (s *Server) handleAsset(c *fiber.Ctx) error {
	secure(c, docsPolicy)
	name := strings.TrimPrefix(string(c.Request().URI().PathOriginal()), AssetsPrefix)
	f, ok := assets()[name]
	if !ok {
		c.Set(fiber.HeaderCacheControl, "no-store")
		return httpserver.WriteError(c, apperr.New(apperr.NotFound, "no such asset of the API reference"))
	}
	if name == scalarName {
		c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	return asset.Send(c, f)
}

// docsPolicy is the Content-Security-Policy of the reference and its assets.
var docsPolicy = strings.Join([]string{
	"default-src 'none'",
	"script-src 'self'",
	"style-src 'self' 'unsafe-inline'",
	"img-src 'self' data: blob:",
	"font-src 'self' data:",
	"connect-src 'self'",
	"base-uri 'none'",
	"form-action 'none'",
	"object-src 'none'",
	"frame-ancestors 'none'",
}, "; ")

func secure(c *fiber.Ctx, policy string) {
	c.Set("Content-Security-Policy", policy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// The index's own style, allowed by its hash.
const indexStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}a{color:#0b57d0}code{font-size:.9em}li{margin:.3rem 0}`

var indexPolicy = func() string {
	sum := sha256.Sum256([]byte(indexStyle))
	return strings.Join([]string{
		"default-src 'none'",
		"style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'",
		"img-src data:",
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "; ")
}()

var indexPage = template.Must(template.New("index").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Marketplace API</title>
<link rel="icon" href="data:,">
<style>{{.Style}}</style>
</head>
<body>
<main>
<h1>Marketplace API</h1>
<ul>
{{range .Links}}<li><a href="{{.Href}}">{{.Title}}</a> <code>{{.Href}}</code></li>
{{end}}</ul>
</main>
</body>
</html>
`))

// handleIndex answers GET /: JSON when the client prefers it to HTML (curl's
// */* included), the HTML list otherwise (browsers ask for text/html).
func (s *Server) handleIndex(c *fiber.Ctx) error {
	links := s.links()
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Vary(fiber.HeaderAccept)
	if c.Accepts(fiber.MIMEApplicationJSON, fiber.MIMETextHTML) != fiber.MIMETextHTML {
		return c.JSON(fiber.Map{"name": "marketplace", "links": links})
	}
	secure(c, indexPolicy)
	var b strings.Builder
	if err := indexPage.Execute(&b, map[string]any{"Links": links, "Style": template.CSS(indexStyle)}); err != nil {
		return httpserver.WriteError(c, err)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMETextHTMLCharsetUTF8)
	return c.SendString(b.String())
}
