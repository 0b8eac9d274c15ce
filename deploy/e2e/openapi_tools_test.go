package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/web/webtest"
)

// The OpenAPI document's outside checks, with the npm packages pinned in
// tools/openapi (its package-lock.json, installed with npm ci): the two
// linters app developers and API gateways run, and a client generated as an
// app developer generates one. Without node they skip outside CI and fail
// in CI (webtest.Node).

// openAPITools is tools/openapi with its packages installed, and node.
func openAPITools(t *testing.T) (dir, node string) {
	t.Helper()
	node, _ = webtest.Node(t)
	dir, err := filepath.Abs(filepath.Join("..", "..", "tools", "openapi"))
	if err != nil {
		t.Fatal(err)
	}
	return webtest.InstallIn(t, dir), node
}

// toolEnv keeps the tools from reaching out (telemetry, update notices).
var toolEnv = []string{"REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_UPDATE_NOTIFIER=1", "NO_COLOR=1"}

// runTool runs a command in dir and returns its standard output and exit
// error (a linter's non-zero exit is a finding, judged by the caller).
func runTool(t *testing.T, dir string, name string, args ...string) ([]byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), toolEnv...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if errOut.Len() > 0 {
		t.Logf("%s %s (stderr):\n%s", filepath.Base(name), strings.Join(args, " "), errOut.Bytes())
	}
	if ctx.Err() != nil {
		t.Fatalf("%s %s: timed out", name, strings.Join(args, " "))
	}
	return out.Bytes(), err
}

