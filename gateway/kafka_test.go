package gateway

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"marketplace/libs/events"
)

// The gateway on its own reads the KAFKA_ settings every program reads, and
// stops at start when the brokers refuse them, naming the setting, as a
// service does.
func TestRunStopsWhenKafkaRefusesIt(t *testing.T) {
	b, err := events.StartBrokerWith(events.BrokerOptions{Users: []events.Credentials{{Mechanism: events.SASLScramSHA512, Username: "gateway", Password: "right-password"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{}, "requires authentication: set KAFKA_SASL_MECHANISM"},
		{map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "gateway", "KAFKA_SASL_PASSWORD": "wrong"}, "refused the SASL credentials"},
		{map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "gateway"}, "needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD"},
	} {
		env := map[string]string{"KAFKA_BROKERS": b.Addrs()[0], "AUTH_DEV_SECRET": "0123456789abcdef-dev", "GATEWAY_SERVICES": "board",
			"HTTP_ADDR": "127.0.0.1:0", "METRICS_ADDR": "127.0.0.1:0", "LOG_LEVEL": "error"}
		for k, v := range tc.env {
			env[k] = v
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := Run(ctx, func(k string) string { return env[k] }, io.Discard, nil)
		cancel()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: Run = %v, want %q", tc.env, err, tc.want)
		}
		if strings.Contains(tc.want, "refused") && !errors.Is(err, events.ErrBrokerRefused) {
			t.Errorf("%v is not ErrBrokerRefused", err)
		}
	}
}
