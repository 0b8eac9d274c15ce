package events

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/bson"
)

// Each consumer group parks what it gives up on in its own dead-letter
// topic, and a replay goes back to that group alone. Groups a and b fail on
// the same event and park it, each in its own topic, saying where it came
// from; group c handles it. Replaying a's dead letters has a handle the
// event (recorded under its topic, orders), and nobody else: b's copy stays
// parked and unreplayed, c does not see the event again, and nothing is
// written to the shared topic. A replay that fails again is parked again, as
// a new dead letter; a replayed dead letter is not replayed twice; a record
// of the dead-letter topic that is no replay (as a consumer writes it) is
// never handled; a replay mark on a message of the shared topic means
// nothing (parked, it says where it really came from).
func TestDeadLettersAreEachGroupsOwnAndReplayToItAlone(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts func(*ConsumerConfig)
	}{
		{"one at a time", func(c *ConsumerConfig) { c.BatchSize = 1 }},
		{"batch", batchOpts},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, "")
			poison := errors.New("cannot apply")
			var badID atomic.Value
			badID.Store("")
			var aFails, bFails atomic.Bool
			aFails.Store(true)
			bFails.Store(true)
			failing := func(on *atomic.Bool, alsoMarked bool) func(Envelope) error {
				return func(e Envelope) error {
					if on.Load() && (e.ID == badID.Load().(string) || alsoMarked && e.ID == "evt_marked") {
						return poison
					}
					return nil
				}
			}
			recs := map[string]*recorder{"a": newRecorder(), "b": newRecorder(), "c": newRecorder()}
			recs["a"].fail, recs["b"].fail = failing(&aFails, true), failing(&bFails, false)
			bad := h.commit(h.ctx, "ord_1", map[string]int{"n": 1})
			badID.Store(bad.ID)
			good := h.commit(h.ctx, "ord_1", map[string]int{"n": 2})
			// A message of the shared topic marked as a replay is an event
			// like any other (a fails on it too).
			marked := Envelope{ID: "evt_marked", Type: "order.created", Source: "test", Time: time.Now(), Subject: "ord_2", Data: []byte(`{}`)}
			mm := envMsg(t, marked)
			mm.Headers = map[string]string{ReplayOfHeader: "0/0", SourceTopicHeader: "elsewhere"}
			if err := h.pub.Publish(h.ctx, mm); err != nil {
				t.Fatal(err)
			}
			for g, rec := range recs {
				h.startConsumer(g, h.db, rec.handle, 2, tc.opts)
			}
			h.startRelay(NewRelay(h.db, h.pub, h.logger))
			for _, rec := range recs {
				rec.waitSeen(t, 10*time.Second, good.ID)
			}
			recs["b"].waitSeen(t, 10*time.Second, marked.ID)
			recs["c"].waitSeen(t, 10*time.Second, bad.ID, marked.ID)

			for g, n := range map[string]int{"a": 2, "b": 1} {
				for _, m := range readTopic(t, h.broker.Addrs(), DeadLetterTopic(g), n) {
					env, err := Decode(m.Value)
					hd := headersFromKafka(m.Headers)
					if err != nil || (env.ID != bad.ID && env.ID != marked.ID) || hd[SourceTopicHeader] != topic || hd[GroupHeader] != g ||
						!strings.Contains(hd[ErrorHeader], "cannot apply") || hd[ReplayOfHeader] != "" {
						t.Fatalf("group %s parked %s %v (%v), want %s from %s by %s with its error", g, m.Value, hd, err, bad.ID, topic, g)
					}
				}
			}
			if got := deadLetters(t, h, "c"); len(got) != 0 {
				t.Fatalf("group c parked %v", got)
			}
			d := deadLetters(t, h, "a")
			if len(d) != 2 {
				t.Fatalf("a's dead letters %+v, want 2", d)
			}
			for _, d := range d {
				if d.Replayed || d.Topic != topic || d.Type != "order.created" || (d.ID != bad.ID && d.ID != marked.ID) {
					t.Fatalf("a's dead letter %+v, want %s or %s from %s, not replayed", d, bad.ID, marked.ID, topic)
				}
			}

			// The fix is deployed to a and b; only a is replayed.
			aFails.Store(false)
			bFails.Store(false)
			sharedEnd := endOffset(t, h, topic)
			replayed, err := ReplayDeadLetters(h.ctx, h.broker.Brokers(), "a", nil)
			if err != nil || len(replayed) != 2 {
				t.Fatalf("replay a: %+v %v", replayed, err)
			}
			recs["a"].waitSeen(t, 10*time.Second, bad.ID, marked.ID)
			time.Sleep(1500 * time.Millisecond) // time for anyone else to see it, wrongly
			for g, want := range map[string]int{"a": 3, "b": 2, "c": 1} {
				if n := recs[g].callsOf(bad.ID); n != want {
					t.Errorf("group %s ran the event %d times, want %d", g, n, want)
				}
			}
			if n := endOffset(t, h, topic); n != sharedEnd {
				t.Errorf("the replay wrote to the shared topic: end offset %d → %d", sharedEnd, n)
			}
			var rec processedDoc
			if err := h.db.Collection(processedCollection).FindOne(h.ctx, bson.D{{Key: "_id", Value: "a/" + bad.ID}}).Decode(&rec); err != nil || rec.Topic != topic {
				t.Errorf("a's record of the replayed event: %+v %v, want it under topic %s", rec, err, topic)
			}
			if d := deadLetters(t, h, "a"); len(d) != 2 || !d[0].Replayed || !d[1].Replayed {
				t.Fatalf("a's dead letters after the replay %+v, want both replayed", d)
			}
			if again, err := ReplayDeadLetters(h.ctx, h.broker.Brokers(), "a", nil); err != nil || len(again) != 0 {
				t.Fatalf("a replayed again: %+v %v", again, err)
			}
			if d := deadLetters(t, h, "b"); len(d) != 1 || d[0].Replayed {
				t.Fatalf("b's dead letters %+v, want the one, not replayed", d)
			}

			// b fails again on its replay: parked again, a new dead letter.
			bFails.Store(true)
			if r, err := ReplayDeadLetters(h.ctx, h.broker.Brokers(), "b", func(d DeadLetter) bool { return d.ID == bad.ID }); err != nil || len(r) != 1 {
				t.Fatalf("replay b: %+v %v", r, err)
			}
			waitFor(t, 10*time.Second, func() bool { return recs["b"].callsOf(bad.ID) == 4 })
			waitFor(t, 10*time.Second, func() bool { d = deadLetters(t, h, "b"); return len(d) == 2 })
			if !d[0].Replayed || d[1].Replayed || d[1].ID != bad.ID || d[1].Topic != topic || !strings.Contains(d[1].Error, "cannot apply") {
				t.Fatalf("b's dead letters %+v, want the first replayed and the event parked again from %s", d, topic)
			}

			// What a consumer parks is never handled: a parked record written
			// straight into c's topic (no replay mark) is acknowledged.
			parked := Envelope{ID: "evt_parked", Type: "order.created", Source: "test", Time: time.Now(), Subject: "ord_3", Data: []byte(`{}`)}
			pm := envMsg(t, parked)
			pm.Topic, pm.Headers = DeadLetterTopic("c"), map[string]string{SourceTopicHeader: topic, ErrorHeader: "x"}
			last := Envelope{ID: "evt_last", Type: "order.created", Source: "test", Time: time.Now(), Subject: "ord_3", Data: []byte(`{}`)}
			if err := h.pub.Publish(h.ctx, pm, envMsg(t, last)); err != nil {
				t.Fatal(err)
			}
			recs["c"].waitSeen(t, 10*time.Second, last.ID)
			time.Sleep(500 * time.Millisecond)
			if n := recs["c"].callsOf(parked.ID); n != 0 {
				t.Errorf("c handled a record of its dead-letter topic that is no replay (%d times)", n)
			}
		})
	}
}

