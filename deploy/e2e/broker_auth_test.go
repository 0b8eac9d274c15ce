package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	st "marketplace/deploy/systemtest"
	"marketplace/libs/events"
)

// The all-in-one's embedded broker requires the SASL user made for the run:
// a client without its credentials, or with a wrong password, is refused
// every request (reading the topics' metadata, publishing a forged event)
// and told why; the run's credentials pass.
func TestEmbeddedBrokerRequiresTheRunsCredentials(t *testing.T) {
	s := st.Start(t)
	if s.Brokers.SASL == nil || s.Brokers.SASL.Name() != events.SASLScramSHA512 {
		t.Fatalf("the all-in-one's brokers %+v: want SCRAM-SHA-512 credentials", s.Brokers)
	}
	wrong, err := events.KafkaSettings{KafkaBrokers: s.Brokers.Addrs, KafkaSASLMechanism: events.SASLScramSHA512,
		KafkaSASLUsername: "marketplace", KafkaSASLPassword: "guessed-password"}.Kafka()
	if err != nil {
		t.Fatal(err)
	}
	outsiders := []struct {
		name    string
		brokers events.Brokers
		want    string
	}{
		{"no credentials", events.Brokers{Addrs: s.Brokers.Addrs}, "requires authentication"},
		{"a guessed password", wrong, "refused the SASL credentials"},
	}
	for _, o := range outsiders {
		t.Run(o.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if err := o.brokers.Check(ctx, "outsider"); !errors.Is(err, events.ErrBrokerRefused) || !strings.Contains(err.Error(), o.want) {
				t.Fatalf("check = %v, want a refusal saying %q", err, o.want)
			}
			pub := events.NewKafkaPublisher(o.brokers, nil)
			defer pub.Close()
			if err := pub.Publish(ctx, events.Message{Topic: "orders", Key: []byte("o1"), Value: []byte(`{"forged":true}`)}); err == nil {
				t.Fatal("an outsider published on the all-in-one's broker")
			}
		})
	}
	// The run's own credentials pass the same check.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := s.Brokers.Check(ctx, "e2e"); err != nil {
		t.Fatalf("the run's credentials: %v", err)
	}
}
