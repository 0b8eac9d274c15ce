package gateway

import (
	"bytes"
	"compress/gzip"
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

	// Gzipped where accepted (the /docs page loads it on every visit), with
	// an ETag a revalidation answers 304 to.
	req, _ := http.NewRequest("GET", gw+"/api/openapi.json", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	zresp, err := http.DefaultTransport.RoundTrip(req) // no transparent decompression
	if err != nil {
		t.Fatal(err)
	}
	zipped, _ := io.ReadAll(zresp.Body)
	zresp.Body.Close()
	etag := zresp.Header.Get("ETag")
	if zresp.Header.Get("Content-Encoding") != "gzip" || len(zipped) >= len(served) || etag == "" || zresp.Header.Get("Cache-Control") != "no-cache" {
		t.Errorf("gzip asked: Content-Encoding %q, %d bytes of %d, ETag %q, Cache-Control %q", zresp.Header.Get("Content-Encoding"), len(zipped), len(served), etag, zresp.Header.Get("Cache-Control"))
	}
	if zr, err := gzip.NewReader(bytes.NewReader(zipped)); err != nil {
		t.Error(err)
	} else if plain, _ := io.ReadAll(zr); string(plain) != string(b1) {
		t.Error("the gzipped document is not the document")
	}
	req.Header.Set("If-None-Match", etag)
	again, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	again.Body.Close()
	if again.StatusCode != http.StatusNotModified {
		t.Errorf("revalidation with the current ETag: %d, want 304", again.StatusCode)
	}
}