// A group whose name cannot name a topic is refused at start, and so is a
// dead-letter topic given as a topic to consume.
func TestConsumerRefusesWhatCannotHaveItsOwnDeadLetterTopic(t *testing.T) {
	h := newHarness(t, "")
	for _, tc := range []struct {
		group  string
		topics []string
		want   string
	}{
		{"orders/projection", []string{topic}, "cannot name its dead-letter topic"},
		{"g1", []string{topic, DeadLetterTopic("g2")}, "is not a topic to consume"},
	} {
		err := RunConsumer(h.ctx, ConsumerConfig{Brokers: h.broker.Brokers(), GroupID: tc.group, Topics: tc.topics, DB: h.db,
			Handler: func(context.Context, Envelope) error { return nil }, Handles: testVersions})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("group %s topics %v: %v, want %q", tc.group, tc.topics, err, tc.want)
		}
	}
}

func deadLetters(t *testing.T, h *harness, group string) []DeadLetter {
	t.Helper()
	d, err := DeadLetters(h.ctx, h.broker.Brokers(), group)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// endOffset is the sum of topic's partitions' end offsets.
func endOffset(t *testing.T, h *harness, topic string) int64 {
	t.Helper()
	b := h.broker.Brokers()
	tr := b.Transport("test")
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: b.Addr(), Transport: tr, Timeout: 10 * time.Second}
	var req []kafka.OffsetRequest
	for p := range brokerPartitions {
		req = append(req, kafka.LastOffsetOf(p))
	}
	resp, err := client.ListOffsets(h.ctx, &kafka.ListOffsetsRequest{Topics: map[string][]kafka.OffsetRequest{topic: req}})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, p := range resp.Topics[topic] {
		if p.Error != nil {
			t.Fatal(p.Error)
		}
		n += p.LastOffset
	}
	return n
}
