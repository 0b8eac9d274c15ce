package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"marketplace/deploy/launch"
	"marketplace/deploy/modules"
	"marketplace/deploy/systemtest"
	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
)

// `marketplace broker` listens on the port it is given, creates every topic of
// the module list (the consumer groups' dead-letter topics are their
// consumers' to create, with their own users), says so with its ready
// line, requires the SASL users of its -users file (one per service and the
// gateway) and holds each to what the module list allows it, and keeps
// records in its data directory across a restart; the users are the
// restart's own (the launcher makes new ones per run), the previous ones are
// refused.
func TestBrokerCommand(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	usersFile := filepath.Join(t.TempDir(), "users.json")
	addr := "127.0.0.1:" + strconv.Itoa(port)
	client := func(u events.Credentials) events.Brokers {
		t.Helper()
		b, err := events.KafkaSettings{KafkaBrokers: []string{addr}, KafkaSASLMechanism: u.Mechanism,
			KafkaSASLUsername: u.Username, KafkaSASLPassword: u.Password}.Kafka()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	// run starts the broker requiring a new user for each program and
	// returns them once its ready line is out.
	run := func() (users map[string]events.Credentials, stop func()) {
		t.Helper()
		users = map[string]events.Credentials{}
		var creds []events.Credentials
		for _, u := range modules.KafkaUsers(modules.All) {
			users[u.Username] = u.Credentials
			creds = append(creds, u.Credentials)
		}
		if err := launch.WriteBrokerUsers(usersFile, creds); err != nil {
			t.Fatal(err)
		}
		env := map[string]string{"LOG_LEVEL": "warn"}
		getenv := func(k string) string { return env[k] }
		ctx, cancel := context.WithCancel(context.Background())
		pr, pw := io.Pipe()
		done := make(chan error, 1)
		go func() {
			done <- broker(ctx, []string{"-port", strconv.Itoa(port), "-data", dir, "-users", usersFile}, getenv, io.Discard, pw)
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
			if !strings.HasPrefix(line, launch.BrokerReady+addr+" ") || !strings.Contains(line, dir) || !strings.Contains(line, "allowed only its own topics and groups") {
				t.Fatalf("ready line %q", line)
			}
			for _, u := range users {
				if strings.Contains(line, u.Password) {
					t.Fatalf("ready line %q shows a password", line)
				}
			}
		case err := <-done:
			t.Fatalf("broker: %v", err)
		case <-time.After(20 * time.Second):
			t.Fatal("no ready line within 20s")
		}
		return users, func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("broker stopped with %v", err)
			}
		}
	}

	users, stop := run()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := (events.Brokers{Addrs: []string{addr}}).Check(ctx, "test"); !errors.Is(err, events.ErrBrokerRefused) {
		t.Fatalf("a client without credentials: %v, want refused", err)
	}
	// Every topic exists: each is seen by a user that may use it.
	seen := map[string]bool{}
	for _, u := range users {
		conn, err := client(u).Dialer("test").DialContext(ctx, "tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		parts, err := conn.ReadPartitions()
		conn.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range parts {
			seen[p.Topic] = true
		}
	}
	for _, tp := range systemtest.KafkaTopics(modules.All) {
		if !seen[tp] {
			t.Errorf("topic %s missing: %v", tp, seen)
		}
	}
	// Each user may do what the module list says, and nothing more.
	systemtest.CheckKafkaRights(t, modules.All, func(name string) events.Brokers { return client(users[name]) })

	if err := eventstest.Write(ctx, client(users["customers"]), "orders", []byte("kept across a restart")); err != nil {
		t.Fatal(err)
	}
	stop()

	second, stop := run()
	defer stop()
	if err := client(users["payouts"]).Check(ctx, "test"); !errors.Is(err, events.ErrBrokerRefused) {
		t.Fatalf("the previous run's password after a restart: %v, want refused", err)
	}
	leader, err := client(second["payouts"]).Dialer("test").DialLeader(ctx, "tcp", addr, "orders", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer leader.Close()
	leader.SetDeadline(time.Now().Add(10 * time.Second))
	var last string
	for {
		m, err := leader.ReadMessage(1 << 20)
		if err != nil {
			break
		}
		last = string(m.Value)
		if last == "kept across a restart" {
			break
		}
	}
	if last != "kept across a restart" {
		t.Fatalf("after a restart the last record read is %q, want the one written before", last)
	}
	// The restart holds the users to the module list again (ACLs are each
	// start's, recreated): reviews may still not write orders.
	if err := eventstest.Write(ctx, client(second["reviews"]), "orders", systemtest.ProbeEvent("reviews")); !eventstest.Refused(err) {
		t.Fatalf("reviews writes orders after a restart: %v, want refused", err)
	}
}

func TestBrokerCommandArguments(t *testing.T) {
	dir := t.TempDir()
	users := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := `[{"name":"reviews","mechanism":"SCRAM-SHA-512","password":"a-long-enough-password"}]`
	for _, c := range []struct {
		args []string
		want string
		env  map[string]string
	}{
		{nil, "-users FILE is required", nil},
		{[]string{"-no-auth", "-users", users("ok.json", good, 0o600)}, "-no-auth and -users: choose one", nil},
		{nil, "without TLS: unset the KAFKA_TLS_ settings", map[string]string{"KAFKA_TLS_ENABLED": "true"}},
		{[]string{"-users", users("ok2.json", good, 0o600)}, "the KAFKA_SASL_ settings are a client's", map[string]string{"KAFKA_SASL_MECHANISM": "SCRAM-SHA-512", "KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": "p"}},
		{[]string{"-users", users("open.json", good, 0o644)}, "make it readable by its owner only", nil},
		{[]string{"-users", filepath.Join(dir, "missing.json")}, "no such file", nil},
		{[]string{"-users", users("junk.json", "name=pw", 0o600)}, "not a JSON list of users", nil},
		{[]string{"-users", users("empty.json", "[]", 0o600)}, "names no user", nil},
		{[]string{"-users", users("stranger.json", `[{"name":"admin","mechanism":"SCRAM-SHA-512","password":"a-long-enough-password"}]`, 0o600)},
			`user "admin" is neither a service of the module list nor "gateway"`, nil},
		{[]string{"-users", users("twice.json", `[{"name":"reviews","mechanism":"SCRAM-SHA-512","password":"a-long-enough-password"},{"name":"reviews","mechanism":"SCRAM-SHA-512","password":"a-long-enough-password"}]`, 0o600)},
			"user reviews is named twice", nil},
		{[]string{"-users", users("plain.json", `[{"name":"reviews","mechanism":"PLAIN","password":"a-long-enough-password"}]`, 0o600)}, `mechanism "PLAIN"`, nil},
		{[]string{"-users", users("short.json", `[{"name":"reviews","mechanism":"SCRAM-SHA-512","password":"short"}]`, 0o600)}, "at least 16 characters", nil},
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
