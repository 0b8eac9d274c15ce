package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/mongo/options"

	"marketplace/libs/store"
)

// Relay defaults.
const (
	DefaultPollInterval = 100 * time.Millisecond
	DefaultBatchSize    = 100
	maxRelayBackoff     = 5 * time.Second
)

// ErrRelayStopped wraps the error of a BeforePublish fault point.
var ErrRelayStopped = errors.New("events: relay stopped before publishing")

// Relay publishes the outbox. It reads committed entries oldest first,
// publishes them, then deletes them: a crash between publish and delete causes
// a redelivery, which consumers drop by id, never a loss. Several relays on
// one database are safe in the same way, only wasteful.
type Relay struct {
	// PollInterval is how often the outbox is read when nobody calls Kick
	// (events written by other processes, or a Kick that was missed).
	PollInterval time.Duration
	// BatchSize caps the entries published per round.
	BatchSize int
	// BeforePublish is a fault point for crash tests, nil in production: when
	// it returns an error the relay stops without publishing, as a process
	// dying between commit and publish would.
	BeforePublish func() error

	db     *store.DB
	pub    Publisher
	logger *slog.Logger
	kick   chan struct{}
}

// NewRelay returns a relay over db's outbox.
func NewRelay(db *store.DB, pub Publisher, logger *slog.Logger) *Relay {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &Relay{
		PollInterval: DefaultPollInterval,
		BatchSize:    DefaultBatchSize,
		db:           db,
		pub:          pub,
		logger:       logger,
		kick:         make(chan struct{}, 1),
	}
}

// Kick wakes the relay at once; it never blocks. Call it after a transaction
// that added events has committed.
func (r *Relay) Kick() {
	select {
	case r.kick <- struct{}{}:
	default: // a wake-up is already pending; it will see this commit too
	}
}

// Run publishes until ctx is done, then returns nil. It returns early only
// when BeforePublish fails (the error wraps ErrRelayStopped). Publish and
// database errors are logged and retried with backoff; nothing is dropped.
func (r *Relay) Run(ctx context.Context) error {
	poll := r.PollInterval
	if poll <= 0 {
		poll = DefaultPollInterval
	}
	batch := r.BatchSize
	if batch <= 0 {
		batch = DefaultBatchSize
	}
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	var backoff time.Duration
	for {
		n, err := r.relayOnce(ctx, batch)
		if errors.Is(err, ErrRelayStopped) {
			return err
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			backoff = nextBackoff(backoff, maxRelayBackoff)
			r.logger.ErrorContext(ctx, "events: relay failed, will retry", "err", err, "backoff", backoff)
			if !sleepCtx(ctx, backoff) {
				return nil
			}
			continue
		}
		backoff = 0
		if n == batch {
			continue // more are probably waiting
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.kick:
		case <-ticker.C:
		}
	}
}

// relayOnce publishes and deletes one batch, returning how many it handled.
func (r *Relay) relayOnce(ctx context.Context, batch int) (int, error) {
	coll := r.db.Collection(outboxCollection)
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "seq", Value: 1}}).SetLimit(int64(batch)))
	if err != nil {
		return 0, fmt.Errorf("events: relay read outbox: %w", err)
	}
	var docs []outboxDoc
	if err := cur.All(ctx, &docs); err != nil {
		return 0, fmt.Errorf("events: relay read outbox: %w", err)
	}
	if len(docs) == 0 {
		return 0, nil
	}
	// What was read may belong to a commit not yet on disk (the embedded
	// engine's group commit): an event must not leave for a change a crash
	// could still undo.
	if err := r.db.WaitDurable(ctx); err != nil {
		return 0, fmt.Errorf("events: relay: %w", err)
	}
	if r.BeforePublish != nil {
		if err := r.BeforePublish(); err != nil {
			return 0, fmt.Errorf("%w: %w", ErrRelayStopped, err)
		}
	}
	msgs := make([]Message, len(docs))
	ids := make(bson.A, len(docs))
	for i, d := range docs {
		msgs[i] = Message{Topic: d.Topic, Value: []byte(d.Envelope), Headers: d.Headers}
		if d.Key != "" { // no subject: let the balancer spread the events
			msgs[i].Key = []byte(d.Key)
		}
		ids[i] = d.ID
	}
	endSpans := startPublishSpans(ctx, docs, msgs)
	err = r.pub.Publish(ctx, msgs...)
	endSpans(err)
	if err != nil {
		return 0, err
	}
	// The events are out: finish the delete even if shutdown begins now, which
	// saves a redelivery.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if _, err := coll.DeleteMany(dctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}); err != nil {
		return 0, fmt.Errorf("events: relay delete published: %w", err)
	}
	return len(docs), nil
}
