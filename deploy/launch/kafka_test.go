package launch_test

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/libs/events"
)

// kafkaSettings are the KAFKA_ settings a program was started with.
func kafkaSettings(env map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range env {
		if strings.HasPrefix(k, "KAFKA_") {
			out[k] = v
		}
	}
	return out
}

// The broker of its own requires a SASL/SCRAM user per service and one for
// the gateway, made for the run: the launcher gives each program its own
// user (named after it) and nobody else's, the broker learns them from a
// file only the launcher's user may read (never from its command line or
// environment), the processor simulator gets no KAFKA_ setting at all, the
// file is gone once the run ends, and the next run makes other passwords.
func TestKafkaUserPerProgramPerRun(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var passwords []string
	for run := range 2 {
		f.records = t.TempDir()
		f.env["FAKE_RECORDS"] = f.records
		sys, h := f.start(t)
		recs := records(f.records)
		programs := append(modules.Names(), modules.Gateway)
		if len(sys.KafkaUsers) != len(programs) {
			t.Fatalf("run %d: users %v, want one for each of %v", run, slices.Sorted(maps.Keys(sys.KafkaUsers)), programs)
		}
		seen := map[string]bool{}
		for _, n := range programs {
			u := sys.KafkaUsers[n]
			if u.Mechanism != events.SASLScramSHA512 || u.Username != n || len(u.Password) < 20 || seen[u.Password] {
				t.Fatalf("run %d: %s's user %+v, want SCRAM-SHA-512 named after it with a long random password of its own", run, n, u)
			}
			seen[u.Password] = true
			passwords = append(passwords, u.Password)
			got := kafkaSettings(recs[n][0].Env)
			delete(got, "KAFKA_BROKERS")
			want := map[string]string{"KAFKA_SASL_MECHANISM": u.Mechanism, "KAFKA_SASL_USERNAME": u.Username, "KAFKA_SASL_PASSWORD": u.Password}
			if !maps.Equal(got, want) {
				t.Errorf("run %d: %s got the Kafka settings %v, want its own user", run, n, got)
			}
		}
		for _, n := range []string{"processor", "broker"} {
			if got := kafkaSettings(recs[n][0].Env); len(got) > 0 {
				t.Errorf("run %d: %s got %v", run, n, got)
			}
		}
		broker := recs["broker"][0]
		usersFile := filepath.Join(f.env["DATA_DIR"], "distributed", launch.BrokerUsersFile)
		if i := slices.Index(broker.Args, "-users"); i < 0 || broker.Args[i+1] != usersFile {
			t.Errorf("run %d: broker args %q, want -users %s", run, broker.Args, usersFile)
		}
		for _, a := range broker.Args {
			for _, u := range sys.KafkaUsers {
				if strings.Contains(a, u.Password) {
					t.Errorf("run %d: a password on the broker's command line", run)
				}
			}
		}
		st, err := os.Stat(usersFile)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("run %d: the users file: %v %v, want mode 0600", run, st, err)
		}
		users, err := launch.ReadBrokerUsers(usersFile)
		if err != nil {
			t.Fatal(err)
		}
		if len(users) != len(sys.KafkaUsers) {
			t.Errorf("run %d: the file holds %d users, want %d", run, len(users), len(sys.KafkaUsers))
		}
		for _, u := range users {
			if sys.KafkaUsers[u.Username] != u {
				t.Errorf("run %d: the file's user %s is not the one its program got", run, u.Username)
			}
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(usersFile); !os.IsNotExist(err) {
			t.Errorf("run %d: the users file outlives the run: %v", run, err)
		}
	}
	slices.Sort(passwords)
	if len(slices.Compact(passwords)) != 2*(len(modules.Names())+1) {
		t.Error("two runs share a password")
	}
}

// The broker of its own makes its users: a user given in KAFKA_SASL_* is
// refused (it would be one user for all programs), as are TLS settings (it
// speaks none); with KAFKA_BROKERS the services and the gateway keep the
// environment's KAFKA_ settings and the processor simulator still gets none.
func TestKafkaSettingsWithoutOrWithKafkaOfYourOwn(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"a given user", []string{"KAFKA_SASL_MECHANISM", "SCRAM-SHA-256", "KAFKA_SASL_USERNAME", "ops", "KAFKA_SASL_PASSWORD", "given-password-0123"},
			"the KAFKA_SASL_ settings are for KAFKA_BROKERS: the embedded broker (no KAFKA_BROKERS) makes a user for each service and the gateway"},
		{"TLS", []string{"KAFKA_TLS_ENABLED", "true"}, "the embedded broker (no KAFKA_BROKERS) listens on loopback without TLS"},
	} {
		f := newFixture(t, tc.env...)
		ready, done := f.run(t.Context())
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s without KAFKA_BROKERS: %v, want %q", tc.name, err, tc.want)
			}
		case <-ready:
			t.Errorf("%s without KAFKA_BROKERS: the launcher started", tc.name)
		}
	}

	own := newFixture(t, "KAFKA_BROKERS", "kafka-1:9093", "KAFKA_TLS_ENABLED", "true", "KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
		"KAFKA_SASL_USERNAME", "marketplace", "KAFKA_SASL_PASSWORD", "operators-password")
	sys, _ := own.start(t)
	if len(sys.KafkaUsers) > 0 {
		t.Errorf("with KAFKA_BROKERS the launcher made users: %v", sys.KafkaUsers)
	}
	recs := records(own.records)
	for _, n := range append(modules.Names(), "gateway") {
		if got := kafkaSettings(recs[n][0].Env); got["KAFKA_SASL_PASSWORD"] != "operators-password" || got["KAFKA_TLS_ENABLED"] != "true" || got["KAFKA_BROKERS"] != "kafka-1:9093" {
			t.Errorf("%s got %v, want the environment's Kafka settings", n, got)
		}
	}
	if got := kafkaSettings(recs["processor"][0].Env); len(got) > 0 {
		t.Errorf("the processor simulator got %v", got)
	}
	if _, ok := recs["broker"]; ok {
		t.Error("a broker of its own was started beside KAFKA_BROKERS")
	}
}
