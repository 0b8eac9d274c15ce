package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

var consoleOnly = flag.Bool("console-only", false, "run only the console rows (first-load script and the first payout queue, in Chromium)")

// consoleResult is what web/console/e2e/bench.mjs measured in the browser.
type consoleResult struct {
	ScriptBytes  int64   `json:"scriptBytes"`  // gzipped script fetched by the first load, as sent
	Scripts      int     `json:"scripts"`      // files
	FirstQueueMs float64 `json:"firstQueueMs"` // navigation start to the payout queue on screen
	skipped      string
}

// runConsoleOnly runs and prints the console rows alone.
func runConsoleOnly(base string, tok func(sub string, roles ...string) string) error {
	printConsole(benchConsole(base, tok))
	return nil
}

// benchConsole opens the admin console once in Debian's Chromium (driven by
// playwright-core from web/console's packages, as the browser tests do):
// the script its first load fetches, gzipped as the gateway sends it, and
// the time from navigation to the first rendered payout queue, on loopback.
// One cold run: a figure to watch, not a timed test. Skipped, saying why,
// without node, Chromium or the app's packages.
func benchConsole(base string, tok func(sub string, roles ...string) string) consoleResult {
	node, err := exec.LookPath("node")
	if err != nil {
		return consoleResult{skipped: "node is missing (apt-get install -y nodejs npm)"}
	}
	chromium := os.Getenv("CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	if _, err := os.Stat(chromium); err != nil {
		return consoleResult{skipped: "Chromium is missing (apt-get install -y chromium, or CHROMIUM=<binary>)"}
	}
	app := filepath.Join("web", "console")
	if _, err := os.Stat(filepath.Join(app, "node_modules", "playwright-core")); err != nil {
		return consoleResult{skipped: "web/console's packages are missing (cd web/console && npm ci --ignore-scripts)"}
	}
	cmd := exec.Command(node, filepath.Join("e2e", "bench.mjs"))
	cmd.Dir = app
	cmd.Env = append(os.Environ(), "CONSOLE_URL="+base, "CHROMIUM="+chromium, "ADMIN_TOKEN="+tok("bench-console-admin", "admin"))
	out, err := cmd.Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return consoleResult{skipped: fmt.Sprintf("the browser run failed: %v: %s", err, strings.TrimSpace(string(exit.Stderr)))}
		}
		return consoleResult{skipped: err.Error()}
	}
	var r consoleResult
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
		return consoleResult{skipped: fmt.Sprintf("unreadable measurement %q: %v", out, err)}
	}
	return r
}

func printConsole(r consoleResult) {
	if r.skipped != "" {
		fmt.Printf("%-46s %s\n", "(console) first load and first payout queue", "skipped: "+r.skipped)
		return
	}
	fmt.Printf("%-46s %10s   (%d files, gzipped as sent; budget 350 KB)\n", "(console) first-load script", fmt.Sprintf("%.1f KB", float64(r.ScriptBytes)/1024), r.Scripts)
	fmt.Printf("%-46s %10v   (Chromium, loopback, one cold run: navigation to the queue on screen)\n", "(console) first payout queue rendered", time.Duration(r.FirstQueueMs*float64(time.Millisecond)).Round(time.Millisecond))
}
