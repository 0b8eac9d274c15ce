package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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
)

// `marketplace dispute` opens a dispute on a paid intent at the simulator of
// DATA_DIR and closes it; each prints the dispute and its webhook's answer,
// which came from the queue after PROCESSOR_SIMULATOR_WEBHOOK_DELAY.
func TestDisputeCommand(t *testing.T) {
	var mu sync.Mutex
	type got struct {
		Type string
		At   time.Time
		Obj  processor.Dispute
	}
	var hooks []got
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			Type string `json:"type"`
			Data struct {
				Object processor.Dispute `json:"object"`
			} `json:"data"`
		}
		_ = json.NewDecoder(r.Body).Decode(&ev)
		mu.Lock()
		hooks = append(hooks, got{ev.Type, time.Now(), ev.Data.Object})
		mu.Unlock()
		io.WriteString(w, "ok")
	}))
	defer hook.Close()
	dataDir := t.TempDir()
	env := map[string]string{"DATA_DIR": dataDir, "HTTP_ADDR": "127.0.0.1:0", "LOG_LEVEL": "warn", processor.EnvWebhookDelay: "300ms",
		"PROCESSOR_SECRET_KEY": "sk_test_cmd", "PROCESSOR_WEBHOOK_SECRET": "whsec_cmd", launch.EnvProcessorWebhookURL: hook.URL + "/processor/webhook"}
	getenv := func(k string) string { return env[k] }

	bad := func(k string) string {
		if k == processor.EnvWebhookDelay {
			return "soon"
		}
		return env[k]
	}
	if err := runArgs(context.Background(), []string{"processor"}, bad, io.Discard); err == nil || !strings.Contains(err.Error(), processor.EnvWebhookDelay) {
		t.Fatalf("processor with a delay of %q: %v", "soon", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- runArgs(ctx, []string{"processor"}, getenv, io.Discard) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(20 * time.Millisecond) {
		if u, err := processor.SimulatorURL(filepath.Join(dataDir, launch.ProcessorDir)); err == nil && u != "" {
			base = u
		} else if time.Now().After(deadline) {
			t.Fatal("processor not ready")
		}
	}
	post := func(path string, form url.Values, out any) {
		req, _ := http.NewRequest(http.MethodPost, base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Authorization", "Bearer sk_test_cmd")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d", path, resp.StatusCode)
		}
		json.NewDecoder(resp.Body).Decode(out)
	}
	var in processor.Intent
	post("/v1/payment_intents", url.Values{"amount": {"5000"}, "currency": {"aed"}}, &in)
	post("/v1/payment_intents/"+in.ID+"/confirm", url.Values{"payment_method": {processor.CardSucceeds}}, &in)

	type line struct {
		DisputeID string  `json:"disputeId"`
		Status    string  `json:"status"`
		Amount    float64 `json:"amount"`
		Reason    string  `json:"reason"`
		DueBy     string  `json:"evidenceDueBy"`
		Webhook   struct {
			Type     string `json:"type"`
			Status   int    `json:"status"`
			Delivery string `json:"delivery"`
		} `json:"webhook"`
	}
	run := func(args ...string) line {
		t.Helper()
		var out bytes.Buffer
		if err := runArgs(context.Background(), append([]string{"dispute"}, args...), getenv, &out); err != nil {
			t.Fatalf("dispute %q: %v (%s)", args, err, out.String())
		}
		var l line
		if err := json.Unmarshal(out.Bytes(), &l); err != nil {
			t.Fatalf("dispute %q printed %s: %v", args, out.String(), err)
		}
		return l
	}
	start := time.Now()
	opened := run("-intent", in.ID, "-amount", "10.50", "-reason", "product_not_received")
	due, err := time.Parse(time.RFC3339, opened.DueBy)
	if !strings.HasPrefix(opened.DisputeID, "dp_") || opened.Status != processor.DisputeNeedsResponse || opened.Amount != 10.5 ||
		opened.Reason != "product_not_received" || err != nil || due.Sub(start) < processor.DisputeEvidenceWindow-time.Minute ||
		opened.Webhook.Type != processor.EventDisputeCreated || opened.Webhook.Status != 200 || opened.Webhook.Delivery != processor.DeliveryDelivered {
		t.Fatalf("opened %+v", opened)
	}
	closed := run("-intent", "", "-amount", "", "-reason", "", "-close", opened.DisputeID, "-outcome", "lost") // as make dispute passes them
	if closed.DisputeID != opened.DisputeID || closed.Status != processor.DisputeLost || closed.Webhook.Type != processor.EventDisputeClosed ||
		closed.Webhook.Status != 200 {
		t.Fatalf("closed %+v", closed)
	}
	mu.Lock()
	if len(hooks) != 3 || hooks[1].Type != processor.EventDisputeCreated || hooks[1].Obj.ID != opened.DisputeID || hooks[1].Obj.Amount != 1050 ||
		hooks[1].At.Sub(start) < 300*time.Millisecond || hooks[2].Type != processor.EventDisputeClosed || hooks[2].Obj.Status != processor.DisputeLost {
		t.Errorf("webhooks %+v", hooks)
	}
	mu.Unlock()

	// Closed already: the simulator refuses, and its code reaches the
	// caller (the history run asks a cut closing again and acts on it).
	var refused *simRefusal
	err = runArgs(context.Background(), []string{"dispute", "-close", opened.DisputeID, "-outcome", "won"}, getenv, io.Discard)
	if !errors.As(err, &refused) || refused.Code != "dispute_already_closed" || !strings.Contains(err.Error(), "already closed") {
		t.Errorf("closing it again: %v", err)
	}
	for _, args := range [][]string{
		{},
		{"-intent", in.ID, "-close", opened.DisputeID},
		{"-intent", "ord_1"},
		{"-intent", in.ID, "-amount", "1.005"},
		{"-intent", in.ID, "-amount", "0"},
		{"-close", opened.DisputeID, "-outcome", "maybe"},
		{"-close", opened.DisputeID, "-outcome", "won", "-amount", "1"},
	} {
		if err := runArgs(context.Background(), append([]string{"dispute"}, args...), getenv, io.Discard); err == nil {
			t.Errorf("dispute %q: no error", args)
		}
	}
}
