package distributed_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"marketplace/deploy/modules"
	"marketplace/libs/version"
)

// Every program knows the build it runs: `marketplace version` prints it,
// each program's own listener answers GET /version with it, and each
// program's start line carries its version and commit. The binaries are
// built from this checkout (as make builds them), so the commit is one git
// knows.
func TestEveryProgramKnowsItsVersion(t *testing.T) {
	r := start(t, testEnv(t, "LOG_LEVEL", "info"))
	out, err := exec.Command(filepath.Join(binaries(t), "marketplace"), "version", "-json").Output()
	if err != nil {
		t.Fatalf("marketplace version: %v %s", err, stderrOf(err))
	}
	var built version.Info
	if err := json.Unmarshal(out, &built); err != nil || built.Version == "" || built.Go == "" {
		t.Fatalf("marketplace version -json: %s (%v)", out, err)
	}
	if git, err := exec.LookPath("git"); err == nil && exec.Command(git, "-C", "../..", "rev-parse", "--git-dir").Run() == nil {
		if !regexp.MustCompile(`^[0-9a-f]{40}$`).MatchString(built.Commit) || exec.Command(git, "-C", "../..", "cat-file", "-e", built.Commit+"^{commit}").Run() != nil {
			t.Fatalf("built in a git checkout, yet the commit is %q", built.Commit)
		}
	}
	line, _ := exec.Command(filepath.Join(binaries(t), "marketplace"), "version").Output()
	if !strings.HasPrefix(string(line), "marketplace "+built.Version+" (commit "+built.Commit) {
		t.Errorf("marketplace version: %q", line)
	}

	urls := map[string]string{"gateway": r.BaseURL, "processor": r.ProcessorURL}
	for _, n := range modules.Names() {
		urls[n] = r.Services[n]
	}
	for name, u := range urls {
		resp, err := http.Get(u + "/version")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got version.Info
		if resp.StatusCode != 200 || json.Unmarshal(b, &got) != nil || got.Commit != built.Commit || got.Version != built.Version || got.Modified != built.Modified {
			t.Errorf("%s GET /version: %d %s, want %+v", name, resp.StatusCode, b, built)
		}
	}

	// The start lines: each program's first info line names its build.
	logs := r.log.String()
	for _, n := range append(modules.Names(), "gateway", "broker", "processor") {
		re := regexp.MustCompile(`(?m)^` + n + ` *\| (\{.*"msg":"(starting|broker ready at|processor simulator ready at)[^"]*".*\})$`)
		m := re.FindStringSubmatch(logs)
		if m == nil {
			t.Errorf("no start line of %s", n)
			continue
		}
		var l map[string]any
		if err := json.Unmarshal([]byte(m[1]), &l); err != nil || l["version"] != built.Version || l["commit"] != built.Commit {
			t.Errorf("%s's start line carries version %v commit %v, want %s %s: %s", n, l["version"], l["commit"], built.Version, built.Commit, m[1])
		}
	}
}
