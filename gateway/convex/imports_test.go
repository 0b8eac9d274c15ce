package convex

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The layer is tied to the gateway by convex.Host alone: no file of it (nor
// of the packages both share, gateway/internal) imports the gateway, so no
// import runs back.
func TestNoImportRunsBackToTheGateway(t *testing.T) {
	dirs := []string{"."}
	internal, err := filepath.Glob("../internal/*")
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, internal...)
	files := 0
	for _, dir := range dirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			src, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, imp := range f.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				if path == "marketplace/gateway" || (strings.HasPrefix(dir, "../internal") && path == "marketplace/gateway/convex") {
					t.Errorf("%s imports %s", name, path)
				}
			}
		}
	}
	if files < 10 {
		t.Fatalf("read only %d files", files)
	}
}
