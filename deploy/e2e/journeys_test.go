package e2e

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestBrowserJourneysAreSplitOff: `make test` runs this package twice (ADR
// 0176): once under the race detector skipping the browser journeys, once
// running only them, two at a time, without it. Both select the journeys
// by the Makefile's BROWSER_JOURNEYS pattern, so that pattern must name
// exactly the tests that drive Chromium (webtest.Chromium): a journey it
// missed would run under -race, one at a time, and an API test it caught
// would lose the race detector. Each journey calls t.Parallel first.
func TestBrowserJourneysAreSplitOff(t *testing.T) {
	mk, err := os.ReadFile(filepath.Join("..", "..", "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^BROWSER_JOURNEYS := (.+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("no BROWSER_JOURNEYS := line in the Makefile")
	}
	// make turns $$ into $; go test matches the pattern against each test's name.
	pattern := regexp.MustCompile(strings.ReplaceAll(string(m[1]), "$$", "$"))
	for _, want := range []string{"-skip '$(BROWSER_JOURNEYS)' $(PKGS)", "-parallel 2 -run '$(BROWSER_JOURNEYS)' ./deploy/e2e"} {
		if !strings.Contains(string(mk), want) {
			t.Errorf("the Makefile's test target lacks %q", want)
		}
	}

	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	var journeys, others []string
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			test := fn.Name.Name
			if !drivesChromium(fn.Body) {
				if pattern.MatchString(test) {
					t.Errorf("%s (%s) matches BROWSER_JOURNEYS but drives no browser: it would run without the race detector", test, name)
				}
				others = append(others, test)
				continue
			}
			journeys = append(journeys, test)
			if !pattern.MatchString(test) {
				t.Errorf("%s (%s) drives Chromium but BROWSER_JOURNEYS (%s) does not match it", test, name, pattern)
			}
			if !startsParallel(fn.Body) {
				t.Errorf("%s (%s): a journey's first statement is t.Parallel()", test, name)
			}
		}
	}
	// The journeys' own go test runs only this package: a test of another
	// package the pattern matches would be skipped by the first command and
	// never run by the second.
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	here, _ := filepath.Abs(".")
	testFunc := regexp.MustCompile(`(?m)^func (Test\w*)\(`)
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || path == here) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			if pattern.Match(m[1]) {
				t.Errorf("%s (%s) matches BROWSER_JOURNEYS outside deploy/e2e: make test would never run it", m[1], path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(journeys)
	if len(journeys) < 10 || len(others) < 100 {
		t.Fatalf("found %d journeys and %d other tests: the scan is broken", len(journeys), len(others))
	}
	t.Logf("%d browser journeys: %s", len(journeys), strings.Join(journeys, ", "))
}

// drivesChromium: the body calls webtest.Chromium.
func drivesChromium(body *ast.BlockStmt) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "Chromium" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == "webtest" {
				found = true
			}
		}
		return !found
	})
	return found
}

// startsParallel: the body's first statement is t.Parallel().
func startsParallel(body *ast.BlockStmt) bool {
	if len(body.List) == 0 {
		return false
	}
	e, ok := body.List[0].(*ast.ExprStmt)
	if !ok {
		return false
	}
	call, ok := e.X.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	return ok && sel.Sel.Name == "Parallel"
}
