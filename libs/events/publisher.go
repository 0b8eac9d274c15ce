package events

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/segmentio/kafka-go"
)

// Message is one record to publish.
type Message struct {
	Topic   string
	Key     []byte
	Value   []byte
	Headers map[string]string
}

// Publisher sends messages to Kafka. Publish returns nil only when every
// message was acknowledged.
type Publisher interface {
	Publish(ctx context.Context, msgs ...Message) error
}

// publishAttempts bounds KafkaPublisher's own retries on top of the writer's;
// the relay and the dead-letter path retry further without dropping anything.
const publishAttempts = 4

// KafkaPublisher publishes through a kafka-go Writer.
type KafkaPublisher struct {
	w      *kafka.Writer
	tr     *kafka.Transport // the writer's; Close closes its connections
	logger *slog.Logger
}

// NewKafkaPublisher returns a publisher for the given brokers.
func NewKafkaPublisher(brokers Brokers, logger *slog.Logger) *KafkaPublisher {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	tr := brokers.Transport("marketplace-events")
	return &KafkaPublisher{
		logger: logger,
		tr:     tr,
		w: &kafka.Writer{
			Addr: brokers.Addr(),
			// Hash keeps one key on one partition, so one aggregate's events stay ordered.
			Balancer: &kafka.Hash{},
			// The default batch timeout (1 s) would delay every small write by a second.
			BatchTimeout:    time.Millisecond,
			RequiredAcks:    kafka.RequireAll,
			MaxAttempts:     3,
			WriteBackoffMin: 10 * time.Millisecond,
			WriteBackoffMax: 200 * time.Millisecond,
			// Topics are normally pre-created; this covers dead-letter topics
			// and the embedded broker.
			AllowAutoTopicCreation: true,
			// Our own transport: the shared default one keeps a dead connection
			// after a broker restart.
			Transport: tr,
		},
	}
}

// Publish writes msgs and waits for all of them to be acknowledged, retrying
// transient failures of the messages that failed.
func (p *KafkaPublisher) Publish(ctx context.Context, msgs ...Message) error {
	pending := make([]kafka.Message, len(msgs))
	for i, m := range msgs {
		pending[i] = kafka.Message{Topic: m.Topic, Key: m.Key, Value: m.Value, Headers: headersToKafka(m.Headers)}
	}
	wait := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := p.w.WriteMessages(ctx, pending...)
		if err == nil {
			return nil
		}
		if attempt >= publishAttempts || !transient(ctx, err) {
			return fmt.Errorf("events: publish %d messages: %w", len(pending), err)
		}
		var werr kafka.WriteErrors
		if errors.As(err, &werr) && len(werr) == len(pending) {
			// Resend only what failed, to keep duplicates down.
			var failed []kafka.Message
			for i, e := range werr {
				if e != nil {
					failed = append(failed, pending[i])
				}
			}
			pending = failed
		}
		p.logger.WarnContext(ctx, "events: publish failed, retrying", "attempt", attempt, "messages", len(pending), "err", err)
		if !sleepCtx(ctx, wait) {
			return fmt.Errorf("events: publish: %w", ctx.Err())
		}
		wait *= 2
	}
}

// Close flushes and releases the writer, then closes its transport's
// connections: a Writer closes only a transport of its own making, and one
// left open keeps a connection pool per broker address, with the goroutine
// that asks it for metadata every few seconds, for the life of the process.
func (p *KafkaPublisher) Close() error {
	err := p.w.Close()
	p.tr.CloseIdleConnections()
	return err
}

// transient reports whether retrying err may succeed. Network failures (EOF or
// a reset after a broker restart) are transient; so are Kafka's retriable codes.
func transient(ctx context.Context, err error) bool {
	if ctx.Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var werr kafka.WriteErrors
	if errors.As(err, &werr) {
		for _, e := range werr {
			if e != nil && !transient(ctx, e) {
				return false
			}
		}
		return true
	}
	var kerr kafka.Error
	if errors.As(err, &kerr) {
		return kerr.Temporary()
	}
	var tooLarge kafka.MessageTooLargeError
	return !errors.As(err, &tooLarge) && !errors.Is(err, io.ErrClosedPipe) // closed pipe: the writer was closed
}

// nextBackoff doubles a wait between retries, from 100ms up to limit.
func nextBackoff(prev, limit time.Duration) time.Duration {
	return min(max(2*prev, 100*time.Millisecond), limit)
}

// sleepCtx waits d, or less if ctx ends first; it reports whether ctx is still live.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
