package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"marketplace/deploy/modules"
	st "marketplace/deploy/systemtest"
	"marketplace/libs/ops"
)

// TestAPIReferenceIsGenerated keeps docs/api.md equal to what the services declare
// (GET /ops of each), so the reference cannot drift from the code. Regenerate with
// `UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestAPIReferenceIsGenerated`.
func TestAPIReferenceIsGenerated(t *testing.T) {
	s := st.Start(t)
	var b strings.Builder
	b.WriteString("# API reference\n\nGenerated from the services' operation declarations (`GET /ops` of each service); do not edit by hand.\n")
	b.WriteString("Regenerate with `UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestAPIReferenceIsGenerated`.\n\n")
	b.WriteString("Call a query with `POST /api/query` and a mutation with `POST /api/mutation`, body `{ \"path\": ..., \"args\": { ... } }`.\n")
	b.WriteString("Access (enforced by each service's registry before the handler runs): `public` needs no token (a presented one is still verified); `authenticated` needs a bearer token; `customer` acts as the caller's customer profile (a mutation without one is FAILED_PRECONDITION); `store_owner` is for the owner of the store its store argument names, `store_owner_or_admin` also for administrators (another caller: PERMISSION_DENIED; a missing store: NOT_FOUND); `admin` needs the admin role, and `adminUserId`, when an argument, must be the caller. `internal` operations are only reachable by other services, never through the gateway. Mutations honour an `Idempotency-Key` header.\n")
	b.WriteString("Argument rules: `required`; `min`/`max` (numbers: value; strings and arrays: length); `id=kind` (a well-formed id of that kind); `enum=a|b`; `nonblank`. Amounts are AED numbers with at most two decimals.\n")
	b.WriteString("HTTP routes (`METHOD /path`) are called as they are, through the gateway, which forwards exactly the declared method and path; a `:name` segment is one segment of letters, digits, `_` and `-`.\n")
	for _, m := range modules.All {
		declared := declaredOps(t, s, m.Name)
		sort.Slice(declared, func(i, j int) bool { return declared[i].Path < declared[j].Path })
		fmt.Fprintf(&b, "\n## Service `%s`\n", m.Name)
		for _, r := range declaredRoutes(t, s, m.Name) {
			fmt.Fprintf(&b, "\n### `%s %s`\n\nHTTP route, access `%s`. %s\n", r.Method, r.Path, r.Access, r.Summary)
		}
		for _, d := range declared {
			access := fmt.Sprintf("`%s`", d.Access)
			if d.StoreArg != "" {
				access += fmt.Sprintf(" (the store of `%s`)", d.StoreArg)
			}
			fmt.Fprintf(&b, "\n### `%s`\n\n%s, access %s. %s\n", d.Path, d.Kind, access, d.Summary)
			if len(d.Args) == 0 {
				b.WriteString("\nNo arguments.\n")
				continue
			}
			b.WriteString("\n| argument | type | required | rules |\n|---|---|---|---|\n")
			for _, a := range d.Args {
				req := "no"
				if a.Required {
					req = "yes"
				}
				fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", a.Name, strings.ReplaceAll(a.Type, "|", "\\|"), req, strings.ReplaceAll(a.Rules, "|", "\\|"))
			}
		}
	}
	path := filepath.Join("..", "..", "docs", "api.md")
	if os.Getenv("UPDATE_API_DOCS") != "" {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	have, err := os.ReadFile(path)
	if err != nil || string(have) != b.String() {
		t.Fatalf("docs/api.md is out of date with the operation declarations; regenerate it with UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestAPIReferenceIsGenerated (%v)", err)
	}
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
