package program

import (
	"encoding/json"
	"errors"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"marketplace/libs/logtest"
)

// LOG_FORMAT=text writes one readable line a record: time of day, level,
// message, key=value (quoted when needed, groups dotted, With's attributes
// kept), no colour on what is not a terminal; json (and unset, on what is
// not a terminal) one JSON object a line; LOG_LEVEL filters both.
func TestLoggerFormats(t *testing.T) {
	logOf := func(env map[string]string) (*slog.Logger, *logtest.Buffer) {
		t.Helper()
		cfg, err := Load(func(k string) string { return env[k] })
		if err != nil {
			t.Fatal(err)
		}
		buf := &logtest.Buffer{}
		return cfg.Logger(buf), buf
	}
	logger, buf := logOf(map[string]string{"LOG_FORMAT": "text"})
	logger.With("program", "marketplace").WithGroup("req").Info("http", "method", "POST", "path", "/api/query",
		"status", 200, "ms", 1.5, "note", "two words", "empty", "", "err", errors.New(`bad "x"`), "took", 1500*time.Millisecond)
	logger.Debug("not shown at info")
	logger.Warn("careful", slog.Group("g", "a", 1))
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		`^\d\d:\d\d:\d\d\.\d{3} INFO  http program=marketplace req\.method=POST req\.path=/api/query req\.status=200 req\.ms=1\.5 req\.note="two words" req\.empty="" req\.err="bad \\"x\\"" req\.took=1\.5s$`,
		`^\d\d:\d\d:\d\d\.\d{3} WARN  careful g\.a=1$`,
	}
	if len(lines) != len(want) {
		t.Fatalf("text log has %d lines, want %d:\n%s", len(lines), len(want), buf.String())
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("line %d = %q, want %s", i, lines[i], re)
		}
	}
	if strings.Contains(buf.String(), "\x1b[") {
		t.Errorf("colour in a log that is no terminal: %q", buf.String())
	}

	for _, env := range []map[string]string{{}, {"LOG_FORMAT": "json"}} {
		logger, buf := logOf(env)
		logger.Info("hello", "k", "v")
		var rec map[string]any
		if err := json.Unmarshal([]byte(buf.String()), &rec); err != nil || rec["msg"] != "hello" || rec["k"] != "v" {
			t.Errorf("LOG_FORMAT=%q into a buffer: %q is not the JSON line (%v)", env["LOG_FORMAT"], buf.String(), err)
		}
	}
}

// A text line is one line, with no terminal escape, whatever a message or a
// value holds: a request's path or argument, or a dependency's text (the
// payment processor's client logs its own lines as messages), may carry a
// newline (a forged line after it) or ANSI escapes the terminal would obey.
func TestTextLogEscapesControlCharacters(t *testing.T) {
	cfg, err := Load(func(k string) string { return map[string]string{"LOG_FORMAT": "text"}[k] })
	if err != nil {
		t.Fatal(err)
	}
	buf := &logtest.Buffer{}
	logger := cfg.Logger(buf)
	logger.Warn("processor: failed\n12:00:00.000 ERROR forged \x1b[2J", "path", "/a\nb\x1b[31m")
	out := buf.String()
	if strings.Count(out, "\n") != 1 || strings.Contains(out, "\x1b") {
		t.Errorf("text log line %q holds a raw newline or escape", out)
	}
	if !strings.Contains(out, `failed\n12:00:00.000 ERROR forged \x1b[2J`) || !strings.Contains(out, `path="/a\nb\x1b[31m"`) {
		t.Errorf("text log line %q does not show the characters escaped", out)
	}
}
