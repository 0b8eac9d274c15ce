package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/libs/events"
)

// `marketplace broker` listens on the port it is given, creates every topic of
// the module list (and their dead-letter topics), says so with its ready
// line, requires the SASL user it is given, and keeps records in its data
// directory across a restart; the user is the restart's own (the launcher
// makes a new one per run), the previous one is refused.
func TestBrokerCommand(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	settings := func(password string) map[string]string {
		return map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "marketplace", "KAFKA_SASL_PASSWORD": password}
	}
	client := func(password string) events.Brokers {
		t.Helper()
		s := settings(password)
		b, err := events.KafkaSettings{KafkaBrokers: []string{addr}, KafkaSASLMechanism: s["KAFKA_SASL_MECHANISM"],
			KafkaSASLUsername: s["KAFKA_SASL_USERNAME"], KafkaSASLPassword: s["KAFKA_SASL_PASSWORD"]}.Kafka()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	// run starts the broker requiring the user with password and returns
	// once its ready line is out.
	run := func(password string) (stop func()) {
		t.Helper()
		env := settings(password)
		env["LOG_LEVEL"] = "warn"
		getenv := func(k string) string { return env[k] }
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- broker(ctx, []string{"-port", strconv.Itoa(port), "-data", dir}, getenv, io.Discard, pw)
			pw.Close()
		}()
		ready := make(chan string, 1)
		go func() {
			sc := bufio.NewScanner(pr)
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), launch.BrokerReady) {
					ready <- sc.Text()
				}
			}
		}()
		select {
		case line := <-ready:
			if !strings.HasPrefix(line, launch.BrokerReady+addr+" ") || !strings.Contains(line, dir) || !strings.Contains(line, "KAFKA_SASL_MECHANISM=SCRAM-SHA-512") || strings.Contains(line, password) {
				t.Fatalf("ready line %q", line)
			}
		case err := <-done:
			t.Fatalf("broker: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatal("no ready line within 20s")
		}
		return func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("broker stopped with %v", err)
			}
		}
	}

	stop := run("first-run-password")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := (events.Brokers{Addrs: []string{addr}}).Check(ctx, "test"); !errors.Is(err, events.ErrBrokerRefused) {
		t.Fatalf("a client without credentials: %v, want refused", err)
	}
	first := client("first-run-password").Dialer("test")
	conn, err := first.DialContext(ctx, "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	parts, err := conn.ReadPartitions()
	conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	var topics []string
	for _, p := range parts {
		topics = append(topics, p.Topic)
	}
	for _, tp := range modules.Topics(modules.All) {
		if !slices.Contains(topics, tp) || !slices.Contains(topics, tp+events.DLQSuffix) {
			t.Errorf("topic %s (or its dead-letter topic) missing: %v", tp, topics)
		}
	}
	topic := modules.Topics(modules.All)[0]
	leader, err := first.DialLeader(ctx, "tcp", addr, topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leader.WriteMessages(kafka.Message{Key: []byte("k"), Value: []byte("kept across a restart")}); err != nil {
		t.Fatal(err)
	}
	leader.Close()
	stop()

	stop = run("second-run-password")
	defer stop()
	if err := client("first-run-password").Check(ctx, "test"); !errors.Is(err, events.ErrBrokerRefused) {
		t.Fatalf("the previous run's password after a restart: %v, want refused", err)
	}
	leader, err = client("second-run-password").Dialer("test").DialLeader(ctx, "tcp", addr, topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer leader.Close()
	leader.SetDeadline(time.Now().Add(10 * time.Second))
	if last, err := leader.ReadLastOffset(); err != nil || last != 1 {
		t.Fatalf("after a restart the partition ends at %d (%v), want 1", last, err)
	}
	m, err := leader.ReadMessage(1 << 20)
	if err != nil || string(m.Value) != "kept across a restart" {
		t.Fatalf("after a restart: %q, %v", m.Value, err)
	}
}

func TestBrokerCommandArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
		env  map[string]string
	}{
		{nil, "set KAFKA_SASL_MECHANISM (SCRAM-SHA-512), KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD", nil},
		{[]string{"-no-auth"}, "-no-auth and KAFKA_SASL_MECHANISM: choose one", map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-256", "KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": "p"}},
		{nil, "without TLS: unset the KAFKA_TLS_ settings", map[string]string{"KAFKA_TLS_ENABLED": "true"}},
		{nil, `KAFKA_SASL_MECHANISM "GSSAPI" must be`, map[string]string{"KAFKA_SASL_MECHANISM": "GSSAPI"}},
		{[]string{"-port", "70000"}, "-port 70000 is not a port", nil},
		{[]string{"-port", "-1"}, "-port -1 is not a port", nil},
		{[]string{"-data", ""}, "-data is required", nil},
		{[]string{"extra"}, `unexpected arguments ["extra"]`, nil},
		{[]string{"-bogus"}, "flag provided but not defined", nil},
	} {
		err := broker(context.Background(), append([]string{"-data", t.TempDir()}, c.args...), func(k string) string { return c.env[k] }, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("broker %q: %v, want %q", c.args, err, c.want)
		}
	}
}
