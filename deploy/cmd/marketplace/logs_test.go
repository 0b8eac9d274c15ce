package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"marketplace/libs/logtest"
)

// What `make run` prints, run as the real binary: in a terminal (a
// pseudo-terminal here) readable text lines in colour, the start summary
// with the addresses, one access line per call (the gateway's; the
// service's line of the same call is debug), and a shutdown line after
// Ctrl-C; with its output piped, one JSON object a line. An unknown
// LOG_FORMAT stops the start naming the values.
func TestLogsTextOnATerminalJSONOtherwise(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("pseudo-terminals")
	}
	bin := buildMarketplace(t)

	t.Run("terminal", func(t *testing.T) {
		dataDir := t.TempDir()
		raw, base, rid := runOnTerminal(t, bin, logTestEnv(dataDir))
		if !strings.Contains(raw, "\x1b[") {
			t.Errorf("no colour on a terminal without NO_COLOR:\n%s", raw)
		}
		text := strings.ReplaceAll(ansi.ReplaceAllString(raw, ""), "\r", "")
		lines := strings.Split(text, "\n")
		logLine := regexp.MustCompile(`^\d\d:\d\d:\d\d\.\d{3} (DEBUG|INFO|WARN|ERROR) +\S`)
		var logLines, access []string
		for _, l := range lines {
			if strings.HasPrefix(strings.TrimSpace(l), "{") {
				t.Errorf("a JSON line on a terminal: %q", l)
			}
			if logLine.MatchString(l) {
				logLines = append(logLines, l)
			}
			if strings.Contains(l, rid) {
				access = append(access, l)
			}
		}
		if len(logLines) < 5 {
			t.Errorf("%d text log lines (time, level, message):\n%s", len(logLines), text)
		}
		if len(access) != 1 || !strings.Contains(access[0], " http ") || !strings.Contains(access[0], "status=200") ||
			!strings.Contains(access[0], "op=catalog.locations.listCities") || !strings.Contains(access[0], "path=/api/query") {
			t.Errorf("want one access line for the call %s (the gateway's, with its operation and status), got %d: %q", rid, len(access), access)
		}
		metrics := regexp.MustCompile(`(?m)^  metrics +http://127\.0\.0\.1:\d+/metrics$`)
		for _, want := range []string{"marketplace ready at " + base + "\n", "  API      " + base + "/api/query",
			"  docs     " + base + "/docs", "  console  " + base + "/admin/ (store owners: " + base + "/store/)",
			"  health   " + base + "/livez, " + base + "/readyz", "  data     " + dataDir + "\n", "  logs     text, level info"} {
			if !strings.Contains(text, want) {
				t.Errorf("the start summary lacks %q:\n%s", want, text)
			}
		}
		if !metrics.MatchString(text) {
			t.Errorf("the start summary lacks the metrics URL:\n%s", text)
		}
		stopping, stopped := strings.Index(text, "marketplace stopping"), regexp.MustCompile(`INFO +marketplace stopped after \d`).FindStringIndex(text)
		if stopping < 0 || stopped == nil || stopped[0] < stopping {
			t.Errorf("no shutdown lines (stopping, then stopped after ...) after SIGINT:\n%s", text)
		}
	})

	t.Run("terminal with NO_COLOR", func(t *testing.T) {
		raw, _, rid := runOnTerminal(t, bin, append(logTestEnv(t.TempDir()), "NO_COLOR=1"))
		if strings.Contains(raw, "\x1b[") {
			t.Errorf("colour on a terminal with NO_COLOR=1:\n%q", raw)
		}
		if !regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d\.\d{3} INFO  http .*request_id=` + rid).MatchString(raw) {
			t.Errorf("no plain text access line for %s:\n%s", rid, raw)
		}
	})

	t.Run("pipes", func(t *testing.T) {
		cmd := exec.Command(bin, "run")
		cmd.Env = logTestEnv(t.TempDir())
		stdout, stderr := &logtest.Buffer{}, &logtest.Buffer{}
		cmd.Stdout, cmd.Stderr = stdout, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		base, rid := callThenInterrupt(t, cmd, stderr, stdout)
		var calls, ready, stopped int
		sc := bufio.NewScanner(strings.NewReader(stdout.String()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var rec map[string]any
			if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
				t.Errorf("a stdout line that is not JSON: %q", sc.Text())
				continue
			}
			msg, _ := rec["msg"].(string)
			switch {
			case rec["request_id"] == rid:
				calls++
			case msg == "marketplace ready at "+base && rec["docs"] == base+"/docs":
				ready++
			case strings.HasPrefix(msg, "marketplace stopped after ") && rec["uptime"] != nil:
				stopped++
			}
		}
		if calls != 1 || ready != 1 || stopped != 1 {
			t.Errorf("JSON lines: %d access lines for the call (want 1), %d ready lines with the docs URL (want 1), %d stopped lines (want 1):\n%s",
				calls, ready, stopped, stdout)
		}
		if !strings.Contains(stderr.String(), "  docs     "+base+"/docs") {
			t.Errorf("no start summary on stderr:\n%s", stderr)
		}
	})

	t.Run("unknown format", func(t *testing.T) {
		cmd := exec.Command(bin, "run")
		cmd.Env = append(logTestEnv(t.TempDir()), "LOG_FORMAT=pretty")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || !strings.Contains(string(out), `LOG_FORMAT "pretty" must be text or json`) {
			t.Fatalf("LOG_FORMAT=pretty: %v, %s", err, out)
		}
	})
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// logTestEnv is the environment of a run on free ports, without the
// developer's own log settings.
func logTestEnv(dataDir string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "LOG_FORMAT" && k != "LOG_LEVEL" && k != "NO_COLOR" && k != "ACCESS_LOG" {
			env = append(env, kv)
		}
	}
	return append(env, "DATA_DIR="+dataDir, "HTTP_ADDR=127.0.0.1:0", "METRICS_ADDR=127.0.0.1:0", "RATE_LIMIT_RPS=0")
}

var readyLine = regexp.MustCompile(`marketplace ready at (http://127\.0\.0\.1:\d+)\r?\n`)

// waitForReady waits for the ready line in out and answers its URL.
func waitForReady(t *testing.T, out fmt.Stringer, exited chan error) string {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		if m := readyLine.FindStringSubmatch(ansi.ReplaceAllString(out.String(), "")); m != nil {
			return m[1]
		}
		select {
		case err := <-exited:
			t.Fatalf("ended before ready: %v\n%s", err, out)
		case <-deadline:
			t.Fatalf("not ready in 60 s\n%s", out)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// waitFor waits until out holds s.
func waitFor(t *testing.T, out fmt.Stringer, s string, exited chan error) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for !strings.Contains(out.String(), s) {
		select {
		case err := <-exited:
			t.Fatalf("ended: %v\n%s", err, out)
		case <-deadline:
			t.Fatalf("no %q in 10 s\n%s", s, out)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// runOnTerminal runs bin under a pseudo-terminal (its stdin, stdout and
// stderr), makes one call and stops it with SIGINT; it answers all the
// terminal showed, the system's URL and the call's request id.
func runOnTerminal(t *testing.T, bin string, env []string) (raw, base, rid string) {
	t.Helper()
	cmd := exec.Command(bin, "run")
	cmd.Env = env
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	out := &logtest.Buffer{}
	copied := make(chan struct{})
	go func() { _, _ = io.Copy(out, ptmx); close(copied) }() // ends with EIO once the program exits
	base, rid = callThenInterrupt(t, cmd, out, out)
	select {
	case <-copied:
	case <-time.After(5 * time.Second):
	}
	return out.String(), base, rid
}

// callThenInterrupt waits for the started cmd's ready line in hints, makes
// one call, waits for its access line in logs, then stops cmd with SIGINT;
// it answers the system's URL and the call's request id.
func callThenInterrupt(t *testing.T, cmd *exec.Cmd, hints, logs fmt.Stringer) (base, rid string) {
	t.Helper()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	base = waitForReady(t, hints, exited)
	rid = callOnce(t, base)
	waitFor(t, logs, rid, exited)
	interrupt(t, cmd, exited, hints)
	return base, rid
}

// interrupt sends cmd SIGINT (Ctrl-C) and waits for it to exit 0.
func interrupt(t *testing.T, cmd *exec.Cmd, exited chan error, out fmt.Stringer) {
	t.Helper()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("after SIGINT: %v\n%s", err, out)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("not stopped 30 s after SIGINT\n%s", out)
	}
}

// callOnce makes one public query through the gateway (forwarded to the
// catalog service) with a request id of its own, and answers that id.
func callOnce(t *testing.T, base string) string {
	t.Helper()
	rid := fmt.Sprintf("logs-test-%d", time.Now().UnixNano())
	req, _ := http.NewRequest("POST", base+"/api/query", strings.NewReader(`{"path":"catalog.locations.listCities","args":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", rid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("listCities: %d %s", resp.StatusCode, body)
	}
	return rid
}