// TestOpenAPILinters: Redocly CLI's lint (its recommended rules) and
// Spectral's spectral:oas ruleset find no error in the document the gateway
// serves, nor in the published public contract (contracts/public.openapi.json);
// their warnings are counted in the log. tools/openapi/redocly.yaml and
// .spectral.yaml are the configurations (a rule turned off says why there).
func TestOpenAPILinters(t *testing.T) {
	dir, node := openAPITools(t)
	s := st.Start(t)
	served := filepath.Join(t.TempDir(), "openapi.json")
	if err := os.WriteFile(served, st.MustOK(t, s.Do("GET", "/api/openapi.json", nil, nil)).Body, 0o644); err != nil {
		t.Fatal(err)
	}
	contract, err := filepath.Abs(filepath.Join("..", "..", "contracts", "public.openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []struct{ name, path string }{{"the served document", served}, {"contracts/public.openapi.json", contract}} {
		// Redocly: its JSON report's totals.
		out, runErr := runTool(t, dir, node, filepath.Join("node_modules", "@redocly", "cli", "bin", "cli.js"),
			"lint", "--config", "redocly.yaml", "--format", "json", doc.path)
		var redocly struct {
			Totals   struct{ Errors, Warnings, Ignored int } `json:"totals"`
			Problems []struct {
				RuleID   string `json:"ruleId"`
				Severity string `json:"severity"`
				Message  string `json:"message"`
				Location []struct {
					Pointer string `json:"pointer"`
				} `json:"location"`
			} `json:"problems"`
		}
		if err := json.Unmarshal(out, &redocly); err != nil {
			t.Fatalf("redocly lint %s: no JSON report (%v, exit %v):\n%s", doc.name, err, runErr, out)
		}
		for _, p := range redocly.Problems {
			where := ""
			if len(p.Location) > 0 {
				where = p.Location[0].Pointer
			}
			if p.Severity == "error" {
				t.Errorf("redocly lint, %s: %s %s at %s", doc.name, p.RuleID, p.Message, where)
			} else {
				t.Logf("redocly lint, %s: %s: %s %s at %s", doc.name, p.Severity, p.RuleID, p.Message, where)
			}
		}
		if redocly.Totals.Errors > 0 && !t.Failed() || redocly.Totals.Errors == 0 && runErr != nil {
			t.Errorf("redocly lint %s: %d errors, exit %v", doc.name, redocly.Totals.Errors, runErr)
		}
		t.Logf("redocly lint, %s: %d errors, %d warnings", doc.name, redocly.Totals.Errors, redocly.Totals.Warnings)

		// Spectral: its JSON results (severity 0 is an error, 1 a warning).
		out, runErr = runTool(t, dir, node, filepath.Join("node_modules", "@stoplight", "spectral-cli", "dist", "index.js"),
			"lint", "--ruleset", ".spectral.yaml", "--format", "json", "--quiet", doc.path)
		var spectral []struct {
			Code     string `json:"code"`
			Message  string `json:"message"`
			Severity int    `json:"severity"`
			Path     []any  `json:"path"`
		}
		if err := json.Unmarshal(bytes.TrimSpace(out), &spectral); err != nil {
			t.Fatalf("spectral lint %s: no JSON report (%v, exit %v):\n%s", doc.name, err, runErr, out)
		}
		errs, warnings := 0, 0
		for _, r := range spectral {
			switch r.Severity {
			case 0:
				errs++
				t.Errorf("spectral lint, %s: %s %s at %v", doc.name, r.Code, r.Message, r.Path)
			case 1:
				warnings++
				t.Logf("spectral lint, %s: warning: %s %s at %v", doc.name, r.Code, r.Message, r.Path)
			}
		}
		if errs == 0 && runErr != nil {
			t.Errorf("spectral lint %s: exit %v with no error reported:\n%s", doc.name, runErr, out)
		}
		t.Logf("spectral lint, %s: %d errors, %d warnings", doc.name, errs, warnings)
	}
}

// TestGeneratedClientSeesErrors: a client generated from the served document
// with openapi-typescript, used through openapi-fetch (tools/openapi's
// client.ts, compiled with tsc in strict mode, then run against the system):
// a mutation and a query succeed, the query's always-present fields typed as
// present (the file's type-level checks), and a call with bad arguments is a
// compile error (@ts-expect-error) and, sent anyway, comes back as `error`
// with HTTP 400 and INVALID_ARGUMENT (and its details.field), as a missing
// token comes back as 401 UNAUTHENTICATED.
func TestGeneratedClientSeesErrors(t *testing.T) {
	dir, node := openAPITools(t)
	s := st.Start(t)
	work, err := os.MkdirTemp(dir, ".client-") // inside tools/openapi: its node_modules resolve
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(work) })
	doc := filepath.Join(work, "openapi.json")
	if err := os.WriteFile(doc, st.MustOK(t, s.Do("GET", "/api/openapi.json", nil, nil)).Body, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(dir, "client.ts"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "client.ts"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	// README.md's example of a generated client compiles as written, beside it.
	if err := os.WriteFile(filepath.Join(work, "readme.ts"), []byte(readmeGeneratedClientExample(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	webtest.Run(t, work, 5*time.Minute, toolEnv, node, filepath.Join(dir, "node_modules", "openapi-typescript", "bin", "cli.js"), "openapi.json", "-o", "api.d.ts")
	webtest.Run(t, work, 5*time.Minute, nil, node, filepath.Join(dir, "node_modules", "typescript", "bin", "tsc"),
		"--strict", "--noEmitOnError", "--skipLibCheck", "false", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022",
		"--outDir", "out", "client.ts", "readme.ts")
	out := webtest.Run(t, work, 2*time.Minute, []string{"MARKETPLACE_URL=" + s.BaseURL, "MARKETPLACE_TOKEN=" + s.Token("openapi-client-user")},
		node, filepath.Join("out", "client.js"))
	var seen struct {
		Success struct {
			Status        int
			ProfileID, ID string
			UserID        string `json:"userId"`
			Name          string
		}
		BadArguments struct {
			Status      int
			Code, Field string
		}
		Anonymous struct {
			Status int
			Code   string
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &seen); err != nil {
		t.Fatalf("the client's report: %v\n%s", err, out)
	}
	if seen.Success.Status != 200 || seen.Success.UserID != "openapi-client-user" || seen.Success.ID == "" || seen.Success.ID != seen.Success.ProfileID || seen.Success.Name != "Generated Client" {
		t.Errorf("the successful calls: %+v", seen.Success)
	}
	if seen.BadArguments.Status != 400 || seen.BadArguments.Code != "INVALID_ARGUMENT" || seen.BadArguments.Field != "name" {
		t.Errorf("the call with bad arguments: %+v", seen.BadArguments)
	}
	if seen.Anonymous.Status != 401 || seen.Anonymous.Code != "UNAUTHENTICATED" {
		t.Errorf("the call without a token: %+v", seen.Anonymous)
	}
}

// readmeGeneratedClientExample is README.md's TypeScript block that uses
// openapi-fetch: what a reader pastes beside the api.d.ts openapi-typescript
// wrote.
func readmeGeneratedClientExample(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for rest := string(raw); ; {
		var block string
		var ok bool
		if _, rest, ok = strings.Cut(rest, "\n```ts\n"); !ok {
			t.Fatal("README.md has no ```ts block importing openapi-fetch")
		}
		if block, rest, ok = strings.Cut(rest, "\n```\n"); !ok {
			t.Fatal("README.md: a ```ts block is not closed")
		}
		if strings.Contains(block, `from "openapi-fetch"`) {
			return block + "\n"
		}
	}
}
