package contracts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// accept runs make contracts-accept's script on a snapshot directory and a
// changelog of the test's own, with generated as the regenerated documents.
func accept(t *testing.T, snapshotDir, changelog, generated string) (error, string) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join(root, "tools", "oasdiff", "contracts.sh"), "accept")
	cmd.Env = append(os.Environ(), "CONTRACTS_DIR="+snapshotDir, "CHANGELOG="+changelog, "CONTRACTS_GENERATED="+generated,
		"VERSIONS_GO="+filepath.Join(snapshotDir, "contracts_gen.go"))
	out, err := cmd.CombinedOutput()
	return err, string(out)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestContractsAccept: make contracts-accept takes a changed contract's new
// version from the newest "## <contract> <version>" heading of the
// changelog, refuses a change without a newer entry and a breaking change
// without a new major version, and records the versions and the commit in
// ACCEPTED; an unchanged contract keeps its version.
func TestContractsAccept(t *testing.T) {
	if testing.Short() {
		t.Skip("builds oasdiff")
	}
	snap := snapshot(t)
	changelog := filepath.Join(t.TempDir(), "CHANGELOG.md")
	writeFile(t, changelog, "# Changelog\n\n## public 1.0.0\n\n## internal 1.0.0\n\n## events 1.0.0\n")
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}

	// The first acceptance: every contract at its changelog version.
	if err, out := accept(t, snap, changelog, snapshot(t)); err != nil {
		t.Fatalf("first acceptance: %v\n%s", err, out)
	}
	acc := readFile(t, filepath.Join(snap, "ACCEPTED"))
	for _, want := range []string{"commit " + strings.TrimSpace(string(head)) + "\n", "public 1.0.0\n", "internal 1.0.0\n", "events 1.0.0\n"} {
		if !strings.Contains(acc, want) {
			t.Errorf("ACCEPTED lacks %q:\n%s", want, acc)
		}
	}

	// A compatible change of the events contract without a newer entry.
	gen := snapshot(t)
	edit(t, gen, "events.openapi.json", func(doc map[string]any) {
		schema(t, doc, "payouts.PayoutEvent")["properties"].(map[string]any)["note"] = map[string]any{"type": "string"}
	})
	before := readFile(t, filepath.Join(snap, "events.openapi.json"))
	err, out := accept(t, snap, changelog, gen)
	if err == nil || !strings.Contains(out, `"## events <version>"`) {
		t.Fatalf("a changed contract without a changelog entry was accepted (%v):\n%s", err, out)
	}
	if readFile(t, filepath.Join(snap, "events.openapi.json")) != before {
		t.Fatal("a refused acceptance changed the snapshot")
	}

	// With its entry: accepted at the new minor version; the others keep theirs.
	writeFile(t, changelog, "# Changelog\n\n## events 1.1.0\n\n- payout events: note\n\n## public 1.0.0\n\n## internal 1.0.0\n\n## events 1.0.0\n")
	if err, out := accept(t, snap, changelog, gen); err != nil {
		t.Fatalf("a compatible change with its entry: %v\n%s", err, out)
	}
	acc = readFile(t, filepath.Join(snap, "ACCEPTED"))
	if !strings.Contains(acc, "events 1.1.0\n") || !strings.Contains(acc, "public 1.0.0\n") {
		t.Fatalf("ACCEPTED after the minor change:\n%s", acc)
	}
	if readFile(t, filepath.Join(snap, "events.openapi.json")) != readFile(t, filepath.Join(gen, "events.openapi.json")) {
		t.Fatal("the accepted document is not the regenerated one")
	}

	// A breaking change (a renamed payload field) with a minor entry: refused.
	edit(t, gen, "events.openapi.json", func(doc map[string]any) {
		rename(t, schema(t, doc, "payouts.PayoutEvent"), "netAmountFils", "netAmount")
	})
	writeFile(t, changelog, "# Changelog\n\n## events 1.2.0\n\n- payout events: netAmount\n\n"+strings.TrimPrefix(readFile(t, changelog), "# Changelog\n\n"))
	err, out = accept(t, snap, changelog, gen)
	if err == nil || !strings.Contains(out, "new major") {
		t.Fatalf("a breaking change at a minor version was accepted (%v):\n%s", err, out)
	}
	// At a new major: accepted.
	writeFile(t, changelog, strings.Replace(readFile(t, changelog), "## events 1.2.0", "## events 2.0.0", 1))
	if err, out := accept(t, snap, changelog, gen); err != nil {
		t.Fatalf("a breaking change at a new major: %v\n%s", err, out)
	}
	if acc = readFile(t, filepath.Join(snap, "ACCEPTED")); !strings.Contains(acc, "events 2.0.0\n") {
		t.Fatalf("ACCEPTED after the major change:\n%s", acc)
	}
	// The versions compiled into the programs (libs/version) follow ACCEPTED.
	want := `var accepted = Contracts{Public: "1.0.0", Internal: "1.0.0", Events: "2.0.0"}`
	if gen := readFile(t, filepath.Join(snap, "contracts_gen.go")); !strings.Contains(gen, want) || !strings.Contains(gen, "package version\n") {
		t.Fatalf("the generated versions after the major change:\n%s", gen)
	}
}
