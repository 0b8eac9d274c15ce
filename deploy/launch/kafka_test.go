package launch_test

import (
	"strings"
	"testing"

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

// The broker of its own requires a SASL/SCRAM user made for the run, and the
// launcher gives that user to the services and the gateway, and to nobody
// else (the processor simulator gets no KAFKA_ setting at all); the next run
// makes another.
func TestBrokerUserPerRunForServicesAndGatewayOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var passwords []string
	for run := range 2 {
		f.records = t.TempDir()
		f.env["FAKE_RECORDS"] = f.records
		sys, h := f.start(t)
		recs := records(f.records)
		u := sys.KafkaUser
		if u.Mechanism != events.SASLScramSHA512 || u.Username == "" || len(u.Password) < 20 {
			t.Fatalf("run %d: the broker's user %+v, want SCRAM-SHA-512 with a long random password", run, u)
		}
		passwords = append(passwords, u.Password)
		want := map[string]string{"KAFKA_SASL_MECHANISM": u.Mechanism, "KAFKA_SASL_USERNAME": u.Username, "KAFKA_SASL_PASSWORD": u.Password}
		for _, n := range append(modules.Names(), "broker", "gateway") {
			got := kafkaSettings(recs[n][0].Env)
			delete(got, "KAFKA_BROKERS")
			if len(got) != len(want) || got["KAFKA_SASL_MECHANISM"] != want["KAFKA_SASL_MECHANISM"] ||
				got["KAFKA_SASL_USERNAME"] != want["KAFKA_SASL_USERNAME"] || got["KAFKA_SASL_PASSWORD"] != want["KAFKA_SASL_PASSWORD"] {
				t.Errorf("run %d: %s got the Kafka settings %v, want the run's user", run, n, got)
			}
		}
		if got := kafkaSettings(recs["processor"][0].Env); len(got) > 0 {
			t.Errorf("run %d: the processor simulator got %v", run, got)
		}
		if err := h.stop(t); err != nil {
			t.Fatal(err)
		}
	}
	if passwords[0] == passwords[1] {
		t.Error("two runs share the broker's password")
	}
}

// A user given in KAFKA_SASL_* is the broker's (and its programs'); TLS
// settings are refused for the broker of its own, which speaks none; with
// KAFKA_BROKERS the services and the gateway keep the environment's KAFKA_
// settings and the processor simulator still gets none.
func TestBrokerUserGivenOrKafkaOfYourOwn(t *testing.T) {
	t.Parallel()
	given := newFixture(t, "KAFKA_SASL_MECHANISM", "SCRAM-SHA-256", "KAFKA_SASL_USERNAME", "ops", "KAFKA_SASL_PASSWORD", "given-password-0123")
	sys, _ := given.start(t)
	if u := sys.KafkaUser; u != (events.Credentials{Mechanism: "SCRAM-SHA-256", Username: "ops", Password: "given-password-0123"}) {
		t.Errorf("the broker's user %+v, want the one given", u)
	}
	if env := records(given.records)["broker"][0].Env; env["KAFKA_SASL_USERNAME"] != "ops" || env["KAFKA_SASL_MECHANISM"] != "SCRAM-SHA-256" {
		t.Errorf("broker env %v", kafkaSettings(env))
	}

	tls := newFixture(t, "KAFKA_TLS_ENABLED", "true")
	ready, done := tls.run(t.Context())
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "the embedded broker (no KAFKA_BROKERS) listens on loopback without TLS") {
			t.Errorf("KAFKA_TLS_ENABLED without KAFKA_BROKERS: %v", err)
		}
	case <-ready:
		t.Error("KAFKA_TLS_ENABLED without KAFKA_BROKERS: the launcher started")
	}

	own := newFixture(t, "KAFKA_BROKERS", "kafka-1:9093", "KAFKA_TLS_ENABLED", "true", "KAFKA_SASL_MECHANISM", "SCRAM-SHA-512",
		"KAFKA_SASL_USERNAME", "marketplace", "KAFKA_SASL_PASSWORD", "operators-password")
	sys, _ = own.start(t)
	if sys.KafkaUser != (events.Credentials{}) {
		t.Errorf("with KAFKA_BROKERS the launcher made a user: %+v", sys.KafkaUser)
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
