package main

import (
	"bufio"
	"context"
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
// line, and keeps records in its data directory across a restart.
func TestBrokerCommand(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	dir := t.TempDir()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	getenv := func(k string) string { return map[string]string{"LOG_LEVEL": "warn"}[k] }

	// run starts the broker and returns once its ready line is out.
	run := func() (stop func()) {
		t.Helper()
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
			if !strings.HasPrefix(line, launch.BrokerReady+addr+" ") || !strings.Contains(line, dir) {
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

	stop := run()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := kafka.DialContext(ctx, "tcp", addr)
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
	leader, err := kafka.DialLeader(ctx, "tcp", addr, topic, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := leader.WriteMessages(kafka.Message{Key: []byte("k"), Value: []byte("kept across a restart")}); err != nil {
		t.Fatal(err)
	}
	leader.Close()
	stop()

	stop = run()
	defer stop()
	leader, err = kafka.DialLeader(ctx, "tcp", addr, topic, 0)
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
	getenv := func(string) string { return "" }
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-port", "70000"}, "-port 70000 is not a port"},
		{[]string{"-port", "-1"}, "-port -1 is not a port"},
		{[]string{"-data", ""}, "-data is required"},
		{[]string{"extra"}, `unexpected arguments ["extra"]`},
		{[]string{"-bogus"}, "flag provided but not defined"},
	} {
		err := broker(context.Background(), c.args, getenv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("broker %q: %v, want %q", c.args, err, c.want)
		}
	}
}
