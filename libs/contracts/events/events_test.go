package events

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/libs/events"
)

// Every Event* string constant of the contract packages is an event type
// listed in All, once, with a payload that is a struct.
func TestEveryDeclaredEventTypeIsListed(t *testing.T) {
	listed := map[string]int{}
	for _, e := range All {
		listed[e.Type]++
		if e.Payload.Kind() != reflect.Struct {
			t.Errorf("%s: payload %s is not a struct", e.Type, e.Payload)
		}
		if e.Topic == "" || e.Producer == "" {
			t.Errorf("%s: no topic or producer", e.Type)
		}
	}
	files, err := filepath.Glob("../*/*.go")
	if err != nil {
		t.Fatal(err)
	}
	declared := 0
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || filepath.Base(filepath.Dir(f)) == "events" {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, spec := range g.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if !strings.HasPrefix(n.Name, "Event") || i >= len(vs.Values) {
						continue
					}
					lit, ok := vs.Values[i].(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					v, _ := strconv.Unquote(lit.Value)
					declared++
					if listed[v] != 1 {
						t.Errorf("%s (%s, %s) is listed %d times in events.All", v, n.Name, f, listed[v])
					}
				}
			}
		}
	}
	if declared != len(All) {
		t.Errorf("%d event types declared, %d listed", declared, len(All))
	}
}

// Every event type declares the major version it is published in; an older
// version still published is below it, once, with a payload struct and the
// date its window lasts until; Versions is what an outbox takes.
func TestEveryEventTypeDeclaresItsVersions(t *testing.T) {
	for _, e := range All {
		if e.Version < 1 {
			t.Errorf("%s: version %d", e.Type, e.Version)
		}
		for _, o := range e.Older {
			if o.Version < 1 || o.Version >= e.Version {
				t.Errorf("%s: older version %d, current %d", e.Type, o.Version, e.Version)
			}
			if o.Payload == nil || o.Payload.Kind() != reflect.Struct {
				t.Errorf("%s v%d: payload %v is not a struct", e.Type, o.Version, o.Payload)
			}
			if _, err := time.Parse(time.DateOnly, o.Until); err != nil {
				t.Errorf("%s v%d: the window's end %q is not a date: %v", e.Type, o.Version, o.Until, err)
			}
		}
	}
	vs := Versions()
	if err := events.Versions(vs).Check(); err != nil {
		t.Fatal(err)
	}
	if len(vs) != len(All) {
		t.Errorf("%d types versioned, %d listed", len(vs), len(All))
	}
	for _, e := range All {
		if got := vs[e.Type]; len(got) == 0 || got[0] != e.Version {
			t.Errorf("%s: published in %v, current version %d", e.Type, got, e.Version)
		}
	}
}
