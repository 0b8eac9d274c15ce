package events

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"marketplace/libs/store"
)

// TestConsumerWaitsAtTheMemoryLimit: a handler whose write is refused at
// DB_MEMORY_LIMIT is not the event's fault: the event waits (no attempts
// spent, never dead-lettered, even with MaxAttempts 1) and is applied once
// the heap is below the limit; in batches and one at a time. A handler that
// adds nothing goes through over the limit (the record of the event is let
// through).
func TestConsumerWaitsAtTheMemoryLimit(t *testing.T) {
	for _, batched := range []bool{false, true} {
		t.Run(fmt.Sprintf("batched=%v", batched), func(t *testing.T) {
			h := newHarness(t, "")
			lim := store.NewMemoryLimit(64 << 20)
			var heap atomic.Uint64
			heap.Store(100 << 20) // over the limit
			lim.SetHeapReader(heap.Load)
			db, err := store.Open(h.ctx, store.Options{Name: "limited", Memory: true, MemoryLimit: lim})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { db.Close(context.Background()) })
			if err := db.EnsureIndexes(store.AllowOverMemoryLimit(h.ctx, "test"), ConsumerIndexes()...); err != nil {
				t.Fatal(err)
			}
			var runs, refused atomic.Int32
			adds := func(ctx context.Context, env Envelope) error {
				runs.Add(1)
				_, err := db.Collection(effectsCollection).InsertOne(ctx, effectDoc{Event: env.ID, Key: env.Subject})
				if store.IsMemoryLimit(err) {
					refused.Add(1)
				}
				return err
			}
			status := NewConsumerStatus(0)
			opts := []func(*ConsumerConfig){func(c *ConsumerConfig) { c.Status, c.RetryBackoff = status, 5*time.Millisecond }}
			if batched {
				opts = append(opts, batchOpts)
			}
			ids := h.batchEvents([]string{"ord_a", "ord_b"}, 2)
			h.startConsumer("g-adds", db, adds, 1, opts...)
			// Nothing adds: recorded over the limit.
			var quiet atomic.Int32
			h.startConsumer("g-quiet", db, func(context.Context, Envelope) error { quiet.Add(1); return nil }, 1, opts...)
			waitFor(t, 10*time.Second, func() bool { return refused.Load() >= 3 && countProcessed(t, db) == int64(len(ids)) })
			if n := count(t, db, effectsCollection); n != 0 {
				t.Fatalf("%d effects written over the limit", n)
			}
			heap.Store(10 << 20) // freed
			waitFor(t, 15*time.Second, func() bool { return count(t, db, effectsCollection) == int64(len(ids)) })
			waitFor(t, 5*time.Second, func() bool { return countProcessed(t, db) == int64(2*len(ids)) })
			if _, dead := status.counts([]string{topic}); dead[topic] != 0 {
				t.Fatalf("%d events dead-lettered at the memory limit", dead[topic])
			}
		})
	}
}
