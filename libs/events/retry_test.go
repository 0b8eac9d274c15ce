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
