package convex

import (
	"context"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"

	"marketplace/libs/events"
	"marketplace/libs/events/eventstest"
)

// The follower reads a partition from its end: events kept from before it
// started (a live topic holds one per write ever made) are not read again.
func TestFollowerReadsFromTheEnd(t *testing.T) {
	const topic = "live.board"
	b, err := events.StartBroker(t.TempDir(), topic)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for range 3 {
		if err := eventstest.Write(ctx, b.Brokers(), topic, []byte("before")); err != nil {
			t.Fatal(err)
		}
	}
	r, err := tailReader(b.Brokers(), topicPartition{topic: topic, partition: 0})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	type fetched struct {
		m   kafka.Message
		err error
	}
	got := make(chan fetched, 1)
	go func() {
		m, err := r.FetchMessage(ctx)
		got <- fetched{m, err}
	}()
	// The end is resolved when the reader first fetches: write until it
	// reads something, which must be a later event, never a kept one.
	var f fetched
	for i := 0; ; i++ {
		if err := eventstest.Write(ctx, b.Brokers(), topic, []byte("after")); err != nil {
			t.Fatal(err)
		}
		select {
		case f = <-got:
		case <-time.After(200 * time.Millisecond):
			continue
		}
		break
	}
	m, err := f.m, f.err
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Value) != "after" || m.Offset < 3 {
		t.Fatalf("read %q at offset %d first, want an event written after the start (offset 3 or later)", m.Value, m.Offset)
	}
}
