package events

// Batches. The consumer takes the messages that are available together (up
// to BatchSize, waiting at most BatchWait after the first for more) and
// handles them in one store transaction: the processed ids of the batch are
// looked up with one query, each new event runs through the same Handler, in
// fetch order, and their processed records are inserted together before the
// commit; the batch's offsets are committed after it. One transaction per
// batch rather than per event is what lets a consumer keep up with a burst:
// the per-transaction costs (the engine's write lock and commit, the dedupe
// lookup and insert, an offset commit) are paid once per batch. A batch
// transaction stops taking events after BatchMaxTime and commits; the rest
// of the batch goes into the next one (it holds the embedded engine's write
// lock, and a handler may call another service). Messages that are not
// envelopes, and events in no version the consumer reads, are dead-lettered
// before the batch's transaction; events it does not handle (another type,
// or a copy of an event in another version, versions.go) are left out of it.
//
// The guarantees are those of one event at a time: an offset is committed only
// after the transaction that recorded its event, so a crash in between
// redelivers events whose records exist and are skipped. A handler that fails
// rolls the whole batch back, and the batch is then handled one event at a
// time (handle), so the failing event is retried and dead-lettered on its own
// while the others commit; the batch's run counts as its first attempt.
// Ordering is kept: one key's events are on one partition, a partition's
// messages arrive in order, and a batch and its fallback run them in that
// order.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"marketplace/libs/store"
)

// Batch defaults.
const (
	DefaultConsumerBatch = 100
	// DefaultConsumerBatchWait is what a lone event waits for company: short, since
	// under load the batch fills from what queued during the previous one.
	DefaultConsumerBatchWait = 5 * time.Millisecond
	// DefaultConsumerBatchMaxTime bounds a batch transaction: past it, the
	// rest of the batch goes into the next one.
	DefaultConsumerBatchMaxTime = 100 * time.Millisecond
)

// fetchBatch waits for a message until rctx ends, then takes those that
// arrive within BatchWait of it, up to BatchSize. A fetch error after the
// first message is returned with the messages fetched before it, which are
// to be settled first.
func (c *consumer) fetchBatch(rctx context.Context, r *kafka.Reader) ([]kafka.Message, error) {
	msg, err := r.FetchMessage(rctx)
	if err != nil {
		return nil, err
	}
	batch := []kafka.Message{msg}
	if c.cfg.BatchSize <= 1 {
		return batch, nil
	}
	wctx, cancel := context.WithTimeout(rctx, c.cfg.BatchWait)
	defer cancel()
	for len(batch) < c.cfg.BatchSize {
		m, err := r.FetchMessage(wctx)
		if err != nil {
			if wctx.Err() != nil { // the wait is over (or the reader is stopping)
				return batch, nil
			}
			return batch, err
		}
		batch = append(batch, m)
	}
	return batch, nil
}

// batchItem is a message of a batch and its envelope.
type batchItem struct {
	idx     int // in the batch
	msg     kafka.Message
	env     Envelope
	version int // the major version of env's data
	headers map[string]string
}

// batchHandlerError is the handler's failure on one event of a batch.
type batchHandlerError struct {
	id  string
	err error
}

func (e *batchHandlerError) Error() string { return fmt.Sprintf("event %s: %v", e.id, e.err) }
func (e *batchHandlerError) Unwrap() error { return e.err }

