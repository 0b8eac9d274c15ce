package gateway

import (
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"marketplace/web/apidocs"
	"marketplace/web/console"
)

// The gateway serves its API reference at /docs (web/apidocs: the OpenAPI
// document of GET /api/openapi.json rendered by a renderer embedded in the
// binary) and, at /, an index of what it serves. Neither is an operation:
// they are not in the OpenAPI document nor in the published contracts.

// indexLinks are the index's candidates, listed when app serves them.
var indexLinks = []apidocs.Link{
	{Href: apidocs.DocsPath, Title: "API reference"},
	{Href: "/api/openapi.json", Title: "OpenAPI document"},
	{Href: console.AdminPath, Title: "Admin console"},
	{Href: console.StorePath, Title: "Store portal"},
	{Href: "/health", Title: "Health"},
	{Href: "/readyz", Title: "Readiness"},
	{Href: "/livez", Title: "Liveness"},
	{Href: "/version", Title: "Version"},
}

func (g *Gateway) mountDocs(app *fiber.App) {
	links := sync.OnceValue(func() []apidocs.Link { return servedLinks(app.GetRoutes(true), indexLinks) })
	apidocs.New("/api/openapi.json", links).Mount(app)
}

// servedLinks keeps the candidates a GET route of routes answers: by its
// exact path, or a wildcard route under it (the console's /admin/*).
func servedLinks(routes []fiber.Route, candidates []apidocs.Link) []apidocs.Link {
	served := func(href string) bool {
		for _, r := range routes {
			if r.Method != fiber.MethodGet {
				continue
			}
			if r.Path == href || (strings.HasSuffix(r.Path, "/*") && strings.TrimSuffix(r.Path, "*") == href) {
				return true
			}
		}
		return false
	}
	out := []apidocs.Link{}
	for _, l := range candidates {
		if served(l.Href) {
			out = append(out, l)
		}
	}
	return out
}
