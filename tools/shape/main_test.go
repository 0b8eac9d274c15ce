package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write makes the files of a tree under dir.
func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestShapeCountsAndDomainImports(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		// Outside storage: one literal, one collection call, one clock read.
		"services/shop/ops.go": "package shop\n\nfunc f() { _ = bson.M{}; db.Collection(\"x\"); _ = time.Now() }\n",
		// Inside storage: not counted.
		"services/shop/storage/repo.go": "package storage\n\nfunc g() { _ = bson.D{}; db.Collection(\"x\") }\n",
		// A domain file that imports what it may not, one that may, and a
		// test of the domain that imports the database.
		"services/shop/domain/bad.go":      "package domain\n\nimport (\n\t\"context\"\n\t\"strings\"\n\t\"go.mongodb.org/mongo-driver/bson\"\n)\n",
		"services/shop/domain/good.go":     "package domain\n\nimport (\n\t\"time\"\n\t\"marketplace/libs/apperr\"\n\t\"marketplace/libs/storefront\"\n)\n",
		"services/shop/domain/bad_test.go": "package domain\n\nimport \"marketplace/libs/store\"\n",
		"services/shop/ops_test.go":        "package shop\n\nimport \"context\"\n\nfunc h() { _ = bson.M{} }\n",
		"libs/store/store.go":              "package store\n\n// two\n",
		"libs/store/store_test.go":         "package store\n\n\n\n\n",
		"libs/other/other.go":              "package other\n",
		"libs/other/node_modules/x/x.go":   "package x\n\n\n\n",
	})
	t.Chdir(dir)
	var out bytes.Buffer
	err := run(&out)
	if !errors.Is(err, errDomainImports) {
		t.Errorf("run: %v, want errDomainImports", err)
	}
	report := out.String()
	for _, want := range []string{
		"domain import: services/shop/domain/bad.go imports context\n",
		"domain import: services/shop/domain/bad.go imports go.mongodb.org/mongo-driver/bson\n",
		"domain import: services/shop/domain/bad_test.go imports marketplace/libs/store\n",
		"domain packages importing storage, transport or contexts: 3\n",
	} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	lines := strings.Split(strings.TrimSpace(report), "\n")
	if last, want := lines[len(lines)-1], "shape: bson outside repositories 1, collection calls outside repositories 1, libs 4, store 3"; last != want {
		t.Errorf("last line %q, want %q", last, want)
	}
	if !strings.Contains(report, "shop") || !strings.Contains(report, "     1      1      1\n") {
		t.Errorf("the service's row lacks its bson, colls and now counts:\n%s", report)
	}
}

func TestForbidden(t *testing.T) {
	for path, want := range map[string]bool{
		"context": true, "net/http": true, "net/http/httptest": true, "net/url": false,
		"go.mongodb.org/mongo-driver/mongo": true, "github.com/256dpi/lungo/bsonkit": true,
		"marketplace/libs/store": true, "marketplace/libs/storefront": false, "marketplace/libs/ops": true,
		"marketplace/libs/events": true, "marketplace/libs/apperr": false, "marketplace/libs/money": false,
		"time": false, "contextual": false,
	} {
		if got := forbidden(path); got != want {
			t.Errorf("forbidden(%q) = %v, want %v", path, got, want)
		}
	}
}

// The repository's own domain packages keep the rule.
func TestRepositoryDomainPackages(t *testing.T) {
	t.Chdir("../..")
	var out bytes.Buffer
	if err := run(&out); err != nil {
		t.Fatalf("%v:\n%s", err, out.String())
	}
}
