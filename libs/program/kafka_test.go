package program

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"marketplace/libs/config"
)

// Every program reads the Kafka settings (libs/events KafkaSettings): bad ones
// stop it at start, the password may come from a file, and the start line
// masks it.
func TestLoadKafkaSettings(t *testing.T) {
	pw := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(pw, []byte("kafka-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(env(map[string]string{"KAFKA_BROKERS": "k1:9093", "KAFKA_TLS_ENABLED": "true",
		"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "payouts", "KAFKA_SASL_PASSWORD_FILE": pw}))
	if err != nil {
		t.Fatal(err)
	}
	b, err := cfg.Kafka()
	if err != nil || b.TLS == nil || b.SASL == nil || b.SASL.Name() != "SCRAM-SHA-512" || cfg.KafkaSASLPassword != "kafka-secret" {
		t.Fatalf("brokers %+v, %v", b, err)
	}
	if d := config.Describe(&cfg); strings.Contains(d, "kafka-secret") || !strings.Contains(d, "KAFKA_SASL_PASSWORD=***") || !strings.Contains(d, "KAFKA_SASL_USERNAME=payouts") {
		t.Errorf("start line: %s", d)
	}
	for _, bad := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"KAFKA_SASL_MECHANISM": "OAUTHBEARER"}, `KAFKA_SASL_MECHANISM "OAUTHBEARER" must be`},
		{map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-256"}, "needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD"},
		{map[string]string{"KAFKA_TLS_CA_FILE": "/nonexistent/ca.pem"}, "KAFKA_TLS_CA_FILE: open /nonexistent/ca.pem"},
	} {
		if _, err := Load(env(bad.env)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Load(%v) = %v, want %q", bad.env, err, bad.want)
		}
	}
}
