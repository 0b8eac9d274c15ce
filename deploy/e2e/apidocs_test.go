package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"marketplace/deploy/modules"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/ops"
)

// TestAPIReferenceIsGenerated keeps docs/api.md equal to what the services declare
// (GET /ops of each), so the reference cannot drift from the code: arguments,
// return shapes, error codes, and the routes' contracts (the webhook's body,
// metadata keys and statuses). Regenerate with
// `UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestAPIReferenceIsGenerated`.
func TestAPIReferenceIsGenerated(t *testing.T) {
	s := st.Start(t)
	var services []string
	for _, m := range modules.All {
		services = append(services, m.Name)
	}
	md := declaredAPI(t, s).Markdown(services)
	for _, want := range []string{"Returns:", "processor-signature", "metadata.deliveryAddress", "| 503 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the reference lacks %q", want)
		}
	}
	syncFile(t, "docs/api.md", []byte(md))
}

// declaredOps are the operations a service declares (its GET /ops).
func declaredOps(t testing.TB, s *st.Sys, service string) []ops.Descriptor {
	t.Helper()
	resp, err := http.Get(s.Services[service] + "/ops")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Operations []ops.Descriptor `json:"operations"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Operations
}

// declaredRoutes are the raw HTTP routes a service declares (its GET /ops).
func declaredRoutes(t testing.TB, s *st.Sys, service string) []ops.RouteDescriptor {
	t.Helper()
	resp, err := http.Get(s.Services[service] + "/ops")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		Routes []ops.RouteDescriptor `json:"routes"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	return body.Routes
}
