package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"marketplace/deploy/modules"
	st "marketplace/deploy/systemtest"
	"marketplace/gateway/apischema"
	"marketplace/libs/contracts"
	"marketplace/libs/contracts/events"
	"marketplace/libs/ops"
)

// ContractFiles are the published contracts' documents in contracts/, in the
// order `make contracts-check` judges them.
var ContractFiles = []string{"public.openapi.json", "internal.openapi.json", "events.openapi.json"}

// TestContractsGenerate builds the published contracts from the running
// services' declarations (GET /ops) and the event list of
// libs/contracts/events: the public operations (the same bytes as
// docs/openapi.json), the internal operations and the event payloads, each
// an OpenAPI document that kin-openapi validates, with every internal
// operation and every event type in it. With CONTRACTS_OUT=<dir> it writes
// them there: `make contracts-check` compares them with the snapshot in
// contracts/ and `make contracts-accept` makes them the snapshot.
func TestContractsGenerate(t *testing.T) {
	s := st.Start(t)
	api := declaredAPI(t, s)
	public, err := api.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	internal, err := api.InternalOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	ev, err := apischema.EventsOpenAPI(events.All)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{"public.openapi.json": public, "internal.openapi.json": internal, "events.openapi.json": ev}
	// Each contract publishes the meanings of the enums it uses; an enum
	// without declared meanings fails here.
	for name, doc := range docs {
		if docs[name], err = apischema.AddEnumMeanings(doc, contracts.Enums); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}

	// What each document must hold: the internal operations the services
	// declare, every listed event type in each version it is published in.
	var wantInternal []string
	for _, m := range modules.All {
		for _, d := range declaredOps(t, s, m.Name) {
			if d.Access == ops.Internal {
				wantInternal = append(wantInternal, apischema.InternalPath(d.Path))
			}
		}
	}
	if len(wantInternal) == 0 {
		t.Fatal("no internal operation declared")
	}
	var wantEvents []string
	for _, e := range events.All {
		for _, v := range e.Versions() {
			wantEvents = append(wantEvents, apischema.EventVersionPath(e.Type, v))
		}
	}
	for name, want := range map[string][]string{"internal.openapi.json": wantInternal, "events.openapi.json": wantEvents} {
		doc := loadOpenAPI(t, docs[name])
		for _, p := range want {
			if doc.Paths.Find(p) == nil {
				t.Errorf("%s: %s is missing", name, p)
			}
		}
		if n := doc.Paths.Len(); n != len(want) {
			t.Errorf("%s: %d paths, want %d", name, n, len(want))
		}
	}
	// Every event payload names its fields: no payload is an empty object.
	var evDoc struct {
		Components struct {
			Schemas map[string]struct {
				Properties json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(ev, &evDoc); err != nil {
		t.Fatal(err)
	}
	for name, sc := range evDoc.Components.Schemas {
		if len(sc.Properties) < 3 {
			t.Errorf("events.openapi.json: %s has no properties", name)
		}
	}

	// Each is laid out as docs/openapi.json (docs/adr/0014): a snapshot in
	// contracts/ stays under the repository's 1 MiB file rule.
	for _, name := range ContractFiles {
		if n := len(docs[name]); n >= 1<<20 {
			t.Errorf("%s is %d KiB, over 1 MiB: lay it out as docs/openapi.json", name, n>>10)
		}
	}

	out := os.Getenv("CONTRACTS_OUT")
	if out == "" {
		return
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range ContractFiles {
		if err := os.WriteFile(filepath.Join(out, name), docs[name], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("wrote %s to %s", strings.Join(ContractFiles, ", "), out)
}
