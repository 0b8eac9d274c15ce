package gateway

import (
	"github.com/gofiber/fiber/v2"

	"marketplace/gateway/apischema"
	"marketplace/libs/apperr"
	"marketplace/libs/httpserver"
	"marketplace/libs/httpserver/asset"
)

// GET /api/openapi.json is the OpenAPI document of what this gateway routes,
// built from its live routing table, that is from the services' own
// declarations (GET /ops of each): true in the all-in-one and in distributed
// mode alike, and new operations appear in it as soon as the table has them.

// openAPIDoc is the document built for one routing table.
type openAPIDoc struct {
	routes *map[string]route
	raw    *[]rawRoute
	body   []byte
	file   *asset.File // body, its gzip and ETag, as GET /api/openapi.json sends it
}

// API is the public surface this gateway routes now.
func (g *Gateway) API() *apischema.API {
	table, raw := g.routes.Load(), g.raw.Load()
	return g.apiOf(table, raw)
}

func (g *Gateway) apiOf(table *map[string]route, raw *[]rawRoute) *apischema.API {
	list := make([]apischema.Operation, 0, len(*table))
	for _, r := range *table {
		list = append(list, apischema.Operation{Service: r.service, Descriptor: r.desc})
	}
	routes := make([]apischema.Route, 0, len(*raw))
	for _, r := range *raw {
		if r.refused == nil { // not served: not part of the document
			routes = append(routes, apischema.Route{Service: r.service, RouteDescriptor: r.desc})
		}
	}
	return apischema.New(list, routes)
}

// OpenAPI is the document of the current routing table, built once per table.
func (g *Gateway) OpenAPI() ([]byte, error) {
	table, raw := g.routes.Load(), g.raw.Load()
	if d := g.openapi.Load(); d != nil && d.routes == table && d.raw == raw {
		return d.body, nil
	}
	body, err := g.apiOf(table, raw).OpenAPI()
	if err != nil {
		return nil, err
	}
	g.openapi.Store(&openAPIDoc{routes: table, raw: raw, body: body, file: asset.New(body, fiber.MIMEApplicationJSONCharsetUTF8)})
	return body, nil
}

// handleOpenAPI sends the document (about 1 MB, a tenth of it gzipped: /docs
// loads it on every visit) gzipped where the client accepts that, with its
// ETag; a client holding the current one gets 304. no-cache: the document
// changes with the routing table, so a client asks again each time.
func (g *Gateway) handleOpenAPI(c *fiber.Ctx) error {
	if _, err := g.OpenAPI(); err != nil {
		return httpserver.WriteError(c, apperr.Wrap(err, apperr.Internal, "the OpenAPI document could not be built"))
	}
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return asset.Send(c, g.openapi.Load().file)
}
