package modules

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"marketplace/gateway"
	"marketplace/libs/config"
	"marketplace/libs/program"
)

// readVariables are the environment variables the programs read: the common
// program configuration, the gateway's, and every module's own settings.
func readVariables() map[string]string {
	out := map[string]string{}
	add := func(owner string, cfg any) {
		for _, v := range config.Variables(cfg) {
			out[v] = owner
		}
	}
	add("program", &program.Config{})
	add("gateway", &gateway.Config{})
	for _, m := range All {
		if m.Settings != nil {
			add(m.Name, m.Settings())
		}
	}
	return out
}

// documentedVariables are the variables named in the first column of the
// README's configuration table.
func documentedVariables(t *testing.T) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Configuration\n")
	if !ok {
		t.Fatal("README.md has no ## Configuration section")
	}
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]*)`")
	out := map[string]bool{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(cells[1], -1) {
			out[m[1]] = true
		}
	}
	if len(out) == 0 {
		t.Fatal("README.md's configuration table names no variable")
	}
	return out
}

// The README's configuration table lists every variable the programs read,
// and nothing they do not.
func TestReadmeListsEveryVariable(t *testing.T) {
	read, documented := readVariables(), documentedVariables(t)
	var missing, extra []string
	for v, owner := range read {
		if !documented[v] {
			missing = append(missing, v+" ("+owner+")")
		}
	}
	for v := range documented {
		if _, ok := read[v]; !ok {
			extra = append(extra, v)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	if len(missing) > 0 {
		t.Errorf("read by the programs but not in README.md's configuration table: %v", missing)
	}
	if len(extra) > 0 {
		t.Errorf("in README.md's configuration table but read by no program: %v", extra)
	}
}
