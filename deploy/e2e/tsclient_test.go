package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	st "marketplace/deploy/systemtest"
)

// TestTypeScriptClientIsGenerated keeps clients/typescript/api.d.ts and api.js
// equal to what the services declare, and compiles a usage file against them
// with the pinned TypeScript and convex packages (clients/typescript's
// package-lock.json, installed with npm ci): the generated references must
// type-check with Convex's own client, and wrong arguments must not (the
// usage file's @ts-expect-error lines). Regenerate with
// `UPDATE_API_DOCS=1 go test ./deploy/e2e -run TestTypeScriptClientIsGenerated`.
func TestTypeScriptClientIsGenerated(t *testing.T) {
	s := st.Start(t)
	dts, js := declaredAPI(t, s).TypeScript()
	syncFile(t, "clients/typescript/api.d.ts", []byte(dts))
	syncFile(t, "clients/typescript/api.js", []byte(js))

	dir := filepath.Join("..", "..", "clients", "typescript")
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("SKIPPED: npm is not installed, so the generated TypeScript client was not compiled (install Node.js 20+ to run this check)")
	}
	// npm ci when node_modules is missing or was installed from another lock.
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	stamp := filepath.Join(dir, "node_modules", ".installed-lock.json")
	if have, err := os.ReadFile(stamp); err != nil || !bytes.Equal(have, lock) {
		runIn(t, dir, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
		if err := os.WriteFile(stamp, lock, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runIn(t, dir, "node", filepath.Join("node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", "tsconfig.json")
}

func runIn(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
