package events

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// effectDoc is what a test handler writes into the consumer's transaction:
// what committed shows each event's effect and the order of the committed runs.
type effectDoc struct {
	Event string `bson:"event"`
	Key   string `bson:"key"`
	N     int    `bson:"n"`
	At    int64  `bson:"at"` // when the run happened, among all runs
}

const effectsCollection = "effects"

// batchEvents publishes keys x perKey events, interleaved by key, in one
// produce call; event "evt_<key>_<n>" carries {"n": n}.
func (h *harness) batchEvents(keys []string, perKey int) []string {
	h.t.Helper()
	var msgs []Message
	var ids []string
	for n := range perKey {
		for _, k := range keys {
			id := fmt.Sprintf("evt_%s_%d", k, n)
			env := Envelope{ID: id, Type: "order.created", Source: "test", Time: time.Now(), Subject: k, Data: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))}
			b, err := json.Marshal(env)
			if err != nil {
				h.t.Fatal(err)
			}
			msgs = append(msgs, Message{Topic: topic, Key: []byte(k), Value: b})
			ids = append(ids, id)
		}
	}
	if err := h.pub.Publish(h.ctx, msgs...); err != nil {
		h.t.Fatal(err)
	}
	return ids
}

// effectHandler records a run and writes its effect in the transaction; the
// poison event fails every time.
func (h *harness) effectHandler(poison string) (Handler, func(id string) int) {
	var mu sync.Mutex
	calls := map[string]int{}
	var clock atomic.Int64
	handler := func(ctx context.Context, env Envelope) error {
		mu.Lock()
		calls[env.ID]++
		mu.Unlock()
		if env.ID == poison {
			return errors.New("cannot apply " + env.ID)
		}
		var d struct{ N int }
		if err := json.Unmarshal(env.Data, &d); err != nil {
			return err
		}
		_, err := h.db.Collection(effectsCollection).InsertOne(ctx, effectDoc{Event: env.ID, Key: env.Subject, N: d.N, At: clock.Add(1)})
		return err
	}
	return handler, func(id string) int {
		mu.Lock()
		defer mu.Unlock()
		return calls[id]
	}
}

// committedEffects reads the effects that committed.
func (h *harness) committedEffects() []effectDoc {
	h.t.Helper()
	cur, err := h.db.Collection(effectsCollection).Find(h.ctx, bson.D{})
	if err != nil {
		h.t.Fatal(err)
	}
	var out []effectDoc
	if err := cur.All(h.ctx, &out); err != nil {
		h.t.Fatal(err)
	}
	return out
}

// checkEffects fails unless each id has exactly one committed effect, none
// other exists, and each key's effects committed in the order published.
func (h *harness) checkEffects(ids []string) {
	h.t.Helper()
	got := h.committedEffects()
	per := map[string]int{}
	for _, e := range got {
		per[e.Event]++
	}
	for _, id := range ids {
		if per[id] != 1 {
			h.t.Errorf("event %s has %d effects, want 1", id, per[id])
		}
		delete(per, id)
	}
	for id, n := range per {
		h.t.Errorf("unexpected effects of %s: %d", id, n)
	}
	slices.SortFunc(got, func(a, b effectDoc) int { return int(a.At - b.At) })
	last := map[string]int{}
	for _, e := range got {
		if prev, ok := last[e.Key]; ok && e.N <= prev {
			h.t.Errorf("key %s: event %d applied after %d", e.Key, e.N, prev)
		}
		last[e.Key] = e.N
	}
}

// batchOpts makes every test batch hold everything already published: a
// generous wait for the rest once the first message is in.
func batchOpts(c *ConsumerConfig) { c.BatchWait = 300 * time.Millisecond }

// TestBatchesShareOneTransaction: events available together are handled in
// a few transactions, not one each, once each, each key in order.
func TestBatchesShareOneTransaction(t *testing.T) {
	h := newHarness(t, "")
	keys := []string{"ord_a", "ord_b", "ord_c", "ord_d", "ord_e"}
	ids := h.batchEvents(keys, 10)
	handler, calls := h.effectHandler("")
	var commits atomic.Int32
	h.startConsumer("g1", h.db, handler, 0, batchOpts, func(c *ConsumerConfig) { c.AfterCommit = func() { commits.Add(1) } })
	waitFor(t, 10*time.Second, func() bool { return countProcessed(t, h.db) == int64(len(ids)) })
	h.checkEffects(ids)
	for _, id := range ids {
		if n := calls(id); n != 1 {
			t.Errorf("event %s handled %d times", id, n)
		}
	}
	// 50 events in one produce call: one batch, or a few if a partition's
	// records came late; never one transaction per event.
	if n := commits.Load(); n < 1 || n > 5 {
		t.Errorf("%d transactions for %d events, want a few batches", n, len(ids))
	}
	waitFor(t, 5*time.Second, func() bool { return committedAll(t, h, "g1") })
}

// committedAll reports that the group committed every partition's log end
// (an empty partition has nothing to commit).
func committedAll(t *testing.T, h *harness, group string) bool {
	for _, p := range readOffsets(t, h.broker.Addrs(), group) {
		if p.lag() != 0 || p.outOfRange() {
			return false
		}
	}
	return true
}

