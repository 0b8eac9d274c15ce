package launch_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"marketplace/deploy/modules"
	"marketplace/services/payments"
)

// Secrets given as files (NAME_FILE, as Kubernetes mounts them) count as set:
// the launcher hands their values on as it does the variables' (no
// development secret replaces them), and a program never gets a value and its
// file at once (it would refuse to start), nor the file of a secret it must
// not have. A live key in a file is refused as one in the variable is.
func TestSecretsGivenAsFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := func(name, value string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(value+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f := newFixture(t, "AUTH_DEV_SECRET_FILE", file("dev", "dev-secret-from-a-file"),
		"PROCESSOR_WEBHOOK_SECRET_FILE", file("webhook", "whsec_from_a_file"),
		"PROCESSOR_SECRET_KEY_FILE", file("key", "sk_test_from_a_file"))
	sys, _ := f.start(t)
	if sys.WebhookSecret != "whsec_from_a_file" || sys.ProcessorKey != "sk_test_from_a_file" || sys.DevSecret != "dev-secret-from-a-file" {
		t.Errorf("webhook secret %q, processor key %q, dev secret %q: want the files'", sys.WebhookSecret, sys.ProcessorKey, sys.DevSecret)
	}
	recs := records(f.records)
	for _, n := range append(modules.Names(), "gateway", "processor", "broker") {
		env := recs[n][0].Env
		for k := range env {
			if strings.HasSuffix(k, "_FILE") {
				t.Errorf("%s got %s", n, k)
			}
		}
		// Only the gateway verifies users' tokens.
		if secret, has := env["AUTH_DEV_SECRET"]; (n == "gateway") != has || (has && secret != "dev-secret-from-a-file") {
			t.Errorf("%s: AUTH_DEV_SECRET=%q", n, secret)
		}
	}
	if env := recs["payments"][0].Env; env[payments.EnvWebhookSecret] != "whsec_from_a_file" || env[payments.EnvSecretKey] != "sk_test_from_a_file" {
		t.Errorf("payments: %s=%q %s=%q", payments.EnvWebhookSecret, env[payments.EnvWebhookSecret], payments.EnvSecretKey, env[payments.EnvSecretKey])
	}
	if env := recs["processor"][0].Env; env[payments.EnvWebhookSecret] != "whsec_from_a_file" || env[payments.EnvSecretKey] != "sk_test_from_a_file" {
		t.Errorf("processor: %s=%q %s=%q", payments.EnvWebhookSecret, env[payments.EnvWebhookSecret], payments.EnvSecretKey, env[payments.EnvSecretKey])
	}

	live := newFixture(t, "PROCESSOR_SECRET_KEY_FILE", file("live", "sk_live_123"))
	ready, done := live.run(t.Context())
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "PROCESSOR_SECRET_KEY is a live key") {
			t.Errorf("a live key in a file: %v", err)
		}
	case <-ready:
		t.Error("a live key in a file: the launcher started the simulator with it")
	}
}
