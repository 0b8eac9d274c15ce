package events

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/logtest"
)

// publishEnvelope publishes one event with subject as its key (one subject,
// one partition), in a batch of its own.
func (h *harness) publishEnvelope(id, subject string) {
	h.t.Helper()
	env := Envelope{ID: id, Type: "order.created", Source: "test", Time: time.Now(), Subject: subject, Data: json.RawMessage(`{}`)}
	b, err := json.Marshal(env)
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.pub.Publish(h.ctx, Message{Topic: topic, Key: []byte(subject), Value: b}); err != nil {
		h.t.Fatal(err)
	}
}

func readOffsets(t *testing.T, addrs []string, group string) []partOffsets {
	t.Helper()
	tr := &kafka.Transport{}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for {
		parts, err := groupOffsets(ctx, &kafka.Client{Addr: kafka.TCP(addrs...), Transport: tr}, group, []string{topic})
		if err == nil {
			return parts
		}
		if ctx.Err() != nil {
			t.Fatalf("read offsets: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // a restarted broker's first request can fail
	}
}

// TestConsumerRecoversFromTruncatedLog: the broker lost the tail of its
// partitions (data files cut in half) but kept the group's committed offsets,
// which are now past the log end. Events published afterwards land below the
// committed offsets; the consumer must reset to the earliest retained offset
// and handle them, skipping the retained old events as duplicates.
func TestConsumerRecoversFromTruncatedLog(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, dir)
	logs := &logtest.Buffer{}
	h.logger = slog.New(slog.NewTextHandler(io.MultiWriter(t.Output(), logs), &slog.HandlerOptions{Level: slog.LevelWarn}))
	fast := func(c *ConsumerConfig) { c.CheckInterval = 200 * time.Millisecond }

	rec := newRecorder()
	stop := h.startConsumer("g1", h.db, rec.handle, 0, fast)
	const subjects, perSubject = 6, 6
	var old []string
	for i := range perSubject {
		for s := range subjects {
			id := fmt.Sprintf("evt_old_%d_%d", s, i)
			h.publishEnvelope(id, fmt.Sprintf("ord_%d", s))
			old = append(old, id)
		}
	}
	rec.waitSeen(t, 8*time.Second, old...)
	// The handler returns before the offsets are committed.
	waitFor(t, 5*time.Second, func() bool {
		for _, p := range readOffsets(t, h.broker.Addrs(), "g1") {
			if p.lag() > 0 {
				return false
			}
		}
		return true
	})
	stop()
	h.wg.Wait()
	h.pub.Close()
	h.broker.Close()

	files, _ := filepath.Glob(filepath.Join(dir, "partitions", topic+"-*", "*.dat"))
	if len(files) == 0 {
		t.Fatal("no partition data files under the data dir")
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(f, fi.Size()/2); err != nil {
			t.Fatal(err)
		}
	}
	b, err := StartBroker(dir, topic)
	if err != nil {
		t.Fatal(err)
	}
	h.broker = b // closed by the harness
	h.pub = NewKafkaPublisher(b.Brokers(), h.logger)
	pastEnd := 0
	for _, p := range readOffsets(t, b.Addrs(), "g1") {
		if p.pastEnd() {
			pastEnd++
		}
	}
	if pastEnd == 0 {
		t.Fatal("setup: no committed offset is past the truncated log end")
	}

	// Each partition gets fewer new events than it lost, so all of them land
	// below the old committed offsets.
	rec2 := newRecorder()
	status := NewConsumerStatus(0)
	h.startConsumer("g1", h.db, rec2.handle, 0, fast, func(c *ConsumerConfig) { c.Status = status })
	var fresh []string
	for s := range subjects {
		id := fmt.Sprintf("evt_new_%d", s)
		h.publishEnvelope(id, fmt.Sprintf("ord_%d", s))
		fresh = append(fresh, id)
	}
	rec2.waitSeen(t, 10*time.Second, fresh...)
	time.Sleep(200 * time.Millisecond) // room for a duplicate to show up
	if got := len(rec2.snapshot()); got != len(fresh) {
		t.Errorf("handler ran %d times, want %d (retained old events must be skipped)", got, len(fresh))
	}
	if n := strings.Count(logs.String(), "committed offset out of range"); n < pastEnd {
		t.Errorf("%d warnings about the reset, want at least %d:\n%s", n, pastEnd, logs.String())
	}
	if !strings.Contains(logs.String(), "level=WARN msg=\"events: committed offset out of range") {
		t.Errorf("reset not logged as a warning:\n%s", logs.String())
	}
	waitFor(t, 5*time.Second, func() bool { return status.Check(context.Background()) == nil })
}

// TestConsumerStatusCheck drives the status through its states with a fake clock.
func TestConsumerStatusCheck(t *testing.T) {
	now := time.Unix(1_000_000, 0)
	s := NewConsumerStatus(time.Minute)
	s.now = func() time.Time { return now }
	ready := func(want bool, what string) {
		t.Helper()
		err := s.Check(context.Background())
		if (err == nil) != want {
			t.Fatalf("%s: Check() = %v, want ready %v", what, err, want)
		}
	}
	p := func(committed, earliest, end int64) []partOffsets {
		return []partOffsets{{topic: "orders", partition: 0, committed: committed, earliest: earliest, end: end}}
	}
	ready(true, "starting, nothing known")

	s.observe(p(10, 0, 4))
	ready(false, "committed past the log end")
	if err := s.Check(context.Background()); !strings.Contains(err.Error(), "orders/0: committed offset 10 outside the retained offsets [0, 4]") {
		t.Fatalf("Check() = %v", err)
	}
	s.recovered(p(10, 0, 4))
	ready(true, "reset to the earliest offset")
	now = now.Add(2 * time.Minute)
	ready(false, "reset but the consumer never moved")
	s.observe(p(4, 0, 4))
	ready(true, "caught up")

	now = now.Add(time.Hour)
	ready(true, "idle and caught up")
	s.observe(p(4, 0, 6))
	ready(true, "new records after a long idle time")
	now = now.Add(30 * time.Second)
	s.observe(p(5, 0, 7))
	now = now.Add(45 * time.Second)
	s.observe(p(5, 0, 8))
	ready(true, "behind but moving")
	now = now.Add(20 * time.Second)
	s.observe(p(5, 0, 8))
	ready(false, "behind and not moving for over a minute")
	s.observe(p(8, 0, 8))
	ready(true, "caught up again")

	s.observe(p(2, 5, 5))
	ready(false, "committed below the earliest offset")
	s.recovered(p(2, 5, 5))
	ready(true, "reset, nothing to read")

	s.fetchFailed(io.ErrUnexpectedEOF)
	now = now.Add(30 * time.Second)
	ready(true, "fetch failing briefly")
	now = now.Add(31 * time.Second)
	ready(false, "fetch failing for over a minute")
	s.fetched()
	ready(true, "fetched again")
	s.fetchFailed(io.ErrUnexpectedEOF)
	now = now.Add(2 * time.Minute)
	s.observe(p(5, 5, 5))
	ready(true, "fetching recovered and idle: the group is caught up")

	s.checkFailed(io.ErrUnexpectedEOF)
	now = now.Add(2 * time.Minute)
	ready(false, "offsets unreadable for over a minute")
	s.observe(p(5, 5, 5))
	ready(true, "offsets readable again")
}

// TestConsumerStatusReportsStuckHandler: a consumer whose handler hangs is
// reported once its lag has not moved for the threshold, and ready again once
// it catches up.
func TestConsumerStatusReportsStuckHandler(t *testing.T) {
	h := newHarness(t, "")
	release := make(chan struct{})
	var once sync.Once
	t.Cleanup(func() { once.Do(func() { close(release) }) })
	handled := make(chan string, 10)
	handler := func(ctx context.Context, env Envelope) error {
		select {
		case <-release:
		case <-ctx.Done():
			return ctx.Err()
		}
		handled <- env.ID
		return nil
	}
	status := NewConsumerStatus(500 * time.Millisecond)
	h.startConsumer("g1", h.db, handler, 0, func(c *ConsumerConfig) {
		c.CheckInterval = 100 * time.Millisecond
		c.Status = status
	})
	time.Sleep(300 * time.Millisecond)
	if err := status.Check(h.ctx); err != nil {
		t.Fatalf("starting consumer not ready: %v", err)
	}
	h.publishEnvelope("evt_1", "ord_1")
	waitFor(t, 5*time.Second, func() bool { return status.Check(h.ctx) != nil })
	if err := status.Check(h.ctx); !strings.Contains(err.Error(), "1 records behind") {
		t.Fatalf("Check() = %v", err)
	}
	once.Do(func() { close(release) })
	<-handled
	waitFor(t, 5*time.Second, func() bool { return status.Check(h.ctx) == nil })
}
