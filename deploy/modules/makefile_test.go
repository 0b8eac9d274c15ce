package modules

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
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

// `make token` builds bin/marketplace only when it is older than the files it
// is built from: a second run prints the token without a go build (the
// binary's modification time stays), `make -s` prints nothing but the token,
// without SUB it says how to name the user, and a binary older than its
// sources is rebuilt (make -n says go build).
// BIN points the Makefile at a binary of the test's own.
func TestMakeTokenReusesAnUpToDateBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the all-in-one binary")
	}
	makeBin, err := exec.LookPath("make")
	if err != nil {
		t.Fatal("make is needed (the README's commands are make targets)")
	}
	bin := filepath.Join(t.TempDir(), "marketplace")
	var env []string
	for _, kv := range os.Environ() {
		// An outer make's (make test) flags and jobserver are not this one's.
		if k, _, _ := strings.Cut(kv, "="); k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" && k != "AUTH_DEV_SECRET" {
			env = append(env, kv)
		}
	}
	env = append(env, "AUTH_DEV_SECRET=makefile-test-secret-0123456789abcdef", "DATA_DIR="+t.TempDir())
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(makeBin, append(append([]string{"--no-print-directory", "-C", root}, args...), "BIN="+bin)...)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("make %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr.String())
		}
		return string(out)
	}
	jwt := regexp.MustCompile(`^[\w-]+\.[\w-]+\.[\w-]+\n$`)
	// The first run builds, and still prints nothing but the token, without
	// -s too (TOKEN=$(make token)).
	if out := run("token", "SUB=make-test-user"); !jwt.MatchString(out) {
		t.Fatalf("make token (building the binary) printed %q, not just a token", out)
	}
	built, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	// Without SUB: how to name the user, in make's terms (not the binary's -sub).
	noSub := exec.Command(makeBin, "--no-print-directory", "-C", root, "-s", "token", "BIN="+bin)
	noSub.Env = env
	if out, err := noSub.CombinedOutput(); err == nil || !strings.Contains(string(out), "make token SUB=<user id> [ROLES=admin]") || strings.Contains(string(out), "Usage: marketplace") {
		t.Fatalf("make token without SUB: %v\n%s", err, out)
	}
	if out := run("-n", "token", "SUB=make-test-user"); strings.Contains(out, "go build") {
		t.Fatalf("make -n token on an up-to-date binary would build:\n%s", out)
	}
	// A file that is not a source, made in a package's folder while the
	// binary is up to date (npm's node_modules in web/console, by a test
	// running beside this one), does not rebuild it.
	stray, err := os.CreateTemp(filepath.Join(root, "web", "console"), ".makefile-test-*")
	if err != nil {
		t.Fatal(err)
	}
	stray.Close()
	t.Cleanup(func() { os.Remove(stray.Name()) })
	if out := run("-n", "token", "SUB=make-test-user"); strings.Contains(out, "go build") {
		t.Fatalf("make -n token after a file that is not a source appeared would build:\n%s", out)
	}
	if out := run("-s", "token", "SUB=make-test-user"); !jwt.MatchString(out) {
		t.Fatalf("the second make -s token printed %q", out)
	}
	again, err := os.Stat(bin)
	if err != nil || !again.ModTime().Equal(built.ModTime()) {
		t.Fatalf("the second make token rebuilt the binary (modified %s, then %s): %v", built.ModTime(), again.ModTime(), err)
	}
	// A change to any file it is built from rebuilds it (make -W: as if that
	// file had just changed): a file of an imported workspace package, an
	// embedded file, a module's go.mod and go.sum, go.work. make run always
	// builds.
	// The Makefile names them as go list does, by absolute path; go.work as
	// it is in the root.
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{
		filepath.Join(abs, "libs", "apperr", "apperr.go"),
		filepath.Join(abs, "web", "apidocs", "docs.css"),
		filepath.Join(abs, "libs", "go.mod"),
		filepath.Join(abs, "gateway", "go.sum"),
		"go.work",
	} {
		if out := run("-n", "-W", f, "token", "SUB=make-test-user"); !strings.Contains(out, "go build") {
			t.Errorf("make -n token with %s changed would not build:\n%s", f, out)
		}
	}
	// A source removed: the list beside the binary differs from the one go
	// list gives now (one name more), so it is rewritten and the binary rebuilt.
	list, err := os.ReadFile(bin + ".srcs")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin+".srcs", append(list, " /removed/source.go"...), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(bin+".srcs", old, old); err != nil {
		t.Fatal(err)
	}
	if out := run("-n", "token", "SUB=make-test-user"); !strings.Contains(out, "go build") {
		t.Errorf("make -n token with a source removed would not build:\n%s", out)
	}
	if out := run("-n", "run"); !strings.Contains(out, "go build") {
		t.Errorf("make -n run on an up-to-date binary would not build:\n%s", out)
	}
	// Older than its sources: rebuilt.
	old = time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(bin, old, old); err != nil {
		t.Fatal(err)
	}
	if out := run("-n", "token", "SUB=make-test-user"); !strings.Contains(out, "go build -buildvcs=auto -o "+bin+" ./deploy/cmd/marketplace") {
		t.Fatalf("make -n token on a binary older than its sources would not build:\n%s", out)
	}
}
