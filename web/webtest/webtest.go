// Package webtest is what tests of the console need around it: the app's
// folder, its npm packages installed from its lock (once, whichever test
// asks first; tests of several packages may ask at once) and a Chromium for
// Playwright to drive. Only tests import it.
package webtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// AppDir is the console's folder, web/console.
func AppDir(tb testing.TB) string {
	tb.Helper()
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("webtest: cannot locate its own source")
	}
	return filepath.Join(filepath.Dir(self), "..", "console")
}

// Node returns the paths of node and npm. Where they are missing or node is
// too old the test skips, loudly (as the repository's other npm-based tests
// do), except in CI (CI set), where it fails with the command that fixes
// it: a CI run must never pass without the console's journeys.
func Node(tb testing.TB) (node, npm string) {
	tb.Helper()
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	version := ""
	if nodeErr == nil {
		// Debian 12's own nodejs is 18: npm ci installs the packages anyway (an
		// engines warning) and Vite then fails with an error about something else.
		out, _ := exec.Command(node, "--version").Output()
		version = strings.TrimSpace(string(out))
	}
	problem := NodeProblem(node, nodeErr == nil && npmErr == nil, version)
	if problem == "" {
		return node, npm
	}
	if os.Getenv("CI") != "" {
		tb.Fatalf("%s: %s (CI is set: the console's tests must run)", tb.Name(), problem)
	}
	msg := "SKIPPING " + tb.Name() + ": " + problem
	fmt.Fprintln(os.Stderr, msg)
	tb.Skip(msg)
	return "", ""
}

// InstallNode is the command that installs a node recent enough on Debian
// (its own nodejs package is 18 on Debian 12): NodeSource's packages.
const InstallNode = "curl -fsSL https://deb.nodesource.com/setup_22.x | sudo -E bash - && sudo apt-get install -y nodejs"

// NodeProblem says why the console's tests cannot run with this node (found:
// node and npm are on PATH; version: `node --version`), with the command
// that fixes it, or "" when they can.
func NodeProblem(node string, found bool, version string) string {
	if !found {
		return fmt.Sprintf("node (%s or later) and npm are needed for the console: install them with `%s`", MinNode, InstallNode)
	}
	if !NodeAtLeast(version, MinNode) {
		return fmt.Sprintf("the console's build and tests need node %s or later (package.json's engines), %s has %q: install a newer one with `%s`", MinNode, node, version, InstallNode)
	}
	return ""
}

// MinNode is the oldest node the console's packages run on (package.json's
// engines: Vite's own floor).
const MinNode = "20.19"

// NodeAtLeast reads `node --version` ("v20.19.2") against a minimum ("20.19").
func NodeAtLeast(version, min string) bool {
	have := strings.Split(strings.TrimPrefix(strings.TrimSpace(version), "v"), ".")
	want := strings.Split(min, ".")
	for i, w := range want {
		wn, err := strconv.Atoi(w)
		if err != nil {
			return false
		}
		if i >= len(have) {
			return wn == 0
		}
		hn, err := strconv.Atoi(have[i])
		if err != nil {
			return false
		}
		if hn != wn {
			return hn > wn
		}
	}
	return true
}

// Install runs npm ci in the console's folder unless node_modules was
// installed from the same package-lock.json already. A lock file serialises
// installs of tests running at once in other packages.
func Install(tb testing.TB) string {
	tb.Helper()
	return InstallIn(tb, AppDir(tb))
}

// InstallIn is Install for another folder with a package.json and a
// package-lock.json of its own (tools/openapi, for instance).
func InstallIn(tb testing.TB, dir string) string {
	tb.Helper()
	_, npm := Node(tb)
	lockFile, err := os.OpenFile(filepath.Join(dir, ".install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	defer lockFile.Close()
	if err := syscall.Flock(int(lockFile.Fd()), syscall.LOCK_EX); err != nil {
		tb.Fatal(err)
	}
	defer syscall.Flock(int(lockFile.Fd()), syscall.LOCK_UN)
	lock, err := os.ReadFile(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		tb.Fatal(err)
	}
	stamp := filepath.Join(dir, "node_modules", ".installed-lock.json")
	if have, err := os.ReadFile(stamp); err == nil && bytes.Equal(have, lock) {
		return dir
	}
	Run(tb, dir, 10*time.Minute, nil, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	if err := os.WriteFile(stamp, lock, 0o644); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// Chromium is Debian's chromium, which Playwright drives (its own browser
// download cannot work on these machines). CHROMIUM names another binary.
// Where it is missing, root installs it with apt-get; anyone else is told
// the command.
func Chromium(tb testing.TB) string {
	tb.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	const bin = "/usr/bin/chromium"
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	const cmd = "apt-get update && apt-get install -y chromium"
	if os.Geteuid() != 0 {
		tb.Fatalf("Chromium is missing (%s): install it with `sudo sh -c '%s'`, or set CHROMIUM to a Chromium binary", bin, cmd)
	}
	// Tests of several packages may ask at once (web/console's and
	// deploy/e2e's): one installs, the others wait for it and find it.
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "webtest-chromium.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		tb.Fatal(err)
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(bin); err == nil {
		return bin
	}
	tb.Logf("installing Chromium: %s", cmd)
	env := []string{"DEBIAN_FRONTEND=noninteractive"}
	Run(tb, "/", 15*time.Minute, env, "sh", "-c", cmd)
	if _, err := os.Stat(bin); err != nil {
		tb.Fatalf("Chromium is still missing after %s: %v", cmd, err)
	}
	return bin
}

// BrowserRun bounds a file of browser journeys (node --test on one .mjs):
// only a hung run meets it. Each wait inside has its own bound (WAIT in
// web/console/e2e/browser.mjs). A file takes about a minute on a quiet
// machine; at a load average of 30 on 2 cores (other builds and tests
// running) each axe-core run took 30-120 s and the administrators' journeys
// passed 5 minutes after two of their seven, when this was 5 minutes.
const BrowserRun = 20 * time.Minute

// Run runs a command in dir and fails the test when it fails; its output is
// logged either way (go test -v shows it).
func Run(tb testing.TB, dir string, timeout time.Duration, env []string, name string, args ...string) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	tb.Logf("%s %s:\n%s", filepath.Base(name), strings.Join(args, " "), out)
	if err != nil {
		tb.Fatalf("%s %s: %v (output above)", filepath.Base(name), strings.Join(args, " "), err)
	}
	return string(out)
}

// Screenshots are the environment a browser test photographs with:
// SCREENSHOTS, where this run writes its pictures (a temporary folder, so
// `make test` leaves the checkout as it was, or docs/console itself when
// UPDATE_SCREENSHOTS=1), and SCREENSHOTS_DOCS, docs/console, where a
// picture missing from the documentation is written too.
func Screenshots(tb testing.TB) []string {
	tb.Helper()
	docs, err := filepath.Abs(filepath.Join(AppDir(tb), "..", "..", "docs", "console"))
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	if os.Getenv("UPDATE_SCREENSHOTS") == "1" {
		dir = docs
	}
	return []string{"SCREENSHOTS=" + dir, "SCREENSHOTS_DOCS=" + docs}
}
