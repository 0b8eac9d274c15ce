// Package actionlint checks the hosting CI's workflow files
// (.github/workflows) with actionlint's library, offline, from `make test`:
// syntax, keys, job and step fields, expressions and their contexts, runner
// labels, the inputs of well-known actions (actions/checkout, actions/setup-go,
// ...), globs, cron schedules. shellcheck and pyflakes, when installed, check
// the run: scripts too; without them those two checks are left out, and the
// rest runs.
package actionlint

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
)

// root is the repository's root, from this module's folder (tools/actionlint).
const root = "../.."

// lint runs actionlint on files of the project rooted at dir and returns its
// findings, one line each (file:line:col: message [rule]).
func lint(t *testing.T, dir string, files []string) []string {
	t.Helper()
	opts := &actionlint.LinterOptions{WorkingDir: dir, Color: actionlint.ColorOptionKindNever}
	var log bytes.Buffer
	opts.LogWriter, opts.Verbose = &log, true
	// The external checkers only where they are installed: their absence
	// leaves their checks out, it does not fail the others.
	for name, field := range map[string]*string{"shellcheck": &opts.Shellcheck, "pyflakes": &opts.Pyflakes} {
		if _, err := exec.LookPath(name); err == nil {
			*field = name
		} else {
			t.Logf("%s is not installed: the run: scripts are not checked by it", name)
		}
	}
	linter, err := actionlint.NewLinter(&bytes.Buffer{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	project, err := actionlint.NewProject(dir)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := linter.LintFiles(files, project)
	if err != nil {
		t.Fatalf("actionlint: %v\n%s", err, log.String())
	}
	var out []string
	for _, e := range errs {
		out = append(out, e.Error()) // file (from dir):line:col: message [rule]
	}
	return out
}

// workflows are the workflow files under dir/.github/workflows.
func workflows(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	for _, pat := range []string{"*.yml", "*.yaml"} {
		m, err := filepath.Glob(filepath.Join(dir, ".github", "workflows", pat))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	slices.Sort(files)
	return files
}

// Every workflow file of the repository passes actionlint with no finding.
func TestWorkflowsPassActionlint(t *testing.T) {
	files := workflows(t, root)
	if len(files) == 0 {
		t.Fatal("no workflow file in .github/workflows")
	}
	for _, finding := range lint(t, root, files) {
		t.Error(finding)
	}
	t.Logf("checked %d workflow files", len(files))
}

// The real-engines workflow runs the containers suite's test, which exists
// under that name, with a missing Docker engine made a failure: a renamed
// test would otherwise run nothing ("no tests to run" passes), and a runner
// without Docker would skip it green.
func TestRealEnginesWorkflowRunsTheContainersSuite(t *testing.T) {
	wf, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "real-engines.yml"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join(root, "deploy", "containers", "containers_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	parsed, errs := actionlint.Parse(wf)
	if len(errs) > 0 {
		t.Fatalf("real-engines.yml: %v", errs)
	}
	run := regexp.MustCompile(`go test .*-run '\^(\w+)\$' \./deploy/containers\b`)
	var test string
	var requires bool
	for _, job := range parsed.Jobs {
		if job.Env != nil {
			if v, ok := job.Env.Vars["marketplace_require_docker"]; ok && v.Value.Value == "1" {
				requires = true
			}
		}
		for _, st := range job.Steps {
			if e, ok := st.Exec.(*actionlint.ExecRun); ok && e.Run != nil {
				if m := run.FindStringSubmatch(e.Run.Value); m != nil {
					test = m[1]
				}
			}
		}
	}
	if test == "" || !strings.Contains(string(src), "func "+test+"(t *testing.T)") {
		t.Errorf("real-engines.yml runs test %q of ./deploy/containers, which is not there", test)
	}
	if !requires || !strings.Contains(string(src), `RequireDockerEnv = "MARKETPLACE_REQUIRE_DOCKER"`) {
		t.Error("real-engines.yml does not set MARKETPLACE_REQUIRE_DOCKER=1 for its job, which the containers test reads")
	}
}

// actionlint finds what is wrong in a broken workflow: so a finding in a
// real one fails TestWorkflowsPassActionlint.
func TestActionlintFindsABrokenWorkflow(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".github", "workflows"), 0o755); err != nil {
		t.Fatal(err)
	}
	broken := `name: broken
on:
  push:
  schedule:
    - cron: "61 3 * * *"
jobs:
  test:
    runs-on: ubuntu-24.04
    needs: build
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-go@v5
        with:
          go-versionfile: go.work
      - run: echo ${{ matrix.engine }}
      - run: go test ./...
        timeout_minutes: 5
`
	path := filepath.Join(dir, ".github", "workflows", "broken.yml")
	if err := os.WriteFile(path, []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	findings := lint(t, dir, []string{path})
	t.Logf("findings:\n%s", strings.Join(findings, "\n"))
	for _, want := range []string{
		"[events]",     // minute 61
		"[job-needs]",  // no job build
		"[action]",     // setup-go has no input go-versionfile
		"[expression]", // no matrix in this job
		"[syntax-check]",
	} {
		if !slices.ContainsFunc(findings, func(f string) bool { return strings.HasSuffix(f, want) }) {
			t.Errorf("no %s finding", want)
		}
	}
}
