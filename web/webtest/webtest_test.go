package webtest

import (
	"encoding/json"
	"os"
	"path/filepath"
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
