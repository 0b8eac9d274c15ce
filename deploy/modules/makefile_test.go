package modules

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every target the Makefile declares phony has a rule and a `##` line for
// `make help`, and every `##` line names a target that exists.
func TestMakefileTargetsAreRealAndDocumented(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	rules, documented := map[string]bool{}, map[string]bool{}
	var phony []string
	rule := regexp.MustCompile(`^([a-z][a-z-]*):`)
	doc := regexp.MustCompile(`^## ([a-z][a-z-]*):`)
	for _, line := range strings.Split(string(raw), "\n") {
		if m := doc.FindStringSubmatch(line); m != nil {
			documented[m[1]] = true
		} else if m := rule.FindStringSubmatch(line); m != nil && !strings.Contains(line, ":=") {
			rules[m[1]] = true
		}
		if rest, ok := strings.CutPrefix(line, ".PHONY:"); ok {
			phony = append(phony, strings.Fields(rest)...)
		}
	}
	for _, p := range phony {
		if !rules[p] {
			t.Errorf("%s is declared .PHONY but has no rule", p)
		}
	}
	for r := range rules {
		if !documented[r] {
			t.Errorf("target %s has no ## line for make help", r)
		}
	}
	for d := range documented {
		if !rules[d] {
			t.Errorf("## %s documents a target that does not exist", d)
		}
	}
}