// settle settles a batch: each message processed, skipped as a duplicate or
// dead-lettered. It returns how many messages, from the first, are settled:
// all of them unless ctx ended first (the rest are redelivered).
func (c *consumer) settle(ctx context.Context, batch []kafka.Message) int {
	if len(batch) == 1 {
		if c.handle(ctx, batch[0], 1) {
			return 1
		}
		return 0
	}
	// The batch as the group reads it: replays as messages of the topics
	// they were parked from (deadletter.go). The caller commits the offsets
	// of the messages as fetched.
	batch = slices.Clone(batch)
	items := make([]batchItem, 0, len(batch))
	for i, msg := range batch {
		msg, ok := c.delivery(msg)
		if !ok {
			continue // a parked record of the group's dead-letter topic
		}
		batch[i] = msg
		env, err := Decode(msg.Value)
		if err != nil {
			// Dead-lettered first (handle does it), so that whatever commits
			// later, every message before it is settled.
			if !c.handle(ctx, msg, 1) {
				return 0
			}
			continue
		}
		headers := HeadersFromKafka(msg.Headers)
		r, version, why := c.route(env)
		switch r {
		case skipIt:
			c.logger.DebugContext(ctx, "events: not handled", "id", env.ID, "type", env.Type, "why", why)
			continue
		case parkIt:
			if !c.park(ctx, msg, headers, env, version, why) {
				return 0
			}
			continue
		}
		items = append(items, batchItem{idx: i, msg: msg, env: env, version: version, headers: headers})
	}
	done := 0 // items committed
	// settled is the batch prefix settled once done items are.
	settled := func() int {
		if done == len(items) {
			return len(batch)
		}
		return items[done].idx
	}
	infraWait := time.Duration(0)
	for done < len(items) {
		n, err := c.processBatch(ctx, items[done:])
		if err == nil {
			done += n
			infraWait = 0
			continue
		}
		if ctx.Err() != nil {
			return settled()
		}
		if errors.Is(err, errSeen) {
			// Another member processed some of these meanwhile (a
			// rebalance): run again, they are skipped now.
			continue
		}
		var herr *batchHandlerError
		if errors.As(err, &herr) && !IsRetry(err) && !store.IsMemoryLimit(err) && c.cfg.DB.Ping(ctx) == nil {
			c.logger.WarnContext(ctx, "events: handler failed in a batch, handling the batch one event at a time",
				"id", herr.id, "batch", len(items)-done, "err", herr.err)
			from := settled()
			return from + c.settleOneByOne(ctx, batch[from:], herr)
		}
		// The database, not an event, failed: wait for it.
		infraWait = nextBackoff(infraWait, maxInfraBackoff)
		c.logger.ErrorContext(ctx, "events: processing a batch failed, will retry", "batch", len(items)-done, "err", err, "backoff", infraWait)
		if !sleepCtx(ctx, infraWait) {
			return settled()
		}
	}
	return len(batch)
}

// settleOneByOne handles a batch's messages one at a time, in order, after
// the batch failed on one event (whose run in the batch was its first
// attempt); the undecodable ones, and those not to be handled, are already
// settled. It returns how many are settled.
func (c *consumer) settleOneByOne(ctx context.Context, batch []kafka.Message, failed *batchHandlerError) int {
	for i, msg := range batch {
		if msg.Topic == c.dlqTopic {
			continue // a parked record (settle left replays as their topics')
		}
		env, err := Decode(msg.Value)
		if err != nil {
			continue
		}
		if r, _, _ := c.route(env); r != handleIt {
			continue
		}
		attempt := 1
		if env.ID == failed.id {
			attempt = 2
			if c.cfg.MaxAttempts <= 1 { // that run was its only one
				c.logger.ErrorContext(ctx, "events: handler failed, dead-lettering", "id", env.ID, "type", env.Type, "attempts", 1, "err", failed.err)
				if !c.deadLetter(ctx, msg, HeadersFromKafka(msg.Headers), failed.err) {
					return i
				}
				continue
			}
		}
		if !c.handle(ctx, msg, attempt) {
			return i
		}
	}
	return len(batch)
}

