package system

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/processor"
)

// Secrets given as files (NAME_FILE) count as set: `make token` and `make
// sign-webhook` sign with the files' secrets, not the development ones in
// DATA_DIR; the all-in-one's simulator and payments service share the file's
// webhook secret; a live key in a file is refused as one in the variable is.
func TestSecretsGivenAsFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name, value string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(value+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := map[string]string{"DATA_DIR": t.TempDir(), "AUTH_DEV_SECRET_FILE": file("dev", "dev-secret-from-a-file"),
		"PROCESSOR_WEBHOOK_SECRET_FILE": file("webhook", "whsec_from_a_file"), "PROCESSOR_SECRET_KEY_FILE": file("key", "sk_test_from_a_file")}
	getenv := func(k string) string { return env[k] }
	if s, err := DevSecret(getenv); err != nil || s != "dev-secret-from-a-file" {
		t.Errorf("DevSecret = %q, %v", s, err)
	}
	if s, err := WebhookSecret(getenv); err != nil || s != "whsec_from_a_file" {
		t.Errorf("WebhookSecret = %q, %v", s, err)
	}
	if k, err := SimulatorKey(getenv); err != nil || k != "sk_test_from_a_file" {
		t.Errorf("SimulatorKey = %q, %v", k, err)
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var info Info
	var webhook int
	err = Run(ctx, Options{Getenv: getenv, Memory: true, Stdout: io.Discard, Listener: ln, OnReady: func(i Info) {
		defer cancel()
		info = i
		// The payments service checks the signature with the file's secret.
		body := []byte(`{"id":"evt_1","type":"customer.created","data":{"object":{}}}`)
		req, _ := http.NewRequest(http.MethodPost, i.BaseURL+"/processor/webhook", bytes.NewReader(body))
		req.Header.Set("processor-signature", processor.Sign("whsec_from_a_file", body, time.Now()))
		if resp, err := http.DefaultClient.Do(req); err == nil {
			webhook = resp.StatusCode
			resp.Body.Close()
		}
	}})
	if info.BaseURL == "" {
		t.Fatalf("the all-in-one did not start: %v", err)
	}
	if info.DevSecret != "dev-secret-from-a-file" || info.ProcessorKey != "sk_test_from_a_file" {
		t.Errorf("dev secret %q, processor key %q: want the files'", info.DevSecret, info.ProcessorKey)
	}
	if webhook != http.StatusOK {
		t.Errorf("a webhook signed with the file's secret answered %d, want 200 (an event type it does not act on)", webhook)
	}

	live := map[string]string{"PROCESSOR_SECRET_KEY_FILE": file("live", "sk_live_123")}
	ln, err = net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	started := false
	err = Run(ctx, Options{Getenv: func(k string) string { return live[k] }, Memory: true, Stdout: io.Discard, Listener: ln, OnReady: func(Info) { started = true; cancel() }})
	if started || err == nil || !strings.Contains(err.Error(), "PROCESSOR_SECRET_KEY is a live key") {
		t.Errorf("a live key in a file: started %v, err %v", started, err)
	}
}
