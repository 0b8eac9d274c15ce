package service

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"marketplace/libs/events"
	"marketplace/libs/httpserver"
	"marketplace/libs/ops"
	"marketplace/libs/store"
)

// TestBrokerCheck: readiness fails while no broker accepts this service.
func TestBrokerCheck(t *testing.T) {
	b, err := events.StartBroker("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	up := b.Brokers()
	if err := brokerCheck(up, "t")(ctx); err != nil {
		t.Fatalf("a running broker failed the check: %v", err)
	}
	b.Close()
	if err := brokerCheck(up, "t")(ctx); err == nil {
		t.Fatal("a broker that is gone passed the check")
	}
}

// A service the broker refuses (wrong password, no credentials) does not
// start, and says which settings to look at; one whose broker is not up yet
// starts and retries.
func TestServiceRefusedByBrokerDoesNotStart(t *testing.T) {
	b, err := events.StartBrokerWith(events.BrokerOptions{Users: []events.Credentials{{Mechanism: events.SASLScramSHA512, Username: "t", Password: "right-password"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	wrong, err := events.KafkaSettings{KafkaBrokers: b.Addrs(), KafkaSASLMechanism: "SCRAM-SHA-512", KafkaSASLUsername: "t", KafkaSASLPassword: "wrong-password"}.Kafka()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		name    string
		brokers events.Brokers
		want    string // "": starts
	}{
		{"wrong password", wrong, "refused the SASL credentials (KAFKA_SASL_MECHANISM=SCRAM-SHA-512"},
		{"no credentials", events.Brokers{Addrs: b.Addrs()}, "requires authentication: set KAFKA_SASL_MECHANISM"},
		{"right credentials", b.Brokers(), ""},
		{"broker not up yet", events.Brokers{Addrs: []string{gone}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ready, done := make(chan struct{}), make(chan error, 1)
			m := Module{Name: "t", Build: func(context.Context, Env) (*Built, error) { return &Built{Registry: ops.NewRegistry("t")}, nil }}
			go func() {
				done <- Run(ctx, Options{Module: m, Listener: ln, DB: store.Options{Name: "t", Memory: true}, Brokers: tc.brokers,
					Logger: slog.New(slog.DiscardHandler), HTTP: httpserver.Defaults(), Ready: ready})
			}()
			select {
			case err := <-done:
				if tc.want == "" || err == nil || !errors.Is(err, events.ErrBrokerRefused) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Run = %v, want %s", err, map[bool]string{true: "it to start", false: "a refusal naming " + tc.want}[tc.want == ""])
				}
			case <-ready:
				if tc.want != "" {
					t.Fatalf("the service started; want a refusal naming %s", tc.want)
				}
				cancel()
				<-done
			}
		})
	}
}
