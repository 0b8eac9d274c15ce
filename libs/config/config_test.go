package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type nested struct {
	URI string `env:"MONGODB_URI" secret:"true"`
}

type sample struct {
	Addr    string        `env:"HTTP_ADDR" default:"127.0.0.1:8080"`
	Secret  string        `env:"AUTH_DEV_SECRET" secret:"true"`
	Limit   int           `env:"RATE_LIMIT" default:"100"`
	Debug   bool          `env:"DEBUG"`
	Wait    time.Duration `env:"WAIT" default:"2s"`
	Brokers []string      `env:"KAFKA_BROKERS"`
	Ratio   float64       `env:"RATIO" default:"0.5"`
	Must    string        `env:"MUST" required:"true"`
	DB      nested
}

func (s *sample) Validate() error {
	if s.Limit < 0 {
		return errors.New("RATE_LIMIT must not be negative")
	}
	return nil
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestLoadDefaultsOverridesAndMasking(t *testing.T) {
	var s sample
	err := Load(env(map[string]string{"MUST": "x", "AUTH_DEV_SECRET": "hunter2", "KAFKA_BROKERS": "a:1, b:2,", "DEBUG": "true", "MONGODB_URI": "mongodb://u:p@h"}), &s)
	if err != nil {
		t.Fatal(err)
	}
	if s.Addr != "127.0.0.1:8080" || s.Limit != 100 || !s.Debug || s.Wait != 2*time.Second || s.Ratio != 0.5 ||
		len(s.Brokers) != 2 || s.Brokers[1] != "b:2" || s.DB.URI != "mongodb://u:p@h" {
		t.Fatalf("loaded %+v", s)
	}
	d := Describe(&s)
	if strings.Contains(d, "hunter2") || strings.Contains(d, "u:p@h") || !strings.Contains(d, "AUTH_DEV_SECRET=***") || !strings.Contains(d, "HTTP_ADDR=127.0.0.1:8080") {
		t.Fatalf("describe leaked or lost values: %s", d)
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	var s sample
	err := Load(env(map[string]string{"RATE_LIMIT": "many", "WAIT": "soon"}), &s)
	if err == nil {
		t.Fatal("want errors")
	}
	for _, want := range []string{"MUST is required", "RATE_LIMIT", "WAIT"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	err = Load(env(map[string]string{"MUST": "x", "RATE_LIMIT": "-1"}), &s)
	if err == nil || !strings.Contains(err.Error(), "must not be negative") {
		t.Fatalf("validation not run: %v", err)
	}
}

type fromFiles struct {
	User     string `env:"KAFKA_SASL_USERNAME" file:"true"`
	Password string `env:"KAFKA_SASL_PASSWORD" secret:"true"`
	Brokers  string `env:"KAFKA_BROKERS"`
}

// Secrets (and fields tagged file) can be given as files, NAME_FILE, the way
// Kubernetes mounts a Secret; other settings cannot; a value and a file at
// once, an unreadable file and an empty one are refused, naming the variable.
func TestLoadFromFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	user, pass, brokers, empty := write("user", "svc-payouts\n"), write("pass", " s3cret with spaces \r\n"), write("brokers", "k:9092"), write("empty", "\n")
	var s fromFiles
	if err := Load(env(map[string]string{"KAFKA_SASL_USERNAME_FILE": user, "KAFKA_SASL_PASSWORD_FILE": pass, "KAFKA_BROKERS_FILE": brokers}), &s); err != nil {
		t.Fatal(err)
	}
	if s.User != "svc-payouts" || s.Password != " s3cret with spaces " || s.Brokers != "" {
		t.Fatalf("loaded %+v: want the files' values without their final line break, and no file for a setting that is not secret", s)
	}
	if d := Describe(&s); strings.Contains(d, "s3cret") || !strings.Contains(d, "KAFKA_SASL_PASSWORD=***") || !strings.Contains(d, "KAFKA_SASL_USERNAME=svc-payouts") {
		t.Fatalf("describe: %s", d)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"KAFKA_SASL_PASSWORD": "x", "KAFKA_SASL_PASSWORD_FILE": pass}, "set KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE, not both"},
		{map[string]string{"KAFKA_SASL_PASSWORD_FILE": filepath.Join(dir, "missing")}, "KAFKA_SASL_PASSWORD_FILE: open " + filepath.Join(dir, "missing")},
		{map[string]string{"KAFKA_SASL_USERNAME_FILE": empty}, "KAFKA_SASL_USERNAME_FILE: " + empty + " is empty"},
	} {
		var s fromFiles
		if err := Load(env(tc.env), &s); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%v) = %v, want an error with %q", tc.env, err, tc.want)
		}
	}
}

// Lookup reads one secret as Load does, for programs that act on it before
// loading the settings that hold it.
func TestLookup(t *testing.T) {
	p := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(p, []byte("from-file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  map[string]string
		want string
		err  string
	}{
		{map[string]string{}, "", ""},
		{map[string]string{"S": "from-env"}, "from-env", ""},
		{map[string]string{"S_FILE": p}, "from-file", ""},
		{map[string]string{"S": "x", "S_FILE": p}, "", "set S or S_FILE, not both"},
		{map[string]string{"S_FILE": p + ".missing"}, "", "S_FILE: open " + p + ".missing"},
	} {
		v, err := Lookup(env(tc.env), "S")
		if v != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Lookup(%v) = %q, %v; want %q, %q", tc.env, v, err, tc.want, tc.err)
		}
	}
}
