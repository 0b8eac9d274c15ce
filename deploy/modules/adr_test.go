package modules

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// The form every decision record keeps (docs/adr/0001-decisions-as-records.md).
const (
	maxRecordLines = 80
	maxRecordWidth = 100
)

var (
	recordName  = regexp.MustCompile(`^(\d{4})-[a-z0-9]+(-[a-z0-9]+)*\.md$`)
	recordTitle = regexp.MustCompile(`^# (\d{4})\. \S`)
	recordState = regexp.MustCompile(`^Status: (Accepted|Superseded by (\d{4}))$`)
	recordLink  = regexp.MustCompile(`\]\(((\d{4})-[^)/]*\.md)\)`)
)

// TestDecisionRecords holds docs/adr to its form: each record has its number
// in its name and title, a Status, the Context, Decision and Consequences
// headings in that order, at most 80 lines of at most 100 characters; the
// index (docs/adr/README.md) lists every record and names no missing one;
// links between records name existing records.
func TestDecisionRecords(t *testing.T) {
	dir := filepath.Join(root, "docs", "adr")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	records := map[string]string{} // file name -> number
	numbers := map[string]string{} // number -> file name
	for _, e := range entries {
		if e.IsDir() || e.Name() == "README.md" {
			continue
		}
		m := recordName.FindStringSubmatch(e.Name())
		if m == nil {
			t.Errorf("docs/adr/%s: not a record name (NNNN-short-title.md) and not README.md", e.Name())
			continue
		}
		if other, ok := numbers[m[1]]; ok {
			t.Errorf("docs/adr/%s and %s have the same number", e.Name(), other)
		}
		records[e.Name()], numbers[m[1]] = m[1], e.Name()
	}
	if len(records) == 0 {
		t.Fatal("docs/adr holds no records")
	}
	if _, err := os.Stat(filepath.Join(root, "docs", "decisions.md")); err == nil {
		t.Error("docs/decisions.md is back: decisions are records in docs/adr")
	}

	for name, number := range records {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, problem := range checkRecord(number, string(raw), numbers) {
			t.Errorf("docs/adr/%s: %s", name, problem)
		}
	}

	index, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	for _, m := range recordLink.FindAllStringSubmatch(string(index), -1) {
		listed[m[1]] = true
		if _, ok := records[m[1]]; !ok {
			t.Errorf("docs/adr/README.md lists %s, which does not exist", m[1])
		}
	}
	for name := range records {
		if !listed[name] {
			t.Errorf("docs/adr/%s is not listed in docs/adr/README.md", name)
		}
	}
	for i, line := range strings.Split(string(index), "\n") {
		if n := utf8.RuneCountInString(line); n > maxRecordWidth {
			t.Errorf("docs/adr/README.md:%d: %d characters (at most %d)", i+1, n, maxRecordWidth)
		}
	}
}

// checkRecord returns what is wrong with one record's text.
func checkRecord(number, text string, numbers map[string]string) []string {
	var problems []string
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) > maxRecordLines {
		problems = append(problems, fmt.Sprintf("has %d lines (at most %d: split it or say less)", len(lines), maxRecordLines))
	}
	if m := recordTitle.FindStringSubmatch(lines[0]); m == nil || m[1] != number {
		problems = append(problems, "the first line must be the title `# "+number+". ...`")
	}
	status := false
	headings := []string{"## Context", "## Decision", "## Consequences"}
	next := 0
	for i, line := range lines {
		if n := utf8.RuneCountInString(line); n > maxRecordWidth {
			problems = append(problems, fmt.Sprintf("line %d has %d characters (at most %d)", i+1, n, maxRecordWidth))
		}
		if m := recordState.FindStringSubmatch(line); m != nil && next == 0 {
			status = true
			if m[2] != "" {
				if _, ok := numbers[m[2]]; !ok {
					problems = append(problems, "superseded by "+m[2]+", which does not exist")
				}
			}
		}
		if strings.HasPrefix(line, "## ") {
			if next < len(headings) && line == headings[next] {
				next++
			} else {
				problems = append(problems, fmt.Sprintf("line %d: heading %q where %s was due", i+1, line, expected(headings, next)))
			}
		}
		for _, m := range recordLink.FindAllStringSubmatch(line, -1) {
			if numbers[m[2]] != m[1] {
				problems = append(problems, fmt.Sprintf("line %d links to %s, which does not exist", i+1, m[1]))
			}
		}
	}
	if !status {
		problems = append(problems, "no `Status: Accepted` or `Status: Superseded by NNNN` line before Context")
	}
	if next < len(headings) {
		problems = append(problems, "lacks the heading "+headings[next]+" (Context, Decision, Consequences, in that order)")
	}
	return problems
}

