package webtest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestNodeAtLeast(t *testing.T) {
	for _, c := range []struct {
		version string
		ok      bool
	}{
		{"v20.19.0", true}, {"v20.20.2", true}, {"v22.1.0", true}, {"v24.0.0\n", true},
		{"v20.18.3", false}, {"v18.19.0", false}, {"v20", false}, {"", false}, {"vx.y.z", false},
	} {
		if got := NodeAtLeast(c.version, MinNode); got != c.ok {
			t.Errorf("NodeAtLeast(%q, %q) = %v, want %v", c.version, MinNode, got, c.ok)
		}
	}
}

// MinNode follows package.json's engines.
func TestMinNodeIsTheConsolesEngines(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(AppDir(t), "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Engines struct{ Node string } `json:"engines"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if pkg.Engines.Node != ">="+MinNode {
		t.Errorf("package.json's engines.node is %q, webtest.MinNode %q", pkg.Engines.Node, MinNode)
	}
}

// Without node, or with one too old, the problem names the command that
// installs a recent one; in CI (CI set) Node fails on it instead of skipping.
func TestNodeProblem(t *testing.T) {
	if p := NodeProblem("/usr/bin/node", true, "v20.19.0"); p != "" {
		t.Errorf("a recent node: %q", p)
	}
	for _, c := range []struct {
		found   bool
		version string
	}{{false, ""}, {true, "v18.20.4"}, {true, ""}} {
		p := NodeProblem("/usr/bin/node", c.found, c.version)
		if !strings.Contains(p, InstallNode) || !strings.Contains(p, MinNode) {
			t.Errorf("found=%v version=%q: %q does not say how to fix it", c.found, c.version, p)
		}
	}
}

// In CI a missing node fails the test (run in a child process with an empty
// PATH, so it has no node); outside CI it skips.
func TestNodeFailsInCI(t *testing.T) {
	if os.Getenv("WEBTEST_NODE_CHILD") == "1" {
		Node(t)
		return
	}
	for _, c := range []struct {
		ci   string
		want string
	}{{"true", "--- FAIL: TestNodeFailsInCI"}, {"", "--- SKIP: TestNodeFailsInCI"}} {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestNodeFailsInCI$", "-test.v")
		cmd.Env = append(os.Environ(), "WEBTEST_NODE_CHILD=1", "PATH=", "CI="+c.ci)
		out, _ := cmd.CombinedOutput()
		if !strings.Contains(string(out), c.want) {
			t.Errorf("CI=%q: want %q in:\n%s", c.ci, c.want, out)
		}
		if c.ci != "" && !strings.Contains(string(out), InstallNode) {
			t.Errorf("CI=%q: the failure does not name the command:\n%s", c.ci, out)
		}
	}
}
