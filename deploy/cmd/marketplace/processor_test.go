package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"marketplace/deploy/launch"
	"marketplace/deploy/processor"
	"marketplace/libs/version"
)

// `marketplace processor` runs the simulator as a program of its own (the
// distributed mode's), and `marketplace pay` pays an intent at whichever
// simulator of DATA_DIR holds it: here two run, the all-in-one's directory's
// and the distributed mode's, and the intent is the second's. With -simulator
// it pays at the URL given (compose's simulator), with PROCESSOR_SECRET_KEY.
func TestProcessorCommandAndPayFindsItsSimulator(t *testing.T) {
	var mu sync.Mutex
	var hooks []string
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		hooks = append(hooks, r.URL.Path+" "+r.Header.Get("processor-signature")+" "+string(b))
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer hook.Close()
	dataDir := t.TempDir()
	env := map[string]string{"DATA_DIR": dataDir, "HTTP_ADDR": "127.0.0.1:0", "LOG_LEVEL": "warn",
		"PROCESSOR_SECRET_KEY": "sk_test_cmd", "PROCESSOR_WEBHOOK_SECRET": "whsec_cmd", launch.EnvProcessorWebhookURL: hook.URL + "/processor/webhook"}
	getenv := func(k string) string { return env[k] }

	// Refusals: no key, no webhook secret, a live key.
	for k, v := range map[string]string{"PROCESSOR_SECRET_KEY": "", "PROCESSOR_WEBHOOK_SECRET": "", "PROCESSOR_PUBLISHABLE_KEY": "pk_live_x"} {
		bad := map[string]string{k: v}
		err := runArgs(context.Background(), []string{"processor"}, func(n string) string {
			if v, ok := bad[n]; ok {
				return v
			}
			return env[n]
		}, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "processor:") {
			t.Errorf("processor with %s=%q: %v", k, v, err)
		}
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	serve := func(args ...string) string {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := runArgs(ctx, append([]string{"processor"}, args...), getenv, io.Discard); err != nil {
				t.Errorf("processor %q: %v", args, err)
			}
		}()
		dir := filepath.Join(dataDir, launch.ProcessorDir)
		if len(args) == 2 {
			dir = args[1]
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			if u, err := processor.SimulatorURL(dir); err == nil && u != "" {
				if r, err := http.Get(u + "/readyz"); err == nil && r.StatusCode == 200 {
					r.Body.Close()
					return u
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("processor %q not ready", args)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	serve("-data", filepath.Join(dataDir, "processor-simulator")) // where the all-in-one keeps its simulator
	distributed := serve()                                        // the distributed mode's directory

	req, _ := http.NewRequest(http.MethodPost, distributed+"/v1/payment_intents", strings.NewReader(url.Values{"amount": {"2500"}, "currency": {"aed"}}.Encode()))
	req.Header.Set("Authorization", "Bearer sk_test_cmd")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var in processor.Intent
	json.NewDecoder(resp.Body).Decode(&in)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(in.ID, "pi_") {
		t.Fatalf("create: %d %+v", resp.StatusCode, in)
	}

	var out bytes.Buffer
	if err := runArgs(ctx, []string{"pay", "-intent", in.ID}, getenv, &out); err != nil {
		t.Fatalf("pay: %v (%s)", err, out.String())
	}
	var paid struct {
		Status  string `json:"status"`
		Webhook struct {
			Type   string `json:"type"`
			Status int    `json:"status"`
		} `json:"webhook"`
	}
	if err := json.Unmarshal(out.Bytes(), &paid); err != nil || paid.Status != "succeeded" || paid.Webhook.Type != processor.EventSucceeded || paid.Webhook.Status != 200 {
		t.Fatalf("pay said %s (%v)", out.String(), err)
	}
	mu.Lock()
	if len(hooks) != 1 || !strings.HasPrefix(hooks[0], "/processor/webhook t=") || !strings.Contains(hooks[0], in.ID) {
		t.Errorf("webhooks %q", hooks)
	}
	mu.Unlock()

	// -simulator: the URL given, e.g. compose's published simulator.
	env["DATA_DIR"] = t.TempDir() // no simulator there
	if err := runArgs(ctx, []string{"pay", "-intent", in.ID, "-outcome", "canceled"}, getenv, io.Discard); err == nil {
		t.Error("pay found a simulator in an empty DATA_DIR")
	}
	out.Reset()
	err = runArgs(ctx, []string{"pay", "-intent", in.ID, "-simulator", distributed + "/"}, getenv, &out)
	if err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("paying a paid intent again at -simulator: %v %s", err, out.String())
	}
}

// `marketplace version` prints the build (libs/version): one line, or the
// JSON object GET /version answers.
func TestVersionCommand(t *testing.T) {
	var line, obj bytes.Buffer
	if err := runArgs(context.Background(), []string{"version"}, func(string) string { return "" }, &line); err != nil {
		t.Fatal(err)
	}
	if err := runArgs(context.Background(), []string{"version", "-json"}, func(string) string { return "" }, &obj); err != nil {
		t.Fatal(err)
	}
	var got version.Info
	if err := json.Unmarshal(obj.Bytes(), &got); err != nil || got != version.Get() {
		t.Fatalf("version -json: %s (%v), want %+v", obj.String(), err, version.Get())
	}
	if want := "marketplace " + version.Get().String() + "\n"; line.String() != want {
		t.Fatalf("version: %q, want %q", line.String(), want)
	}
}
