package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/system"
	"marketplace/libs/logtest"
)

// `marketplace run` prints only JSON lines on stdout, one of them the ready
// line with the gateway's URL; the human hints go to stderr.
func TestRunPrintsOnlyJSONOnStdout(t *testing.T) {
	env := map[string]string{"DATA_DIR": t.TempDir(), "HTTP_ADDR": "127.0.0.1:0", "ACCESS_LOG": "true"}
	stdout, stderr := &logtest.Buffer{}, &logtest.Buffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan system.Info, 1)
	done := make(chan error, 1)
	go func() {
		done <- system.Run(ctx, system.Options{Getenv: func(k string) string { return env[k] }, Stdout: stdout, Stderr: stderr,
			OnReady: func(i system.Info) { ready <- i }})
	}()
	var info system.Info
	select {
	case info = <-ready:
	case err := <-done:
		t.Fatalf("run ended: %v", err)
	case <-time.After(2 * time.Minute): // a loaded machine under -race starts slowly
		t.Fatal("not ready in 2 min")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("run: %v", err)
	}
	sawReady := false
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Errorf("stdout line is not JSON: %q", line)
			continue
		}
		if msg, _ := rec["msg"].(string); strings.Contains(msg, "ready") && strings.Contains(msg, info.BaseURL) {
			sawReady = true
		}
	}
	if !sawReady {
		t.Errorf("no ready line with %s on stdout", info.BaseURL)
	}
	for _, hint := range []string{"make token", "make sign-webhook", "ready at " + info.BaseURL, "admin console", info.BaseURL + "/admin/#token="} {
		if !strings.Contains(stderr.String(), hint) {
			t.Errorf("stderr lacks %q:\n%s", hint, stderr.String())
		}
	}
}