func expected(headings []string, next int) string {
	if next < len(headings) {
		return headings[next]
	}
	return "no further heading"
}

// TestCommitMsgHook: .githooks/commit-msg (make hooks) refuses a subject over
// 72 characters and accepts everything else a commit may start with.
func TestCommitMsgHook(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	hook, err := filepath.Abs(filepath.Join(root, ".githooks", "commit-msg"))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 73)
	for _, c := range []struct {
		name, message string
		ok            bool
	}{
		{"short", "docs/adr: one record per decision\n\nThe story, as long as it needs.\n", true},
		{"72 characters", strings.Repeat("x", 72) + "\n", true},
		{"72 characters, not bytes", strings.Repeat("é", 72) + "\n", true},
		{"73 characters", long + "\n", false},
		{"after comments and blank lines", "# Please enter the commit message\n\n" + long + "\n", false},
		{"CRLF", strings.Repeat("x", 72) + "\r\n", true},
		{"no final newline", long, false},
		{"empty (git aborts the commit itself)", "# nothing\n", true},
		{"fixup of a subject of 72", "fixup! " + strings.Repeat("x", 72) + "\n", true},
		{"fixup of a long subject", "squash! " + long + "\n", false},
		{"merge written by git", "Merge remote-tracking branch 'origin/a-very-long-branch-name-for-this-test' into main\n", true},
		{"revert written by git", "Revert \"" + strings.Repeat("x", 72) + "\"\n", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "COMMIT_EDITMSG")
			if err := os.WriteFile(file, []byte(c.message), 0o600); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bash, hook, file).CombinedOutput()
			if c.ok && err != nil {
				t.Errorf("refused: %v\n%s", err, out)
			}
			if !c.ok && (err == nil || !strings.Contains(string(out), "at most 72")) {
				t.Errorf("accepted (%v): %q\n%s", err, c.message, out)
			}
		})
	}
}

// TestNothingPointsAtDecisionsFile: docs/decisions.md became the records of
// docs/adr, so no comment, document or script names it any more (a branch
// written before the change brings such a reference back when it merges).
// CHANGELOG.md's entries are history and keep their words.
// decisionsFile is a mention of docs/decisions.md, not of a record whose
// name ends the same way (0161-bulk-payout-decisions.md).
var decisionsFile = regexp.MustCompile(`(^|[^-\w])decisions\.md`)

func TestNothingPointsAtDecisionsFile(t *testing.T) {
	skipDirs := map[string]bool{".git": true, "node_modules": true, "bin": true, "dist": true, "data": true, "third_party": true, "adr": true}
	texts := map[string]bool{".go": true, ".md": true, ".sh": true, ".yml": true, ".yaml": true, ".ts": true, ".tsx": true, ".mjs": true, ".txt": true, "": true}
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (skipDirs[d.Name()] || strings.HasPrefix(d.Name(), ".") && d.Name() != ".githooks" && d.Name() != ".ci" && d.Name() != ".github") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		if !texts[filepath.Ext(path)] && d.Name() != ".gitattributes" || rel == "CHANGELOG.md" || rel == filepath.Join("deploy", "modules", "adr_test.go") {
			return nil
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(raw), "\n") {
			if decisionsFile.MatchString(line) {
				t.Errorf("%s:%d names decisions.md: point at the record in docs/adr that holds the rule (docs/adr/README.md lists them)", rel, i+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