// TestBatchWithPoisonMessage: one event of a batch always fails. The batch
// rolls back and is handled one event at a time: the others commit once each,
// in order per key; the poison one runs MaxAttempts times in all (its run in
// the batch included) and is parked on the DLQ; the offsets move past it.
func TestBatchWithPoisonMessage(t *testing.T) {
	h := newHarness(t, "")
	keys := []string{"ord_a", "ord_b", "ord_c"}
	ids := h.batchEvents(keys, 6)
	poison := "evt_ord_b_3"
	handler, calls := h.effectHandler(poison)
	h.startConsumer("g1", h.db, handler, 3, batchOpts)

	good := slices.DeleteFunc(slices.Clone(ids), func(id string) bool { return id == poison })
	waitFor(t, 10*time.Second, func() bool { return countProcessed(t, h.db) == int64(len(good)) })
	dlq := readTopic(t, h.broker.Addrs(), DeadLetterTopic("g1"), 1)
	env, err := Decode(dlq[0].Value)
	if err != nil || env.ID != poison {
		t.Fatalf("dead-lettered %s (%v), want %s", dlq[0].Value, err, poison)
	}
	if hdr := HeadersFromKafka(dlq[0].Headers)[ErrorHeader]; !strings.Contains(hdr, "cannot apply") {
		t.Errorf("error header %q", hdr)
	}
	if n := calls(poison); n != 3 {
		t.Errorf("poison event ran %d times, want 3 (MaxAttempts)", n)
	}
	// The events of its key before it ran in the rolled-back batch and again
	// on their own: two runs, one effect.
	if n := calls("evt_ord_b_0"); n != 2 {
		t.Errorf("evt_ord_b_0 ran %d times, want 2 (the rolled-back batch, then alone)", n)
	}
	h.checkEffects(good)
	waitFor(t, 5*time.Second, func() bool { return committedAll(t, h, "g1") })
}

// TestBatchCrashBetweenCommitAndOffsetCommit: the consumer dies after its
// batch transaction committed and before the offsets did. The next consumer
// of the group gets the batch again and has no second effect.
func TestBatchCrashBetweenCommitAndOffsetCommit(t *testing.T) {
	h := newHarness(t, "")
	keys := []string{"ord_a", "ord_b", "ord_c", "ord_d"}
	ids := h.batchEvents(keys, 5)
	handler, calls := h.effectHandler("")
	crash := errors.New("process died")
	cfg := ConsumerConfig{
		Brokers: h.broker.Brokers(), GroupID: "g1", Topics: []string{topic}, DB: h.db, Handler: handler, Handles: testVersions, Publisher: h.pub, Logger: h.logger,
		SessionTimeout: time.Second, RebalanceTimeout: time.Second, HeartbeatInterval: 100 * time.Millisecond,
		BatchWait: 300 * time.Millisecond, BeforeOffsetCommit: func() error { return crash },
	}
	_, done := h.goRun(func(ctx context.Context) error { return RunConsumer(ctx, cfg) })
	select {
	case err := <-done:
		if !errors.Is(err, crash) || !errors.Is(err, ErrConsumerStopped) {
			t.Fatalf("consumer returned %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("consumer did not stop at the fault point")
	}
	first := h.committedEffects()
	if len(first) == 0 {
		t.Fatal("the crashed consumer committed no transaction")
	}
	for _, p := range readOffsets(t, h.broker.Addrs(), "g1") {
		if p.committed >= 0 {
			t.Fatalf("offset committed on %s/%d before the crash: %+v", p.topic, p.partition, p)
		}
	}

	// The restarted consumer: same group, same database.
	h.startConsumer("g1", h.db, handler, 0, batchOpts)
	waitFor(t, 10*time.Second, func() bool { return countProcessed(t, h.db) == int64(len(ids)) })
	waitFor(t, 5*time.Second, func() bool { return committedAll(t, h, "g1") })
	h.checkEffects(ids)
	for _, e := range first {
		if n := calls(e.Event); n != 1 {
			t.Errorf("event %s, committed before the crash, ran %d times", e.Event, n)
		}
	}
}

// TestBatchTransactionIsBounded: a slow handler does not hold one
// transaction for a whole batch: past BatchMaxTime the transaction commits
// what it has and the rest follows in the next, in order, once each.
func TestBatchTransactionIsBounded(t *testing.T) {
	h := newHarness(t, "")
	ids := h.batchEvents([]string{"ord_a"}, 10)
	inner, calls := h.effectHandler("")
	slow := func(ctx context.Context, env Envelope) error {
		time.Sleep(40 * time.Millisecond)
		return inner(ctx, env)
	}
	var commits atomic.Int32
	h.startConsumer("g1", h.db, slow, 0, batchOpts, func(c *ConsumerConfig) {
		c.BatchMaxTime = 100 * time.Millisecond
		c.AfterCommit = func() { commits.Add(1) }
	})
	waitFor(t, 10*time.Second, func() bool { return countProcessed(t, h.db) == int64(len(ids)) })
	h.checkEffects(ids)
	for _, id := range ids {
		if n := calls(id); n != 1 {
			t.Errorf("event %s handled %d times", id, n)
		}
	}
	// 10 x 40 ms at most ~100 ms (three events) a transaction: four or
	// more, but still batches (fewer than ten).
	if n := commits.Load(); n < 4 || n >= 10 {
		t.Errorf("%d transactions, want 4 to 9", n)
	}
	waitFor(t, 5*time.Second, func() bool { return committedAll(t, h, "g1") })
}
