package gateway

import (
	"github.com/gofiber/fiber/v2"

	"marketplace/web/console"
)

// The gateway serves the administrators' console at /admin/ and the store
// owners' portal at /store/ (web/console, embedded in the binary): clients
// of the public API like any other, from the gateway's own origin.

// Validate checks what loading cannot check field by field: the console's
// identity provider settings go together, and GATEWAY_CONVEX is on or off.
func (c Config) Validate() error {
	if err := c.validateConvex(); err != nil {
		return err
	}
	return c.Console.Validate()
}

func (g *Gateway) mountConsole(app *fiber.App) {
	s, err := console.New(g.cfg.Console)
	if err != nil {
		// Config.Validate refused this at load; only a Config built by hand
		// gets here, and goes without the console.
		g.logger.Error("console not served", "err", err)
		return
	}
	s.Mount(app)
}
