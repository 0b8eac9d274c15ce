package events

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
// from; group c handles it. A replay of a's dead letters, written in a's
// topic as the operator's command writes it (its listing and replaying are
// tested in deploy/deadletters), has a handle the event (recorded under its
// topic, orders), and nobody else: b's copy stays parked, c does not see the
// event again, and nothing is written to the shared topic. A replay that
// fails again is parked again, as a new dead letter; a record of the
// dead-letter topic that is no replay (as a consumer writes it) is never
// handled; a replay mark on a message of the shared topic means nothing
// (parked, it says where it really came from).
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

			parked := map[string][]kafka.Message{}
			for g, want := range map[string][]string{"a": {bad.ID, marked.ID}, "b": {bad.ID}} {
				var ids []string
				for _, m := range readTopic(t, h.broker.Addrs(), DeadLetterTopic(g), len(want)) {
					env, err := Decode(m.Value)
					hd := HeadersFromKafka(m.Headers)
					if err != nil || env.Type != "order.created" || hd[SourceTopicHeader] != topic || hd[GroupHeader] != g ||
						!strings.Contains(hd[ErrorHeader], "cannot apply") || hd[ReplayOfHeader] != "" {
						t.Fatalf("group %s parked %s %v (%v), want one of %v from %s by %s with its error", g, m.Value, hd, err, want, topic, g)
					}
					ids = append(ids, env.ID)
					parked[g] = append(parked[g], m)
				}
				if slices.Sort(ids); !slices.Equal(ids, slices.Sorted(slices.Values(want))) {
					t.Fatalf("group %s parked %v, want %v", g, ids, want)
				}
				if n := endOffset(t, h, DeadLetterTopic(g)); n != int64(len(want)) {
					t.Fatalf("group %s parked %d records, want %d", g, n, len(want))
				}
			}
			if n := endOffset(t, h, DeadLetterTopic("c")); n != 0 {
				t.Fatalf("group c parked %d records", n)
			}

			// The fix is deployed to a and b; only a is replayed.
			aFails.Store(false)
			bFails.Store(false)
			sharedEnd := endOffset(t, h, topic)
			replay(t, h, parked["a"]...)
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
			if n := endOffset(t, h, DeadLetterTopic("a")); n != 4 {
				t.Errorf("a's dead-letter topic holds %d records after the replay, want its 2 and their 2 replays, nothing parked again", n)
			}
			if n := endOffset(t, h, DeadLetterTopic("b")); n != 1 {
				t.Errorf("b's dead-letter topic holds %d records, want the one it parked", n)
			}

			// b fails again on its replay: parked again, a new dead letter.
			bFails.Store(true)
			replay(t, h, parked["b"]...)
			waitFor(t, 10*time.Second, func() bool { return recs["b"].callsOf(bad.ID) == 4 })
			waitFor(t, 10*time.Second, func() bool { return endOffset(t, h, DeadLetterTopic("b")) == 3 })
			var again []kafka.Message
			for _, m := range readTopic(t, h.broker.Addrs(), DeadLetterTopic("b"), 3) {
				first := m.Partition == parked["b"][0].Partition && m.Offset == parked["b"][0].Offset
				if _, isReplay := HeadersFromKafka(m.Headers)[ReplayOfHeader]; !first && !isReplay {
					again = append(again, m)
				}
			}
			if len(again) != 1 {
				t.Fatalf("b parked again %d records, want 1", len(again))
			}
			env, err := Decode(again[0].Value)
			if hd := HeadersFromKafka(again[0].Headers); err != nil || env.ID != bad.ID || hd[SourceTopicHeader] != topic || hd[GroupHeader] != "b" ||
				!strings.Contains(hd[ErrorHeader], "cannot apply") || hd[ReplayOfHeader] != "" || hd[ReplayedAtHeader] != "" {
				t.Fatalf("b parked again %s %v (%v), want %s from %s with its error, no replay mark", again[0].Value, hd, err, bad.ID, topic)
			}

			// What a consumer parks is never handled: a parked record written
			// straight into c's topic (no replay mark) is acknowledged.
			pe := Envelope{ID: "evt_parked", Type: "order.created", Source: "test", Time: time.Now(), Subject: "ord_3", Data: []byte(`{}`)}
			pm := envMsg(t, pe)
			pm.Topic, pm.Headers = DeadLetterTopic("c"), map[string]string{SourceTopicHeader: topic, ErrorHeader: "x"}
			last := Envelope{ID: "evt_last", Type: "order.created", Source: "test", Time: time.Now(), Subject: "ord_3", Data: []byte(`{}`)}
			if err := h.pub.Publish(h.ctx, pm, envMsg(t, last)); err != nil {
				t.Fatal(err)
			}
			recs["c"].waitSeen(t, 10*time.Second, last.ID)
			time.Sleep(500 * time.Millisecond)
			if n := recs["c"].callsOf(pe.ID); n != 0 {
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

// replay writes into a group's dead-letter topic a replay of each of its
// parked records, as the operator's command does (deploy/deadletters): a
// copy without the error, marked with the record it copies.
func replay(t *testing.T, h *harness, parked ...kafka.Message) {
	t.Helper()
	var msgs []Message
	for _, m := range parked {
		hd := HeadersFromKafka(m.Headers)
		delete(hd, ErrorHeader)
		hd[ReplayOfHeader] = fmt.Sprintf("%d/%d", m.Partition, m.Offset)
		hd[ReplayedAtHeader] = time.Now().UTC().Format(time.RFC3339Nano)
		msgs = append(msgs, Message{Topic: m.Topic, Key: m.Key, Value: m.Value, Headers: hd})
	}
	if err := h.pub.Publish(h.ctx, msgs...); err != nil {
		t.Fatal(err)
	}
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
