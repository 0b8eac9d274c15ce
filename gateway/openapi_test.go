package gateway

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"marketplace/libs/auth"
	"marketplace/libs/discovery"
)

// TestOpenAPIIsBuiltFromTheRoutingTable: the document comes from the
// declarations the gateway fetched over HTTP (GET /ops), with the schemas
// they carry, without internal operations; it is built once per routing
// table, and a refresh that changes the table changes it.
func TestOpenAPIIsBuiltFromTheRoutingTable(t *testing.T) {
	url, stop := fakeService(t, nil)
	defer stop()
	v, _ := auth.NewHS256(secret, auth.Options{})
	g := New(Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}), v, slog.New(slog.DiscardHandler))
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	b1, err := g.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]any `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]any `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(b1, &doc); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/run/fake/things/echo", "/api/run/fake/things/mine", "/processor/webhook", "/processor/config", "/api/query"} {
		if doc.Paths[p] == nil {
			t.Errorf("no %s", p)
		}
	}
	if doc.Paths["/api/run/fake/things/secret"] != nil {
		t.Error("an internal operation is in the document")
	}
	if doc.Components.Schemas["fake.things.echo.Args"].Properties["say"] == nil {
		t.Errorf("the argument schema did not cross GET /ops: %+v", doc.Components.Schemas["fake.things.echo.Args"])
	}
	if b2, _ := g.OpenAPI(); &b2[0] != &b1[0] {
		t.Error("the document was built again for the same routing table")
	}
	if err := g.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b3, _ := g.OpenAPI(); &b3[0] == &b1[0] || string(b3) != string(b1) {
		t.Error("a refresh must build the document again, the same for the same declarations")
	}

	gw := startGateway(t, Config{Services: []string{"fake"}, UpstreamTimeout: 2 * time.Second}, discovery.NewStatic(map[string]string{"fake": url}))
	resp, err := http.Get(gw + "/api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	served, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || string(served) != string(b1) {
		t.Errorf("GET /api/openapi.json: %d %s, %d bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(served))
	}
}
