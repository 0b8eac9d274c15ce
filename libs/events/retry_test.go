package events

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type preparedKey struct{}

// TestPrepareAndRetryNeverDeadLetter: a dependency that does not answer,
// seen by Prepare (outside the transaction) or by the handler (an error
// marked with Retry), delays events for as long as it lasts, without spending
// their attempts: with MaxAttempts 2, four failed runs later every event is
// applied once and none is dead-lettered. What Prepare learnt reaches the
// handler through the context, for every event, in batches and one by one.
func TestPrepareAndRetryNeverDeadLetter(t *testing.T) {
	h := newHarness(t, "")
	var prepareDown, handlerDown atomic.Int32
	prepareDown.Store(2) // the next 2 Prepare runs fail
	handlerDown.Store(2) // then the next 2 handler runs fail, marked Retry (more than MaxAttempts)
	var mu sync.Mutex
	prepared := map[string]int{}
	prepare := func(ctx context.Context, envs []Envelope) (context.Context, error) {
		if prepareDown.Add(-1) >= 0 {
			return nil, errors.New("the dependency does not answer")
		}
		ids := map[string]bool{}
		mu.Lock()
		for _, e := range envs {
			ids[e.ID] = true
			prepared[e.ID]++
		}
		mu.Unlock()
		return context.WithValue(ctx, preparedKey{}, ids), nil
	}
	effect, calls := h.effectHandler("")
	var unprepared atomic.Int32
	handler := func(ctx context.Context, env Envelope) error {
		if ids, _ := ctx.Value(preparedKey{}).(map[string]bool); !ids[env.ID] {
			unprepared.Add(1)
		}
		if prepareDown.Load() < 0 && handlerDown.Add(-1) >= 0 {
			return Retry(errors.New("the dependency does not answer"))
		}
		return effect(ctx, env)
	}
	status := NewConsumerStatus(0)
	ids := h.batchEvents([]string{"ord_a", "ord_b", "ord_c"}, 4)
	h.startConsumer("g-retry", h.db, handler, 2, batchOpts, func(c *ConsumerConfig) {
		c.Prepare, c.Status, c.RetryBackoff = prepare, status, 10*time.Millisecond
	})
	waitFor(t, 15*time.Second, func() bool { return len(h.committedEffects()) == len(ids) })
	h.checkEffects(ids)
	if _, dead := status.counts([]string{topic}); dead[topic] != 0 {
		t.Fatalf("%d events dead-lettered while a dependency was down", dead[topic])
	}
	if n := unprepared.Load(); n != 0 {
		t.Fatalf("the handler ran %d times on an event Prepare had not seen", n)
	}
	if handlerDown.Load() >= 0 || prepareDown.Load() >= 0 {
		t.Fatalf("the failures did not all happen: prepare %d, handler %d left", prepareDown.Load(), handlerDown.Load())
	}
	for _, id := range ids {
		if calls(id) == 0 {
			t.Fatalf("event %s never handled", id)
		}
	}
}

// TestOnCommitOncePerCommittedEvent: what a handler registers with OnCommit
// runs once per event whose transaction committed, though the batch's
// transaction was rolled back by a poison event and its events handled again
// one at a time (two handler runs, one commit); never for the poison event.
func TestOnCommitOncePerCommittedEvent(t *testing.T) {
	h := newHarness(t, "")
	ids := h.batchEvents([]string{"ord_a", "ord_b"}, 3)
	poison := "evt_ord_b_1"
	effect, calls := h.effectHandler(poison)
	var mu sync.Mutex
	hooked := map[string]int{}
	handler := func(ctx context.Context, env Envelope) error {
		OnCommit(ctx, func() {
			mu.Lock()
			hooked[env.ID]++
			mu.Unlock()
		})
		return effect(ctx, env)
	}
	h.startConsumer("g-hooks", h.db, handler, 2, batchOpts)
	waitFor(t, 10*time.Second, func() bool { return countProcessed(t, h.db) == int64(len(ids)-1) })
	readTopic(t, h.broker.Addrs(), DeadLetterTopic("g-hooks"), 1)
	mu.Lock()
	defer mu.Unlock()
	for _, id := range ids {
		want := 1
		if id == poison {
			want = 0
		}
		if hooked[id] != want {
			t.Errorf("event %s: OnCommit ran %d times (handler %d), want %d", id, hooked[id], calls(id), want)
		}
	}
	if calls("evt_ord_a_0") < 2 {
		t.Errorf("evt_ord_a_0 ran %d times: the batch was not rolled back", calls("evt_ord_a_0"))
	}
	ran := false
	OnCommit(context.Background(), func() { ran = true })
	if !ran {
		t.Error("OnCommit outside a consumer did not run at once")
	}
}
