// Command shape measures how far the services are from the layout of
// docs/adr (domain, storage, operations) and how large the platform is:
// BSON literals and collection calls outside the repositories, clock reads
// outside the service's clock, and non-test lines of libs/ and libs/store.
// It also holds the domain packages to their rule: a file under a service's
// domain/ (tests included) imports nothing of the database, the driver, the
// operations, the events, contexts or HTTP (forbiddenInDomain); each such
// import is printed and makes shape exit with status 1, after its report.
//
// Run from the repository's root (make shape). The last line is
//
//	shape: bson outside repositories N, collection calls outside repositories M, libs L, store S
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// bsonTypes are the composite literals that build filters and updates.
var bsonTypes = map[string]bool{"M": true, "D": true, "A": true, "E": true}

type counts struct{ bson, coll, now, lines int }

// forbiddenInDomain are the import paths (a path or a prefix ending in "/")
// a domain package may not use: its types hold the rules and know nothing of
// storage, transport or the request's context (docs/adr/0002).
var forbiddenInDomain = []string{
	"context", "net/http", "net/http/",
	"go.mongodb.org/", "github.com/256dpi/lungo", "github.com/256dpi/lungo/", "go.etcd.io/bbolt",
	"github.com/gofiber/", "github.com/segmentio/kafka-go",
	"marketplace/libs/store", "marketplace/libs/store/", "marketplace/libs/ops", "marketplace/libs/ops/",
	"marketplace/libs/events", "marketplace/libs/events/", "marketplace/libs/liveset",
	"marketplace/libs/service", "marketplace/libs/httpserver",
}

// errDomainImports makes main exit with status 1 once the report is printed.
var errDomainImports = errors.New("a domain package imports what it may not (listed above)")

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	if err := os.Chdir(*root); err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(1)
	}
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(1)
	}
}

func run(out io.Writer) error {
	services := map[string]*counts{}
	var badImports []string
	if err := walkFiles("services", true, func(path string, src []byte) error {
		if inDomain(path) {
			bad, err := domainImports(path, src)
			if err != nil {
				return err
			}
			badImports = append(badImports, bad...)
		}
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		name := strings.Split(filepath.ToSlash(path), "/")[1]
		c := services[name]
		if c == nil {
			c = &counts{}
			services[name] = c
		}
		c.lines += bytes.Count(src, []byte("\n"))
		if inRepository(path) {
			return nil
		}
		return measure(path, src, c)
	}); err != nil {
		return err
	}
	libs := map[string]int{}
	store := 0
	if err := walkFiles("libs", false, func(path string, src []byte) error {
		n := bytes.Count(src, []byte("\n"))
		parts := strings.Split(filepath.ToSlash(path), "/")
		libs[parts[1]] += n
		if filepath.ToSlash(filepath.Dir(path)) == "libs/store" {
			store += n
		}
		return nil
	}); err != nil {
		return err
	}

	var total counts
	fmt.Fprintf(out, "%-16s %6s %6s %6s %6s\n", "service", "lines", "bson", "colls", "now")
	for _, name := range sorted(services) {
		c := services[name]
		fmt.Fprintf(out, "%-16s %6d %6d %6d %6d\n", name, c.lines, c.bson, c.coll, c.now)
		total.lines += c.lines
		total.bson += c.bson
		total.coll += c.coll
		total.now += c.now
	}
	fmt.Fprintf(out, "%-16s %6d %6d %6d %6d\n\n", "services", total.lines, total.bson, total.coll, total.now)
	libTotal := 0
	fmt.Fprintf(out, "%-16s %6s\n", "lib", "lines")
	for _, name := range sorted(libs) {
		fmt.Fprintf(out, "%-16s %6d\n", name, libs[name])
		libTotal += libs[name]
	}
	fmt.Fprintf(out, "%-16s %6d\n\n", "libs", libTotal)
	for _, b := range badImports {
		fmt.Fprintln(out, "domain import:", b)
	}
	fmt.Fprintf(out, "domain packages importing storage, transport or contexts: %d\n", len(badImports))
	fmt.Fprintf(out, "shape: bson outside repositories %d, collection calls outside repositories %d, libs %d, store %d\n",
		total.bson, total.coll, libTotal, store)
	if len(badImports) > 0 {
		return errDomainImports
	}
	return nil
}

// inDomain says whether a file belongs to a service's domain package
// (services/<svc>/domain/...).
func inDomain(path string) bool {
	parts := strings.Split(filepath.ToSlash(path), "/")
	return len(parts) > 3 && parts[2] == "domain"
}

// domainImports lists a domain file's imports that forbiddenInDomain names,
// as "file imports path".
func domainImports(path string, src []byte) ([]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.ImportsOnly)
	if err != nil {
		return nil, err
	}
	var bad []string
	for _, imp := range f.Imports {
		p, err := strconv.Unquote(imp.Path.Value)
		if err != nil {
			return nil, err
		}
		if forbidden(p) {
			bad = append(bad, filepath.ToSlash(path)+" imports "+p)
		}
	}
	return bad, nil
}

func forbidden(importPath string) bool {
	for _, f := range forbiddenInDomain {
		if importPath == f || strings.HasSuffix(f, "/") && strings.HasPrefix(importPath, f) {
			return true
		}
	}
	return false
}

// inRepository says whether a file belongs to a service's storage package,
// the only code that may build filters, updates and indexes.
func inRepository(path string) bool {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for _, p := range parts[2 : len(parts)-1] {
		if p == "storage" {
			return true
		}
	}
	return false
}

// measure counts bson.M/D/A/E literals, .Collection(...) calls and
// time.Now() calls in one file.
func measure(path string, src []byte, c *counts) error {
	f, err := parser.ParseFile(token.NewFileSet(), path, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && isIdent(sel.X, "bson") && bsonTypes[sel.Sel.Name] {
				c.bson++
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				switch {
				case sel.Sel.Name == "Collection":
					c.coll++
				case sel.Sel.Name == "Now" && isIdent(sel.X, "time"):
					c.now++
				}
			}
		}
		return true
	})
	return nil
}

func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// walkFiles calls fn on every Go file under root (test files only when tests
// is set), skipping node_modules and testdata.
func walkFiles(root string, tests bool, fn func(path string, src []byte) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "node_modules" || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || !tests && strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return fn(path, src)
	})
}

func sorted[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
