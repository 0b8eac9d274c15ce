package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/processor"
	"marketplace/libs/auth"
)

func TestTokenAndSignWebhookCommands(t *testing.T) {
	secret := "0123456789abcdef0123456789abcdef"
	env := map[string]string{"AUTH_DEV_SECRET": secret, "PROCESSOR_WEBHOOK_SECRET": "whsec_cmd", "DATA_DIR": t.TempDir()}
	getenv := func(k string) string { return env[k] }
	var out bytes.Buffer
	if err := runArgs(context.Background(), []string{"token", "-sub", "admin-1", "-roles", "admin"}, getenv, &out); err != nil {
		t.Fatal(err)
	}
	v, _ := auth.NewHS256([]byte(secret), auth.Options{})
	id, err := v.Verify(context.Background(), strings.TrimSpace(out.String()))
	if err != nil || id.Sub != "admin-1" || !id.IsAdmin() {
		t.Fatalf("minted token: %+v %v", id, err)
	}
	if err := runArgs(context.Background(), []string{"token"}, getenv, &out); err == nil {
		t.Fatal("token without -sub accepted")
	}

	body := filepath.Join(t.TempDir(), "body.json")
	os.WriteFile(body, []byte(`{"id":"evt_1"}`), 0o600)
	out.Reset()
	if err := runArgs(context.Background(), []string{"sign-webhook", "-file", body}, getenv, &out); err != nil {
		t.Fatal(err)
	}
	sig := strings.TrimSpace(out.String())
	var ts int64
	if _, err := fmt.Sscanf(sig, "t=%d,", &ts); err != nil {
		t.Fatalf("signature %q: %v", sig, err)
	}
	if want := processor.Sign("whsec_cmd", []byte(`{"id":"evt_1"}`), time.Unix(ts, 0)); sig != want {
		t.Fatalf("signature %q, want %q", sig, want)
	}
	if err := runArgs(context.Background(), []string{"bogus"}, getenv, &out); err == nil {
		t.Fatal("unknown command accepted")
	}
}
