package gateway

import (
	"reflect"
	"testing"

	"github.com/gofiber/fiber/v2"

	"marketplace/web/apidocs"
	"marketplace/web/console"
)

// TestIndexListsOnlyWhatIsServed: GET /'s links are the candidates the app
// has a GET route for; the console's and the portal's only where the
// console is mounted (its wildcard routes), nothing else assumed.
func TestIndexListsOnlyWhatIsServed(t *testing.T) {
	hrefs := func(links []apidocs.Link) []string {
		out := []string{}
		for _, l := range links {
			out = append(out, l.Href)
		}
		return out
	}
	ok := func(c *fiber.Ctx) error { return nil }

	app := fiber.New()
	app.Get("/health", ok)
	app.Get("/api/openapi.json", ok)
	app.Post("/livez", ok) // not a GET
	apidocs.New("/api/openapi.json", nil).Mount(app)
	if got, want := hrefs(servedLinks(app.GetRoutes(true), indexLinks)), []string{"/docs", "/api/openapi.json", "/health"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("without the console: %v, want %v", got, want)
	}

	s, err := console.New(console.Config{})
	if err != nil {
		t.Fatal(err)
	}
	s.Mount(app)
	app.Get("/readyz", ok)
	if got, want := hrefs(servedLinks(app.GetRoutes(true), indexLinks)), []string{"/docs", "/api/openapi.json", "/admin/", "/store/", "/health", "/readyz"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("with the console: %v, want %v", got, want)
	}
}
