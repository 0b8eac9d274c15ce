package events

import (
	"encoding/json"
	"testing"
	"time"
)

// envMsg is e as a message on the test topic, keyed by its subject.
func envMsg(t *testing.T, e Envelope) Message {
	t.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	return Message{Topic: topic, Key: []byte(e.Subject), Value: b}
}

// A forged event that reuses a real event's id (another subject, type and
// data) never makes the real one a duplicate, whichever arrives first, and
// each of them, redelivered, is still handled once: one event at a time and
// in one batch.
func TestEventsSharingAnIDAreNotDuplicates(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(*ConsumerConfig)
	}{
		{"one at a time", func(c *ConsumerConfig) { c.BatchSize = 1 }},
		{"batch", batchOpts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "")
			rec := newRecorder()
			h.startConsumer("g1", h.db, rec.handle, 0, tc.opts)
			real := Envelope{ID: "evt_real", Type: "order.status_changed", Source: "customers", Time: time.Now(), Subject: "ord_real",
				Data: json.RawMessage(`{"orderId":"ord_real","to":"delivered"}`)}
			forged := Envelope{ID: real.ID, Type: "order.created", Source: "customers", Time: time.Now(), Subject: "ord_forged",
				Data: json.RawMessage(`{"orderId":"ord_forged"}`)}
			sameKey := forged
			sameKey.Subject = real.Subject // same partition as the real one, before it
			last := Envelope{ID: "evt_last", Type: "order.last", Source: "test", Time: time.Now(), Subject: real.Subject, Data: json.RawMessage(`{}`)}

			// The forged copy first, handled before the real one arrives.
			if err := h.pub.Publish(h.ctx, envMsg(t, forged)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 8*time.Second, func() bool { return len(rec.snapshot()) == 1 })
			// Then, on the real one's partition in one fetch: the real one, a
			// redelivery of it, a forged copy with its subject, the first forged
			// copy again, and a last event.
			if err := h.pub.Publish(h.ctx, envMsg(t, real), envMsg(t, real), envMsg(t, sameKey), envMsg(t, sameKey), envMsg(t, forged)); err != nil {
				t.Fatal(err)
			}
			if err := h.pub.Publish(h.ctx, envMsg(t, last)); err != nil {
				t.Fatal(err)
			}
			rec.waitSeen(t, 8*time.Second, last.ID)
			time.Sleep(100 * time.Millisecond)
			got := map[string]int{}
			for _, e := range rec.snapshot() {
				got[e.Subject+" "+e.Type]++
			}
			want := map[string]int{"ord_forged order.created": 1, "ord_real order.status_changed": 1, "ord_real order.created": 1}
			for k, n := range want {
				if got[k] != n {
					t.Errorf("%s handled %d times, want %d (all: %v)", k, got[k], n, got)
				}
			}
			if n := countProcessed(t, h.db); n != 4 {
				t.Errorf("%d processed records, want 4", n)
			}
		})
	}
}

// A record written before digests (keyed by group/id, no digest) still makes
// a redelivery of its event a duplicate, after an upgrade; one of another type
// does not stand for the event.
func TestRecordsWithoutDigestAreHonoured(t *testing.T) {
	h := newHarness(t, "")
	for _, d := range []processedDoc{
		{ID: "g1/evt_old", EventID: "evt_old", Group: "g1", Topic: topic, Type: "order.created", ProcessedAt: time.Now().UTC()},
		{ID: "g1/evt_other", EventID: "evt_other", Group: "g1", Topic: topic, Type: "order.cancelled", ProcessedAt: time.Now().UTC()},
	} {
		if _, err := h.db.Collection(processedCollection).InsertOne(h.ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	rec := newRecorder()
	h.startConsumer("g1", h.db, rec.handle, 0)
	old := Envelope{ID: "evt_old", Type: "order.created", Source: "test", Time: time.Now(), Subject: "ord_1", Data: json.RawMessage(`{}`)}
	other := Envelope{ID: "evt_other", Type: "order.created", Source: "test", Time: time.Now(), Subject: "ord_1", Data: json.RawMessage(`{}`)}
	if err := h.pub.Publish(h.ctx, envMsg(t, old), envMsg(t, other)); err != nil {
		t.Fatal(err)
	}
	rec.waitSeen(t, 8*time.Second, other.ID)
	time.Sleep(100 * time.Millisecond)
	if n := rec.callsOf(old.ID); n != 0 {
		t.Fatalf("an event recorded before the upgrade was handled %d times", n)
	}
	if n := rec.callsOf(other.ID); n != 1 {
		t.Fatalf("an event whose id was recorded for another type was handled %d times, want 1", n)
	}
}