// processBatch runs the handler on the events of items not processed yet,
// and records them, in one transaction, and returns how many items it
// covered: all of them, unless the transaction has run for BatchMaxTime
// (the longer a transaction stays open, the likelier a write of another
// transaction conflicts with it and it runs again; a slow handler, such as
// one calling another service, must not keep one open for a whole batch).
func (c *consumer) processBatch(ctx context.Context, items []batchItem) (int, error) {
	keys := make([]string, len(items))
	digests := make([]string, len(items))
	copies := make([][]string, len(items))
	envs := make([]Envelope, len(items))
	for i, it := range items {
		keys[i] = c.processedKey(it.env.ID)
		digests[i] = contentDigest(it.env)
		copies[i] = copyDigests(it.env)
		envs[i] = it.env
	}
	ctx, err := c.prepare(ctx, envs)
	if err != nil {
		return 0, err
	}
	recorded, covered := 0, 0
	var hooks *commitHooks
	var handled []batchItem // by the committed run
	err = c.cfg.DB.Tx(ctx, func(tx context.Context) error {
		start := time.Now()
		recorded, covered = 0, 0
		handled = handled[:0]
		tx, hooks = withCommitHooks(tx)
		known, err := c.processedAmong(tx, keys)
		if err != nil {
			return err
		}
		var fresh []string // keys recorded by this run
		docs := map[string]processedDoc{}
		for i, it := range items {
			if i > 0 && time.Since(start) > c.cfg.BatchMaxTime {
				break // the rest in the next transaction
			}
			covered = i + 1
			key, seen, err := c.dedupeKey(tx, known, it.msg.Topic, it.env, digests[i], copies[i])
			if err != nil {
				return err
			}
			if seen {
				c.logger.DebugContext(ctx, "events: duplicate skipped", "id", it.env.ID)
				continue
			}
			if err := c.handleInBatch(tx, it, len(items)); err != nil {
				return &batchHandlerError{id: it.env.ID, err: err}
			}
			doc := processedDoc{ID: key, EventID: it.env.ID, Group: c.cfg.GroupID, Topic: it.msg.Topic,
				Type: it.env.Type, ProcessedAt: time.Now().UTC(), Digest: digests[i], Copies: copies[i]}
			known[key] = doc // the same event twice in one batch
			fresh = append(fresh, key)
			docs[key] = doc
			handled = append(handled, it)
		}
		if len(fresh) > 0 {
			batch := make([]any, len(fresh))
			for j, key := range fresh {
				batch[j] = docs[key]
			}
			if _, err := c.cfg.DB.Collection(processedCollection).InsertMany(recording(tx), batch); err != nil {
				if store.IsDuplicate(err) {
					return errSeen // processed concurrently (real MongoDB); roll this run back
				}
				return err
			}
		}
		recorded = len(fresh)
		return nil
	})
	if err != nil {
		return 0, err
	}
	hooks.run()
	for _, it := range handled {
		c.versions.handledOne(it.env.Type, it.version)
	}
	if recorded > 0 && c.cfg.AfterCommit != nil {
		c.cfg.AfterCommit()
	}
	return covered, nil
}

// processedAmong is the records among keys this group has (one query, which
// the _id index serves).
func (c *consumer) processedAmong(ctx context.Context, keys []string) (map[string]processedDoc, error) {
	cur, err := c.cfg.DB.Collection(processedCollection).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: keys}}}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}, {Key: "topic", Value: 1}, {Key: "type", Value: 1}, {Key: "digest", Value: 1}, {Key: "copies", Value: 1}}))
	if err != nil {
		return nil, err
	}
	var found []processedDoc
	if err := cur.All(ctx, &found); err != nil {
		return nil, err
	}
	known := make(map[string]processedDoc, len(keys))
	for _, f := range found {
		known[f.ID] = f
	}
	return known, nil
}

// handleInBatch runs the handler on one event of a batch transaction, in a
// span of its own that continues the event's trace (tx carries the
// transaction's session, so the handler's database calls join it).
func (c *consumer) handleInBatch(tx context.Context, it batchItem, size int) error {
	ctx, span := c.startProcess(tx, it.msg, it.headers,
		attribute.String("messaging.message.id", it.env.ID),
		attribute.String("cloudevents.event_type", it.env.Type),
		attribute.Int("messaging.batch.message_count", size))
	defer span.End()
	err := c.callHandler(ctx, it.env)
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, "handler failed; the batch is handled one event at a time")
	}
	return err
}
