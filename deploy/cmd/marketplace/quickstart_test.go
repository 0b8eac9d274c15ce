package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/libs/logtest"
)

// quickstartPath is docs/quickstart.md from this package's directory.
const quickstartPath = "../../../docs/quickstart.md"

// docBlock is one fenced code block of a Markdown page.
type docBlock struct {
	info string // the info string: "sh", "text", `sh title="terminal 1"`
	line int    // the line of its opening fence
	code string
}

// fenceOpen is an opening code fence as CommonMark has it (at most three
// spaces of indent, three or more backticks, an info string without
// backticks); a line opening with backticks and holding more is prose.
var fenceOpen = regexp.MustCompile("^ {0,3}(`{3,})([^`]*)$")

// codeBlocks are the fenced code blocks of a Markdown page, in order. An
// unclosed block is an error: the page's end would be taken for code.
func codeBlocks(t *testing.T, page string) []docBlock {
	t.Helper()
	var out []docBlock
	lines := strings.Split(page, "\n")
	for i := 0; i < len(lines); i++ {
		m := fenceOpen.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		b := docBlock{info: strings.TrimSpace(m[2]), line: i + 1}
		var code []string
		closed := false
		for i++; i < len(lines); i++ {
			if c := strings.TrimSpace(lines[i]); strings.HasPrefix(c, m[1]) && strings.Trim(c, "`") == "" {
				closed = true
				break
			}
			code = append(code, lines[i])
		}
		if !closed {
			t.Fatalf("%s:%d: the code block is not closed", quickstartPath, b.line)
		}
		b.code = strings.Join(code, "\n")
		out = append(out, b)
	}
	return out
}

// rfc3339 is a time in a sample output: it differs from run to run.
var rfc3339 = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z`)

// TestQuickstart runs docs/quickstart.md as a reader would: the blocks whose
// info string is exactly "sh" (the page states the rule; the first block,
// `sh title="terminal 1"`, is make run, which the test stands in for), in
// order, in one bash session with set -euo pipefail, from a directory
// holding ./bin/marketplace (this command, built), against the real binary
// started as make run starts it (marketplace run, its own DATA_DIR, a free
// port), with MARKETPLACE_URL and DATA_DIR exported as a reader's second
// terminal has them by default. Any failing command fails it; so does a
// sample output (the "text" blocks: each line, in order) the run did not
// print, and a final
// state other than the page's: the payout completed, paid out of the
// wallet.
func TestQuickstart(t *testing.T) {
	raw, err := os.ReadFile(quickstartPath)
	if err != nil {
		t.Fatal(err)
	}
	var script, samples []string
	var terminal bool
	for _, b := range codeBlocks(t, string(raw)) {
		switch {
		case b.info == "sh":
			script = append(script, "# "+quickstartPath+":"+strconv.Itoa(b.line), b.code)
		case b.info == "text":
			samples = append(samples, strings.TrimSpace(b.code))
		case strings.HasPrefix(b.info, "sh ") && strings.Contains(b.code, "make run"):
			terminal = true
		}
	}
	if len(script) < 2*10 || !terminal || len(samples) == 0 {
		t.Fatalf("%s: %d runnable blocks, make run's block found %v, %d sample outputs: not the quickstart this test runs",
			quickstartPath, len(script)/2, terminal, len(samples))
	}

	bin := buildMarketplace(t)
	work := t.TempDir() // the reader's repository root: ./bin/marketplace
	if err := os.Mkdir(filepath.Join(work, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(work, "bin", "marketplace")); err != nil {
		t.Fatal(err)
	}
	dataDir := t.TempDir()
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "MARKETPLACE_TOKEN" && k != "AUTH_DEV_SECRET" && !strings.HasPrefix(k, "PROCESSOR_") {
			env = append(env, kv)
		}
	}
	p := startMarketplace(t, bin, append(env, "DATA_DIR="+dataDir, "HTTP_ADDR=127.0.0.1:0", "METRICS_ADDR=127.0.0.1:0",
		"LOG_LEVEL=warn", "ACCESS_LOG=false"))
	defer p.stop(t)

	state := filepath.Join(t.TempDir(), "state")
	full := "set -euo pipefail\n" + strings.Join(script, "\n") +
		"\n# the test's own epilogue: the ids it checks the final state with\nprintf 'STORE=%s\\nPAYOUT=%s\\n' \"$STORE\" \"$PAYOUT\" > \"$QUICKSTART_STATE\"\n"
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", full)
	cmd.Dir = work
	cmd.Env = append(env, "MARKETPLACE_URL="+p.url, "DATA_DIR="+dataDir, "TMPDIR="+t.TempDir(), "QUICKSTART_STATE="+state)
	var stdout bytes.Buffer
	combined := &logtest.Buffer{} // written by two goroutines: the script's stdout and stderr
	cmd.Stdout = io.MultiWriter(&stdout, combined)
	cmd.Stderr = combined
	start := time.Now()
	err = cmd.Run()
	t.Logf("the quickstart's %d blocks ran in %s", len(script)/2, time.Since(start).Round(10*time.Millisecond))
	if err != nil {
		t.Fatalf("the quickstart failed: %v\n%s", err, combined.String())
	}
	said := rfc3339.ReplaceAllString(combined.String(), "<time>")
	for _, s := range samples {
		// Each line of the sample, in order, each after the one before.
		rest := said
		for _, line := range strings.Split(rfc3339.ReplaceAllString(s, "<time>"), "\n") {
			_, after, ok := strings.Cut(rest, strings.TrimSpace(line))
			if !ok {
				t.Errorf("the sample output's line\n  %s\nis not in what the quickstart printed (after the sample's lines before it):\n%s", line, combined.String())
				break
			}
			rest = after
		}
	}
	out := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if last := out[len(out)-1]; last != "partially_refunded" {
		t.Errorf("the quickstart's last line is %q, not the refunded order's status partially_refunded:\n%s", last, combined.String())
	}

	// The final state, asked anew: the payout completed and paid out of the
	// store's wallet.
	raw, err = os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		k, v, _ := strings.Cut(line, "=")
		ids[k] = v
	}
	call := func(args ...string) string {
		t.Helper()
		c := exec.CommandContext(ctx, bin, append([]string{"call", "--url", p.url}, args...)...)
		c.Env = append(env, "DATA_DIR="+dataDir)
		b, err := c.CombinedOutput()
		if err != nil {
			t.Fatalf("marketplace call %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return strings.TrimSpace(string(b))
	}
	if got := call("--as", "admin-1", "--roles", "admin", "--get", "status", "admins.payoutOperations.getPayout", `{"payoutId":"`+ids["PAYOUT"]+`"}`); got != "completed" {
		t.Errorf("payout %s is %q", ids["PAYOUT"], got)
	}
	if got := call("--as", "owner-1", "--get", "totalPayouts", "stores.wallet.getWallet", `{"storeId":"`+ids["STORE"]+`"}`); got != "100" {
		t.Errorf("the wallet's totalPayouts is %s, not the payout's 100", got)
	}
	// The refund of 30 AED: its store share of 28 AED left the 12 AED
	// available: a debt of 16 AED.
	if got := call("--as", "owner-1", "--get", "debt", "stores.wallet.getWallet", `{"storeId":"`+ids["STORE"]+`"}`); got != "16" {
		t.Errorf("the wallet's debt is %s, not the refund's 16", got)
	}
}
