package contracts

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var root = filepath.Join("..", "..")

var files = []string{"public.openapi.json", "internal.openapi.json", "events.openapi.json"}

// snapshot copies the committed contracts into a fresh directory.
func snapshot(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(root, "contracts", f))
		if err != nil {
			t.Fatalf("the snapshot is not committed: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// edit changes one document of dir: f gets its decoded JSON.
func edit(t *testing.T, dir, file string, f func(doc map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, file)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	f(doc)
	if b, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// schema is a component schema of a document, which must exist.
func schema(t *testing.T, doc map[string]any, name string) map[string]any {
	t.Helper()
	s, ok := doc["components"].(map[string]any)["schemas"].(map[string]any)[name].(map[string]any)
	if !ok {
		t.Fatalf("no schema %s in the snapshot", name)
	}
	return s
}

// rename renames a property of a schema, keeping it required if it was.
func rename(t *testing.T, s map[string]any, from, to string) {
	t.Helper()
	props := s["properties"].(map[string]any)
	p, ok := props[from]
	if !ok {
		t.Fatalf("no property %s", from)
	}
	delete(props, from)
	props[to] = p
	if req, ok := s["required"].([]any); ok {
		for i, r := range req {
			if r == from {
				req[i] = to
			}
		}
	}
}

func required(s map[string]any, name string) bool {
	req, _ := s["required"].([]any)
	for _, r := range req {
		if r == name {
			return true
		}
	}
	return false
}

// check runs the check as make contracts-check runs it, on the snapshot
// against dir: its exit error and output.
func check(t *testing.T, dir string) (error, string) {
	t.Helper()
	base, err := filepath.Abs(filepath.Join(root, "contracts"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", filepath.Join(root, "tools", "oasdiff", "contracts.sh"), "diff", base, dir)
	out, err := cmd.CombinedOutput()
	return err, string(out)
}

// TestContractsCheck: the unchanged snapshot passes; a renamed event field, a
// renamed public argument (required or optional) or answer field, a removed
// event type, a renamed internal answer field and an enum value whose meaning
// changed or went fail, naming the break; an added optional field or
// argument and an added enum value pass.
func TestContractsCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oasdiff")
	}
	t.Run("unchanged", func(t *testing.T) {
		if err, out := check(t, snapshot(t)); err != nil {
			t.Fatalf("the unchanged snapshot fails the check: %v\n%s", err, out)
		}
	})

	breaks := []struct {
		name, file string
		change     func(t *testing.T, doc map[string]any)
		want       []string // in the report
	}{
		{"event field renamed", "events.openapi.json", func(t *testing.T, doc map[string]any) {
			s := schema(t, doc, "payouts.PayoutEvent")
			if !required(s, "netAmountFils") {
				t.Fatal("netAmountFils is not required in the snapshot")
			}
			rename(t, s, "netAmountFils", "netAmount")
		}, []string{"events contract", "response-required-property-removed", "GET /events/payout.approved", "netAmountFils"}},
		{"public argument renamed", "public.openapi.json", func(t *testing.T, doc map[string]any) {
			rename(t, schema(t, doc, "admins.catalog.createCity.Args"), "name", "title")
		}, []string{"public contract", "request-property-removed", "POST /api/run/admins/catalog/createCity", "/name"}},
		{"optional public argument renamed", "public.openapi.json", func(t *testing.T, doc map[string]any) {
			s := schema(t, doc, "admins.catalog.createCategory.Args")
			if required(s, "nameArabic") {
				t.Fatal("nameArabic is required in the snapshot: pick an optional argument")
			}
			rename(t, s, "nameArabic", "arabicName")
		}, []string{"public contract", "request-property-removed", "createCategory", "nameArabic"}},
		{"public answer field renamed", "public.openapi.json", func(t *testing.T, doc map[string]any) {
			// The answer sits in an allOf (Convex's success shape): judged
			// only with --flatten-allof.
			rename(t, schema(t, doc, "customers.checkout.createPaymentIntent.Returns"), "clientSecret", "secret")
		}, []string{"public contract", "response-required-property-removed", "POST /api/run/customers/checkout/createPaymentIntent", "clientSecret"}},
		{"event type removed", "events.openapi.json", func(t *testing.T, doc map[string]any) {
			delete(doc["paths"].(map[string]any), "/events/order.status_changed")
		}, []string{"events contract", "GET /events/order.status_changed"}},
		{"enum value's meaning changed", "events.openapi.json", func(t *testing.T, doc map[string]any) {
			// oasdiff sees values, not meanings: the enum meanings' judge
			// compares x-enum-meanings.
			m, ok := doc["x-enum-meanings"].(map[string]any)["orderStatus"].(map[string]any)
			if !ok || m["delivered"] == nil {
				t.Fatal("the snapshot has no meaning of orderStatus delivered")
			}
			m["delivered"] = "left at the door, whoever took it"
		}, []string{"events contract", "enum-value-meaning-changed", `orderStatus: value "delivered" changed its meaning`}},
		{"enum value removed from the meanings", "public.openapi.json", func(t *testing.T, doc map[string]any) {
			delete(doc["x-enum-meanings"].(map[string]any)["flagReason"].(map[string]any), "fake")
		}, []string{"public contract", `flagReason: value "fake" is gone`}},
		{"internal answer field renamed", "internal.openapi.json", func(t *testing.T, doc map[string]any) {
			s := schema(t, doc, "customers.orders.getPurchaseFacts.Returns")
			rename(t, s, "hasDeliveredOrder", "delivered")
		}, []string{"internal contract", "response-required-property-removed", "POST /internal/customers.orders.getPurchaseFacts", "hasDeliveredOrder"}},
	}
	for _, c := range breaks {
		t.Run(c.name, func(t *testing.T) {
			dir := snapshot(t)
			edit(t, dir, c.file, func(doc map[string]any) { c.change(t, doc) })
			err, out := check(t, dir)
			if err == nil {
				t.Fatalf("the check passes a breaking change:\n%s", out)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("the report does not say %q:\n%s", w, out)
				}
			}
		})
	}

	compatible := []struct {
		name, file string
		change     func(t *testing.T, doc map[string]any)
	}{
		{"optional event field added", "events.openapi.json", func(t *testing.T, doc map[string]any) {
			s := schema(t, doc, "payouts.PayoutEvent")
			s["properties"].(map[string]any)["note"] = map[string]any{"type": "string"}
		}},
		{"optional public argument added", "public.openapi.json", func(t *testing.T, doc map[string]any) {
			s := schema(t, doc, "admins.catalog.createCity.Args")
			s["properties"].(map[string]any)["code"] = map[string]any{"type": "string"}
		}},
		{"enum value added with its meaning", "events.openapi.json", func(t *testing.T, doc map[string]any) {
			doc["x-enum-meanings"].(map[string]any)["orderStatus"].(map[string]any)["returned"] = "sent back by the customer"
		}},
		{"internal answer field added", "internal.openapi.json", func(t *testing.T, doc map[string]any) {
			s := schema(t, doc, "customers.orders.getPurchaseFacts.Returns")
			s["properties"].(map[string]any)["since"] = map[string]any{"type": "integer"}
		}},
	}
	for _, c := range compatible {
		t.Run(c.name, func(t *testing.T) {
			dir := snapshot(t)
			edit(t, dir, c.file, func(doc map[string]any) { c.change(t, doc) })
			if err, out := check(t, dir); err != nil {
				t.Fatalf("the check refuses a compatible change: %v\n%s", err, out)
			}
		})
	}
}
